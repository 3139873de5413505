//! Data an earlier release wrote keeps working: team bundles of schema 1 to
//! 5 and the data directories those releases wrote
//! (`tests/data/old-releases`, written by building each release from git;
//! its README says which commit and how) import or upgrade today, with the
//! figures the release itself reported: the same total and the same cost
//! and tokens per session. An ingest of the same transcripts over an
//! upgraded store adds nothing. A team directory an earlier release wrote
//! reads, and is written again in today's layout, with the same figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/old-releases")
}

fn cachewise(data: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .arg("--data-dir")
        .arg(data)
        .args(["--quiet", "--tz", "UTC"])
        .args(args)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CACHEWISE_DATA_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Each row's `key` -> its `fields` (sorted by key) of a report's `rows`.
fn keyed(v: &Value, key: &str, fields: &[&str]) -> Vec<(String, Vec<f64>)> {
    let mut rows: Vec<(String, Vec<f64>)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[key].as_str().unwrap().to_owned(), fields.iter().map(|k| r[*k].as_f64().unwrap()).collect()))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

const TOKENS: [&str; 5] =
    ["input_tokens", "output_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens", "cache_read_tokens"];

/// Session id -> (cost, requests, tokens) of a `report session --json`.
fn sessions(v: &Value) -> Vec<(String, Vec<f64>)> {
    keyed(v, "session_id", &[&["cost_usd", "requests"][..], &TOKENS].concat())
}

#[track_caller]
fn same_figures(ours: &str, theirs: &Value, what: &str) {
    let ours: Value = serde_json::from_str(ours).unwrap();
    let (a, b) = (sessions(&ours), sessions(theirs));
    assert_eq!(a.len(), b.len(), "{what}: sessions");
    for ((id, x), (id2, y)) in a.iter().zip(&b) {
        assert_eq!(id, id2, "{what}");
        for (p, q) in x.iter().zip(y) {
            assert!((p - q).abs() < 1e-9, "{what}: session {id}: {x:?} against the release's {y:?}");
        }
    }
}

fn release_figures(schema: u32) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("figures-schema{schema}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn bundles_of_schema_1_to_5_import_with_the_figures_their_release_reported() {
    for schema in [1, 2, 3, 4, 5] {
        let theirs = release_figures(schema);
        let data = tempfile::tempdir().unwrap();
        let bundle = dir().join(format!("bundle-schema-{schema}.parquet"));
        let said = cachewise(data.path(), &["import", bundle.to_str().unwrap()]);
        assert!(said.contains("24 request rows, 24 new"), "schema {schema}: {said}");
        let ours = cachewise(data.path(), &["--no-ingest", "report", "session", "--json"]);
        same_figures(&ours, &theirs["report_session"], &format!("bundle schema {schema}"));
        let total: Value =
            serde_json::from_str(&cachewise(data.path(), &["--no-ingest", "report", "daily", "--json"])).unwrap();
        assert_eq!(total["total"]["cost_usd"], theirs["total_cost_usd"], "schema {schema}");
        // Imported twice: nothing new.
        let again = cachewise(data.path(), &["import", bundle.to_str().unwrap()]);
        assert!(again.contains("0 new, 24 already present"), "schema {schema}: {again}");
    }
}

#[test]
fn stores_of_earlier_releases_are_read_and_upgraded_with_their_figures() {
    for schema in [1, 2, 3, 4, 5] {
        let theirs = release_figures(schema);
        let data = tempfile::tempdir().unwrap();
        let src = dir().join(format!("store-schema{schema}"));
        for entry in std::fs::read_dir(&src).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), data.path().join(entry.file_name())).unwrap();
        }
        let ours = cachewise(data.path(), &["--no-ingest", "report", "session", "--json"]);
        same_figures(&ours, &theirs["report_session"], &format!("store of schema-{schema} release"));
        // An ingest of the same transcripts (here under another path) over
        // the old store: the store is brought to today's layout and counts
        // each response once.
        let tree = dir().join("tree");
        let ours = cachewise(data.path(), &["--claude-dir", tree.to_str().unwrap(), "report", "session", "--json"]);
        same_figures(&ours, &theirs["report_session"], &format!("store of schema-{schema} release after an ingest"));
        let cache: Value = serde_json::from_str(&cachewise(data.path(), &["--no-ingest", "cache", "--json"])).unwrap();
        assert!(cache.is_object(), "schema {schema}: the cache report reads the upgraded store");
    }
}

