//! Text on its way to a terminal. Titles, project names, model names, paths,
//! user and machine names, and the error messages that quote them come from
//! transcripts and bundles, so any of them may carry ESC sequences (cursor
//! moves, window titles, OSC 8 links, screen clears) or bidi overrides that
//! make text read differently from what it is. `clean` is the one function
//! that removes them. The CLI passes everything it prints to stdout or
//! stderr through it (`cli::out`, `cli::note`, the error in `main`), so no
//! renderer can forget: table, text, Markdown and CSV output alike (the csv
//! crate quotes separators, not control characters). JSON needs nothing:
//! serde_json writes every control character as a `\u` escape.

use std::borrow::Cow;

/// Characters never written raw to a terminal: the C0 controls but newline
/// (ESC, BEL, CR, TAB, ...), DEL, the C1 controls (U+0080-U+009F, CSI among
/// them) and the Unicode bidi controls.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` without the characters `is_unsafe` names; borrowed when there are none.
pub fn clean(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_unsafe) {
        Cow::Owned(s.chars().filter(|&c| !is_unsafe(c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_c0_del_c1_and_bidi_but_keeps_newlines_and_text() {
        let hostile = "a\x1b[2J\x1b]0;owned\x07b\x7f\u{9b}31mc\r\td\u{202e}e\u{2066}f\nnext";
        assert_eq!(clean(hostile), "a[2J]0;ownedb31mcdef\nnext");
        assert!(matches!(clean("plain – ünïcode ✓\n"), Cow::Borrowed(_)));
        assert_eq!(clean("\u{85}\u{80}\u{9f}\0"), "");
    }
}
