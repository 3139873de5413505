//! The team report from stored columns: its cache figures equal a test-only
//! oracle that runs the cache model per person over the stored rows (the
//! old code path); a schema-2 bundle (no analysis rows) imports to the same
//! figures as a schema-3 bundle carrying the exporter's analysis; hostile
//! analysis rows are refused with a message naming the bundle.

use super::common::t0;
use super::support::class_tables;
use super::support::{prices, row};
use cachewise::analyze::{analyze, CacheClass, ClassTable};
use cachewise::ingest::Rows;
use cachewise::model::columns as c;
use cachewise::model::Request;
use cachewise::report::query::Query;
use cachewise::report::team::team;
use cachewise::store::{frames, Store, Table};
use cachewise::team::bundle::read_bundle;
use cachewise::team::export::{export_with_analysis, ExportSpec};
use cachewise::team::import::{import, Incoming};
use cachewise::team::{bundle_bytes, Bundle};
use cachewise::update::store_rows;
use chrono::{Duration, NaiveDate};
use polars::prelude::*;
use std::collections::BTreeMap;

/// A person's rows: three sessions, gaps of 2, 7 and 70 minutes (hits,
/// 5-minute and 1-hour expiries), one day apart.
fn person(user: &str, shift: i64) -> Vec<Request> {
    let gaps = [0, 2, 7, 2, 70, 3, 7, 1];
    let mut out = Vec::new();
    for s in 0..3 {
        let mut minutes = shift + s * 24 * 60;
        for (k, gap) in gaps.iter().enumerate() {
            minutes += gap;
            let mut r = row(user, &format!("{user}-s{s}"), (s * 10) as u64 + k as u64 + 1, minutes);
            r.tokens.cache_write_1h = if s == 2 { 500 } else { 0 };
            out.push(r);
        }
    }
    out
}

/// A person's local store (user "") and their bundle with analysis rows.
pub(super) fn bundle(dir: &std::path::Path, user: &str, shift: i64) -> Bundle {
    let store = Store::open(&dir.join(format!("local-{user}"))).unwrap();
    let rows: Vec<Request> = person("", shift).into_iter().map(|r| Request { machine: "".into(), ..r }).collect();
    store_rows(&store, Rows { rows, ..Rows::default() }, &prices(), None).unwrap();
    let spec = ExportSpec {
        user: user.into(),
        machine: "laptop".into(),
        since: None,
        until: None,
        hasher: None,
        created: t0(),
    };
    export_with_analysis(&store, &spec, &prices()).unwrap().bundle
}

fn incoming(b: &Bundle, origin: &str) -> Incoming {
    Incoming { origin: origin.into(), bundle: read_bundle(&bundle_bytes(b).unwrap(), origin).unwrap() }
}

