//! The scenarios: each drives Claude Code through a session and checks
//! what cachewise makes of it against the fake API's ledger.

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
