//! A damaged store (issue 12, item 7): a garbage or deleted table makes
//! reports fail once with the file, the cause and the rebuild command (never
//! zeros, never "unchanged"); `ingest --rebuild` rebuilds from the
//! transcripts, keeps rows of deleted transcripts where a readable table
//! holds them and names what was lost; a garbage derived table (spares) is
//! rebuilt on the next ingest, which says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{append, cachewise, write, Resp};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Output;

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The exit code is 1 and stderr is the one error line, returned.
fn fails(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "stdout {} stderr {err}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stdout.is_empty(), "nothing printed as if it worked: {}", String::from_utf8_lossy(&o.stdout));
    err
}

/// (requests, output tokens, cost) of `report daily --json`.
fn totals(root: &Path, data: &Path, extra: &[&str]) -> (u64, u64, f64) {
    let mut args = vec!["report", "daily", "--json"];
    args.extend(extra);
    let o = cachewise(root, data, &args);
    ok(&o);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = &v["total"];
    (t["requests"].as_u64().unwrap(), t["output_tokens"].as_u64().unwrap(), t["cost_usd"].as_f64().unwrap())
}

/// Files a (A1), b (B1), c (C1) and d (a replay of B1, so B1's copies sit
/// in spares); returns the responses A1, B1, C1.
fn tree(root: &Path) -> [Resp; 3] {
    let (a, b, c) = (Resp::new("sa", 1, 0), Resp::new("sb", 2, 5), Resp::new("sc", 3, 10));
    write(root, "-p/a.jsonl", &a.to_lines());
    write(root, "-p/b.jsonl", &b.to_lines());
    write(root, "-p/c.jsonl", &c.to_lines());
    write(root, "-p/d.jsonl", &b.to_lines());
    [a, b, c]
}

fn sum(rs: &[&Resp]) -> (u64, u64, f64) {
    (rs.len() as u64, rs.iter().map(|r| r.out).sum(), rs.iter().map(|r| r.sonnet_cost()).sum())
}

fn same(got: (u64, u64, f64), want: (u64, u64, f64)) {
    assert_eq!((got.0, got.1), (want.0, want.1));
    assert!((got.2 - want.2).abs() < 1e-9, "{got:?} vs {want:?}");
}

#[test]
fn garbage_requests_parquet_names_file_and_rebuild_command() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    let before = totals(root.path(), data.path(), &[]);
    same(before, sum(&[&a, &b, &c]));
    fs::write(data.path().join("requests.parquet"), b"garbage, not Parquet").unwrap();
    for args in [&["report", "daily"][..], &["report", "daily", "--no-ingest"], &["ingest"], &["cache"]] {
        let err = fails(&cachewise(root.path(), data.path(), args));
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains("requests.parquet is damaged: "), "{args:?}: {err}");
        assert!(err.contains("`cachewise ingest --rebuild`"), "{args:?}: {err}");
        assert_eq!(err.matches("requests.parquet").count(), 1, "said once: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let out = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(out.contains("could not read requests.parquet: "), "{out}");
    assert!(out.contains("nothing was lost"), "{out}");
    same(totals(root.path(), data.path(), &[]), before);
}

#[test]
fn deleted_requests_parquet_is_not_silent_zero() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    totals(root.path(), data.path(), &[]);
    fs::remove_file(data.path().join("requests.parquet")).unwrap();
    for args in [&["report", "daily", "--json", "--no-ingest"][..], &["report", "daily", "--json"], &["ingest"]] {
        let err = fails(&cachewise(root.path(), data.path(), args));
        assert!(err.contains("requests.parquet is missing, but the manifest says 4 transcript(s) were read"), "{err}");
        assert!(err.contains("`cachewise ingest --rebuild`"), "{err}");
    }
}

