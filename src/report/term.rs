//! Text on its way to a terminal. Titles, project names, model names, paths,
//! user and machine names, and the error messages that quote them come from
//! transcripts and bundles, so any of them may carry ESC sequences (cursor
//! moves, window titles, OSC 8 links, screen clears) or bidi overrides that
//! make text read differently from what it is. `clean` is the one function
//! that removes them. The CLI passes everything it prints to stdout or
//! stderr through it (`cli::out`, `cli::note`, the error in `main`), so no
//! renderer can forget: table, text, Markdown and CSV output alike (the csv
//! crate quotes separators, not control characters). JSON keeps every
//! value: serde_json escapes C0 but writes DEL, C1 (CSI is U+009B) and
//! bidi controls raw, so `json` escapes those as `\u` sequences too.

use std::borrow::Cow;

pub use crate::model::is_unsafe;
use crate::model::printable;

/// `s` without the characters `is_unsafe` names; borrowed when there are none.
pub fn clean(s: &str) -> Cow<'_, str> {
    if printable(s.as_bytes(), true) {
        return Cow::Borrowed(s);
    }
    if s.chars().any(is_unsafe) {
        Cow::Owned(s.chars().filter(|&c| !is_unsafe(c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// JSON text with the characters `is_unsafe` names written as `\u` escapes
/// (they can only occur inside strings, where an escape means the same).
pub fn escape_json(json: &str) -> Cow<'_, str> {
    if printable(json.as_bytes(), true) || !json.chars().any(|c| is_unsafe(c) && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe(c) {
            // Unsafe characters are all in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value as pretty JSON, safe for a terminal, with a final newline.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    if let Cow::Owned(escaped) = escape_json(&text) {
        text = escaped;
    }
    text.push('\n');
    Ok(text)
}

/// `json(value)` written to `out` as serde makes it, so a large report is
/// never held as one string. The same text, byte for byte.
pub fn write_json<T: serde::Serialize + ?Sized, W: std::io::Write>(value: &T, out: W) -> std::io::Result<()> {
    // serde writes a token at a time; the escaping sees 64 KiB at a time.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, Escaping { out, carry: Vec::new() });
    serde_json::to_writer_pretty(&mut w, value)?;
    std::io::Write::write_all(&mut w, b"\n")?;
    std::io::Write::flush(&mut w)
}

/// Writes JSON text through, the characters `is_unsafe` names as `\u`
/// escapes (`escape_json`, a piece at a time). A character split between
/// two writes waits in `carry` for its last bytes.
struct Escaping<W> {
    out: W,
    carry: Vec<u8>,
}

impl<W: std::io::Write> std::io::Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.carry.is_empty() && printable(buf, true) {
            return self.out.write_all(buf);
        }
        self.carry.extend_from_slice(buf);
        let text = std::mem::take(&mut self.carry);
        let (whole, part) = match std::str::from_utf8(&text) {
            // The first bytes of a character: kept for the next write.
            Err(e) if e.error_len().is_none() => text.split_at(e.valid_up_to()),
            _ => (&text[..], &[][..]),
        };
        self.carry.extend_from_slice(part);
        // Lossy only for bytes that are not UTF-8 (serde_json never writes
        // them): U+FFFD in their place.
        self.out.write_all(escape_json(&String::from_utf8_lossy(whole)).as_bytes())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.carry);
        self.out.write_all(&rest)?;
        self.out.flush()
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

    #[test]
    fn written_json_is_the_same_text_even_in_one_byte_pieces() -> Result<(), Box<dyn std::error::Error>> {
        use std::io::Write;
        let value = serde_json::json!({"title": "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}b – ünï ✓", "n": [1, 2]});
        let want = json(&value)?;
        let mut streamed = Vec::new();
        write_json(&value, &mut streamed)?;
        assert_eq!(String::from_utf8(streamed)?, want);
        // Through a writer that hands on one byte at a time, characters
        // arrive split; the text still comes out the same.
        let mut out = Vec::new();
        let mut w = Escaping { out: &mut out, carry: Vec::new() };
        for b in serde_json::to_string_pretty(&value)?.as_bytes() {
            w.write_all(std::slice::from_ref(b))?;
        }
        w.flush()?;
        assert_eq!(format!("{}\n", String::from_utf8(out)?), want);
        // Bytes that are not UTF-8 never pass raw, nor what follows them.
        let mut out = Vec::new();
        let mut w = Escaping { out: &mut out, carry: Vec::new() };
        w.write_all(b"\"\xff\xe2\x80\xae\"")?;
        w.flush()?;
        assert_eq!(String::from_utf8(out)?, "\"\u{fffd}\\u202e\"");
        Ok(())
    }

    #[test]
    fn json_escapes_what_serde_leaves_raw() {
        let value = serde_json::json!({"title": "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}b"});
        let text = json(&value).unwrap();
        assert!(!text.chars().any(is_unsafe), "{text:?}");
        assert!(text.contains(r"a\u001b[2J\u009b31m\u007f\u202eb"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value, "the value survives");
    }
}
