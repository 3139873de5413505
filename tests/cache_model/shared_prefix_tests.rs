//! Cache model v3 at its edges: the shared prefix `Rs` with and without
//! another thread within the hour, a restart whose warm prefix exceeds its
//! base context, the advice at the session's own rates (fast mode),
//! resumability (past cleanup, deleted transcript, cleanup 0 and 7), the
//! keep-warm pings at `g = T-30, T, 2T`, gaps over 8 hours left out, and
//! the backtest's figures.

use super::fixtures::*;
use crate::common::summary::{advise, stale_sessions, summarize, utc_day, SummaryOptions};
use cachewise::analyze::{analyze, pings, resumability, Expiry, KeepWarmTally, NotResumable, KEEP_WARM_MAX_GAP_S};
use cachewise::pricing::PriceTable;
use chrono::TimeDelta;
use std::collections::HashMap;

/// A session `s` whose main thread starts reading 20,000 tokens of shared
/// prefix and ends at `t0 + 1000 s` with a 100,000-token prompt (5m TTL).
fn session(s: &str) -> Vec<cachewise::model::Request> {
    vec![main(s, 0.0, [10, 5_000, 0, 20_000, 100]), main(s, 1000.0, [10, 79_990, 0, 20_000, 100])]
}

#[test]
fn the_stale_premium_leaves_out_the_shared_prefix_only_while_another_thread_keeps_it_warm() {
    let titles = HashMap::new();
    // Two hours after the last request, no other request within the hour: Rs = 0.
    let alone = session("a");
    let caches = analyze(&alone, &[], &FakeRates);
    let now = at(1000.0 + 7200.0);
    let st = &stale_sessions(&alone, &caches, now, &titles)[0];
    assert_eq!(st.shared_prefix_tokens, 0);
    assert_close(st.premium_usd, 100_000.0 * (1.25 - 0.1));
    assert_close(st.premium_v2_usd, st.premium_usd);
    // Another session of the same model and version 10 minutes before now: Rs = 20,000.
    let mut both = session("a");
    both.push(main("b", 1000.0 + 7200.0 - 600.0, [10, 100, 0, 20_000, 100]));
    let caches = analyze(&both, &[], &FakeRates);
    let st = stale_sessions(&both, &caches, now, &titles).into_iter().find(|s| s.session_id == "a").unwrap();
    assert_eq!(st.shared_prefix_tokens, 20_000);
    assert_close(st.premium_usd, 80_000.0 * (1.25 - 0.1));
    assert_close(st.premium_v2_usd, 100_000.0 * (1.25 - 0.1));
    // Another version does not share the prefix.
    let mut other = session("a");
    other.push(with_version(main("b", 1000.0 + 7200.0 - 600.0, [10, 100, 0, 20_000, 100]), "2.2.0"));
    let caches = analyze(&other, &[], &FakeRates);
    let st = stale_sessions(&other, &caches, now, &titles).into_iter().find(|s| s.session_id == "a").unwrap();
    assert_eq!(st.shared_prefix_tokens, 0);
    // Within the hour after its own last request (a 5-minute expiry), the session keeps its own prefix warm.
    let own = stale_sessions(&alone, &analyze(&alone, &[], &FakeRates), at(1000.0 + 900.0), &titles);
    assert_eq!(own[0].shared_prefix_tokens, 20_000);
}

