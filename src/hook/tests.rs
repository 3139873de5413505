//! The hook's input: what is read, what is refused, and which sources get
//! an answer.

use super::*;
use serde_json::Value;

#[test]
fn a_resume_is_read_with_claude_codes_estimate() {
    let i = parse(
        br#"{"session_id":"abc","transcript_path":"/t/abc.jsonl","cwd":"/w","hook_event_name":"SessionStart",
        "source":"resume","seconds_since_last_response":23040,"context_tokens":158800,
        "prompt_cache_likely_expired":true,"estimated_cache_write_usd":1.02,"new_field":{"x":1}}"#,
    )
    .unwrap();
    assert_eq!(
        i,
        SessionStart { session_id: "abc".into(), source: "resume".into(), estimated_cache_write_usd: Some(1.02) }
    );
    assert!(i.answers());
    let fork = SessionStart { source: "fork".into(), ..i.clone() };
    assert!(fork.answers());
    for other in ["startup", "clear", "compact", ""] {
        assert!(!SessionStart { source: other.into(), ..i.clone() }.answers(), "{other}");
    }
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    assert_eq!(parse(b""), Err(HookInputError::Input(StdinError::Empty)));
    assert_eq!(parse(b" \n"), Err(HookInputError::Input(StdinError::Empty)));
    assert_eq!(parse(b"\x1b[2J garbage {"), Err(HookInputError::Input(StdinError::NotJson)));
    assert_eq!(parse(b"[1,2]"), Err(HookInputError::Input(StdinError::NotJson)));
    assert_eq!(parse(br#"{"source":"resume"}"#), Err(HookInputError::NoSession));
    assert_eq!(parse(&vec![b' '; MAX_INPUT + 1]), Err(HookInputError::Input(StdinError::TooLarge(MAX_INPUT))));
    let odd = parse(br#"{"session_id":"a\u001b[31mb","source":"resume","estimated_cache_write_usd":-3}"#).unwrap();
    assert_eq!((odd.session_id.as_str(), odd.estimated_cache_write_usd), ("a[31mb", None));
}

#[test]
fn the_answer_holds_only_a_system_message() {
    let v: Value = serde_json::from_str(&answer("one \u{1b}[31mline\ntwo")).unwrap();
    assert_eq!(v, json!({"systemMessage": "one [31mline\ntwo"}));
}
