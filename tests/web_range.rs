//! The dashboard's date range and words, in-process (`oneshot`, no
//! socket) over a synthetic store: a range on `/cache` gives the figures of
//! `cachewise cache --since --until --json` (the real binary is run) and
//! `/api/cache` the same JSON; every page takes a range, says it, keeps it
//! in its links and points its JSON link at its own API route; `/days?by=`
//! equals `report weekly|monthly`; `/day` steps to days with requests;
//! projects show their path; every chart has a value on hover; no page's
//! text shows an internal key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cachewise::model::format::usd as dollars;
use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::synth::{generate, SynthSpec};
use cachewise::web::{app, AppState};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use http_body_util::BodyExt;
use serde_json::Value;
use std::process::Command;
use tower::ServiceExt;

use common::words::{text_of, INTERNAL, JARGON};

fn end() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap()
}

fn now() -> DateTime<Utc> {
    end() + TimeDelta::hours(2)
}

fn fixture() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let data = generate(11, &SynthSpec::scaled(end(), 12, 40));
    let prices = PriceTable::embedded().unwrap();
    let rows = cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() };
    cachewise::update::store_rows(&store, rows, &prices, None).unwrap();
    (dir, store)
}

async fn get(state: &AppState, uri: &str) -> (StatusCode, String) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

