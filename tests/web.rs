//! The dashboard's router in-process (`tower::ServiceExt::oneshot`, no
//! socket): every route's status and content type, the security headers,
//! numbers equal to the CLI's JSON on the same store (the real binary is
//! run for that), escaping of transcript text, 404s, 400s and the empty
//! state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use cachewise::model::format::usd as dollars;
use cachewise::model::{SessionTitle, TitleKind};
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::render::usage_json;
use cachewise::report::usage::usage;
use cachewise::store::Store;
use cachewise::synth::{generate, SynthSpec};
use cachewise::web::{app, AppState};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use http_body_util::BodyExt;
use serde_json::Value;
use std::process::Command;
use tower::ServiceExt;

const EVIL_TITLE: &str = "<script>alert('pwned')</script> & co";
const EVIL_PROJECT: &str = "-home-dev-<img src=x onerror=alert(1)>";
/// The path the evil project ran in, which pages show instead of its directory name.
const EVIL_CWD: &str = "/home/dev/<img src=x onerror=alert(1)>";

fn end() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap()
}

/// A store of synthetic sessions; the first session gets an HTML title and
/// project. Returns the store's directory guard, the store and that
/// session's id.
fn fixture() -> (tempfile::TempDir, Store, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut data = generate(7, &SynthSpec::scaled(end(), 10, 24));
    let evil = data.titles[0].0.clone();
    for r in data.requests.iter_mut().filter(|r| r.session_id == evil) {
        r.project = EVIL_PROJECT.into();
        r.cwd = EVIL_CWD.into();
    }
    let titles = data
        .titles
        .iter()
        .enumerate()
        .map(|(i, (sid, t))| SessionTitle {
            session_id: sid.clone(),
            kind: TitleKind::Custom,
            seq: 0,
            title: if i == 0 { EVIL_TITLE.to_owned() } else { t.clone() },
            source: "synthetic".into(),
        })
        .collect();
    let prices = PriceTable::embedded().unwrap();
    cachewise::update::store_rows(
        &store,
        cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, titles, ..Default::default() },
        &prices,
        None,
    )
    .unwrap();
    (dir, store, evil)
}

fn state(store: &Store) -> AppState {
    common::web_state(store, end() + TimeDelta::hours(2))
}

struct Got {
    status: StatusCode,
    content_type: String,
    headers: axum::http::HeaderMap,
    body: String,
}

async fn get(state: &AppState, uri: &str) -> Got {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let content_type = headers.get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    Got { status, content_type, headers, body: String::from_utf8(bytes.to_vec()).unwrap() }
}

