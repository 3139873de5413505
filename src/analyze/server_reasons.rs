//! What Claude Code and the API say about the cache, beside what cachewise
//! infers: the server's own miss reasons against the cache model's classes
//! (cache-model v3 section 8.1: per class, how many requests carry a reason
//! and of which type, and how often the reason agrees with the class; a
//! reason never changes a class), and the status line's `prompt_cache`
//! verdicts against cachewise's own (`LiveAgreement`).

use super::CacheClass;
use crate::model::limits::LiveCache;
use crate::model::reason as r;
use serde::Serialize;
use std::collections::BTreeMap;

/// The requests of one class that carry a reason, by type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReasonTally {
    pub carrying: u64,
    pub by_type: BTreeMap<String, u64>,
}

/// How often the server's reasons agree with the classes (section 8.1):
/// `ttl_5m`/`ttl_1h` with `previous_message_not_found`, `model_switch` with
/// `model_changed`, `context_edit`/`microcompact`/`full_rebuild` with
/// `system_changed`, `tools_changed` or `messages_changed` agree; a hit
/// that carries any reason, or a request whose reason names another group
/// than its class's, disagrees. `unavailable` and unknown types count in
/// neither.
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

/// The group of classes a known reason explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Expired,
    Model,
    Edit,
}

fn group_of_reason(reason: &str) -> Option<Group> {
    match reason {
        r::PREVIOUS_MESSAGE_NOT_FOUND => Some(Group::Expired),
        r::MODEL_CHANGED => Some(Group::Model),
        r::SYSTEM_CHANGED | r::TOOLS_CHANGED | r::MESSAGES_CHANGED => Some(Group::Edit),
        _ => None,
    }
}

fn group_of_class(class: CacheClass) -> Option<Group> {
    match class {
        CacheClass::Ttl5m | CacheClass::Ttl1h => Some(Group::Expired),
        CacheClass::ModelSwitch => Some(Group::Model),
        CacheClass::ShapeChange | CacheClass::ContextEdit | CacheClass::Microcompact | CacheClass::FullRebuild => {
            Some(Group::Edit)
        }
        _ => None,
    }
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
    match group_of_reason(server_reason) {
        Some(_) => Cause { key: server_reason.to_owned(), from: CauseFrom::Server },
        None if class == CacheClass::ShapeChange => Cause { key: class.as_str().to_owned(), from: CauseFrom::Client },
        None => Cause { key: class.as_str().to_owned(), from: CauseFrom::Inferred },
    }
}

impl ServerReasons {
    /// Counts one request of `class` whose stored reason is `reason`
    /// (empty: none).
    pub fn add(&mut self, class: CacheClass, reason: &str) {
        if reason.is_empty() {
            return;
        }
        let tally = self.by_class.entry(class.as_str()).or_default();
        tally.carrying += 1;
        *tally.by_type.entry(reason.to_owned()).or_default() += 1;
        let a = &mut self.agreement;
        if class == CacheClass::Hit {
            a.hits_with_reason += 1;
            a.disagree += 1;
        } else if let Some(g) = group_of_reason(reason) {
            match group_of_class(class) == Some(g) {
                true => a.agree += 1,
                false => a.disagree += 1,
            }
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
        // No reason, no diagnosis, or a type it does not know: the inference.
        for reason in ["", r::UNAVAILABLE, "beta_header_changed"] {
            let c = cause_of(CacheClass::Ttl5m, reason);
            assert_eq!((c.key.as_str(), c.from), ("ttl_5m", CauseFrom::Inferred), "{reason:?}");
        }
    }

    #[test]
    fn agreement_follows_section_8_1() {
        let mut s = ServerReasons::default();
        s.add(CacheClass::ContextEdit, r::TOOLS_CHANGED);
        s.add(CacheClass::Ttl1h, r::PREVIOUS_MESSAGE_NOT_FOUND);
        s.add(CacheClass::ModelSwitch, r::MODEL_CHANGED);
        s.add(CacheClass::Hit, r::MESSAGES_CHANGED);
        s.add(CacheClass::Ttl5m, r::TOOLS_CHANGED);
        s.add(CacheClass::FullRebuild, r::UNAVAILABLE);
        s.add(CacheClass::FullRebuild, "beta_changed");
        s.add(CacheClass::Hit, "");
        assert_eq!(s.agreement, Agreement { agree: 3, disagree: 2, hits_with_reason: 1 });
        assert_eq!(s.by_class["hit"].carrying, 1);
        assert_eq!(
            s.by_class["full_rebuild"].by_type,
            BTreeMap::from([("beta_changed".into(), 1), ("unavailable".into(), 1)])
        );
        assert_eq!(s.by_class["first"], ReasonTally::default(), "every class is listed");
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
