//! `cachewise statusline` on the real binary: Claude Code's JSON with and
//! without `rate_limits`, garbage and empty stdin, a missing transcript, a
//! locked or unusable data directory, a transcript appended, truncated and
//! replaced between calls (figures recover, nothing counted twice), and
//! `--install` on a temporary home.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::{append, t0, write, Resp};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(data: &Path, stdin: &str, now: DateTime<Utc>, extra: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", data.to_str().unwrap(), "--tz", "UTC", "statusline", "--now", &now.to_rfc3339()])
        .args(extra)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The JSON status for `transcript` at `now`; asserts one line, exit 0, no stderr.
fn status(data: &Path, stdin: &str, now: DateTime<Utc>) -> Value {
    let out = run(data, stdin, now, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

fn input(transcript: &Path, limits: bool) -> String {
    let rl = if limits {
        r#","rate_limits":{"five_hour":{"used_percentage":42,"resets_at":1770854400},"seven_day":{"used_percentage":7.5,"resets_at":1771200000}}"#
    } else {
        ""
    };
    format!(
        r#"{{"session_id":"s1","transcript_path":{},"model":{{"id":"claude-sonnet-4-5-20250929"}},"cost":{{"total_cost_usd":0.5}},"context_window":{{}}{rl}}}"#,
        serde_json::to_string(transcript.to_str().unwrap()).unwrap()
    )
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

fn lines(resps: &[Resp]) -> Vec<String> {
    resps.iter().flat_map(Resp::to_lines).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// The premium of a Sonnet 4.5 request with a 5-minute TTL, cache model v3
/// (§6, §8.2): the shared prefix its lineage's first request `first` read
/// stays warm within the hour, so only the rest of the prompt is written
/// again: (prompt - first read) x (1.25 - 0.1) x $3/M.
fn premium_5m_v3(r: &Resp, first: &Resp) -> f64 {
    (r.input + r.w5 + r.w1h + r.read - first.read) as f64 * 1.15 * 3e-6
}

#[test]
fn json_with_and_without_rate_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (Resp::new("s1", 1, 0), Resp::new("s1", 2, 2));
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&[a.clone(), b.clone()]));
    let data = tmp.path().join("data");
    let now = t0() + Duration::minutes(4);
    let v = status(&data, &input(&path, false), now);
    assert_eq!(v["session_id"], "s1");
    assert_eq!(v["warm"], true);
    assert_eq!(v["ttl_s"], 300);
    assert_eq!(v["expires_at"], rfc3339(b.time + Duration::seconds(300)));
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), a.sonnet_cost() + b.sonnet_cost()));
    assert!(close(v["today_cost_usd"].as_f64().unwrap(), a.sonnet_cost() + b.sonnet_cost()));
    assert!(close(v["cold_resume_usd"].as_f64().unwrap(), premium_5m_v3(&b, &a)));
    assert_eq!(v["session_requests"], 2);
    assert_eq!(v["five_hour_used_pct"], Value::Null);
    assert_eq!(v["cold_resume_five_hour_pct"], Value::Null);

    let cold = now + Duration::minutes(10);
    let v = status(&data, &input(&path, true), cold);
    assert_eq!(v["warm"], false);
    assert_eq!(v["five_hour_used_pct"], 42.0);
    assert_eq!(v["seven_day_used_pct"], 7.5);
    assert_eq!(v["five_hour_resets_at"], "2026-02-12T00:00:00Z");
    assert_eq!(v["cold_resume_five_hour_pct"], Value::Null, "one sample is too few for an estimate");
    let table = std::fs::read_to_string(data.join("statusline/rate_limits.jsonl")).unwrap();
    assert_eq!(table.lines().count(), 1);
    assert!(table.contains(r#""used_pct":42.0"#), "{table}");

    let out = run(&data, &input(&path, true), cold, &["--no-color"]);
    let line = String::from_utf8(out.stdout).unwrap();
    let expected = format!(
        "○ cold 7:00 (since 20:07) · next message +${:.2} · session ${:.2} · today ${:.2} · 5h 42% (resets 00:00)\n",
        premium_5m_v3(&b, &a),
        a.sonnet_cost() + b.sonnet_cost(),
        a.sonnet_cost() + b.sonnet_cost()
    );
    assert_eq!(line, expected);
}

#[test]
fn garbage_empty_and_missing_input_give_one_short_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let cases = [
        ("", "cachewise: no input on stdin\n"),
        ("\u{1b}[2J garbage {", "cachewise: input is not a JSON object\n"),
        (r#"{"session_id":"x"}"#, "cachewise: no transcript_path in the input\n"),
        (r#"{"transcript_path":"/nonexistent/x.jsonl"}"#, "cachewise: transcript not readable\n"),
        (r#"{"transcript_path":"/dev/zero"}"#, "cachewise: transcript not readable\n"),
        (r#"{"transcript_path":"/tmp"}"#, "cachewise: transcript not readable\n"),
    ];
    for (stdin, want) in cases {
        let out = run(&data, stdin, t0(), &["--no-color"]);
        assert_eq!(out.status.code(), Some(0), "{stdin:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{stdin:?}");
        assert!(out.stderr.is_empty(), "{stdin:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn a_locked_or_unusable_data_dir_does_not_break_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let r = Resp::new("s1", 1, 0);
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(std::slice::from_ref(&r)));
    let data = tmp.path().join("data");
    let store = cachewise::store::Store::open(&data).unwrap();
    let _commit = store.begin().unwrap();
    let v = status(&data, &input(&path, false), t0() + Duration::minutes(1));
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), r.sonnet_cost()), "a held lock is not waited on");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let v = status(&file.join("data"), &input(&path, false), t0() + Duration::minutes(1));
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), r.sonnet_cost()), "no state can be kept: read in full");
}

