//! Cache model v2 on the real public transcripts in ../shared (skipped when
//! absent): the v2 class table, rewinds, compactions by trigger and the
//! idle-compaction what-if, and where v1's `unexplained` misses went. v1's
//! figures on this tree (20 misses, $5.79, 1,134k rebuilt tokens) are
//! recomputed here from the v1 rule (`L = E - r`, misses within the TTL
//! without a version change) over the same per-request data.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::analyze::{rewrite_premium, CacheClass, TTL_1H_S, TTL_5M_S};
use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::cache::CacheQuery;
use cachewise::report::query::Query;
use cachewise::store::Store;
use cachewise::update::ingest;
use common::reference::{cache_report, CacheData};
use std::collections::BTreeMap;

#[test]
fn real_corpus_class_table_and_where_v1_unexplained_misses_went() {
    let Some(root) = common::real_corpus() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    let prices = PriceTable::load(None).unwrap();
    ingest(&[root], &store, &prices, &Silent, chrono::Utc::now()).unwrap();
    let d = CacheData::load(&store, &prices);
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z").unwrap().to_utc();
    let r = cache_report(&d, &CacheQuery { query: Query::new(chrono_tz::UTC), session: None }, now);
    let c = &r.total.classes;
    for k in CacheClass::ALL {
        let s = c.get(k);
        eprintln!("{:>15} {:>5} {:>12} {:>10.2}", k.as_str(), s.count, s.rebuilt_tokens, s.miss_cost_usd);
    }
    eprintln!("rewinds {} by_trigger {:?} idle {:?}", r.total.rewinds, r.compactions_by_trigger, r.idle_compaction);
    eprintln!("what_if {:?}", r.total.what_if);
    // v1's unexplained, recomputed, and the v2 class each one has now.
    let mut went: BTreeMap<&str, (u64, u64, f64)> = BTreeMap::new();
    let mut v1 = (0u64, 0u64, 0.0f64);
    for (q, k) in d.requests.iter().zip(&d.caches) {
        let in_ttl = matches!(
            k.class,
            CacheClass::Hit | CacheClass::Microcompact | CacheClass::ContextEdit | CacheClass::FullRebuild
        );
        let e = k.expected_prefix;
        let lost = e.saturating_sub(q.tokens.cache_read);
        if k.class.is_start() || !in_ttl || lost as f64 <= f64::max(2000.0, 0.05 * e as f64) {
            continue;
        }
        let b = lost.min(q.tokens.cache_write() + q.tokens.input);
        let ttl = if q.tokens.cache_write_1h > 0 { TTL_1H_S } else { TTL_5M_S };
        let cost = rewrite_premium(k.rates.as_ref(), b as f64, ttl);
        v1 = (v1.0 + 1, v1.1 + b, v1.2 + cost);
        let e = went.entry(if k.rewind { "hit (rewind)" } else { k.class.as_str() }).or_default();
        *e = (e.0 + 1, e.1 + b, e.2 + cost);
    }
    eprintln!("v1 unexplained {v1:?}; now {went:?}");
    assert_eq!(v1.0, 20, "v1's unexplained count on this tree");
    assert_eq!(went.values().map(|w| w.0).sum::<u64>(), 20);
    // Measured on this tree: no microcompact line in it, so v1's 20 went to
    // context_edit (19) and full_rebuild (1); the other classes are v1's.
    assert_eq!(went.keys().copied().collect::<Vec<_>>(), ["context_edit", "full_rebuild"]);
    let counts: Vec<u64> = CacheClass::ALL.iter().map(|&k| c.get(k).count).collect();
    assert_eq!(counts, [2198, 52, 9, 11, 14, 0, 0, 0, 0, 19, 1]);
    assert_eq!(
        (c.get(CacheClass::ContextEdit).rebuilt_tokens, c.get(CacheClass::FullRebuild).rebuilt_tokens),
        (1_116_668, 17_629)
    );
    assert_eq!(r.total.rewinds, 0);
    let triggers: Vec<(&str, u64)> = r.compactions_by_trigger.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(triggers, [("auto", 8), ("idle", 0), ("manual", 1)]);
    assert_eq!((r.idle_compaction.gaps, r.idle_compaction.idle_compactions), (0, 0));
}
