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
}

/// Why the input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("no input on stdin")]
    Empty,
    #[error("input larger than {MAX_INPUT} bytes")]
    TooLarge,
    #[error("input is not a JSON object")]
    NotJson,
}

/// Parses the status-line JSON.
pub fn parse(bytes: &[u8]) -> Result<StatusInput, InputError> {
    if bytes.len() > MAX_INPUT {
        return Err(InputError::TooLarge);
    }
    if bytes.trim_ascii().is_empty() {
        return Err(InputError::Empty);
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|_| InputError::NotJson)?;
    if !v.is_object() {
        return Err(InputError::NotJson);
    }
    Ok(StatusInput {
        session_id: text(&v["session_id"]),
        transcript_path: text(&v["transcript_path"]).map(PathBuf::from),
        model: text(&v["model"]["id"]),
        cost_usd: number(&v["cost"]["total_cost_usd"]).filter(|c| *c >= 0.0),
        five_hour: window(&v["rate_limits"]["five_hour"]),
        seven_day: window(&v["rate_limits"]["seven_day"]),
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
    fn odd_types_read_as_absent_and_garbage_is_refused() {
        let i =
            parse(br#"{"session_id":5,"transcript_path":null,"rate_limits":{"five_hour":{"used_percentage":"x"}}}"#)
                .unwrap();
        assert_eq!(i, StatusInput::default());
        assert_eq!(parse(b"  \n"), Err(InputError::Empty));
        assert_eq!(parse(b"not json"), Err(InputError::NotJson));
        assert_eq!(parse(b"[1]"), Err(InputError::NotJson));
        assert_eq!(parse(&vec![b' '; MAX_INPUT + 1]), Err(InputError::TooLarge));
    }

    #[test]
    fn control_characters_are_stripped() {
        assert_eq!(strip_controls("a\u{1b}[31mb\u{7}c\u{9b}d"), "a[31mbcd");
        let i = parse(br#"{"session_id":"x\u001b]0;pwned\u0007y"}"#).unwrap();
        assert_eq!(i.session_id.as_deref(), Some("x]0;pwnedy"));
    }
}
