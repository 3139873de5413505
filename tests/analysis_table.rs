//! The analysis table (`materialize`) as the store keeps it: after every
//! step of growing, rewriting, cutting short and deleting transcripts it
//! equals, as a set of rows, the table computed from scratch over the same
//! stored requests; its verdicts equal the cache model (`analyze`) over all
//! thread rows at once, and its shared-prefix flags a direct search. A
//! damaged or missing table is recomputed by the next ingest, whatever
//! else it does (nothing, a rebuild, an upgrade of the previous layout).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::analyze::analyze;
use cachewise::ingest::Silent;
use cachewise::materialize::{self, Changed};
use cachewise::model::columns as c;
use cachewise::pricing::PriceTable;
use cachewise::store::frames::{self, Cols};
use cachewise::store::{Store, Table};
use cachewise::update::{ingest, rebuild};
use common::stepwise;
use polars::prelude::*;
use proptest::prelude::*;
use std::fs;
use std::path::Path;

fn prices() -> PriceTable {
    PriceTable::load(None).unwrap()
}

fn ingest_tree(root: &Path, data: &Path) {
    ingest(&[root.to_path_buf()], &Store::open(data).unwrap(), &prices(), &Silent, chrono::Utc::now()).unwrap();
}

/// The stored analysis table (base and recent part).
fn stored(data: &Path) -> DataFrame {
    materialize::current(&Store::open(data).unwrap(), &prices()).unwrap().expect("an analysis table")
}

/// A copy of a data directory.
fn copy_of(data: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for f in fs::read_dir(data).unwrap() {
        let f = f.unwrap();
        if f.file_type().unwrap().is_file() {
            fs::copy(f.path(), copy.path().join(f.file_name())).unwrap();
        }
    }
    copy
}

/// The analysis table computed from scratch over a copy of the store.
fn from_scratch(data: &Path) -> DataFrame {
    let copy = copy_of(data);
    let store = Store::open(copy.path()).unwrap();
    store.begin().unwrap().remove(Table::Analysis).unwrap();
    store.begin().unwrap().remove(Table::RecentAnalysis).unwrap();
    materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::All).unwrap();
    stored(copy.path())
}

/// The stored table after folding its recent part (and refreshing `s0`).
fn folded(data: &Path) -> DataFrame {
    let copy = copy_of(data);
    let store = Store::open(copy.path()).unwrap();
    let changed = Changed::Sessions(["s0".to_owned()].into());
    materialize::refresh_folding_at(&store.begin().unwrap(), &prices(), &changed, 0).unwrap();
    stored(copy.path())
}

/// A row: its exact columns (as text) and its money columns.
type Row = (Vec<String>, Vec<Option<f64>>);

