//! The Markdown copy of a [`Report`] (`report.md`), linking the figures' PNGs.

use std::fmt::Write as _;

use super::heat::write_heat_markdown;
use super::{Block, FigureLinks, Report};

pub(super) use bias_robust::text::escape_markdown_cell as escape_md_cell;
pub use bias_robust::text::write_markdown_table;

/// Markdown inline text: characters that start markup are backslash-escaped.
pub(super) fn escape_md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The whole document: title, contents, sections (each after an `<a id>` anchor), provenance.
pub(super) fn render(report: &Report, anchors: &[String], links: &[FigureLinks]) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# {}\n", escape_md(&report.title));
    m.push_str("Contents:\n\n");
    for (section, anchor) in report.sections.iter().zip(anchors) {
        let _ = writeln!(m, "- [{}](#{anchor})", escape_md(&section.title));
    }
    m.push('\n');
    let mut links = links.iter();
    for (section, anchor) in report.sections.iter().zip(anchors) {
        let _ = writeln!(
            m,
            "<a id=\"{anchor}\"></a>\n\n## {}\n",
            escape_md(&section.title)
        );
        write_blocks(&mut m, &section.blocks, &mut links);
    }
    write_provenance(&mut m, report);
    m
}

fn write_blocks<'a>(
    m: &mut String,
    blocks: &[Block],
    links: &mut impl Iterator<Item = &'a FigureLinks>,
) {
    for block in blocks {
        match block {
            Block::Text(text) => {
                for para in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
                    let _ = writeln!(m, "{}\n", escape_md(para.trim()));
                }
            }
            Block::Table(table) => {
                write_markdown_table(m, &table.columns, &table.text_rows());
                m.push('\n');
            }
            Block::Figure { stem, caption } => match links.next().and_then(|l| l.png.clone()) {
                Some(link) => {
                    let _ = writeln!(
                        m,
                        "![{}](<{}>)\n\n*{}*\n",
                        escape_md(caption),
                        link,
                        escape_md(caption)
                    );
                }
                None => {
                    let _ = writeln!(
                        m,
                        "*missing figure {}: {}*\n",
                        escape_md(&stem.display().to_string()),
                        escape_md(caption)
                    );
                }
            },
            Block::Heat(table) => write_heat_markdown(m, table),
            Block::Details { summary, blocks } => {
                let _ = writeln!(m, "**{}**\n", escape_md(summary));
                write_blocks(m, blocks, links);
            }
        }
    }
}

fn write_provenance(m: &mut String, report: &Report) {
    m.push_str("## Provenance\n\nCommand line:\n\n");
    let cmd = &report.provenance.command_line;
    let fence = if cmd.contains("```") { "````" } else { "```" };
    let _ = writeln!(m, "{fence}\n{cmd}\n{fence}\n");
    if !report.provenance.versions.is_empty() {
        m.push_str("| component | version |\n|---|---|\n");
        for (name, version) in &report.provenance.versions {
            let _ = writeln!(
                m,
                "| {} | {} |",
                escape_md_cell(name),
                escape_md_cell(version)
            );
        }
    }
}
