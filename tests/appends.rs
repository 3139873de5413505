//! Appends against the requests base: an append whose line repeats a
//! request of the base is deduplicated against the base (a key file an
//! earlier release wrote beside it is not read); an append of new requests
//! writes the recent part alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::{usage, Totals};
use cachewise::store::{Store, Table};
use cachewise::update::ingest;
use common::*;
use std::fs;
use std::path::Path;

fn run(root: &Path, data: &Path) {
    let prices = PriceTable::load(None).unwrap();
    ingest(&[root.to_path_buf()], &Store::open(data).unwrap(), &prices, &Silent, chrono::Utc::now()).unwrap();
}

fn totals(data: &Path) -> Totals {
    let view = common::view(&Store::open(data).unwrap(), &PriceTable::load(None).unwrap(), t0());
    usage(&view, Grouping::Daily, &Query::new(chrono_tz::UTC)).unwrap().total
}

fn lines(r: &Resp) -> String {
    r.to_lines().join("\n") + "\n"
}

/// Session s1 (three responses) and s2 (one); returns s1's responses and
/// s2's file.
fn tree(root: &Path) -> (Vec<Resp>, std::path::PathBuf) {
    let s1: Vec<Resp> = (1..=3).map(|n| Resp::new("s1", n, n as i64 * 2)).collect();
    write(root, "-home-u-app/s1.jsonl", &s1.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    let s2 = write(root, "-home-u-app/s2.jsonl", &Resp::new("s2", 9, 60).to_lines());
    (s1, s2)
}

#[test]
fn an_append_repeating_a_base_request_is_deduplicated_against_the_base() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (s1, s2) = tree(root.path());
    run(root.path(), data.path());
    // What an earlier release kept beside the base, now damaged: unread.
    fs::write(data.path().join("requests-keys.bin"), b"cwkeys01 and then nothing of use").unwrap();
    let store = Store::open(data.path()).unwrap();
    let base = totals(data.path());
    assert_eq!(base.requests, 4);

    // New requests: the recent part alone is written; the base stays.
    let new = Resp::new("s2", 10, 62);
    append(&s2, &lines(&new));
    run(root.path(), data.path());
    assert!(store.path(Table::RecentRequests).exists());
    let after_new = totals(data.path());
    assert_eq!(after_new.requests, 5);
    assert!((after_new.cost_usd - base.cost_usd - new.sonnet_cost()).abs() < 1e-9);

    // s1's first response replayed into s2 (a resume): the base holds
    // it, so the whole table is written again, the request once.
    append(&s2, &lines(&s1[0]));
    run(root.path(), data.path());
    assert!(!store.path(Table::RecentRequests).exists(), "the table was folded");
    let after_replay = totals(data.path());
    assert_eq!(after_replay.requests, 5);
    assert!((after_replay.cost_usd - after_new.cost_usd).abs() < 1e-12);
    assert!(!data.path().join("requests-keys.bin").exists(), "the old file goes with the fold");
}
