//! Prices end to end with the real binary: a new version of a known family
//! (`claude-opus-5-7`) is priced as the newest Opus and flagged in daily,
//! session, cache and team JSON, beside the terminal total and in the
//! dashboard banner, with one warning per model; an unknown family costs
//! $0 and is named; an exact `--pricing` entry clears the flag; Fable 5.2
//! from a transcript, fast mode included; `cachewise prices --json`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::Request;
use cachewise::store::Store;
use cachewise::web::app;
use chrono::{TimeDelta, TimeZone, Utc};
use common::{write, Resp};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;
use tower::ServiceExt;

/// The binary with days in UTC.
fn cachewise(root: &Path, data: &Path, args: &[&str]) -> Output {
    common::cachewise(root, data, &[args, &["--tz", "UTC"]].concat())
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json_of(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap()
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
}

const WARNING: &str = "warning: claude-opus-5-7 is not in the price table; priced as claude-opus-5-5";

/// Session `s1`: three responses on `claude-opus-5-7` (n = 1, 2, 3) and one
/// on `claude-nova-1`, a family no table knows, on 2026-02-11; session
/// `s2`: one on Sonnet 4.5 the next day.
fn fixture(root: &Path) -> Resp {
    let mut lines = Vec::new();
    for n in 1..=3 {
        let mut r = Resp::new("s1", n, n as i64);
        r.model = "claude-opus-5-7".into();
        lines.extend(r.to_lines());
    }
    let mut nova = Resp::new("s1", 4, 4);
    nova.model = "claude-nova-1".into();
    lines.extend(nova.to_lines());
    write(root, "-home-u-app/s1.jsonl", &lines);
    let sonnet = Resp::new("s2", 1, 24 * 60);
    write(root, "-home-u-app/s2.jsonl", &sonnet.to_lines());
    sonnet
}

/// The three Opus 5.7 responses at Opus 5.5 prices ($4 in, $20 out, read
/// 0.05x), by hand: n tokens are in 3+n, 5m write 1000n, read 20000+500n,
/// out 100+n.
/// n=1: 4*4e-6 + 1000*5e-6 + 20500*0.2e-6 + 101*20e-6 = 0.000016 + 0.005 + 0.0041 + 0.00202 = 0.011136
/// n=2: 5*4e-6 + 2000*5e-6 + 21000*0.2e-6 + 102*20e-6 = 0.00002 + 0.01 + 0.0042 + 0.00204 = 0.01626
/// n=3: 6*4e-6 + 3000*5e-6 + 21500*0.2e-6 + 103*20e-6 = 0.000024 + 0.015 + 0.0043 + 0.00206 = 0.021384
const OPUS_5_7_AS_5_5: f64 = 0.011136 + 0.01626 + 0.021384;

fn flag() -> Value {
    json!([{"model": "claude-opus-5-7", "priced_as": "claude-opus-5-5"}])
}

#[test]
fn a_new_opus_is_priced_as_the_newest_and_flagged_in_every_report() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sonnet = fixture(root.path());
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--json"]);
    let v = json_of(&o);
    assert_eq!(v["estimated_models"], flag());
    assert_eq!(v["unknown_models"], json!(["claude-nova-1"]));
    assert_eq!(v["total"]["requests"], 5);
    close(v["total"]["cost_usd"].as_f64().unwrap(), OPUS_5_7_AS_5_5 + sonnet.sonnet_cost());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stderr.matches(WARNING).count(), 1, "{stderr}");
    assert!(stderr.contains("--pricing FILE"), "{stderr}");

    let v = json_of(&cachewise(root.path(), data.path(), &["report", "session", "--json", "--no-ingest"]));
    assert_eq!(v["estimated_models"], flag());
    let s1 = v["rows"].as_array().unwrap().iter().find(|r| r["session_id"] == "s1").unwrap();
    close(s1["cost_usd"].as_f64().unwrap(), OPUS_5_7_AS_5_5);
    let v = json_of(&cachewise(root.path(), data.path(), &["report", "model", "--json", "--no-ingest"]));
    assert_eq!(v["estimated_models"], flag());
    let opus = v["rows"].as_array().unwrap().iter().find(|r| r["model"] == "claude-opus-5-7").unwrap();
    close(opus["cost_usd"].as_f64().unwrap(), OPUS_5_7_AS_5_5);
    // Filtered to the Sonnet day, the flags go: no row rests on a guess.
    let args = ["report", "weekly", "--json", "--no-ingest", "--since", "2026-02-12"];
    let o = cachewise(root.path(), data.path(), &args);
    let v = json_of(&o);
    assert_eq!((v["estimated_models"].clone(), v["unknown_models"].clone()), (json!([]), json!([])));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    let v = json_of(&cachewise(root.path(), data.path(), &["cache", "--json", "--no-ingest"]));
    assert_eq!(v["estimated_models"], flag());

    let o = cachewise(root.path(), data.path(), &["report", "daily", "--no-ingest"]);
    let table = stdout(&o);
    assert!(
        table.contains("Estimated prices (model not in the price table, priced as its family's newest version): claude-opus-5-7 as claude-opus-5-5"),
        "{table}"
    );
    assert!(table.contains("Unknown models (priced at $0, not guessed): claude-nova-1"), "{table}");
    assert_eq!(String::from_utf8_lossy(&o.stderr).matches(WARNING).count(), 1);
    for args in [&["--no-ingest"][..], &["cache", "--no-ingest"]] {
        let o = cachewise(root.path(), data.path(), args);
        let text = stdout(&o);
        assert!(text.contains("Estimated prices (model not in the price table"), "{args:?}: {text}");
        assert!(text.contains("claude-opus-5-7 as claude-opus-5-5"), "{args:?}: {text}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).matches(WARNING).count(), 1, "{args:?}");
    }
    let quiet = cachewise(root.path(), data.path(), &["report", "daily", "--no-ingest", "--quiet"]);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("warning"));
}

