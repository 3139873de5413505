//! Importing new people: the side tables (compaction labels, the session
//! table) are derived per person in their scratch stores and appended, and
//! the analysis rows come from the bundles; both must equal what a
//! from-scratch `materialize::refresh` of the same store writes, for a new
//! team store and for people added to one (a session id two people share
//! included).

use super::common::{compact_line, write, Resp};
use super::support::{cw, ok, prices};
use cachewise::materialize::{self, Changed};
use cachewise::store::{Store, Table};
use polars::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

/// `name`'s transcripts: two sessions of `n` responses, each with a
/// compaction after the third response and an idle gap before the last;
/// `shared` is a session id written under this person too.
fn tree(root: &Path, name: &str, n: u64, shared: &str) {
    for (s, sid) in [format!("{name}-s0"), format!("{name}-s1"), shared.to_owned()].iter().enumerate() {
        let day = s as i64 * 24 * 60;
        let minutes = |k: u64| day + k as i64 * 3 + if k == n { 90 } else { 0 };
        let mut lines: Vec<String> = Vec::new();
        for k in 1..=n {
            lines.extend(Resp::new(sid, k, minutes(k)).to_lines());
            if k == 3 {
                lines.push(compact_line(sid, minutes(k) + 1, 50_000));
            }
        }
        write(root, &format!("-home-{name}-app/{sid}.jsonl"), &lines);
    }
}

/// `name`'s bundle, exported from their own store under `tmp`.
fn bundle(tmp: &Path, name: &str, n: u64) -> PathBuf {
    let (root, local, out) = (tmp.join(format!("r-{name}")), tmp.join(format!("l-{name}")), tmp.join(name));
    tree(&root, name, n, "shared-session");
    fs::create_dir_all(&out).unwrap();
    let file = out.join(format!("{name}.parquet"));
    let args = ["export", "--user", name, "--machine", "laptop", "--out", file.to_str().unwrap()];
    ok(&cw(Some(&root), &local, &args));
    file
}

/// A table's rows as sorted text (every column, floats to the bit).
fn text_rows(df: &DataFrame) -> Vec<String> {
    let mut rows: Vec<String> = (0..df.height())
        .map(|i| df.columns().iter().map(|c| format!("{:?}", c.get(i).unwrap())).collect::<Vec<_>>().join("|"))
        .collect();
    rows.sort();
    rows
}

/// The analysis table and the side tables of a data directory, as rows.
fn tables(dir: &Path) -> [Vec<String>; 3] {
    let store = Store::open(dir).unwrap();
    let rows = materialize::current(&store, &prices()).unwrap().expect("an analysis table");
    let side = |t: Table| text_rows(&store.read_file(t, None).unwrap().expect("a side table"));
    [text_rows(&rows), side(Table::AnalysisCompactions), side(Table::SessionAnalysis)]
}

/// The same tables computed from scratch over a copy of the directory.
fn from_scratch(dir: &Path) -> [Vec<String>; 3] {
    let copy = tempfile::tempdir().unwrap();
    for f in fs::read_dir(dir).unwrap() {
        let f = f.unwrap();
        if f.file_type().unwrap().is_file() {
            fs::copy(f.path(), copy.path().join(f.file_name())).unwrap();
        }
    }
    let store = Store::open(copy.path()).unwrap();
    for t in [Table::Analysis, Table::RecentAnalysis, Table::AnalysisCompactions, Table::SessionAnalysis] {
        store.begin().unwrap().remove(t).unwrap();
    }
    materialize::refresh(&store.begin().unwrap(), &prices(), &Changed::All).unwrap();
    tables(copy.path())
}

#[test]
fn importing_new_people_gives_the_analysis_and_side_tables_of_a_refresh() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let first: Vec<PathBuf> = [("carol", 6), ("alice", 5), ("bob", 4)].map(|(p, n)| bundle(tmp.path(), p, n)).into();
    let mut args = vec!["import"];
    args.extend(first.iter().map(|p| p.to_str().unwrap()));
    ok(&cw(None, &team, &args));
    let got = tables(&team);
    // Three people, three sessions each, a compaction in every session.
    assert_eq!((got[0].len(), got[1].len(), got[2].len()), (3 * (6 + 5 + 4), 9, 9));
    assert_eq!(got, from_scratch(&team), "a new team store");
    // A fourth person joins the store: appended onto the stored tables.
    let dave = bundle(tmp.path(), "dave", 5);
    ok(&cw(None, &team, &["import", dave.to_str().unwrap()]));
    let got = tables(&team);
    assert_eq!((got[0].len(), got[1].len(), got[2].len()), (3 * (6 + 5 + 4 + 5), 12, 12));
    assert_eq!(got, from_scratch(&team), "people added to a team store");
}
