//! What Claude Code and the API say about the cache, beside what cachewise
//! infers: the server's own miss reasons against the cache model's classes
//! (cache-model section 19: per class, how many requests carry a reason
//! and of which type, and how often the reason agrees with the class; a
//! reason never changes a class), and the status line's `prompt_cache`
//! verdicts against cachewise's own (`LiveAgreement`).

use super::CacheClass;
use crate::model::limits::LiveCache;
use crate::model::reason as r;
use serde::Serialize;
use std::collections::BTreeMap;

/// The requests of one class that carry a reason, by type, and how many
/// of them agree with the class (`agrees`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReasonTally {
    pub carrying: u64,
    pub by_type: BTreeMap<String, u64>,
    pub agree: u64,
    pub disagree: u64,
}

/// How often the server's reasons agree with the classes, by families
/// (cache model v4, section 19; `agrees`): a request that carries a known
/// reason agrees when its class is in the reason's family, and a hit that
/// carries one disagrees (`hits_with_reason`). `unavailable` and unknown
/// types count in neither.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Agreement {
    pub agree: u64,
    pub disagree: u64,
    pub hits_with_reason: u64,
}

/// The reasons of a set of requests: per class (every class listed) and
/// the agreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerReasons {
    #[serde(rename = "server_reasons")]
    pub by_class: BTreeMap<&'static str, ReasonTally>,
    pub agreement: Agreement,
}

impl Default for ServerReasons {
    fn default() -> Self {
        let by_class = CacheClass::ALL.iter().map(|c| (c.as_str(), ReasonTally::default())).collect();
        ServerReasons { by_class, agreement: Agreement::default() }
    }
}

/// Whether the server's `reason` agrees with `class`, by families (None:
/// `unavailable` or a type it does not know, counted in neither): an
/// expired prefix is `ttl_5m` or `ttl_1h`, or a compaction after a gap
/// longer than the TTL (`expired`: the cache had expired before Claude
/// Code compacted); a changed model a model switch;
/// a changed system prompt or tool set an edit of the prompt's start, a
/// shape change, a full rebuild or a version change; changed messages an
/// edit, a full rebuild, a microcompact or a compaction.
pub(super) fn agrees(class: CacheClass, reason: &str, expired: bool) -> Option<bool> {
    use CacheClass as C;
    Some(match reason {
        r::PREVIOUS_MESSAGE_NOT_FOUND => class.is_idle() || (class == C::Compaction && expired),
        r::MODEL_CHANGED => class == C::ModelSwitch,
        r::SYSTEM_CHANGED | r::TOOLS_CHANGED => {
            matches!(class, C::ContextEdit | C::ShapeChange | C::FullRebuild | C::VersionChange)
        }
        r::MESSAGES_CHANGED => matches!(class, C::ContextEdit | C::FullRebuild | C::Microcompact | C::Compaction),
        _ => return None,
    })
}

/// Who named the cause a person reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseFrom {
    /// The API (`message.diagnostics.cache_miss_reason`).
    Server,
    /// cachewise's cache model (the request's class).
    Inferred,
    /// Claude Code's own record of the call (`shape_change`: its
    /// `shapeHash` changed, cache-model section 16).
    Client,
}

/// The cause of one request as a person reads it: a known server reason
/// type, or the inferred class's name (`key`), and who named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cause {
    pub key: String,
    pub from: CauseFrom,
}

impl Cause {
    /// True when the server named it.
    pub fn by_server(&self) -> bool {
        self.from == CauseFrom::Server
    }
}

/// The one rule for the cause a person reads of a request (terminal,
/// pages, CSV, Markdown, OTLP): the server's reason when it gave a known
/// one (it saw the cache; a request the model calls a hit or a thread's
/// first is a miss when the server says so), else the class: named by
/// Claude Code's own record for `shape_change`, else inferred.
/// `unavailable` (no diagnosis) and types it does not know leave the
/// inference in place; the stored reason is one per request (the kept
/// line's, else another line's of the same response).
pub fn cause_of(class: CacheClass, server_reason: &str) -> Cause {
    match agrees(class, server_reason, false) {
        Some(_) => Cause { key: server_reason.to_owned(), from: CauseFrom::Server },
        None if class == CacheClass::ShapeChange => Cause { key: class.as_str().to_owned(), from: CauseFrom::Client },
        None => Cause { key: class.as_str().to_owned(), from: CauseFrom::Inferred },
    }
}

