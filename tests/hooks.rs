//! Claude Code's hooks on the real binary: `hook session-start` answers a
//! resume with the advice's own figures as a `systemMessage` (never for
//! the model), and says nothing on startup, garbage or empty input, always
//! exiting 0; `hooks --install` adds the hooks beside the user's, through a
//! symlinked settings file, and a second install changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::{cachewise, t0, write, Resp};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn hook(data: &Path, stdin: &str, now: DateTime<Utc>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", data.to_str().unwrap(), "--tz", "UTC", "--now", &now.to_rfc3339()])
        .args(["hook", "session-start"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn start(source: &str, extra: &str) -> String {
    format!(
        r#"{{"session_id":"s1","transcript_path":"/x/s1.jsonl","cwd":"/home/u/app","hook_event_name":"SessionStart","source":"{source}"{extra}}}"#
    )
}

/// A stored session idle for two hours at `now`.
fn stored(tmp: &Path) -> (std::path::PathBuf, std::path::PathBuf, DateTime<Utc>) {
    let (root, data) = (tmp.join("claude"), tmp.join("data"));
    let resps: Vec<Resp> = (1..=4).map(|n| Resp::new("s1", n, n as i64)).collect();
    write(&root, "-home-u-app/s1.jsonl", &resps.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    let out = cachewise(&root, &data, &["ingest"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    (root, data, t0() + Duration::hours(2))
}

fn usd(v: &Value) -> String {
    format!("${:.2}", v.as_f64().unwrap())
}

#[test]
fn a_resume_gets_the_advice_as_a_message_for_the_user() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data, now) = stored(tmp.path());
    let extra = r#","seconds_since_last_response":7000,"context_tokens":22000,"prompt_cache_likely_expired":true,"estimated_cache_write_usd":0.0825"#;
    let out = hook(&data, &start("resume", extra), now);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_object().unwrap().keys().collect::<Vec<_>>(), ["systemMessage"], "nothing for the model: {v}");
    let msg = v["systemMessage"].as_str().unwrap();
    assert_eq!(msg.lines().count(), 2, "{msg}");

    let advice = cachewise(
        &root,
        &data,
        &["--no-ingest", "--now", &now.to_rfc3339(), "advise", "s1", "--turns", "10", "--json"],
    );
    let a: Value = serde_json::from_slice(&advice.stdout).unwrap();
    assert!(msg.starts_with("cachewise: the cache went cold at 20:09 (1.9 h idle)"), "{msg}");
    assert!(
        msg.contains(&format!("re-writes it: +{} (Claude Code estimates $0.08", usd(&a["cold_resume_usd"]))),
        "{msg}"
    );
    let o = &a["options"];
    let line2 = format!(
        "Over the next 10 turns: resuming {} · compacting first {} · start fresh {}.",
        usd(&o["resume_usd"]),
        usd(&o["compact_usd"]),
        usd(&o["restart_usd"])
    );
    assert!(msg.contains(&line2), "the advice's own figures: {msg}\n{line2}");
    let pick = if a["recommendation"] == "resume" { "resuming" } else { "compacting first" };
    assert!(msg.ends_with(&format!("Recommended: {pick}.")), "{msg}");

    let fork = hook(&data, &start("fork", ""), now);
    let v: Value = serde_json::from_slice(&fork.stdout).unwrap();
    assert!(!v["systemMessage"].as_str().unwrap().contains("Claude Code estimates"), "no estimate given: none shown");
}

#[test]
fn a_conversation_compacted_after_its_last_reply_resumes_from_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let mut lines: Vec<String> = (1..=4).flat_map(|n| Resp::new("s1", n, n as i64).to_lines()).collect();
    lines.push(common::compact_line("s1", 6, 30_000));
    write(&root, "-home-u-app/s1.jsonl", &lines);
    assert_eq!(cachewise(&root, &data, &["ingest"]).status.code(), Some(0));
    let now = t0() + Duration::hours(2);
    let out = hook(&data, &start("resume", ""), now);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    let advice = cachewise(&root, &data, &["--no-ingest", "--now", &now.to_rfc3339(), "advise", "s1", "--json"]);
    let a: Value = serde_json::from_slice(&advice.stdout).unwrap();
    assert_eq!(a["claude_code"]["compacted_since"], true);
    let o = &a["options"];
    assert_eq!(o["resume_usd"], o["compact_usd"], "one option: continuing from the summary");
    let want = format!(
        "cachewise: Claude Code compacted this conversation after its last reply; the next message starts from the summary.\n\
         Over the next 10 turns: continuing from the summary {} · start fresh {}.",
        usd(&o["resume_usd"]),
        usd(&o["restart_usd"])
    );
    assert_eq!(msg, want);
}

#[test]
fn startup_garbage_and_empty_input_print_nothing_and_exit_0() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, data, now) = stored(tmp.path());
    let cases = [
        (start("startup", ""), ""),
        (start("compact", ""), ""),
        ("\u{1b}[2J garbage {".to_owned(), "input is not a JSON object"),
        (String::new(), "no input on stdin"),
        (r#"{"session_id":"nope","source":"resume"}"#.to_owned(), "session nope is not in the store yet"),
    ];
    for (stdin, reason) in cases {
        let out = hook(&data, &stdin, now);
        assert_eq!(out.status.code(), Some(0), "{stdin}");
        assert!(out.stdout.is_empty(), "{stdin}: {}", String::from_utf8_lossy(&out.stdout));
        let err = String::from_utf8_lossy(&out.stderr);
        match reason {
            "" => assert!(err.is_empty(), "{stdin}: {err}"),
            r => assert!(err.contains(r), "{stdin}: {err}"),
        }
    }
    let out = hook(&tmp.path().join("no-store"), &start("resume", ""), now);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
}

