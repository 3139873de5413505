//! A real browser on the real binary: starts `cachewise serve --demo` on a
//! free loopback port, checks every page's HTTP status, loads each in
//! headless Chromium (Debian's `chromium`) with and without a date range,
//! and fails when the rendered page has no chart, a chart without a value
//! on hover, text under 12 px in an 800 px window, an internal key in its
//! text, or a range it does not say and keep. Saves a screenshot of each
//! page at 1400 and 800 px under `target/tmp/screenshots/` (or
//! `$CACHEWISE_SCREENSHOTS`). Skips, saying why, when `/usr/bin/chromium`
//! is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the demo server on port 0 and returns it with its base URL.
fn start(data_dir: &Path) -> (Server, String) {
    start_with(&["--data-dir", data_dir.to_str().unwrap(), "--quiet", "serve", "--demo", "--bind", "127.0.0.1:0"])
}

/// Starts `cachewise ARGS` (a server printing its URL first) and returns it
/// with its base URL.
fn start_with(args: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let start = line.find("http://").unwrap_or_else(|| panic!("no URL in {line:?}"));
    let url: String = line[start..].split_whitespace().next().unwrap().trim_end_matches('/').to_owned();
    (server, url)
}

/// A minimal HTTP/1.1 GET: status code and body.
fn http_get(base: &str, path: &str) -> (u16, String) {
    let host = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

fn chromium(profile: &Path, extra: &[&str], url: &str) -> std::process::Output {
    chromium_at(profile, (1400, 1000), extra, url)
}

fn chromium_at(profile: &Path, size: (u32, u32), extra: &[&str], url: &str) -> std::process::Output {
    Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap()
}

fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("CACHEWISE_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The value of attribute `name` on the rendered `<html>` element.
fn html_attr(dom: &str, name: &str) -> Option<String> {
    let at = dom.find(&format!("{name}=\""))? + name.len() + 2;
    Some(dom[at..at + dom[at..].find('"')?].to_owned())
}

/// Checks one rendered page: a chart, each chart with values on hover, no
/// internal key in its text.
fn check_dom(path: &str, dom: &str) {
    assert!(dom.contains("cachewise"), "{path}: not the dashboard");
    assert!(dom.contains("<svg"), "{path}: no chart in the rendered page");
    for svg in dom.split("<svg").skip(1) {
        let svg = &svg[..svg.find("</svg>").unwrap_or(svg.len())];
        assert!(svg.contains("<title>"), "{path}: a chart without a value on hover");
    }
    let text = common::words::text_of(dom);
    for key in common::words::INTERNAL {
        assert!(!text.contains(key), "{path}: the page shows {key:?}");
    }
}

/// True when chromium is here; a skip saying so when not, and a failure
/// instead when `CACHEWISE_BROWSER=required` (CI).
fn chromium_here() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    let required = std::env::var("CACHEWISE_BROWSER").is_ok_and(|v| v == "required");
    assert!(!required, "CACHEWISE_BROWSER=required but {CHROMIUM} is not installed (apt-get install chromium)");
    println!(
        "skipped: {CHROMIUM} is not installed (apt-get install chromium; CACHEWISE_BROWSER=required makes this fail)"
    );
    false
}

#[test]
fn every_page_renders_with_its_chart_in_chromium() {
    if !chromium_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_server, base) = start(&tmp.path().join("data"));
    let (status, sessions) = http_get(&base, "/api/sessions");
    assert_eq!(status, 200, "{sessions}");
    let v: serde_json::Value = serde_json::from_str(&sessions).unwrap();
    let id = v["rows"][0]["session_id"].as_str().expect("the demo has sessions").to_owned();
    let day = v["rows"][0]["last"].as_str().unwrap()[..10].to_owned();
    let last = chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d").unwrap();
    let (since, until) = ((last - chrono::TimeDelta::days(6)).to_string(), day.clone());
    let range = format!("since={since}&until={until}");
    let pages = [
        ("overview", "/".to_owned()),
        ("sessions", "/sessions".to_owned()),
        ("session", format!("/session/{id}")),
        ("days", "/days".to_owned()),
        ("weeks", "/days?by=week".to_owned()),
        ("day", format!("/day/{day}")),
        ("cache", "/cache".to_owned()),
        ("projects", "/projects".to_owned()),
        ("models", "/models".to_owned()),
    ];
    let shots = screenshot_dir();
    let profile = tmp.path().join("profile");
    for (name, path) in &pages {
        let (status, body) = http_get(&base, path);
        assert_eq!(status, 200, "{path}: {body}");
        let url = format!("{base}{path}");
        let dom = chromium(&profile, &["--dump-dom"], &url);
        check_dom(path, &String::from_utf8_lossy(&dom.stdout));
        // The same page over a week of days: it says so and keeps it.
        let ranged = if path.contains('?') { format!("{path}&{range}") } else { format!("{path}?{range}") };
        let dom = chromium(&profile, &["--dump-dom"], &format!("{base}{ranged}"));
        let dom = String::from_utf8_lossy(&dom.stdout);
        check_dom(&ranged, &dom);
        if !matches!(*name, "session" | "day") {
            assert!(dom.contains(&format!("{since} to {until}")), "{ranged}: the page says its days");
            let keep = format!("/cache?since={since}&amp;until={until}");
            assert!(dom.contains(&keep), "{ranged}: the navigation keeps the range ({keep})");
        }
        // At 800 px, no text is smaller than 12 px (charts scroll, never shrink).
        let dom = chromium_at(&profile, (800, 1000), &["--dump-dom"], &format!("{url}#text-size"));
        let dom = String::from_utf8_lossy(&dom.stdout);
        let px = html_attr(&dom, "data-min-text-px").unwrap_or_else(|| panic!("{path}: the page did not measure"));
        let px: f64 = px.parse().unwrap_or_else(|_| panic!("{path}: {px}"));
        let at = html_attr(&dom, "data-min-text-at").unwrap_or_default();
        assert!(px >= 12.0, "{path}: text of {px} px at 800 px wide ({at:?})");
        // A chart wider than the window opens at its newest bar.
        let clipped = html_attr(&dom, "data-clipped").unwrap_or_default();
        assert!(!clipped.contains("figure"), "{path}: a chart opens away from its newest bar at 800 px: {clipped}");
        for (width, height) in [(1400, 1400), (800, 1400)] {
            let file = shots.join(format!("{name}-{width}.png"));
            let _ = std::fs::remove_file(&file);
            let out = chromium_at(&profile, (width, height), &[&format!("--screenshot={}", file.display())], &url);
            assert!(file.exists(), "{path}: no screenshot: {}", String::from_utf8_lossy(&out.stderr));
        }
        println!("{path}: ok, smallest text {px} px at 800 px, {}", shots.join(format!("{name}-1400.png")).display());
    }
}

