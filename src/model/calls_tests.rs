//! `cache_calls`: the thread requests of one response (cache-model v2 §1).
#![allow(clippy::unwrap_used)]

use super::*;
use chrono::{TimeZone, Utc};

fn tok(input: u64, w5: u64, w1h: u64, read: u64, output: u64) -> TokenCounts {
    TokenCounts { input, cache_write_5m: w5, cache_write_1h: w1h, cache_read: read, output }
}

pub(crate) fn request(model: &str, tokens: TokenCounts) -> Request {
    Request {
        time: Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap(),
        session_id: "s".into(),
        thread: crate::model::MAIN_THREAD.into(),
        project: "p".into(),
        cwd: "/p".into(),
        git_branch: Default::default(),
        version: "2.1.200".into(),
        model: model.into(),
        tokens,
        web_search: 0,
        speed: Default::default(),
        inference_geo: Default::default(),
        server_reason: Default::default(),
        server_missed_tokens: None,
        is_sidechain: false,
        cost_usd: 0.0,
        source: "f.jsonl".into(),
        line: 7,
        message_id: "msg_1".into(),
        request_id: "req_1".into(),
        user: Default::default(),
        machine: Default::default(),
        client: Default::default(),
    }
}

/// A call row of `r`'s line (shared with other modules' tests).
pub(crate) fn call(r: &Request, index: u32, kind: &str, model: &str, tokens: TokenCounts) -> Call {
    Call {
        user: r.user.clone(),
        message_id: r.message_id.clone(),
        request_id: r.request_id.clone(),
        source: r.source.clone(),
        line: r.line,
        index,
        kind: kind.into(),
        model: model.into(),
        tokens,
        cost_usd: 0.0,
    }
}

#[test]
fn a_request_without_calls_is_one_call() {
    let r = request("claude-opus-4-8", tok(3, 10, 0, 500, 40));
    assert_eq!(cache_calls(&r, &[]), [CacheCall { model: "claude-opus-4-8".into(), tokens: r.tokens }]);
}

#[test]
fn the_advisor_belongs_to_no_thread_and_calls_keep_list_order() {
    let r = request("claude-opus-4-8", tok(0, 0, 0, 0, 0));
    let (a, b) = (tok(2, 3176, 0, 40_000, 300), tok(1, 0, 931, 43_176, 200));
    // Stored out of order, with another request's row mixed in.
    let mut other = call(&r, 0, MESSAGE, "claude-opus-4-8", tok(9, 9, 9, 9, 9));
    other.line = 8;
    let rows = [
        call(&r, 2, MESSAGE, "claude-opus-4-8", b),
        other,
        call(&r, 1, ADVISOR, "claude-fable-5", tok(149_112, 0, 0, 0, 14_153)),
        call(&r, 0, MESSAGE, "", a),
    ];
    let calls = cache_calls(&r, &rows);
    assert_eq!(
        calls,
        [
            CacheCall { model: "claude-opus-4-8".into(), tokens: a },
            CacheCall { model: "claude-opus-4-8".into(), tokens: b }
        ]
    );
}

#[test]
fn a_refused_attempt_and_its_fallback_are_two_calls_on_their_models() {
    let r = request("claude-opus-4-8", tok(0, 0, 0, 0, 0));
    let refused = tok(3, 0, 21_874, 32_238, 12);
    let fallback = tok(3, 0, 0, 54_112, 800);
    let rows = [call(&r, 0, MESSAGE, "claude-fable-5", refused), call(&r, 1, FALLBACK, "claude-opus-4-8", fallback)];
    let calls = cache_calls(&r, &rows);
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].model.as_str(), calls[0].tokens), ("claude-fable-5", refused));
    assert_eq!((calls[1].model.as_str(), calls[1].tokens), ("claude-opus-4-8", fallback));
}

#[test]
fn one_plain_call_equal_to_the_request_is_redundant() {
    let t = tok(3, 10, 0, 500, 40);
    let one = |kind: &str, m: &str, t: TokenCounts| vec![(Text::from(kind), Text::from(m), t)];
    assert!(redundant(&one(MESSAGE, "claude-opus-4-8", t), "claude-opus-4-8", &t));
    assert!(redundant(&one(MESSAGE, "", t), "claude-opus-4-8", &t));
    assert!(!redundant(&one(MESSAGE, "claude-fable-5", t), "claude-opus-4-8", &t));
    assert!(!redundant(&one(ADVISOR, "claude-opus-4-8", t), "claude-opus-4-8", &t));
    assert!(!redundant(&one(MESSAGE, "claude-opus-4-8", tok(3, 0, 10, 500, 40)), "claude-opus-4-8", &t));
    assert!(!redundant(&[], "claude-opus-4-8", &t));
}

#[test]
fn calls_of_finds_a_lines_calls_in_the_sorted_table() {
    let r = request("claude-opus-4-8", tok(0, 0, 0, 0, 0));
    let mut before = call(&r, 0, MESSAGE, "", tok(1, 0, 0, 0, 0));
    before.line = 6;
    let mut after = call(&r, 0, MESSAGE, "", tok(2, 0, 0, 0, 0));
    after.line = 8;
    let own =
        [call(&r, 0, MESSAGE, "", tok(3, 0, 0, 0, 0)), call(&r, 1, ADVISOR, "claude-fable-5", tok(4, 0, 0, 0, 0))];
    let sorted = [before, own[0].clone(), own[1].clone(), after];
    assert_eq!(calls_of(&sorted, &r), own);
    let mut other = r.clone();
    other.line = 9;
    assert!(calls_of(&sorted, &other).is_empty());
    assert_eq!(cache_calls(&r, calls_of(&sorted, &r)).len(), 1, "the advisor belongs to no thread");
}
