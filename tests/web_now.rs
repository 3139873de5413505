//! The dashboard's Now panel and `/events`, in-process: two sessions
//! active in the last two hours (a 1-hour cache Claude Code will compact by
//! itself, a cold 5-minute one it will ask about), their countdowns and
//! premiums, the active 5-hour block; and an events request answered by
//! the new version once an ingest changed the data (an empty `?v=` is no
//! version).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::update::ingest;
use cachewise::web::{app, AppState};
use chrono::Duration;
use common::{append, t0, web_state, write, Resp};
use http_body_util::BodyExt;
use std::path::{Path, PathBuf};
use tower::ServiceExt;

async fn get(state: &AppState, uri: &str) -> (StatusCode, String, String) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let ct = res.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, ct, String::from_utf8(body.to_vec()).unwrap())
}

/// s1: prompt 250,004 with a 1-hour write at t0; s2: prompt 151,005 with a
/// 5-minute write 62 minutes before t0.
fn sessions() -> (Resp, Resp) {
    let s1 = Resp { read: 240_000, w5: 0, w1h: 10_000, ..Resp::new("s1", 1, 0) };
    let s2 = Resp { read: 150_000, w5: 1000, ..Resp::new("s2", 2, -62) };
    (s1, s2)
}

fn tree(root: &Path) -> PathBuf {
    let (s1, s2) = sessions();
    write(root, "-p/s2.jsonl", &s2.to_lines());
    write(root, "-p/s1.jsonl", &s1.to_lines())
}