/// The text of the first countdown in `html`.
fn countdown(html: &str) -> String {
    let at = html.find("class=\"countdown").unwrap_or_else(|| panic!("no countdown in {html}"));
    let start = at + html[at..].find('>').unwrap() + 1;
    html[start..start + html[start..].find('<').unwrap()].to_owned()
}

#[test]
fn the_now_panels_countdown_ticks_in_chromium() {
    if !chromium_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    let r =
        common::Resp { time: chrono::Utc::now() - chrono::Duration::seconds(60), ..common::Resp::new("live", 1, 0) };
    common::write(&root, "-p/live.jsonl", &r.to_lines());
    let data = tmp.path().join("data");
    let (_server, base) = start_with(&[
        "--claude-dir",
        root.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
        "--quiet",
        "serve",
        "--bind",
        "127.0.0.1:0",
    ]);
    let (status, body) = http_get(&base, "/");
    assert_eq!(status, 200, "{body}");
    let served = countdown(&body);
    assert!(served.ends_with(" left"), "a request a minute ago is warm: {served}");
    let dom = chromium(&tmp.path().join("profile"), &["--dump-dom", "--virtual-time-budget=4000"], &format!("{base}/"));
    let dom = String::from_utf8_lossy(&dom.stdout);
    let ticked = countdown(&dom);
    assert!(ticked.ends_with(" left"), "{ticked}");
    assert_ne!(ticked, served, "the script ticks the countdown");
    let secs = |t: &str| {
        let (m, s) = t.trim_end_matches(" left").split_once(':').unwrap();
        m.parse::<i64>().unwrap() * 60 + s.parse::<i64>().unwrap()
    };
    assert!(secs(&ticked) < secs(&served), "{served} -> {ticked}");
}

/// A pilot lead's `/team` at 800 px: the table fits the window, so the
/// run-rate and the top model are in view without scrolling (machines,
/// median and p90 give way); the page's charts open at their newest bar.
#[test]
fn the_team_page_at_800_px_keeps_the_run_rate_and_top_model_in_view() {
    use cachewise::synth::{generate, SynthSpec};
    if !chromium_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let prices = cachewise::pricing::PriceTable::embedded().unwrap();
    let mut bundles = Vec::new();
    for (user, seed) in [("alice", 1), ("bob", 2)] {
        let own = tmp.path().join(user);
        let data = generate(seed, &SynthSpec::demo(chrono::Utc::now()));
        let rows = cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() };
        cachewise::update::store_rows(&cachewise::store::Store::open(&own).unwrap(), rows, &prices, None).unwrap();
        let bundle = tmp.path().join(format!("{user}.parquet"));
        let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
            .arg("--data-dir")
            .arg(&own)
            .args(["--no-ingest", "--quiet", "export", "--user", user, "--out"])
            .arg(&bundle)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        bundles.push(bundle);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .arg("--data-dir")
        .arg(&team)
        .arg("import")
        .args(&bundles)
        .output();
    assert!(out.as_ref().unwrap().status.success(), "{out:?}");
    let args = ["--data-dir", team.to_str().unwrap(), "--quiet", "--no-ingest", "serve", "--bind", "127.0.0.1:0"];
    let (_server, base) = start_with(&args);
    let profile = tmp.path().join("profile");
    let dom = chromium_at(&profile, (800, 1000), &["--dump-dom"], &format!("{base}/team#text-size"));
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("Monthly run-rate") && dom.contains("Top model"), "{dom}");
    let clipped = html_attr(&dom, "data-clipped").unwrap_or_else(|| panic!("the page did not measure: {dom}"));
    assert!(!clipped.contains("team") && !clipped.contains("figure"), "hidden behind a scroll at 800 px: {clipped}");
    let shots = screenshot_dir();
    for (width, height) in [(1400, 1400), (800, 1400)] {
        let file = shots.join(format!("team-{width}.png"));
        let _ = std::fs::remove_file(&file);
        chromium_at(&profile, (width, height), &[&format!("--screenshot={}", file.display())], &format!("{base}/team"));
        assert!(file.exists(), "no screenshot of /team at {width} px");
    }
}
