//! The stored analysis (`materialize`, read by `report::cache::view`) gives
//! the same cache report, resume advice and session figures as the
//! in-memory reference model over the same rows: two people's copies of
//! the demo generator's data (every cache-model v2 event, multi-call
//! responses), under every filter a report takes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use crate::common::summary::advise_with;
use cachewise::analyze::CacheClass;
use cachewise::model::{Compaction, Request, MAIN_THREAD};
use cachewise::pricing::PriceTable;
use cachewise::report::cache::rows::{misses, DailyClassCosts};
use cachewise::report::cache::view as cache_view;
use cachewise::report::cache::{CacheQuery, Reconcile};
use cachewise::report::query::{Grouping, Query};
use cachewise::report::stored_rows::advise;
use cachewise::report::usage;
use cachewise::store::Store;
use cachewise::synth::{calls::add_calls, generate, SynthSpec};
use chrono::{NaiveDate, TimeDelta, TimeZone, Utc};
use common::reference::{cache_report, CacheData};
use polars::prelude::{ParquetReader, SerReader};
use serde_json::Value;

/// Equal JSON, numbers to a relative 1e-9 (sums in another order).
fn same(a: &Value, b: &Value, path: &str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                same(&x[k.as_str()], &y[k.as_str()], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{path}: lengths");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{path}[{i}]"));
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-3), "{path}: {x} != {y}");
        }
        _ => assert_eq!(a, b, "{path}"),
    }
}

/// Two people holding copies of one demo history (bob's 30 minutes later),
/// so session ids repeat across people as in a team store.
fn team_store(dir: &std::path::Path) -> (Store, PriceTable, chrono::DateTime<Utc>) {
    let end = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap();
    let data = generate(11, &SynthSpec::demo(end));
    let prices = PriceTable::embedded().unwrap();
    let mut requests: Vec<Request> = Vec::new();
    let mut compactions: Vec<Compaction> = Vec::new();
    for (user, shift) in [("alice", 0), ("bob", 30)] {
        for r in &data.requests {
            let mut r = r.clone();
            r.user = user.into();
            r.time += TimeDelta::minutes(shift);
            requests.push(r);
        }
        for c in &data.compactions {
            compactions.push(Compaction { user: user.into(), time: c.time + TimeDelta::minutes(shift), ..c.clone() });
        }
    }
    let calls = add_calls(&requests, 7);
    let store = Store::open(dir).unwrap();
    cachewise::update::store_rows(
        &store,
        cachewise::ingest::Rows { rows: requests, calls, compactions, ..Default::default() },
        &prices,
        None,
    )
    .unwrap();
    (store, prices, end + TimeDelta::hours(3))
}

#[test]
fn the_stored_analysis_reports_what_the_reference_model_computes() {
    let dir = tempfile::tempdir().unwrap();
    let (store, prices, now) = team_store(dir.path());
    let reference = CacheData::load(&store, &prices);
    let view = common::view(&store, &prices, now);
    let first = reference.requests.iter().find(|r| r.thread == MAIN_THREAD).unwrap();
    let (session, project) = (first.session_id.to_string(), first.project.to_string());
    let day = |s: &str| Some(NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap());
    let all = Query::new(chrono_tz::UTC);
    let queries = [
        (all.clone(), None),
        (Query { since: day("2026-11-05"), until: day("2026-11-12"), ..all.clone() }, None),
        (Query { user: Some("bob".into()), tz: chrono_tz::America::New_York, ..all.clone() }, None),
        (Query { project: Some(project), ..all.clone() }, None),
        (all.clone(), Some(session)),
    ];
    let mut compared = 0;
    for (query, session) in queries {
        let q = CacheQuery { query, session };
        let want = serde_json::to_value(cache_report(&reference, &q, now)).unwrap();
        let mut got = serde_json::to_value(cache_view::cache_report(&view, &q).unwrap()).unwrap();
        // Only the stored report reconciles with the usage reports.
        let usage = got.as_object_mut().unwrap().remove("usage").unwrap();
        assert_eq!(usage["thread_requests"], want["requests"], "{q:?}");
        // The versions split the same requests and cost.
        let versions = got.as_object_mut().unwrap().insert("versions".into(), serde_json::json!([])).unwrap();
        let sum = |k: &str| versions.as_array().unwrap().iter().map(|v| v[k].as_f64().unwrap()).sum::<f64>();
        assert_eq!(sum("requests"), want["requests"].as_f64().unwrap(), "{q:?}");
        assert!((sum("cost_usd") - want["what_if"]["actual_usd"].as_f64().unwrap()).abs() < 1e-6, "{q:?}");
        // So do the context bands.
        let empty = serde_json::json!({"bands": [], "windows": []});
        let context = got.as_object_mut().unwrap().insert("context".into(), empty).unwrap();
        let band_sum =
            |k: &str| context["bands"].as_array().unwrap().iter().map(|v| v[k].as_f64().unwrap()).sum::<f64>();
        assert_eq!(band_sum("requests"), want["requests"].as_f64().unwrap(), "{q:?}");
        let actual = want["what_if"]["actual_usd"].as_f64().unwrap();
        assert!((band_sum("cost_usd") - actual).abs() < 1e-6, "{q:?}");
        // The default compaction window is what happened.
        let default = context["windows"].as_array().unwrap().iter().find(|w| w["default"] == true).unwrap();
        assert!((default["cost_usd"].as_f64().unwrap() - actual).abs() < 1e-6, "{q:?}");
        assert_eq!(default["saving_usd"], 0.0, "{q:?}");
        assert!(want["requests"].as_u64().unwrap() > 0, "{q:?} selects requests");
        same(&want, &got, &format!("{q:?}"));
        compared += 1;
    }
    assert_eq!(compared, 5);
    let r = cache_view::cache_report(&view, &CacheQuery { query: all.clone(), session: None }).unwrap();
    for k in [CacheClass::Hit, CacheClass::Ttl5m, CacheClass::Microcompact, CacheClass::ContextEdit] {
        assert!(r.total.classes.get(k).count > 0, "the demo makes {k:?}");
    }
    assert!(r.by_session.iter().any(|s| s.user == "bob") && r.by_session.iter().any(|s| s.user == "alice"));
    // Every miss is listed once, with its stored cause.
    let listed = misses(&view, &CacheQuery { query: all, session: None }).unwrap();
    let expected: u64 = CacheClass::ALL.iter().filter(|k| k.is_miss()).map(|k| r.total.classes.get(*k).count).sum();
    assert_eq!(listed.len() as u64, expected);
}

