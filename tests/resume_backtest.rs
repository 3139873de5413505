//! Cache model v3 through the binary: the backtest of the resume premium on
//! the real public corpora in ../shared (skipped when absent; real3 must be
//! priced better by v3's shared prefix than by v2's "rewrite everything"),
//! and on the demo data; resumable sessions (a past-cleanup session, a
//! deleted transcript, `cleanupPeriodDays` 0, 7 and unset, transcripts
//! about to be deleted unread) in `cache --json`, the summary and `advise`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::pricing::PriceTable;
use cachewise::report::cache::view::cache_report;
use cachewise::report::cache::CacheQuery;
use cachewise::report::query::Query;
use cachewise::store::Store;
use cachewise::synth::{generate, SynthSpec};
use chrono::{Duration, TimeZone, Utc};
use common::{cachewise, cachewise_in, t0, write, Resp};
use serde_json::Value;
use std::path::Path;

fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn line(name: &str, b: &Value) -> String {
    format!(
        "{name}: misses {}, observed ${:.2}, v3 ${:.2} (MAE {:.1}%), v2 ${:.2} (MAE {:.1}%)",
        b["misses"],
        b["observed_usd"].as_f64().unwrap_or(0.0),
        b["predicted_usd"].as_f64().unwrap_or(0.0),
        b["mae_pct"].as_f64().unwrap_or(f64::NAN),
        b["v2_predicted_usd"].as_f64().unwrap_or(0.0),
        b["v2_mae_pct"].as_f64().unwrap_or(f64::NAN)
    )
}

#[test]
fn the_backtest_prices_real_resumes_better_than_v2_on_real3() {
    for name in ["real", "real2", "real3"] {
        let Some(root) = common::corpus(name) else { continue };
        let data = tempfile::tempdir().unwrap();
        let v = json(&cachewise(&root, data.path(), &["--now", "2030-01-01T00:00:00Z", "cache", "--json"]));
        let (b, k) = (&v["backtest"], &v["keep_warm"]);
        eprintln!("{}", line(name, b));
        eprintln!("{name}: keep_warm {k}");
        assert!(b["misses"].as_u64().unwrap() > 0, "{name}: {b}");
        let (v3, v2) = (b["mae_pct"].as_f64().unwrap(), b["v2_mae_pct"].as_f64().unwrap());
        if name == "real3" {
            assert!(v3 < v2, "real3: v3 MAE {v3}% is not below v2's {v2}%");
        }
        // Every session and day carries the keep-warm what-if; the totals add up.
        let pings: u64 =
            v["by_session"].as_array().unwrap().iter().map(|s| s["keep_warm"]["pings"].as_u64().unwrap()).sum();
        assert_eq!(pings, k["pings"].as_u64().unwrap(), "{name}: sessions' pings");
        let days: u64 = v["by_day"].as_array().unwrap().iter().map(|d| d["keep_warm"]["pings"].as_u64().unwrap()).sum();
        assert_eq!(days, k["pings"].as_u64().unwrap(), "{name}: days' pings");
    }
}

#[test]
fn the_demo_data_has_a_backtest_and_a_keep_warm_what_if() {
    let dir = tempfile::tempdir().unwrap();
    let end = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap();
    let data = generate(11, &SynthSpec::demo(end));
    let prices = PriceTable::embedded().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let rows = cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() };
    cachewise::update::store_rows(&store, rows, &prices, None).unwrap();
    let view = common::view(&store, &prices, end + Duration::hours(1));
    let r = cache_report(&view, &CacheQuery { query: Query::new(chrono_tz::UTC), session: None }).unwrap();
    let b = serde_json::to_value(r.total.backtest).unwrap();
    eprintln!("{}", line("demo", &b));
    eprintln!("demo: keep_warm {}", serde_json::to_value(&r.total.keep_warm).unwrap());
    assert!(r.total.backtest.misses > 0);
    assert!(r.total.backtest.predicted_usd <= r.total.backtest.v2_predicted_usd);
    assert!(r.total.keep_warm.misses_avoided + r.total.keep_warm.left_out_gaps == r.total.backtest.misses);

    // /cache says both in words, with the report's figures.
    let page = cache_page(&common::web_state(&store, end + Duration::hours(1)));
    assert!(page.contains("Keeping the cache warm: what if"), "{page}");
    assert!(page.contains(&format!("through {} breaks", r.total.keep_warm.misses_avoided)), "{page}");
    assert!(page.contains("How well cachewise priced the resumes that really happened"), "{page}");
    assert!(page.contains(&format!("{} resumes after the cache expired", r.total.backtest.misses)), "{page}");
}

