//! What Claude Code and the API say about the cache, beside what cachewise
//! infers: the server's own miss reasons against the cache model's classes
//! (cache-model v3 section 8.1: per class, how many requests carry a reason
//! and of which type, and how often the reason agrees with the class; a
//! reason never changes a class).

use super::CacheClass;
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
        CacheClass::ContextEdit | CacheClass::Microcompact | CacheClass::FullRebuild => Some(Group::Edit),
        _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(s.by_class["full_rebuild"].by_type, BTreeMap::from([("beta_changed".into(), 1), ("unavailable".into(), 1)]));
        assert_eq!(s.by_class["first"], ReasonTally::default(), "every class is listed");
    }

    #[test]
    fn reasons_read_as_words() {
        assert_eq!(reason_words(r::TOOLS_CHANGED), "the tools changed");
        assert_eq!(reason_words("new_kind"), "reason \"new_kind\"");
    }
}
