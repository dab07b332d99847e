//! The legend strip of the figures of small multiples: one legend for a whole multi-panel
//! figure, drawn in a strip above the panels, so that it never covers data and is not repeated
//! in every panel. Entries fill lines left to right, each line centred. The strip's height is
//! measured with the embedded font ([`super::style::font`]), the way the backends lay the text
//! out, so a figure knows its size before drawing and its PNG is exactly that size.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::output::{Backend, DrawResult};
use super::style::{box_swatch, dashed_swatch, font, swatch, LEGEND_SIZE};

/// The mark of one legend entry: a solid line, a dashed line, a shaded band, a red ring.
#[derive(Debug, Clone, Copy)]
pub(super) enum Key {
    Line(RGBColor),
    Dashed(RGBColor),
    Band(RGBColor),
    Ring,
}

/// Height of one line of the strip, its padding above and below, room for the mark.
const STRIP_LINE: u32 = 26;
const STRIP_PAD: u32 = 8;
const MARK_WIDTH: u32 = 30;
const ENTRY_GAP: u32 = 28;

/// Height of the legend strip of `labels` in a figure `width` pixels wide.
pub(super) fn strip_height(labels: &[&str], width: u32) -> u32 {
    let widths: Vec<u32> = labels.iter().map(|l| label_width(l)).collect();
    strip_lines(&widths, width).len() as u32 * STRIP_LINE + 2 * STRIP_PAD
}

/// Width of a legend label in pixels, as the font lays it out (the backends measure text the
/// same way); 10 px a character if the font cannot lay it out.
fn label_width(label: &str) -> u32 {
    font(LEGEND_SIZE)
        .font
        .box_size(label)
        .map_or(10 * label.chars().count() as u32, |size| size.0)
}

/// Entries per line, filling each line left to right (entry `i` takes `MARK_WIDTH + widths[i]`
/// and a gap).
fn strip_lines(widths: &[u32], width: u32) -> Vec<Vec<usize>> {
    let room = width.saturating_sub(2 * ENTRY_GAP);
    let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0;
    for (i, w) in widths.iter().enumerate() {
        let need = MARK_WIDTH + w + ENTRY_GAP;
        let line = lines.last_mut().expect("at least one line");
        if !line.is_empty() && used + need > room {
            lines.push(vec![i]);
            used = need;
        } else {
            line.push(i);
            used += need;
        }
    }
    lines
}

/// Draws one legend for a whole figure on `area` (a strip above the panels): the entries in
/// lines, each line centred.
pub(super) fn legend_strip<DB: Backend, S: AsRef<str>>(
    area: &DrawingArea<DB, Shift>,
    keys: &[(Key, S)],
) -> DrawResult {
    let widths: Vec<u32> = keys.iter().map(|k| label_width(k.1.as_ref())).collect();
    let (width, _) = area.dim_in_pixel();
    for (l, line) in strip_lines(&widths, width).iter().enumerate() {
        let total: u32 = line
            .iter()
            .map(|&i| MARK_WIDTH + widths[i] + ENTRY_GAP)
            .sum();
        let mut x = (width.saturating_sub(total - ENTRY_GAP) / 2) as i32;
        let y = (STRIP_PAD + l as u32 * STRIP_LINE + STRIP_LINE / 2) as i32;
        for &i in line {
            draw_key(area, keys[i].0, (x, y))?;
            let text = font(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
            area.draw(&Text::new(
                keys[i].1.as_ref().to_owned(),
                (x + MARK_WIDTH as i32, y),
                text,
            ))?;
            x += (MARK_WIDTH + widths[i] + ENTRY_GAP) as i32;
        }
    }
    Ok(())
}

fn draw_key<DB: Backend>(area: &DrawingArea<DB, Shift>, key: Key, at: (i32, i32)) -> DrawResult {
    match key {
        Key::Line(c) => area.draw(&swatch(c)(at))?,
        Key::Dashed(c) => area.draw(&dashed_swatch(c)(at))?,
        Key::Band(c) => area.draw(&box_swatch(c.mix(0.25).filled())(at))?,
        Key::Ring => area.draw(&Circle::new((at.0 + 11, at.1), 7, RED.stroke_width(2)))?,
    }
    Ok(())
}