#[test]
fn the_team_report_flags_estimated_models_of_imported_bundles() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("root"), tmp.path().join("local"), tmp.path().join("team"));
    fixture(&root);
    let bundle = tmp.path().join("alice.parquet");
    stdout(&cachewise(&root, &local, &["export", "--user", "alice", "--out", bundle.to_str().unwrap()]));
    let empty = tmp.path().join("none");
    stdout(&cachewise(&empty, &team, &["import", bundle.to_str().unwrap()]));
    let o = cachewise(&empty, &team, &["report", "team", "--json"]);
    let v = json_of(&o);
    assert_eq!(v["estimated_models"], flag());
    assert_eq!(v["unknown_models"], json!(["claude-nova-1"]));
    assert_eq!(String::from_utf8_lossy(&o.stderr).matches(WARNING).count(), 1);
    let md = stdout(&cachewise(&empty, &team, &["report", "team", "--md"]));
    assert!(md.contains("- Estimated prices (model not in the price table"), "{md}");
}

#[test]
fn an_exact_pricing_entry_clears_the_flag() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sonnet = fixture(root.path());
    let file = data.path().join("opus-5-7.toml");
    std::fs::write(&file, "[[model]]\nid = \"claude-opus-5-7\"\ninput_per_mtok = 6.0\noutput_per_mtok = 30.0\n")
        .unwrap();
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--json", "--pricing", file.to_str().unwrap()]);
    let v = json_of(&o);
    assert_eq!(v["estimated_models"], json!([]));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning: claude-opus-5-7"));
    // At $6 / $30, read 0.1x: n=1: 4*6e-6 + 1000*7.5e-6 + 20500*0.6e-6 + 101*30e-6
    //   = 0.000024 + 0.0075 + 0.0123 + 0.00303 = 0.022854; n=2: 0.00003 + 0.015 + 0.0126 + 0.00306 = 0.03069;
    //   n=3: 0.000036 + 0.0225 + 0.0129 + 0.00309 = 0.038526
    close(v["total"]["cost_usd"].as_f64().unwrap(), 0.022854 + 0.03069 + 0.038526 + sonnet.sonnet_cost());
    // Without the file the stored rows are priced again, estimated.
    let v = json_of(&cachewise(root.path(), data.path(), &["report", "daily", "--json"]));
    assert_eq!(v["estimated_models"], flag());
    close(v["total"]["cost_usd"].as_f64().unwrap(), OPUS_5_7_AS_5_5 + sonnet.sonnet_cost());
}