/// `GET /cache` of the dashboard, in process.
fn cache_page(state: &cachewise::web::AppState) -> String {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let req = axum::http::Request::builder().uri("/cache").header("host", "127.0.0.1");
        let res =
            cachewise::web::app(state.clone()).oneshot(req.body(axum::body::Body::empty()).unwrap()).await.unwrap();
        assert_eq!(res.status(), 200);
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
    })
}

/// Two responses of `session` starting `minutes` after `t0`, 10 minutes
/// apart, with a prompt of about `read` tokens.
fn session(root: &Path, session: &str, minutes: i64, read: u64) -> std::path::PathBuf {
    let mut lines = Vec::new();
    for (n, m) in [(1, minutes), (2, minutes + 10)] {
        let mut r = Resp::new(session, n, m);
        r.read = read;
        lines.extend(r.to_lines());
    }
    write(root, &format!("-home-u-app/{session}.jsonl"), &lines)
}

fn ids(v: &Value, key: &str) -> Vec<String> {
    let mut out: Vec<String> =
        v[key].as_array().unwrap().iter().map(|s| s["session_id"].as_str().unwrap().to_owned()).collect();
    out.sort();
    out
}

fn reasons(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["not_resumable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["session_id"].as_str().unwrap().to_owned(), s["reason"].as_str().unwrap().to_owned()))
        .collect();
    out.sort();
    out
}

#[test]
fn only_resumable_sessions_are_stale_and_the_others_say_why() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let day = 24 * 60;
    session(root.path(), "s-old", 0, 20_000);
    session(root.path(), "s-new", 20 * day, 20_000);
    let gone = session(root.path(), "s-gone", 20 * day + 60, 150_000);
    let now = (t0() + Duration::days(21)).to_rfc3339();
    let settings = root.path().join("settings.json");
    std::fs::write(&settings, r#"{"cleanupPeriodDays": 7}"#).unwrap();
    let v = json(&cachewise(root.path(), data.path(), &["--now", &now, "cache", "--json"]));
    assert_eq!(ids(&v, "stale"), ["s-gone", "s-new"]);
    assert_eq!(reasons(&v), [("s-old".to_owned(), "past_cleanup".to_owned())]);
    std::fs::remove_file(&gone).unwrap();
    let no_ingest = ["--no-ingest", "--now", &now, "cache", "--json"];
    let v = json(&cachewise(root.path(), data.path(), &no_ingest));
    assert_eq!(ids(&v, "stale"), ["s-new"]);
    let want =
        [("s-gone".to_owned(), "transcript_deleted".to_owned()), ("s-old".to_owned(), "past_cleanup".to_owned())];
    assert_eq!(reasons(&v), want);
    // After an ingest, which no longer finds it, the same.
    let ingested = json(&cachewise(root.path(), data.path(), &["--now", &now, "cache", "--json"]));
    assert_eq!(ids(&ingested, "stale"), ["s-new"]);
    assert_eq!(reasons(&ingested), want);
    // Their history stays.
    assert_eq!(ids(&v, "by_session"), ["s-gone", "s-new", "s-old"]);
    assert!(v.get("warnings").is_none(), "{}", v["warnings"]);
    let why = v["not_resumable"].as_array().unwrap().iter().find(|s| s["session_id"] == "s-old").unwrap();
    assert_eq!(why["why"], "idle longer than Claude Code keeps transcripts (7 days)");

    // advise says plainly that a deleted transcript cannot be resumed.
    let a = json(&cachewise(root.path(), data.path(), &["--no-ingest", "--now", &now, "advise", "s-gone", "--json"]));
    assert_eq!(a["not_resumable"], "transcript_deleted");
    let text = a["explanation"].as_str().unwrap();
    assert!(text.starts_with("This session cannot be resumed: its transcript was deleted"), "{text}");
    assert!(!text.contains("Resume full session as-is"), "{text}");
    assert_eq!(a["claude_code"]["resume_dialog"], false);
    let text = cachewise(root.path(), data.path(), &["--no-ingest", "--now", &now, "advise", "s-gone"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Do this: Start a new session."), "{text}");
    assert!(text.contains("This session cannot be resumed: its transcript was deleted"), "{text}");
    assert!(
        !text.contains("as-is") && !text.contains("Resume the conversation") && !text.contains("Compact first"),
        "{text}"
    );
    assert_eq!(a["recommendation"], "restart", "never advice to resume what cannot be");
    // Past the cleanup period: the same, with its reason.
    let old = json(&cachewise(root.path(), data.path(), &["--no-ingest", "--now", &now, "advise", "s-old", "--json"]));
    assert_eq!(
        (old["not_resumable"].as_str(), old["recommendation"].as_str()),
        (Some("past_cleanup"), Some("restart"))
    );
    let ok = json(&cachewise(root.path(), data.path(), &["--no-ingest", "--now", &now, "advise", "s-new", "--json"]));
    assert!(ok["not_resumable"].is_null());

    // Unset: 30 days, so the 21-day-old session can be resumed again.
    std::fs::remove_file(&settings).unwrap();
    let v = json(&cachewise(root.path(), data.path(), &no_ingest));
    assert_eq!(ids(&v, "stale"), ["s-new", "s-old"]);
    assert_eq!(reasons(&v), [("s-gone".to_owned(), "transcript_deleted".to_owned())]);

    // 0: no transcripts are written; the summary and the report warn.
    std::fs::write(&settings, r#"{"cleanupPeriodDays": 0}"#).unwrap();
    let v = json(&cachewise(root.path(), data.path(), &no_ingest));
    assert!(v["stale"].as_array().unwrap().is_empty());
    assert!(v["warnings"][0].as_str().unwrap().contains("cleanupPeriodDays is 0"), "{}", v["warnings"]);
    let summary = cachewise(root.path(), data.path(), &["--no-ingest", "--now", &now]);
    assert!(String::from_utf8_lossy(&summary.stdout).contains("Warning: Claude Code's cleanupPeriodDays is 0"));

    // Bad JSON is a warning, not a failure (30 days assumed).
    std::fs::write(&settings, "{oops").unwrap();
    let v = json(&cachewise(root.path(), data.path(), &no_ingest));
    assert!(v["warnings"][0].as_str().unwrap().contains("not valid JSON"), "{}", v["warnings"]);
    assert_eq!(ids(&v, "stale"), ["s-new", "s-old"]);
}

#[test]
fn transcripts_not_yet_read_and_due_for_deletion_are_warned_about() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    session(root.path(), "s-read", 0, 20_000);
    let now = t0() + Duration::days(1);
    let args = ["--now", &now.to_rfc3339(), "cache", "--json"];
    json(&cachewise(root.path(), data.path(), &args));
    std::fs::write(root.path().join("settings.json"), r#"{"cleanupPeriodDays": 7}"#).unwrap();
    let unread = session(root.path(), "s-unread", 60, 20_000);
    let five_days_ago = std::time::SystemTime::from(now - Duration::days(5));
    std::fs::File::options().write(true).open(&unread).unwrap().set_modified(five_days_ago).unwrap();
    let v = json(&cachewise_in(
        Some(root.path()),
        data.path(),
        &["--no-ingest", "--now", &now.to_rfc3339(), "cache", "--json"],
    ));
    let w = v["warnings"][0].as_str().unwrap();
    assert!(w.starts_with("1 transcript(s) not yet read will be deleted by Claude Code within 3 days"), "{w}");
}

#[test]
fn advise_says_the_keep_warm_saving_net_as_cache_does() {
    let Some(root) = common::corpus("real3") else { return };
    let data = tempfile::tempdir().unwrap();
    let a = json(&cachewise(&root, data.path(), &["--now", "2026-08-20T18:00:00Z", "advise", "0d3804f3", "--json"]));
    let k = &a["keep_warm"];
    let (cost, miss) = (k["cost_usd"].as_f64().unwrap(), k["miss_cost_usd"].as_f64().unwrap());
    assert!(miss > cost, "{k}");
    let usd = cachewise::model::format::usd;
    let text = a["explanation"].as_str().unwrap();
    let said = format!(
        "would have cost {} in pings and saved {} net (the rebuild it avoided cost {})",
        usd(cost),
        usd(miss - cost),
        usd(miss)
    );
    assert!(text.contains(&said), "{text}");
}
