//! One number everywhere: for every session of the real public corpora in
//! ../shared (real, real2, real3; skipped when absent), at one clock, the
//! session's cost, requests, cold-resume premium, warm or cold, and last
//! activity read the same in `report session --json`, `cache --json`,
//! `advise --json`, `/api/session/{id}`, the `/sessions` table, the Now
//! panel and `statusline --format json`. A session with sub-agent requests
//! only gets a clear answer from `advise` and no "warm" anywhere. And the
//! cache report reconciles with `report daily`: the same requests and
//! dollars, the difference named.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::pricing::PriceTable;
use cachewise::report::stored_rows::advise;
use cachewise::store::Store;
use chrono::{DateTime, Duration};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What every view must agree on, per session.
#[derive(Debug, Clone, PartialEq)]
struct Figures {
    cost_usd: f64,
    requests: u64,
    /// None for a session without a main conversation.
    warm: Option<bool>,
    premium_usd: Option<f64>,
    last_main: Option<String>,
}

/// `cachewise` over `data` with Claude Code's config directory `root`
/// (its settings and transcripts say which sessions can be resumed);
/// `ingest` false: the store as it is.
fn cw(data: &Path, root: &Path, ingest: bool, now: &str, args: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    cmd.arg("--claude-dir").arg(root).env_remove("CLAUDE_CONFIG_DIR");
    if !ingest {
        cmd.arg("--no-ingest");
    }
    let out =
        cmd.args(["--data-dir"]).arg(data).args(["--tz", "UTC", "--quiet", "--now", now]).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn cents(x: f64) -> i64 {
    (x * 100.0).round() as i64
}

/// `a` and `b` equal to the cent.
#[track_caller]
fn same_usd(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 0.005 + 1e-9 * a.abs(), "{what}: {a} != {b}");
    assert_eq!(cents(a), cents(b), "{what}: {a} != {b}");
}

fn iso(v: &Value) -> Option<String> {
    v.as_str().map(|s| DateTime::parse_from_rfc3339(s).unwrap().to_utc().to_rfc3339())
}

/// The figures of `report session --json`, by session id.
fn from_report(v: &Value) -> BTreeMap<String, Figures> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let f = Figures {
                cost_usd: r["cost_usd"].as_f64().unwrap(),
                requests: r["requests"].as_u64().unwrap(),
                warm: r["warm"].as_bool(),
                premium_usd: r["cold_resume_usd"].as_f64(),
                last_main: iso(&r["last_main"]),
            };
            (r["session_id"].as_str().unwrap().to_owned(), f)
        })
        .collect()
}

/// The main transcript of each session of a corpus root.
fn transcripts(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for project in std::fs::read_dir(root.join("projects")).unwrap().flatten() {
        for f in std::fs::read_dir(project.path()).unwrap().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "jsonl") {
                out.insert(p.file_stem().unwrap().to_string_lossy().into_owned(), p);
            }
        }
    }
    out
}

/// `statusline --format json` for one transcript.
fn statusline(data: &Path, now: &str, session: &str, transcript: &Path) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir"])
        .arg(data)
        .args(["--tz", "UTC", "--now", now, "statusline", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::json!({ "session_id": session, "transcript_path": transcript });
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `GET /api/session/{id}` of the dashboard, in process.
fn api_session(state: &cachewise::web::AppState, id: &str) -> Value {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let uri = format!("/api/session/{}", cachewise::web::params::encode(id));
        let req = axum::http::Request::builder().uri(uri).header("host", "127.0.0.1").body(axum::body::Body::empty());
        let res = cachewise::web::app(state.clone()).oneshot(req.unwrap()).await.unwrap();
        assert_eq!(res.status(), 200, "/api/session/{id}");
        serde_json::from_slice(&res.into_body().collect().await.unwrap().to_bytes()).unwrap()
    })
}

