//! `cachewise export --otlp` against a collector the test starts on
//! 127.0.0.1 (`tests/otlp/receiver.py`, which decodes protobuf with the
//! opentelemetry-proto package and records what it accepted): per day the
//! log records and the metric points add up to `report daily --json`
//! (requests, cost, every token kind) and the miss-cost points to
//! `cache --json`; a second run sends nothing; a collector answering 503
//! twice loses and duplicates nothing; a 400 is a clear error that marks
//! nothing sent, and so is an unreachable one after five tries; the last
//! ten minutes wait for the next run; headers and resource attributes
//! arrive, header values are never printed; OTLP/JSON carries the same
//! figures; a team directory is refused. Without python3
//! or the package a test prints `skip:` and why, unless
//! `CACHEWISE_OTLP_PY=required` (CI installs the package).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::synth::{calls::add_calls, generate, SynthSpec};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

#[path = "otlp/collector.rs"]
mod collector;
use crate::common;
use collector::{attrs, from_logs, from_metrics, points, ready, same_days, Day, Receiver};

const SECRET_HEADER: &str = "Bearer s3cret-header-value";

fn end() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap()
}

/// A local store of the demo generator's three weeks, with multi-call
/// responses.
fn store(dir: &Path) {
    let data = generate(5, &SynthSpec::demo(end()));
    let calls = add_calls(&data.requests, 7);
    let rows =
        cachewise::ingest::Rows { rows: data.requests, calls, compactions: data.compactions, ..Default::default() };
    cachewise::update::store_rows(&Store::open(dir).unwrap(), rows, &PriceTable::embedded().unwrap(), None).unwrap();
}

fn cw(data: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    cw_at(data, end() + TimeDelta::hours(3), args, env)
}

/// `cw` with the run's clock at `now`.
fn cw_at(data: &Path, now: DateTime<Utc>, args: &[&str], env: &[(&str, &str)]) -> Output {
    command_at(data, now, args, env).output().unwrap()
}

/// The command `cw_at` runs, not started.
fn command_at(data: &Path, now: DateTime<Utc>, args: &[&str], env: &[(&str, &str)]) -> Command {
    let now = now.to_rfc3339();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    cmd.arg("--data-dir").arg(data).args(["--no-ingest", "--tz", "UTC", "--now", &now]).args(args);
    for k in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES"] {
        cmd.env_remove(k);
    }
    cmd.env_remove("OTEL_EXPORTER_OTLP_PROTOCOL").envs(env.iter().copied());
    cmd
}

fn export(data: &Path, url: &str, more: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["export", "--user", "ana", "--machine", "box", "--otlp", url, "--otlp-batch", "700"];
    args.extend(more);
    cw(data, &args, env)
}