fn rows(df: &DataFrame) -> Vec<Row> {
    let mut out: Vec<Row> = (0..df.height())
        .map(|i| {
            let (mut exact, mut money) = (Vec::new(), Vec::new());
            for col in df.columns() {
                let v = col.get(i).unwrap();
                match col.dtype() {
                    DataType::Float64 => money.push(v.extract::<f64>()),
                    _ => exact.push(format!("{}={v}", col.name())),
                }
            }
            (exact, money)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-15,
        (a, b) => a == b,
    }
}

/// Equal as sets of rows, money to 1e-9 relative.
fn same_rows(a: &DataFrame, b: &DataFrame) -> Result<(), String> {
    if a.get_column_names() != b.get_column_names() {
        return Err(format!("columns {:?} vs {:?}", a.get_column_names(), b.get_column_names()));
    }
    let (ra, rb) = (rows(a), rows(b));
    if ra.len() != rb.len() {
        return Err(format!("{} rows vs {}:\n{ra:#?}\n{rb:#?}", ra.len(), rb.len()));
    }
    for (x, y) in ra.iter().zip(&rb) {
        if x.0 != y.0 || !x.1.iter().zip(&y.1).all(|(p, q)| close(*p, *q)) {
            return Err(format!("row differs:\n{x:?}\n{y:?}"));
        }
    }
    Ok(())
}

/// A thread row's identity and the cache model's verdict on it.
type Verdict = ((String, String, String, String, i64, String, [u64; 5]), (String, Option<u64>, u32, u64, u64, u64));

/// The cache model over every thread row of the store at once.
fn oracle(data: &Path) -> (Vec<Verdict>, Vec<f64>) {
    let store = Store::open(data).unwrap();
    let requests = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    let calls = store.load(Table::Calls, frames::calls_from).unwrap();
    let compactions = store.load(Table::Compactions, frames::compactions_from).unwrap();
    let p = prices();
    let thread = cachewise::analyze::thread_requests(&p, requests, &calls);
    let caches = analyze(&thread, &compactions, &p);
    let mut out: Vec<(Verdict, f64)> = thread
        .iter()
        .zip(&caches)
        .map(|(r, k)| {
            let t = &r.tokens;
            let key = (
                r.user.to_string(),
                r.session_id.to_string(),
                r.thread.to_string(),
                r.message_id.clone(),
                r.time.timestamp_millis(),
                r.model.to_string(),
                [t.input, t.cache_write_5m, t.cache_write_1h, t.cache_read, t.output],
            );
            let verdict = (
                k.class.as_str().to_owned(),
                k.gap_s.map(|g| (g * 1000.0).round() as u64),
                k.ttl_s,
                k.expected_prefix,
                k.lost_tokens,
                k.rebuilt_tokens,
            );
            ((key, verdict), k.miss_cost_usd)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().unzip()
}

/// The same figures as the stored table holds them.
fn verdicts(df: &DataFrame) -> (Vec<Verdict>, Vec<f64>) {
    let k = Cols(df);
    let s = |n| k.str(n).unwrap();
    let u = |n| k.u64(n).unwrap();
    let (user, session, thread, msg, model, class) =
        (s(c::USER), s(c::SESSION_ID), s(c::THREAD), s(c::MESSAGE_ID), s(c::MODEL), s(c::CLASS));
    let times: Vec<i64> =
        df.column(c::TIME).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().iter().map(|t| t.unwrap()).collect();
    let gaps: Vec<Option<f64>> = df.column(c::GAP_S).unwrap().f64().unwrap().iter().collect();
    let miss: Vec<Option<f64>> = df.column(c::MISS_COST_USD).unwrap().f64().unwrap().iter().collect();
    let tokens = k.tokens().unwrap();
    let (ttl, prefix, lost, rebuilt) = (u(c::TTL_S), u(c::EXPECTED_PREFIX), u(c::LOST_TOKENS), u(c::REBUILT_TOKENS));
    let mut out: Vec<(Verdict, f64)> = (0..df.height())
        .map(|i| {
            let t = &tokens[i];
            let key = (
                user[i].to_owned(),
                session[i].to_owned(),
                thread[i].to_owned(),
                msg[i].to_owned(),
                times[i],
                model[i].to_owned(),
                [t.input, t.cache_write_5m, t.cache_write_1h, t.cache_read, t.output],
            );
            let verdict = (
                class[i].to_owned(),
                gaps[i].map(|g| (g * 1000.0).round() as u64),
                ttl[i] as u32,
                prefix[i],
                lost[i],
                rebuilt[i],
            );
            ((key, verdict), miss[i].unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().unzip()
}

/// The shared-prefix flags by a direct search: an earlier request of the
/// same model and version at most the TTL before.
fn warm_by_search(df: &DataFrame) -> Vec<(bool, bool)> {
    let k = Cols(df);
    let (models, versions) = (k.str(c::MODEL).unwrap(), k.str(c::VERSION).unwrap());
    let times: Vec<i64> =
        df.column(c::TIME).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().iter().map(|t| t.unwrap()).collect();
    (0..df.height())
        .map(|i| {
            let gaps = (0..df.height())
                .filter(|&j| models[j] == models[i] && versions[j] == versions[i] && times[j] < times[i])
                .map(|j| times[i] - times[j]);
            let nearest = gaps.min();
            (nearest.is_some_and(|g| g <= 300_000), nearest.is_some_and(|g| g <= 3_600_000))
        })
        .collect()
}

/// Every check of one store: as from scratch, as the cache model, warm flags.
/// The side tables (compaction labels, the session analysis) as sorted text
/// rows, to compare an incremental store with a fresh one.
fn sides(data: &Path) -> Vec<Vec<String>> {
    let store = Store::open(data).unwrap();
    let mut out = Vec::new();
    for t in [Table::AnalysisCompactions, Table::SessionAnalysis] {
        let df = store.read_file(t, None).unwrap().expect("a side table");
        let mut rows: Vec<String> = (0..df.height())
            .map(|i| df.columns().iter().map(|c| format!("{:?}", c.get(i).unwrap())).collect::<Vec<_>>().join("|"))
            .collect();
        rows.sort();
        out.push(rows);
    }
    out
}

/// The side tables a from-scratch refresh of a copy writes.
fn sides_from_scratch(data: &Path) -> Vec<Vec<String>> {
    let copy = copy_of(data);
    let store = Store::open(copy.path()).unwrap();
    materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::All).unwrap();
    sides(copy.path())
}

fn check(data: &Path) -> Result<(), String> {
    let df = stored(data);
    same_rows(&df, &from_scratch(data))?;
    // What views scan (the base without the replaced sessions, then the
    // recent part) is the stored table.
    let scanned = materialize::scan(&Store::open(data).unwrap(), &prices()).unwrap().collect().unwrap();
    same_rows(&df, &scanned).map_err(|e| format!("scanned: {e}"))?;
    if sides(data) != sides_from_scratch(data) {
        return Err(format!("side tables differ:\n{:#?}\n{:#?}", sides(data), sides_from_scratch(data)));
    }
    same_rows(&df, &folded(data)).map_err(|e| format!("folded: {e}"))?;
    let (want, want_miss) = oracle(data);
    let (got, got_miss) = verdicts(&df);
    if want != got {
        return Err(format!("verdicts differ:\n{want:#?}\n{got:#?}"));
    }
    if !want_miss.iter().zip(&got_miss).all(|(a, b)| close(Some(*a), Some(*b))) {
        return Err(format!("miss costs differ: {want_miss:?} vs {got_miss:?}"));
    }
    let flags: Vec<(bool, bool)> = {
        let k = Cols(&df);
        let (w5, w1) = (k.bool(c::WARM_5M).unwrap(), k.bool(c::WARM_1H).unwrap());
        w5.into_iter().zip(w1).collect()
    };
    if flags != warm_by_search(&df) {
        return Err(format!("warm flags differ: {flags:?} vs {:?}", warm_by_search(&df)));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn stored_analysis_equals_a_fresh_one_after_every_step(events in stepwise::events(), steps in stepwise::steps()) {
        let files = stepwise::files(&events);
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut failed = None;
        let rewritten = stepwise::play(root.path(), &files, &steps, |k| {
            ingest_tree(root.path(), data.path());
            if let (None, Err(e)) = (&failed, check(data.path())) {
                failed = Some(format!("after step {k}: {e}"));
            }
        });
        prop_assert!(failed.is_none(), "{}", failed.unwrap_or_default());
        stepwise::finish(root.path(), &files, &rewritten);
        ingest_tree(root.path(), data.path());
        prop_assert!(check(data.path()).is_ok(), "{:?}", check(data.path()));
        // `ingest --rebuild` of a copy computes the same table.
        let copy = copy_of(data.path());
        rebuild(&[root.path().to_path_buf()], &Store::open(copy.path()).unwrap(), &prices(), &Silent, chrono::Utc::now()).unwrap();
        let rebuilt = same_rows(&stored(data.path()), &stored(copy.path()));
        prop_assert!(rebuilt.is_ok(), "rebuilt: {:?}", rebuilt);
    }
}

/// A small tree of two sessions sharing a model within five minutes.
fn small_tree(root: &Path) {
    let events: Vec<stepwise::Event> =
        vec![(0, 0, 0, 10, 0), (1, 0, 0, 20, 2), (0, 0, 1, 30, 3), (1, 5, 1, 40, 4), (0, 4, 2, 5, 1), (1, 0, 3, 7, 6)];
    for (path, lines) in stepwise::files(&events) {
        common::write(root, &path, &lines);
    }
}

/// A named way of damaging the stored table.
type Damage<'a> = (&'a str, Box<dyn Fn() + 'a>);

#[test]
fn a_damaged_or_missing_analysis_table_is_recomputed_by_the_next_ingest() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    small_tree(root.path());
    ingest_tree(root.path(), data.path());
    let good = stored(data.path());
    assert_eq!(good.height(), 6, "five responses, one of two calls");
    let store = Store::open(data.path()).unwrap();
    let (path, recent) = (store.path(Table::Analysis), store.path(Table::RecentAnalysis));
    let bytes = fs::read(&path).unwrap();
    let damage: [Damage; 5] = [
        ("truncated", Box::new(|| fs::write(&path, &bytes[..bytes.len() / 2]).unwrap())),
        ("garbage", Box::new(|| fs::write(&path, b"not parquet").unwrap())),
        ("missing", Box::new(|| fs::remove_file(&path).unwrap())),
        ("recent truncated", Box::new(|| fs::write(&recent, &fs::read(&recent).unwrap()[..100]).unwrap())),
        ("recent missing", Box::new(|| fs::remove_file(&recent).unwrap())),
    ];
    for (what, damage) in damage {
        if what.starts_with("recent") {
            // A recent part: the base written whole, then one session refreshed.
            materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::All).unwrap();
            materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::Sessions(["s1".to_owned()].into()))
                .unwrap();
            assert!(recent.exists());
        }
        damage();
        let report = cachewise::materialize::view(&Store::open(data.path()).unwrap(), &prices(), common::t0())
            .map_err(cachewise::report::ReportError::from)
            .and_then(|view| {
                let q = cachewise::report::query::Query::new(chrono_tz::UTC);
                cachewise::report::usage::usage(&view, cachewise::report::query::Grouping::Daily, &q)
            });
        assert!(report.is_ok(), "{what}: a report still works: {:?}", report.err());
        let o = ingest(
            &[root.path().to_path_buf()],
            &Store::open(data.path()).unwrap(),
            &prices(),
            &Silent,
            chrono::Utc::now(),
        )
        .unwrap();
        assert!(!o.changed, "{what}: no transcript changed");
        let df = stored(data.path());
        assert_eq!(df.height(), 6, "{what}");
        same_rows(&df, &good).unwrap_or_else(|e| panic!("{what}: {e}"));
        check(data.path()).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    // A warm ingest leaves a good table alone.
    materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::Sessions(["s1".to_owned()].into())).unwrap();
    let times = || [&path, &recent].map(|p| fs::metadata(p).unwrap().modified().unwrap());
    let before = times();
    ingest_tree(root.path(), data.path());
    assert_eq!(times(), before);
}

#[test]
fn a_rebuild_and_the_recovery_of_a_damaged_store_write_the_analysis_table() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    small_tree(root.path());
    ingest_tree(root.path(), data.path());
    let good = stored(data.path());
    let store = Store::open(data.path()).unwrap();
    fs::write(store.path(Table::Analysis), b"damaged").unwrap();
    rebuild(&[root.path().to_path_buf()], &store, &prices(), &Silent, chrono::Utc::now()).unwrap();
    same_rows(&stored(data.path()), &good).unwrap();
    // A damaged derived table makes the next ingest rebuild the store.
    fs::write(store.path(Table::SessionTotals), b"damaged").unwrap();
    store.begin().unwrap().remove(Table::Analysis).unwrap();
    let o = ingest(&[root.path().to_path_buf()], &store, &prices(), &Silent, chrono::Utc::now()).unwrap();
    assert!(o.rebuilt.is_some());
    same_rows(&stored(data.path()), &good).unwrap();
    check(data.path()).unwrap();
}

#[test]
fn an_upgrade_from_the_previous_layouts_writes_the_analysis_table() {
    use cachewise::store::manifest::{STORE_SCHEMA, UPGRADABLE_SCHEMAS};
    for old in UPGRADABLE_SCHEMAS {
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        small_tree(root.path());
        ingest_tree(root.path(), data.path());
        let good = stored(data.path());
        // Layout 3 had no analysis table; layout 4's lacks the reason columns.
        let store = Store::open(data.path()).unwrap();
        store.begin().unwrap().remove(Table::Analysis).unwrap();
        let manifest = data.path().join("manifest.json");
        let text = fs::read_to_string(&manifest).unwrap();
        let current = format!("\"schema\":{STORE_SCHEMA}");
        fs::write(&manifest, text.replacen(&current, &format!("\"schema\":{old}"), 1)).unwrap();
        assert!(ingest(&[root.path().to_path_buf()], &store, &prices(), &Silent, chrono::Utc::now()).unwrap().changed);
        assert!(fs::read_to_string(&manifest).unwrap().contains(&current), "layout {old}");
        same_rows(&stored(data.path()), &good).unwrap();
        check(data.path()).unwrap();
    }
}

#[test]
fn a_compaction_logged_after_the_responses_it_precedes_reclassifies_them() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (common::Resp::new("s1", 1, 10), common::Resp::new("s1", 2, 13));
    let mut lines = a.to_lines();
    lines.extend(b.to_lines());
    let path = common::write(root.path(), "-p/s1.jsonl", &lines);
    ingest_tree(root.path(), data.path());
    let classes = |d: &Path| -> Vec<String> {
        let df = stored(d).sort([c::TIME], SortMultipleOptions::default()).unwrap();
        Cols(&df).str(c::CLASS).unwrap().into_iter().map(str::to_owned).collect()
    };
    let before = classes(data.path());
    common::append(&path, &format!("{}\n", common::compact_line("s1", 11, 5000)));
    ingest_tree(root.path(), data.path());
    let after = classes(data.path());
    assert_ne!(before, after, "the compaction starts a new lineage");
    check(data.path()).unwrap();
}
