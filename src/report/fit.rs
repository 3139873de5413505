//! Terminal tables that fit a width. A report names its columns with a
//! rank (0: always shown; higher: given up sooner when the terminal is
//! narrow); `table` leaves out the highest ranks until the rest fit, then
//! lets the table wrap long text (a title) into the width that is left.
//! The width comes in as an argument (`Layout`): the CLI reads it from
//! `COLUMNS` or the terminal, `--wide` shows every column.

use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table};

/// How a terminal table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Characters per line; None: no limit (every column).
    pub width: Option<usize>,
    /// Only the essential columns (ccusage's `--compact`).
    pub compact: bool,
    /// The zone times are shown in.
    pub tz: chrono_tz::Tz,
}

impl Layout {
    /// Every column, no width limit, times in UTC.
    pub const WIDE: Layout = Layout { width: None, compact: false, tz: chrono_tz::UTC };
}

/// Columns of rank above this are left out of a compact table.
pub const COMPACT_RANK: u8 = 2;

/// One column of a fitted table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Col {
    pub header: &'static str,
    /// 0: always shown; higher ranks are left out first.
    pub rank: u8,
    /// Numbers align right.
    pub right: bool,
}

impl Col {
    /// A text column.
    pub const fn text(header: &'static str, rank: u8) -> Col {
        Col { header, rank, right: false }
    }

    /// A number column.
    pub const fn num(header: &'static str, rank: u8) -> Col {
        Col { header, rank, right: true }
    }
}

/// The table of `rows` (one cell per column of `cols`) in `layout`.
pub fn table(cols: &[Col], rows: &[Vec<String>], layout: Layout) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(cols.iter().map(|c| c.header));
    for row in rows {
        let cells = row.iter().zip(cols).map(|(v, c)| {
            // Every cell's text is made one harmless line (`report::cell`).
            let cell = Cell::new(super::cell::term(v));
            if c.right {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        });
        t.add_row(cells);
    }
    let widths: Vec<usize> = t.column_max_content_widths().into_iter().map(usize::from).collect();
    let shown = shown(cols, &widths, layout);
    for (i, keep) in shown.iter().enumerate() {
        if !keep {
            if let Some(c) = t.column_mut(i) {
                c.set_constraint(ColumnConstraint::Hidden);
            }
        }
    }
    if let Some(w) = layout.width {
        t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
        t.set_content_arrangement(ContentArrangement::Dynamic);
    }
    t.to_string()
}

/// The width of a table of columns this wide: two borders, one space of
/// padding on each side of a cell, and one between columns.
fn width_of(widths: impl Iterator<Item = usize>) -> usize {
    let (n, sum): (usize, usize) = widths.fold((0, 0), |(n, s), w| (n + 1, s + w + 2));
    2 + sum + n.saturating_sub(1)
}

/// Which columns stay: without a width all (a compact layout: ranks up to
/// `COMPACT_RANK`); with one, rank 0, then each other column by rank (the
/// leftmost of equal ranks first) while it still fits, so a wide column
/// that does not fit leaves room for narrower ones after it.
fn shown(cols: &[Col], widths: &[usize], layout: Layout) -> Vec<bool> {
    let allowed: Vec<bool> = cols.iter().map(|c| !layout.compact || c.rank <= COMPACT_RANK).collect();
    let Some(limit) = layout.width else { return allowed };
    let mut keep: Vec<bool> = cols.iter().map(|c| c.rank == 0).collect();
    let fits = |keep: &[bool]| width_of(widths.iter().zip(keep).filter(|(_, k)| **k).map(|(w, _)| *w)) <= limit;
    let mut order: Vec<usize> = (0..cols.len()).filter(|&i| allowed[i] && cols[i].rank > 0).collect();
    order.sort_by_key(|&i| (cols[i].rank, i));
    for i in order {
        keep[i] = true;
        if !fits(&keep) {
            keep[i] = false;
        }
    }
    keep
}

