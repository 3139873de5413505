//! Soak: a writer appends to transcripts while `serve` ingests
//! them and clients read every route on loopback; afterwards the server's
//! `/api/daily` and `report daily --json` of its store equal a cold ingest
//! of the final tree, every response was 200, and the server's memory is
//! printed. The CI version is short (8 files, 4 clients, 4 s); the full one
//! (50 files, 20 clients, 60 s) is ignored: `scripts/soak.sh` runs it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{append, write, Resp};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn cw(data: &Path, root: &Path, args: &[&str]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    c.env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR");
    c.args(["--tz", "UTC", "--data-dir"]).arg(data).arg("--claude-dir").arg(root).args(args);
    c.output().unwrap()
}

fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0), body.to_owned())
}

fn status_kb(pid: u32, key: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = s.lines().find(|l| l.starts_with(key)).unwrap_or_default();
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn routes(sessions: &[String]) -> Vec<String> {
    let mut r: Vec<String> = [
        "/",
        "/sessions",
        "/days",
        "/day/2026-02-11",
        "/cache",
        "/projects",
        "/models",
        "/team",
        "/api/daily",
        "/api/sessions",
        "/api/cache",
        "/api/team",
        "/?user=nobody",
        "/api/daily?since=2026-02-11",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for id in sessions.iter().take(3) {
        r.extend([format!("/session/{id}"), format!("/api/session/{id}"), format!("/api/advise/{id}")]);
    }
    r
}

/// `serve` over `root` into `data` on a free loopback port: the child and
/// its address.
fn start_serve(data: &Path, root: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--tz", "UTC", "--quiet", "--data-dir"])
        .arg(data)
        .arg("--claude-dir")
        .arg(root)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().trim_end_matches('/');
    (child, url.trim_start_matches("http://").to_owned())
}

/// Appends five responses every 50 ms, spread over the files, for `secs`;
/// returns how many responses the files then hold.
fn write_for(secs: u64, ids: &[String], paths: &[PathBuf]) -> u64 {
    let (started, mut n) = (Instant::now(), 1u64);
    let mut written = ids.len() as u64;
    while started.elapsed() < Duration::from_secs(secs) {
        for _ in 0..5 {
            n += 1;
            let f = (n as usize * 7) % ids.len();
            append(&paths[f], &(Resp::new(&ids[f], n, n as i64).to_lines().join("\n") + "\n"));
            written += 1;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    written
}

/// Waits (at most 30 s) until the server's `/api/daily` counts `written`.
fn wait_caught_up(addr: &str, written: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let v: Value = serde_json::from_str(&get(addr, "/api/daily").1).unwrap_or(Value::Null);
        if v["total"]["requests"].as_u64() == Some(written) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Reads the routes round robin, every 25 ms, until `done`.
fn client(addr: &str, first: usize, routes: &[String], done: &AtomicBool, statuses: &Mutex<BTreeMap<u16, u64>>) {
    let mut i = first;
    while !done.load(Ordering::Relaxed) {
        let (status, _) = get(addr, &routes[i % routes.len()]);
        *statuses.lock().unwrap().entry(status).or_default() += 1;
        i += 1;
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn soak(files: usize, clients: usize, secs: u64) {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data, cold) = (tmp.path().join("root"), tmp.path().join("data"), tmp.path().join("cold"));
    let ids: Vec<String> = (0..files).map(|f| format!("soak-{f:02}")).collect();
    let paths: Vec<PathBuf> = ids
        .iter()
        .enumerate()
        .map(|(f, id)| write(&root, &format!("-home-me-p{}/{id}.jsonl", f % 3), &Resp::new(id, 1, 0).to_lines()))
        .collect();
    let (mut child, addr) = start_serve(&data, &root);
    let (done, statuses) = (AtomicBool::new(false), Mutex::new(BTreeMap::new()));
    let routes = routes(&ids);
    let written = std::thread::scope(|s| {
        for c in 0..clients {
            let (addr, routes, done, statuses) = (&addr, &routes, &done, &statuses);
            s.spawn(move || client(addr, c, routes, done, statuses));
        }
        let written = write_for(secs, &ids, &paths);
        wait_caught_up(&addr, written);
        done.store(true, Ordering::Relaxed);
        written
    });
    let (_, served) = get(&addr, "/api/daily");
    let (rss, hwm) = (status_kb(child.id(), "VmRSS:"), status_kb(child.id(), "VmHWM:"));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let exit = child.wait().unwrap();
    let statuses = statuses.into_inner().unwrap();
    eprintln!(
        "soak: {files} files, {clients} clients, {secs} s: {written} responses written, {} reads {statuses:?}; server RSS {} MiB at the end, peak {} MiB",
        statuses.values().sum::<u64>(),
        rss / 1024,
        hwm / 1024
    );
    assert!(exit.success(), "serve stopped cleanly on SIGTERM");
    assert_eq!(statuses.keys().copied().collect::<Vec<_>>(), [200], "every read answered 200");
    let stored = cw(&data, &root, &["--no-ingest", "report", "daily", "--json"]);
    let fresh = cw(&cold, &root, &["report", "daily", "--json"]);
    let (stored, fresh): (Value, Value) =
        (serde_json::from_slice(&stored.stdout).unwrap(), serde_json::from_slice(&fresh.stdout).unwrap());
    assert_eq!(fresh["total"]["requests"].as_u64(), Some(written));
    assert_eq!(stored, fresh, "the served store equals a cold ingest of the final tree");
    assert_eq!(serde_json::from_str::<Value>(&served).unwrap(), fresh, "the server's /api/daily too");
}

#[test]
fn soak_short_writer_clients_and_serve_agree_with_a_cold_ingest() {
    soak(8, 4, 4);
}

#[test]
#[ignore = "60 s of load: run with scripts/soak.sh"]
fn soak_fifty_transcripts_twenty_clients_sixty_seconds() {
    soak(50, 20, 60);
}
