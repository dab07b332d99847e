//! The marks of an SVG that plotters writes, read back for the figure tests.

use std::collections::BTreeMap;

use approx::abs_diff_eq;

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

/// An axis: pixel = offset + scale · value, fitted to the tick labels (least squares); every
/// label must sit within a pixel of the fit, so a label that misstates its tick fails here.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Axis {
    pub(crate) offset: f64,
    pub(crate) scale: f64,
}

impl Axis {
    pub(crate) fn fit(ticks: &[(f64, f64)], what: &str) -> Axis {
        assert!(ticks.len() >= 3, "{what}: too few ticks: {ticks:?}");
        let n = ticks.len() as f64;
        let mv = ticks.iter().map(|t| t.0).sum::<f64>() / n;
        let mp = ticks.iter().map(|t| t.1).sum::<f64>() / n;
        let sxy: f64 = ticks.iter().map(|t| (t.0 - mv) * (t.1 - mp)).sum();
        let sxx: f64 = ticks.iter().map(|t| (t.0 - mv).powi(2)).sum();
        let scale = sxy / sxx;
        let axis = Axis {
            offset: mp - scale * mv,
            scale,
        };
        for &(v, px) in ticks {
            assert!(
                abs_diff_eq!(axis.px(v), px, epsilon = 1.0),
                "{what}: tick {v} at {px}: {axis:?}"
            );
        }
        axis
    }

    pub(crate) fn px(&self, value: f64) -> f64 {
        self.offset + self.scale * value
    }

    pub(crate) fn value(&self, px: f64) -> f64 {
        (px - self.offset) / self.scale
    }
}
