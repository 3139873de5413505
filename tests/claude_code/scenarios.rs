//! The scenarios: each drives Claude Code through a session and checks
//! what cachewise makes of it against the fake API's ledger.

use super::cache::{Cause, Ttl};
use super::checks::{self, MARKER};
use super::*;

#[test]
fn claude_code_runs_only_in_a_namespace_with_loopback_alone() {
    let Some(h) = Harness::start() else { return };
    assert_eq!(h.ns.interfaces(), vec!["lo".to_owned()]);
    let me = h.client("solo");
    let out = h.run(&me, at(0), &["-p", "say hello"]);
    assert!(out.contains("Answer 1."), "{out}");
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 1, "{ledger:?}");
    assert_eq!(h.fake.paths(), vec!["/v1/messages".to_owned()]);
    assert_eq!(me.transcripts().len(), 1);
}

#[test]
fn claude_code_turns_with_a_tool_call_are_counted_and_classified() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("turns");
    let first = format!("remember {MARKER} [[pad:2000]]");
    let s = h.begin(&me, at(0), &["-p", &first]);
    let tool = format!("[[bash:echo {MARKER}]]");
    h.resume(&me, &s, at(1), &["-p", &tool, "--allowedTools", "Bash"]);
    h.resume(&me, &s, at(3), &["-p", "and again"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 4, "a turn, a tool call and its result, a turn");
    assert!(ledger[1..].iter().all(|c| c.cause == Cause::Hit), "{ledger:?}");
    checks::all(&h, &me, at(10));
}

#[test]
fn claude_code_an_idle_gap_past_five_minutes_is_an_expired_cache() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("idle");
    let s = h.begin(&me, at(0), &["-p", "start [[pad:5000]]"]);
    h.resume(&me, &s, at(20), &["-p", "back after twenty minutes"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger[1].cause, Cause::Expired(Ttl::FiveMinutes));
    let seen = checks::all(&h, &me, at(30));
    assert_eq!(seen.rows[&ledger[1].message_id]["class"], "ttl_5m");
}
