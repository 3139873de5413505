//! One rule decides whether a session can be resumed, and every view asks
//! it: no advice to resume a session whose transcript is gone, that is
//! past Claude Code's cleanup, or that is a team member's (a team store
//! holds other people's sessions); and a running dashboard notices a
//! deleted transcript at its next refresh.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use chrono::Duration;
use common::{cachewise, cachewise_in, t0, write, Resp};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn session(root: &Path, session: &str, minutes: i64) -> PathBuf {
    let mut lines = Vec::new();
    for (n, m) in [(1, minutes), (2, minutes + 10)] {
        lines.extend(Resp::new(session, n, m).to_lines());
    }
    write(root, &format!("-home-u-app/{session}.jsonl"), &lines)
}

#[test]
fn a_team_store_never_advises_resuming_a_members_session() {
    let (root, mine, team, dir) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    session(root.path(), "s-alice", 0);
    let now = (t0() + Duration::hours(3)).to_rfc3339();
    let bundle = dir.path().join("alice.parquet");
    let out = cachewise(root.path(), mine.path(), &["export", "--user", "alice", "--out", bundle.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = cachewise_in(None, team.path(), &["import", bundle.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = json(&cachewise_in(None, team.path(), &["--now", &now, "advise", "s-alice", "--json"]));
    assert_eq!((a["not_resumable"].as_str(), a["recommendation"].as_str()), (Some("team_member"), Some("restart")));
    let text = cachewise_in(None, team.path(), &["--now", &now, "advise", "s-alice"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Do this: Start a new session.") && text.contains("a team member's session"), "{text}");
    assert_eq!(text.matches("cannot be resumed").count(), 1, "said once: {text}");
    assert!(!text.contains("weigh that against"), "no choice to weigh: {text}");
    let c = json(&cachewise_in(None, team.path(), &["--now", &now, "cache", "--json"]));
    assert!(c["stale"].as_array().unwrap().is_empty(), "no stale list of other people's sessions: {}", c["stale"]);
    assert_eq!(c["not_resumable"][0]["reason"], "team_member");
    // The same session in its owner's own store is theirs to resume.
    let own = json(&cachewise(root.path(), mine.path(), &["--now", &now, "advise", "s-alice", "--json"]));
    assert!(own["not_resumable"].is_null() && own["recommendation"] != "restart", "{own}");
}

#[test]
fn a_running_dashboard_notices_a_deleted_transcript_at_its_next_refresh() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let gone = session(root.path(), "s-gone", 0);
    let out = cachewise(root.path(), data.path(), &["ingest"]);
    assert!(out.status.success());
    let store = cachewise::store::Store::open(data.path()).unwrap();
    let now = t0() + Duration::hours(3);
    let state = cachewise::web::AppState::new(cachewise::web::Settings {
        claude_roots: vec![root.path().to_path_buf()],
        ..common::settings(&store, now)
    })
    .unwrap();
    let advise = |state: &cachewise::web::AppState| -> Value {
        serde_json::from_str(&common::get(state, "/api/advise/s-gone")).unwrap()
    };
    assert!(advise(&state)["not_resumable"].is_null());
    assert_eq!(state.rebuild().unwrap(), None, "nothing changed yet");
    std::fs::remove_file(&gone).unwrap();
    let version = state.rebuild().unwrap();
    assert!(version.is_some(), "the deletion is a new version of the data");
    let a = advise(&state);
    assert_eq!(
        (a["not_resumable"].as_str(), a["recommendation"].as_str()),
        (Some("transcript_deleted"), Some("restart"))
    );
    let page = common::get(&state, "/session/s-gone");
    assert!(page.contains("Start a new session.") && !page.contains("Resume as it is"), "the session page");
}

/// `GET path` from a server on `addr`, the body.
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default()
}

#[test]
fn a_dashboard_started_with_now_keeps_that_clock() {
    use std::io::{BufRead, BufReader};
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    session(root.path(), "s-then", 0);
    // Months ago by the system clock (past Claude Code's cleanup), three
    // hours ago by `--now`: the dashboard must answer as of `--now`.
    let now = (t0() + Duration::hours(3)).to_rfc3339();
    let mut child = std::process::Command::new(common::bin())
        .args(["--now", &now, "serve", "--bind", "127.0.0.1:0", "--claude-dir"])
        .arg(root.path())
        .arg("--data-dir")
        .arg(data.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CACHEWISE_DATA_DIR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    let addr = first.split("http://").nth(1).unwrap().split('/').next().unwrap().to_owned();
    let body = http_get(&addr, "/api/advise/s-then");
    child.kill().unwrap();
    child.wait().unwrap();
    let a: Value = serde_json::from_str(&body).unwrap();
    let idle_h = a["idle_s"].as_f64().unwrap() / 3600.0;
    assert!((idle_h - (3.0 - 10.0 / 60.0)).abs() < 0.01, "idle as of --now: {idle_h} h");
    assert!(a["not_resumable"].is_null(), "{a}");
}