fn json(data: &Path, args: &[&str]) -> Value {
    let out = cw(data, args, &[]);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What `report daily --json` says per day.
fn daily(data: &Path) -> BTreeMap<String, Day> {
    let r = json(data, &["report", "daily", "--json"]);
    let row = |r: &Value| {
        let t = |k: &str| r[k].as_u64().unwrap();
        let tokens = [
            t("input_tokens"),
            t("output_tokens"),
            t("cache_read_tokens"),
            t("cache_write_5m_tokens"),
            t("cache_write_1h_tokens"),
        ];
        Day { requests: t("requests"), cost: r["cost_usd"].as_f64().unwrap(), tokens }
    };
    r["rows"].as_array().unwrap().iter().map(|r| (r["period"].as_str().unwrap().to_owned(), row(r))).collect()
}

/// Both the logs and the metrics of the accepted requests equal `report daily`.
#[track_caller]
fn matches_report_daily(data: &Path, accepted: &[Value]) {
    let want = daily(data);
    assert!(want.len() > 10, "the demo spans three weeks");
    same_days(&from_logs(accepted), &want, true, "log records");
    same_days(&from_metrics(accepted), &want, false, "metric points");
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn protobuf_export_adds_up_to_report_daily_and_a_second_run_sends_nothing() {
    if !ready(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let rx = Receiver::start(&[]);
    let env = [
        ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20s3cret-header-value"),
        ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,deployment.environment=pilot"),
    ];
    let out = export(dir.path(), &rx.url(), &["--otlp-header", "x-team=platform"], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!format!("{}{}", stdout(&out), stderr(&out)).contains("s3cret"), "header values are never printed");
    let first = rx.accepted();
    let batches = first.len() / 2;
    assert!(batches >= 3, "batches of 700 requests: {batches}");
    for r in &first {
        assert_eq!(r["content_type"], "application/x-protobuf");
        assert_eq!(r["headers"]["authorization"], SECRET_HEADER);
        assert_eq!(r["headers"]["x-team"], "platform");
    }
    let resource = attrs(&first[0]["body"]["resourceLogs"][0]["resource"]);
    assert_eq!((&resource["user.name"], &resource["host.name"]), (&Value::from("ana"), &Value::from("box")));
    assert_eq!((&resource["team"], &resource["service.name"]), (&Value::from("infra"), &Value::from("cachewise")));
    matches_report_daily(dir.path(), &first);

    // Miss costs per day and cause are the cache report's.
    let cache = json(dir.path(), &["cache", "--json"]);
    let mut want: BTreeMap<(String, String), f64> = BTreeMap::new();
    for d in cache["by_day"].as_array().unwrap() {
        for (class, s) in d["classes"].as_object().unwrap() {
            let usd = s["miss_cost_usd"].as_f64().unwrap();
            if usd != 0.0 {
                want.insert((d["day"].as_str().unwrap().to_owned(), class.clone()), usd);
            }
        }
    }
    let mut got: BTreeMap<(String, String), f64> = BTreeMap::new();
    for (day, a, v) in points(&first, "cachewise.cache.miss_cost") {
        *got.entry((day, a["cause"].as_str().unwrap().to_owned())).or_default() += v;
    }
    assert!(want.len() > 5, "the demo has misses of several causes on several days");
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
    for (k, w) in &want {
        assert!((got[k] - w).abs() <= 1e-9 * w.max(1.0), "{k:?}: {} != {w}", got[k]);
    }

    let again = export(dir.path(), &rx.url(), &[], &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).starts_with("nothing new to send"), "{}", stdout(&again));
    assert_eq!(rx.requests().len(), first.len(), "the second run sent nothing");
}

#[test]
fn a_collector_answering_503_twice_loses_and_duplicates_nothing() {
    if !ready(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let rx = Receiver::start(&["--fail", "2"]);
    let out = export(dir.path(), &rx.url(), &[], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 retries"), "{}", stdout(&out));
    let all = rx.requests();
    assert_eq!(all.iter().filter(|r| r["status"] == 503).count(), 2);
    let accepted = rx.accepted();
    // Every request once: the sums equal report daily's, counts included.
    matches_report_daily(dir.path(), &accepted);
    assert_eq!(accepted.len() + 2, all.len());
}

#[test]
fn a_400_is_a_clear_error_and_marks_nothing_sent() {
    if !ready(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let rx = Receiver::start(&["--fail", "1", "--fail-status", "400"]);
    let out = export(dir.path(), &rx.url(), &[], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    let url = format!("{}/v1/logs", rx.url());
    assert!(err.contains(&url) && err.contains("HTTP 400") && err.contains("bad data"), "{err}");
    assert!(err.contains("nothing of this batch was marked sent"), "{err}");
    assert!(!err.contains('\x1b'), "the collector's text is cleaned: {err:?}");
    assert_eq!(rx.requests().len(), 1, "a 400 is not tried again");
    // The same collector, now healthy, gets everything.
    let out = export(dir.path(), &rx.url(), &[], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    matches_report_daily(dir.path(), &rx.accepted());
}

#[test]
fn json_encoding_from_the_environment_carries_the_same_figures() {
    if !ready(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let rx = Receiver::start(&[]);
    // No --user: the rows go under the login name.
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", rx.url()), ("USER", "ana".to_owned())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = cw(dir.path(), &["export", "--otlp", "--otlp-json"], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let accepted = rx.accepted();
    let resource = attrs(&accepted[0]["body"]["resourceLogs"][0]["resource"]);
    assert_eq!(resource["user.name"], Value::from("ana"));
    let requests: u64 = daily(dir.path()).values().map(|d| d.requests).sum();
    assert_eq!(accepted.len() as u64, 2 * requests.div_ceil(1000), "batches of 1000, logs and metrics each");
    assert!(accepted.iter().all(|r| r["content_type"] == "application/json"));
    matches_report_daily(dir.path(), &accepted);
    let again = cw(dir.path(), &["export", "--user", "ana", "--otlp", "--otlp-json"], &env);
    assert!(stdout(&again).starts_with("nothing new to send"), "{}", stdout(&again));
}

#[test]
fn export_needs_a_collector_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = cw(dir.path(), &["export", "--user", "ana", "--otlp"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("OTEL_EXPORTER_OTLP_ENDPOINT"), "{}", stderr(&out));
    let out = cw(dir.path(), &["export", "--user", "ana"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--out"), "{}", stderr(&out));
    // Without --user and without a login name to default to, it says so.
    let nobody = [("USER", ""), ("LOGNAME", ""), ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")];
    let out = cw(dir.path(), &["export", "--otlp"], &nobody);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("give --user NAME: no login name in $USER or $LOGNAME"), "{}", stderr(&out));
    let out = cw(dir.path(), &["export", "--out", "-"], &[("USER", "ana")]);
    assert!(out.status.success() && stderr(&out).contains(" of ana@"), "{}", stderr(&out));
}

#[test]
fn a_team_directory_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    std::fs::write(dir.path().join("team-bundles.json"), "[]").unwrap();
    // Nothing listens on port 9: the refusal comes before any connection.
    let out = export(dir.path(), "http://127.0.0.1:9", &[], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("holds imported bundles"), "{}", stderr(&out));
    assert!(!dir.path().join("otlp-sent").exists());
}

/// The real corpus in ../shared (skipped when absent), ingested, sent
/// in protobuf: the same per-day sums as `report daily`.
#[test]
fn the_real_corpus_adds_up_to_report_daily() {
    let Some(corpus) = common::corpus("real") else { return };
    if !ready(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ingest = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .arg("--data-dir")
        .arg(dir.path())
        .arg("--claude-dir")
        .arg(&corpus)
        .args(["--quiet", "ingest"])
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    assert!(ingest.status.success(), "{}", stderr(&ingest));
    let rx = Receiver::start(&[]);
    let out = export(dir.path(), &rx.url(), &[], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    matches_report_daily(dir.path(), &rx.accepted());
}

#[test]
fn an_unreachable_collector_is_tried_five_times_and_nothing_is_marked() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let started = std::time::Instant::now();
    let out = export(dir.path(), "http://127.0.0.1:9", &["--otlp-header", "authorization=Bearer never-shown"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("http://127.0.0.1:9/v1/logs") && err.contains("after 5 tries"), "{err}");
    assert!(err.contains("the next run sends it again") && !err.contains("never-shown"), "{err}");
    // Four waits of 0.5, 1, 2 and 4 s between the five tries.
    assert!(started.elapsed() >= std::time::Duration::from_millis(7_000), "{:?}", started.elapsed());
    let keys = std::fs::read_dir(dir.path().join("otlp-sent")).unwrap();
    assert!(keys.flatten().all(|e| e.path().extension().is_none_or(|x| x != "keys")), "nothing marked sent");
}

#[test]
fn the_last_ten_minutes_wait_for_the_next_run() {
    if !ready(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let last = json(dir.path(), &["report", "daily", "--json"])["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| DateTime::parse_from_rfc3339(r["last"].as_str().unwrap()).unwrap().to_utc())
        .max()
        .unwrap();
    let rx = Receiver::start(&[]);
    let args = ["export", "--user", "ana", "--otlp", &rx.url(), "--otlp-json"];
    let early = cw_at(dir.path(), last + TimeDelta::minutes(5), &args, &[]);
    assert!(early.status.success(), "{}", stderr(&early));
    assert!(stdout(&early).contains("of the last 10 minutes wait for the next run"), "{}", stdout(&early));
    let later = cw_at(dir.path(), last + TimeDelta::minutes(11), &args, &[]);
    assert!(later.status.success(), "{}", stderr(&later));
    // The two runs together sent each request once.
    matches_report_daily(dir.path(), &rx.accepted());
}

/// The accepted requests with every log record whose `cachewise.record_id`
/// came before, and every metric point equal to one before, left out: what
/// a collector that drops copies holds. Also the number left out.
fn without_copies(accepted: &[Value]) -> (Vec<Value>, usize) {
    let (mut ids, mut seen_points, mut copies) =
        (std::collections::HashSet::new(), std::collections::HashSet::new(), 0);
    let mut out = accepted.to_vec();
    for r in &mut out {
        if r["path"] == "/v1/logs" {
            for rl in r["body"]["resourceLogs"].as_array_mut().unwrap() {
                let recs = rl["scopeLogs"][0]["logRecords"].as_array_mut().unwrap();
                let before = recs.len();
                recs.retain(|rec| ids.insert(attrs(rec)["cachewise.record_id"].as_str().unwrap().to_owned()));
                copies += before - recs.len();
            }
        } else {
            for rm in r["body"]["resourceMetrics"].as_array_mut().unwrap() {
                for m in rm["scopeMetrics"][0]["metrics"].as_array_mut().unwrap() {
                    let name = m["name"].as_str().unwrap().to_owned();
                    let ps = m["sum"]["dataPoints"].as_array_mut().unwrap();
                    ps.retain(|p| seen_points.insert(format!("{name} {p}")));
                }
            }
        }
    }
    (out, copies)
}

/// How many interrupts the interrupt test makes (`CACHEWISE_INTERRUPTS`).
fn interrupts() -> u64 {
    std::env::var("CACHEWISE_INTERRUPTS").ok().and_then(|v| v.parse().ok()).unwrap_or(12)
}

/// Ctrl-C and kill -9 at random moments against a slow collector, each
/// followed by another run, then one to the end: a Ctrl-C lets the batch in
/// flight be answered and marked, so nothing is sent twice; a kill resends
/// at most its batch in flight, with the same record ids and the same metric
/// points (whatever `--otlp-batch` the next run has), so a collector that
/// drops copies holds each request once and the sums of `report daily`.
/// `CACHEWISE_INTERRUPTS=100` makes a hundred interrupts.
#[test]
fn interrupted_exports_send_nothing_twice_and_a_killed_batch_again_as_the_same_records() {
    use rand::{Rng, SeedableRng};
    if !ready(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    store(dir.path());
    let rx = Receiver::start(&["--delay", "0.04"]);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(49);
    let (n, mut kills, mut stopped) = (interrupts(), 0, 0);
    // A run after a kill may send the killed run's batch in flight again;
    // so may a later one, when the runs between sent nothing (each was
    // stopped before its first batch, which a loaded machine makes likely).
    let mut after_kill = false;
    for i in 0..n {
        let (bodies_before, copies_before) = (rx.accepted().len(), without_copies(&rx.accepted()).1);
        let args = ["export", "--user", "ana", "--machine", "box", "--otlp", &rx.url(), "--otlp-batch", "40"];
        let child = command_at(dir.path(), end() + TimeDelta::hours(3), &args, &[])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(rng.random_range(100..700)));
        let sigint = i == 0 || rng.random_bool(0.5);
        let signal = if sigint { "-INT" } else { "-KILL" };
        let _ =
            Command::new("kill").args([signal, &child.id().to_string()]).stderr(std::process::Stdio::null()).status();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let sent_any = rx.accepted().len() > bodies_before;
        let copies = without_copies(&rx.accepted()).1 - copies_before;
        if after_kill {
            assert!(copies <= 40, "more than the killed run's batch in flight was sent again: {copies}");
        } else {
            assert_eq!(copies, 0, "run {i} sent something twice: {err}");
        }
        stopped += usize::from(sigint && err.contains("stopped:"));
        kills += usize::from(!sigint);
        after_kill = !sigint || (after_kill && !sent_any && copies == 0);
    }
    // The last run batches 700 at a time: a batch a kill left in flight is
    // still sent again as it was.
    let last = export(dir.path(), &rx.url(), &[], &[]);
    assert!(last.status.success(), "{}", stderr(&last));
    let (held, copies) = without_copies(&rx.accepted());
    println!("{n} interrupts ({kills} kill -9, {stopped} Ctrl-C stops after a batch), {copies} records sent twice");
    assert!(stopped > 0, "no Ctrl-C landed inside a run");
    matches_report_daily(dir.path(), &held);
}
