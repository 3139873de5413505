//! `Text`: an immutable, cheaply cloned string for the values a transcript
//! repeats on every row (session, project, model, source file, ...). Rows of
//! one file share one allocation per distinct value (see `Interner`), which
//! keeps a cold ingest's memory and its allocation count down. Also the one
//! rule for characters that never reach a terminal or a page raw
//! (`is_unsafe`), and `one_line`, the bounded single line that names from
//! outside are stored (and the status line printed) as.

use rustc_hash::FxHashSet as HashSet;
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
    }
}
