//! Team pilot end to end with the real binary: export then import keeps the
//! totals; importing twice or overlapping exports count once; the same
//! message id under two people is kept and flagged; bad files are refused
//! with the store untouched; hashed paths; reports do not feed local
//! transcripts into a team directory; the Markdown report (snapshot); and
//! `scripts/team_sql.py` on DuckDB, DataFusion and Spark agreeing with
//! cachewise over the same bundles (`team/engines.rs`, and the real corpus
//! as two people in `team/engines_real.rs`); cache figures
//! at the window's edge (`team/window.rs`); the analysis and side tables of
//! new people as a refresh computes them (`team/sides.rs`); files checked on
//! columns refused as typed rows are (`team/checks.rs`); the pilot report's
//! people, adoption, window and CSV (`team/pilot.rs`); overlapping exports
//! of the real corpus imported one after the other (`team/weekly.rs`). The
//! push server's tests live in `team/server.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "team/checks.rs"]
mod checks;
#[path = "team/columns.rs"]
mod columns;
use crate::common;
#[path = "team/engines.rs"]
mod engines;
#[path = "team/engines_real.rs"]
mod engines_real;
#[path = "team/identity.rs"]
mod identity;
#[path = "team/pilot.rs"]
mod pilot;
#[path = "team/server.rs"]
mod server;
#[path = "team/sides.rs"]
mod sides;
#[path = "team/snapshot.rs"]
mod snapshot;
use crate::team_support as support;
#[path = "team/team_sql.rs"]
mod team_sql;
#[path = "team/weekly.rs"]
mod weekly;
#[path = "team/window.rs"]
mod window;

use common::{write, Resp};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use support::*;

/// Exports `name`'s tree (ingested into `local`) to `out`.
fn export(root: &Path, local: &Path, name: &str, extra: &[&str], out: &Path) -> String {
    let mut args = vec!["export", "--user", name, "--machine", "laptop", "--out", out.to_str().unwrap()];
    args.extend(extra);
    ok(&cw(Some(root), local, &args))
}

fn total(v: &Value) -> (u64, f64) {
    (v["total"]["requests"].as_u64().unwrap(), v["total"]["cost_usd"].as_f64().unwrap())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * a.abs().max(1.0)
}

/// Alice (2 sessions x 4) and Bob (3 x 2) each export; returns their local
/// daily totals and the bundle paths.
fn two_people(tmp: &Path) -> ((u64, f64), (u64, f64), PathBuf, PathBuf) {
    let (ra, rb, la, lb) = (tmp.join("ra"), tmp.join("rb"), tmp.join("la"), tmp.join("lb"));
    person_tree(&ra, "alice", 2, 4);
    person_tree(&rb, "bob", 3, 2);
    let (a, b) = (tmp.join("alice.parquet"), tmp.join("bob.parquet"));
    export(&ra, &la, "alice", &[], &a);
    export(&rb, &lb, "bob", &[], &b);
    let ta = total(&json(&cw(Some(&ra), &la, &["report", "daily", "--json"])));
    let tb = total(&json(&cw(Some(&rb), &lb, &["report", "daily", "--json"])));
    (ta, tb, a, b)
}

#[test]
fn export_then_import_gives_the_same_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let (ta, tb, a, b) = two_people(tmp.path());
    assert_eq!((ta.0, tb.0), (8, 6));
    let team = tmp.path().join("team");
    let out = ok(&cw(None, &team, &["import", a.to_str().unwrap(), b.to_str().unwrap()]));
    assert!(out.contains("14 new, 0 already present; 14 requests stored"), "{out}");
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.iter().map(|r| r["user"].as_str().unwrap()).collect::<Vec<_>>(), ["alice", "bob"]);
    assert_eq!((rows[0]["requests"].as_u64().unwrap(), rows[1]["requests"].as_u64().unwrap()), (8, 6));
    assert!(close(rows[0]["cost_usd"].as_f64().unwrap(), ta.1) && close(rows[1]["cost_usd"].as_f64().unwrap(), tb.1));
    assert_eq!((rows[0]["active_days"].as_u64(), rows[1]["active_days"].as_u64()), (Some(2), Some(3)));
    let (n, cost) = total(&v);
    assert_eq!(n, 14);
    assert!(close(cost, ta.1 + tb.1), "{cost} vs {}", ta.1 + tb.1);
    // The usage reports over the team directory agree with the team report.
    let daily = total(&json(&cw(None, &team, &["report", "daily", "--json"])));
    assert_eq!(daily.0, 14);
    assert!(close(daily.1, cost));
    assert_eq!(v["total"]["active_days"], 5);
    assert_eq!(v["baseline"]["url"], "https://code.claude.com/docs/en/costs");
}

