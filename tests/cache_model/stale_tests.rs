//! Tests of cache-model §6: stale at exactly the TTL (not yet) and just
//! after, the premium formula with `T_last` (carried over by a request that
//! wrote nothing, 5m when the lineage never wrote), main threads only, and
//! the ranking.

use super::fixtures::*;
use crate::common::summary::stale_sessions;
use cachewise::analyze::{analyze, StaleSession};
use cachewise::model::Request;
use std::collections::HashMap;

fn stale(reqs: &[Request], now_s: f64) -> Vec<StaleSession> {
    let caches = analyze(reqs, &[], &FakeRates);
    let titles: HashMap<String, String> = [("big".to_string(), "Big one".to_string())].into();
    stale_sessions(reqs, &caches, at(now_s), &titles)
}

#[test]
fn stale_only_after_exactly_the_ttl() {
    let reqs = [main("s", 0.0, [1, 0, 10_000, 0, 10])];
    assert!(stale(&reqs, 3600.0).is_empty());
    let s = stale(&reqs, 3600.001);
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].ttl_s, s[0].prompt_tokens), (3600, 10_001));
    assert_close(s[0].premium_usd, 10_001.0 * 1.9);
    assert_eq!(s[0].last, at(0.0));
    assert_close(s[0].idle_s, 3600.001);
}

#[test]
fn ttl_carried_over_and_default() {
    let carried = [main("s", 0.0, [1, 0, 10_000, 0, 10]), main("s", 10.0, [1, 0, 0, 10_001, 10])];
    assert!(stale(&carried, 3010.0).is_empty());
    let s = stale(&carried, 3610.001);
    assert_eq!(s[0].ttl_s, 3600);
    assert_close(s[0].premium_usd, 10_002.0 * 1.9);
    let never = [main("s", 0.0, [5, 0, 0, 20_000, 10])];
    assert!(stale(&never, 300.0).is_empty());
    let s = stale(&never, 300.5);
    assert_eq!(s[0].ttl_s, 300);
    // v3: its own request within the hour keeps the 20,000-token prefix
    // it read warm; v2 re-wrote everything.
    assert_eq!(s[0].shared_prefix_tokens, 20_000);
    assert_close(s[0].premium_usd, 5.0 * 1.15);
    assert_close(s[0].premium_v2_usd, 20_005.0 * 1.15);
}

#[test]
fn main_threads_only_ranked_by_premium() {
    let reqs = [
        main("small", 0.0, [0, 10_000, 0, 0, 10]),
        main("big", 0.0, [0, 50_000, 0, 0, 10]),
        req("big", "a1", 5000.0, [0, 90_000, 0, 0, 10]),
        req("agents-only", "a2", 0.0, [0, 90_000, 0, 0, 10]),
        with_model(main("unknown", 0.0, [0, 70_000, 0, 0, 10]), UNKNOWN),
    ];
    let s = stale(&reqs, 5000.0);
    let ids: Vec<&str> = s.iter().map(|x| x.session_id.as_str()).collect();
    assert_eq!(ids, ["big", "small", "unknown"]);
    assert_eq!(s[0].title, "Big one");
    assert_eq!(s[0].last, at(0.0));
    assert_close(s[0].premium_usd, 50_000.0 * 1.15);
    assert_eq!(s[2].premium_usd, 0.0);
    assert_eq!(s[1].title, "");
}

#[test]
fn a_compacted_conversation_is_priced_on_what_a_warm_cache_holds_of_its_base_context() {
    use cachewise::analyze::{cold_premium, next_prompt};
    use cachewise::pricing::Rates;
    assert_eq!(next_prompt(128_000, 24_309, None), 128_000);
    // Compacted: the system prompt and tools its lineage first read.
    assert_eq!(next_prompt(128_000, 24_309, Some(53_374.4)), 24_309);
    // None read: the project's base context, at most the last prompt.
    assert_eq!(next_prompt(128_000, 0, Some(53_374.4)), 53_374);
    assert_eq!(next_prompt(10_000, 0, Some(53_374.0)), 10_000, "its own base context was part of its last prompt");
    assert_eq!(next_prompt(10_000, 30_000, Some(53_374.0)), 10_000);
    assert_eq!(next_prompt(10_000, 0, Some(-5.0)), 0);
    // $1 per token input, 1-hour writes 2x, reads 0.1x: 1.9 a token re-written.
    let rates = Rates { input: 1.0, output: 0.0, read_multiplier: 0.1 };
    let p = cold_premium(Some(&rates), 128_000, 53_374, 20_000, true, 3600);
    assert_close(p.premium_usd, (53_374.0 - 20_000.0) * 1.9);
    assert_close(p.premium_v2_usd, 128_000.0 * 1.9);
    assert_eq!(p.shared_prefix_tokens, 20_000);
    let cold = cold_premium(Some(&rates), 128_000, 53_374, 20_000, false, 3600);
    assert_close(cold.premium_usd, 53_374.0 * 1.9);
}