#[test]
fn appended_truncated_and_replaced_transcripts_are_counted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let rs: Vec<Resp> = (1..=4).map(|n| Resp::new("s1", n, 2 * n as i64)).collect();
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&rs[..1]));
    let now = t0() + Duration::minutes(9);
    let cost = |v: &Value| v["session_cost_usd"].as_f64().unwrap();
    assert!(close(cost(&status(&data, &input(&path, false), now)), rs[0].sonnet_cost()));

    // Appended: response 2 whole, and the first two lines of response 3
    // (placeholder output), the rest of its last line without a newline.
    let three = rs[2].to_lines();
    append(&path, &format!("{}\n{}\n{}\n", rs[1].to_lines().join("\n"), three[0], three[1]));
    let (head, tail) = three[2].split_at(40);
    append(&path, head);
    let v = status(&data, &input(&path, false), now);
    let placeholder = Resp { out: 2, ..rs[2].clone() };
    assert!(close(cost(&v), rs[0].sonnet_cost() + rs[1].sonnet_cost() + placeholder.sonnet_cost()));
    assert_eq!(v["session_requests"], 3);
    append(&path, &format!("{tail}\n"));
    let v = status(&data, &input(&path, false), now);
    let want = rs[0].sonnet_cost() + rs[1].sonnet_cost() + rs[2].sonnet_cost();
    assert!(close(cost(&v), want), "the final line replaces the placeholder: {v}");
    assert_eq!(v["session_requests"], 3);
    assert!(close(cost(&status(&data, &input(&path, false), now)), want), "an unchanged file adds nothing");

    // Truncated to its first response: read again from the start.
    write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&rs[..1]));
    let v = status(&data, &input(&path, false), now);
    assert!(close(cost(&v), rs[0].sonnet_cost()));
    assert_eq!(v["last_request_at"], rfc3339(rs[0].time));

    // Replaced by other content at least as long: its figures alone.
    let other: Vec<Resp> = (1..=2).map(|n| Resp { w1h: 5000, w5: 0, ..Resp::new("s2", n + 10, n as i64) }).collect();
    write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&other));
    let v = status(&data, &input(&path, false), now);
    assert!(close(cost(&v), other[0].sonnet_cost() + other[1].sonnet_cost()), "{v}");
    assert_eq!(v["ttl_s"], 3600, "the replacement wrote 1-hour caches");
    assert_eq!(v["session_requests"], 2);
}

fn install(home: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["statusline", "--install"])
        .args(extra)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap()
}