#[test]
fn importing_twice_and_overlapping_exports_count_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (ta, tb, a, b) = two_people(tmp.path());
    // Alice exports again from the same store since her second day, and from a
    // second machine that holds a copy of her first session.
    let (ra, la) = (tmp.path().join("ra"), tmp.path().join("la"));
    let later = tmp.path().join("alice-later.parquet");
    export(&ra, &la, "alice", &["--since", "2026-02-12"], &later);
    let (ra2, la2) = (tmp.path().join("ra2"), tmp.path().join("la2"));
    fs::create_dir_all(ra2.join("projects/-home-alice-app")).unwrap();
    let s0 = "projects/-home-alice-app/alice-s0.jsonl";
    fs::copy(ra.join(s0), ra2.join(s0)).unwrap();
    let only_desktop = Resp::new("alice-d", 1, 0);
    write(&ra2, "-home-alice-app/alice-d.jsonl", &only_desktop.to_lines());
    let desktop = tmp.path().join("alice-desktop.parquet");
    ok(&cw(
        Some(&ra2),
        &la2,
        &["export", "--user", "alice", "--machine", "desktop", "--out", desktop.to_str().unwrap()],
    ));
    let team = tmp.path().join("team");
    let paths = [&a, &b, &a, &later, &desktop].map(|p| p.to_str().unwrap().to_owned());
    let out = ok(&cw(None, &team, &["import", &paths[0], &paths[1], &paths[2], &paths[3], &paths[4]]));
    assert!(out.contains("15 new"), "{out}");
    ok(&cw(None, &team, &["import", &paths[0]]));
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    let (n, cost) = total(&v);
    assert_eq!(n, 15);
    assert!(close(cost, ta.1 + tb.1 + only_desktop.sonnet_cost()));
    assert_eq!(v["rows"][0]["machines"], serde_json::json!(["desktop", "laptop"]));
    assert_eq!(v["flags"]["message_ids_under_several_users"], 0);
}

#[test]
fn same_message_id_under_two_users_is_kept_for_both_and_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local) = (tmp.path().join("r"), tmp.path().join("l"));
    person_tree(&root, "alice", 1, 3);
    let (a, c) = (tmp.path().join("a.parquet"), tmp.path().join("c.parquet"));
    export(&root, &local, "alice", &[], &a);
    export(&root, &local, "carol", &[], &c);
    let team = tmp.path().join("team");
    let out = ok(&cw(None, &team, &["import", a.to_str().unwrap(), c.to_str().unwrap()]));
    assert!(out.contains("warning: 3 message ids appear under more than one user"), "{out}");
    assert!(out.contains("(alice, carol)"), "{out}");
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    assert_eq!(total(&v).0, 6);
    assert_eq!(v["flags"]["message_ids_under_several_users"], 3);
}

/// Writes a Parquet file polars made that is not a bundle.
fn foreign_parquet(path: &Path) {
    use polars::prelude::*;
    let mut df = df!("a" => [1i64, 2, 3], "b" => ["x", "y", "z"]).unwrap();
    ParquetWriter::new(fs::File::create(path).unwrap()).finish(&mut df).unwrap();
}

