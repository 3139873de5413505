//! The shape of one transcript line, as far as cachewise reads it.
//!
//! Deserialization borrows from the input and skips every field not named
//! here (message content, tool results, ...) without building it. String
//! fields are lenient: a value of another type reads as absent instead of
//! failing the line. Token counts are strict non-negative integers.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// A string field that may be absent, null, or of the wrong type.
#[derive(Debug, Default)]
pub(super) struct Text<'a>(pub Option<Cow<'a, str>>);

impl<'a> Text<'a> {
    pub(super) fn as_str(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
    pub(super) fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor).map(Text)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// A boolean flag that reads as false when absent or not a boolean.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = IgnoredOr::<bool>::deserialize(d)?;
        Ok(Flag(matches!(v, IgnoredOr::Value(true))))
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum IgnoredOr<T> {
    Value(T),
    #[allow(dead_code)]
    Other(IgnoredAny),
}

/// One JSONL line. Only what usage, threads, compactions and titles need.
/// The nested objects are boxed: serde moves a line's fields several
/// times while it builds it, and each move copies the whole struct.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub subtype: Text<'a>,
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Text<'a>,
    /// On a response a fork copied from its parent (2.1.33x): the session
    /// that made the request.
    #[serde(rename = "requestSessionId", borrow)]
    pub request_session_id: Text<'a>,
    #[serde(rename = "agentId", borrow)]
    pub agent_id: Text<'a>,
    #[serde(rename = "isSidechain")]
    pub is_sidechain: Flag,
    #[serde(borrow)]
    pub uuid: Text<'a>,
    #[serde(rename = "parentUuid", borrow)]
    pub parent_uuid: Text<'a>,
    #[serde(borrow)]
    pub timestamp: Text<'a>,
    #[serde(borrow)]
    pub cwd: Text<'a>,
    #[serde(rename = "gitBranch", borrow)]
    pub git_branch: Text<'a>,
    #[serde(borrow)]
    pub version: Text<'a>,
    #[serde(rename = "requestId", borrow)]
    pub request_id: Text<'a>,
    #[serde(rename = "isApiErrorMessage")]
    pub is_api_error: Flag,
    #[serde(rename = "isCompactSummary")]
    pub is_compact_summary: Flag,
    #[serde(borrow)]
    pub message: Option<Box<Message<'a>>>,
    #[serde(rename = "compactMetadata")]
    pub compact: Option<Box<CompactMeta<'a>>>,
    /// `microcompactMetadata` of a `microcompact_boundary` line (v2).
    #[serde(rename = "microcompactMetadata")]
    pub microcompact: Option<Box<CompactMeta<'a>>>,
    #[serde(borrow)]
    pub summary: Text<'a>,
    #[serde(rename = "aiTitle", borrow)]
    pub ai_title: Text<'a>,
    #[serde(rename = "customTitle", borrow)]
    pub custom_title: Text<'a>,
    /// `model_refusal_fallback` lines: the refused model and its replacement.
    #[serde(rename = "originalModel", borrow)]
    pub original_model: Text<'a>,
    #[serde(rename = "fallbackModel", borrow)]
    pub fallback_model: Text<'a>,
    #[serde(borrow)]
    pub trigger: Text<'a>,
    #[serde(borrow)]
    pub category: Text<'a>,
    /// `cost-state` lines (2.1.33x): when the session's history started
    /// (epoch ms) and the running totals per model.
    #[serde(rename = "startTime")]
    pub start_time: Count,
    #[serde(rename = "modelUsage")]
    pub model_usage: Lenient<std::collections::BTreeMap<String, ModelUsage>>,
    /// `api-request` lines (2.1.33x): the call's id, what made it and the
    /// hash of its system prompt and tools.
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(rename = "querySource", borrow)]
    pub query_source: Text<'a>,
    #[serde(rename = "shapeHash", borrow)]
    pub shape_hash: Text<'a>,
    /// Assistant lines (2.1.33x): the `api-request` line's id, and the
    /// TTL the call asked for.
    #[serde(rename = "requestRef", borrow)]
    pub request_ref: Text<'a>,
    #[serde(rename = "promptCacheRequested", borrow)]
    pub prompt_cache_requested: Text<'a>,
}

/// One model's running totals on a `cost-state` line. Counts of another
/// type read as absent; the parser bounds them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ModelUsage {
    #[serde(rename = "inputTokens")]
    pub input: Count,
    #[serde(rename = "outputTokens")]
    pub output: Count,
    #[serde(rename = "cacheReadInputTokens")]
    pub read: Count,
    #[serde(rename = "cacheCreationInputTokens")]
    pub write: Count,
    #[serde(rename = "cacheCreationEphemeral5mInputTokens")]
    pub write_5m: Count,
    #[serde(rename = "cacheCreationEphemeral1hInputTokens")]
    pub write_1h: Count,
    #[serde(rename = "webSearchRequests")]
    pub web_search: Count,
    #[serde(rename = "costUSD")]
    pub cost_usd: Lenient<f64>,
}

/// The Messages-API object of a line; `content` is never read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Message<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub usage: Option<Usage<'a>>,
    /// `diagnostics` (2.1.119+): the server's miss reason, when given.
    #[serde(borrow)]
    pub diagnostics: Lenient<Diagnostics<'a>>,
}

