//! Tests of cache-model §3 and the `cache` summary: idle-gap buckets at and
//! around 300 s and 3600 s, hit ratios, the write mix, idle cost, breakdowns
//! and the JSON contract keys.

use super::fixtures::*;
use crate::common::summary::{summarize, utc_day, CacheSummary, SummaryOptions};
use cachewise::analyze::{analyze, CacheClass, GapBucket};
use cachewise::model::{Compaction, Request};
use cachewise::pricing::PriceTable;
use cachewise::synth::{generate, SynthSpec};
use chrono::{TimeZone, Utc};
use std::collections::HashMap;

fn summary(reqs: &[Request], comps: &[Compaction], now_s: f64) -> CacheSummary {
    let caches = analyze(reqs, comps, &FakeRates);
    let titles: HashMap<String, String> = [("s".to_string(), "A title".to_string())].into();
    let opts = SummaryOptions { now: at(now_s), titles: &titles, day_of: &utc_day };
    summarize(reqs, &caches, &opts)
}

/// One 1h thread with gaps 5, 300, 300.001, 3600 (hits) and 3600.001 (miss).
fn bucket_thread() -> Vec<Request> {
    vec![
        main("s", 0.0, [1, 0, 10_000, 0, 100]),
        main("s", 5.0, [1, 0, 200, 10_001, 100]),
        main("s", 305.0, [1, 0, 200, 10_202, 100]),
        main("s", 605.001, [1, 0, 200, 10_403, 100]),
        main("s", 4205.001, [1, 0, 200, 10_604, 100]),
        main("s", 7805.002, [1, 0, 10_805, 0, 100]),
    ]
}

#[test]
fn gap_bucket_edges() {
    assert_eq!(GapBucket::of(0.0), GapBucket::Le5m);
    assert_eq!(GapBucket::of(300.0), GapBucket::Le5m);
    assert_eq!(GapBucket::of(300.001), GapBucket::From5mTo1h);
    assert_eq!(GapBucket::of(3600.0), GapBucket::From5mTo1h);
    assert_eq!(GapBucket::of(3600.001), GapBucket::Gt1h);
}

#[test]
fn buckets_classes_ratios_and_mix() {
    let s = summary(&bucket_thread(), &[], 7805.002);
    let t = &s.total;
    assert_eq!(t.requests, 6);
    assert_eq!((t.idle_buckets.le_5m.count, t.idle_buckets.from_5m_to_1h.count), (2, 2));
    assert_eq!(t.idle_buckets.gt_1h.count, 1);
    assert_eq!(t.idle_buckets.gt_1h.rebuilt_tokens, 10_805);
    assert_close(t.idle_buckets.gt_1h.miss_cost_usd, 10_805.0 * 1.9);
    assert_eq!(t.idle_buckets.le_5m.rebuilt_tokens + t.idle_buckets.from_5m_to_1h.rebuilt_tokens, 0);
    assert_eq!(
        (
            t.classes.get(CacheClass::First).count,
            t.classes.get(CacheClass::Hit).count,
            t.classes.get(CacheClass::Ttl1h).count
        ),
        (1, 4, 1)
    );
    assert_eq!(t.classes.get(CacheClass::First).rebuilt_tokens, 10_001);
    assert_close(t.classes.get(CacheClass::First).miss_cost_usd, 10_001.0 * 1.9);
    assert_close(t.idle_cost_usd, 10_805.0 * 1.9);
    let (read, write) = (41_210.0, 21_605.0);
    assert_close(t.hit_ratio_tokens.unwrap(), read / (read + write + 6.0));
    assert_close(t.hit_ratio_requests.unwrap(), 0.8);
    assert_eq!((t.write_mix.write_5m_tokens, t.write_mix.write_1h_tokens), (0, 21_605));
}

#[test]
fn gaps_before_lineage_starts_are_bucketed() {
    let reqs = [main("s", 0.0, [1, 0, 10_000, 0, 10]), with_model(main("s", 4000.0, [1, 0, 10_011, 0, 10]), M2)];
    let s = summary(&reqs, &[], 4000.0);
    assert_eq!(s.total.idle_buckets.gt_1h.count, 1);
    assert_eq!(s.total.idle_buckets.gt_1h.rebuilt_tokens, 10_012);
    assert_eq!(s.total.classes.get(CacheClass::ModelSwitch).count, 1);
    assert_eq!(s.total.idle_cost_usd, 0.0);
    assert_eq!(s.total.hit_ratio_requests, None);
}