#[test]
fn ingest_rebuild_keeps_rows_of_deleted_transcripts() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    totals(root.path(), data.path(), &[]);
    fs::remove_file(root.path().join("projects/-p/b.jsonl")).unwrap();
    fs::remove_file(root.path().join("projects/-p/c.jsonl")).unwrap();
    // An intact store: every row of b and c is kept.
    let out = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(out.contains("kept 2 request(s) of 2 transcript(s) deleted since"), "{out}");
    assert!(out.contains("nothing was lost") && !out.contains("could not read"), "{out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c]));
    // Requests lost: B1 survives in spares (d.jsonl replayed it), C1 does not.
    fs::write(data.path().join("requests.parquet"), b"PAR1 not really PAR1").unwrap();
    let out = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(out.contains("could not read requests.parquet: "), "{out}");
    assert!(out.contains("kept 1 request(s) of 1 transcript(s) deleted since"), "{out}");
    assert!(
        out.contains("lost: the rows of 1 transcript(s) deleted since were only in the tables that could not be read"),
        "{out}"
    );
    assert!(out.contains("-p/c.jsonl\n"), "{out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b]));
}

#[test]
fn garbage_spares_does_not_block_ingest() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    totals(root.path(), data.path(), &[]);
    fs::write(data.path().join("spares.parquet"), b"garbage").unwrap();
    let more = Resp::new("sa", 4, 20);
    more.to_lines().iter().for_each(|l| append(&root.path().join("projects/-p/a.jsonl"), &format!("{l}\n")));
    let o = cachewise(root.path(), data.path(), &["ingest"]);
    let out = ok(&o);
    assert!(out.contains("note: the store was damaged and has been rebuilt from the transcripts"), "{out}");
    assert!(out.contains("could not read spares.parquet: "), "{out}");
    assert!(out.contains("nothing was lost"), "{out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c, &more]));
    // And the next append is an ordinary incremental ingest again.
    let last = Resp::new("sa", 5, 30);
    last.to_lines().iter().for_each(|l| append(&root.path().join("projects/-p/a.jsonl"), &format!("{l}\n")));
    let out = ok(&cachewise(root.path(), data.path(), &["ingest"]));
    assert!(!out.contains("rebuilt"), "{out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c, &more, &last]));
}

#[test]
fn garbage_sessions_parquet_is_named_by_reports() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    totals(root.path(), data.path(), &[]);
    fs::write(data.path().join("sessions.parquet"), b"garbage").unwrap();
    let err = fails(&cachewise(root.path(), data.path(), &["report", "session", "--no-ingest"]));
    assert!(err.contains("sessions.parquet is damaged: ") && err.contains("--rebuild"), "{err}");
}

#[test]
fn garbage_manifest_names_file_and_rebuild_recovers() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    totals(root.path(), data.path(), &[]);
    fs::write(data.path().join("manifest.json"), b"{\"schema\": 3, \"files\": [garbage").unwrap();
    let err = fails(&cachewise(root.path(), data.path(), &["report", "daily"]));
    assert!(err.contains("manifest.json: invalid manifest: ") && err.contains("--rebuild"), "{err}");
    let out = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(out.contains("could not read manifest.json: "), "{out}");
    assert!(out.contains("nothing was lost"), "every requests table read: {out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c]));
    // Both gone: what the deleted transcripts held cannot be listed, and it says so.
    fs::remove_file(root.path().join("projects/-p/c.jsonl")).unwrap();
    fs::write(data.path().join("manifest.json"), b"garbage").unwrap();
    fs::write(data.path().join("requests.parquet"), b"garbage").unwrap();
    let out = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(out.contains("the manifest could not be read, so transcripts deleted since cannot be listed"), "{out}");
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b]));
}

#[test]
fn a_torn_session_analysis_or_compaction_table_is_computed_again_not_fatal() {
    for table in ["analysis-sessions.parquet", "analysis-compactions.parquet"] {
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let [a, b, c] = tree(root.path());
        same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c]));
        let path = data.path().join(table);
        let bytes = fs::read(&path).unwrap();
        // What a power loss leaves of a file written without waiting for the disk.
        fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        for args in [
            &["report", "session", "--json", "--no-ingest"][..],
            &["cache", "--json", "--no-ingest"],
            &["advise", "a", "--no-ingest"],
        ] {
            ok(&cachewise(root.path(), data.path(), args));
        }
        let said = ok(&cachewise(root.path(), data.path(), &["ingest"]));
        assert!(said.contains("computed them again"), "{table}: {said}");
        assert!(fs::read(&path).unwrap().len() > bytes.len() / 2, "{table} is whole again");
        ok(&cachewise(root.path(), data.path(), &["report", "session", "--json", "--no-ingest"]));
    }
}

