//! Tests of cache-model §7 v2 (what Claude Code will do), each flag at its
//! boundary (100,000 and 200,000 tokens, 3240 s and 3600 s), and of the one
//! money function behind the stale premium and the advice's cold resume.

use super::fixtures::*;
use crate::common::summary::advise_with;
use crate::common::summary::stale_sessions;
use cachewise::analyze::{analyze, claude_code, rewrite_premium, Advice, ClaudeCode, RateSource};
use cachewise::model::{Compaction, Request};
use cachewise::pricing::Rates;
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::HashMap;

/// A one-request session whose last prompt is `p` tokens, written with 1h
/// (`one_hour`) or 5m, at t = 0.
fn last(p: u64, one_hour: bool) -> Request {
    if one_hour {
        main("s1", 0.0, [0, 0, p, 0, 10])
    } else {
        main("s1", 0.0, [0, p, 0, 0, 10])
    }
}

fn flags(p: u64, one_hour: bool, now_s: f64, comps: &[Compaction]) -> ClaudeCode {
    let reqs = [last(p, one_hour)];
    let caches = analyze(&reqs, comps, &FakeRates);
    claude_code(&reqs[0], caches[0].ttl_after_s, comps, at(now_s))
}

#[test]
fn resume_dialog_above_100000_tokens_after_more_than_3600_s() {
    assert!(!flags(100_000, true, 3601.0, &[]).resume_dialog, "exactly 100,000: no dialog");
    assert!(flags(100_001, true, 3601.0, &[]).resume_dialog);
    assert!(!flags(100_001, true, 3600.0, &[]).resume_dialog, "exactly 3600 s: no dialog");
    assert!(flags(100_001, false, 3600.001, &[]).resume_dialog, "whatever the TTL");
}

#[test]
fn idle_compaction_at_3240_s_from_200000_tokens_on_a_1h_cache() {
    let due = Some(at(3240.0));
    assert_eq!(flags(200_000, true, 0.0, &[]).idle_compaction_at, due);
    assert_eq!(flags(200_000, true, 3240.0, &[]).idle_compaction_at, due, "at 3240 s: still ahead");
    assert_eq!(flags(200_000, true, 3240.001, &[]).idle_compaction_at, None);
    assert_eq!(flags(199_999, true, 100.0, &[]).idle_compaction_at, None, "below 200,000");
    assert_eq!(flags(250_000, false, 100.0, &[]).idle_compaction_at, None, "a 5m cache");
}

#[test]
fn compacted_since_needs_a_compaction_after_the_last_request() {
    assert!(!flags(50_000, true, 10.0, &[compaction("s1", 0.0)]).compacted_since, "at t_last: not after it");
    assert!(flags(50_000, true, 10.0, &[compaction("s1", 0.001)]).compacted_since);
    assert!(flags(50_000, true, 99_999.0, &[compaction("s1", 5.0)]).compacted_since, "whatever now is");
    assert!(!flags(50_000, true, 10.0, &[microcompact("s1", 5.0)]).compacted_since);
    assert!(!flags(50_000, true, 10.0, &[compaction("s2", 5.0)]).compacted_since);
}

#[test]
fn advice_carries_the_flags_and_names_the_dialog_options() {
    let reqs = [last(150_000, true)];
    let caches = analyze(&reqs, &[], &FakeRates);
    let a = advise_with("s1", &reqs, &caches, &[], &FakeRates, at(7200.0), 10).unwrap();
    assert!(a.claude_code.resume_dialog);
    assert!(a.explanation.contains("Resume from summary") && a.explanation.contains("Resume full session as-is"));
    let v = serde_json::to_value(&a).unwrap();
    assert_eq!(v["claude_code"]["resume_dialog"], true);
    assert_eq!(v["claude_code"]["idle_compaction_at"], serde_json::Value::Null);
    assert_eq!(v["claude_code"]["compacted_since"], false);
    let big = [last(250_000, true)];
    let caches = analyze(&big, &[], &FakeRates);
    let a = advise_with("s1", &big, &caches, &[], &FakeRates, at(60.0), 10).unwrap();
    assert_eq!(a.claude_code.idle_compaction_at, Some(at(3240.0)));
    assert!(a.explanation.contains("Claude Code will compact"), "{}", a.explanation);
}

/// Prices whose requests pay 1.1x (a `us` inference_geo) over the base list.
struct GeoRates;

impl RateSource for GeoRates {
    fn request_rates(&self, _: &Request) -> Option<Rates> {
        Some(Rates { input: 1.1, output: 2.2, read_multiplier: 0.1 })
    }
    fn base_rates(&self, _: &str, _: DateTime<Utc>) -> Option<Rates> {
        Some(RATES)
    }
}

fn cold(rates: &dyn RateSource) -> (f64, Advice) {
    let reqs = [last(10_001, true)];
    let caches = analyze(&reqs, &[], rates);
    let now = at(0.0) + TimeDelta::hours(5);
    let stale = stale_sessions(&reqs, &caches, now, &HashMap::new());
    let a = advise_with("s1", &reqs, &caches, &[], rates, now, 10).unwrap();
    (stale[0].premium_usd, a)
}

#[test]
fn money_in_one_function_stale_premium_and_cold_resume() {
    // Same prices: the stale premium and the advice's cold resume are the
    // same number to the last bit, 10,001 * (2 - 0.1) * $1.
    let (premium, a) = cold(&FakeRates);
    assert_eq!(premium, a.cold_resume_usd);
    assert_eq!(premium, rewrite_premium(Some(&RATES), 10_001.0, 3600));
    assert_close(premium, 19_001.9);
    assert!(a.explanation.contains("$19,001.90 more than a warm read"), "{}", a.explanation);
    // The resume option's one-off cost is that figure too.
    let resume_turns = a.options.resume_usd - a.cold_resume_usd;
    let warm_resume = advise_with(
        "s1",
        &[last(10_001, true)],
        &analyze(&[last(10_001, true)], &[], &FakeRates),
        &[],
        &FakeRates,
        at(1.0),
        10,
    )
    .unwrap();
    assert_close(resume_turns, warm_resume.options.resume_usd);
    // A request that paid 1.1x: the stale premium and the advice's cold
    // resume are one figure at the rates it paid (one number everywhere).
    let (premium, a) = cold(&GeoRates);
    assert_close(premium, 1.1 * 19_001.9);
    assert_eq!(a.cold_resume_usd, premium);
}