#[test]
fn the_advice_prices_resume_and_restart_with_the_warm_prefix() {
    let mut rows = session("a");
    rows.push(main("b", 1000.0 + 3000.0, [10, 100, 0, 20_000, 100]));
    let caches = analyze(&rows, &[], &FakeRates);
    let a = advise("a", &rows, &caches, &FakeRates, at(1000.0 + 3600.0), 10).unwrap();
    assert!(!a.warm);
    assert_eq!(a.shared_prefix_tokens, 20_000);
    assert_close(a.cold_resume_usd, 80_000.0 * 1.15);
    assert_close(a.cold_resume_v2_usd, 100_000.0 * 1.15);
    // The resume option's one-off cost is the stale premium (same rates).
    let t = a.inputs.growth_tokens;
    let per_turn =
        |c0: f64, n: f64| (n * c0 + t * n * (n - 1.0) / 2.0) * 0.1 + n * (t * 1.25 + a.inputs.output_tokens * 2.0);
    assert_close(a.options.resume_usd, a.cold_resume_usd + per_turn(100_000.0, 10.0));
    // Bc, the median first prompt of the project (25,010 and 20,110), is above Rs.
    let bc = a.inputs.base_context_tokens;
    assert_close(bc, (25_010.0 + 20_110.0) / 2.0);
    assert_close(a.options.restart_usd, (bc - 20_000.0) * 1.15 + per_turn(bc, 10.0));
}

#[test]
fn a_fast_mode_session_gets_advice_at_its_own_rates() {
    let prices = PriceTable::embedded().unwrap();
    let mut rows: Vec<_> = session("f").into_iter().map(|r| with_model(r, "claude-opus-4-8")).collect();
    for r in &mut rows {
        r.speed = "fast".into();
    }
    let caches = analyze(&rows, &[], &prices);
    let a = advise("f", &rows, &caches, &prices, at(1000.0 + 7200.0), 10).unwrap();
    // Opus 4.8: $5 in, fast 2x: a 5-minute write costs $12.50 - $1 per MTok over a read.
    assert_close(a.inputs.input_usd_per_mtok, 10.0);
    assert_close(a.cold_resume_usd, 100_000.0 * (12.5 - 1.0) / 1e6);
    let t = a.inputs.growth_tokens;
    let (pin, pout) = (10e-6, 50e-6);
    let turns = (10.0 * 100_000.0 + t * 45.0) * 0.1 * pin + 10.0 * (t * 1.25 * pin + a.inputs.output_tokens * pout);
    assert_close(a.options.resume_usd, a.cold_resume_usd + turns);
}

#[test]
fn resumable_until_cleanup_unless_the_transcript_is_gone_or_the_session_a_team_members() {
    let last = t0();
    let day = |d: i64| last + TimeDelta::days(d);
    assert_eq!(resumability("", last, day(29), 30, false), None);
    assert_eq!(resumability("", last, day(30), 30, false), Some(NotResumable::PastCleanup));
    assert_eq!(resumability("", last, day(6), 7, false), None);
    assert_eq!(resumability("", last, day(7), 7, false), Some(NotResumable::PastCleanup));
    // cleanupPeriodDays 0: Claude Code keeps nothing.
    assert_eq!(resumability("", last, last, 0, false), Some(NotResumable::PastCleanup));
    assert_eq!(resumability("", last, day(1), 30, true), Some(NotResumable::TranscriptDeleted));
    assert_eq!(NotResumable::PastCleanup.words(7), "idle longer than Claude Code keeps transcripts (7 days)");
    // A team store's rows are their owners': never resumable here.
    assert_eq!(resumability("alice", last, day(1), 30, false), Some(NotResumable::TeamMember));
}

#[test]
fn keep_warm_pings_one_before_each_expiry() {
    for ttl in [300u32, 3600] {
        let t = f64::from(ttl);
        assert_eq!(pings(t - 30.0, ttl), 0, "g = T - 30");
        assert_eq!(pings(t, ttl), 1, "g = T");
        assert_eq!(pings(2.0 * t, ttl), 2, "g = 2T");
    }
    assert_eq!(pings(271.0, 300), 1);
    assert_eq!(pings(270.0, 300), 0);
}

fn expiry(gap_s: f64, ttl_s: u32, miss: f64, ping: f64, predicted: f64, v2: f64) -> Expiry {
    Expiry { gap_s, ttl_s, miss_cost_usd: miss, ping_usd: ping, predicted_usd: predicted, predicted_v2_usd: v2 }
}

