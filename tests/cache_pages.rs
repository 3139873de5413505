//! Cache model v2 on the dashboard, over the demo generator's data (which
//! makes every v2 event): `/cache` shows every class with its plain
//! sentence, the compactions by trigger and the idle-compaction figures;
//! `/session/{id}` marks microcompacts, context edits, full rebuilds and
//! rewinds distinctly; the overview shows the money lost within the TTL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cachewise::analyze::CacheClass;
use cachewise::model::format::usd as dollars;
use cachewise::model::MAIN_THREAD;
use cachewise::pricing::PriceTable;
use cachewise::report::cache::CacheQuery;
use cachewise::report::query::Query;
use cachewise::store::Store;
use cachewise::synth::{generate, SynthSpec};
use cachewise::web::{app, AppState};
use chrono::{TimeDelta, TimeZone, Utc};
use common::reference::{cache_report, CacheData};
use http_body_util::BodyExt;
use tower::ServiceExt;

async fn get(state: &AppState, uri: &str) -> String {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{uri}");
    String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

/// The first session whose main thread's first 250 requests (the timeline's
/// first page) hold `class` (or a rewind).
fn session_with(d: &CacheData, class: Option<CacheClass>) -> String {
    let mut by: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (i, r) in d.requests.iter().enumerate().filter(|(_, r)| r.thread == MAIN_THREAD) {
        by.entry(r.session_id.as_str()).or_default().push(i);
    }
    let hit = |i: &usize| class.map_or(d.caches[*i].rewind, |k| d.caches[*i].class == k);
    by.into_iter().find(|(_, v)| v.iter().take(250).any(hit)).map(|(s, _)| s.to_owned()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_session_and_overview_pages_show_the_v2_model() {
    let end = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let data = generate(7, &SynthSpec::demo(end));
    let prices = PriceTable::embedded().unwrap();
    cachewise::update::store_rows(
        &store,
        cachewise::ingest::Rows { rows: data.requests, compactions: data.compactions, ..Default::default() },
        &prices,
        None,
    )
    .unwrap();
    let now = end + TimeDelta::hours(2);
    let state = common::web_state(&store, now);
    let d = CacheData::load(&store, &prices);
    let r = cache_report(&d, &CacheQuery { query: Query::new(chrono_tz::UTC), session: None }, now);
    let page = get(&state, "/cache").await;
    for k in CacheClass::ALL {
        assert!(page.contains(k.meaning()), "{k:?}'s sentence");
        // The demo's transcripts are of versions before Claude Code recorded
        // the prompt's shape, so none of its misses is a shape change.
        let absent = [CacheClass::VersionChange, CacheClass::ShapeChange];
        assert!(r.total.classes.get(k).count > 0 || absent.contains(&k), "demo makes {k:?}");
    }
    assert!(page.contains("rewinds: hits after the prompt shrank"));
    for (k, n) in &r.compactions_by_trigger {
        let words = cachewise::report::labels::trigger(k);
        assert!(page.contains(&format!("<tr><td>{words}</td><td class=\"num\">{n}</td></tr>")), "{words} {n}");
    }
    assert!(r.compactions_by_trigger["idle"] > 0);
    assert!(page.contains(&dollars(r.idle_compaction.rebuild_usd)));
    // The costliest version for warm misses is on the page, with its cost.
    let api: serde_json::Value = serde_json::from_str(&get(&state, "/api/cache").await).unwrap();
    let versions = api["versions"].as_array().unwrap();
    let worst = versions
        .iter()
        .max_by(|a, b| a["misses_within_ttl_usd"].as_f64().partial_cmp(&b["misses_within_ttl_usd"].as_f64()).unwrap())
        .unwrap();
    assert!(versions.len() > 10 && page.contains("The cache by Claude Code version"));
    let cost = dollars(worst["miss_cost_per_100_usd"].as_f64().unwrap());
    assert!(page.contains(&format!("<tr><td>{}</td>", worst["version"].as_str().unwrap())) && page.contains(&cost));
    let shown = 10 + versions.iter().filter(|v| v["flagged"] == true).count().min(versions.len() - 10);
    assert!(page.contains(&format!("{} other versions lost less to cache misses", versions.len() - shown)));
    // What a growing context costs, and the window what-if's sentence.
    assert!(page.contains("What a growing context costs"));
    let windows = api["context"]["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 4);
    let sentence = cachewise::report::cache::context::window_sentence(windows_of(windows).as_slice()).unwrap();
    assert!(page.contains(&sentence), "{sentence}");
    let overview = get(&state, "/").await;
    assert!(overview.contains("lost to prompt edits while the cache was warm"));
    assert!(overview.contains(&dollars(r.total.classes.edit_cost_usd())));
    let marks = [
        (Some(CacheClass::Microcompact), "c-microcompact", "#E377C2"),
        (Some(CacheClass::ContextEdit), "c-context_edit", "#6A3D9A"),
        (Some(CacheClass::FullRebuild), "c-full_rebuild", "#8C564B"),
        (None, "c-rewind", "#008080"),
    ];
    for (class, css, colour) in marks {
        let id = session_with(&d, class);
        let page = get(&state, &format!("/session/{id}")).await;
        assert!(page.contains(&format!("<span class=\"cls {css}\"")), "{css} on /session/{id}");
        assert!(page.contains(colour), "{colour} mark on /session/{id}");
    }
}

fn windows_of(v: &[serde_json::Value]) -> Vec<cachewise::analyze::window::WindowWhatIf> {
    v.iter()
        .map(|w| cachewise::analyze::window::WindowWhatIf {
            window_tokens: w["window_tokens"].as_u64().unwrap(),
            default: w["default"].as_bool().unwrap(),
            cost_usd: w["cost_usd"].as_f64().unwrap(),
            compactions: w["compactions"].as_u64().unwrap(),
            saving_usd: w["saving_usd"].as_f64().unwrap(),
        })
        .collect()
}
