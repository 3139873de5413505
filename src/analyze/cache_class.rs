//! The cache classes (cache-model v2 §2) and everything said about them, in
//! one table (`CLASSES`): each class's stored name (JSON keys, the
//! `class` column, the CSS class `c-<name>`), its group (what the reports
//! add it to: the idle cost, the edit cost, the lineage starts) and its
//! words, short (a table cell, a legend) and long (what happened and what
//! to do). Adding a class is a variant and a row here; the SQL lists, the
//! stylesheet and the summary follow from the groups or are checked
//! against them by tests.

use serde::{Serialize, Serializer};

/// What happened to the prompt cache at one request (cache-model v2).
/// Declared in report order, the order of `CLASSES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CacheClass {
    /// Read (nearly) the whole previous prompt, or what it still holds.
    Hit,
    /// A thread's first request.
    First,
    /// The first main-thread request after a compaction.
    Compaction,
    /// The model differs from the previous request's.
    ModelSwitch,
    /// Miss after a gap longer than a 5-minute TTL.
    Ttl5m,
    /// Miss after a gap longer than a 1-hour TTL.
    Ttl1h,
    /// Miss within the TTL after Claude Code's system prompt or tool set
    /// changed: its record of the call (`shapeHash`, 2.1.33x) differs from
    /// the previous call's on the same model.
    ShapeChange,
    /// Miss within the TTL after a Claude Code version change.
    VersionChange,
    /// Miss within the TTL right after Claude Code cleared old tool results
    /// (a `microcompact_boundary` since the previous request).
    Microcompact,
    /// Miss within the TTL that still read the head of the prompt: what
    /// follows it was rewritten (tool results cleared, memory, tools or
    /// history edited).
    ContextEdit,
    /// Miss within the TTL that read nothing although the cache was warm.
    FullRebuild,
}

/// What the reports add a class to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassGroup {
    /// The cache was read.
    Hit,
    /// A lineage start: a prompt written for the first time.
    Start,
    /// A miss an idle gap caused: the reports' idle cost
    /// (`sql/team_person_cache.sql`'s `idle_cost_usd`).
    Idle,
    /// A miss of a warm cache after a Claude Code upgrade.
    Upgrade,
    /// A miss of a warm cache whose prompt changed: the reports' edit cost
    /// (`sql/team_person_cache.sql`'s `edit_cost_usd`).
    Edit,
}

/// One class: its name, group and words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassInfo {
    pub class: CacheClass,
    /// The stored name: JSON keys, the `class` column, the CSS class.
    pub name: &'static str,
    pub group: ClassGroup,
    /// Short words, for a table cell or a chart legend.
    pub words: &'static str,
    /// One plain sentence: what happened, and what the user can do about it.
    pub meaning: &'static str,
}

const fn row(
    class: CacheClass,
    name: &'static str,
    group: ClassGroup,
    words: &'static str,
    meaning: &'static str,
) -> ClassInfo {
    ClassInfo { class, name, group, words, meaning }
}

/// Every class, in report order (the enum's order).
pub const CLASSES: [ClassInfo; 11] = {
    use CacheClass as C;
    use ClassGroup as G;
    [
        row(C::Hit, "hit", G::Hit, "read from cache", "Read the previous prompt from the cache: nothing to do."),
        row(
            C::First,
            "first",
            G::Start,
            "first request of a conversation",
            "A conversation or sub-agent started and wrote its prompt once: unavoidable.",
        ),
        row(
            C::Compaction,
            "compaction",
            G::Start,
            "first request after a compaction",
            "The history was replaced by a summary and written afresh: compact when you change task, not more often.",
        ),
        row(
            C::ModelSwitch,
            "model_switch",
            G::Start,
            "model changed",
            "Another model has its own cache and started a new one: switch models between tasks, not within one.",
        ),
        row(
            C::Ttl5m,
            "ttl_5m",
            G::Idle,
            "expired after 5 minutes idle",
            "You came back after the 5-minute cache expired and it was written again: resume sooner, or compare 1-hour writes in the what-if.",
        ),
        row(
            C::Ttl1h,
            "ttl_1h",
            G::Idle,
            "expired after an hour idle",
            "You came back after the 1-hour cache expired and it was written again: compact or start fresh before a long break.",
        ),
        row(
            C::ShapeChange,
            "shape_change",
            G::Edit,
            "system prompt or tools changed",
            "The system prompt or the tool set changed (Claude Code records both with every call), so nothing after them could be read: keep MCP servers, tools, CLAUDE.md and settings fixed within a session.",
        ),
        row(
            C::VersionChange,
            "version_change",
            G::Upgrade,
            "Claude Code upgraded",
            "Claude Code was upgraded between two requests and wrote a new prefix: nothing to do; it happens once per upgrade.",
        ),
        row(
            C::Microcompact,
            "microcompact",
            G::Edit,
            "old tool results cleared",
            "Claude Code cleared old tool results, which broke the cache behind them: compact or start a new session before the context grows this large.",
        ),
        row(
            C::ContextEdit,
            "context_edit",
            G::Edit,
            "prompt edited (its start still cached)",
            "The start of the prompt was still cached but what followed changed (tool results cleared, memory, tools or history edited): avoid editing CLAUDE.md, MCP servers or settings mid-session.",
        ),
        row(
            C::FullRebuild,
            "full_rebuild",
            G::Edit,
            "rebuilt although still warm",
            "Nothing was read although the cache should have been warm: nothing on your side; if it is frequent, report it.",
        ),
    ]
};

