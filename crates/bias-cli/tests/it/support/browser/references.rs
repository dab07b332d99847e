//! Scans of a page's HTML source, no browser needed: the network addresses it refers to and
//! the files beside it that it refers to.

/// Every `src`, `href`, `srcset`, `action`, `poster`, CSS `url(…)` or `@import` in `html` whose
/// value starts with `http:`, `https:` or `//` (a page that must work offline has none).
pub fn network_urls(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    for key in [
        "src=", "href=", "srcset=", "action=", "poster=", "url(", "@import",
    ] {
        for (i, _) in lower.match_indices(key) {
            let rest =
                lower[i + key.len()..].trim_start_matches([' ', '\t', '\n', '\r', '"', '\'']);
            if ["http:", "https:", "//"]
                .iter()
                .any(|p| rest.starts_with(p))
            {
                let end = (i + 100).min(html.len());
                let end = (end..=html.len())
                    .find(|&e| html.is_char_boundary(e))
                    .unwrap();
                out.push(html[i..end].lines().next().unwrap_or_default().to_owned());
            }
        }
    }
    out
}

/// The quoted `src` and `href` values of `html` that name a file beside the page (not an
/// in-page `#…`, `data:`, `mailto:` or network address), without any `?…` or `#…` suffix.
pub fn local_references(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    for key in [" src=", " href=", "\nsrc=", "\nhref="] {
        for (i, _) in lower.match_indices(key) {
            let rest = &html[i + key.len()..];
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            let Some(end) = rest[1..].find(quote) else {
                continue;
            };
            let value = rest[1..1 + end].trim();
            let v = value.to_ascii_lowercase();
            let skip = [
                "#",
                "data:",
                "mailto:",
                "javascript:",
                "http:",
                "https:",
                "//",
            ];
            if value.is_empty() || skip.iter().any(|p| v.starts_with(p)) {
                continue;
            }
            let value = value.split(['?', '#']).next().unwrap_or_default();
            out.push(value.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_urls_and_local_references_are_found_in_attributes() {
        let html = "<svg xmlns=\"http://www.w3.org/2000/svg\"><use xlink:href=\"#a\"/></svg>\
                    <img src=\"figures/a.png\"><a href=\"#x\">x</a>\
                    <img SRC='https://example.org/a.png'>\
                    <link href=\"//cdn.example.org/x.css\">\
                    <style>body{background:url( \"http://example.org/b.png\")}</style>";
        let found = network_urls(html);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("SRC='https://example.org"),
            "{found:?}"
        );
        assert!(network_urls("<p>see http://example.org</p>").is_empty());
        assert_eq!(
            local_references(html),
            ["figures/a.png"],
            "{:?}",
            local_references(html)
        );
        assert_eq!(
            local_references("<a href='f/b.png#x'>b</a><a\nhref=\"c.svg?v=1\">c</a>"),
            ["f/b.png", "c.svg"]
        );
    }
}