impl ServerReasons {
    /// Counts one request of `class` whose stored reason is `reason`
    /// (empty: none), `expired` when the gap before it was longer than
    /// the TTL in force.
    pub fn add(&mut self, class: CacheClass, reason: &str, expired: bool) {
        if reason.is_empty() {
            return;
        }
        let tally = self.by_class.entry(class.as_str()).or_default();
        tally.carrying += 1;
        *tally.by_type.entry(reason.to_owned()).or_default() += 1;
        let a = &mut self.agreement;
        match agrees(class, reason, expired) {
            Some(true) => (a.agree, tally.agree) = (a.agree + 1, tally.agree + 1),
            Some(false) => (a.disagree, tally.disagree) = (a.disagree + 1, tally.disagree + 1),
            None => return,
        }
        if class == CacheClass::Hit {
            a.hits_with_reason += 1;
        }
    }
}

/// A reason in plain words, for pages and the terminal ("the tools
/// changed"); an unknown type is named as written (it is stored bounded
/// and plain: `model::reason`).
pub fn reason_words(reason: &str) -> String {
    match reason {
        r::MODEL_CHANGED => "the model changed".into(),
        r::SYSTEM_CHANGED => "the system prompt changed".into(),
        r::TOOLS_CHANGED => "the tools changed".into(),
        r::MESSAGES_CHANGED => "earlier messages changed".into(),
        r::PREVIOUS_MESSAGE_NOT_FOUND => "the cached prefix had expired or was evicted".into(),
        r::UNAVAILABLE => "no diagnosis available".into(),
        other => format!("reason \"{other}\""),
    }
}

/// How often Claude Code's `prompt_cache.warm` matched cachewise's own
/// warm/cold verdict from the transcript, over the status-line readings
/// recorded (`samples`: those where cachewise had a verdict).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LiveAgreement {
    pub samples: u64,
    pub warm_agree: u64,
    pub warm_disagree: u64,
}

impl LiveAgreement {
    /// The agreement of `readings` (of `session` alone when given).
    pub fn of(readings: &[LiveCache], session: Option<&str>) -> LiveAgreement {
        let mut out = LiveAgreement::default();
        for l in readings.iter().filter(|l| session.is_none_or(|s| l.session_id == s)) {
            let Some(ours) = l.cachewise_warm else { continue };
            out.samples += 1;
            match ours == l.warm {
                true => out.warm_agree += 1,
                false => out.warm_disagree += 1,
            }
        }
        out
    }
}