#[test]
fn install_creates_backs_up_refuses_and_forces() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    let ours = format!("{} statusline", env!("CARGO_BIN_EXE_cachewise"));
    let out = install(home.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["statusLine"]["type"], "command");
    assert_eq!(v["statusLine"]["command"], ours);
    assert!(String::from_utf8_lossy(&install(home.path(), &[]).stdout).contains("already has"));

    let theirs =
        "{\n  \"model\": \"opus\",\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/mine.sh\"}\n}\n";
    std::fs::write(&settings, theirs).unwrap();
    let out = install(home.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different status line (~/bin/mine.sh)"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs, "refused: untouched");

    let out = install(home.path(), &["--force"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["statusLine"]["command"], ours);
    assert_eq!(v["model"], "opus");
    assert_eq!(std::fs::read_to_string(home.path().join(".claude/settings.json.bak")).unwrap(), theirs);

    let plain = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&settings, plain).unwrap();
    assert_eq!(install(home.path(), &[]).status.code(), Some(0));
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.ends_with("\"model\": \"opus\"\n}\n"), "the rest is kept as written: {text}");
    assert_eq!(std::fs::read_to_string(home.path().join(".claude/settings.json.bak.1")).unwrap(), plain);

    let out = Command::new(env!("CARGO_BIN_EXE_cachewise")).args(["statusline", "--print-config"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["statusLine"]["command"], ours);
}

#[test]
fn a_first_call_starts_from_the_store_and_counts_each_response_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let rs: Vec<Resp> = (1..=4).map(|n| Resp::new("s1", n, 2 * n as i64)).collect();
    // The ingest sees responses 1 and 2 and the first two lines of 3.
    let three = rs[2].to_lines();
    let mut first = lines(&rs[..2]);
    first.extend_from_slice(&three[..2]);
    let path = write(&root, "-p/s1.jsonl", &first);
    let ingest = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--claude-dir", root.to_str().unwrap(), "--data-dir", data.to_str().unwrap(), "--quiet", "ingest"])
        .output()
        .unwrap();
    assert!(ingest.status.success(), "{}", String::from_utf8_lossy(&ingest.stderr));
    append(&path, &format!("{}\n{}\n", three[2], rs[3].to_lines().join("\n")));
    let v = status(&data, &input(&path, false), t0() + Duration::minutes(9));
    let total: f64 = rs.iter().map(Resp::sonnet_cost).sum();
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), total), "{v}");
    assert_eq!(v["session_requests"], 4);
    assert_eq!(v["last_request_at"], rfc3339(rs[3].time));
    assert!(close(v["cold_resume_usd"].as_f64().unwrap(), premium_5m_v3(&rs[3], &rs[0])));
    // Today: the store's three (one a placeholder) plus what it has not read.
    assert!(close(v["today_cost_usd"].as_f64().unwrap(), total), "{v}");
    // The state was seeded from the store: responses 1 and 2 came from the
    // bytes before the stored position (line 0: counted by the store).
    let dir = data.join("statusline/sessions");
    let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    let state: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let recent = state["files"][path.to_str().unwrap()]["recent"].as_array().unwrap().clone();
    assert_eq!(recent.iter().filter(|s| s[1] == 0).count(), 2, "{recent:?}");
}

