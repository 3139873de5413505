//! `serve`'s log written to a file: plain text, no
//! ANSI colour codes, when stderr is not a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{write, Resp};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn serve_log_has_no_ansi_colours_when_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data, log) = (tmp.path().join("claude"), tmp.path().join("data"), tmp.path().join("serve.log"));
    write(&root, "-home-u-app/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let mut child = Command::new(common::bin())
        .args(["serve", "--bind", "127.0.0.1:0", "--claude-dir"])
        .arg(&root)
        .arg("--data-dir")
        .arg(&data)
        .env("RUST_LOG", "cachewise=debug")
        .env_remove("NO_COLOR")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CACHEWISE_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let first = BufReader::new(stdout).lines().next().map(Result::unwrap).unwrap_or_default();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.starts_with("cachewise dashboard: http://127.0.0.1:"), "{first}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("DEBUG cachewise::"), "the log holds the debug lines: {text}");
    assert!(!text.contains('\u{1b}'), "no ANSI escape in a log file: {text:?}");
}