#[test]
fn the_class_costs_summed_in_the_cache_reports_pass_are_those_of_their_own_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (store, prices, now) = team_store(dir.path());
    let view = common::view(&store, &prices, now);
    let all = Query::new(chrono_tz::UTC);
    let queries = [
        all.clone(),
        Query { user: Some("bob".into()), tz: chrono_tz::America::New_York, ..all.clone() },
        Query { since: NaiveDate::from_ymd_opt(2026, 11, 5), ..all },
    ];
    for query in queries {
        let q = CacheQuery { query, session: None };
        let mut costs = DailyClassCosts::new(q.query.tz);
        let mut both = cache_view::cache_report_with(&view, &q, Some(&mut costs)).unwrap();
        let daily = usage::usage(&view, Grouping::Daily, &q.query).unwrap();
        both.usage = Some(Reconcile::of(&both.total, daily.total, daily.calls));
        let (costs, alone) = (costs.days(), {
            let mut alone = DailyClassCosts::new(q.query.tz);
            view.for_each_batch(&q, &DailyClassCosts::COLUMNS, |df| alone.add(df)).unwrap();
            alone.days()
        });
        assert_eq!(costs, alone, "{q:?}");
        assert!(costs.len() > 3, "{q:?}: several days");
        let report = cache_view::cache_report(&view, &q).unwrap();
        assert_eq!(serde_json::to_value(both).unwrap(), serde_json::to_value(report).unwrap(), "{q:?}");
    }
}

#[test]
fn advice_from_one_session_and_stored_medians_equals_advice_over_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let (store, prices, now) = team_store(dir.path());
    let reference = CacheData::load(&store, &prices);
    let view = common::view(&store, &prices, now);
    let mut ids: Vec<&str> = reference.requests.iter().map(|r| r.session_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut advised = 0;
    for id in ids.into_iter().take(12) {
        let d = &reference;
        let Some(want) = advise_with(id, &d.requests, &d.caches, &d.compactions, &prices, now, 20) else { continue };
        // A team store's sessions are their owners' to resume.
        let want = want.not_resumable(cachewise::analyze::NotResumable::TeamMember, 30);
        let (got, _) = advise(&view, id, 20).unwrap();
        same(&serde_json::to_value(&want).unwrap(), &serde_json::to_value(&got).unwrap(), id);
        advised += 1;
    }
    assert!(advised >= 5, "advised {advised} sessions");
}

/// A store rebuilt whole from enough rows to be written in slices (one per
/// lane, each a chunk at a time, joined) holds what one pass over every request computes now: the
/// same rows, in the same order, to the last column.
#[test]
fn an_analysis_written_in_slices_is_the_analysis_computed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let end = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap();
    let data = generate(5, &SynthSpec::scaled(end, 60, 1_200));
    let prices = PriceTable::embedded().unwrap();
    let calls = add_calls(&data.requests, 7);
    let store = Store::open(dir.path()).unwrap();
    cachewise::update::store_rows(
        &store,
        cachewise::ingest::Rows { rows: data.requests, calls, compactions: data.compactions, ..Default::default() },
        &prices,
        None,
    )
    .unwrap();
    let stored = cachewise::materialize::current(&store, &prices).unwrap().expect("stored with these prices");
    assert!(stored.height() > 40_000, "{} rows: enough to be written in slices", stored.height());
    let file = std::fs::File::open(store.path(cachewise::store::Table::Analysis)).unwrap();
    let groups: Vec<usize> =
        ParquetReader::new(file).get_metadata().unwrap().row_groups.iter().map(|g| g.num_rows()).collect();
    // Each slice is written a classified chunk at a time (no slice is
    // copied into one buffer): row groups of whole chunks, none spanning
    // two slices.
    assert!(groups.len() >= 2, "{groups:?}");
    assert_eq!(groups.iter().sum::<usize>(), stored.height());
    assert!(groups.iter().all(|&g| g <= stored.height().div_ceil(2)), "{groups:?}");
    let whole = cachewise::materialize::finish(cachewise::materialize::rows(&store, &prices).unwrap()).unwrap();
    assert_eq!(stored.get_column_names(), whole.get_column_names());
    assert!(stored.equals_missing(&whole), "the sliced table differs from the whole analysis");
}
