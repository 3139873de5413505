//! A damaged store: a garbage or deleted table makes
//! reports fail once with the file, the cause and the rebuild command (never
//! zeros, never "unchanged"); `ingest --rebuild` rebuilds from the
//! transcripts, keeps rows of deleted transcripts where a readable table
//! holds them and names what was lost; a garbage derived table (spares) is
//! rebuilt on the next ingest, which says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

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
    // columns (added in layout 5) and Claude Code's record of the call.
    let store = Store::open(data.path()).unwrap();
    let strip = |t: Table| {
        let df = store.read(t).unwrap().unwrap();
        df.drop_many(["server_reason", "server_missed_tokens", "query_source", "shape_hash", "ttl_asked"])
    };
    let (mut requests, mut spares) = (strip(Table::Requests), strip(Table::Spares));
    assert_eq!(requests.width(), 24);
    store.begin().unwrap().write_requests_base(&mut requests).unwrap();
    store.begin().unwrap().write(Table::Spares, &mut spares).unwrap();
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
    assert_eq!(store.read(Table::Requests).unwrap().unwrap().width(), 29);
}

/// How many interrupts each interrupt test makes (`CACHEWISE_INTERRUPTS`).
fn interrupts() -> u64 {
    std::env::var("CACHEWISE_INTERRUPTS").ok().and_then(|v| v.parse().ok()).unwrap_or(6)
}

/// Runs `args` in `data` (transcripts under `root`) and stops it after a
/// random moment within `within`, with Ctrl-C or kill -9 at random: which
/// one, and whether it was still running.
fn interrupt(
    root: &Path,
    data: &Path,
    args: &[&str],
    within: std::time::Duration,
    rng: &mut impl rand::Rng,
) -> (&'static str, bool) {
    let mut child = std::process::Command::new(common::bin())
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .arg("--claude-dir")
        .arg(root)
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ms = rng.random_range(0..within.as_millis().max(1) as u64);
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let signal = if rng.random_bool(0.5) { "-INT" } else { "-KILL" };
    let running = child.try_wait().unwrap().is_none();
    let _ = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .stderr(std::process::Stdio::null())
        .status();
    let _ = child.wait();
    (signal, running)
}