#[test]
fn keep_warm_sums_leave_out_gaps_over_eight_hours_and_find_the_break_even() {
    let mut t = KeepWarmTally::default();
    t.add(&expiry(600.0, 300, 1.0, 0.3, 0.9, 1.2)); // 2 pings, $0.60
    t.add(&expiry(1200.0, 300, 1.0, 0.3, 1.0, 1.3)); // 4 pings, $1.20
    t.add(&expiry(KEEP_WARM_MAX_GAP_S + 1.0, 3600, 5.0, 0.1, 4.0, 6.0));
    let (k, b) = t.finish();
    assert_eq!((k.pings, k.misses_avoided, k.left_out_gaps), (6, 2, 1));
    assert_close(k.cost_usd, 1.8);
    assert_close(k.saving_usd, 2.0 - 1.8);
    // Median ping $0.30, median miss $1: 3 pings ($0.90) still pay, 4 do not.
    assert_eq!(k.break_even_gap_s.ttl_5m, Some(4.0 * 270.0));
    assert_eq!(k.break_even_gap_s.ttl_1h, None);
    // The backtest keeps every expiry, the long one too.
    assert_eq!(b.misses, 3);
    assert_close(b.observed_usd, 7.0);
    assert_close(b.predicted_usd, 5.9);
    assert_close(b.mae_pct.unwrap(), 100.0 * (0.1 + 0.0 + 1.0) / 7.0);
    assert_close(b.v2_mae_pct.unwrap(), 100.0 * (0.2 + 0.3 + 1.0) / 7.0);
}

#[test]
fn the_summary_backtests_main_thread_expiries_with_the_shared_prefix() {
    // Main thread: 20k shared prefix, a 10-minute gap (5m expiry, the
    // thread's own request keeps the prefix warm), then a 2-hour gap with
    // no request within the hour (Rs = 0), then one with a sub-agent
    // request 10 minutes before (Rs = 20k).
    let rows = vec![
        main("a", 0.0, [0, 30_000, 0, 20_000, 10]),
        main("a", 600.0, [0, 30_000, 0, 20_000, 10]),
        main("a", 8_000.0, [0, 50_000, 0, 0, 10]),
        req("a", "agent-1", 15_000.0, [0, 1_000, 0, 0, 10]),
        main("a", 15_600.0, [0, 30_000, 0, 20_000, 10]),
    ];
    let caches = analyze(&rows, &[], &FakeRates);
    let titles = HashMap::new();
    let opts = SummaryOptions { now: at(20_000.0), titles: &titles, day_of: &utc_day };
    let s = summarize(&rows, &caches, &opts);
    let b = s.total.backtest;
    assert_eq!(b.misses, 3);
    // Observed: B * (1.25 - 0.1) with B = 30k, 50k, 30k.
    assert_close(b.observed_usd, 110_000.0 * 1.15);
    // v3: (E - Rs): 50k - 20k (its own previous request within the hour),
    // 50k - 0 (nothing within the hour), 50k - 20k (the sub-agent's request).
    assert_close(b.predicted_usd, (30_000.0 + 50_000.0 + 30_000.0) * 1.15);
    assert_close(b.v2_predicted_usd, 150_000.0 * 1.15);
    assert_close(b.mae_pct.unwrap(), 0.0);
    assert_close(b.v2_mae_pct.unwrap(), 100.0 * 40_000.0 / 110_000.0);
    // Pings floor((g - 1) / 270) for g = 600, 7400, 7600.
    assert_eq!(s.total.keep_warm.misses_avoided, 3);
    assert_eq!(s.total.keep_warm.pings, 2 + 27 + 28);
    // Each ping reads the previous prompt (50k at $0.10) and writes one output token ($2).
    assert_close(s.total.keep_warm.cost_usd, 57.0 * (50_000.0 * 0.1 + 2.0));
}