/// The sessions compared that Claude Code compacted after their last
/// request (None without the corpus).
fn check_corpus(name: &str) -> Option<usize> {
    let root = common::corpus(name)?;
    let data = tempfile::tempdir().unwrap();
    // One clock: 20 minutes after the corpus's last request, so its latest
    // sessions are in the Now panel (warm or cold by their TTL).
    let first = cw(data.path(), &root, true, "2030-01-01T00:00:00Z", &["report", "session", "--json"]);
    let last = first["rows"].as_array().unwrap().iter().filter_map(|r| iso(&r["last"])).max().unwrap();
    let now_t = DateTime::parse_from_rfc3339(&last).unwrap().to_utc() + Duration::minutes(20);
    let now = now_t.to_rfc3339();
    let report = from_report(&cw(data.path(), &root, false, &now, &["report", "session", "--json"]));
    assert!(report.len() > 10, "{name}: {} sessions", report.len());

    // cache --json: the stale list and every session's last activity.
    // Only resumable sessions are stale (cache-model v3 §8.3); the others
    // are listed apart with why, a session without a main thread among them.
    let cache = cw(data.path(), &root, false, &now, &["cache", "--json"]);
    let stale: BTreeMap<&str, &Value> =
        cache["stale"].as_array().unwrap().iter().map(|s| (s["session_id"].as_str().unwrap(), s)).collect();
    let not_resumable: BTreeMap<&str, &str> = cache["not_resumable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session_id"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    for (id, f) in &report {
        match (f.warm, stale.get(id.as_str()), not_resumable.get(id.as_str())) {
            (Some(false), Some(s), None) => same_usd(s["premium_usd"].as_f64().unwrap(), f.premium_usd.unwrap(), id),
            (Some(_), None, Some(&why)) => assert_eq!(why, "past_cleanup", "{name} {id}"),
            (None, None, Some(&why)) => assert_eq!(why, "no_main_thread", "{name} {id}"),
            (Some(true), None, None) => {}
            other => panic!("{name} {id}: {:?} in report session, {other:?} in cache --json", f.warm),
        }
    }
    let resumable_cold = |id: &str, f: &Figures| f.warm == Some(false) && !not_resumable.contains_key(id);

    // The cache report reconciles with `report daily`: the same requests
    // and dollars, and the difference from its thread requests named.
    let daily = cw(data.path(), &root, false, &now, &["report", "daily", "--json"]);
    let u = &cache["usage"];
    assert_eq!(u["requests"], daily["total"]["requests"], "{name}: requests");
    // The same sum, in the same order: to the last digit.
    assert_eq!(u["cost_usd"], daily["total"]["cost_usd"], "{name}: dollars");
    assert_eq!(u["thread_requests"], cache["requests"], "{name}: the cache model's count");
    same_usd(u["thread_cost_usd"].as_f64().unwrap(), cache["what_if"]["actual_usd"].as_f64().unwrap(), name);
    let parts = u["thread_cost_usd"].as_f64().unwrap() + u["advisor_cost_usd"].as_f64().unwrap();
    same_usd(parts, u["cost_usd"].as_f64().unwrap(), &format!("{name}: threads + advisor calls"));
    assert!(u["other_usd"].as_f64().unwrap().abs() < 0.005, "{name}: {u}");

    // In-process: the dashboard at the same clock, and the advice every
    // session gets (what `advise ID --json` prints).
    let store = Store::open(data.path()).unwrap();
    let prices = PriceTable::embedded().unwrap();
    let view = common::view(&store, &prices, now_t);
    let state = common::web_state(&store, now_t);
    let snap = state.snapshot();
    let all = snap.all().unwrap();
    let panel_rows = snap.recent().unwrap();
    let panel = cachewise::report::now::now_panel(&panel_rows, &[], &[], &[], now_t);
    let (mut in_panel, mut compacted) = (0, 0);
    for (id, f) in &report {
        let row = all.session_row(id).unwrap();
        same_usd(row.cost_usd, f.cost_usd, id);
        assert_eq!(row.requests, f.requests, "{name} {id}: /sessions requests");
        assert_eq!(row.warm, f.warm, "{name} {id}: /sessions warm");
        let stale_premium = if resumable_cold(id, f) { f.premium_usd } else { None };
        assert_eq!(row.stale_premium_usd.map(cents), stale_premium.map(cents), "{name} {id}: /sessions premium");
        match advise(&view, id, 10) {
            Ok((a, _)) => {
                assert_eq!(Some(a.warm), f.warm, "{name} {id}: advise warm");
                same_usd(a.cold_resume_usd, f.premium_usd.unwrap(), id);
                assert_eq!(Some(a.last.to_rfc3339()), f.last_main, "{name} {id}: advise last");
                // Compacted since, only the base context is a premium (§9 v4).
                if a.claude_code.compacted_since {
                    compacted += 1;
                    assert!(a.cold_resume_usd <= a.cold_resume_v2_usd + 1e-9, "{name} {id}: {a:?}");
                }
            }
            Err(e) => {
                assert_eq!(f.warm, None, "{name} {id}: advice refused: {e}");
                assert!(e.to_string().contains("only sub-agent requests"), "{e}");
            }
        }
        let api = api_session(&state, id);
        same_usd(api["usage"]["cost_usd"].as_f64().unwrap(), f.cost_usd, &format!("{name} {id}: /api/session"));
        assert_eq!(api["usage"]["requests"].as_u64(), Some(f.requests), "{name} {id}: /api/session requests");
        assert_eq!(api["usage"]["warm"].as_bool(), f.warm, "{name} {id}: /api/session warm");
        assert_eq!(api["usage"]["cold_resume_usd"].as_f64().map(cents), f.premium_usd.map(cents), "{name} {id}");
        assert_eq!(api["stale"].is_null(), !resumable_cold(id, f), "{name} {id}: /api/session stale");
        if let Some(s) = panel.sessions.iter().find(|s| s.session_id == *id) {
            in_panel += 1;
            assert_eq!(Some(s.warm), f.warm, "{name} {id}: Now panel warm");
            same_usd(s.premium_usd, f.premium_usd.unwrap(), id);
            assert_eq!(Some(s.last.to_rfc3339()), f.last_main, "{name} {id}: Now panel last");
        }
    }
    assert!(in_panel > 0, "{name}: the Now panel lists the latest sessions");

    // The status line, from each main transcript (the store as of the ingest).
    let files = transcripts(&root);
    let mut lines = 0;
    for (id, f) in report.iter().filter(|(_, f)| f.warm.is_some()) {
        let Some(path) = files.get(id) else { continue };
        let st = statusline(data.path(), &now, id, path);
        same_usd(st["session_cost_usd"].as_f64().unwrap(), f.cost_usd, &format!("{name} {id}: status line cost"));
        assert_eq!(st["session_requests"].as_u64(), Some(f.requests), "{name} {id}: status line requests");
        assert_eq!(st["warm"].as_bool(), f.warm, "{name} {id}: status line warm");
        same_usd(st["cold_resume_usd"].as_f64().unwrap(), f.premium_usd.unwrap(), &format!("{name} {id}: status line"));
        assert_eq!(iso(&st["last_request_at"]), f.last_main, "{name} {id}: status line last");
        lines += 1;
    }
    assert!(lines > 10, "{name}: {lines} status lines compared");

    // A sample of sessions through the binary's `advise --json` and the API.
    for (id, f) in report.iter().take(5) {
        let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
            .args(["--no-ingest", "--data-dir"])
            .arg(data.path())
            .args(["--now", &now, "advise", id, "--json"])
            .output()
            .unwrap();
        match f.warm {
            Some(warm) => {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(v["warm"].as_bool(), Some(warm));
                same_usd(v["cold_resume_usd"].as_f64().unwrap(), f.premium_usd.unwrap(), id);
            }
            None => assert!(String::from_utf8_lossy(&out.stderr).contains("only sub-agent requests")),
        }
    }
    eprintln!(
        "{name}: {} sessions ({compacted} compacted since), {in_panel} in the Now panel, {lines} status lines",
        report.len()
    );
    Some(compacted)
}

#[test]
fn every_view_reads_one_number_per_session_on_the_real_corpora() {
    let compacted: Vec<Option<usize>> = ["real", "real2", "real3"].into_iter().map(check_corpus).collect();
    // real3 holds a conversation compacted after its last request.
    if let Some(n) = compacted[2] {
        assert!(n > 0, "a conversation compacted after its last request is compared");
    }
}
