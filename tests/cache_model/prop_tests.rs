//! Property tests: every request is a lineage start, a hit or a miss; the
//! what-if with the observed TTL on threads that never missed equals the
//! actual cost; a longer idle gap never lowers the cold-resume premium (stale
//! premium, advice's resume total and history premium).

use super::fixtures::*;
use crate::common::summary::{advise, stale_sessions, summarize, utc_day, SummaryOptions};
use cachewise::analyze::{analyze, CacheClass, TTL_1H_S};
use cachewise::model::{Compaction, Request, MAIN_THREAD};
use proptest::prelude::*;
use std::collections::HashMap;

/// Random requests over 3 sessions x 2 threads, 2 models, 2 versions.
fn arb_requests() -> impl Strategy<Value = Vec<Request>> {
    let one = (0..3usize, 0..2usize, 0.0..20_000.0f64, 0..2usize, 0..2usize, prop::array::uniform5(0..60_000u64));
    prop::collection::vec(one, 1..60).prop_map(|v| {
        v.into_iter()
            .map(|(s, th, t, m, ver, tk)| {
                let thread = if th == 0 { MAIN_THREAD } else { "a1" };
                let mut r = req(&format!("s{s}"), thread, t.round(), tk);
                r.model = [M1, M2][m].into();
                r.version = ["2.1.0", "2.1.1"][ver].into();
                r
            })
            .collect()
    })
}

fn arb_compactions() -> impl Strategy<Value = Vec<Compaction>> {
    prop::collection::vec((0..3usize, 0.0..20_000.0f64), 0..5)
        .prop_map(|v| v.into_iter().map(|(s, t)| compaction(&format!("s{s}"), t)).collect())
}

/// A thread that never missed: each request reads the whole previous prompt
/// and writes with one TTL; gaps within that TTL.
fn arb_hit_thread() -> impl Strategy<Value = (bool, Vec<Request>)> {
    let step = (1..=3600u32, 0..20_000u64, 0..20u64, 0..3000u64, 0..3u64);
    (any::<bool>(), 1..20_000u64, prop::collection::vec(step, 1..15)).prop_map(|(one_hour, first, steps)| {
        let ttl = if one_hour { 3600 } else { 300 };
        let write = |w: u64| if one_hour { [0, w] } else { [w, 0] };
        let w = write(first);
        let mut reqs = vec![main("s", 0.0, [3, w[0], w[1], 17_000, 50])];
        let mut t = 0.0;
        for (gap, grow, input, out, web) in steps {
            t += f64::from(gap.min(ttl));
            let prev = reqs[reqs.len() - 1].tokens.prompt();
            let w = write(grow);
            let mut r = main("s", t, [input, w[0], w[1], prev, out]);
            r.web_search = web;
            reqs.push(r);
        }
        (one_hour, reqs)
    })
}

proptest! {
    #[test]
    fn starts_hits_and_misses_cover_every_request(reqs in arb_requests(), comps in arb_compactions()) {
        let caches = analyze(&reqs, &comps, &FakeRates);
        prop_assert_eq!(caches.len(), reqs.len());
        let starts = caches.iter().filter(|c| c.class.is_start()).count();
        let hits = caches.iter().filter(|c| c.class == CacheClass::Hit).count();
        let misses = caches.iter().filter(|c| c.class.is_miss()).count();
        prop_assert_eq!(starts + hits + misses, reqs.len());
        let firsts = caches.iter().filter(|c| c.class == CacheClass::First).count();
        let threads: std::collections::HashSet<_> = reqs.iter().map(|r| (&r.session_id, &r.thread)).collect();
        prop_assert_eq!(firsts, threads.len());
        prop_assert!(caches.iter().all(|c| (c.class == CacheClass::First) == c.gap_s.is_none()));
        let titles = HashMap::new();
        let opts = SummaryOptions { now: at(30_000.0), titles: &titles, day_of: &utc_day };
        let s = summarize(&reqs, &caches, &opts);
        prop_assert_eq!(s.total.classes.requests() as usize, reqs.len());
        prop_assert_eq!((s.total.classes.starts() + s.total.classes.misses()) as usize + hits, reqs.len());
        let b = &s.total.idle_buckets;
        prop_assert_eq!((b.le_5m.count + b.from_5m_to_1h.count + b.gt_1h.count) as usize, reqs.len() - threads.len());
    }

    #[test]
    fn what_if_with_the_observed_ttl_equals_actual_on_hit_threads((one_hour, reqs) in arb_hit_thread()) {
        let caches = analyze(&reqs, &[], &FakeRates);
        prop_assert!(caches.iter().all(|c| c.class == CacheClass::Hit || c.class == CacheClass::First));
        let titles = HashMap::new();
        let opts = SummaryOptions { now: at(0.0), titles: &titles, day_of: &utc_day };
        let w = summarize(&reqs, &caches, &opts).total.what_if;
        let observed = if one_hour { w.ttl_1h_usd } else { w.ttl_5m_usd };
        prop_assert!(close(observed, w.actual_usd), "{} vs {}", observed, w.actual_usd);
    }

    #[test]
    fn longer_idle_never_lowers_the_cold_resume_premium(
        reqs in arb_requests(), comps in arb_compactions(), a in 0.0..10_000.0f64, b in 0.0..10_000.0f64,
    ) {
        let caches = analyze(&reqs, &comps, &FakeRates);
        let last = reqs.iter().map(|r| r.time).max().unwrap_or_else(|| at(0.0));
        let (early, late) = (last + secs(a.min(b)), last + secs(a.max(b)));
        let titles = HashMap::new();
        let premium = |now| -> HashMap<String, f64> {
            stale_sessions(&reqs, &caches, now, &titles).into_iter().map(|s| (s.session_id, s.premium_usd)).collect()
        };
        let (p1, p2) = (premium(early), premium(late));
        for (sid, v) in &p1 {
            prop_assert!(p2.get(sid).is_some_and(|w| *w >= *v));
        }
        for sid in ["s0", "s1", "s2"] {
            let x = advise(sid, &reqs, &caches, &FakeRates, early, 10);
            let y = advise(sid, &reqs, &caches, &FakeRates, late, 10);
            if let (Some(x), Some(y)) = (x, y) {
                prop_assert!(y.options.resume_usd >= x.options.resume_usd);
                prop_assert!(y.history_premium_usd >= x.history_premium_usd - 1e-9);
                prop_assert!(!y.warm || x.warm);
                prop_assert!(y.ttl_s <= TTL_1H_S);
            }
        }
    }
}

fn secs(s: f64) -> chrono::TimeDelta {
    chrono::TimeDelta::milliseconds((s * 1000.0) as i64)
}
