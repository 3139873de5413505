//! Tests of cache-model §7: warm/cold at exactly the TTL, each option's
//! total by hand, the recommendation (ties to resume), the break-even, the
//! history premium, and the inputs (medians, G default, S floor and
//! fallback, project scope).

use super::fixtures::*;
use crate::common::summary::advise;
use cachewise::analyze::{analyze, Advice, InputSource, Recommendation};
use cachewise::model::{Compaction, Request};

fn advice(reqs: &[Request], comps: &[Compaction], now_s: f64, turns: u32) -> Advice {
    let caches = analyze(reqs, comps, &FakeRates);
    advise("s1", reqs, &caches, &FakeRates, at(now_s), turns).unwrap()
}

/// s1: P = 15000 after growths 1000 and 4000 (G = 2500), O = 200, 1h.
/// s2 (same project): first P = 6000, after-compaction P = 13000.
/// s3 (other project): first P = 100000, ignored.
fn scenario_a() -> (Vec<Request>, Vec<Compaction>) {
    let reqs = vec![
        main("s1", 0.0, [0, 0, 10_000, 0, 100]),
        main("s1", 60.0, [0, 0, 1000, 10_000, 300]),
        main("s1", 120.0, [0, 0, 4000, 11_000, 200]),
        main("s2", -10_000.0, [0, 0, 6000, 0, 50]),
        main("s2", -9000.0, [0, 0, 13_000, 0, 50]),
        with_project(main("s3", -5000.0, [0, 0, 100_000, 0, 50]), "p2"),
    ];
    (reqs, vec![compaction("s2", -9500.0)])
}

#[test]
fn warm_at_exactly_the_ttl() {
    let (reqs, comps) = scenario_a();
    let a = advice(&reqs, &comps, 120.0 + 3600.0, 10);
    assert!(a.warm);
    assert_eq!((a.ttl_s, a.last, a.expires_at), (3600, at(120.0), at(3720.0)));
    let i = &a.inputs;
    assert_eq!(i.prompt_tokens, 15_000);
    assert_eq!((i.growth_tokens, i.growth_source), (2500.0, InputSource::Session));
    assert_eq!(i.output_tokens, 200.0);
    assert_eq!((i.base_context_tokens, i.base_context_source), (8000.0, InputSource::Project));
    assert_eq!((i.summary_tokens, i.summary_source), (5000.0, InputSource::Project));
    assert_eq!((i.write_multiplier, i.read_multiplier), (2.0, 0.1));
    assert_close(a.options.resume_usd, 80_250.0);
    assert_close(a.options.compact_usd, 99_250.0);
    // v3: a restart writes its base context (nothing of it is warm: s1's
    // lineage read nothing when it started).
    assert_eq!(a.shared_prefix_tokens, 0);
    assert_close(a.options.restart_usd, 73_250.0 + 8000.0 * 1.9);
    assert_eq!(a.recommendation, Recommendation::Resume);
    assert_eq!(a.break_even_turns, Some(106));
    assert_close(a.history_premium_usd, 80_250.0 - 88_450.0);
    assert!(a.explanation.contains("warm"), "{}", a.explanation);
}

#[test]
fn cold_just_after_the_ttl() {
    let (reqs, comps) = scenario_a();
    let a = advice(&reqs, &comps, 120.0 + 3600.001, 10);
    assert!(!a.warm);
    assert_close(a.options.resume_usd, 80_250.0 + 15_000.0 * 1.9);
    assert_close(a.options.compact_usd, 78_250.0 + 30_000.0 + 10_000.0 + 9500.0);
    assert_close(a.options.restart_usd, 73_250.0 + 8000.0 * 1.9);
    assert_eq!(a.recommendation, Recommendation::Resume);
    assert_eq!(a.break_even_turns, Some(106));
    assert_close(a.history_premium_usd, 35_500.0 - 8000.0 * 1.9);
    assert!(a.explanation.contains("expired"), "{}", a.explanation);
}

/// s1: P = 100000, no growth (G = 2000 default), O = 200, 1h carried.
/// Project firsts 100000, 6000, 8000, 7000 (Bc = 7500); s2 compaction 13000.
fn scenario_b() -> (Vec<Request>, Vec<Compaction>) {
    let reqs = vec![
        main("s1", 0.0, [0, 0, 100_000, 0, 100]),
        main("s1", 60.0, [0, 0, 0, 100_000, 300]),
        main("s2", -10_000.0, [0, 0, 6000, 0, 50]),
        main("s2", -9000.0, [0, 0, 13_000, 0, 50]),
        main("s3", -8000.0, [0, 0, 8000, 0, 50]),
        main("s4", -7000.0, [0, 0, 7000, 0, 50]),
    ];
    (reqs, vec![compaction("s2", -9500.0)])
}

