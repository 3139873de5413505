//! The team report's Markdown (what a lead pastes into a pilot write-up)
//! against a checked-in snapshot, over two people with known cache
//! behaviour: warm turns, a 20-minute break that expires a 5-minute cache,
//! several models. `UPDATE_SNAPSHOTS=1` rewrites `team_report.md`.

use super::common::t0;
use super::support::{bundle_of, prices, row};
use cachewise::model::Request;
use cachewise::report::query::Query;
use cachewise::report::team::{render, team, TeamFormat};
use cachewise::store::Store;
use cachewise::team::import::{import, Incoming};
use chrono::Duration;
use std::path::Path;

/// A thread whose cache grows by 2,010 tokens a turn; `gaps` are minutes
/// before each turn after the first. A gap over 5 minutes loses the cache.
fn thread(user: &str, session: &str, start_min: i64, gaps: &[i64], model: &str) -> Vec<Request> {
    let (mut t, mut prompt) = (start_min, 0u64);
    let mut out = Vec::new();
    for k in 0..=gaps.len() {
        if k > 0 {
            t += gaps[k - 1];
        }
        let mut r = row(user, session, k as u64 + 1, t);
        r.model = model.into();
        let warm = k > 0 && gaps[k - 1] <= 5;
        r.tokens.cache_read = if warm { prompt } else { 0 };
        r.tokens.cache_write_5m = if warm { 2000 } else { prompt + 2000 };
        r.tokens.input = 10;
        r.tokens.output = 400;
        prompt = r.tokens.prompt();
        out.push(r);
    }
    out
}

fn report_markdown(dir: &Path) -> String {
    let store = Store::open(dir).unwrap();
    let day = 24 * 60;
    let mut alice = thread("alice", "a-1", 0, &[2, 3, 20, 1], "claude-sonnet-4-5-20250929");
    alice.extend(thread("alice", "a-2", day, &[4, 4], "claude-opus-4-6"));
    let mut bob = thread("bob", "b-1", 30, &[1, 90], "claude-opus-4-6");
    bob.extend(thread("bob", "b-2", 2 * day, &[3], "claude-haiku-4-5-20251001"));
    let incoming = [("alice", alice), ("bob", bob)]
        .map(|(u, rows)| Incoming { origin: format!("{u}.parquet"), bundle: bundle_of(u, rows) });
    import(&store, &incoming, &prices(), t0()).unwrap();
    let opts_now = t0() + Duration::days(3);
    let r = team(&crate::common::view(&store, &prices(), opts_now), &Query::new(chrono_tz::UTC)).unwrap();
    assert_eq!(r.total.figures.requests, 13);
    render(&r, TeamFormat::Markdown)
}

#[test]
fn markdown_report_matches_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let md = report_markdown(tmp.path());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/team/team_report.md");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &md).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(md, want, "Markdown changed; review it and rerun with UPDATE_SNAPSHOTS=1");
}