#[test]
fn fable_5_2_from_a_transcript_standard_and_fast() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut a = Resp::new("f", 1, 0);
    a.model = "claude-fable-5-2".into();
    (a.input, a.w5, a.w1h, a.read, a.out) = (1000, 20_000, 0, 400_000, 2000);
    let mut b = Resp::new("f", 2, 10);
    b.model = "claude-fable-5-2".into();
    (b.input, b.w5, b.w1h, b.read, b.out) = (3, 0, 50_000, 1_200_000, 5000);
    let mut lines = a.to_lines();
    // The second response ran in fast mode.
    lines.extend(
        b.to_lines()
            .into_iter()
            .map(|l| l.replace(r#""service_tier":"standard""#, r#""service_tier":"standard","speed":"fast""#)),
    );
    write(root.path(), "-home-u-app/f.jsonl", &lines);
    let v = json_of(&cachewise(root.path(), data.path(), &["report", "session", "--json"]));
    // Standard, 5m writes: 0.008 + 0.2 + 0.08 + 0.08 = 0.368; fast, 1h writes:
    // 2 x (0.000024 + 0.8 + 0.24 + 0.2) = 2.480048; total 2.848048 -> $2.85
    close(v["total"]["cost_usd"].as_f64().unwrap(), 2.848048);
    assert_eq!(v["estimated_models"], json!([]));
    assert_eq!(v["unknown_models"], json!([]));
    let table = stdout(&cachewise(root.path(), data.path(), &["report", "daily", "--no-ingest"]));
    assert!(table.contains("$2.85"), "{table}");
}

#[test]
fn prices_json_lists_the_table_and_the_pricing_file() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let v = json_of(&cachewise(root.path(), data.path(), &["prices", "--json"]));
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 26);
    let fable = models.iter().find(|m| m["model"] == "claude-fable-5-2").unwrap();
    assert_eq!(fable["input_per_mtok"], 8.0);
    assert_eq!(fable["output_per_mtok"], 40.0);
    assert_eq!(fable["cache_write_5m_per_mtok"], 10.0);
    assert_eq!(fable["cache_write_1h_per_mtok"], 16.0);
    assert_eq!(fable["read_multiplier"], 0.025);
    assert_eq!(fable["fast_multiplier"], 2.0);
    assert_eq!(fable["long_context"], Value::Null);
    assert_eq!(fable["long_context_rule"], "none");
    assert_eq!(fable["source_date"], "2026-11-12");
    let mythos = models.iter().find(|m| m["model"] == "claude-mythos-5-2").unwrap();
    assert!(mythos["source"].as_str().unwrap().starts_with("inferred"), "{mythos}");
    assert_eq!(v["estimates_use"]["opus"], "claude-opus-5-5");
    assert_eq!(v["estimates_use"]["fable"], "claude-fable-5-2");
    assert_eq!(v["pricing_file"], Value::Null);

    let file = data.path().join("extra.toml");
    std::fs::write(&file, "[[model]]\nid = \"claude-opus-6\"\ninput_per_mtok = 3.0\noutput_per_mtok = 15.0\n").unwrap();
    let v = json_of(&cachewise(root.path(), data.path(), &["prices", "--json", "--pricing", file.to_str().unwrap()]));
    assert_eq!(v["models"].as_array().unwrap().len(), 27);
    assert_eq!(v["pricing_file"], file.display().to_string());
    assert_eq!(v["estimates_use"]["opus"], "claude-opus-6");
    let text = stdout(&cachewise(root.path(), data.path(), &["prices"]));
    assert!(text.contains("opus -> claude-opus-5-5"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_an_estimate_banner() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    stdout(&cachewise(root.path(), data.path(), &["ingest"]));
    let store = Store::open(data.path()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 2, 12, 0, 0, 0).unwrap() + TimeDelta::hours(1);
    let state = common::web_state(&store, now);
    for uri in ["/", "/sessions", "/cache"] {
        let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
        let res = app(state.clone()).oneshot(req).await.unwrap();
        let body = String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
        let banner = body.split(r#"<div class="banner" role="status">Estimated prices"#).nth(1).unwrap_or_default();
        let want =
            "claude-opus-5-7 as claude-opus-5-5. For exact prices run cachewise with <code>--pricing FILE</code>";
        assert!(banner.split("</div>").next().unwrap().contains(want), "{uri}: {body}");
    }
}

/// The status line's JSON for `transcript` at `now`, with `extra` flags.
fn statusline(data: &Path, transcript: &Path, now: &str, extra: &[&str]) -> Value {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", data.to_str().unwrap(), "--tz", "UTC"])
        .args(extra)
        .args(["statusline", "--format", "json", "--now", now])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({"session_id": "s2", "transcript_path": transcript}).to_string();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    serde_json::from_slice(&child.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn a_pricing_file_prices_only_its_own_run() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sonnet = Resp { w5: 100_000, ..Resp::new("s2", 1, 24 * 60) };
    let transcript = write(root.path(), "-home-u-app/s2.jsonl", &sonnet.to_lines());
    // Sonnet 4.5 at $1 in, $5 out: a third of its list price (a prompt
    // under the 200k of its long-context premium).
    let file = data.path().join("cheap.toml");
    std::fs::write(&file, "[[model]]\nid = \"claude-sonnet-4-5\"\ninput_per_mtok = 1.0\noutput_per_mtok = 5.0\n")
        .unwrap();
    let cheap = ["--pricing", file.to_str().unwrap()];
    let (list, third) = (sonnet.sonnet_cost(), sonnet.sonnet_cost() / 3.0);
    let daily = |extra: &[&str]| {
        let v = json_of(&cachewise(root.path(), data.path(), &[&["report", "daily", "--json"], extra].concat()));
        v["total"]["cost_usd"].as_f64().unwrap()
    };
    close(daily(&cheap), third);
    // The next run, without the file and without ingesting, prices with its own table.
    close(daily(&["--no-ingest"]), list);
    let blocks = json_of(&cachewise(root.path(), data.path(), &["report", "blocks", "--json", "--no-ingest"]));
    close(blocks["rows"][0]["cost_usd"].as_f64().unwrap(), list);
    let cache = json_of(&cachewise(root.path(), data.path(), &["cache", "--json", "--no-ingest"]));
    close(cache["what_if"]["actual_usd"].as_f64().unwrap(), list);
    let summary = stdout(&cachewise(root.path(), data.path(), &["--no-ingest"]));
    assert!(summary.contains(&format!("${list:.2}")) && !summary.contains(&format!("${third:.2}")), "{summary}");
    let now = "2026-02-12T20:10:00Z";
    close(statusline(data.path(), &transcript, now, &[])["today_cost_usd"].as_f64().unwrap(), list);
    close(statusline(data.path(), &transcript, now, &cheap)["today_cost_usd"].as_f64().unwrap(), third);
    // Stored at list price, `--pricing` with `--no-ingest` is not ignored.
    close(daily(&[]), list);
    close(daily(&[&cheap[..], &["--no-ingest"]].concat()), third);
    let session = json_of(&cachewise(
        root.path(),
        data.path(),
        &[&["report", "session", "--json", "--no-ingest"], &cheap[..]].concat(),
    ));
    close(session["rows"][0]["cost_usd"].as_f64().unwrap(), third);
    close(daily(&["--no-ingest"]), list);
}

#[test]
fn a_price_whose_cost_can_overflow_is_refused_with_the_file_and_field() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    for (field, line) in [
        ("input_per_mtok", "input_per_mtok = 1e308\noutput_per_mtok = 5.0"),
        ("output_per_mtok", "input_per_mtok = 1.0\noutput_per_mtok = 2e6"),
        ("fast_multiplier", "input_per_mtok = 1.0\noutput_per_mtok = 5.0\nfast_multiplier = 1e300"),
    ] {
        let file = data.path().join("huge.toml");
        std::fs::write(&file, format!("[[model]]\nid = \"claude-sonnet-4-5\"\n{line}\n")).unwrap();
        let o =
            cachewise(root.path(), data.path(), &["report", "daily", "--json", "--pricing", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{field}: {err}");
        assert!(err.contains(&file.display().to_string()) && err.contains(field), "{field}: {err}");
        assert!(o.stdout.is_empty(), "{field}: nothing is reported with such a table");
    }
    // At the bound it is a price like any other.
    let file = data.path().join("dear.toml");
    std::fs::write(&file, "[[model]]\nid = \"claude-sonnet-4-5\"\ninput_per_mtok = 1e6\noutput_per_mtok = 1e6\n")
        .unwrap();
    let v = json_of(&cachewise(
        root.path(),
        data.path(),
        &["report", "daily", "--json", "--pricing", file.to_str().unwrap()],
    ));
    assert!(v["total"]["cost_usd"].as_f64().unwrap().is_finite());
}