/// `message.diagnostics`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Diagnostics<'a> {
    #[serde(borrow)]
    pub cache_miss_reason: Lenient<MissReason<'a>>,
}

/// `message.diagnostics.cache_miss_reason` (cache-model section 19).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct MissReason<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    pub cache_missed_input_tokens: Count,
}

/// An object that reads as absent when it is anything else (metadata:
/// a bad value must not fail the line).
#[derive(Debug, Clone, Copy)]
pub(super) struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match IgnoredOr::<T>::deserialize(d)? {
            IgnoredOr::Value(v) => Lenient(Some(v)),
            IgnoredOr::Other(_) => Lenient(None),
        })
    }
}

impl Line<'_> {
    /// The server's miss reason as written (empty when none).
    pub(super) fn reason_kind(&self) -> &str {
        self.miss_reason().map_or("", |r| r.kind.as_str())
    }

    /// Its `cache_missed_input_tokens`, when given.
    pub(super) fn reason_tokens(&self) -> Option<u64> {
        self.miss_reason().and_then(|r| r.cache_missed_input_tokens.0)
    }

    fn miss_reason(&self) -> Option<&MissReason<'_>> {
        self.message.as_ref()?.diagnostics.0.as_ref()?.cache_miss_reason.0.as_ref()
    }
}

/// `message.usage`: token counts must be non-negative integers.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Usage<'a> {
    pub input_tokens: Option<u64>,
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_creation: Option<CacheCreation>,
    pub server_tool_use: Option<ServerToolUse>,
    #[serde(borrow)]
    pub speed: Text<'a>,
    #[serde(borrow)]
    pub inference_geo: Text<'a>,
    /// One entry per API call inside the response (2.1.x), when logged.
    #[serde(borrow)]
    pub iterations: Option<Vec<CallUsage<'a>>>,
}

/// One entry of `usage.iterations`: its type, model and token fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct CallUsage<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    pub input_tokens: Option<u64>,
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_creation: Option<CacheCreation>,
}

/// `usage.cache_creation`: the write split by TTL.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct CacheCreation {
    pub ephemeral_5m_input_tokens: Option<u64>,
    pub ephemeral_1h_input_tokens: Option<u64>,
}

/// `usage.server_tool_use`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ServerToolUse {
    pub web_search_requests: Option<u64>,
}

/// `compactMetadata` of a `compact_boundary` line, or
/// `microcompactMetadata` of a `microcompact_boundary` line (whose id
/// lists are skipped unread). Counts of another type read as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct CompactMeta<'a> {
    #[serde(borrow)]
    pub trigger: Text<'a>,
    #[serde(rename = "preTokens")]
    pub pre_tokens: Count,
    #[serde(rename = "tokensSaved")]
    pub tokens_saved: Count,
}

/// A count that reads as absent when it is not a non-negative integer
/// (metadata, not billing: a bad value must not fail the line).
pub(super) type Count = Lenient<u64>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_content_and_tolerates_odd_types() {
        let l: Line = serde_json::from_str(
            r#"{"type":"assistant","summary":{"x":1},"cwd":null,"isSidechain":"yes",
            "message":{"id":"m\u0031","model":"claude-opus-4-6","content":[{"type":"text","text":"secret"}],
            "usage":{"input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":8},"output_tokens":10}}}"#,
        )
        .unwrap();
        assert_eq!(l.kind.as_str(), "assistant");
        assert!(l.summary.get().is_none());
        assert!(!l.is_sidechain.0);
        let m = l.message.unwrap();
        assert_eq!(m.id.as_str(), "m1");
        assert_eq!(m.usage.unwrap().cache_creation.unwrap().ephemeral_1h_input_tokens, Some(8));
    }

    #[test]
    fn the_servers_miss_reason_is_read_and_odd_shapes_read_as_none() {
        let l: Line = serde_json::from_str(
            r#"{"type":"assistant","message":{"id":"m","usage":{"input_tokens":3},
            "diagnostics":{"cache_miss_reason":{"type":"tools_changed","cache_missed_input_tokens":17778}}}}"#,
        )
        .unwrap();
        assert_eq!((l.reason_kind(), l.reason_tokens()), ("tools_changed", Some(17778)));
        for odd in [r#""diagnostics":"x""#, r#""diagnostics":{"cache_miss_reason":7}"#, r#""diagnostics":null"#] {
            let text = format!(r#"{{"type":"assistant","message":{{"usage":{{"input_tokens":3}},{odd}}}}}"#);
            let l: Line = serde_json::from_str(&text).unwrap();
            assert_eq!((l.reason_kind(), l.reason_tokens()), ("", None), "{odd}");
        }
        let l: Line = serde_json::from_str(
            r#"{"message":{"diagnostics":{"cache_miss_reason":{"type":"previous_message_not_found","cache_missed_input_tokens":-1}}}}"#,
        )
        .unwrap();
        assert_eq!((l.reason_kind(), l.reason_tokens()), ("previous_message_not_found", None));
    }

    #[test]
    fn negative_tokens_fail_the_line() {
        let r: Result<Line, _> =
            serde_json::from_str(r#"{"type":"assistant","message":{"usage":{"input_tokens":-3}}}"#);
        assert!(r.is_err());
        let r: Result<Line, _> =
            serde_json::from_str(r#"{"type":"assistant","message":{"usage":{"output_tokens":1.5}}}"#);
        assert!(r.is_err());
    }
}