impl CacheClass {
    /// Every class, in report order.
    pub const ALL: [CacheClass; 11] = {
        let mut all = [CacheClass::Hit; 11];
        let mut i = 0;
        while i < all.len() {
            all[i] = CLASSES[i].class;
            i += 1;
        }
        all
    };

    /// The class's row of `CLASSES` (its position there is its
    /// declaration order: test `the_class_table_is_in_declaration_order`).
    pub fn info(self) -> &'static ClassInfo {
        &CLASSES[self as usize]
    }

    /// The JSON / column name of the class.
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// The class a stored name (`as_str`) names.
    pub fn parse(name: &str) -> Option<CacheClass> {
        CLASSES.iter().find(|c| c.name == name).map(|c| c.class)
    }

    pub fn group(self) -> ClassGroup {
        self.info().group
    }

    /// True for lineage starts (`first`, `compaction`, `model_switch`).
    pub fn is_start(self) -> bool {
        self.group() == ClassGroup::Start
    }

    /// True for misses (any cause).
    pub fn is_miss(self) -> bool {
        !matches!(self.group(), ClassGroup::Start | ClassGroup::Hit)
    }

    /// True for the misses an idle gap caused (`ttl_5m`, `ttl_1h`).
    pub fn is_idle(self) -> bool {
        self.group() == ClassGroup::Idle
    }

    /// True for the misses of a warm cache whose prompt changed
    /// (`shape_change`, `microcompact`, `context_edit`, `full_rebuild`).
    pub fn is_edit(self) -> bool {
        self.group() == ClassGroup::Edit
    }

    /// True for misses the what-if keeps as observed (§5 v2: the cache was
    /// lost whatever the TTL): an edit or an upgrade.
    pub fn ttl_independent(self) -> bool {
        matches!(self.group(), ClassGroup::Edit | ClassGroup::Upgrade)
    }

    /// Short words, for a table cell or a chart legend.
    pub const fn words(self) -> &'static str {
        CLASSES[self as usize].words
    }

    /// One plain sentence: what happened, and what the user can do about it.
    pub fn meaning(self) -> &'static str {
        self.info().meaning
    }
}

impl Serialize for CacheClass {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_table_is_in_declaration_order() {
        for (i, c) in CLASSES.iter().enumerate() {
            assert_eq!(c.class as usize, i, "{c:?}");
            assert_eq!(CacheClass::parse(c.name), Some(c.class));
            assert_eq!(serde_json::to_value(c.class).unwrap(), c.name);
        }
        assert_eq!(CacheClass::parse("unexplained"), None);
    }

    #[test]
    fn words_are_not_keys() {
        for c in CLASSES {
            assert!(!c.words.is_empty() && !c.words.contains('_'), "{c:?}");
            assert!(c.meaning.ends_with('.'), "{c:?}");
        }
    }

    /// The team report's SQL (run on other engines too) lists the idle and
    /// edit classes by name: the lists are the groups'.
    #[test]
    fn the_sql_lists_are_the_groups() {
        let sql = include_str!("../../sql/team_person_cache.sql");
        for (group, column) in [(ClassGroup::Idle, "idle_cost_usd"), (ClassGroup::Edit, "edit_cost_usd")] {
            let names: Vec<String> =
                CLASSES.iter().filter(|c| c.group == group).map(|c| format!("'{}'", c.name)).collect();
            let list = format!("class IN ({})", names.join(", "));
            let at = sql.find(&list).unwrap_or_else(|| panic!("{list} not in team_person_cache.sql"));
            assert!(sql[at..].lines().take(2).any(|l| l.contains(column)), "{list} is not {column}");
        }
        let listed = include_str!("../../sql/team_cache_classes.sql");
        let names: Vec<&str> = CLASSES.iter().map(|c| c.name).collect();
        assert!(listed.replace("\n-- ", " ").contains(&names.join(", ")), "team_cache_classes.sql names every class");
    }

    /// Every class the stylesheet colours exists (a renamed class leaves no
    /// rule behind); the others take the plain `.cls` colours.
    #[test]
    fn the_stylesheet_names_only_classes() {
        let css = include_str!("../../web/static/app.css");
        for name in css.split(".cls.c-").skip(1).map(|r| r.split([' ', ',', '{']).next().unwrap_or("")) {
            assert!(name == "rewind" || CacheClass::parse(name).is_some(), "app.css colours `{name}`");
        }
    }
}
