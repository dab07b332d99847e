//! The marks of an SVG that plotters writes, read back for the figure tests.

use std::collections::BTreeMap;

/// One SVG element: its tag, attributes and (for `<text>`) its text.
#[derive(Debug)]
pub(crate) struct Mark {
    pub(crate) tag: String,
    pub(crate) attrs: BTreeMap<String, String>,
    pub(crate) text: String,
}

impl Mark {
    pub(crate) fn attr(&self, name: &str) -> &str {
        self.attrs.get(name).map_or("", String::as_str)
    }

    pub(crate) fn num(&self, name: &str) -> f64 {
        self.attr(name)
            .parse()
            .unwrap_or_else(|_| panic!("{name} of {self:?}"))
    }

    /// The `points` attribute of a polyline or polygon.
    pub(crate) fn points(&self) -> Vec<(f64, f64)> {
        self.attr("points")
            .split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    pub(crate) fn value(&self) -> Option<f64> {
        self.text.parse().ok()
    }

    pub(crate) fn is_text(&self) -> bool {
        self.tag == "text"
    }
}

/// The elements of an SVG written by plotters (one flat list of marks).
pub(crate) fn marks(svg: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if rest.starts_with('/') || rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let end = rest.find('>').unwrap();
        let inside = rest[..end].trim_end_matches('/');
        let (tag, mut attrs_text) = inside.split_once(' ').unwrap_or((inside, ""));
        let mut attrs = BTreeMap::new();
        while let Some(eq) = attrs_text.find("=\"") {
            let name = attrs_text[..eq].trim().to_owned();
            let after = &attrs_text[eq + 2..];
            let close = after.find('"').unwrap();
            attrs.insert(name, after[..close].to_owned());
            attrs_text = &after[close + 1..];
        }
        let text = if tag == "text" {
            let body = &rest[end + 1..];
            body[..body.find("</text>").unwrap()]
                .trim()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        } else {
            String::new()
        };
        out.push(Mark {
            tag: tag.to_owned(),
            attrs,
            text,
        });
        rest = &rest[end + 1..];
    }
    out
}
