//! Nothing makes cachewise wait without a word: another writer holding
//! the data directory's lock (an ingest suspended with Ctrl-Z, say) is
//! named at once, reports read the last committed store, and `cachewise
//! ingest` says who holds the lock, then waits; a pipe or a device where
//! a file is expected (the manifest, a table, the status line's files) is
//! refused, never read.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{cachewise, t0, write, Resp};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_held_lock_is_named_and_reports_read_the_last_committed_store() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-home-u-app/s.jsonl", &Resp::new("s", 1, 0).to_lines());
    assert!(cachewise(root.path(), data.path(), &["ingest"]).status.success());
    write(root.path(), "-home-u-app/t.jsonl", &Resp::new("t", 2, 5).to_lines());
    let store = cachewise::store::Store::open(data.path()).unwrap();
    let held = store.begin().unwrap();
    let started = Instant::now();
    let out = cachewise(root.path(), data.path(), &["--now", &t0().to_rfc3339(), "report", "daily", "--json"]);
    assert!(started.elapsed() < Duration::from_secs(10), "the report did not wait");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("pid {}", std::process::id())), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"]["requests"], 1, "the store as last committed, without the new transcript");
    // `ingest` says who holds the lock, then waits.
    let mut child = Command::new(common::bin())
        .args(["--claude-dir"])
        .arg(root.path())
        .arg("--data-dir")
        .arg(data.path())
        .arg("ingest")
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "ingest waits for the lock");
    drop(held);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("lock is taken") && err.contains("waiting"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(
        &cachewise(root.path(), data.path(), &["--no-ingest", "report", "daily", "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(v["total"]["requests"], 2, "the waiting ingest read the new transcript");
}

/// Runs `cmd` with `stdin`, failing the test if it takes more than 20 s.
fn within(mut cmd: Command, stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{cmd:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_pipe_where_a_file_is_expected_never_hangs_a_command() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = write(root.path(), "-home-u-app/s.jsonl", &Resp::new("s", 1, 0).to_lines());
    assert!(cachewise(root.path(), data.path(), &["ingest"]).status.success());
    let fifo = |p: &std::path::Path| {
        let _ = std::fs::remove_file(p);
        assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    };
    // The status line's cached figures, then the manifest, as pipes.
    std::fs::create_dir_all(data.path().join("statusline")).unwrap();
    fifo(&data.path().join("statusline/figures.json"));
    let mut sl = Command::new(common::bin());
    sl.args(["statusline", "--data-dir"]).arg(data.path());
    let input = serde_json::json!({"session_id": "s", "transcript_path": path, "model": {"id": "m"}}).to_string();
    let out = within(sl, input.as_bytes());
    assert!(out.status.success() && !out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    fifo(&data.path().join("manifest.json"));
    let mut report = Command::new(common::bin());
    report.args(["--claude-dir"]).arg(root.path()).args(["--data-dir"]).arg(data.path()).args(["report", "daily"]);
    let out = within(report, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("manifest.json") && err.contains("not a regular file"), "{err}");
}
