//! `Text`: an immutable, cheaply cloned string for the values a transcript
//! repeats on every row (session, project, model, source file, ...). Rows of
//! one file share one allocation per distinct value (see `Interner`), which
//! keeps a cold ingest's memory and its allocation count down. Also the one
//! rule for characters that never reach a terminal or a page raw
//! (`is_unsafe`), and `one_line`, the bounded single line that names from
//! outside are stored (and the status line printed) as.

use foldhash::HashSet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Characters never written raw to a terminal: the C0 controls but newline
/// (ESC, BEL, CR, TAB, ...), DEL, the C1 controls (U+0080-U+009F, CSI among
/// them) and the Unicode bidi controls.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// True when every byte of `s` is printable ASCII (0x20-0x7E), or a
/// newline where `newline` allows one: no character `is_unsafe` names can
/// be there. A byte scan, 256 bytes at a time without an early exit inside
/// them, so many bytes are checked at once (the fast answer before a walk
/// over characters).
pub fn printable(s: &[u8], newline: bool) -> bool {
    let nl = if newline { b'\n' } else { 0x20 };
    s.chunks(256).all(|c| c.iter().fold(true, |ok, &b| ok & (matches!(b, 0x20..=0x7e) | (b == nl))))
}

/// `s` as one line of at most `max` characters, without newlines and the
/// characters `is_unsafe` names: how a trigger, call type or model name from
/// a transcript is stored, and how the status line prints.
pub fn one_line(s: &str, max: usize) -> String {
    s.chars().filter(|&c| c != '\n' && !is_unsafe(c)).take(max).collect()
}

/// A shared, immutable string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<str>);

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// No characters (serde's `skip_serializing_if` names it).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Default for Text {
    fn default() -> Text {
        Text(Arc::from(""))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::from(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text(Arc::from(s.as_str()))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.0.as_ref().to_owned()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

/// Hands out one `Text` per distinct value.
#[derive(Debug, Default)]
pub struct Interner(HashSet<Text>);

impl Interner {
    pub fn get(&mut self, s: &str) -> Text {
        if let Some(t) = self.0.get(s) {
            return t.clone();
        }
        let t = Text::from(s);
        self.0.insert(t.clone());
        t
    }

    /// `get`, trying `last` first: the value a field had the last time.
    /// A file's rows repeat their neighbours' values, and a repeat then
    /// costs one comparison instead of a hash and a comparison.
    pub fn get_after(&mut self, last: &mut Option<Text>, s: &str) -> Text {
        match last {
            Some(t) if t.as_str() == s => t.clone(),
            _ => {
                let t = self.get(s);
                *last = Some(t.clone());
                t
            }
        }
    }
}

/// An `Interner` over `N` columns whose rows mostly repeat the row
/// before's value (a session's rows are stored together): each column
/// remembers its last value, and a repeat costs one comparison instead of
/// a hash and a comparison.
pub struct ColumnInterner<'a, const N: usize> {
    names: Interner,
    last: [Option<(&'a str, Text)>; N],
}

impl<'a, const N: usize> Default for ColumnInterner<'a, N> {
    fn default() -> Self {
        ColumnInterner { names: Interner::default(), last: std::array::from_fn(|_| None) }
    }
}

impl<'a, const N: usize> ColumnInterner<'a, N> {
    /// The `Text` of `s` in `column` (below `N`).
    pub fn get(&mut self, column: usize, s: &'a str) -> Text {
        self.get_as(column, s, str::to_owned)
    }

    /// The `Text` of `f(raw)` in `column`: `f` runs once per run of equal
    /// raw values.
    pub fn get_as(&mut self, column: usize, raw: &'a str, f: impl FnOnce(&str) -> String) -> Text {
        let names = &mut self.names;
        match &mut self.last[column] {
            Some((last, text)) if *last == raw => text.clone(),
            slot => {
                let text = names.get(&f(raw));
                *slot = Some((raw, text.clone()));
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_values_share_one_allocation() {
        let mut i = Interner::default();
        let (a, b) = (i.get("claude-opus-4-6"), i.get("claude-opus-4-6"));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, "claude-opus-4-6");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"claude-opus-4-6\"");
        let mut last = None;
        let c = i.get_after(&mut last, "claude-opus-4-6");
        assert!(Arc::ptr_eq(&a.0, &c.0), "the interned value, then kept as the last");
        assert!(Arc::ptr_eq(&a.0, &last.as_ref().unwrap().0));
        let d = i.get_after(&mut last, "claude-sonnet-4-5");
        assert_eq!((d.as_str(), last.as_ref().map(Text::as_str)), ("claude-sonnet-4-5", Some("claude-sonnet-4-5")));
    }

    #[test]
    fn a_column_interner_shares_values_across_columns_and_maps_raw_values() {
        let mut n: ColumnInterner<'_, 2> = ColumnInterner::default();
        let (a, b, c) = (n.get(0, "s1"), n.get(0, "s1"), n.get(1, "s1"));
        assert!(Arc::ptr_eq(&a.0, &b.0) && Arc::ptr_eq(&a.0, &c.0));
        assert_eq!(n.get(0, "s2"), "s2");
        assert_eq!(n.get_as(1, "x!y", |s| s.replace('!', "")), "xy");
        assert_eq!(n.get_as(1, "x!y", |_| unreachable!("a repeat is not mapped again")), "xy");
        assert_eq!(n.get(1, ""), "");
        assert!(printable(b"a b~", false));
        assert!(!printable(b"a\nb", false) && printable(b"a\nb", true));
        assert!(!printable("caf\u{e9}".as_bytes(), true) && !printable(b"\x1b[31m", true));
    }
}
