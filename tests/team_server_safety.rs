//! Safe to deploy for a team, the server half, with the real
//! binary on loopback: the push listener serves nothing but the push
//! endpoint; no writer reads local transcripts into a team directory or
//! relabels a member's rows; the dashboard answers only to its own Host
//! names; push replies carry the security headers; `serve` stops at once
//! on SIGTERM or Ctrl-C; an unwritable data directory says what to do; the
//! push client warns on plain HTTP to anything but a real loopback host;
//! the push watermark follows ingest order, not event time; a push reply
//! names no other member; and made-up `?user=` values share one build.
//! `CACHEWISE_TEST_BIN=/path/to/older/cachewise` runs the binary-level
//! tests against an older build (to show they fail there).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::team_support as support;

use axum::body::Body;
use axum::http::Request;
use common::{write, Resp};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::*;
use tower::ServiceExt;

fn bin() -> Command {
    let mut c = Command::new(test_bin());
    c.env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR").env_remove("CACHEWISE_TOKEN");
    c.env_remove("CACHEWISE_HASH_KEY");
    c
}

/// A running `serve` and the base URLs it printed, in order.
struct Served {
    child: Child,
    urls: Vec<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `cachewise ARGS` (a `serve`) and reads `lines` lines of its
/// stdout, keeping the base URL each names.
fn start(args: &[&str], lines: usize) -> Served {
    let mut child = bin().args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut urls = Vec::new();
    for _ in 0..lines {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_default();
        urls.push(url.trim_end_matches('/').to_owned());
    }
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Served { child, urls }
}

/// One HTTP/1.1 request over a fresh loopback connection: status, headers
/// (lower-case), body.
fn http(url: &str, method: &str, path: &str, host: Option<&str>, extra: &str) -> (u16, String, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let host = host.unwrap_or(addr);
    let head =
        format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn tokens_file(dir: &Path) -> String {
    let p = dir.join("tokens.toml");
    std::fs::write(&p, format!("[tokens]\n\"{TOKEN_PREFIX}alice\" = \"alice\"\n")).unwrap();
    p.to_str().unwrap().to_owned()
}

const DASHBOARD: [&str; 10] = [
    "/",
    "/team",
    "/sessions",
    "/days",
    "/cache",
    "/api/team",
    "/api/sessions",
    "/api/daily",
    "/api/cache",
    "/session/alice-s0",
];

#[test]
fn team_listener_does_not_serve_dashboard() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, empty) = (tmp.path().join("team"), tmp.path().join("none"));
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    let tokens = tokens_file(tmp.path());
    let base = [
        "serve",
        "--team",
        "--tokens",
        &tokens,
        "--bind",
        "127.0.0.1:0",
        "--quiet",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    let s = start(&[&base[..], &["--claude-dir", empty.to_str().unwrap()]].concat(), 1);
    for path in DASHBOARD {
        let (status, _, body) = http(&s.urls[0], "GET", path, None, "");
        assert_eq!(status, 404, "{path} on the push listener: {body}");
        assert!(!body.contains("<html"), "{path}");
    }
    let (status, headers, _) = http(&s.urls[0], "POST", "/api/v1/bundles", None, "");
    assert_eq!(status, 401, "no token");
    assert!(headers.contains("content-security-policy: default-src 'none'"), "{headers}");
    drop(s);
    // The directory is a team directory from the start: no writer reads
    // local transcripts into it before the first push lands.
    let mine = tmp.path().join("mine");
    person_tree(&mine, "me", 1, 2);
    let o = cw(Some(&mine), &data, &["report", "daily", "--json"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not reading local transcripts into it"));
    assert_eq!(json(&o)["total"]["requests"], 0);
    // The dashboard, when asked for, has a listener of its own.
    let s = start(&[&base[..], &["--dashboard", "127.0.0.1:0", "--claude-dir", empty.to_str().unwrap()]].concat(), 2);
    assert_ne!(s.urls[0], s.urls[1]);
    assert_eq!(http(&s.urls[0], "GET", "/team", None, "").0, 404);
    let (status, _, body) = http(&s.urls[1], "GET", "/team", None, "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(http(&s.urls[1], "POST", "/api/v1/bundles", None, "").0, 404, "no push on the dashboard");
}

#[test]
fn host_header_not_allowed_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("d");
    let base = ["--no-ingest", "--quiet", "--data-dir", data.to_str().unwrap(), "serve", "--bind", "127.0.0.1:0"];
    let s = start(&base, 1);
    let url = &s.urls[0];
    let port = url.rsplit(':').next().unwrap();
    for bad in ["evil.example", &format!("evil.example:{port}"), &format!("127.0.0.1.nip.io:{port}"), "127.0.0.1:1"] {
        for path in ["/", "/api/team", "/api/sessions", "/static/x"] {
            let (status, headers, body) = http(url, "GET", path, Some(bad), "");
            assert_eq!(status, 421, "Host {bad} {path}");
            assert!(body.contains("does not answer to that Host") && !body.contains(bad), "{body}");
            assert!(headers.contains("text/plain"), "{headers}");
        }
    }
    for good in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")] {
        assert_eq!(http(url, "GET", "/api/daily", Some(&good), "").0, 200, "{good}");
    }
    drop(s);
    let s = start(&[&base[..], &["--allow-host", "Dash.Example.com"]].concat(), 1);
    assert_eq!(http(&s.urls[0], "GET", "/api/daily", Some("dash.example.com"), "").0, 200);
    assert_eq!(http(&s.urls[0], "GET", "/api/daily", Some("evil.example"), "").0, 421);
}

fn team_rows(data: &Path) -> Vec<(String, u64)> {
    let v = json(&cw(None, data, &["--no-ingest", "report", "team", "--json"]));
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["user"].as_str().unwrap().to_owned(), r["requests"].as_u64().unwrap()))
        .collect()
}