/// On the real corpus (skipped when absent): for its largest transcripts,
/// the status line's session cost, read in full (no store) and started from
/// the store, equals `report session`'s.
#[test]
fn the_session_cost_matches_report_session_on_the_real_corpus() {
    let Some(corpus) = common::real_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--claude-dir", corpus.to_str().unwrap(), "--data-dir", data.to_str().unwrap(), "--quiet"])
        .args(["report", "session", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut mains: Vec<std::path::PathBuf> = std::fs::read_dir(corpus.join("projects"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    mains.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).unwrap().len()));
    let now = Utc::now();
    for path in mains.iter().take(3) {
        let id = path.file_stem().unwrap().to_str().unwrap();
        let row = report["rows"].as_array().unwrap().iter().find(|r| r["session_id"] == id).unwrap();
        let want = row["cost_usd"].as_f64().unwrap();
        let fresh = status(&tmp.path().join(format!("fresh-{id}")), &input(path, false), now);
        let seeded = status(&data, &input(path, false), now);
        for v in [&fresh, &seeded] {
            assert!((v["session_cost_usd"].as_f64().unwrap() - want).abs() < 1e-9, "{id}: {v} vs {want}");
            assert_eq!(v["session_requests"], row["requests"], "{id}");
        }
    }
}

/// A response made of several API calls costs its calls at their own models
/// in the status line too, as in every report: an advisor call on Fable
/// inside an Opus 4.8 response (the shape of reference §2.4).
#[test]
fn a_response_with_an_advisor_call_costs_its_calls() {
    let (dir, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let call = |kind: &str, model: &str, t: [u64; 5]| {
        serde_json::json!({"type": kind, "model": model, "input_tokens": t[0],
            "cache_creation_input_tokens": t[1] + t[2], "cache_read_input_tokens": t[3], "output_tokens": t[4],
            "cache_creation": {"ephemeral_5m_input_tokens": t[1], "ephemeral_1h_input_tokens": t[2]}})
    };
    let line = serde_json::json!({"type": "assistant", "sessionId": "s1", "cwd": "/home/u/app", "version": "2.1.200",
        "timestamp": "2026-05-01T12:00:00.000Z", "requestId": "req_1", "uuid": "u1",
        "message": {"id": "msg_1", "model": "claude-opus-4-8", "role": "assistant", "content": [],
            "usage": {"input_tokens": 4, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 81_000,
                "output_tokens": 500, "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 0},
                "iterations": [call("message", "claude-opus-4-8", [3, 1000, 0, 40_000, 200]),
                    call("advisor_message", "claude-fable-5", [149_112, 0, 0, 0, 14_153]),
                    call("message", "claude-opus-4-8", [1, 0, 0, 41_000, 300])]}}});
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let now: DateTime<Utc> = "2026-05-01T12:01:00Z".parse().unwrap();
    let v = status(data.path(), &input(&path, false), now);
    // 3*5 + 1000*6.25 + 40000*0.5 + 200*25 = 31,265; Fable 5: 149112*10 +
    // 14153*50 = 2,198,770; 1*5 + 41000*0.5 + 300*25 = 28,005 (per 10^6):
    // $2.25804, not the top-level usage's $0.05927.
    let cost = v["session_cost_usd"].as_f64().unwrap();
    assert!((cost - 2.25804).abs() < 1e-9, "{cost}");
    assert_eq!(v["session_requests"], 1);
}

/// `status`, timed: a call on any file takes its usual milliseconds (a
/// generous bound, for debug builds on a loaded machine).
fn timed_status(data: &Path, stdin: &str, now: DateTime<Utc>) -> Value {
    let started = std::time::Instant::now();
    let v = status(data, stdin, now);
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}: {v}", started.elapsed());
    v
}

#[test]
fn a_2_gb_sparse_transcript_is_read_a_bounded_slice_per_call_never_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let path = tmp.path().join("s.jsonl");
    std::fs::File::create(&path).unwrap().set_len(2 << 30).unwrap();
    let budget = 16u64 << 20;
    for call in 1..=3u64 {
        let v = timed_status(&data, &input(&path, false), t0());
        let left = (2u64 << 30) - call * budget;
        assert_eq!(v["note"], format!("transcript partly read ({:.0} MB to go)", left as f64 / 1e6), "call {call}");
        assert_eq!(v["session_requests"], 0);
    }
}

#[test]
fn a_1_gb_sparse_sub_agent_file_leaves_the_transcript_read() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let r = Resp::new("s1", 1, 0);
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(std::slice::from_ref(&r)));
    let agents = path.with_extension("").join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::File::create(agents.join("agent-a1.jsonl")).unwrap().set_len(1 << 30).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let v = timed_status(&data, &input(&path, false), t0() + Duration::minutes(1));
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), r.sonnet_cost()), "{v}");
    assert_eq!((v["warm"].as_bool(), v["session_requests"].as_u64()), (Some(true), Some(1)));
    // The transcript and the sub-agent share one call's budget.
    let left = (1u64 << 30) - ((16 << 20) - size);
    assert_eq!(v["note"], format!("transcript partly read ({:.0} MB to go)", left as f64 / 1e6));
    let v = timed_status(&data, &input(&path, false), t0() + Duration::minutes(1));
    let left = left - (16 << 20);
    assert_eq!(v["note"], format!("transcript partly read ({:.0} MB to go)", left as f64 / 1e6));
}

