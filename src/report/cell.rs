//! Cells of every table a report prints. Project, session and model names,
//! titles, and a bundle's user and machine names come from transcripts and
//! bundles, and a report leaves the machine (a CSV mailed to finance, a
//! Markdown table pasted into a wiki), so each cell is made harmless where
//! it goes:
//! - one line everywhere (`one_line`): a newline, tab or carriage return is a
//!   space, so no name ends a row or starts a heading; other control
//!   characters and bidi overrides are dropped, so none reaches a terminal;
//! - in a terminal table, `term`: that line;
//! - in CSV, `csv` (through `CsvTable`): a text cell a spreadsheet would run
//!   as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return)
//!   gets a leading `'`; a number stays a number;
//! - in Markdown, `md`: HTML (`<`, `>`, `&`) and Markdown markers (`|`, `*`,
//!   `_`, backtick, brackets, `#`, `~`, `\`) are escaped, so a cell shows its
//!   text and nothing else.
//!
//! Every CSV, Markdown and terminal writer of `report` takes its text cells
//! from here.

use crate::model::is_unsafe;
use std::borrow::Cow;

/// Characters that break a line or a cell: shown as a space.
fn breaks_line(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\t' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `s` on one line: line and cell breaks as a space, other control
/// characters and bidi controls dropped; borrowed when there are none.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(|c| breaks_line(c) || is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .filter_map(|c| match c {
                c if breaks_line(c) => Some(' '),
                c if is_unsafe(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

/// A text cell of a terminal table or line.
pub fn term(s: &str) -> Cow<'_, str> {
    one_line(s)
}

/// `s` cut to `max` characters (at least 1), the last an ellipsis.
pub fn shorten(s: &str, max: usize) -> String {
    let max = max.max(1);
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let head: String = s.chars().take(max - 1).collect();
    format!("{head}…")
}

/// `s` cut to `max` characters (at least 1) keeping its end, the first
/// an ellipsis: a path's last folders (`…/project/name`).
pub fn keep_end(s: &str, max: usize) -> String {
    let (n, max) = (s.chars().count(), max.max(1));
    if n <= max {
        return s.to_owned();
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// A number as a spreadsheet reads one: digits with at most a sign, a point
/// and an exponent (`12`, `-2.5`, `1e-3`); `-2+3`, `inf` and `=1` are not.
fn is_number(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// A first character a spreadsheet takes as the start of a formula (with
/// the full-width forms some of them accept too).
fn starts_formula(c: char) -> bool {
    matches!(c, '=' | '+' | '-' | '@' | '\u{ff1d}' | '\u{ff0b}' | '\u{ff0d}' | '\u{ff20}')
}

/// A CSV cell: on one line, and neutralised with a leading `'` when a
/// spreadsheet would read it as a formula; numbers unchanged.
pub fn csv(s: &str) -> Cow<'_, str> {
    if is_number(s) {
        return Cow::Borrowed(s);
    }
    let lead_break = s.starts_with(['\t', '\r']);
    let line = one_line(s);
    let formula = line.trim_start().chars().next().is_some_and(starts_formula);
    if lead_break || formula {
        Cow::Owned(format!("'{line}"))
    } else {
        line
    }
}

/// A Markdown cell (or inline text): on one line, HTML and Markdown markers
/// escaped.
pub fn md(s: &str) -> String {
    let line = one_line(s);
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '*' | '_' | '`' | '[' | ']' | '#' | '~' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A CSV table written in memory: every cell goes through `csv`.
pub struct CsvTable {
    writer: csv::Writer<Vec<u8>>,
}

impl Default for CsvTable {
    fn default() -> CsvTable {
        CsvTable::new()
    }
}

impl CsvTable {
    pub fn new() -> CsvTable {
        CsvTable { writer: csv::Writer::from_writer(Vec::new()) }
    }

    /// Appends one record, each cell neutralised.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        // Writing to memory fails only on a malformed record, which
        // `csv` cannot produce (the writer quotes what it must).
        let _ = self.writer.write_record(cells.into_iter().map(|c| csv(c.as_ref()).into_owned()));
    }

    /// The table's text.
    pub fn finish(self) -> String {
        let bytes = self.writer.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_turns_breaks_into_spaces_and_drops_controls() {
        assert_eq!(one_line("a\nb\r\nc\td\u{2028}e"), "a b  c d e");
        assert_eq!(one_line("x\x1b[2J\u{202e}y\u{9b}z"), "x[2Jyz");
        assert!(matches!(one_line("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn csv_neutralises_formulas_and_keeps_numbers() {
        for (raw, shown) in [
            ("=cmd|'-C calc'!A0", "'=cmd|'-C calc'!A0"),
            ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("+proj2", "'+proj2"),
            ("-2+3", "'-2+3"),
            ("-home-u-app", "'-home-u-app"),
            ("\t=1", "' =1"),
            ("\rx", "' x"),
            ("  =1", "'  =1"),
            ("\u{ff1d}1", "'\u{ff1d}1"),
            ("-inf", "'-inf"),
            ("a\nb", "a b"),
        ] {
            assert_eq!(csv(raw), shown, "{raw:?}");
        }
        for n in ["12", "-2.5", "0.000001", "1e-3", "", "claude-sonnet-4-5", "(total)"] {
            assert_eq!(csv(n), n);
        }
    }

    #[test]
    fn md_escapes_html_and_markdown() {
        assert_eq!(md("<script>alert(1)</script>|**b**"), "&lt;script&gt;alert(1)&lt;/script&gt;\\|\\*\\*b\\*\\*");
        assert_eq!(md("# h\n## x"), "\\# h \\#\\# x");
        assert_eq!(md("[a](http://x) `c` _d_ ~e~ &amp;"), "\\[a\\](http://x) \\`c\\` \\_d\\_ \\~e\\~ &amp;amp;");
        assert_eq!(md("$1,234.50"), "$1,234.50");
    }

    #[test]
    fn csv_table_neutralises_every_cell() {
        let mut t = CsvTable::new();
        t.row(["user", "cost"]);
        t.row(["=1+1", "-2.5"]);
        assert_eq!(t.finish(), "user,cost\n'=1+1,-2.5\n");
    }
}
