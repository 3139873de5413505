//! Estimated prices for new versions of known model families: a model id
//! the table lacks but spelled `claude-<family>-<major>[-<minor>]` (after
//! `normalize`, so dates and provider decorations are gone) is priced as
//! the newest version of that family the table knows, and reported as an
//! `Estimate` so every report can say its total rests on a guess.
//!
//! Hands `family_version` to `PriceTable` (which keeps family -> newest
//! model) and `Estimate` to the reports.

use serde::Serialize;

/// A family version: `(major, minor)`, `claude-opus-5` being `(5, 0)`.
pub(crate) type Version = (u32, u32);

/// Splits a normalised id spelled `claude-<family>-<major>[-<minor>]` into
/// its family and version; None for any other shape (the Claude 3 spelling
/// `claude-3-5-sonnet`, a missing version, extra parts, long numbers).
pub fn family_version(id: &str) -> Option<(&str, Version)> {
    let rest = id.strip_prefix("claude-")?;
    let mut parts = rest.split('-');
    let family = parts.next().filter(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_lowercase()))?;
    let major = version_part(parts.next()?)?;
    let minor = match parts.next() {
        Some(p) => version_part(p)?,
        None => 0,
    };
    parts.next().is_none().then_some((family, (major, minor)))
}

/// One or two digits: a model version, never a date or a revision.
fn version_part(p: &str) -> Option<u32> {
    (matches!(p.len(), 1 | 2) && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok()).flatten()
}

/// A model priced as another version of its family.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Estimate {
    /// The model as transcripts spell it.
    pub model: String,
    /// The canonical id whose prices were used.
    pub priced_as: String,
}

/// Longest model id shown on a terminal.
const MAX_SHOWN: usize = 80;

impl Estimate {
    /// `claude-opus-5-7 as claude-opus-5-5`, safe for a terminal.
    pub fn short(&self) -> String {
        format!("{} as {}", printable(&self.model), printable(&self.priced_as))
    }

    /// The warning a command prints once per estimated model.
    pub fn warning(&self) -> String {
        format!(
            "warning: {} is not in the price table; priced as {}, the newest known version of its family \
(estimated). For exact prices pass --pricing FILE with a [[model]] entry for it (schema: \
`cachewise prices`, pricing/prices.toml).",
            printable(&self.model),
            printable(&self.priced_as)
        )
    }

    /// The line reports print beside their total.
    pub fn note(estimates: &[Estimate]) -> Option<String> {
        if estimates.is_empty() {
            return None;
        }
        let list: Vec<String> = estimates.iter().map(Estimate::short).collect();
        Some(format!(
            "Estimated prices (model not in the price table, priced as its family's newest version): {}",
            list.join(", ")
        ))
    }
}

/// Model ids come from transcripts: no control characters, bounded length.
fn printable(s: &str) -> String {
    let mut out: String = s.chars().take(MAX_SHOWN).map(|c| if c.is_control() { '?' } else { c }).collect();
    if s.chars().count() > MAX_SHOWN {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_versions_of_the_current_spelling_only() {
        assert_eq!(family_version("claude-opus-5-7"), Some(("opus", (5, 7))));
        assert_eq!(family_version("claude-fable-5-3"), Some(("fable", (5, 3))));
        assert_eq!(family_version("claude-opus-6"), Some(("opus", (6, 0))));
        assert_eq!(family_version("claude-opus-4-10"), Some(("opus", (4, 10))));
        for other in [
            "claude-3-5-sonnet",
            "claude-opus",
            "claude-opus-",
            "claude-opus-5-7-1",
            "claude-opus-5-20261109",
            "claude-opus-x",
            "claude-Opus-5",
            "claude--5",
            "gpt-4o",
            "<synthetic>",
            "",
        ] {
            assert_eq!(family_version(other), None, "{other}");
        }
    }

    #[test]
    fn terminal_text_is_printable_and_bounded() {
        let e = Estimate { model: format!("claude-opus-5-7\u{1b}[31m{}", "x".repeat(200)), priced_as: "a".into() };
        let s = e.short();
        assert!(!s.chars().any(char::is_control), "{s:?}");
        assert!(s.starts_with("claude-opus-5-7?[31m"), "{s}");
        assert!(s.contains("… as a"), "{s}");
        let w = Estimate { model: "claude-opus-5-7".into(), priced_as: "claude-opus-5-5".into() }.warning();
        assert!(w.starts_with("warning: claude-opus-5-7 is not in the price table; priced as claude-opus-5-5"), "{w}");
        assert!(w.contains("--pricing FILE"), "{w}");
        assert_eq!(Estimate::note(&[]), None);
    }
}
