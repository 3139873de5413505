//! The status line believes Claude Code first: with `prompt_cache` on
//! stdin, its `warm`, `ttl`, `expires_at` and `recache_tokens_if_cold`
//! decide the line (the premium at the session's rates), its last miss
//! cause is named, `rate_limits.spend_limit` is shown; each reading is
//! recorded beside cachewise's own verdict and `cache --json` counts how
//! often they agreed. Without `prompt_cache` the line is the transcript's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::{cachewise, t0, write, Resp};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn run(data: &Path, stdin: &str, now: DateTime<Utc>, format: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", data.to_str().unwrap(), "--tz", "UTC", "statusline", "--no-color"])
        .args(["--now", &now.to_rfc3339(), "--format", format])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn input(transcript: &Path, extra: &str) -> String {
    format!(
        r#"{{"session_id":"s1","transcript_path":{},"model":{{"id":"claude-sonnet-4-5-20250929"}}{extra}}}"#,
        serde_json::to_string(transcript.to_str().unwrap()).unwrap()
    )
}

fn prompt_cache(warm: bool, ttl: &str, expires_at: DateTime<Utc>, recache: u64, causes: &str) -> String {
    format!(
        r#","prompt_cache":{{"warm":{warm},"caching_observed":true,"ttl":"{ttl}","expires_at":{},"requests":2,"misses":1,
        "recache_tokens_if_cold":{recache},"last_miss_cause":{{"causes":[{causes}]}},"miss_causes":{{}}}}"#,
        expires_at.timestamp()
    )
}