async fn page(state: &AppState, uri: &str) -> String {
    let (status, body) = get(state, uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {body}");
    body
}

fn cli_json(store: &Store, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", store.dir().to_str().unwrap(), "--tz", "UTC", "--no-ingest", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const SINCE: &str = "2026-11-10";
const UNTIL: &str = "2026-11-16";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_range_on_cache_equals_the_cli_cache_report_of_those_days() {
    let (_d, store) = fixture();
    let st = common::web_state(&store, now());
    let now = now().to_rfc3339();
    let cli =
        cli_json(&store, &["cache", "--json", "--now", &now, "--since", SINCE, "--until", UNTIL, "--per-page", "500"]);
    let api: Value =
        serde_json::from_str(&page(&st, &format!("/api/cache?since={SINCE}&until={UNTIL}")).await).unwrap();
    assert_eq!(api, cli, "the API route is the CLI's JSON");
    let all = cli_json(&store, &["cache", "--json", "--now", &now, "--per-page", "500"]);
    let (ranged, whole) = (cli["requests"].as_u64().unwrap(), all["requests"].as_u64().unwrap());
    assert!(0 < ranged && ranged < whole, "the range selects some requests: {ranged} of {whole}");
    let html = page(&st, &format!("/cache?since={SINCE}&until={UNTIL}")).await;
    let text = text_of(&html);
    let usd = |v: &Value| dollars(v.as_f64().unwrap());
    for (what, v) in [
        ("lost to expired caches", &cli["idle_cost_usd"]),
        ("as billed", &cli["what_if"]["actual_usd"]),
        ("every write 5-minute", &cli["what_if"]["ttl_5m_usd"]),
        ("every write 1-hour", &cli["what_if"]["ttl_1h_usd"]),
        ("expired after 5 minutes", &cli["classes"]["ttl_5m"]["miss_cost_usd"]),
    ] {
        assert!(text.contains(&usd(v)), "{what}: {} not on the page", usd(v));
    }
    let hit = format!("{:.1}%", cli["hit_ratio_tokens"].as_f64().unwrap() * 100.0);
    assert!(text.contains(&hit), "hit ratio {hit}");
    let hits = cachewise::model::format::thousands(cli["classes"]["hit"]["count"].as_u64().unwrap());
    assert!(text.contains(&hits), "hits {hits}");
    assert!(text.contains(&format!("{SINCE} to {UNTIL}")), "the page says its days");
    let whole_page = text_of(&page(&st, "/cache").await);
    assert!(whole_page.contains("all time") && !whole_page.contains(&format!("{SINCE} to {UNTIL}")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_takes_a_range_says_it_and_keeps_it() {
    let (_d, store) = fixture();
    let st = common::web_state(&store, now());
    // askama writes `&` in an attribute as `&#38;`.
    let keep = format!("since={SINCE}&#38;until={UNTIL}");
    for (path, json) in [
        ("/", "/api/daily"),
        ("/days", "/api/daily"),
        ("/cache", "/api/cache"),
        ("/projects", "/api/projects"),
        ("/models", "/api/models"),
        ("/sessions", "/api/sessions"),
    ] {
        let html = page(&st, &format!("{path}?since={SINCE}&until={UNTIL}")).await;
        let text = text_of(&html);
        assert!(text.contains(&format!("Showing {SINCE} to {UNTIL}")), "{path} says its days");
        for nav in ["/sessions?", "/days?", "/cache?", "/projects?", "/models?"] {
            assert!(html.contains(&format!("href=\"{nav}{keep}\"")), "{path}: the link to {nav} keeps the range");
        }
        assert!(html.contains(&format!("href=\"{json}?{keep}\"")), "{path}: its JSON link is {json}");
        for preset in ["today", "7 days", "30 days", "this month", "all"] {
            assert!(text.contains(preset), "{path}: preset {preset}");
        }
    }
    // The projects and models pages give the CLI's figures for the days.
    for (path, args) in [("/projects", ["report", "project"]), ("/models", ["report", "model"])] {
        let cli = cli_json(&store, &[args[0], args[1], "--json", "--since", SINCE, "--until", UNTIL]);
        let api: Value =
            serde_json::from_str(&page(&st, &format!("/api{path}?since={SINCE}&until={UNTIL}")).await).unwrap();
        assert_eq!(api, cli, "/api{path}");
        let text = text_of(&page(&st, &format!("{path}?since={SINCE}&until={UNTIL}")).await);
        assert!(text.contains(&dollars(cli["total"]["cost_usd"].as_f64().unwrap())), "{path} total");
    }
    let (status, _) = get(&st, "/cache?since=2026-11-30&until=2026-11-01").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "since after until");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weeks_and_months_equal_the_cli_reports() {
    let (_d, store) = fixture();
    let st = common::web_state(&store, now());
    for (by, report) in [("week", "weekly"), ("month", "monthly"), ("day", "daily")] {
        let cli = cli_json(&store, &["report", report, "--json"]);
        let api: Value = serde_json::from_str(&page(&st, &format!("/api/daily?by={by}")).await).unwrap();
        assert_eq!(api, cli, "{by}");
        let text = text_of(&page(&st, &format!("/days?by={by}")).await);
        for row in cli["rows"].as_array().unwrap().iter().rev().take(3) {
            assert!(text.contains(row["period"].as_str().unwrap()), "{by}: {row}");
            assert!(text.contains(&dollars(row["cost_usd"].as_f64().unwrap())), "{by}: {row}");
        }
        assert!(text.contains(&format!("per {by}")), "{by}: the heading says it");
    }
    assert_eq!(get(&st, "/days?by=year").await.0, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_links_to_the_previous_and_next_day_with_requests() {
    let (_d, store) = fixture();
    let st = common::web_state(&store, now());
    let daily = cli_json(&store, &["report", "daily", "--json"]);
    let days: Vec<&str> = daily["rows"].as_array().unwrap().iter().map(|r| r["period"].as_str().unwrap()).collect();
    assert!(days.len() >= 3);
    let html = page(&st, &format!("/day/{}", days[1])).await;
    assert!(html.contains(&format!("href=\"/day/{}\" rel=\"prev\"", days[0])), "previous day with requests");
    assert!(html.contains(&format!("href=\"/day/{}\" rel=\"next\"", days[2])), "next day with requests");
    let first = page(&st, &format!("/day/{}", days[0])).await;
    assert!(!first.contains("rel=\"prev\"") && text_of(&first).contains("no earlier day"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_speak_words_and_every_chart_has_values_on_hover() {
    let (_d, store) = fixture();
    let st = common::web_state(&store, now());
    let sessions = cli_json(&store, &["report", "session", "--json"]);
    let id = sessions["rows"][0]["session_id"].as_str().unwrap().to_owned();
    let day = &sessions["rows"][0]["last"].as_str().unwrap()[..10];
    let range = format!("?since={SINCE}&until={UNTIL}");
    let paths = ["/", "/sessions", "/days", "/cache", "/projects", "/models", "/sessions?sort=stale", "/days?by=month"];
    let mut uris: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    uris.extend(
        paths.iter().map(|p| if p.contains('?') { format!("{p}&{}", &range[1..]) } else { format!("{p}{range}") }),
    );
    uris.extend([format!("/session/{id}"), format!("/day/{day}"), format!("/session/{id}?turns=1")]);
    for uri in &uris {
        let html = page(&st, uri).await;
        let text = text_of(&html);
        for key in INTERNAL {
            assert!(!text.contains(key), "{uri} shows {key:?}");
        }
        for count in ["1 people", "1 turns", "1 sessions match", "1 rests"] {
            assert!(!text.contains(count), "{uri} shows {count:?}");
        }
        let charts = html.matches("<svg").count();
        assert!(charts > 0, "{uri} has a chart");
        for svg in html.split("<svg").skip(1) {
            let svg = &svg[..svg.find("</svg>").unwrap()];
            assert!(svg.contains("<title>"), "{uri}: a chart without a value on hover");
        }
    }
    let projects = text_of(&page(&st, "/projects").await);
    assert!(projects.contains("/home/dev/demo1"), "a project is shown as the path it ran in");
    assert!(!projects.contains("-home-dev-demo1"), "not as its directory name");
}

/// `cachewise --data-dir D --tz UTC --quiet [--claude-dir ROOT | --no-ingest] ARGS` as JSON.
fn cw(data: &std::path::Path, root: Option<&std::path::Path>, args: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    match root {
        Some(r) => cmd.arg("--claude-dir").arg(r),
        None => cmd.arg("--no-ingest"),
    };
    let out = cmd.arg("--data-dir").arg(data).args(["--tz", "UTC", "--quiet"]).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real3_pages_speak_words_and_a_range_equals_the_cli() {
    let Some(root) = common::corpus("real3") else { return };
    let data = tempfile::tempdir().unwrap();
    let daily = cw(data.path(), Some(&root), &["report", "daily", "--json"]);
    let days: Vec<&str> = daily["rows"].as_array().unwrap().iter().map(|r| r["period"].as_str().unwrap()).collect();
    let (since, until) = (days[days.len() / 3], days[days.len() * 2 / 3]);
    let last = chrono::NaiveDate::parse_from_str(days[days.len() - 1], "%Y-%m-%d").unwrap();
    let now = last.and_hms_opt(23, 0, 0).unwrap().and_utc();
    let store = Store::open(data.path()).unwrap();
    let st = common::web_state(&store, now);
    let cli = cw(
        data.path(),
        None,
        &["cache", "--json", "--now", &now.to_rfc3339(), "--since", since, "--until", until, "--per-page", "500"],
    );
    let api: Value =
        serde_json::from_str(&page(&st, &format!("/api/cache?since={since}&until={until}")).await).unwrap();
    assert_eq!(api, cli, "real3: /api/cache over {since}..{until}");
    let cache_page = text_of(&page(&st, &format!("/cache?since={since}&until={until}")).await);
    assert!(cache_page.contains(&dollars(cli["idle_cost_usd"].as_f64().unwrap())), "real3: the lost figure");
    let sessions = cw(data.path(), None, &["report", "session", "--json"]);
    let id = sessions["rows"][0]["session_id"].as_str().unwrap().to_owned();
    let range = format!("since={since}&until={until}");
    let mut uris: Vec<String> = Vec::new();
    for p in ["/", "/sessions", "/days", "/days?by=week", "/cache", "/projects", "/models", "/sessions?sort=stale"] {
        uris.push(p.to_owned());
        uris.push(if p.contains('?') { format!("{p}&{range}") } else { format!("{p}?{range}") });
    }
    uris.extend([format!("/session/{id}"), format!("/day/{until}")]);
    for uri in &uris {
        let html = page(&st, uri).await;
        let text = text_of(&html);
        for key in INTERNAL.iter().chain(&JARGON) {
            assert!(!text.contains(key), "real3 {uri} shows {key:?}");
        }
        for svg in html.split("<svg").skip(1) {
            assert!(
                svg[..svg.find("</svg>").unwrap()].contains("<title>"),
                "real3 {uri}: a chart without hover values"
            );
        }
    }
    let projects = text_of(&page(&st, "/projects").await);
    assert!(projects.contains('/'), "real3: projects shown by path");
    // The terminal reports speak the same plain words.
    for args in [&["cache"][..], &["prices"], &["report", "daily"], &["report", "session"], &["cache", "--misses"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
            .arg("--data-dir")
            .arg(data.path())
            .args(["--no-ingest", "--quiet"])
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for key in JARGON {
            assert!(!text.contains(key), "real3 `cachewise {}` says {key:?}:\n{text}", args.join(" "));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weeks_from_sunday_equal_the_cli_weekly_report_from_sunday() {
    let (_d, store) = fixture();
    let cli = cli_json(&store, &["report", "weekly", "--json", "--start-of-week", "sunday"]);
    let mondays = cli_json(&store, &["report", "weekly", "--json"]);
    assert_ne!(cli["rows"], mondays["rows"], "weeks from Sunday are other weeks");
    let periods: Vec<&str> = cli["rows"].as_array().unwrap().iter().map(|r| r["period"].as_str().unwrap()).collect();
    assert!(periods.len() >= 2, "{periods:?}");
    for p in &periods {
        let d = chrono::NaiveDate::parse_from_str(p, "%Y-%m-%d").unwrap();
        assert_eq!(chrono::Datelike::weekday(&d), chrono::Weekday::Sun, "{p} starts a week");
    }
    let check = |text: &str, how: &str| {
        for row in cli["rows"].as_array().unwrap().iter().rev().take(3) {
            assert!(text.contains(row["period"].as_str().unwrap()), "{how}: {row}");
            assert!(text.contains(&dollars(row["cost_usd"].as_f64().unwrap())), "{how}: {row}");
        }
        assert!(text.contains("per week (from Sunday)"), "{how}: the page says when weeks start");
    };
    // A page asks (`start_of_week`), and its links keep it.
    let st = common::web_state(&store, now());
    let api: Value = serde_json::from_str(&page(&st, "/api/daily?by=week&start_of_week=sunday").await).unwrap();
    assert_eq!(api, cli, "the page's parameter");
    let html = page(&st, "/days?by=week&start_of_week=sunday").await;
    check(&text_of(&html), "parameter");
    assert!(html.contains("href=\"/cache?by=week&#38;start_of_week=sunday\""), "the links keep the week start");
    assert!(html.contains("<option value=\"sunday\" selected>Sunday</option>"), "the form shows it");
    let (status, body) = get(&st, "/api/daily?by=week&start_of_week=someday").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // The server's setting (`serve --start-of-week sunday`): no parameter
    // needed, and the links need not name it.
    let sunday = common::web_state_weeks(&store, now(), chrono::Weekday::Sun);
    let api: Value = serde_json::from_str(&page(&sunday, "/api/daily?by=week").await).unwrap();
    assert_eq!(api, cli, "the server's setting");
    let html = page(&sunday, "/days?by=week").await;
    check(&text_of(&html), "setting");
    assert!(html.contains("href=\"/cache?by=week\""), "the server's own week start is not repeated in links");
    let mondays_api: Value =
        serde_json::from_str(&page(&sunday, "/api/daily?by=week&start_of_week=monday").await).unwrap();
    assert_eq!(mondays_api, mondays, "a page can ask for Mondays on a Sunday server");
    let help = Command::new(env!("CARGO_BIN_EXE_cachewise")).args(["serve", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--start-of-week <DAY>"), "serve takes the CLI's flag");
}
