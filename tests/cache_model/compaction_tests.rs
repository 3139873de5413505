//! Tests of the compaction report (issue item 4): threshold by window, the
//! acompact request matched to its boundary (and the match window's edge),
//! the rebuild after it, and turns left at the median growth.

use super::fixtures::*;
use cachewise::analyze::{analyze, compaction_report, CompactionParams, SessionCompaction};
use cachewise::model::{Compaction, Request};

fn report(reqs: &[Request], comps: &[Compaction], params: &CompactionParams) -> Vec<SessionCompaction> {
    let caches = analyze(reqs, comps, &FakeRates);
    compaction_report(reqs, &caches, comps, params)
}

fn session() -> Vec<Request> {
    vec![
        main("s", 0.0, [0, 0, 10_000, 0, 100]),
        main("s", 60.0, [0, 0, 157_000, 10_000, 100]),
        req("s", "acompact-abc123", 100.0, [1, 500, 0, 167_000, 5000]),
        main("s", 160.0, [1, 0, 20_000, 20_000, 100]),
        main("s", 200.0, [0, 0, 3000, 40_001, 100]),
        main("s", 260.0, [0, 0, 1000, 43_001, 100]),
    ]
}

#[test]
fn compaction_cost_threshold_and_turns_left() {
    let comps = [compaction("s", 150.0)];
    let r = report(&session(), &comps, &CompactionParams::default());
    assert_eq!(r.len(), 1);
    let s = &r[0];
    assert_eq!((s.peak_prompt, s.window_tokens, s.threshold), (167_000, 200_000, 167_000));
    assert_eq!(s.last_prompt, 44_001);
    assert_eq!(s.median_growth, Some(3000.0));
    assert_eq!(s.turns_left, Some(40));
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!((c.requests, c.trigger.as_str(), c.pre_tokens), (1, "auto", Some(167_000)));
    assert_close(c.request_usd, 1.0 + 625.0 + 16_700.0 + 10_000.0);
    assert_eq!(c.rebuild_tokens, 20_001);
    assert_close(c.rebuild_usd, 20_001.0 * 1.9);
    assert_close(c.total_usd, 27_326.0 + 38_001.9);
    assert_close(s.total_usd, c.total_usd);
}

#[test]
fn acompact_match_window_edge() {
    let mut reqs = session();
    reqs[2].time = at(150.0 - 600.0);
    let r = report(&reqs, &[compaction("s", 150.0)], &CompactionParams::default());
    assert_eq!(r[0].compactions[0].requests, 1);
    reqs[2].time = at(150.0 - 600.001);
    let r = report(&reqs, &[compaction("s", 150.0)], &CompactionParams::default());
    assert_eq!(r[0].compactions[0].requests, 0);
    assert_eq!(r[0].compactions[0].rebuild_tokens, 20_001);
    // After the boundary it does not match either.
    reqs[2].time = at(150.5);
    let r = report(&reqs, &[compaction("s", 150.0)], &CompactionParams::default());
    assert_eq!(r[0].compactions[0].requests, 0);
}

#[test]
fn large_window_and_configurable_thresholds() {
    let reqs = [main("s", 0.0, [0, 0, 250_000, 0, 100]), main("s", 60.0, [0, 0, 5000, 250_000, 100])];
    let r = report(&reqs, &[], &CompactionParams::default());
    assert_eq!((r[0].window_tokens, r[0].threshold), (1_000_000, 967_000));
    assert_eq!(r[0].turns_left, Some((967_000 - 255_000) / 5000));
    let params = CompactionParams { window_200k_threshold: 150_000, window_1m_threshold: 300_000 };
    let r = report(&reqs, &[], &params);
    assert_eq!((r[0].threshold, r[0].turns_left), (300_000, Some(9)));
    assert!(r[0].compactions.is_empty());
}

#[test]
fn no_growth_means_no_turns_left_and_past_threshold_means_zero() {
    let flat = [main("s", 0.0, [0, 0, 10_000, 0, 100]), main("s", 60.0, [0, 0, 0, 10_000, 100])];
    let r = report(&flat, &[], &CompactionParams::default());
    assert_eq!((r[0].median_growth, r[0].turns_left), (None, None));
    let over = [main("s", 0.0, [0, 0, 170_000, 0, 100]), main("s", 60.0, [0, 0, 1000, 170_000, 100])];
    let r = report(&over, &[], &CompactionParams::default());
    assert_eq!(r[0].turns_left, Some(0));
}

