//! Plain-text building blocks the studies share with the report crate: a Markdown table, a
//! p-value as a table prints it, and a named option parsed from its name.

use std::fmt::Write as _;

use crate::RobustError;

/// Makes text safe inside a Markdown table cell: `|` and `\` escaped, line breaks as spaces.
pub fn escape_markdown_cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

/// Appends a Markdown table to `out`: the header row, the `|---|` rule and the body rows, one
/// line each, every cell escaped for a table cell (`|` and `\` backslash-escaped, line breaks
/// as spaces).
pub fn write_markdown_table<H: AsRef<str>>(out: &mut String, headers: &[H], rows: &[Vec<String>]) {
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let cells: Vec<String> = cells.map(escape_markdown_cell).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    };
    line(out, &mut headers.iter().map(AsRef::as_ref));
    let _ = writeln!(out, "|{}", "---|".repeat(headers.len().max(1)));
    for row in rows {
        line(out, &mut row.iter().map(String::as_str));
    }
}

/// Formats a p-value for a table or report: four decimals, or scientific notation with three
/// decimals below 10⁻⁴ (`0.0374`, `1.234e-5`; an exact 0 prints as `0.0000`).
pub fn format_p_value(p: f64) -> String {
    if p != 0.0 && p < 1e-4 {
        format!("{p:.3e}")
    } else {
        format!("{p:.4}")
    }
}

/// The choice of `all` whose `name` is `s` (ASCII case and surrounding blanks ignored), for the
/// `FromStr` of named options; else [`RobustError::InvalidParameter`] naming `what` and listing
/// every name.
///
/// # Errors
/// [`RobustError::InvalidParameter`] when no choice has that name.
pub fn parse_choice<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
    what: &str,
) -> Result<T, RobustError> {
    all.iter()
        .copied()
        .find(|c| name(*c).eq_ignore_ascii_case(s.trim()))
        .ok_or_else(|| RobustError::InvalidParameter {
            name: what.to_owned(),
            value: s.to_owned(),
            expected: format!(
                "one of {}",
                all.iter().map(|c| name(*c)).collect::<Vec<_>>().join(", ")
            ),
        })
}