/// `args`' JSON, whose numbers are compared to a relative 1e-9.
fn json_of(root: &Path, data: &Path, args: &[&str]) -> Value {
    let o = cachewise(root, data, args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[track_caller]
fn same_json(got: &Value, want: &Value, at: &str) {
    match (got, want) {
        (Value::Number(g), Value::Number(w)) => {
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{at}: {g} != {w}");
        }
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{at}: lengths");
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                same_json(g, w, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(g), Value::Object(w)) => {
            assert_eq!(g.keys().collect::<Vec<_>>(), w.keys().collect::<Vec<_>>(), "{at}: keys");
            for (k, w) in w {
                same_json(&g[k], w, &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(got, want, "{at}"),
    }
}

/// A lead's first `import`, interrupted (Ctrl-C or kill -9) at a random
/// moment, leaves a team directory (its ledger written before any table)
/// or nothing at all, never a directory a report would read the lead's own
/// transcripts into; the same import run again makes the store a clean
/// import makes. `CACHEWISE_INTERRUPTS=100` makes a hundred.
#[test]
fn an_interrupted_first_import_leaves_a_team_directory_that_the_same_import_completes() {
    use cachewise::synth::{generate, SynthSpec};
    use rand::SeedableRng;
    let tmp = tempfile::tempdir().unwrap();
    let prices = cachewise::pricing::PriceTable::embedded().unwrap();
    let end = chrono::Utc::now() - chrono::Duration::days(1);
    let mut bundles = Vec::new();
    for (user, seed) in [("alice", 1), ("bob", 2), ("carol", 3)] {
        let own = tmp.path().join(user);
        let data = generate(seed, &SynthSpec::demo(end));
        let rows = cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() };
        cachewise::update::store_rows(&cachewise::store::Store::open(&own).unwrap(), rows, &prices, None).unwrap();
        let bundle = tmp.path().join(format!("{user}.parquet"));
        let args = ["--no-ingest", "export", "--user", user, "--out", bundle.to_str().unwrap()];
        assert!(cachewise(&tmp.path().join("none"), &own, &args).status.success());
        bundles.push(bundle.to_str().unwrap().to_owned());
    }
    let mut import = vec!["--no-ingest", "import"];
    import.extend(bundles.iter().map(String::as_str));
    let none = tmp.path().join("none");
    let clean = tmp.path().join("clean");
    let started = std::time::Instant::now();
    assert!(cachewise(&none, &clean, &import).status.success());
    let within = started.elapsed() * 6 / 5;
    let team_report = ["--no-ingest", "--tz", "UTC", "report", "team", "--json"];
    let want = json_of(&none, &clean, &team_report);
    // The lead's own transcripts, which a report in a non-team directory
    // would read in as a "(local)" person.
    let lead = tmp.path().join("lead");
    write(&lead, "-p/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let (mut marked, mut stopped_mid_run) = (0, 0);
    for k in 0..interrupts() {
        let team = tmp.path().join(format!("team{k}"));
        let (signal, running) = interrupt(&none, &team, &import, within, &mut rng);
        let at = format!("import {k} stopped with {signal}");
        stopped_mid_run += usize::from(running);
        let ledger = team.join("team-bundles.json").exists();
        let tables =
            fs::read_dir(&team).map(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "parquet")));
        assert!(ledger || !tables.unwrap_or(false), "{at}: tables without the team mark");
        marked += usize::from(ledger);
        // A report there with the lead's transcripts reads none of them in.
        if ledger {
            let r = cachewise(&lead, &team, &["report", "team", "--json"]);
            let v: Value = serde_json::from_slice(&r.stdout).unwrap_or(Value::Null);
            let users: Vec<&str> =
                v["rows"].as_array().into_iter().flatten().filter_map(|r| r["user"].as_str()).collect();
            assert!(!users.contains(&""), "{at}: the lead's own transcripts were read in: {users:?}");
        }
        let again = cachewise(&none, &team, &import);
        assert!(again.status.success(), "{at}: {}", String::from_utf8_lossy(&again.stderr));
        same_json(&json_of(&none, &team, &team_report), &want, &at);
        let _ = fs::remove_dir_all(&team);
    }
    println!("{} interrupted imports: {stopped_mid_run} while running, {marked} left a team mark", interrupts());
    assert!(stopped_mid_run > 0, "no interrupt landed inside an import");
}

/// A cold `ingest` of a real tree, interrupted (Ctrl-C or kill -9) at a
/// random moment, then run again, makes the store a clean ingest makes:
/// every day, session and request the same. `CACHEWISE_INTERRUPTS=100`
/// makes a hundred.
#[test]
fn an_interrupted_ingest_then_another_equals_a_clean_ingest() {
    use rand::SeedableRng;
    let Some(root) = common::corpus("real3") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let now = ["--tz", "UTC", "--now", "2026-12-01T00:00:00Z"];
    let reports: [&[&str]; 3] =
        [&["report", "daily", "--json"], &["report", "session", "--json"], &["cache", "--json"]];
    let run = |data: &Path, args: &[&str]| {
        let mut all = now.to_vec();
        all.extend(args);
        json_of(&root, data, &all)
    };
    let clean = tmp.path().join("clean");
    let started = std::time::Instant::now();
    ok(&cachewise(&root, &clean, &["ingest"]));
    let within = started.elapsed() * 6 / 5;
    let want: Vec<Value> = reports.iter().map(|r| run(&clean, &[&["--no-ingest"], *r].concat())).collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut stopped_mid_run = 0;
    for k in 0..interrupts() {
        let data = tmp.path().join(format!("data{k}"));
        let (signal, running) = interrupt(&root, &data, &["ingest"], within, &mut rng);
        stopped_mid_run += usize::from(running);
        ok(&cachewise(&root, &data, &["ingest"]));
        for (r, want) in reports.iter().zip(&want) {
            let got = run(&data, &[&["--no-ingest"], *r].concat());
            same_json(&got, want, &format!("ingest {k} stopped with {signal}, then {}", r.join(" ")));
        }
        let _ = fs::remove_dir_all(&data);
    }
    println!("{} interrupted ingests: {stopped_mid_run} while running", interrupts());
    assert!(stopped_mid_run > 0, "no interrupt landed inside an ingest");
}

/// A directory where a table belongs (requests, the analysis): a report
/// names it once and gives the rebuild command; `ingest --rebuild` moves it
/// aside (`<name>.not-a-table`), says so, and rebuilds the same figures;
/// an ordinary ingest moves a derived table's stray aside by itself.
#[test]
fn a_table_replaced_by_a_directory_is_moved_aside_by_the_rebuild_the_hint_names() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [a, b, c] = tree(root.path());
    same(totals(root.path(), data.path(), &[]), sum(&[&a, &b, &c]));
    fs::remove_file(data.path().join("requests.parquet")).unwrap();
    fs::create_dir(data.path().join("requests.parquet")).unwrap();
    let err = fails(&cachewise(root.path(), data.path(), &["report", "daily"]));
    assert!(err.contains("requests.parquet") && err.contains("ingest --rebuild"), "{err}");
    assert_eq!(err.matches("not a regular file").count(), 1, "the cause once: {err}");
    let said = ok(&cachewise(root.path(), data.path(), &["ingest", "--rebuild"]));
    assert!(said.contains("requests.parquet was not a file: moved to"), "{said}");
    assert!(data.path().join("requests.parquet.not-a-table").is_dir());
    same(totals(root.path(), data.path(), &["--no-ingest"]), sum(&[&a, &b, &c]));
    fs::remove_file(data.path().join("analysis.parquet")).unwrap();
    fs::create_dir(data.path().join("analysis.parquet")).unwrap();
    ok(&cachewise(root.path(), data.path(), &["ingest"]));
    assert!(data.path().join("analysis.parquet").is_file(), "the analysis is written again");
    assert!(data.path().join("analysis.parquet.not-a-table").is_dir());
}