#[test]
fn ingest_and_serve_never_read_local_transcripts_into_a_team_dir_nor_relabel() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("root"), tmp.path().join("local"), tmp.path().join("team"));
    person_tree(&root, "alice", 2, 3);
    let bundle = tmp.path().join("alice.parquet");
    ok(&cw(Some(&root), &local, &["export", "--user", "alice", "--out", bundle.to_str().unwrap()]));
    ok(&cw(None, &team, &["import", bundle.to_str().unwrap()]));
    assert_eq!(team_rows(&team), [("alice".to_owned(), 6)]);
    // The lead's machine holds the very transcripts alice exported from.
    let o = cw(Some(&root), &team, &["ingest"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--into-team"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(team_rows(&team), [("alice".to_owned(), 6)], "a bare ingest changed the team directory");
    let s = start(
        &[
            "--data-dir",
            team.to_str().unwrap(),
            "--claude-dir",
            root.to_str().unwrap(),
            "serve",
            "--bind",
            "127.0.0.1:0",
        ],
        1,
    );
    let (status, _, body) = http(&s.urls[0], "GET", "/api/team", None, "");
    drop(s);
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((v["rows"][0]["user"].as_str(), v["total"]["requests"].as_u64()), (Some("alice"), Some(6)), "{v}");
    assert_eq!(team_rows(&team), [("alice".to_owned(), 6)], "serve read local transcripts into the team directory");
    // Asked by name, the local rows join as rows of no user; alice keeps hers.
    ok(&cw(Some(&root), &team, &["ingest", "--into-team"]));
    let rows = team_rows(&team);
    assert!(rows.contains(&("alice".to_owned(), 6)), "{rows:?}");
    let daily = json(&cw(None, &team, &["--no-ingest", "report", "daily", "--json"]));
    assert_eq!(daily["total"]["requests"], 12, "{daily}");
}

#[tokio::test]
async fn push_replies_carry_security_headers() {
    let tmp = tempfile::tempdir().unwrap();
    let st = state(tmp.path(), &["alice"], cachewise::update::DEFAULT_MAX_BYTES);
    let rows: Vec<_> = (1..=2).map(|k| row("alice", "s", k, k as i64)).collect();
    for (auth, body, want) in
        [(None, vec![], 401), (Some(format!("Bearer {TOKEN_PREFIX}alice")), bytes_of(&bundle_of("alice", rows)), 200)]
    {
        let mut req = Request::builder().method("POST").uri(cachewise::update::BUNDLES_PATH);
        if let Some(a) = &auth {
            req = req.header("authorization", a);
        }
        let app = cachewise::web::push::router(st.clone());
        let resp = app.oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
        assert_eq!(resp.status().as_u16(), want);
        let h = resp.headers();
        assert_eq!(h.get("content-security-policy").map(|v| v.to_str().unwrap()), Some(cachewise::web::security::CSP));
        assert_eq!(h.get("x-content-type-options").map(|v| v.to_str().unwrap()), Some("nosniff"));
        assert_eq!(h.get("x-frame-options").map(|v| v.to_str().unwrap()), Some("DENY"));
        assert_eq!(h.get("referrer-policy").map(|v| v.to_str().unwrap()), Some("no-referrer"));
    }
}

/// Sends `signal` to a running `serve` and returns how long it took to
/// exit, and whether it exited cleanly.
fn stop_with(signal: &str, mut s: Served) -> (Duration, bool) {
    let pid = s.child.id().to_string();
    let sent = Instant::now();
    assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
    let deadline = sent + Duration::from_secs(10);
    loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            return (sent.elapsed(), status.success());
        }
        assert!(Instant::now() < deadline, "serve did not stop within 10 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn serve_stops_within_half_a_second_of_sigterm_or_ctrl_c() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    person_tree(&root, "me", 1, 3);
    for signal in ["-INT", "-TERM"] {
        let data = tmp.path().join(signal);
        let s = start(
            &[
                "--quiet",
                "--data-dir",
                data.to_str().unwrap(),
                "--claude-dir",
                root.to_str().unwrap(),
                "serve",
                "--bind",
                "127.0.0.1:0",
            ],
            1,
        );
        // A client holding a keep-alive connection open does not hold it up.
        let mut idle = TcpStream::connect(s.urls[0].trim_start_matches("http://")).unwrap();
        idle.write_all(b"GET /api/daily HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let (took, clean) = stop_with(signal, s);
        assert!(clean, "{signal}: serve did not exit cleanly");
        assert!(took < Duration::from_millis(500), "{signal}: took {took:?}");
    }
}

#[test]
fn unwritable_data_dir_names_the_lock_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    person_tree(&root, "me", 1, 3);
    let data = tmp.path().join("d");
    std::fs::create_dir_all(data.join(".lock")).unwrap();
    let o = cw(Some(&root), &data, &["report", "daily"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let lock = data.join(".lock");
    assert!(err.contains(&format!("cannot take the data directory's lock {}", lock.display())), "{err}");
    assert!(err.contains("--data-dir DIR") && err.contains("--no-ingest"), "{err}");
    // And --no-ingest, as it says, reports without writing.
    assert!(ok(&cw(Some(&root), &data, &["--no-ingest", "report", "daily"])).contains("Total"));
}

#[test]
fn push_warns_on_plain_http_unless_real_loopback() {
    let tmp = tempfile::tempdir().unwrap();
    let push = |url: &str| {
        let o = cw(None, tmp.path(), &["--no-ingest", "push", "--server", url, "--token", "t-0123456789abcdef"]);
        assert!(String::from_utf8_lossy(&o.stdout).contains("nothing new to push"), "{o:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    for url in
        ["http://127.evil.example", "http://127.0.0.1@evil.example/", "HTTP://evil.example", "http://127.0.0.1.nip.io"]
    {
        assert!(push(url).contains("is not https: the token travels unencrypted"), "{url}");
    }
    for url in ["http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9", "https://team.example"] {
        assert!(!push(url).contains("warning"), "{url}");
    }
}

#[test]
fn push_watermark_is_ingest_order_so_late_rows_with_old_times_are_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let url = serve(state(&team, &["alice"], cachewise::update::DEFAULT_MAX_BYTES));
    let (root, local) = (tmp.path().join("r"), tmp.path().join("l"));
    person_tree(&root, "alice", 2, 4);
    let token = format!("{TOKEN_PREFIX}alice");
    let push = || ok(&cw(Some(&root), &local, &["push", "--server", &url, "--token", &token, "--user", "alice"]));
    assert!(push().contains("pushed 8 requests"));
    // A transcript that reaches the store now, with rows three days older
    // than anything pushed (copied from another machine).
    let old: Vec<String> =
        (1..=3).flat_map(|k| Resp::new("alice-old", k, -3 * 24 * 60 + k as i64).to_lines()).collect();
    write(&root, "-home-alice-app/alice-old.jsonl", &old);
    let second = push();
    assert!(second.contains("pushed 3 requests") && second.contains("3 new"), "{second}");
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    assert_eq!(v["total"]["requests"], 11);
    assert!(push().contains("nothing new to push"), "nothing is sent twice");
}

#[test]
fn made_up_user_and_since_values_do_not_each_cost_a_report_build() {
    use cachewise::report::query::{Grouping, Query};
    use std::sync::Arc;
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let alice = tmp.path().join("alice.parquet");
    std::fs::write(&alice, bytes_of(&bundle_of("alice", (1..=3).map(|k| row("alice", "s", k, k as i64)).collect())))
        .unwrap();
    ok(&cw(None, &team, &["import", alice.to_str().unwrap()]));
    let store = cachewise::store::Store::open(&team).unwrap();
    let snap = common::web_state(&store, common::t0()).snapshot();
    let people = |u: &str| snap.reports(Some(u)).unwrap();
    assert!(Arc::ptr_eq(&people("mallory"), &people("eve")), "names nobody has share one build");
    assert!(!Arc::ptr_eq(&people("mallory"), &people("alice")));
    assert_eq!(people("alice").daily.total.requests, 3);
    assert_eq!(people("eve").daily.total.requests, 0);
    let daily = |u: &str| {
        let q = Query { user: Some(u.to_owned()), ..Query::new(chrono_tz::UTC) };
        snap.usage(Grouping::Daily, &q).unwrap()
    };
    assert!(Arc::ptr_eq(&daily("x1"), &daily("x2")));
    assert_eq!(daily("alice").total.requests, 3);
}

#[test]
fn a_push_reply_names_no_other_member() {
    let tmp = tempfile::tempdir().unwrap();
    let url = serve(state(tmp.path(), &["alice", "bob"], cachewise::update::DEFAULT_MAX_BYTES));
    let rows = |u: &str| (1..=3).map(|k| row(u, "copied-session", k, k as i64)).collect::<Vec<_>>();
    let alice = cachewise::team::push::upload(
        &url,
        &format!("{TOKEN_PREFIX}alice"),
        &bytes_of(&bundle_of("alice", rows("alice"))),
    );
    assert_eq!(alice.unwrap().added, 3);
    // Bob's rows carry the same message ids (a copied session).
    let bob =
        cachewise::team::push::upload(&url, &format!("{TOKEN_PREFIX}bob"), &bytes_of(&bundle_of("bob", rows("bob"))))
            .unwrap();
    assert_eq!((bob.added, bob.shared_message_ids), (3, 3));
    assert!(bob.shared_examples.is_empty(), "{:?}", bob.shared_examples);
    assert!(!serde_json::to_string(&bob).unwrap().contains("alice"));
}