#[test]
fn per_day_and_per_session_breakdowns() {
    let mut reqs = bucket_thread();
    reqs.push(main("t", 86_400.0, [1, 5000, 0, 0, 10]));
    let s = summary(&reqs, &[], 90_000.0);
    let days: Vec<&str> = s.by_day.iter().map(|d| d.day.as_str()).collect();
    assert_eq!(days, ["2026-02-01", "2026-02-02"]);
    assert_eq!(s.by_day[0].stats.requests, 6);
    assert_eq!(s.by_day[1].stats.classes.get(CacheClass::First).count, 1);
    assert_eq!(s.by_session.len(), 2);
    assert_eq!((s.by_session[0].session_id.as_str(), s.by_session[0].title.as_str()), ("s", "A title"));
    assert_eq!(s.by_session[0].last, at(7805.002));
    assert_close(s.by_session[0].stats.idle_cost_usd, 10_805.0 * 1.9);
    let sum: f64 = s.by_session.iter().map(|x| x.stats.what_if.actual_usd).sum();
    assert_close(sum, s.total.what_if.actual_usd);
}

#[test]
fn json_contract_keys() {
    let s = summary(&bucket_thread(), &[], 100_000.0);
    let v = serde_json::to_value(&s).unwrap();
    let classes = [
        "hit",
        "first",
        "compaction",
        "model_switch",
        "ttl_5m",
        "ttl_1h",
        "version_change",
        "microcompact",
        "context_edit",
        "full_rebuild",
    ];
    assert!(v["classes"].get("unexplained").is_none(), "v2 retires unexplained");
    assert_eq!(v["rewinds"], 0);
    for k in classes {
        for f in ["count", "rebuilt_tokens", "miss_cost_usd"] {
            assert!(v["classes"][k][f].is_number(), "classes.{k}.{f}");
        }
    }
    for b in ["le_5m", "5m_1h", "gt_1h"] {
        for f in ["count", "rebuilt_tokens", "miss_cost_usd"] {
            assert!(v["idle_buckets"][b][f].is_number(), "idle_buckets.{b}.{f}");
        }
    }
    for f in ["actual_usd", "ttl_5m_usd", "ttl_1h_usd"] {
        assert!(v["what_if"][f].is_number(), "what_if.{f}");
    }
    let stale = &v["stale"][0];
    assert_eq!(stale["session_id"], "s");
    assert_eq!(stale["title"], "A title");
    assert!(stale["premium_usd"].is_number() && stale["prompt_tokens"].is_u64());
    assert_eq!(stale["last"], "2026-02-01T12:10:05.002Z");
    assert_eq!(stale["ttl_s"], 3600);
    assert!(v["by_day"][0]["classes"]["hit"]["count"].is_u64());
    assert!(v["by_session"][0]["what_if"]["ttl_1h_usd"].is_number());
}

#[test]
fn summarize_where_keeps_classes_from_the_whole_thread() {
    let mut reqs = bucket_thread();
    reqs.push(main("t", 86_400.0, [1, 5000, 0, 0, 10]));
    let caches = cachewise::analyze::analyze(&reqs, &[], &FakeRates);
    let titles = HashMap::new();
    let opts = SummaryOptions { now: at(200_000.0), titles: &titles, day_of: &utc_day };
    // Only the last request of "s": still a ttl_1h miss, not a first.
    let last = at(7805.002);
    let s = crate::common::summary::summarize_where(&reqs, &caches, &opts, &|r| r.session_id == "s" && r.time == last);
    assert_eq!((s.total.requests, s.total.classes.get(CacheClass::Ttl1h).count), (1, 1));
    assert_eq!(s.by_session.len(), 1);
    let stale: Vec<&str> = s.stale.iter().map(|x| x.session_id.as_str()).collect();
    assert_eq!(stale, ["s"]);
}

#[test]
fn the_summary_of_the_demo_data_counts_every_request_and_finds_stale_sessions() {
    let end = Utc.with_ymd_and_hms(2026, 3, 1, 18, 0, 0).single().unwrap();
    let data = generate(5, &SynthSpec::demo(end));
    // The demo's models are real ones: the built-in price table prices them.
    let prices = PriceTable::embedded().unwrap();
    let caches = analyze(&data.requests, &data.compactions, &prices);
    let titles: HashMap<String, String> = data.titles.iter().cloned().collect();
    let opts = SummaryOptions { now: end, titles: &titles, day_of: &utc_day };
    let s = summarize(&data.requests, &caches, &opts);
    assert_eq!(s.total.requests as usize, data.requests.len());
    assert!(s.total.hit_ratio_tokens.unwrap() > 0.5);
    assert!(!s.stale.is_empty());
    assert!(s.by_day.len() >= 14);
}