fn install(config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["hooks", "--install"])
        .env("CLAUDE_CONFIG_DIR", config)
        .output()
        .unwrap()
}

fn ours(args: &str) -> String {
    format!("{} {args}", env!("CARGO_BIN_EXE_cachewise"))
}

const THEIRS: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "~/bin/banner.sh"}]}]
  }
}
"#;

#[test]
fn install_goes_beside_other_hooks_and_a_second_install_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = tmp.path().join("settings.json");
    std::fs::write(&settings, THEIRS).unwrap();
    let out = install(tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "~/bin/guard.sh");
    let start = v["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2, "theirs kept, ours beside: {v}");
    assert_eq!(start[0]["hooks"][0]["command"], "~/bin/banner.sh");
    assert_eq!(
        start[1],
        json!({"matcher": "resume|fork", "hooks": [{"type": "command", "command": ours("hook session-start"), "timeout": 5}]})
    );
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], ours("--quiet ingest"));
    assert_eq!(std::fs::read_to_string(tmp.path().join("settings.json.bak")).unwrap(), THEIRS, "backup kept");

    let after = std::fs::read_to_string(&settings).unwrap();
    let out = install(tmp.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already has the cachewise SessionStart and SessionEnd hook(s)")
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), after, "idempotent");
    assert!(!tmp.path().join("settings.json.bak.1").exists(), "no second backup");

    let out = Command::new(env!("CARGO_BIN_EXE_cachewise")).args(["hooks", "--print-config"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["command"], ours("hook session-start"));
}

#[cfg(unix)]
#[test]
fn install_into_a_symlinked_settings_file_edits_its_target() {
    let tmp = tempfile::tempdir().unwrap();
    let (config, dotfiles) = (tmp.path().join("claude"), tmp.path().join("dotfiles"));
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("settings.json"), THEIRS).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), config.join("settings.json")).unwrap();
    assert_eq!(install(&config).status.code(), Some(0));
    assert!(std::fs::symlink_metadata(config.join("settings.json")).unwrap().file_type().is_symlink());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dotfiles.join("settings.json")).unwrap()).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], ours("--quiet ingest"));
}
