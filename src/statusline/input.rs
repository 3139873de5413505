//! Claude Code's status-line JSON (stdin) -> `StatusInput`. The input is
//! hostile: it is bounded in size, every field may be absent or of another
//! type (it then reads as absent), unknown fields are ignored, and strings
//! are bounded and stripped of control characters before anyone uses them.

use crate::model::limits::Window;
use serde_json::Value;
use std::path::PathBuf;

/// Largest stdin accepted; Claude Code sends a few hundred bytes.
pub const MAX_INPUT: usize = 256 << 10;
/// Longest string field kept (longer ones are refused, not cut).
const MAX_FIELD: usize = 4096;

/// What cachewise reads from the status-line JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<PathBuf>,
    /// `model.id`.
    pub model: Option<String>,
    /// `cost.total_cost_usd` (Claude Code's own figure).
    pub cost_usd: Option<f64>,
    pub five_hour: Option<Window>,
    pub seven_day: Option<Window>,
    /// `rate_limits.spend_limit` (may exceed 100%).
    pub spend_limit: Option<Window>,
    /// `prompt_cache` (2.1.251+): Claude Code's own view of the cache.
    pub prompt_cache: Option<PromptCache>,
}

/// The fields of `prompt_cache` the status line believes first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptCache {
    /// The prefix is within its TTL.
    pub warm: bool,
    /// `ttl`: `"5m"` -> 300, `"1h"` -> 3600.
    pub ttl_s: Option<u32>,
    /// Epoch seconds.
    pub expires_at: Option<i64>,
    /// What the next request re-caches if cold.
    pub recache_tokens_if_cold: Option<u64>,
    /// `last_miss_cause.causes`, each reduced to plain characters (at most
    /// `MAX_CAUSES`).
    pub last_miss_causes: Vec<String>,
}

/// Causes of the last miss kept at most.
const MAX_CAUSES: usize = 8;
/// The latest expiry believed (year 2100): a later one is read as absent.
const MAX_EPOCH_S: i64 = 4_102_444_800;

/// Why the input could not be read.
pub use crate::model::stdin::StdinError as InputError;

/// Parses the status-line JSON.
pub fn parse(bytes: &[u8]) -> Result<StatusInput, InputError> {
    let v = crate::model::stdin::json_object(bytes, MAX_INPUT)?;
    Ok(StatusInput {
        session_id: text(&v["session_id"]),
        transcript_path: text(&v["transcript_path"]).map(PathBuf::from),
        model: text(&v["model"]["id"]),
        cost_usd: number(&v["cost"]["total_cost_usd"]).filter(|c| *c >= 0.0),
        five_hour: window(&v["rate_limits"]["five_hour"]),
        seven_day: window(&v["rate_limits"]["seven_day"]),
        spend_limit: window(&v["rate_limits"]["spend_limit"]),
        prompt_cache: prompt_cache(&v["prompt_cache"]),
    })
}

/// `prompt_cache`, when it is an object with a boolean `warm`.
fn prompt_cache(v: &Value) -> Option<PromptCache> {
    let warm = v["warm"].as_bool()?;
    let ttl_s = match v["ttl"].as_str() {
        Some("5m") => Some(300),
        Some("1h") => Some(3600),
        _ => None,
    };
    let last_miss_causes = v["last_miss_cause"]["causes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(crate::model::server_reason)
                .filter(|c| !c.is_empty())
                .take(MAX_CAUSES)
                .collect()
        })
        .unwrap_or_default();
    Some(PromptCache {
        warm,
        ttl_s,
        expires_at: v["expires_at"].as_i64().filter(|t| (0..=MAX_EPOCH_S).contains(t)),
        recache_tokens_if_cold: v["recache_tokens_if_cold"].as_u64().filter(|n| *n <= crate::model::MAX_TOKENS),
        last_miss_causes,
    })
}

