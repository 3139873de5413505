//! Thread identity is `(user, session, thread)` in a team store: alice and
//! bob hold copies of one session id (a copied session) and work on it at
//! interleaved times. Each person's thread stays whole, so the whole
//! store's cache figures (the `/cache` page of a team directory) equal the
//! sum of the per-person figures (`/?user=`) and of the team report.

use super::support::{bundle_of, prices, row};
use crate::common::reference::{cache_report, CacheData};
use cachewise::analyze::CacheClass;
use cachewise::model::Request;
use cachewise::report::cache::CacheQuery;
use cachewise::report::query::Query;
use cachewise::report::team::team;
use cachewise::store::Store;
use cachewise::team::import::{import, Incoming};
use chrono::Duration;

/// A 5-minute-TTL request of `user` in session `same` at `minutes`.
fn turn(user: &str, k: u64, minutes: i64, read: u64, write: u64) -> Request {
    let mut r = row(user, "same", k, minutes);
    r.message_id = format!("msg_{user}_{k}");
    r.tokens.cache_read = read;
    r.tokens.cache_write_5m = write;
    r
}

#[test]
fn thread_identity_includes_the_user_in_team_figures() {
    // alice: 30k written, then read back 2 min later (a hit). bob, between
    // them: 60k written, then read back (a hit), then a context edit at 3 min
    // that re-reads only 10k of his 60k (alice's 30k would hide it).
    let alice = vec![turn("alice", 1, 0, 0, 30_000), turn("alice", 2, 2, 30_004, 500)];
    let bob = vec![turn("bob", 1, 1, 0, 60_000), turn("bob", 2, 3, 10_000, 50_010)];
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path()).unwrap();
    let incoming = [("alice", alice), ("bob", bob)]
        .map(|(u, rows)| Incoming { origin: format!("{u}.parquet"), bundle: bundle_of(u, rows) });
    let p = prices();
    import(&store, &incoming, &p, super::common::t0()).unwrap();
    let data = CacheData::load(&store, &p);
    let now = super::common::t0() + Duration::days(1);
    let report = |user: Option<&str>| {
        let query = Query { user: user.map(str::to_owned), ..Query::new(chrono_tz::UTC) };
        cache_report(&data, &CacheQuery { query, session: None }, now)
    };
    let all = report(None).total.classes;
    assert_eq!(
        (all.get(CacheClass::Hit).count, all.get(CacheClass::First).count, all.get(CacheClass::ContextEdit).count),
        (1, 2, 1)
    );
    // bob's edit: min(60,004, 60,015) - 10,000 = 50,004 lost, rebuilt min(50,004, 50,015).
    assert_eq!(all.get(CacheClass::ContextEdit).rebuilt_tokens, 50_004);
    let (a, b) = (report(Some("alice")).total.classes, report(Some("bob")).total.classes);
    for k in CacheClass::ALL {
        assert_eq!(all.get(k).count, a.get(k).count + b.get(k).count, "{k:?}");
        assert!((all.get(k).miss_cost_usd - a.get(k).miss_cost_usd - b.get(k).miss_cost_usd).abs() < 1e-12);
    }
    let t = team(&crate::common::view(&store, &p, now), &Query::new(chrono_tz::UTC)).unwrap();
    let bob_row = t.rows.iter().find(|r| r.user == "bob").unwrap();
    assert!((bob_row.figures.edit_cost_usd - all.edit_cost_usd()).abs() < 1e-12);
    assert!((t.total.figures.edit_cost_usd - all.edit_cost_usd()).abs() < 1e-12);
}
