//! The HTML page of a [`Report`]: one self-contained file, inline CSS, no script.

use std::fmt::Write as _;

use super::heat::write_heat_html;
use super::{io_err, Block, FigureLinks, Report};
use crate::figures::with_extension;

use crate::ReportError;

/// Escapes `& < > " '` for HTML text and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;\
max-width:1300px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
h1{border-bottom:2px solid #ddd;padding-bottom:.3em}h2{margin-top:2em;border-bottom:1px solid #eee}\
table{border-collapse:collapse;margin:1em 0;font-size:.95em}\
th,td{border:1px solid #ccc;padding:.3em .7em;text-align:left}\
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}\
figure{margin:1.5em 0}figure svg,figure img{max-width:100%;height:auto;display:block}\
figcaption{color:#555;font-size:.95em;margin-top:.4em}\
nav#contents{background:#f6f8fa;border:1px solid #ddd;padding:.5em 1em;margin:1em 0}\
nav#contents h2{margin:.2em 0;border:0;font-size:1.1em}\
nav#contents ol{columns:2;column-gap:2em;margin:.3em 0;padding-left:1.4em}\
details{margin:1em 0}summary{cursor:pointer;color:#0b5394}\
.heat-wrap{overflow-x:auto}\
table.heat{font-size:.85em}table.heat td,table.heat th{text-align:center;padding:.2em .3em;min-width:3.4em}\
table.heat td.label,table.heat th.label{text-align:left;max-width:10em}\
table.heat tr.emphasis td{font-weight:600;border-bottom:2px solid #888}\
table.heat td .v{display:block;font-size:1.05em;white-space:nowrap}\
table.heat td .ci{display:block;font-size:.75em;opacity:.85;white-space:nowrap}\
table.heat caption{caption-side:top;text-align:left;font-weight:600;font-size:1.05em;padding-bottom:.3em}\
.provenance{background:#f6f8fa;border:1px solid #ddd;padding:.8em 1em;margin-top:3em;font-size:.9em}\
.provenance pre{white-space:pre-wrap;word-break:break-all;margin:.3em 0}";

/// The SVG text of a figure, without an XML declaration or doctype, ready to inline.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => svg[i..].trim_end(),
        None => svg.trim(),
    }
}

/// The whole page: head, table of contents, sections (with `anchors`), provenance.
pub(super) fn render(
    report: &Report,
    anchors: &[String],
    links: &[FigureLinks],
) -> Result<String, ReportError> {
    let mut h = String::new();
    let title = escape_html(&report.title);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    write_contents(&mut h, report, anchors);
    let mut links = links.iter();
    for (section, anchor) in report.sections.iter().zip(anchors) {
        let _ = writeln!(
            h,
            "<section id=\"{}\">\n<h2>{}</h2>",
            escape_html(anchor),
            escape_html(&section.title)
        );
        write_blocks(&mut h, &section.blocks, &mut links)?;
        h.push_str("</section>\n");
    }
    write_provenance(&mut h, report);
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

/// The table of contents: one link per section, then the provenance.
fn write_contents(h: &mut String, report: &Report, anchors: &[String]) {
    h.push_str("<nav id=\"contents\">\n<h2>Contents</h2>\n<ol>\n");
    for (section, anchor) in report.sections.iter().zip(anchors) {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">{}</a></li>",
            escape_html(anchor),
            escape_html(&section.title)
        );
    }
    h.push_str("<li><a href=\"#provenance\">Provenance</a></li>\n</ol>\n</nav>\n");
}

fn write_blocks<'a>(
    h: &mut String,
    blocks: &[Block],
    links: &mut impl Iterator<Item = &'a FigureLinks>,
) -> Result<(), ReportError> {
    for block in blocks {
        match block {
            Block::Text(text) => {
                for para in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
                    let _ = writeln!(h, "<p>{}</p>", escape_html(para.trim()));
                }
            }
            Block::Table(table) => h.push_str(&table.html()),
            Block::Figure { stem, caption } => {
                let link = links.next().cloned().unwrap_or_default();
                write_figure(h, stem, caption, &link)?;
            }
            Block::Heat(table) => write_heat_html(h, table),
            Block::Details { summary, blocks } => {
                let _ = writeln!(h, "<details>\n<summary>{}</summary>", escape_html(summary));
                write_blocks(h, blocks, links)?;
                h.push_str("</details>\n");
            }
        }
    }
    Ok(())
}

/// The SVG inline (or the PNG as an image when there is no SVG), the caption and the download
/// links.
fn write_figure(
    h: &mut String,
    stem: &std::path::Path,
    caption: &str,
    link: &FigureLinks,
) -> Result<(), ReportError> {
    let svg_path = with_extension(stem, "svg");
    h.push_str("<figure>\n");
    if svg_path.is_file() {
        let svg = std::fs::read_to_string(&svg_path).map_err(|e| io_err("read", &svg_path, e))?;
        h.push_str(inline_svg(&svg));
        h.push('\n');
    } else if let Some(png) = &link.png {
        let _ = writeln!(
            h,
            "<img src=\"{}\" alt=\"{}\">",
            escape_html(png),
            escape_html(caption)
        );
    } else {
        let _ = writeln!(
            h,
            "<p><em>missing figure {}</em></p>",
            escape_html(&stem.display().to_string())
        );
    }
    let downloads: Vec<String> = [("PNG", &link.png), ("SVG", &link.svg)]
        .into_iter()
        .filter_map(|(name, l)| {
            l.as_ref()
                .map(|l| format!("<a href=\"{}\" download>{name}</a>", escape_html(l)))
        })
        .collect();
    let downloads = if downloads.is_empty() {
        String::new()
    } else {
        format!(" (download: {})", downloads.join(", "))
    };
    let _ = writeln!(
        h,
        "<figcaption>{}{downloads}</figcaption>\n</figure>",
        escape_html(caption)
    );
    Ok(())
}

fn write_provenance(h: &mut String, report: &Report) {
    h.push_str(
        "<div class=\"provenance\" id=\"provenance\">\n<h2>Provenance</h2>\n<p>Command line:</p>\n",
    );
    let _ = writeln!(
        h,
        "<pre><code>{}</code></pre>",
        escape_html(&report.provenance.command_line)
    );
    if !report.provenance.versions.is_empty() {
        let rows: Vec<Vec<String>> = report
            .provenance
            .versions
            .iter()
            .map(|(n, v)| vec![n.clone(), v.clone()])
            .collect();
        h.push_str(&crate::table::Table::of_text(&["component", "version"], rows).html());
    }
    h.push_str("</div>\n");
}