fn text(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    (!s.is_empty() && s.len() <= MAX_FIELD).then(|| strip_controls(s))
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

fn window(v: &Value) -> Option<Window> {
    let used_pct = number(&v["used_percentage"]).filter(|p| (0.0..=1000.0).contains(p))?;
    let resets_at = v["resets_at"].as_i64().or_else(|| number(&v["resets_at"]).map(|x| x as i64));
    Some(Window { used_pct, resets_at })
}

/// The text as one line without control characters (C0, DEL, C1: escape
/// sequences included) or bidi controls, so it can reach a terminal.
pub fn strip_controls(s: &str) -> String {
    crate::model::one_line(s, usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_and_ignores_the_rest() {
        let i = parse(
            br#"{"session_id":"abc","transcript_path":"/t/x.jsonl","model":{"id":"claude-opus-4-6","display_name":"Opus"},
            "cost":{"total_cost_usd":1.5},"new_field":[1,2],
            "rate_limits":{"five_hour":{"used_percentage":42.5,"resets_at":1764540000},"seven_day":{"used_percentage":7}}}"#,
        )
        .unwrap();
        assert_eq!(i.session_id.as_deref(), Some("abc"));
        assert_eq!(i.transcript_path, Some(PathBuf::from("/t/x.jsonl")));
        assert_eq!(i.model.as_deref(), Some("claude-opus-4-6"));
        assert_eq!(i.cost_usd, Some(1.5));
        assert_eq!(i.five_hour, Some(Window { used_pct: 42.5, resets_at: Some(1_764_540_000) }));
        assert_eq!(i.seven_day, Some(Window { used_pct: 7.0, resets_at: None }));
    }

    #[test]
    fn prompt_cache_and_spend_limit_are_read() {
        let i = parse(
            br#"{"prompt_cache":{"warm":false,"ttl":"1h","expires_at":1788612495,"recache_tokens_if_cold":250000,
            "last_miss_cause":{"causes":["tools_changed","x\u001b[31m"],"tools_added":2}},
            "rate_limits":{"spend_limit":{"used_percentage":104,"resets_at":1789160400}}}"#,
        )
        .unwrap();
        let pc = i.prompt_cache.unwrap();
        assert_eq!((pc.warm, pc.ttl_s, pc.expires_at), (false, Some(3600), Some(1_788_612_495)));
        assert_eq!(pc.recache_tokens_if_cold, Some(250_000));
        assert_eq!(pc.last_miss_causes, ["tools_changed", "x31m"]);
        assert_eq!(i.spend_limit, Some(Window { used_pct: 104.0, resets_at: Some(1_789_160_400) }));
        let odd = parse(br#"{"prompt_cache":{"warm":"yes","ttl":"1h"}}"#).unwrap();
        assert_eq!(odd.prompt_cache, None, "no boolean warm: no prompt_cache");
        let odd =
            parse(br#"{"prompt_cache":{"warm":true,"ttl":7,"expires_at":-5,"recache_tokens_if_cold":-1}}"#).unwrap();
        assert_eq!(odd.prompt_cache, Some(PromptCache { warm: true, ..PromptCache::default() }));
    }

    #[test]
    fn odd_types_read_as_absent_and_garbage_is_refused() {
        let i =
            parse(br#"{"session_id":5,"transcript_path":null,"rate_limits":{"five_hour":{"used_percentage":"x"}}}"#)
                .unwrap();
        assert_eq!(i, StatusInput::default());
        assert_eq!(parse(b"  \n"), Err(InputError::Empty));
        assert_eq!(parse(b"not json"), Err(InputError::NotJson));
        assert_eq!(parse(b"[1]"), Err(InputError::NotJson));
        assert_eq!(parse(&vec![b' '; MAX_INPUT + 1]), Err(InputError::TooLarge(MAX_INPUT)));
    }

    #[test]
    fn control_characters_are_stripped() {
        assert_eq!(strip_controls("a\u{1b}[31mb\u{7}c\u{9b}d"), "a[31mbcd");
        let i = parse(br#"{"session_id":"x\u001b]0;pwned\u0007y"}"#).unwrap();
        assert_eq!(i.session_id.as_deref(), Some("x]0;pwnedy"));
    }
}
