//! Hand-computed tests of every cache-model v2 rule and its edges: the miss
//! test with `min(E, P)`, rewinds at and around the threshold, microcompacts
//! exactly at `t_{i-1}` and `t_i`, `context_edit` (`r > 0`) against
//! `full_rebuild` (`r = 0`), compactions by trigger with idle ones at
//! 2999/3000/3600/3601 s, the idle-compaction what-if, and thread identity
//! `(user, session, thread)`.

use super::fixtures::*;
use crate::common::summary::{
    compactions_by_trigger, idle_gaps, idle_sum, stale_sessions, summarize, utc_day, SummaryOptions,
};
use cachewise::analyze::{analyze, CacheClass, RequestCache};
use cachewise::model::{Compaction, Request};
use std::collections::{BTreeMap, HashMap};

fn run(reqs: &[Request], comps: &[Compaction]) -> Vec<RequestCache> {
    analyze(reqs, comps, &FakeRates)
}

/// E = 50,000 and a miss threshold of max(2000, 2500) = 2500.
fn e50k() -> Request {
    main("s", 0.0, [0, 50_000, 0, 0, 10])
}

#[test]
fn rewind_at_and_around_the_threshold() {
    // Reads all of a prompt exactly 2500 smaller: a hit, not yet a rewind.
    let c = run(&[e50k(), main("s", 60.0, [0, 0, 0, 47_500, 10])], &[]);
    assert_eq!((c[1].class, c[1].lost_tokens, c[1].rewind), (CacheClass::Hit, 0, false));
    // One token smaller: a rewind (still a hit, nothing rebuilt).
    let c = run(&[e50k(), main("s", 60.0, [0, 0, 0, 47_499, 10])], &[]);
    assert_eq!((c[1].class, c[1].rewind, c[1].rebuilt_tokens), (CacheClass::Hit, true, 0));
    // P = 40,000 reading 37,500: L = min(50000, 40000) - 37500 = 2500, a hit
    // and a rewind (v1 would have lost 12,500 and called it a miss).
    let c = run(&[e50k(), main("s", 60.0, [0, 2500, 0, 37_500, 10])], &[]);
    assert_eq!((c[1].class, c[1].lost_tokens, c[1].rewind), (CacheClass::Hit, 2500, true));
    // Reading one token less: L = 2501, a miss, and not a rewind.
    let c = run(&[e50k(), main("s", 60.0, [0, 2501, 0, 37_499, 10])], &[]);
    assert_eq!((c[1].class, c[1].lost_tokens, c[1].rewind), (CacheClass::ContextEdit, 2501, false));
    assert_eq!(c[1].rebuilt_tokens, 2501);
    assert_close(c[1].miss_cost_usd, 2501.0 * 1.15);
}

#[test]
fn microcompact_exactly_at_the_previous_and_at_this_request() {
    // P = 50,000 reading 5,000: L = 45,000, a miss within the TTL.
    let reqs = [e50k(), main("s", 60.0, [0, 45_000, 0, 5000, 10])];
    let class = |comps: &[Compaction]| run(&reqs, comps)[1].class;
    assert_eq!(class(&[]), CacheClass::ContextEdit);
    assert_eq!(class(&[microcompact("s", 0.0)]), CacheClass::ContextEdit, "at t_(i-1): not after it");
    assert_eq!(class(&[microcompact("s", 0.001)]), CacheClass::Microcompact);
    assert_eq!(class(&[microcompact("s", 60.0)]), CacheClass::Microcompact, "at t_i: counts");
    assert_eq!(class(&[microcompact("s", 60.001)]), CacheClass::ContextEdit);
    assert_eq!(class(&[microcompact("other", 30.0)]), CacheClass::ContextEdit);
    // A microcompact starts no lineage and never makes a hit a miss.
    let hit = [e50k(), main("s", 60.0, [0, 100, 0, 50_000, 10])];
    assert_eq!(run(&hit, &[microcompact("s", 30.0)])[1].class, CacheClass::Hit);
    // Sub-agents are not microcompacted; a TTL expiry and a version change come first.
    let sub = [req("s", "a1", 0.0, [0, 50_000, 0, 0, 10]), req("s", "a1", 60.0, [0, 45_000, 0, 5000, 10])];
    assert_eq!(run(&sub, &[microcompact("s", 30.0)])[1].class, CacheClass::ContextEdit);
    let late = [e50k(), main("s", 400.0, [0, 45_000, 0, 5000, 10])];
    assert_eq!(run(&late, &[microcompact("s", 30.0)])[1].class, CacheClass::Ttl5m);
    let upgraded = [e50k(), with_version(main("s", 60.0, [0, 45_000, 0, 5000, 10]), "2.1.1")];
    assert_eq!(run(&upgraded, &[microcompact("s", 30.0)])[1].class, CacheClass::VersionChange);
}

