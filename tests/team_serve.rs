//! `cachewise serve --team` end to end with the real binary: a developer
//! pushes twice (idempotent), a wrong token is refused, and the server's
//! data dir then reports the pushed rows once, under the token's user.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::team_support as support;

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

/// Puts `pid` in a memory cgroup of `limit` bytes (no swap): its directory
/// and the names of its peak and failure counters. Needs root and a
/// writable cgroup tree (v2, or v1's memory controller).
fn memory_cgroup(pid: u32, limit: u64) -> (std::path::PathBuf, &'static str, &'static str) {
    let root = Path::new("/sys/fs/cgroup");
    let name = format!("cachewise-soak-{pid}");
    let (dir, files): (_, [&str; 4]) = if root.join("cgroup.controllers").exists() {
        (root.join(&name), ["memory.max", "memory.swap.max", "memory.peak", "memory.events"])
    } else {
        let v1 =
            ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max_usage_in_bytes", "memory.failcnt"];
        (root.join("memory").join(&name), v1)
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e} (run as root)", dir.display()));
    std::fs::write(dir.join(files[0]), limit.to_string()).unwrap();
    // Without swap accounting the limit alone holds.
    let _ = std::fs::write(dir.join(files[1]), if files[1].contains("swap") { "0".into() } else { limit.to_string() });
    std::fs::write(dir.join("cgroup.procs"), pid.to_string()).unwrap();
    (dir, files[2], files[3])
}

/// The push server under a 1 GB memory limit (a cgroup), for
/// `CACHEWISE_SOAK_SECS` (600 unless set): good pushes of eight people
/// mixed with hostile ones (a shared-string bomb, a row bomb, garbage, a
/// torn bundle, a year-9999 date, a wrong token, an oversized body) from
/// four clients at once. Every good push is taken (200), every hostile one
/// refused (4xx, or an oversized body's connection closed by the 413),
/// nothing answers 5xx, the server is alive at the end and its store holds every
/// good row once.
#[test]
#[ignore = "ten minutes, as root: cargo test --release --test team_serve soak -- --ignored --nocapture"]
fn the_push_server_under_one_gigabyte_survives_bombs_and_a_soak_of_pushes() {
    use rand::{Rng, SeedableRng};
    use support::{bundle_of, bytes_of, row, row_bomb, shared_string_bomb, TOKEN_PREFIX};
    let secs: u64 = std::env::var("CACHEWISE_SOAK_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(600);
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (data, empty) = (dirs[0].path(), dirs[1].path());
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    let users: Vec<String> = (0..8).map(|i| format!("user{i}")).collect();
    let tokens = data.join("tokens.toml");
    let lines: String = users.iter().map(|u| format!("\"{TOKEN_PREFIX}{u}\" = \"{u}\"\n")).collect();
    std::fs::write(&tokens, format!("[tokens]\n{lines}")).unwrap();
    let (mut server, url) = start(data, &tokens, empty);
    let (cgroup, peak, failures) = memory_cgroup(server.id(), 1 << 30);
    let hostile: Vec<(&str, Vec<u8>)> = vec![
        ("string bomb", shared_string_bomb(4_000)),
        ("row bomb", row_bomb(1_200_000)),
        ("garbage", b"PAR1 this is not a bundle".repeat(1000)),
        ("torn bundle", {
            let b = bytes_of(&bundle_of("user0", (1..=50).map(|k| row("user0", "torn", k, k as i64)).collect()));
            b[..b.len() / 2].to_vec()
        }),
        ("year 9999", {
            let mut r = row("user0", "future", 1, 1);
            r.time = chrono::DateTime::parse_from_rfc3339("9999-12-31T00:00:00Z").unwrap().to_utc();
            bytes_of(&bundle_of("user0", vec![r]))
        }),
        ("oversized body", vec![0u8; 65 << 20]),
    ];
    let post = |token: &str, body: &[u8]| -> u16 {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let resp = agent
            .post(&format!("{url}{}", cachewise::update::BUNDLES_PATH))
            .header("authorization", &format!("Bearer {token}"))
            .send(body);
        resp.map_or(0, |r| r.status().as_u16())
    };
    let counts: std::sync::Mutex<std::collections::BTreeMap<String, std::collections::BTreeMap<u16, u64>>> =
        Default::default();
    let good_rows = std::sync::atomic::AtomicU64::new(0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    // Four clients at once, each pushing for two of the eight people.
    std::thread::scope(|scope| {
        for client in 0..4usize {
            let (users, hostile, post, counts, good_rows) = (&users, &hostile, &post, &counts, &good_rows);
            scope.spawn(move || {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(49 + client as u64);
                let mut next_k = [1u64; 2];
                while std::time::Instant::now() < deadline {
                    let (kind, status) = if rng.random_bool(0.7) {
                        let slot = rng.random_range(0..2);
                        let user = &users[client * 2 + slot];
                        let first = next_k[slot];
                        next_k[slot] += 200;
                        let rows =
                            (first..first + 200).map(|k| row(user, &format!("{user}-s{}", k / 1000), k, k as i64));
                        let status =
                            post(&format!("{TOKEN_PREFIX}{user}"), &bytes_of(&bundle_of(user, rows.collect())));
                        good_rows.fetch_add(200 * u64::from(status == 200), std::sync::atomic::Ordering::SeqCst);
                        ("good".to_owned(), status)
                    } else if rng.random_bool(0.15) {
                        let body = bytes_of(&bundle_of("user0", vec![row("user0", "x", 1, 1)]));
                        ("wrong token".to_owned(), post("not-a-token-0123456789abcdef", &body))
                    } else {
                        let (kind, body) = &hostile[rng.random_range(0..hostile.len())];
                        (kind.to_string(), post(&format!("{TOKEN_PREFIX}user0"), body))
                    };
                    *counts.lock().unwrap().entry(kind).or_default().entry(status).or_default() += 1;
                }
            });
        }
    });
    let (counts, good_rows) = (counts.into_inner().unwrap(), good_rows.into_inner());
    let alive = server.try_wait().unwrap().is_none();
    let read = |f: &str| std::fs::read_to_string(cgroup.join(f)).unwrap_or_default().trim().to_owned();
    let (peak, failures) = (read(peak), read(failures));
    server.kill().unwrap();
    server.wait().unwrap();
    let _ = std::fs::remove_dir(&cgroup);
    println!("{secs} s of pushes under 1 GiB: {counts:?}; peak {peak} bytes; failures: {failures}");
    assert!(alive, "the server died");
    for (kind, by_status) in &counts {
        for status in by_status.keys() {
            // An oversized body may be cut off by the 413 before it is all sent.
            let cut = kind == "oversized body" && *status == 0;
            let want = if kind == "good" { *status == 200 } else { (400..500).contains(status) || cut };
            assert!(want, "{kind} answered {status}: {counts:?}");
        }
    }
    let out = bin().arg("--data-dir").arg(data).args(["--no-ingest", "report", "team", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"]["requests"].as_u64().unwrap(), good_rows, "every good row once");
}