#[test]
fn a_line_longer_than_a_call_reads_is_skipped_and_the_lines_after_it_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (a, b) = (Resp::new("s1", 1, 0), Resp::new("s1", 2, 1));
    let long = format!(r#"{{"type":"user","message":{{"content":"{}"}}}}"#, "x".repeat(20 << 20));
    let path = write(
        &tmp.path().join("claude"),
        "-p/s1.jsonl",
        &[lines(std::slice::from_ref(&a)), vec![long], lines(std::slice::from_ref(&b))].concat(),
    );
    let now = t0() + Duration::minutes(2);
    let v = timed_status(&data, &input(&path, false), now);
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), a.sonnet_cost()), "{v}");
    assert!(v["note"].as_str().unwrap().starts_with("transcript partly read"), "{v}");
    let v = timed_status(&data, &input(&path, false), now);
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), a.sonnet_cost() + b.sonnet_cost()), "{v}");
    assert_eq!((v["session_requests"].as_u64(), v["note"].clone()), (Some(2), Value::Null));
    assert_eq!(v["last_request_at"], rfc3339(b.time));
}

#[test]
fn a_tail_replaced_by_other_responses_is_not_counted_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // The first response's lines fill more than the 4 KiB head, so the
    // head is the same after the rewrite.
    let first = Resp { lines: 8, ..Resp::new("s1", 1, 0) };
    let old: Vec<Resp> = (2..=3).map(|n| Resp::new("s1", n, n as i64)).collect();
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&[&[first.clone()][..], &old].concat()));
    let kept = lines(std::slice::from_ref(&first)).join("\n").len() as u64 + 1;
    assert!(kept > 4096);
    let now = t0() + Duration::minutes(9);
    let v = status(&data, &input(&path, false), now);
    let before: f64 = [&[first.clone()][..], &old].concat().iter().map(Resp::sonnet_cost).sum();
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), before), "{v}");
    // Truncated to the first response, then other responses appended: longer than before.
    let size = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(kept).unwrap();
    let new: Vec<Resp> = (4..=6).map(|n| Resp { w1h: 3000, ..Resp::new("s1", n, n as i64) }).collect();
    append(&path, &(lines(&new).join("\n") + "\n"));
    assert!(std::fs::metadata(&path).unwrap().len() > size);
    let v = status(&data, &input(&path, false), now);
    let after: f64 = [&[first.clone()][..], &new].concat().iter().map(Resp::sonnet_cost).sum();
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), after), "{v} vs {after}");
    assert_eq!(v["session_requests"], 4);
    assert_eq!(v["last_request_at"], rfc3339(new[2].time));
}

#[test]
fn a_response_stamped_in_the_far_future_is_a_bad_line_not_the_last_request() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let r = Resp::new("s1", 1, 0);
    let year = |n: u64, y: i32| Resp {
        time: chrono::TimeZone::with_ymd_and_hms(&Utc, y, 4, 12, 0, 0, 0).unwrap(),
        ..Resp::new("s1", n, 0)
    };
    let path = write(&tmp.path().join("claude"), "-p/s1.jsonl", &lines(&[r.clone(), year(2, 2262), year(3, 9999)]));
    let now = t0() + Duration::minutes(1);
    let v = status(&data, &input(&path, false), now);
    assert_eq!(v["last_request_at"], rfc3339(r.time));
    assert_eq!((v["warm"].as_bool(), v["session_requests"].as_u64()), (Some(true), Some(1)));
    assert_eq!(v["expires_at"], rfc3339(r.time + Duration::seconds(300)));
    assert!(close(v["session_cost_usd"].as_f64().unwrap(), r.sonnet_cost()));
    assert!(close(v["today_cost_usd"].as_f64().unwrap(), r.sonnet_cost()));
}