#[test]
fn a_store_of_the_previous_layout_is_upgraded_by_an_append() {
    use cachewise::store::{Store, Table};
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c]));
    // Layout 4: the requests and spares tables without the server's reason
    // columns (added in layout 5).
    let store = Store::open(data.path()).unwrap();
    let strip = |t: Table| {
        let df = store.read(t).unwrap().unwrap();
        df.drop_many(["server_reason", "server_missed_tokens"])
    };
    let (mut requests, mut spares) = (strip(Table::Requests), strip(Table::Spares));
    assert_eq!(requests.width(), 24);
    store.write_requests_base(&mut requests).unwrap();
    store.write(Table::Spares, &mut spares).unwrap();
    let manifest = data.path().join("manifest.json");
    let text = fs::read_to_string(&manifest).unwrap();
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    fs::write(&manifest, text.replacen(&current, "\"schema\":4", 1)).unwrap();
    // An append, read into the old layout's store.
    let d = Resp::new("sa", 9, 30);
    append(
        &root.path().join("projects/-p/a.jsonl"),
        &d.to_lines().iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c, &d]));
    assert!(fs::read_to_string(&manifest).unwrap().contains(&current), "upgraded");
    assert_eq!(store.read(Table::Requests).unwrap().unwrap().width(), 26);
}

/// A lead's first `import` killed at any moment leaves a team directory
/// (its ledger written before any table) or nothing at all, never a
/// directory a report would read the lead's own transcripts into; the same
/// import run again completes it, with every person's requests once.
#[test]
fn an_interrupted_first_import_leaves_a_team_directory_that_the_same_import_completes() {
    use cachewise::synth::{generate, SynthSpec};
    let tmp = tempfile::tempdir().unwrap();
    let prices = cachewise::pricing::PriceTable::embedded().unwrap();
    let end = chrono::Utc::now() - chrono::Duration::days(1);
    let mut bundles = Vec::new();
    for (user, seed) in [("alice", 1), ("bob", 2), ("carol", 3)] {
        let own = tmp.path().join(user);
        let data = generate(seed, &SynthSpec::demo(end));
        let rows = cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() };
        cachewise::update::store_rows(&cachewise::store::Store::open(&own).unwrap(), rows, &prices).unwrap();
        let bundle = tmp.path().join(format!("{user}.parquet"));
        let args = ["--no-ingest", "export", "--user", user, "--out", bundle.to_str().unwrap()];
        assert!(cachewise(&tmp.path().join("none"), &own, &args).status.success());
        bundles.push(bundle.to_str().unwrap().to_owned());
    }
    let mut import = vec!["--no-ingest", "import"];
    import.extend(bundles.iter().map(String::as_str));
    let clean = tmp.path().join("clean");
    assert!(cachewise(&tmp.path().join("none"), &clean, &import).status.success());
    let want = cachewise(&tmp.path().join("none"), &clean, &["--no-ingest", "report", "team", "--json"]);
    let want: Value = serde_json::from_slice(&want.stdout).unwrap();
    // The lead's own transcripts, which a report in a non-team directory
    // would read in as a "(local)" person.
    let lead = tmp.path().join("lead");
    write(&lead, "-p/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let mut kept = 0;
    // Later and later kills, until three landed after the import began
    // writing (however slow the machine).
    for (k, delay_ms) in [20, 60, 120, 200, 300, 450, 650, 900, 1300, 1800, 2500, 3500].into_iter().enumerate() {
        if kept >= 3 {
            break;
        }
        let team = tmp.path().join(format!("team{k}"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
            .arg("--data-dir")
            .arg(&team)
            .args(&import)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let ledger = team.join("team-bundles.json").exists();
        let tables =
            fs::read_dir(&team).map(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "parquet")));
        assert!(ledger || !tables.unwrap_or(false), "killed at {delay_ms} ms: tables without the team mark");
        kept += usize::from(ledger);
        // A report there with the lead's transcripts reads none of them in.
        if ledger {
            let r = cachewise(&lead, &team, &["report", "team", "--json"]);
            let v: Value = serde_json::from_slice(&r.stdout).unwrap_or(Value::Null);
            let users: Vec<&str> =
                v["rows"].as_array().into_iter().flatten().filter_map(|r| r["user"].as_str()).collect();
            assert!(
                !users.contains(&""),
                "killed at {delay_ms} ms: the lead's own transcripts were read in: {users:?}"
            );
        }
        let again = cachewise(&tmp.path().join("none"), &team, &import);
        assert!(again.status.success(), "killed at {delay_ms} ms: {}", String::from_utf8_lossy(&again.stderr));
        let got = cachewise(&tmp.path().join("none"), &team, &["--no-ingest", "report", "team", "--json"]);
        let got: Value = serde_json::from_slice(&got.stdout).unwrap();
        assert_eq!(got["total"]["requests"], want["total"]["requests"], "killed at {delay_ms} ms, imported again");
        assert_eq!(got["total"]["cost_usd"], want["total"]["cost_usd"], "killed at {delay_ms} ms, imported again");
    }
    assert!(kept > 0, "no kill landed inside an import");
}