/// One of Claude Code's `prompt_cache.last_miss_cause.causes` in words
/// (the status line's "last miss"); an unknown cause is named as written.
pub fn cause_words(cause: &str) -> String {
    match cause {
        "tools_changed" => "the tools changed".into(),
        "system_prompt_changed" => "the system prompt changed".into(),
        "model_changed" => "the model changed".into(),
        "messages_rewritten" => "earlier messages were rewritten".into(),
        "ttl_expired_5m" => "the 5-minute cache expired".into(),
        "ttl_expired_1h" => "the 1-hour cache expired".into(),
        "likely_server_side" => "likely on the server's side".into(),
        "unknown" => "cause unknown".into(),
        other => format!("cause \"{other}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_a_person_reads_is_the_servers_then_the_inference() {
        // A known reason names the cause, whatever the model inferred: on a
        // miss, on a request the model calls a hit, on a thread's first.
        for class in [CacheClass::ContextEdit, CacheClass::Hit, CacheClass::First] {
            let c = cause_of(class, r::TOOLS_CHANGED);
            assert_eq!((c.key.as_str(), c.from), (r::TOOLS_CHANGED, CauseFrom::Server), "{class:?}");
        }
        // No known reason: Claude Code's own record of the call next.
        for reason in ["", r::UNAVAILABLE] {
            let c = cause_of(CacheClass::ShapeChange, reason);
            assert_eq!((c.key.as_str(), c.from), ("shape_change", CauseFrom::Client), "{reason:?}");
        }
        let c = cause_of(CacheClass::ShapeChange, r::SYSTEM_CHANGED);
        assert_eq!((c.key.as_str(), c.from), (r::SYSTEM_CHANGED, CauseFrom::Server), "the server first");
        // No reason, no diagnosis, or a type it does not know: the inference.
        for reason in ["", r::UNAVAILABLE, "beta_header_changed"] {
            let c = cause_of(CacheClass::Ttl5m, reason);
            assert_eq!((c.key.as_str(), c.from), ("ttl_5m", CauseFrom::Inferred), "{reason:?}");
        }
    }

    #[test]
    fn agreement_follows_the_families_of_section_19() {
        let mut s = ServerReasons::default();
        s.add(CacheClass::ContextEdit, r::TOOLS_CHANGED, false);
        s.add(CacheClass::Ttl1h, r::PREVIOUS_MESSAGE_NOT_FOUND, false);
        s.add(CacheClass::ModelSwitch, r::MODEL_CHANGED, false);
        s.add(CacheClass::Hit, r::MESSAGES_CHANGED, false);
        s.add(CacheClass::Ttl5m, r::TOOLS_CHANGED, false);
        s.add(CacheClass::FullRebuild, r::UNAVAILABLE, false);
        s.add(CacheClass::FullRebuild, "beta_changed", false);
        s.add(CacheClass::Hit, r::UNAVAILABLE, false);
        s.add(CacheClass::Hit, "", false);
        // v4's families: an upgrade changes the system prompt; a compaction
        // changes the messages, not the tools; a first request is no miss.
        s.add(CacheClass::VersionChange, r::SYSTEM_CHANGED, false);
        s.add(CacheClass::Compaction, r::MESSAGES_CHANGED, false);
        s.add(CacheClass::Compaction, r::TOOLS_CHANGED, false);
        s.add(CacheClass::First, r::MESSAGES_CHANGED, false);
        // A compaction after the cache expired: the server says so.
        s.add(CacheClass::Compaction, r::PREVIOUS_MESSAGE_NOT_FOUND, true);
        s.add(CacheClass::Compaction, r::PREVIOUS_MESSAGE_NOT_FOUND, false);
        s.add(CacheClass::Microcompact, r::SYSTEM_CHANGED, false);
        assert_eq!(s.agreement, Agreement { agree: 6, disagree: 6, hits_with_reason: 1 });
        assert_eq!((s.by_class["compaction"].agree, s.by_class["compaction"].disagree), (2, 2));
        assert_eq!(s.by_class["hit"].carrying, 2);
        assert_eq!(
            s.by_class["full_rebuild"].by_type,
            BTreeMap::from([("beta_changed".into(), 1), ("unavailable".into(), 1)])
        );
        assert_eq!(s.by_class["shape_change"], ReasonTally::default(), "every class is listed");
    }

    #[test]
    fn live_agreement_counts_readings_with_a_verdict_of_ours() {
        let at = chrono::DateTime::from_timestamp(1_788_612_495, 0).unwrap_or_default();
        let l = |session: &str, warm, ours| LiveCache {
            time: at,
            session_id: session.into(),
            warm,
            cachewise_warm: ours,
            ttl_s: None,
            expires_at: None,
            recache_tokens: None,
        };
        let all =
            [l("a", true, Some(true)), l("a", false, Some(true)), l("b", false, None), l("b", false, Some(false))];
        assert_eq!(LiveAgreement::of(&all, None), LiveAgreement { samples: 3, warm_agree: 2, warm_disagree: 1 });
        assert_eq!(LiveAgreement::of(&all, Some("a")), LiveAgreement { samples: 2, warm_agree: 1, warm_disagree: 1 });
    }

    #[test]
    fn reasons_read_as_words() {
        assert_eq!(reason_words(r::TOOLS_CHANGED), "the tools changed");
        assert_eq!(reason_words("new_kind"), "reason \"new_kind\"");
    }
}
