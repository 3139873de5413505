//! The one rule for names that travel between people: the text values of a
//! team bundle's rows (project directory, cwd, session id, model, message
//! id, ...) and the `--user`/`--machine` names of an export. A name holds
//! no character `is_unsafe` names (controls but newline, bidi controls)
//! and is at most `MAX_NAME` bytes. Import refuses a bundle whose analysis
//! rows break it (`name_fault`, `team::analysis`); export makes every value
//! keep it (`safe_name`, `team::names`), so a person's own export is never
//! refused; `--user` and `--machine` are refused when they break it (or
//! hold a newline: they start every row of the team tables).

use super::is_unsafe;
use std::borrow::Cow;
use std::fmt;

/// Longest name, in bytes (real paths, ids and model names are far shorter).
pub const MAX_NAME: usize = 4096;

/// What breaks the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFault {
    /// The first character not allowed.
    Char(char),
    /// The name's length in bytes, over `MAX_NAME`.
    TooLong(usize),
}

impl fmt::Display for NameFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameFault::Char(c) => write!(f, "holds the control character U+{:04X}", u32::from(*c)),
            NameFault::TooLong(n) => write!(f, "is {n} bytes long, over the bound of {MAX_NAME} bytes"),
        }
    }
}

/// Why `s` is not a name, or None when it is.
pub fn name_fault(s: &str) -> Option<NameFault> {
    fault(s, is_unsafe)
}

/// `name_fault` for a name that must also be one line (a person's or a
/// machine's name): a newline is a fault too.
pub fn line_name_fault(s: &str) -> Option<NameFault> {
    fault(s, |c| c == '\n' || is_unsafe(c))
}

fn fault(s: &str, bad: impl Fn(char) -> bool) -> Option<NameFault> {
    // Nearly every name is printable ASCII: a byte scan answers for it.
    if s.len() <= MAX_NAME && super::printable(s.as_bytes(), false) {
        return None;
    }
    if let Some(c) = s.chars().find(|&c| bad(c)) {
        return Some(NameFault::Char(c));
    }
    (s.len() > MAX_NAME).then_some(NameFault::TooLong(s.len()))
}

/// `s` as a name: each character `is_unsafe` names replaced by U+FFFD (so
/// a reader sees that something was there, and two names that differ only
/// there mostly stay apart), then cut to `MAX_NAME` bytes at a character
/// boundary. Borrowed when `s` already is a name; `name_fault` of the
/// result is always None.
pub fn safe_name(s: &str) -> Cow<'_, str> {
    if name_fault(s).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out: String = s.chars().map(|c| if is_unsafe(c) { char::REPLACEMENT_CHARACTER } else { c }).collect();
    if out.len() > MAX_NAME {
        let cut = (0..=MAX_NAME).rev().find(|&i| out.is_char_boundary(i)).unwrap_or(0);
        out.truncate(cut);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn control_bidi_and_length_are_faults_and_a_newline_only_for_one_line_names() {
        assert_eq!(name_fault("-home-u-app"), None);
        assert_eq!(name_fault("a\u{1b}[31m"), Some(NameFault::Char('\u{1b}')));
        assert_eq!(name_fault("tab\there"), Some(NameFault::Char('\t')));
        assert_eq!(name_fault("x\u{202e}y"), Some(NameFault::Char('\u{202e}')));
        assert_eq!(name_fault("two\nlines"), None, "tables show a newline as a space");
        assert_eq!(line_name_fault("two\nlines"), Some(NameFault::Char('\n')));
        let long = "é".repeat(MAX_NAME);
        assert_eq!(name_fault(&long), Some(NameFault::TooLong(2 * MAX_NAME)));
        assert_eq!(
            NameFault::Char('\u{202e}').to_string(),
            "holds the control character U+202E",
            "the message --user and --machine refusals name"
        );
    }

    #[test]
    fn a_safe_name_replaces_what_is_unsafe_and_cuts_at_a_character() {
        assert!(matches!(safe_name("claude-opus-4"), Cow::Borrowed("claude-opus-4")));
        assert_eq!(safe_name("p\u{1b}[31m\tq\u{202e}r\ns"), "p\u{fffd}[31m\u{fffd}q\u{fffd}r\ns");
        let long = format!("a{}", "é".repeat(MAX_NAME));
        let cut = safe_name(&long);
        assert_eq!(cut.len(), MAX_NAME - 1, "the last 'é' would cross the bound");
        assert!(long.starts_with(cut.as_ref()));
    }

    proptest! {
        #[test]
        fn a_safe_name_keeps_the_rule_and_a_name_is_kept(s in "\\PC{0,40}|[\\x00-\\x1f\\u{202a}-\\u{202e}a-z\\n]{0,40}") {
            let safe = safe_name(&s);
            prop_assert_eq!(name_fault(&safe), None);
            if name_fault(&s).is_none() {
                prop_assert_eq!(safe.as_ref(), s.as_str());
            }
            prop_assert_eq!(safe.chars().count(), s.chars().count(), "one character for one");
        }
    }
}
