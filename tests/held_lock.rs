//! Another writer holding the data directory's lock (an ingest suspended
//! with Ctrl-Z, say) never makes cachewise wait without a word: a report
//! reads the last committed store at once and says so; `cachewise ingest`
//! says who holds the lock within a second, then waits for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
    let held = store.lock().unwrap();
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
