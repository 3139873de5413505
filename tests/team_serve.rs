//! `cachewise serve --team` end to end with the real binary: a developer
//! pushes twice (idempotent), a wrong token is refused, and the server's
//! data dir then reports the pushed rows once, under the token's user.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{write, Resp};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const TOKEN: &str = "alice-token-0123456789abcdef";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    c.env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR").env_remove("CACHEWISE_TOKEN");
    c
}

/// Starts the team server on a free port; returns it and its base URL.
fn start(data: &Path, tokens: &Path, empty_root: &Path) -> (Child, String) {
    let mut child = bin()
        .args(["serve", "--team", "--bind", "127.0.0.1:0", "--quiet"])
        .arg("--tokens")
        .arg(tokens)
        .arg("--data-dir")
        .arg(data)
        .arg("--claude-dir")
        .arg(empty_root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    // Keep draining, so the server's later lines never hit a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().trim_end_matches('/').to_owned();
    (child, url)
}

fn push(root: &Path, data: &Path, url: &str, token: &str) -> std::process::Output {
    bin()
        .arg("--claude-dir")
        .arg(root)
        .arg("--data-dir")
        .arg(data)
        .args(["push", "--server", url, "--token", token, "--user", "alice"])
        .output()
        .unwrap()
}

#[test]
fn pushed_rows_land_once_under_the_tokens_user() {
    let dirs: Vec<tempfile::TempDir> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let (root, local, server_data, empty) = (dirs[0].path(), dirs[1].path(), dirs[2].path(), dirs[3].path());
    let rs = [Resp::new("s1", 1, 0), Resp::new("s1", 2, 3)];
    write(root, "-home-alice-app/s1.jsonl", &rs.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    let tokens = server_data.join("tokens.toml");
    std::fs::write(&tokens, format!("[tokens]\n\"{TOKEN}\" = \"alice\"\n")).unwrap();
    let (mut server, url) = start(server_data, &tokens, empty);
    let bad = push(root, local, &url, "not-the-token-0123456789");
    let first = push(root, local, &url, TOKEN);
    let again = push(root, local, &url, TOKEN);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(!bad.status.success(), "a wrong token is refused");
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let out =
        bin().arg("--data-dir").arg(server_data).args(["--no-ingest", "report", "team", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rows"][0]["user"], "alice");
    assert_eq!(v["rows"][0]["requests"], 2);
    assert_eq!(v["total"]["requests"], 2);
    let cost: f64 = rs.iter().map(Resp::sonnet_cost).sum();
    assert!((v["total"]["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-9);
}

/// A push of names the server's import would refuse (ESC and U+202E in the
/// project directory) sends them neutralised, and says so once on stderr
/// in plain characters; every request arrives.
#[test]
fn a_push_of_hostile_names_says_what_it_changed() {
    let dirs: Vec<tempfile::TempDir> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let (root, local, server_data, empty) = (dirs[0].path(), dirs[1].path(), dirs[2].path(), dirs[3].path());
    let rs = [Resp::new("s1", 1, 0), Resp::new("s1", 2, 3), Resp::new("s1", 3, 6)];
    write(root, "-home-alice-\x1b[31mred\u{202e}app/s1.jsonl", &rs.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    let tokens = server_data.join("tokens.toml");
    std::fs::write(&tokens, format!("[tokens]\n\"{TOKEN}\" = \"alice\"\n")).unwrap();
    let (mut server, url) = start(server_data, &tokens, empty);
    let first = push(root, local, &url, TOKEN);
    let again = push(root, local, &url, TOKEN);
    server.kill().unwrap();
    server.wait().unwrap();
    let (stderr, stdout) = (String::from_utf8_lossy(&first.stderr), String::from_utf8_lossy(&first.stdout));
    assert!(first.status.success(), "{stderr}");
    assert!(stdout.contains("pushed 3 requests"), "{stdout}");
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("push: ")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains(" name(s) held control or bidi characters"), "{stderr}");
    assert!(!stderr.contains('\x1b') && !stderr.contains('\u{202e}'), "{stderr:?}");
    let again_err = String::from_utf8_lossy(&again.stderr);
    assert!(!again_err.contains("push: "), "nothing sent the second time, so no note: {again_err}");
    let out =
        bin().arg("--data-dir").arg(server_data).args(["--no-ingest", "report", "team", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"]["requests"], 3);
}
