//! An import validates bundle files on their columns (`team::frame_checks`)
//! and uploads on their typed rows: for every kind of hostile bundle both
//! refuse it with the same message, and a refused file leaves the store
//! as it was.

use super::support::{bundle_of, bytes_of, prices, row, snapshot};
use cachewise::ingest::Silent;
use cachewise::model::MAX_TOKENS;
use cachewise::store::Store;
use cachewise::team::import::Incoming;
use cachewise::team::limits::BundleLimits;
use cachewise::team::{import, import_files, read_bundle_limited, Bundle};
use chrono::Utc;

/// Alice's three requests, edited.
fn alice(edit: impl Fn(&mut Bundle)) -> Bundle {
    let mut b = bundle_of("alice", (1..=3).map(|k| row("alice", "s1", k, k as i64 * 2)).collect());
    edit(&mut b);
    b
}

/// The error of importing `b` as a file (checked on columns) and as an
/// upload (read and checked as typed rows), each without its origin.
fn refusals(b: &Bundle) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let (file, team) = (tmp.path().join("b.parquet"), tmp.path().join("team"));
    std::fs::write(&file, bytes_of(b)).unwrap();
    let store = Store::open(&team).unwrap();
    let before = snapshot(&team);
    let limits = BundleLimits::default();
    let as_file = import_files(&store, std::slice::from_ref(&file), &limits, &prices(), Utc::now(), &Silent)
        .unwrap_err()
        .to_string();
    assert_eq!(snapshot(&team), before, "a refused file changes nothing");
    let origin = file.display().to_string();
    // An upload is read as the push server reads it: at its clock.
    let as_upload = match read_bundle_limited(&bytes_of(b), &origin, &limits.at(Utc::now())) {
        Err(e) => e.to_string(),
        Ok(bundle) => import(&store, &[Incoming { origin: origin.clone(), bundle }], &prices(), Utc::now())
            .unwrap_err()
            .to_string(),
    };
    (as_file.replace(&origin, "B"), as_upload.replace(&origin, "B"))
}

fn far_future() -> chrono::DateTime<Utc> {
    chrono::TimeZone::with_ymd_and_hms(&Utc, 9999, 12, 31, 0, 0, 0).unwrap()
}

#[test]
fn files_checked_on_columns_are_refused_as_typed_rows_are() {
    let cases: Vec<(&str, Bundle)> = vec![
        ("above the bound of", alice(|b| b.requests[1].tokens.cache_read = MAX_TOKENS + 1)),
        ("web searches", alice(|b| b.requests[2].web_search = 1_000_001)),
        // A token field beats a later row's web searches, as row by row.
        (
            "request row 2 (message",
            alice(|b| {
                b.requests[1].tokens.output = MAX_TOKENS + 5;
                b.requests[2].web_search = 1_000_001;
            }),
        ),
        ("pre_tokens", alice(|b| b.compactions[0].pre_tokens = Some(MAX_TOKENS + 1))),
        ("names user \"mallory\"", alice(|b| b.requests[2].user = "mallory".into())),
        ("name no user", alice(|b| b.requests[0].user = "".into())),
        ("name no user", alice(|b| b.meta.user = String::new())),
        // Ingest refuses a line stamped a day past the clock; so do imports and pushes.
        ("more than a day after the clock", alice(|b| b.requests[1].time = far_future())),
        ("more than a day after the clock", alice(|b| b.compactions[0].time = far_future())),
    ];
    for (want, b) in cases {
        let (as_file, as_upload) = refusals(&b);
        assert!(as_file.contains(want), "{want}: {as_file}");
        assert_eq!(as_file, as_upload, "{want}");
    }
}

