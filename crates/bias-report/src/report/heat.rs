//! Heat maps drawn as HTML tables: each cell shaded by its distance from "no bias", its value
//! printed in it, and an interval under the value.

use std::fmt::Write as _;

use super::html::escape_html;
use super::markdown::{escape_md_cell, write_markdown_table};

/// How a heat-map cell is shaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shade {
    /// No colour.
    None,
    /// A signed distance in [−1, 1] (clamped): blue below 0, white at 0, red above — for a
    /// measure with a direction, such as the indicator (above 50: the stereotype preferred).
    Diverging(f64),
    /// An unsigned distance in [0, 1] (clamped): white to purple — for a measure that says how
    /// far, not which way (KLS, JSS), or any other magnitude.
    Sequential(f64),
}

impl Shade {
    /// The background colour, `None` for no colour or a non-finite distance.
    fn rgb(self) -> Option<(u8, u8, u8)> {
        let (end, t) = match self {
            Shade::None => return None,
            Shade::Diverging(d) if d.is_finite() && d < 0.0 => ((33.0, 102.0, 172.0), -d),
            Shade::Diverging(d) if d.is_finite() => ((178.0, 24.0, 43.0), d),
            Shade::Sequential(d) if d.is_finite() => ((84.0, 39.0, 143.0), d.max(0.0)),
            _ => return None,
        };
        let t = t.min(1.0);
        let mix = |a: f64| (255.0 + (a - 255.0) * t).round() as u8;
        Some((mix(end.0), mix(end.1), mix(end.2)))
    }
}

/// One cell: the value as printed, an optional second line (an interval), an optional tooltip
/// and the shade.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatCell {
    /// The value, as printed.
    pub value: String,
    /// A second, smaller line under the value (for example the 95 % interval).
    pub detail: Option<String>,
    /// Text shown when the pointer rests on the cell.
    pub tooltip: Option<String>,
    /// The cell's colour.
    pub shade: Shade,
}

/// One row: its label and one cell per column (`None`: nothing to show).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatRow {
    /// The row's label (first column).
    pub label: String,
    /// One cell per column.
    pub cells: Vec<Option<HeatCell>>,
    /// Drawn in bold with a rule under it (an "overall" row above the per-type rows).
    pub emphasis: bool,
}

/// A heat map as a table: rows × columns of shaded cells, optionally with a header row of
/// column groups above the column names (a measure over one column per model).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeatTable {
    /// The header of the label column.
    pub corner: String,
    /// Column groups, `(name, number of columns)`, left to right; empty for none. The spans
    /// must add up to the number of columns.
    pub groups: Vec<(String, usize)>,
    /// Column names.
    pub columns: Vec<String>,
    /// The rows.
    pub rows: Vec<HeatRow>,
    /// A caption under the table.
    pub caption: Option<String>,
}

impl HeatTable {
    /// The header of column `j` in one line: `group · column` under groups, else the name.
    fn flat_header(&self, j: usize) -> String {
        let mut start = 0;
        for (group, span) in &self.groups {
            if j < start + span {
                return format!("{group} · {}", self.columns[j]);
            }
            start += span;
        }
        self.columns[j].clone()
    }
}

/// The header of a heat map whose `labels` (one per measure or scorer) each hold one column per
/// model: with several models, the labels as groups over the model names, and the words for
/// the caption ("one column per model (a, b)"); with one, the labels as the columns ("model a").
pub(super) fn model_columns<M: AsRef<str>>(
    labels: Vec<String>,
    models: &[M],
) -> (Vec<(String, usize)>, Vec<String>, String) {
    let names: Vec<&str> = models.iter().map(AsRef::as_ref).collect();
    if names.len() < 2 {
        return (Vec::new(), labels, format!("model {}", names.join(", ")));
    }
    let groups = labels.iter().map(|l| (l.clone(), names.len())).collect();
    let columns = labels
        .iter()
        .flat_map(|_| names.iter().map(|m| (*m).to_owned()))
        .collect();
    let words = format!("one column per model ({})", names.join(", "));
    (groups, columns, words)
}

