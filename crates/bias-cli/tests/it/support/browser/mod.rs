//! Opens an HTML page in headless Chromium and reports what a reader would meet: script and
//! console errors, resources that failed to load, figures and tables drawn with no size,
//! in-page links that lead nowhere; and takes a screenshot of one section.
//!
//! No WebDriver and no npm: the page is copied to a scratch folder with a `<script>` injected as
//! the first element of its `<head>` (plus a `<base>` pointing at the page's own folder, so
//! relative figure paths still resolve). The script records errors from the first moment, runs
//! the checks on `load` and writes its findings as JSON into a new `<pre id="browser-check">`,
//! which `chromium --dump-dom` prints with the rest of the page. Every Chromium run has a
//! fresh profile, no network features, and is killed after [`TIMEOUT`].
//!
//! [`chromium`] finds and runs the browser, [`page`] prepares the page copy it opens,
//! [`checker`] holds the checker script and reads its findings, [`screenshot`] photographs one
//! section, and [`references`] scans the HTML source without a browser.

mod checker;
mod chromium;
mod page;
mod references;
mod screenshot;
#[cfg(test)]
mod tests;

use std::time::Duration;

pub use checker::check_page;
pub use chromium::{chromium_or_skip, find_chromium};
pub use references::{local_references, network_urls};
pub use screenshot::{png_size, screenshot_section};

/// How long one Chromium run may take before it is killed.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The page width of every run (the screenshot's width).
pub const WIDTH: u32 = 1280;

/// The tallest screenshot taken.
pub const MAX_HEIGHT: u32 = 4000;

/// A rendered element and its size in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Boxed {
    /// Tag, id, class and the start of its `src` or text, to find it in the page.
    pub what: String,
    pub width: f64,
    pub height: f64,
}

impl Boxed {
    fn is_empty(&self) -> bool {
        self.width <= 0.0 || self.height <= 0.0
    }
}

/// What the checker script found in the page (every list is empty on a clean page).
#[derive(Debug, Clone, Default)]
pub struct BrowserCheck {
    /// Uncaught script errors, `console.error` calls and unhandled promise rejections.
    pub errors: Vec<String>,
    /// Elements whose resource (image, style sheet, script, …) failed to load.
    pub failed_resources: Vec<String>,
    /// `<img>` elements that finished with no picture.
    pub broken_images: Vec<String>,
    /// Resources fetched from anywhere but `file:`, `data:`, `blob:` or `about:`.
    pub network: Vec<String>,
    /// Every `figure svg, figure img`.
    pub figures: Vec<Boxed>,
    /// Every `table.heat`.
    pub heat_tables: Vec<Boxed>,
    /// Whether the page has a `nav#contents`.
    pub has_contents: bool,
    /// The `href` of every `nav#contents a[href^="#"]`.
    pub toc_links: Vec<String>,
    /// In-page links (`a[href^="#"]`, anywhere) whose target id does not exist.
    pub broken_anchors: Vec<String>,
    /// `section#summary`, if the page has one.
    pub summary: Option<Boxed>,
    /// The `<details>` opened before measuring (a closed one hides its content).
    pub details_opened: usize,
}

impl BrowserCheck {
    /// One line: how many of each thing the page has.
    pub fn counts(&self) -> String {
        format!(
            "{} figures, {} heat tables, nav#contents {}, {} contents links, section#summary {}, \
             {} <details> opened to measure",
            self.figures.len(),
            self.heat_tables.len(),
            if self.has_contents {
                "present"
            } else {
                "absent"
            },
            self.toc_links.len(),
            if self.summary.is_some() {
                "present"
            } else {
                "absent"
            },
            self.details_opened
        )
    }

    /// Every problem any page should be free of: errors, failed or network loads, figures and
    /// heat maps drawn with no size, in-page links leading nowhere.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut list = |kind: &str, items: &[String]| {
            out.extend(items.iter().map(|i| format!("{kind}: {i}")));
        };
        list("error", &self.errors);
        list("failed resource", &self.failed_resources);
        list("broken image", &self.broken_images);
        list("network load", &self.network);
        list("broken anchor", &self.broken_anchors);
        for (kind, boxes) in [("figure", &self.figures), ("heat table", &self.heat_tables)] {
            out.extend(
                boxes
                    .iter()
                    .filter(|b| b.is_empty())
                    .map(|b| format!("{kind} of size {}×{}: {}", b.width, b.height, b.what)),
            );
        }
        out
    }
}