#[test]
fn compact_recommended_with_break_even_and_default_growth() {
    let (reqs, comps) = scenario_b();
    let a = advice(&reqs, &comps, 100.0, 10);
    assert!(a.warm);
    assert_eq!((a.inputs.growth_tokens, a.inputs.growth_source), (2000.0, InputSource::Default));
    assert_eq!((a.inputs.base_context_tokens, a.inputs.summary_tokens), (7500.0, 5500.0));
    assert_close(a.options.resume_usd, 153_000.0);
    assert_close(a.options.compact_usd, 97_450.0);
    assert_close(a.options.restart_usd, 60_500.0 + 7500.0 * 1.9);
    assert_eq!(a.recommendation, Recommendation::Compact);
    assert_eq!(a.break_even_turns, Some(4));
    assert_close(a.history_premium_usd, 36_950.0 - 7500.0 * 1.9);
    // At the break-even horizon compact wins; one turn earlier it does not.
    assert_eq!(advice(&reqs, &comps, 100.0, 4).recommendation, Recommendation::Compact);
    assert_eq!(advice(&reqs, &comps, 100.0, 3).recommendation, Recommendation::Resume);
}

#[test]
fn summary_floor_and_fallback() {
    let (mut reqs, comps) = scenario_a();
    reqs[4] = main("s2", -9000.0, [0, 0, 9000, 0, 50]);
    let a = advice(&reqs, &comps, 200.0, 10);
    assert_eq!((a.inputs.summary_tokens, a.inputs.summary_source), (2000.0, InputSource::Project));
    let a = advice(&reqs, &[], 200.0, 10);
    assert_eq!(a.inputs.summary_source, InputSource::Default);
    assert_close(a.inputs.summary_tokens, 1500.0);
}

#[test]
fn all_sessions_when_the_project_has_none() {
    let (mut reqs, comps) = scenario_a();
    // s1's last request moved to project p9: no p9 first or compaction.
    reqs[2] = with_project(reqs[2].clone(), "p9");
    let a = advice(&reqs, &comps, 200.0, 10);
    assert_eq!(a.inputs.base_context_source, InputSource::AllSessions);
    // Firsts of all sessions: 10000, 6000, 100000 -> 10000.
    assert_eq!(a.inputs.base_context_tokens, 10_000.0);
    // `S` never comes from other projects' compactions (§7 v3): 10% of P.
    assert_eq!((a.inputs.summary_tokens, a.inputs.summary_source), (1500.0, InputSource::Default));
}

#[test]
fn growth_ignores_misses_and_median_of_even_count() {
    let reqs = [
        main("s1", 0.0, [0, 0, 10_000, 0, 100]),
        main("s1", 60.0, [0, 0, 1000, 10_000, 100]),
        main("s1", 4000.0, [0, 0, 50_000, 0, 100]),
        main("s1", 4060.0, [0, 0, 2000, 50_000, 400]),
    ];
    let a = advice(&reqs, &[], 4100.0, 10);
    assert_eq!(a.inputs.growth_tokens, 1500.0);
    assert_eq!(a.inputs.output_tokens, 100.0);
}

#[test]
fn unknown_model_is_a_tie_going_to_resume() {
    let reqs = [with_model(main("s1", 0.0, [0, 0, 10_000, 0, 100]), UNKNOWN)];
    let a = advice(&reqs, &[], 10_000.0, 10);
    assert!(!a.inputs.priced);
    assert_eq!((a.options.resume_usd, a.options.compact_usd, a.options.restart_usd), (0.0, 0.0, 0.0));
    assert_eq!(a.recommendation, Recommendation::Resume);
    assert_eq!(a.break_even_turns, None);
    assert!(a.explanation.contains("No price"));
}

#[test]
fn no_main_thread_no_advice_and_json_keys() {
    let reqs = [req("s1", "a1", 0.0, [0, 0, 10_000, 0, 100])];
    let caches = analyze(&reqs, &[], &FakeRates);
    assert!(advise("s1", &reqs, &caches, &FakeRates, at(0.0), 10).is_none());
    let (reqs, comps) = scenario_a();
    let v = serde_json::to_value(advice(&reqs, &comps, 200.0, 10)).unwrap();
    assert_eq!(v["session_id"], "s1");
    assert_eq!(v["warm"], true);
    assert_eq!(v["expires_at"], "2026-02-01T11:02:00Z");
    assert_eq!(v["turns"], 10);
    for k in ["resume_usd", "compact_usd", "restart_usd"] {
        assert!(v["options"][k].is_number());
    }
    assert_eq!(v["recommendation"], "resume");
    assert_eq!(v["break_even_turns"], 106);
    assert!(v["history_premium_usd"].is_number());
}

#[test]
fn one_turn_is_said_in_the_singular() {
    let (reqs, comps) = scenario_a();
    let a = advice(&reqs, &comps, 120.0 + 3600.0, 1);
    let e = &a.explanation;
    assert!(e.contains(" Over 1 turn: resume "), "{e}");
    assert!(e.contains(" over 1 turn."), "{e}");
    assert!(!e.contains("1 turns"), "{e}");
    assert!(e.contains("only after 106 turns."), "{e}");
}
