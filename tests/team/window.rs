//! The team report's cache figures near the window's edge: each person's
//! requests are classified over their whole history, then the window's
//! rows summed, as `report::cache` does. A request that follows an idle
//! gap across `--since` stays a 5-minute expiry (not a cold "first"
//! request), and the figures equal `cache --since --user`.

use super::support::{bundle_of, prices, row};
use crate::common::reference::{cache_report, CacheData};
use cachewise::analyze::{analyze, CacheClass};
use cachewise::model::Request;
use cachewise::report::cache::CacheQuery;
use cachewise::report::query::Query;
use cachewise::report::team::team;
use cachewise::store::Store;
use cachewise::team::import::{import, Incoming};
use chrono::{Duration, NaiveDate};

/// A request of `user` at `minutes` after t0 (2026-02-11 20:00 UTC) reading
/// `read` cached tokens and writing `write` (5-minute TTL).
fn turn(user: &str, session: &str, k: u64, minutes: i64, read: u64, write: u64) -> Request {
    let mut r = row(user, session, k, minutes);
    r.tokens.cache_read = read;
    r.tokens.cache_write_5m = write;
    r
}

/// Alice: 23:50, then 00:05 after a 15-minute break (the 5-minute cache
/// expired: the prompt is written again), then 00:07 warm. Bob: one day-2 turn.
fn people() -> (Vec<Request>, Vec<Request>) {
    let alice = vec![
        turn("alice", "a-1", 1, 230, 0, 20_000),
        turn("alice", "a-1", 2, 245, 0, 21_000),
        turn("alice", "a-1", 3, 247, 21_010, 1_000),
    ];
    let bob = vec![turn("bob", "b-1", 1, 300, 0, 5_000)];
    (alice, bob)
}

#[test]
fn since_mid_session_keeps_the_cache_history() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path()).unwrap();
    let (alice, bob) = people();
    let incoming = [("alice", alice.clone()), ("bob", bob)]
        .map(|(u, rows)| Incoming { origin: format!("{u}.parquet"), bundle: bundle_of(u, rows) });
    let p = prices();
    import(&store, &incoming, &p, super::common::t0()).unwrap();

    // The reference: alice's whole thread classified together.
    let caches = analyze(&alice, &[], &p);
    assert_eq!(caches[1].class, CacheClass::Ttl5m, "the break expired the cache");
    assert_eq!(caches[2].class, CacheClass::Hit);
    let expiry_cost = caches[1].miss_cost_usd;
    assert!(expiry_cost > 0.0);
    // Classifying the window alone would call 00:05 a thread start: no idle cost.
    let window_only = analyze(&alice[1..], &[], &p);
    assert_eq!(window_only[0].class, CacheClass::First);

    let since = NaiveDate::from_ymd_opt(2026, 2, 12);
    let q = Query { since, ..Query::new(chrono_tz::UTC) };
    let opts_now = super::common::t0() + Duration::days(2);
    let r = team(&crate::common::view(&store, &p, opts_now), &q).unwrap();
    let a = r.rows.iter().find(|x| x.user == "alice").unwrap();
    assert_eq!((a.figures.requests, a.figures.active_days), (2, 1));
    assert!((a.figures.idle_cost_usd - expiry_cost).abs() < 1e-12, "{} vs {expiry_cost}", a.figures.idle_cost_usd);
    let b = r.rows.iter().find(|x| x.user == "bob").unwrap();
    assert_eq!(b.figures.idle_cost_usd, 0.0);
    assert!((r.total.figures.idle_cost_usd - expiry_cost).abs() < 1e-12);

    // The same figures as `cachewise cache --since 2026-02-12 --user alice`.
    let data = CacheData::load(&store, &p);
    let cq = CacheQuery { query: Query { user: Some("alice".into()), ..q.clone() }, session: None };
    let c = cache_report(&data, &cq, opts_now);
    assert_eq!(c.total.requests, 2);
    assert!((c.total.idle_cost_usd - a.figures.idle_cost_usd).abs() < 1e-12);

    // The user filter of the team report itself: only alice's row.
    let only = team(&crate::common::view(&store, &p, opts_now), &Query { user: Some("alice".into()), ..q }).unwrap();
    assert_eq!(only.rows.iter().map(|x| x.user.as_str()).collect::<Vec<_>>(), ["alice"]);
    assert_eq!(only.rows[0].figures, a.figures);
}