fn ingested(root: &Path, data: &Path) -> Store {
    let store = Store::open(data).unwrap();
    ingest(&[root.to_path_buf()], &store, &PriceTable::embedded().unwrap(), &Silent, chrono::Utc::now()).unwrap();
    store
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_now_panel_shows_countdowns_premiums_and_what_claude_code_will_do() {
    let tmp = tempfile::tempdir().unwrap();
    tree(&tmp.path().join("claude"));
    let store = ingested(&tmp.path().join("claude"), &tmp.path().join("data"));
    let sample = r#"{"time":"2026-02-11T20:01:00Z","session_id":"s1","five_hour":{"used_pct":12.0,"resets_at":1770854400},"seven_day":null}"#;
    std::fs::create_dir_all(tmp.path().join("data/statusline")).unwrap();
    std::fs::write(tmp.path().join("data/statusline/rate_limits.jsonl"), format!("{sample}\n")).unwrap();
    let st = web_state(&store, t0() + Duration::minutes(10));
    let (status, _, body) = get(&st, "/").await;
    assert_eq!(status, StatusCode::OK);
    let panel = &body[body.find(r#"id="now""#).unwrap()..body.find("</section>").unwrap()];
    // s1 expires at t0 + 1 h: 50 minutes left; s2 expired at t0 - 57 min.
    assert!(panel.contains(r#"class="countdown warm" data-expires="1770843600000">50:00 left<"#), "{panel}");
    assert!(panel.contains(r#"class="countdown cold" data-expires="1770836580000">cold 1:07:00<"#), "{panel}");
    // Premiums (cache model v3): the shared prefix each read at its start
    // stays warm, since s1 (same model and version) ran 10 minutes ago.
    // s1's prompt is over 200k, so Sonnet 4.5 paid the long-context rates
    // ($6 input): (250,004 - 240,000) x ($12 - $0.60)/M = $0.11; s2:
    // (151,005 - 150,000) x ($3.75 - $0.30)/M = $0.0035.
    assert!(panel.contains(">$0.11<") && panel.contains("&#60;$0.01"), "{panel}");
    assert!(panel.contains("compacts it by itself at 20:54:00"), "{panel}");
    assert!(panel.contains("Resume from summary"), "s2 is over 100k and idle over an hour: {panel}");
    assert_eq!(panel.matches("Resume from summary").count(), 1, "s1 was idle 10 minutes: {panel}");
    assert!(panel.contains("5-hour block 18:00:00–23:00:00"), "{panel}");
    assert!(panel.find(">s1<").unwrap() < panel.find(">s2<").unwrap(), "most recent first");
    assert!(panel.contains("Plan limit: 12% of the 5-hour window used (2026-02-11 20:01)"), "{panel}");
    assert!(
        panel.contains("not enough plan-limit readings yet: the status line has seen your 5-hour use rise 0 of the 3 times an estimate needs."),
        "{panel}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_deliver_an_update_after_an_ingest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    let transcript = tree(&root);
    let store = ingested(&root, &tmp.path().join("data"));
    let st = web_state(&store, t0() + Duration::minutes(10));
    let v = st.snapshot().version;
    let (status, ct, body) = get(&st, "/events").await;
    assert_eq!((status, ct.as_str()), (StatusCode::OK, "text/event-stream"));
    assert_eq!(
        body,
        format!("retry: 2000\nid: {v}\nevent: update\ndata: {v}\n\n"),
        "no version given: the current one"
    );

    let waiting = tokio::spawn({
        let st = st.clone();
        async move { get(&st, &format!("/events?v={v}")).await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert!(!waiting.is_finished(), "nothing changed yet: the request is held");
    append(&transcript, &format!("{}\n", Resp::new("s1", 3, 5).to_lines().join("\n")));
    let (st2, root2, store2) = (st.clone(), root.clone(), store.clone());
    let changed = tokio::task::spawn_blocking(move || {
        let o = ingest(&[root2], &store2, &PriceTable::embedded().unwrap(), &Silent, chrono::Utc::now()).unwrap();
        st2.rebuild().unwrap();
        o.changed
    })
    .await
    .unwrap();
    assert!(changed);
    let (status, _, body) = tokio::time::timeout(std::time::Duration::from_secs(10), waiting).await.unwrap().unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, format!("retry: 2000\nid: {n}\nevent: update\ndata: {n}\n\n", n = v + 1));
}

/// Issue 24 item 11: with the dashboard serving a store, another process
/// (here `cachewise report daily`, which ingests) writes it; the refresh
/// task notices from the store's version, not from its own ingest, and
/// `/events` fires. Without a change, nothing is read again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_notices_a_store_written_by_another_process() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    let transcript = tree(&root);
    let data = tmp.path().join("data");
    let store = ingested(&root, &data);
    let st = web_state(&store, t0() + Duration::minutes(10));
    let before = st.snapshot();
    assert_eq!(st.rebuild().unwrap(), None, "nothing changed: the snapshot is kept");
    assert!(std::sync::Arc::ptr_eq(&before, &st.snapshot()));
    let v = before.version;
    // The server ingests nothing itself (`--no-ingest`: no roots).
    tokio::spawn(cachewise::web::refresh::keep_fresh(st.clone(), None));
    let waiting = tokio::spawn({
        let st = st.clone();
        async move { get(&st, &format!("/events?v={v}")).await }
    });
    append(&transcript, &format!("{}\n", Resp::new("s1", 3, 5).to_lines().join("\n")));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--claude-dir"])
        .arg(&root)
        .args(["--data-dir"])
        .arg(&data)
        .args(["--quiet", "report", "daily", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (status, _, body) = tokio::time::timeout(std::time::Duration::from_secs(12), waiting).await.unwrap().unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains(&format!("event: update\ndata: {}", v + 1)), "{body}");
    let snap = st.snapshot();
    assert_eq!(snap.all().unwrap().daily.total.requests, 3, "the other writer's request is on the pages");
}

/// Issue 24 item 12: `/events?v=` (an empty value, as a page without a
/// version sends) is no version: answered at once with the current one, not
/// 400. A value that is not a number is still refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_with_an_empty_version_are_answered_as_no_version() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    tree(&root);
    let store = ingested(&root, &tmp.path().join("data"));
    let st = web_state(&store, t0() + Duration::minutes(10));
    let v = st.snapshot().version;
    for uri in ["/events?v=", "/events?v=%20", "/events?v"] {
        let (status, ct, body) = get(&st, uri).await;
        assert_eq!((status, ct.as_str()), (StatusCode::OK, "text/event-stream"), "{uri}");
        assert_eq!(body, format!("retry: 2000\nid: {v}\nevent: update\ndata: {v}\n\n"), "{uri}");
    }
    let (status, _, _) = get(&st, "/events?v=abc").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// A data directory deleted under a running dashboard comes back: the next
/// refresh makes it again and reads the transcripts into it, and the pages
/// show the same figures as before, not "No data yet" for good.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_reads_the_transcripts_again_when_its_data_directory_is_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    tree(&root);
    let data = tmp.path().join("data");
    let store = ingested(&root, &data);
    let st = web_state(&store, t0() + Duration::minutes(10));
    let before = st.snapshot().all().unwrap().daily.total;
    assert_eq!(before.requests, 2);
    tokio::spawn(cachewise::web::refresh::keep_fresh(st.clone(), Some(vec![root.clone()])));
    std::fs::remove_dir_all(&data).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let back = data.join("manifest.json").is_file() && st.snapshot().view.version() == store.version();
        if back || std::time::Instant::now() > deadline {
            break;
        }
    }
    assert!(data.join("manifest.json").is_file(), "the data directory was made again");
    let st2 = st.clone();
    let after = tokio::task::spawn_blocking(move || st2.snapshot().all().unwrap().daily.total).await.unwrap();
    assert_eq!((after.requests, after.cost_usd), (before.requests, before.cost_usd), "the same figures as before");
}

/// A clock tick (`Snapshot::at`) keeps the usage and team reports, which
/// never read the clock, and makes the rest again at the later clock: s1's
/// 1-hour cache, warm 10 minutes after it, has expired 70 minutes after.
#[test]
fn a_clock_tick_keeps_the_reports_that_do_not_read_the_clock() {
    use cachewise::report::query::{Grouping, Query};
    use std::sync::Arc;
    let tmp = tempfile::tempdir().unwrap();
    tree(&tmp.path().join("claude"));
    let store = ingested(&tmp.path().join("claude"), &tmp.path().join("data"));
    let before = web_state(&store, t0() + Duration::minutes(10)).snapshot();
    let q = Query::new(before.tz);
    let (daily, team, all) =
        (before.usage(Grouping::Daily, &q).unwrap(), before.team(&q).unwrap(), before.all().unwrap());
    let later = before.at(t0() + Duration::minutes(70));
    assert!(Arc::ptr_eq(&daily, &later.usage(Grouping::Daily, &q).unwrap()), "the daily report is kept");
    assert!(Arc::ptr_eq(&team, &later.team(&q).unwrap()), "the team report is kept");
    let again = later.all().unwrap();
    assert!(!Arc::ptr_eq(&all, &again), "the report set is made again");
    let stale =
        |r: &cachewise::web::snapshot::Reports| r.cache.stale.iter().map(|s| s.session_id.clone()).collect::<Vec<_>>();
    assert_eq!(stale(&all), ["s2"]);
    assert_eq!(stale(&again).len(), 2, "s1 expired between the two clocks: {:?}", stale(&again));
    assert_eq!(again.daily.rows.len(), all.daily.rows.len());
}