/// Appends the table as HTML (`table.heat` in a scrolling wrapper).
pub(super) fn write_heat_html(h: &mut String, t: &HeatTable) {
    h.push_str("<div class=\"heat-wrap\">\n<table class=\"heat\">\n");
    if let Some(caption) = &t.caption {
        let _ = writeln!(h, "<caption>{}</caption>", escape_html(caption));
    }
    h.push_str("<thead>\n<tr>");
    let grouped = !t.groups.is_empty();
    let rowspan = if grouped { " rowspan=\"2\"" } else { "" };
    let _ = write!(
        h,
        "<th class=\"label\"{rowspan}>{}</th>",
        escape_html(&t.corner)
    );
    if grouped {
        for (group, span) in &t.groups {
            let _ = write!(h, "<th colspan=\"{span}\">{}</th>", escape_html(group));
        }
        h.push_str("</tr>\n<tr>");
    }
    for c in &t.columns {
        let _ = write!(h, "<th>{}</th>", escape_html(c));
    }
    h.push_str("</tr>\n</thead>\n<tbody>\n");
    for row in &t.rows {
        let class = if row.emphasis {
            " class=\"emphasis\""
        } else {
            ""
        };
        let _ = write!(
            h,
            "<tr{class}><td class=\"label\">{}</td>",
            escape_html(&row.label)
        );
        for cell in &row.cells {
            write_cell(h, cell.as_ref());
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n</div>\n");
}

fn write_cell(h: &mut String, cell: Option<&HeatCell>) {
    let Some(cell) = cell else {
        h.push_str("<td class=\"na\">—</td>");
        return;
    };
    let mut attrs = String::new();
    if let Some((r, g, b)) = cell.shade.rgb() {
        // Dark backgrounds get white text (relative luminance below one half).
        let luminance =
            (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)) / 255.0;
        let ink = if luminance < 0.5 { "#fff" } else { "#222" };
        let _ = write!(
            attrs,
            " style=\"background:#{r:02x}{g:02x}{b:02x};color:{ink}\""
        );
    }
    if let Some(tip) = &cell.tooltip {
        let _ = write!(attrs, " title=\"{}\"", escape_html(tip));
    }
    let _ = write!(
        h,
        "<td{attrs}><span class=\"v\">{}</span>",
        escape_html(&cell.value)
    );
    if let Some(detail) = &cell.detail {
        let _ = write!(h, "<span class=\"ci\">{}</span>", escape_html(detail));
    }
    h.push_str("</td>");
}

/// Appends the table as a Markdown table: `value (detail)` per cell, `—` for none, the column
/// groups folded into the headers, the caption under it in italics.
pub(super) fn write_heat_markdown(m: &mut String, t: &HeatTable) {
    let mut headers = vec![t.corner.clone()];
    headers.extend((0..t.columns.len()).map(|j| t.flat_header(j)));
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|row| {
            let label = if row.emphasis {
                format!("**{}**", row.label)
            } else {
                row.label.clone()
            };
            std::iter::once(label)
                .chain(row.cells.iter().map(|c| match c {
                    None => "—".to_owned(),
                    Some(c) => match &c.detail {
                        Some(d) => format!("{} ({d})", c.value),
                        None => c.value.clone(),
                    },
                }))
                .collect()
        })
        .collect();
    write_markdown_table(m, &headers, &rows);
    if let Some(caption) = &t.caption {
        let _ = writeln!(m, "\n*{}*", escape_md_cell(caption));
    }
    m.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(value: &str, shade: Shade) -> Option<HeatCell> {
        Some(HeatCell {
            value: value.into(),
            detail: Some("[1, 2]".into()),
            tooltip: Some("a <tip>".into()),
            shade,
        })
    }

    fn table() -> HeatTable {
        HeatTable {
            corner: "bias type".into(),
            groups: vec![("CPS".into(), 2)],
            columns: vec!["m1".into(), "m2".into()],
            rows: vec![
                HeatRow {
                    label: "overall".into(),
                    cells: vec![cell("75.0", Shade::Diverging(1.0)), None],
                    emphasis: true,
                },
                HeatRow {
                    label: "age".into(),
                    cells: vec![
                        cell("50.0", Shade::Diverging(0.0)),
                        cell("25.0", Shade::Diverging(-1.0)),
                    ],
                    emphasis: false,
                },
            ],
            caption: Some("Indicator".into()),
        }
    }

    /// The end colours of each scale, white at zero, clamping and no colour for NaN.
    #[test]
    fn shades_map_to_the_scale_ends() {
        assert_eq!(Shade::Diverging(1.0).rgb(), Some((178, 24, 43)));
        assert_eq!(Shade::Diverging(-2.0).rgb(), Some((33, 102, 172)));
        assert_eq!(Shade::Diverging(0.0).rgb(), Some((255, 255, 255)));
        assert_eq!(Shade::Sequential(1.0).rgb(), Some((84, 39, 143)));
        // Half way: 255 + (84 − 255)/2 = 169.5 → 170 (rounded half away from zero).
        assert_eq!(Shade::Sequential(0.5).rgb().unwrap().0, 170);
        assert_eq!(Shade::Sequential(f64::NAN).rgb(), None);
        assert_eq!(Shade::None.rgb(), None);
    }

    #[test]
    fn html_has_groups_colours_tooltips_and_gaps() {
        let mut h = String::new();
        write_heat_html(&mut h, &table());
        assert!(h.contains(
            "<th class=\"label\" rowspan=\"2\">bias type</th><th colspan=\"2\">CPS</th>"
        ));
        assert!(h.contains("style=\"background:#b2182b;color:#fff\" title=\"a &lt;tip&gt;\""));
        assert!(h.contains("style=\"background:#ffffff;color:#222\""));
        assert!(h.contains("<td class=\"na\">—</td>"));
        assert!(h.contains("<tr class=\"emphasis\">"));
        assert_eq!(h.matches("<span class=\"ci\">[1, 2]</span>").count(), 3);
    }

    #[test]
    fn markdown_folds_groups_into_headers() {
        let mut m = String::new();
        write_heat_markdown(&mut m, &table());
        assert!(m.starts_with("| bias type | CPS · m1 | CPS · m2 |\n|---|---|---|\n"));
        assert!(m.contains("| **overall** | 75.0 ([1, 2]) | — |"));
        assert!(m.contains("*Indicator*"));
    }
}
