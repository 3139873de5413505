//! Every key a user could meet, in words: the cache classes (their words
//! are the class table's, `analyze::CLASSES`), and in one table here
//! (`LABELS`, each key with its group and label) the idle-gap buckets, the
//! compaction triggers and boundaries and the advice's decisions. The
//! terminal reports, the pages and the charts say these words; JSON keeps
//! the keys (they are the stable names). Also `plural`, the one way a
//! count is written beside its noun.

use crate::analyze::{CacheClass, GapBucket, Recommendation};
use crate::model::Boundary;

/// What kind of key a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// How long the request before it rested (`GapBucket`).
    IdleGap,
    /// Why a conversation was compacted.
    Trigger,
    /// What kind of compaction boundary a transcript wrote.
    Boundary,
    /// What the advice recommends.
    Decision,
}

/// One key, its group and its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label {
    pub key: &'static str,
    pub group: Group,
    /// Short, for a table cell or a chart legend.
    pub words: &'static str,
}

const fn l(group: Group, key: &'static str, words: &'static str) -> Label {
    Label { key, group, words }
}

/// The table.
pub const LABELS: [Label; 13] = [
    l(Group::IdleGap, "le_5m", "5 minutes or less"),
    l(Group::IdleGap, "5m_1h", "5 minutes to an hour"),
    l(Group::IdleGap, "gt_1h", "over an hour"),
    l(Group::Trigger, "manual", "you ran /compact"),
    l(Group::Trigger, "auto", "automatic (context full)"),
    l(Group::Trigger, "idle", "idle compaction (before the cache expired)"),
    l(Group::Trigger, "", "not recorded"),
    l(Group::Boundary, "compact", "compaction"),
    l(Group::Boundary, "microcompact", "old tool results cleared"),
    l(Group::Decision, "resume", "resume the conversation as it is"),
    l(Group::Decision, "restart", "start a new session (this one cannot be resumed)"),
    l(Group::Decision, "compact", "compact first, then continue"),
    l(Group::Decision, "restart", "start a new session"),
];

/// The words of `key` in `group`, if the table has them.
pub fn words(group: Group, key: &str) -> Option<&'static str> {
    LABELS.iter().find(|x| x.group == group && x.key == key).map(|x| x.words)
}

fn known(group: Group, key: &str) -> &'static str {
    // Every enum's key is in the table (test `every_key_has_words`).
    words(group, key).unwrap_or("other")
}

/// A cache class in words (the class table's, `analyze::CLASSES`).
pub fn class(c: CacheClass) -> &'static str {
    c.words()
}

/// The cause a person reads (`analyze::cause_of`) in words: the server's
/// reason, or the inferred class.
pub fn cause(c: &crate::analyze::Cause) -> String {
    match crate::analyze::CacheClass::parse(&c.key).filter(|_| !c.by_server()) {
        Some(class) => self::class(class).to_owned(),
        None => crate::analyze::reason_words(&c.key),
    }
}

/// An idle-gap bucket in words.
pub fn bucket(b: GapBucket) -> &'static str {
    known(Group::IdleGap, b.as_str())
}

/// A compaction trigger in words; a trigger the table does not know is
/// shown as written (it is transcript text: the page escapes it).
pub fn trigger(t: &str) -> String {
    words(Group::Trigger, t).map_or_else(|| t.to_owned(), str::to_owned)
}

/// A compaction boundary in words.
pub fn boundary(b: Boundary) -> &'static str {
    known(Group::Boundary, b.as_str())
}

/// A recommendation in words.
pub fn decision(r: Recommendation) -> &'static str {
    match r {
        Recommendation::Resume => known(Group::Decision, "resume"),
        Recommendation::Compact => known(Group::Decision, "compact"),
        Recommendation::Restart => known(Group::Decision, "restart"),
    }
}

/// `1 person`, `2 people`: a count and its noun (`model::format::plural`).
pub use crate::model::format::plural;

/// What a session without a title is called: its project's last folder and
/// the day it began (`spotter, 2026-06-16`), or `session of 2026-06-16`
/// when the project is hashed or unknown. A title is a summary of the
/// conversation, so a team member's sessions never carry one (bundles hold
/// no content); older Claude Code versions wrote none either.
pub fn untitled(project_path: &str, first_day: chrono::NaiveDate) -> String {
    let leaf = project_path.rsplit(['/', '\\']).find(|p| !p.is_empty()).filter(|p| !p.starts_with("h:"));
    match leaf {
        Some(leaf) => format!("{leaf}, {first_day}"),
        None => format!("session of {first_day}"),
    }
}

/// The name a list or a page heading gives a session: its title, or
/// `untitled` and the id's first 8 characters, which a title never needs.
pub fn session_name(title: &str, id: &str, project_path: &str, first_day: chrono::NaiveDate) -> String {
    if title.is_empty() {
        let short: String = id.chars().take(8).collect();
        format!("{} ({short})", untitled(project_path, first_day))
    } else {
        title.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_words() {
        for b in [GapBucket::Le5m, GapBucket::From5mTo1h, GapBucket::Gt1h] {
            assert!(words(Group::IdleGap, b.as_str()).is_some(), "{b:?}");
        }
        for b in [Boundary::Compact, Boundary::Microcompact] {
            assert!(words(Group::Boundary, b.as_str()).is_some(), "{b:?}");
        }
        assert_eq!(decision(Recommendation::Compact), "compact first, then continue");
        assert_eq!(trigger("manual"), "you ran /compact");
        assert_eq!(trigger("<x>"), "<x>");
    }

    #[test]
    fn no_label_is_a_key() {
        for x in LABELS {
            assert!(!x.words.contains('_'), "{x:?}");
            assert!(!x.words.is_empty());
        }
    }

    #[test]
    fn a_session_without_a_title_is_named_by_its_project_and_first_day() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 6, 16).unwrap();
        let id = "88508f41-aaaa-bbbb";
        assert_eq!(session_name("", id, "/home/u/projects/spotter", day), "spotter, 2026-06-16 (88508f41)");
        assert_eq!(session_name("", id, "C:\\code\\app\\", day), "app, 2026-06-16 (88508f41)");
        assert_eq!(session_name("", id, "h:0123456789abcdef", day), "session of 2026-06-16 (88508f41)");
        assert_eq!(session_name("", id, "", day), "session of 2026-06-16 (88508f41)");
        assert_eq!(session_name("Fix the parser", id, "/p", day), "Fix the parser");
    }

    #[test]
    fn counts_are_pluralised() {
        assert_eq!(plural(1, "person", "people"), "1 person");
        assert_eq!(plural(2, "person", "people"), "2 people");
        assert_eq!(plural(0, "turn", "turns"), "0 turns");
        assert_eq!(plural(1234, "turn", "turns"), "1,234 turns");
    }
}