/// A session whose transcript says warm: its last request 2 minutes
/// before `now` with a 5-minute TTL.
fn warm_session(root: &Path) -> (std::path::PathBuf, DateTime<Utc>) {
    let resps = [Resp::new("s1", 1, 0), Resp::new("s1", 2, 2)];
    let path = write(root, "-p/s1.jsonl", &resps.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    (path, t0() + Duration::minutes(4))
}

#[test]
fn claude_codes_cold_verdict_wins_over_a_warm_transcript() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let (path, now) = warm_session(&root);
    let stdin = input(&path, &prompt_cache(false, "5m", now - Duration::minutes(1), 250_000, r#""tools_changed""#));

    let v: Value = serde_json::from_str(&run(&data, &stdin, now, "json")).unwrap();
    assert_eq!(v["warm"], false);
    assert_eq!(v["transcript_warm"], true, "cachewise's own verdict is kept beside");
    assert_eq!(v["verdict_from"], "claude_code");
    assert_eq!(v["prompt_tokens"], 250_000);
    // 250,000 tokens less the 20,500 shared prefix the session's first
    // request read (still warm: it ran 4 minutes ago), at Sonnet 4.5's
    // 5-minute write over read: (3.75 - 0.30) $/M.
    let premium = v["cold_resume_usd"].as_f64().unwrap();
    assert!((premium - 229_500.0 * 3.45e-6).abs() < 1e-9, "{premium}");

    let line = run(&data, &stdin, now, "text");
    assert!(!line.contains("warm"), "{line}");
    assert!(
        line.starts_with("○ cold 1:00 (since 20:03) · next message +$0.79 · last miss: the tools changed"),
        "{line}"
    );

    let out = cachewise(&root, &data, &["cache", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["live_agreement"], serde_json::json!({"samples": 1, "warm_agree": 0, "warm_disagree": 1}));
}

#[test]
fn claude_codes_warm_verdict_sets_the_ttl_and_expiry_and_spend_limit_is_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let (path, now) = warm_session(&root);
    let limits = r#","rate_limits":{"five_hour":{"used_percentage":21,"resets_at":1770854400},"spend_limit":{"used_percentage":104,"resets_at":1770854400}}"#;
    let pc = prompt_cache(true, "1h", now + Duration::minutes(50), 40_000, "");
    let line = run(&data, &input(&path, &format!("{pc}{limits}")), now, "text");
    // 40,000 tokens less the 20,500 shared prefix at the 1-hour write over
    // read: 19,500 x (6.00 - 0.30) $/M.
    assert!(line.starts_with("● warm 50m left (1h TTL) · cold resume +$0.11 · session $"), "{line}");
    assert!(line.contains("· 5h 21% (resets 00:00) · spend 104% (resets Feb 12 00:00)"), "{line}");
    assert!(!line.contains("last miss"), "{line}");
    let v: Value = serde_json::from_str(&run(&data, &input(&path, &format!("{pc}{limits}")), now, "json")).unwrap();
    assert_eq!((v["ttl_s"].as_u64(), v["transcript_warm"].as_bool()), (Some(3600), Some(true)));
    let readings = std::fs::read_to_string(data.join("statusline/prompt_cache.jsonl")).unwrap();
    assert_eq!(readings.lines().count(), 1, "the same reading twice is recorded once: {readings}");
}

#[test]
fn without_prompt_cache_the_transcript_decides_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let (path, now) = warm_session(&root);
    let v: Value = serde_json::from_str(&run(&data, &input(&path, ""), now, "json")).unwrap();
    assert_eq!((v["warm"].as_bool(), v["verdict_from"].as_str()), (Some(true), Some("transcript")));
    assert_eq!(v["transcript_warm"], Value::Null);
    assert!(run(&data, &input(&path, ""), now, "text").starts_with("● warm 3:00 left (5m TTL)"));
    assert!(!data.join("statusline/prompt_cache.jsonl").exists(), "nothing to record");
}

/// The cold-resume premium of one session at one moment, on the status line
/// and the dashboard's Now panel: with Claude Code's `recache_tokens_if_cold`
/// both price that count (it holds the last reply, which the transcript's
/// last prompt does not), less the shared prefix other sessions keep warm;
/// without it both price the transcript's last prompt. One figure either way.
#[test]
fn the_status_line_and_the_now_panel_show_one_cold_resume_premium() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    // Prompt 150,000 read + 1,000 written + 4 input; a 5-minute TTL, so
    // cold 10 minutes later.
    let s1 = Resp { read: 150_000, w5: 1000, ..Resp::new("s1", 1, 0) };
    let path = write(&root, "-p/s1.jsonl", &s1.to_lines());
    let now = t0() + Duration::minutes(10);
    cachewise(&root, &data, &["report", "daily", "--json"]);
    let panel = |data: &Path| {
        let store = cachewise::store::Store::open(data).unwrap();
        let body = common::get(&common::web_state(&store, now), "/");
        body[body.find(r#"id="now""#).unwrap()..].split("</section>").next().unwrap().to_owned()
    };
    let plain: Value = serde_json::from_str(&run(&data, &input(&path, ""), now, "json")).unwrap();
    // (151,004 - 150,000) x (3.75 - 0.30) $/M: under a cent on both.
    let premium = plain["cold_resume_usd"].as_f64().unwrap();
    assert!((premium - 1_004.0 * 3.45e-6).abs() < 1e-9, "{premium}");
    let before = panel(&data);
    assert!(before.contains("&#60;$0.01") && before.contains(">151k<"), "{before}");
    assert!(!before.contains("Claude Code's count"), "{before}");

    let pc = prompt_cache(false, "5m", now - Duration::minutes(5), 180_000, r#""ttl_expired_5m""#);
    let told: Value = serde_json::from_str(&run(&data, &input(&path, &pc), now, "json")).unwrap();
    // (180,000 - the 150,000 shared prefix, warm: s1 ran 10 minutes ago) x
    // Sonnet 4.5's 5-minute write over read, (3.75 - 0.30) $/M = $0.1035.
    let premium = told["cold_resume_usd"].as_f64().unwrap();
    assert!((premium - 30_000.0 * 3.45e-6).abs() < 1e-9, "{premium}");
    let after = panel(&data);
    assert!(after.contains(">$0.10<") && after.contains(">180k <"), "{after}");
    assert!(after.contains("Claude Code's count"), "{after}");
}