fn pages(id: &str) -> Vec<String> {
    ["/", "/sessions", &format!("/session/{id}"), "/days", "/day/2026-11-19", "/cache", "/projects", "/models"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_html_with_a_chart_and_security_headers() {
    let (_d, store, id) = fixture();
    let st = state(&store);
    for uri in pages(&id) {
        let g = get(&st, &uri).await;
        assert_eq!(g.status, StatusCode::OK, "{uri}: {}", g.body);
        assert!(g.content_type.starts_with("text/html"), "{uri}: {}", g.content_type);
        assert!(g.body.contains("<svg"), "{uri} has no chart");
        let csp = g.headers.get(header::CONTENT_SECURITY_POLICY).unwrap().to_str().unwrap();
        assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
        assert_eq!(g.headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(), "nosniff");
        assert!(!g.body.contains(" style="), "{uri}: inline style would be blocked by the CSP");
        assert!(g.body.len() < 1 << 20, "{uri} is over 1 MB");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_route_is_json() {
    let (_d, store, id) = fixture();
    let st = state(&store);
    for uri in [
        "/api/daily",
        "/api/sessions",
        &format!("/api/session/{id}"),
        "/api/cache",
        &format!("/api/advise/{id}?turns=5"),
    ] {
        let g = get(&st, uri).await;
        assert_eq!(g.status, StatusCode::OK, "{uri}: {}", g.body);
        assert!(g.content_type.starts_with("application/json"), "{uri}: {}", g.content_type);
        let v: Value = serde_json::from_str(&g.body).unwrap();
        assert!(v.is_object(), "{uri}");
    }
    let a: Value = serde_json::from_str(&get(&st, &format!("/api/advise/{id}?turns=5")).await.body).unwrap();
    assert_eq!(a["turns"], 5);
    assert_eq!(a["session_id"], id.as_str());
}

/// Runs the real binary on the store: `cachewise --data-dir D --tz UTC --no-ingest ARGS`.
fn cli_json(store: &Store, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--data-dir", store.dir().to_str().unwrap(), "--tz", "UTC", "--no-ingest", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_equals_the_cli_json_on_the_same_store() {
    let (_d, store, _) = fixture();
    let st = state(&store);
    for (uri, args) in [
        ("/api/daily", vec!["report", "daily", "--json"]),
        ("/api/sessions", vec!["report", "session", "--json"]),
        (
            "/api/daily?since=2026-11-15&until=2026-11-18",
            vec!["report", "daily", "--json", "--since", "2026-11-15", "--until", "2026-11-18"],
        ),
        (
            "/api/sessions?breakdown=true&project=proj",
            vec!["report", "session", "--json", "--breakdown", "--project", "proj"],
        ),
    ] {
        let web: Value = serde_json::from_str(&get(&st, uri).await.body).unwrap();
        assert_eq!(web, cli_json(&store, &args), "{uri}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_show_the_cli_numbers() {
    let (_d, store, _) = fixture();
    let st = state(&store);
    let prices = PriceTable::embedded().unwrap();
    let q = Query::new(chrono_tz::UTC);
    let daily = usage(&common::view(&store, &prices, common::t0()), Grouping::Daily, &q).unwrap();
    let sessions = usage(&common::view(&store, &prices, common::t0()), Grouping::Session, &q).unwrap();
    let days = get(&st, "/days").await.body;
    assert!(days.contains(&dollars(daily.total.cost_usd)), "total of report daily");
    let last = daily.rows.last().unwrap();
    assert!(days.contains(&dollars(last.totals.cost_usd)), "latest day");
    let top = &sessions.rows[0];
    let page = get(&st, "/sessions").await.body;
    assert!(page.contains(&dollars(top.totals.cost_usd)), "top session cost");
    let detail = get(&st, &format!("/session/{}", top.key)).await.body;
    assert!(detail.contains(&dollars(top.totals.cost_usd)));
    let overview = get(&st, "/").await.body;
    let s =
        cachewise::report::summary::summary(&common::view(&store, &prices, end() + TimeDelta::hours(2)), &q).unwrap();
    for t in [s.today, s.last_7, s.last_30] {
        assert!(overview.contains(&dollars(t.cost_usd)), "{}", dollars(t.cost_usd));
    }
    let json = usage_json(&daily);
    assert_eq!(json["total"]["requests"], daily.total.requests);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transcript_text_is_escaped_everywhere() {
    let (_d, store, id) = fixture();
    let st = state(&store);
    for uri in [
        "/".to_owned(),
        "/sessions".to_owned(),
        format!("/session/{id}"),
        "/projects".to_owned(),
        "/day/2026-11-19".to_owned(),
        "/sessions?q=%3Cscript%3E".to_owned(),
    ] {
        let g = get(&st, &uri).await;
        assert!(!g.body.contains("<script>alert"), "{uri} leaks a script");
        assert!(!g.body.contains("<img src=x"), "{uri} leaks an img");
    }
    let g = get(&st, "/sessions?q=script").await;
    assert!(g.body.contains("&lt;script&gt;alert("), "the title is shown, escaped");
    let g = get(&st, "/projects").await;
    assert!(g.body.contains("&lt;img src=x"), "the project is shown, escaped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ids_are_404_and_bad_parameters_400() {
    let (_d, store, _) = fixture();
    let st = state(&store);
    for (uri, status) in [
        ("/session/no-such-session", StatusCode::NOT_FOUND),
        ("/api/session/no-such-session", StatusCode::NOT_FOUND),
        ("/api/advise/no-such-session", StatusCode::NOT_FOUND),
        ("/no/such/page", StatusCode::NOT_FOUND),
        ("/static/app.0000.css", StatusCode::NOT_FOUND),
        ("/day/2026-13-45", StatusCode::BAD_REQUEST),
        ("/day/yesterday", StatusCode::BAD_REQUEST),
        ("/sessions?since=2026-02-30", StatusCode::BAD_REQUEST),
        ("/sessions?since=2026-11-10&until=2026-11-01", StatusCode::BAD_REQUEST),
        ("/sessions?sort=nonsense", StatusCode::BAD_REQUEST),
        ("/sessions?page=0", StatusCode::BAD_REQUEST),
        ("/api/daily?since=tomorrow", StatusCode::BAD_REQUEST),
        ("/api/sessions?breakdown=maybe", StatusCode::BAD_REQUEST),
        ("/?model=no-such-model", StatusCode::BAD_REQUEST),
    ] {
        let g = get(&st, uri).await;
        assert_eq!(g.status, status, "{uri}: {}", g.body);
        if uri.starts_with("/api/") {
            let v: Value = serde_json::from_str(&g.body).unwrap();
            assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{uri}");
        } else {
            assert!(g.content_type.starts_with("text/html"), "{uri}");
        }
    }
    let g = get(&st, "/day/2026-13-45").await;
    assert!(g.body.contains("is not a date"), "the message says what is wrong");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_store_pages_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let st = state(&store);
    for uri in ["/", "/sessions", "/days", "/cache", "/projects", "/models"] {
        let g = get(&st, uri).await;
        assert_eq!(g.status, StatusCode::OK, "{uri}: {}", g.body);
        assert!(g.body.contains("No data yet") && g.body.contains("--claude-dir"), "{uri}");
    }
    assert_eq!(get(&st, "/day/2026-11-19").await.status, StatusCode::OK);
    assert_eq!(get(&st, "/session/x").await.status, StatusCode::NOT_FOUND);
    let daily: Value = serde_json::from_str(&get(&st, "/api/daily").await.body).unwrap();
    assert_eq!(daily["rows"].as_array().map(Vec::len), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_are_hashed_and_cached_for_long() {
    let (_d, store, _) = fixture();
    let st = state(&store);
    let page = get(&st, "/").await.body;
    let start = page.find("/static/app.").unwrap();
    let href: String = page[start..].chars().take_while(|c| *c != '"').collect();
    assert!(href.ends_with(".css"), "{href}");
    let g = get(&st, &href).await;
    assert_eq!(g.status, StatusCode::OK);
    assert!(g.content_type.starts_with("text/css"));
    assert!(g.headers.get(header::CACHE_CONTROL).unwrap().to_str().unwrap().contains("immutable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_timeline_pages_through_threads_and_turns() {
    let (_d, store, _) = fixture();
    let st = state(&store);
    let v: Value = serde_json::from_str(&get(&st, "/api/sessions").await.body).unwrap();
    let id = v["rows"][0]["session_id"].as_str().unwrap().to_owned();
    let s: Value = serde_json::from_str(&get(&st, &format!("/api/session/{id}")).await.body).unwrap();
    let threads = s["timeline"]["threads"].as_array().unwrap();
    assert_eq!(threads[0]["thread"], "main");
    let requests: u64 = threads.iter().map(|t| t["requests"].as_u64().unwrap()).sum();
    assert_eq!(requests, s["usage"]["requests"].as_u64().unwrap(), "threads add up to the session");
    let g = get(&st, &format!("/session/{id}?turns=25")).await;
    assert!(g.body.contains("over the next 25 turns"), "advice follows the turns parameter");
    assert_eq!(get(&st, &format!("/session/{id}?thread=nope")).await.status, StatusCode::BAD_REQUEST);
    assert_eq!(get(&st, &format!("/session/{id}?turns=0")).await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_and_advice_equal_the_cli_json() {
    let (_d, store, id) = fixture();
    let st = state(&store);
    let now = (end() + TimeDelta::hours(2)).to_rfc3339();
    for (uri, args) in [
        ("/api/cache".to_owned(), vec!["cache", "--json", "--now", &now, "--per-page", "500"]),
        (
            "/api/cache?since=2026-11-17&project=demo".to_owned(),
            vec!["cache", "--json", "--now", &now, "--since", "2026-11-17", "--project", "demo", "--per-page", "500"],
        ),
        (
            format!("/api/cache?session={id}"),
            vec!["cache", "--json", "--now", &now, "--session", &id, "--per-page", "500"],
        ),
        (
            "/api/cache?per_page=2&page=2".to_owned(),
            vec!["cache", "--json", "--now", &now, "--per-page", "2", "--page", "2"],
        ),
        (format!("/api/advise/{id}?turns=7"), vec!["advise", &id, "--turns", "7", "--json", "--now", &now]),
    ] {
        let web: Value = serde_json::from_str(&get(&st, &uri).await.body).unwrap();
        assert_eq!(web, cli_json(&store, &args), "{uri}");
    }
    // A page is its slice of every per-session list, and says how long each is.
    let all = cli_json(&store, &["cache", "--json", "--now", &now]);
    assert!(all.get("lists").is_none(), "the CLI prints whole lists unless asked");
    let page: Value = serde_json::from_str(&get(&st, "/api/cache?per_page=2&page=2").await.body).unwrap();
    for (list, total) in
        [("by_session", "by_session_total"), ("stale", "stale_total"), ("compaction", "compaction_total")]
    {
        let whole = all[list].as_array().unwrap();
        assert_eq!(page["lists"][total].as_u64(), Some(whole.len() as u64), "{list}");
        let expected: Vec<Value> = whole.iter().skip(2).take(2).cloned().collect();
        assert_eq!(page[list].as_array().unwrap(), &expected, "{list}");
    }
    assert!(all["by_session"].as_array().unwrap().len() > 3, "the fixture has sessions to page through");
    assert_eq!(page["lists"]["page"].as_u64(), Some(2));
    assert_eq!(get(&st, "/api/cache?per_page=5001").await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_pages_prefix_redirects_to_the_session() {
    let (_d, store, id) = fixture();
    let st = state(&store);
    let prefix = &id[..8];
    let got = get(&st, &format!("/session/{prefix}")).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let to = got.headers.get(header::LOCATION).unwrap().to_str().unwrap();
    assert!(to.ends_with(&cachewise::web::params::encode(&id)), "{to}");
    let api = get(&st, &format!("/api/session/{prefix}")).await;
    assert_eq!(api.status, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&api.body).unwrap();
    assert_eq!(v["usage"]["session_id"].as_str(), Some(id.as_str()));
    assert_eq!(get(&st, "/session/no-such-session").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_sessions_now_do_not_follow_the_pages_date_range() {
    let (_d, store, _id) = fixture();
    let st = state(&store);
    let count = |body: &str| {
        let at = body.find("stale session").unwrap_or_else(|| panic!("no stale list: {body}"));
        body[..at].rsplit(['>', ' ']).nth(1).unwrap().to_owned()
    };
    let all = get(&st, "/").await;
    let past = get(&st, "/?since=2026-01-01&until=2026-01-02").await;
    assert_eq!(past.status, StatusCode::OK);
    assert_eq!(count(&all.body), count(&past.body), "the same sessions are stale now, whatever the range");
    assert!(!past.body.contains("No session's cache has expired"));
}