#[test]
fn microcompacts_are_not_compactions_and_idle_ones_are_named() {
    let comps = [microcompact("s", 150.0), compaction("s", 155.0)];
    let r = report(&session(), &comps, &CompactionParams::default());
    assert_eq!(r[0].compactions.len(), 1, "the microcompact is not a compaction");
    // Written `auto`, 3000 s after the main thread's last request (260 s): idle.
    let idle = [compaction_with("s", 3260.0, Some("auto"))];
    let r = report(&session(), &idle, &CompactionParams::default());
    assert_eq!(r[0].compactions[0].trigger, "idle");
    let manual = [compaction_with("s", 3260.0, Some("manual"))];
    assert_eq!(report(&session(), &manual, &CompactionParams::default())[0].compactions[0].trigger, "manual");
}

/// A session of 177k tokens growing 5,000 a turn, on `model`.
fn at_177k(model: &str) -> Vec<Request> {
    let mut reqs = vec![main("s", 0.0, [0, 0, 172_000, 0, 100]), main("s", 60.0, [0, 0, 5000, 172_000, 100])];
    reqs.iter_mut().for_each(|r| r.model = model.into());
    reqs
}

fn report_one(reqs: &[Request], comps: &[Compaction]) -> SessionCompaction {
    report(reqs, comps, &CompactionParams::default()).remove(0)
}

#[test]
fn a_model_claude_code_runs_at_1m_compacts_at_967k_though_its_prompt_never_passed_200k() {
    for model in ["claude-fable-5", "claude-opus-4-8", "claude-opus-5-7", "claude-sonnet-5-20261001"] {
        let r = report_one(&at_177k(model), &[]);
        assert_eq!((r.window_tokens, r.threshold), (1_000_000, 967_000), "{model}");
        assert_eq!(r.turns_left, Some((967_000 - 177_000) / 5000));
    }
    // Models of a 200k window by default: a prompt under 200k is past 167k.
    for model in ["claude-opus-4-6", "claude-sonnet-4-6", "claude-haiku-4-5-20251001", M1] {
        let r = report_one(&at_177k(model), &[]);
        assert_eq!((r.window_tokens, r.threshold, r.turns_left), (200_000, 167_000, Some(0)), "{model}");
    }
}

#[test]
fn the_sessions_own_automatic_compaction_is_its_threshold() {
    // Compacted by itself at 167k (a 200k provider, or 1M turned off): the
    // history outweighs the model's default.
    let mut reqs = at_177k("claude-opus-5");
    reqs.insert(0, main("s", -100.0, [0, 0, 20_000, 0, 100]));
    reqs[0].model = "claude-opus-5".into();
    let comps = [compaction_with("s", -50.0, Some("auto"))];
    let r = report_one(&reqs, &comps);
    assert_eq!((r.window_tokens, r.threshold), (200_000, 167_000));
    // Compacted at 400k (`/autocompact 400k`): that is the threshold.
    let mut comps = comps;
    comps[0].pre_tokens = Some(400_000);
    let r = report_one(&reqs, &comps);
    assert_eq!((r.window_tokens, r.threshold), (1_000_000, 400_000));
    assert_eq!(r.turns_left, Some((400_000 - 177_000) / 5000));
    // A manual compaction says nothing of the threshold.
    let r = report_one(&reqs, &[compaction_with("s", -50.0, Some("manual"))]);
    assert_eq!((r.window_tokens, r.threshold), (1_000_000, 967_000));
}

#[test]
fn a_stored_report_is_read_with_the_rule_of_the_release_reading_it() {
    // A report an earlier release wrote (200k window for any prompt under
    // 200k) reads as this release computes it.
    let fresh = report_one(&at_177k("claude-fable-5"), &[]);
    let mut stored =
        SessionCompaction { window_tokens: 200_000, threshold: 167_000, turns_left: Some(0), ..fresh.clone() };
    stored.set_window(&CompactionParams::default());
    assert_eq!(stored, fresh);
}