/// The old path: one cache model per person over all their stored rows.
fn oracle(store: &Store, q: &Query) -> BTreeMap<String, ClassTable> {
    let all = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    let mut mine: BTreeMap<String, Vec<Request>> = BTreeMap::new();
    for r in all {
        mine.entry(r.user.to_string()).or_default().push(r);
    }
    mine.into_iter()
        .map(|(user, rows)| {
            let caches = analyze(&rows, &[], &prices());
            let mut classes = ClassTable::default();
            for (_, k) in rows.iter().zip(&caches).filter(|(r, _)| q.accepts_parts(&r.user, &r.project, &r.cwd, r.time))
            {
                classes.add(k);
            }
            (user, classes)
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

#[test]
fn report_team_from_columns_equals_the_cache_model_per_person() {
    let tmp = tempfile::tempdir().unwrap();
    let team_dir = Store::open(&tmp.path().join("team")).unwrap();
    let people = [("alice", 0), ("bob", 30), ("carol", 600)];
    let sent: Vec<Incoming> = people.iter().map(|(u, shift)| incoming(&bundle(tmp.path(), u, *shift), u)).collect();
    assert!(sent.iter().all(|i| i.bundle.analysis.as_ref().is_some_and(|a| a.rows.height() == 24)));
    import(&team_dir, &sent, &prices(), t0()).unwrap();
    let mut windowed = Query::new(chrono_tz::UTC);
    windowed.since = NaiveDate::from_ymd_opt(2026, 2, 12);
    for q in [Query::new(chrono_tz::UTC), windowed] {
        let want = oracle(&team_dir, &q);
        let got_classes = class_tables(&crate::common::view(&team_dir, &prices(), crate::common::t0()), &q).unwrap();
        let opts_now = t0() + Duration::days(30);
        let report = team(&crate::common::view(&team_dir, &prices(), opts_now), &q).unwrap();
        assert_eq!(report.rows.len(), 3);
        for r in &report.rows {
            let classes = &want[&r.user];
            assert_eq!(
                got_classes[&r.user].get(CacheClass::Ttl5m).count,
                classes.get(CacheClass::Ttl5m).count,
                "{}",
                r.user
            );
            assert_eq!(got_classes[&r.user].requests(), classes.requests(), "{}", r.user);
            assert!(
                classes.get(CacheClass::Ttl5m).count > 0 && classes.get(CacheClass::Ttl1h).count > 0,
                "the fixture has expiries"
            );
            assert!(close(r.figures.idle_cost_usd, classes.idle_cost_usd()), "{}: {}", r.user, r.figures.idle_cost_usd);
            assert!(close(r.figures.edit_cost_usd, classes.edit_cost_usd()));
            assert_eq!(r.machines, ["laptop"]);
        }
        let idle: f64 = want.values().map(ClassTable::idle_cost_usd).sum();
        assert!(close(report.total.figures.idle_cost_usd, idle));
    }
    // A person's figures do not change with who else is in the store.
    let mut only = Query::new(chrono_tz::UTC);
    only.user = Some("bob".into());
    let opts_now = t0() + Duration::days(30);
    let bob = team(&crate::common::view(&team_dir, &prices(), opts_now), &only).unwrap();
    let all = team(&crate::common::view(&team_dir, &prices(), opts_now), &Query::new(chrono_tz::UTC)).unwrap();
    assert_eq!(bob.rows.len(), 1);
    // (The run-rate differs: the window is the data's, and bob's is shorter.)
    assert_eq!(bob.rows[0].figures, all.rows[1].figures);
}

#[test]
fn a_schema_2_bundle_imports_to_the_same_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let b3 = bundle(tmp.path(), "alice", 0);
    let mut b2 = b3.clone();
    (b2.meta.schema, b2.analysis) = (2, None);
    let (s3, s2) = (Store::open(&tmp.path().join("t3")).unwrap(), Store::open(&tmp.path().join("t2")).unwrap());
    import(&s3, &[incoming(&b3, "v3")], &prices(), t0()).unwrap();
    let again = incoming(&b2, "v2");
    assert!(again.bundle.analysis.is_none() && again.bundle.meta.schema == 2);
    import(&s2, &[again], &prices(), t0()).unwrap();
    let opts_now = t0() + Duration::days(30);
    let q = Query::new(chrono_tz::UTC);
    let at = |s: &Store| crate::common::view(s, &prices(), opts_now);
    let (r3, r2) = (team(&at(&s3), &q).unwrap(), team(&at(&s2), &q).unwrap());
    assert!(r3.rows[0].figures.idle_cost_usd > 0.0);
    assert_eq!(r3, r2);
}

/// `b` with its analysis column `name` replaced by `value` on the first row.
fn tampered(b: &Bundle, name: &str, value: AnyValue<'static>) -> Vec<u8> {
    let mut b = b.clone();
    let a = b.analysis.as_mut().unwrap();
    let col = a.rows.column(name).unwrap().as_materialized_series().clone();
    let mut values: Vec<AnyValue> = col.iter().map(|v| v.into_static()).collect();
    values[0] = value;
    let s = Series::from_any_values_and_dtype(name.into(), &values, col.dtype(), true).unwrap();
    a.rows.with_column(s.into_column()).unwrap();
    bundle_bytes(&b).unwrap()
}

#[test]
fn hostile_analysis_rows_are_refused_naming_the_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let b = bundle(tmp.path(), "alice", 0);
    // A bundle writer puts the bundle's user on every row; a row naming
    // someone else (a hand-made file) is refused by the same check.
    let mut rows = b.analysis.as_ref().unwrap().rows.clone();
    rows.with_column(Column::new(c::USER.into(), vec!["bob"; rows.height()])).unwrap();
    let err = cachewise::team::analysis::check(&rows, "alice").unwrap_err();
    assert_eq!(err, "analysis row 1 names user \"bob\", but the bundle is \"alice\"'s");
    let cases = [
        (c::REBUILT_TOKENS, AnyValue::UInt64(u64::MAX / 2), "rebuilt_tokens"),
        (c::MISS_COST_USD, AnyValue::Float64(f64::NAN), "miss_cost_usd NaN is not a finite figure"),
        (c::RESUME_PREMIUM_USD, AnyValue::Float64(-1.0), "resume_premium_usd -1 is not a finite figure"),
        (c::PROJECT, AnyValue::StringOwned("\u{1b}[31mred".into()), "project holds control characters"),
        (c::CLASS, AnyValue::StringOwned("free".into()), "unknown cache class"),
        (c::QUERY_SOURCE, AnyValue::StringOwned("sdk\u{7}".into()), "query_source holds control characters"),
        (
            c::SHAPE_HASH,
            AnyValue::StringOwned("f".repeat(5000).into()),
            "shape_hash holds control characters or is too long",
        ),
    ];
    for (name, value, why) in cases {
        let err = read_bundle(&tampered(&b, name, value), "evil.parquet").unwrap_err().to_string();
        assert!(err.starts_with("evil.parquet: damaged bundle: analysis row 1"), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
    }
    // A changed value that stays in bounds breaks the checksum.
    let mut bytes = tampered(&b, c::MISS_COST_USD, AnyValue::Float64(1.0));
    let fine = read_bundle(&bytes, "edited.parquet");
    assert!(fine.is_ok(), "a re-written bundle carries its own checksum");
    let at = bytes.windows(6).position(|w| w == b"sha256").unwrap() + 7;
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let err = read_bundle(&bytes, "edited.parquet").unwrap_err().to_string();
    assert!(err.contains("edited.parquet") && err.contains("checksum"), "{err}");
}

#[test]
fn a_persons_session_columns_are_their_own_when_session_ids_repeat() {
    use cachewise::report::cache::rows::annotate_sessions;
    use cachewise::report::query::Grouping;
    use cachewise::report::usage::usage;
    // Both bundles name their sessions -s0, -s1 and -s2 (`bundle`).
    let tmp = tempfile::tempdir().unwrap();
    let team_dir = Store::open(&tmp.path().join("team")).unwrap();
    let alone = Store::open(&tmp.path().join("alone")).unwrap();
    let (a, b) = (bundle(tmp.path(), "alice", 0), bundle(tmp.path(), "bob", 30));
    import(&team_dir, &[incoming(&a, "a"), incoming(&b, "b")], &prices(), t0()).unwrap();
    import(&alone, &[incoming(&a, "a")], &prices(), t0()).unwrap();
    let mut q = Query::new(chrono_tz::UTC);
    q.user = Some("alice".into());
    let now = t0() + Duration::days(30);
    let columns = |store: &Store| {
        let view = crate::common::view(store, &prices(), now);
        let mut r = usage(&view, Grouping::Session, &q).unwrap();
        annotate_sessions(&mut r, &view, Some("alice")).unwrap();
        r.rows.iter().map(|row| (row.key.clone(), row.cache.unwrap())).collect::<Vec<_>>()
    };
    let (in_team, own) = (columns(&team_dir), columns(&alone));
    assert_eq!(in_team.len(), 3);
    assert!(own.iter().all(|(_, k)| k.misses > 0));
    assert!(own.iter().all(|(_, k)| k.idle_cost_usd > 0.0));
    // A team store's sessions are their owners' to resume: no premium here.
    assert!(own.iter().all(|(_, k)| k.stale_premium_usd == 0.0 && k.not_resumable.is_some()));
    assert_eq!(in_team, own, "bob's rows of the same session ids are not alice's");
}

#[test]
fn a_team_store_of_layout_5_takes_a_new_bundle_and_is_upgraded() {
    let tmp = tempfile::tempdir().unwrap();
    let team_dir = Store::open(&tmp.path().join("team")).unwrap();
    let (alice, bob) = (bundle(tmp.path(), "alice", 0), bundle(tmp.path(), "bob", 30));
    import(&team_dir, &[incoming(&alice, "alice")], &prices(), t0()).unwrap();
    // As layout 5 left it: requests and spares without the client columns.
    let client = ["query_source", "shape_hash", "ttl_asked"];
    let mut old = team_dir.read(Table::Requests).unwrap().unwrap().drop_many(client);
    team_dir.begin().unwrap().write_requests_base(&mut old).unwrap();
    if let Some(spares) = team_dir.read(Table::Spares).unwrap() {
        team_dir.begin().unwrap().write(Table::Spares, &mut spares.drop_many(client)).unwrap();
    }
    let manifest = team_dir.dir().join("manifest.json");
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen(&current, "\"schema\":5", 1)).unwrap();
    import(&team_dir, &[incoming(&bob, "bob")], &prices(), t0()).unwrap();
    let requests = team_dir.read(Table::Requests).unwrap().unwrap();
    assert_eq!((requests.height(), requests.width()), (48, 29), "both people's rows, in this layout");
    let report =
        team(&crate::common::view(&team_dir, &prices(), t0() + Duration::days(30)), &Query::new(chrono_tz::UTC));
    assert_eq!(report.unwrap().rows.len(), 2);
}