/// `text` with each line longer than the layout's width broken between
/// words: a paragraph's continuation flush left, an indented line's two
/// spaces past its own indent; a table's lines (which fit already) and a
/// word longer than a line stay whole. Without a width, `text` as it is.
pub fn wrap(text: &str, layout: Layout) -> String {
    let Some(limit) = layout.width else { return text.to_owned() };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let in_table = body.starts_with(['│', '┌', '╞', '└', '├', '╰', '╭']);
        if in_table || body.chars().count() <= limit {
            out.push_str(line);
            continue;
        }
        let lead = body.len() - body.trim_start().len();
        out.push_str(&body[..lead]);
        let hang = if lead > 0 { lead + 2 } else { 0 };
        let (mut width, mut first) = (lead, true);
        for word in words(body) {
            let n = word.chars().count();
            if !first && width + 1 + n > limit {
                out.push('\n');
                out.push_str(&" ".repeat(hang));
                width = hang;
            } else if !first {
                out.push(' ');
                width += 1;
            }
            out.push_str(&word);
            (width, first) = (width + n, false);
        }
        out.push_str(&line[body.len()..]);
    }
    out
}

/// The units a figure is written with: never the first word of a line.
const UNITS: [&str; 4] = ["h", "min", "s", "ms"];

/// `body`'s words, a unit kept with the figure before it ("5 min", "1 h").
fn words(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let unit = UNITS.contains(&word.trim_end_matches(|c: char| c.is_ascii_punctuation()));
        match out.last_mut() {
            Some(prev) if unit && prev.ends_with(|c: char| c.is_ascii_digit()) => {
                prev.push(' ');
                prev.push_str(word);
            }
            _ => out.push(word.to_owned()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<Col> {
        vec![Col::text("Name", 0), Col::text("Title", 1), Col::num("A", 3), Col::num("B", 2), Col::num("Cost", 0)]
    }

    fn rows() -> Vec<Vec<String>> {
        let title = "a long title that goes on and on and on and on";
        vec![vec!["s1".into(), title.into(), "1,234,567".into(), "89".into(), "$12.34".into()]]
    }

    #[test]
    fn columns_go_by_rank_until_the_table_fits() {
        let all = table(&cols(), &rows(), Layout::WIDE);
        assert!(all.contains("1,234,567") && all.contains("and on and on"));
        let max = |s: &str| s.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert_eq!(max(&all), width_of([4, 46, 9, 2, 6].into_iter()), "the width formula is comfy-table's");
        let narrow = table(&cols(), &rows(), Layout { width: Some(75), ..Layout::WIDE });
        assert!(max(&narrow) <= 75, "{narrow}");
        assert!(!narrow.contains("1,234,567"), "rank 3 does not fit after ranks 0 to 2: {narrow}");
        assert!(narrow.contains("and on") && narrow.contains("89") && narrow.contains("$12.34"));
        let narrower = table(&cols(), &rows(), Layout { width: Some(60), ..Layout::WIDE });
        assert!(max(&narrower) <= 60, "{narrower}");
        assert!(!narrower.contains("and on"), "the title does not fit: {narrower}");
        assert!(narrower.contains("1,234,567") && narrower.contains("89"), "narrower columns take its room");
        let tiny = table(&cols(), &rows(), Layout { width: Some(30), ..Layout::WIDE });
        assert!(max(&tiny) <= 30, "the title goes too: {tiny}");
        assert!(tiny.contains("$12.34"));
        let compact = table(&cols(), &rows(), Layout { compact: true, ..Layout::WIDE });
        assert!(!compact.contains("1,234,567") && compact.contains("89"));
    }

    #[test]
    fn prose_breaks_between_words_and_tables_stay() {
        let layout = Layout { width: Some(20), ..Layout::WIDE };
        let text = "  one two three four five six seven\n│ a table line longer than twenty │\nshort\n";
        assert_eq!(
            wrap(text, layout),
            "  one two three four\n    five six seven\n│ a table line longer than twenty │\nshort\n"
        );
        assert_eq!(wrap(text, Layout::WIDE), text);
        assert_eq!(wrap("averyveryverylongwordthatwillnotfit x", layout), "averyveryverylongwordthatwillnotfit\nx");
        // A figure keeps its unit: "1 h" and "5 min," are not broken.
        let figures = "writes 0.0% 1 h / 100.0% 5 min, idle 60 s";
        assert_eq!(
            wrap(figures, Layout { width: Some(16), ..Layout::WIDE }),
            "writes 0.0% 1 h\n/ 100.0% 5 min,\nidle 60 s"
        );
    }
}