/// People's lanes decode files in their people's order, not the files':
/// when two files are bad, the error names the first file, as a check of
/// every file up front did, and nothing is written.
#[test]
fn the_first_bad_file_is_named_whichever_person_met_first() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let mut zed = bundle_of("zed", (1..=3).map(|k| row("zed", "s9", k, k as i64)).collect());
    zed.requests[0].tokens.input = MAX_TOKENS + 1;
    let mallory = alice(|b| b.requests[2].user = "mallory".into());
    let carol = bundle_of("carol", (1..=2).map(|k| row("carol", "s5", k, k as i64)).collect());
    // Files in name order: zed's (bad), alice's (bad), carol's (good);
    // people in name order: alice, carol, zed.
    let files: Vec<_> = [("a.parquet", &zed), ("b.parquet", &mallory), ("c.parquet", &carol)]
        .into_iter()
        .map(|(name, b)| {
            let path = tmp.path().join(name);
            std::fs::write(&path, bytes_of(b)).unwrap();
            path
        })
        .collect();
    let store = Store::open(&team).unwrap();
    let before = snapshot(&team);
    let err =
        import_files(&store, &files, &BundleLimits::default(), &prices(), Utc::now(), &Silent).unwrap_err().to_string();
    assert!(err.contains("a.parquet") && err.contains("above the bound of"), "{err}");
    assert_eq!(snapshot(&team), before, "nothing is written, no scratch store is left");
    // Alone, alice's file is refused for its own fault.
    let err = import_files(&store, &files[1..], &BundleLimits::default(), &prices(), Utc::now(), &Silent).unwrap_err();
    assert!(err.to_string().contains("b.parquet") && err.to_string().contains("mallory"), "{err}");
    assert_eq!(snapshot(&team), before);
}

/// What an import tells its progress bar, in order.
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<String>>);

impl cachewise::ingest::Progress for Recorded {
    fn start(&self, total: u64) {
        self.0.lock().unwrap().push(format!("start {total}"));
    }
    fn advance(&self, done: u64) {
        self.0.lock().unwrap().push(format!("advance {done}"));
    }
    fn step(&self, what: &'static str) {
        self.0.lock().unwrap().push(what.to_owned());
    }
    fn finish(&self) {
        self.0.lock().unwrap().push("finish".to_owned());
    }
}

#[test]
fn an_import_counts_its_bundles_merged_then_names_the_store_written() {
    let tmp = tempfile::tempdir().unwrap();
    let people = [("ann", 3), ("bob", 2), ("cy", 1)];
    let files: Vec<_> = people
        .iter()
        .map(|&(user, n)| {
            let path = tmp.path().join(format!("{user}.parquet"));
            std::fs::write(&path, bytes_of(&bundle_of(user, (1..=n).map(|k| row(user, "s1", k, k as i64)).collect())))
                .unwrap();
            path
        })
        .collect();
    let store = Store::open(&tmp.path().join("team")).unwrap();
    let seen = Recorded::default();
    let o = import_files(&store, &files, &BundleLimits::default(), &prices(), Utc::now(), &seen).unwrap();
    assert_eq!(o.requests_after, 6);
    let seen = seen.0.into_inner().unwrap();
    assert_eq!(seen[..2], ["merging bundles", "start 3"]);
    assert_eq!(seen[2..5], ["advance 1"; 3], "one per person, each with one bundle");
    assert_eq!(seen[5..], ["writing the team store", "finish"]);
    // A bundle refused once merging began still takes the bar away.
    let seen = Recorded::default();
    let mut zed = bundle_of("zed", vec![row("zed", "s9", 1, 1)]);
    zed.requests[0].tokens.input = MAX_TOKENS + 1;
    let bad = tmp.path().join("zed.parquet");
    std::fs::write(&bad, bytes_of(&zed)).unwrap();
    assert!(import_files(&store, &[bad], &BundleLimits::default(), &prices(), Utc::now(), &seen).is_err());
    assert_eq!(seen.0.into_inner().unwrap(), ["merging bundles", "start 1", "finish"]);
}

#[test]
fn the_checksum_shows_a_value_moved_into_a_null() {
    use cachewise::team::bundle::frame_checksum;
    use polars::prelude::*;
    let frame = |n: [Option<i64>; 3], s: [Option<&str>; 3]| {
        DataFrame::new(3, vec![Column::new("n".into(), n), Column::new("s".into(), s)]).unwrap()
    };
    let frames = [
        frame([Some(1), None, Some(2)], [Some("a"), None, None]),
        frame([None, Some(1), Some(2)], [Some("a"), None, None]),
        frame([Some(1), None, Some(2)], [None, Some("a"), None]),
        frame([Some(1), Some(0), Some(2)], [Some("a"), None, None]),
        frame([Some(1), None, Some(2)], [Some("a"), Some(""), None]),
    ];
    let sums: Vec<String> = frames.iter().map(|f| frame_checksum(f, &["n", "s"]).unwrap()).collect();
    assert!(sums.iter().all(|s| s.starts_with("sha256:")), "{sums:?}");
    let distinct: std::collections::HashSet<&String> = sums.iter().collect();
    assert_eq!(distinct.len(), frames.len(), "every change shows: {sums:?}");
    assert_eq!(frame_checksum(&frames[0], &["n", "s"]).unwrap(), sums[0], "the same rows, the same sum");
}