#[test]
fn corrupt_foreign_and_newer_files_are_refused_with_the_store_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, a, b) = two_people(tmp.path());
    let team = tmp.path().join("team");
    ok(&cw(None, &team, &["import", a.to_str().unwrap()]));
    let before = snapshot(&team);
    let good = fs::read(&b).unwrap();
    let bad = tmp.path().join("bad");
    fs::create_dir_all(&bad).unwrap();
    let mut flipped = good.clone();
    let mid = good.len() / 3;
    flipped[mid..mid + 64].iter_mut().for_each(|x| *x = !*x);
    let mut newer = cachewise::team::read_bundle(&good, "b").unwrap();
    newer.meta.schema = cachewise::team::BUNDLE_SCHEMA + 1;
    let newer_msg = format!(
        "bundle schema {} is newer than this cachewise supports ({})",
        cachewise::team::BUNDLE_SCHEMA + 1,
        cachewise::team::BUNDLE_SCHEMA
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("text.parquet", b"user,cost\nalice,1\n".to_vec(), "not a Parquet file"),
        ("truncated.parquet", good[..good.len() / 2].to_vec(), "damaged bundle"),
        ("flipped.parquet", flipped, "damaged bundle"),
        ("newer.parquet", bytes_of(&newer), &newer_msg),
    ];
    for (name, bytes, msg) in &cases {
        let p = bad.join(name);
        fs::write(&p, bytes).unwrap();
        // A good bundle listed first must not land either.
        let o = cw(None, &team, &["import", b.to_str().unwrap(), p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(msg) && err.contains(name), "{name}: {err}");
        assert_eq!(snapshot(&team), before, "{name} changed the store");
    }
    let foreign = bad.join("foreign.parquet");
    foreign_parquet(&foreign);
    let o = cw(None, &team, &["import", foreign.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("a Parquet file but not a cachewise bundle"));
    let store_table = team.join("requests.parquet");
    let o = cw(None, &team, &["import", store_table.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a cachewise bundle"));
    let o = cw(None, &team, &["import", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(snapshot(&team), before);
}

#[test]
fn hashed_paths_hide_paths_and_stay_stable() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local) = (tmp.path().join("r"), tmp.path().join("l"));
    person_tree(&root, "alice", 2, 2);
    let (h1, h2) = (tmp.path().join("h1.parquet"), tmp.path().join("h2.parquet"));
    let out = export(&root, &local, "alice", &["--hash-paths"], &h1);
    assert!(out.contains("paths hashed"), "{out}");
    export(&root, &local, "alice", &["--hash-paths"], &h2);
    let bytes = fs::read(&h1).unwrap();
    for secret in ["/home/u/app", "-home-alice-app", root.to_str().unwrap()] {
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret} leaked");
    }
    let b1 = cachewise::team::read_bundle(&bytes, "h1").unwrap();
    let b2 = cachewise::team::read_bundle(&fs::read(&h2).unwrap(), "h2").unwrap();
    assert!(b1.meta.hashed_paths);
    assert!(b1.requests[0].project.starts_with("h:") && b1.requests[0].cwd.starts_with("h:"));
    assert_eq!(b1.requests[0].project, b2.requests[0].project);
    assert_eq!(b1.requests[0].source, b2.requests[0].source);
}

#[test]
fn reports_do_not_ingest_local_transcripts_into_a_team_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, a, _) = two_people(tmp.path());
    let team = tmp.path().join("team");
    ok(&cw(None, &team, &["import", a.to_str().unwrap()]));
    let mine = tmp.path().join("mine");
    person_tree(&mine, "me", 1, 5);
    let o = cw(Some(&mine), &team, &["report", "daily", "--json"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds imported team bundles"));
    assert_eq!(total(&json(&o)).0, 8);
    // Asking by name does ingest them (as user "").
    ok(&cw(Some(&mine), &team, &["ingest", "--into-team"]));
    assert_eq!(total(&json(&cw(Some(&mine), &team, &["report", "daily", "--json"]))).0, 13);
    // And exporting from a team directory is refused.
    let o = cw(None, &team, &["export", "--user", "x", "--out", tmp.path().join("x.parquet").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds imported bundles"));
}

#[test]
fn a_team_directory_priced_with_another_table_is_priced_again_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, a, b) = two_people(tmp.path());
    let team = tmp.path().join("team");
    ok(&cw(None, &team, &["import", a.to_str().unwrap(), b.to_str().unwrap()]));
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let warned = |o: &std::process::Output| stderr(o).contains("warning: this team directory");
    let same = cw(None, &team, &["report", "daily", "--json"]);
    assert!(!warned(&same), "{}", stderr(&same));
    let file = tmp.path().join("prices.toml");
    fs::write(&file, "[[model]]\nid = \"claude-opus-4-6\"\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n").unwrap();
    let pricing = ["--pricing", file.to_str().unwrap()];
    // Only reading: the rows are priced in memory, with a warning naming the remedy.
    let read =
        |args: &[&str]| cw(None, &team, &[args, &pricing, &["--no-ingest", "--now", "2026-06-01T00:00:00Z"]].concat());
    let other = read(&["report", "daily", "--json"]);
    assert!(warned(&other) && stderr(&other).contains("cachewise ingest --rebuild"), "{}", stderr(&other));
    assert_eq!(total(&json(&other)).0, 14, "the report itself still runs");
    let reports: [&[&str]; 3] = [&["report", "daily", "--json"], &["report", "team", "--json"], &["cache", "--json"]];
    let before: Vec<Value> = reports.iter().map(|r| json(&read(r))).collect();
    let out = ok(&cw(None, &team, &[&["ingest", "--rebuild"][..], &pricing].concat()));
    assert!(out.contains("14 requests of 2 people"), "{out}");
    // What every report read, priced in memory, is what the repriced tables hold.
    for (r, was) in reports.iter().zip(&before) {
        let now = read(r);
        assert!(!warned(&now), "{}", stderr(&now));
        assert_eq!(&json(&now), was, "{r:?}");
    }
    // A report that may write prices the rows again itself, once.
    let first = cw(None, &team, &["report", "daily", "--json"]);
    assert!(stderr(&first).contains("pricing its rows again") && !warned(&first), "{}", stderr(&first));
    let second = cw(None, &team, &["report", "daily", "--json"]);
    assert!(!stderr(&second).contains("pricing its rows again") && !warned(&second), "{}", stderr(&second));
    assert_eq!(json(&first), json(&second));
    // An import prices the stored rows with its own table before it merges.
    ok(&cw(None, &team, &[&["import", a.to_str().unwrap()][..], &pricing].concat()));
    let after = read(&["report", "daily", "--json"]);
    assert!(!warned(&after), "{}", stderr(&after));
    let (was, now) = (total(&before[0]), total(&json(&after)));
    assert!(was.0 == now.0 && close(was.1, now.1), "{was:?} {now:?}");
    assert!(fs::read_dir(&team).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(".import")));
}

#[test]
fn importing_into_a_local_store_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, a, _) = two_people(tmp.path());
    let o = cw(None, &tmp.path().join("lb"), &["import", a.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("holds local transcripts"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn md_is_only_for_the_team_report() {
    let tmp = tempfile::tempdir().unwrap();
    let o = cw(None, tmp.path(), &["report", "daily", "--md"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--md is only for"));
}