/// User -> (cost, requests, active days, idle cost, tokens) of a
/// `report team --json`.
fn people(v: &Value) -> Vec<(String, Vec<f64>)> {
    keyed(v, "user", &[&["cost_usd", "requests", "active_days", "idle_cost_usd"][..], &TOKENS].concat())
}

#[track_caller]
fn same_people(ours: &str, theirs: &Value, what: &str) {
    let ours: Value = serde_json::from_str(ours).unwrap();
    let (a, b) = (people(&ours), people(theirs));
    assert_eq!(a.iter().map(|p| &p.0).collect::<Vec<_>>(), ["alice", "bob"], "{what}");
    for ((user, x), (_, y)) in a.iter().zip(&b) {
        for (p, q) in x.iter().zip(y) {
            assert!((p - q).abs() < 1e-9, "{what}: {user}: {x:?} against the release's {y:?}");
        }
    }
    assert_eq!(a.len(), b.len(), "{what}");
}

fn store_layout(data: &Path) -> u64 {
    let m: Value = serde_json::from_str(&std::fs::read_to_string(data.join("manifest.json")).unwrap()).unwrap();
    m["schema"].as_u64().unwrap()
}

/// A team directory an earlier release wrote (`team-schema3/`: alice's and
/// bob's bundles imported by the release of bundle schema 3, store layout
/// 4) reads with that release's figures, is written again in today's layout
/// by the first report that may write, with the same figures, and takes a
/// known person's bundle again without counting it twice.
#[test]
fn a_team_directory_of_an_earlier_release_reads_and_is_written_again_with_its_figures() {
    let text = std::fs::read_to_string(dir().join("figures-team-schema3.json")).unwrap();
    let theirs: Value = serde_json::from_str(&text).unwrap();
    let data = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir().join("team-schema3")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), data.path().join(entry.file_name())).unwrap();
    }
    let d = data.path();
    assert_eq!(store_layout(d), 4);
    let ours = cachewise(d, &["--no-ingest", "report", "team", "--json"]);
    same_people(&ours, &theirs["report_team"], "read as the release left it");
    assert_eq!(store_layout(d), 4, "--no-ingest writes nothing");
    let ours = cachewise(d, &["report", "team", "--json"]);
    same_people(&ours, &theirs["report_team"], "written again by the first report");
    assert!(store_layout(d) > 4, "the first report brings the directory to today's layout");
    let ours = cachewise(d, &["--no-ingest", "report", "session", "--json"]);
    same_figures(&ours, &theirs["report_session"], "team directory in today's layout");
    let alice = dir().join("bundle-schema-3.parquet");
    let again = cachewise(d, &["import", alice.to_str().unwrap()]);
    assert!(again.contains("0 new, 24 already present; 48 requests stored"), "{again}");
    let ours = cachewise(d, &["--no-ingest", "report", "team", "--json"]);
    same_people(&ours, &theirs["report_team"], "after a known person's bundle again");
    let total: Value = serde_json::from_str(&cachewise(d, &["--no-ingest", "report", "daily", "--json"])).unwrap();
    let (ours, release) =
        (total["total"]["cost_usd"].as_f64().unwrap(), theirs["report_daily"]["total"]["cost_usd"].as_f64().unwrap());
    assert!((ours - release).abs() < 1e-9 && (release - 1.1022835).abs() < 1e-9, "{ours} against {release}");
}