#[test]
fn read_nothing_is_a_full_rebuild_read_something_a_context_edit() {
    let c = run(&[e50k(), main("s", 60.0, [0, 50_000, 0, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].rebuilt_tokens), (CacheClass::FullRebuild, 50_000));
    assert_close(c[1].miss_cost_usd, 50_000.0 * 1.15);
    let c = run(&[e50k(), main("s", 60.0, [0, 49_999, 0, 1, 10])], &[]);
    assert_eq!((c[1].class, c[1].rebuilt_tokens), (CacheClass::ContextEdit, 49_999));
    assert_close(c[1].miss_cost_usd, 49_999.0 * 1.15);
    // Within a 1h TTL (1000 s gap) as well.
    let r0 = main("s", 0.0, [0, 0, 50_000, 0, 10]);
    let c = run(&[r0, main("s", 1000.0, [0, 0, 50_000, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].ttl_s), (CacheClass::FullRebuild, 3600));
    assert_close(c[1].miss_cost_usd, 50_000.0 * 1.9);
}

/// Counts for one main request at 0 and one compaction `gap_s` later.
fn triggers(gap_s: f64, trigger: Option<&str>) -> BTreeMap<String, u64> {
    let reqs = [main("s", 0.0, [0, 0, 250_000, 0, 10])];
    compactions_by_trigger(&reqs, &[compaction_with("s", gap_s, trigger)], &|_| true)
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn idle_compaction_at_2999_3000_3600_3601_s() {
    assert_eq!(triggers(2999.0, Some("auto")), counts(&[("auto", 1), ("idle", 0), ("manual", 0)]));
    assert_eq!(triggers(3000.0, Some("auto")), counts(&[("auto", 0), ("idle", 1), ("manual", 0)]));
    assert_eq!(triggers(3600.0, Some("auto")), counts(&[("auto", 0), ("idle", 1), ("manual", 0)]));
    assert_eq!(triggers(3601.0, Some("auto")), counts(&[("auto", 1), ("idle", 0), ("manual", 0)]));
    // Only a written `auto` can be idle: absent (defaulted) and `manual` cannot.
    assert_eq!(triggers(3000.0, None), counts(&[("auto", 1), ("idle", 0), ("manual", 0)]));
    assert_eq!(triggers(3000.0, Some("manual")), counts(&[("auto", 0), ("idle", 0), ("manual", 1)]));
}

#[test]
fn a_written_trigger_other_than_manual_or_auto_is_kept_by_name() {
    assert_eq!(triggers(3000.0, Some("reactive")), counts(&[("auto", 0), ("idle", 0), ("manual", 0), ("reactive", 1)]));
}

#[test]
fn each_boundary_counts_once_including_after_the_last_request() {
    let reqs = [main("s", 0.0, [0, 0, 250_000, 0, 10]), main("s", 100.0, [0, 0, 10, 250_000, 10])];
    let b = compaction_with("s", 3200.0, Some("auto"));
    let replay = Compaction { source: "other-file".into(), session_id: "s-resumed".into(), ..b.clone() };
    let manual = compaction_with("s", 50.0, Some("manual"));
    let got = compactions_by_trigger(&reqs, &[b, replay, manual, microcompact("s", 60.0)], &|_| true);
    assert_eq!(got, counts(&[("auto", 0), ("idle", 1), ("manual", 1)]), "3100 s after the last request: idle");
    // The compaction counts where the request before it is selected.
    let only_first =
        compactions_by_trigger(&reqs, &[compaction_with("s", 50.0, Some("manual"))], &|r| r.time == at(100.0));
    assert_eq!(only_first["manual"], 0);
}

#[test]
fn idle_compaction_what_if_by_hand() {
    // A 250,000-token prompt written with 1h, then a 4000 s rest: a ttl_1h miss.
    let reqs = [main("s", 0.0, [0, 0, 250_000, 0, 10]), main("s", 4000.0, [0, 0, 250_010, 0, 10])];
    let caches = run(&reqs, &[]);
    assert_eq!(caches[1].class, CacheClass::Ttl1h);
    let gaps = idle_gaps(&reqs, &caches, &FakeRates);
    let w = idle_sum(&gaps, &reqs, &|_| true, 2);
    // rebuild: B = min(250000, 250010) = 250,000 at (2 - 0.1) = 475,000.
    // compact: S = 10% of 250,000 (no compaction seen) = 25,000;
    // 250000 * 0.1 * 1 + 25000 * 2 + 25000 * (2 - 0.1) * 1 = 122,500.
    assert_eq!((w.gaps, w.idle_compactions), (1, 2));
    assert_close(w.rebuild_usd, 475_000.0);
    assert_close(w.compact_usd, 122_500.0);
    // Below 200,000 tokens, a 5m TTL, or in a sub-agent: no such gap.
    let small = [main("s", 0.0, [0, 0, 199_999, 0, 10]), main("s", 4000.0, [0, 0, 200_000, 0, 10])];
    assert!(idle_gaps(&small, &run(&small, &[]), &FakeRates).is_empty());
    let sub = [req("s", "a", 0.0, [0, 0, 250_000, 0, 10]), req("s", "a", 4000.0, [0, 0, 250_010, 0, 10])];
    assert!(idle_gaps(&sub, &run(&sub, &[]), &FakeRates).is_empty());
}

#[test]
fn idle_compaction_what_if_uses_ten_percent_of_the_prompt_when_the_project_has_no_compaction() {
    // p1 has no compaction: a 250,000-token 1h prompt, then a 4000 s rest.
    // p2 compacted once (first 10,000, 60,000 after): its S of 50,000 is
    // not p1's (cache-model §7 v3).
    let reqs = [
        main("s", 0.0, [0, 0, 250_000, 0, 10]),
        main("s", 4000.0, [0, 0, 250_010, 0, 10]),
        with_project(main("c", -9000.0, [0, 0, 10_000, 0, 10]), "p2"),
        with_project(main("c", -8000.0, [0, 0, 60_000, 0, 10]), "p2"),
    ];
    let caches = run(&reqs, &[compaction("c", -8500.0)]);
    assert_eq!((caches[1].class, caches[3].class), (CacheClass::Ttl1h, CacheClass::Compaction));
    let w = idle_sum(&idle_gaps(&reqs, &caches, &FakeRates), &reqs, &|_| true, 0);
    // S = 10% of P_(i-1) = 25,000:
    // 250000 * 0.1 * 1 + 25000 * 2 + 25000 * (2 - 0.1) * 1 = 122,500.
    assert_eq!(w.gaps, 1);
    assert_close(w.compact_usd, 122_500.0);
}

#[test]
fn thread_identity_includes_the_user() {
    // Two people with one session id (a copied session): alice at 0 and
    // 120 s, bob at 60 s. Interleaved, bob's first request would be a
    // full rebuild after alice's and alice's second would follow bob's.
    let reqs = [
        link(main("s", 0.0, [0, 10_000, 0, 0, 10]), "alice"),
        link(main("s", 60.0, [0, 30_000, 0, 0, 10]), "bob"),
        link(main("s", 120.0, [0, 10, 0, 10_000, 10]), "alice"),
    ];
    let c = run(&reqs, &[]);
    assert_eq!((c[1].class, c[1].prev), (CacheClass::First, None));
    assert_eq!((c[2].class, c[2].prev, c[2].expected_prefix), (CacheClass::Hit, Some(0), 10_000));
    // A compaction of bob's starts no lineage in alice's thread.
    let bob_compaction = Compaction { user: "bob".into(), ..compaction("s", 90.0) };
    assert_eq!(run(&reqs, &[bob_compaction])[2].class, CacheClass::Hit);
    // Each person's session is stale on its own.
    let stale = stale_sessions(&reqs, &c, at(10_000.0), &HashMap::new());
    assert_eq!(stale.len(), 2);
    let mut prompts: Vec<(&str, u64)> = stale.iter().map(|s| (s.user.as_str(), s.prompt_tokens)).collect();
    prompts.sort_unstable();
    assert_eq!(prompts, [("alice", 10_010), ("bob", 30_000)]);
    // And the cache report has one entry per person's session.
    let titles = HashMap::new();
    let opts = SummaryOptions { now: at(10_000.0), titles: &titles, day_of: &utc_day };
    let s = summarize(&reqs, &c, &opts);
    let by: Vec<(&str, &str, u64)> =
        s.by_session.iter().map(|x| (x.session_id.as_str(), x.user.as_str(), x.stats.requests)).collect();
    assert_eq!(by, [("s", "alice", 2), ("s", "bob", 1)]);
    assert_eq!(s.stale.len(), 2);
}
