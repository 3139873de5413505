//! The real public transcripts in ../shared (skipped when absent): totals
//! must match the reference figures in ../shared/corpus/real/MANIFEST.md to
//! the token and the cent, and every report must add up to the same total.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::usage;
use cachewise::store::Store;
use cachewise::update::ingest;

#[test]
fn real_corpus_matches_reference_figures() {
    let Some(root) = common::real_corpus() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    let prices = PriceTable::load(None).unwrap();
    let o = ingest(&[root], &store, &prices, &Silent, chrono::Utc::now()).unwrap();
    assert_eq!(o.problems.bad, 0, "{:?}", o.problems.samples);
    assert!(o.unknown_models.is_empty(), "{:?}", o.unknown_models);
    let q = Query::new(chrono_tz::UTC);
    let daily = usage(&common::view(&store, &prices, common::t0()), Grouping::Daily, &q).unwrap();
    let t = daily.total;
    assert_eq!(t.requests, 2304);
    assert_eq!(t.tokens.input, 13_869);
    assert_eq!(t.tokens.output, 410_258);
    assert_eq!(t.tokens.cache_write_5m, 5_429_036);
    assert_eq!(t.tokens.cache_write_1h, 767_767);
    assert_eq!(t.tokens.cache_read, 157_944_499);
    assert_eq!(format!("{:.2}", t.cost_usd), "125.23");
    for g in [Grouping::Weekly, Grouping::Monthly, Grouping::Session, Grouping::Project, Grouping::Model] {
        let other = usage(&common::view(&store, &prices, common::t0()), g, &q).unwrap().total;
        assert_eq!(other.requests, t.requests, "{g:?}");
        assert_eq!(other.tokens, t.tokens, "{g:?}");
        assert!((other.cost_usd - t.cost_usd).abs() < 1e-9, "{g:?}");
    }
    // No transcript of the corpus logs a non-empty `usage.iterations`: no
    // calls are stored, and the figures above are the top-level usage's.
    assert!(daily.calls.is_empty());
    let calls = store.load(cachewise::store::Table::Calls, cachewise::store::frames::calls_from).unwrap();
    assert!(calls.is_empty());
}
