//! The push server and client: a missing or wrong token is 401 before the
//! body is read, an oversize body 413, a bad bundle 400 and a newer one 422,
//! the token (not the bundle) decides whose rows land, a half-sent upload
//! leaves the store as it was, `cachewise push` sends only what is new and
//! counts it once, and the loopback load test (ignored; run it by name).

use super::common::{write, Resp};
use super::support::*;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use cachewise::store::{frames, Store, Table};
use cachewise::team::push::upload;
use cachewise::team::TeamError;
use cachewise::update::{accept as accept_bundle, PushState as TeamState, BUNDLES_PATH, DEFAULT_MAX_BYTES};
use cachewise::web::push::router;
use http_body_util::BodyExt;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};
use tower::ServiceExt;

async fn post(state: TeamState, auth: Option<&str>, body: Vec<u8>) -> (StatusCode, Value) {
    let mut req = Request::builder().method("POST").uri(BUNDLES_PATH);
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    let resp = router(state).oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn alice_rows(n: u64) -> Vec<cachewise::model::Request> {
    (1..=n).map(|k| row("alice", "a-s1", k, k as i64 * 2)).collect()
}

fn bearer(user: &str) -> String {
    format!("Bearer {TOKEN_PREFIX}{user}")
}

#[tokio::test]
async fn missing_or_wrong_token_is_401_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let st = state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES);
    let body = bytes_of(&bundle_of("alice", alice_rows(3)));
    let wrong = [None, Some("Bearer not-a-known-token-at-all".to_owned()), Some(format!("Basic {TOKEN_PREFIX}alice"))];
    for auth in wrong {
        let (s, v) = post(st.clone(), auth.as_deref(), body.clone()).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(v["error"], "missing or unknown bearer token");
    }
    assert!(snapshot(tmp.path()).is_empty());
    let (s, v) = post(st, Some(&bearer("alice")), body).await;
    assert_eq!((s, v["added"].as_u64()), (StatusCode::OK, Some(3)));
}

#[tokio::test]
async fn oversize_is_413_and_bad_or_newer_bundles_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let body = bytes_of(&bundle_of("alice", alice_rows(3)));
    let small = state(tmp.path(), &["alice"], body.len() - 1);
    let (s, _) = post(small.clone(), Some(&bearer("alice")), body.clone()).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    let err = accept_bundle(&small, Some(&bearer("alice")), &body, super::common::t0()).unwrap_err();
    assert!(matches!(err, TeamError::TooLarge { .. }), "{err}");
    let st = state(tmp.path(), &["alice"], body.len());
    let (s, v) = post(st.clone(), Some(&bearer("alice")), b"PAR1 but not really".to_vec()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let mut newer = bundle_of("alice", alice_rows(3));
    newer.meta.schema += 1;
    let (s, v) = post(st.clone(), Some(&bearer("alice")), bytes_of(&newer)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(snapshot(tmp.path()).is_empty(), "refused uploads wrote nothing");
    let (s, _) = post(st, Some(&bearer("alice")), body).await;
    assert_eq!(s, StatusCode::OK, "exactly at the limit is fine");
}

#[tokio::test]
async fn the_token_decides_whose_rows_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let st = state(tmp.path(), &["alice", "bob"], DEFAULT_MAX_BYTES);
    let mut rows = alice_rows(2);
    rows.iter_mut().for_each(|r| r.user = "mallory".into());
    let (s, v) = post(st, Some(&bearer("bob")), bytes_of(&bundle_of("mallory", rows))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["bundles"][0]["user"], "bob");
    let store = Store::open(tmp.path()).unwrap();
    let stored = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    assert!(stored.iter().all(|r| r.user == "bob") && stored.len() == 2);
}

#[test]
fn a_half_sent_upload_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let url = serve(state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES));
    upload(&url, &format!("{TOKEN_PREFIX}alice"), &bytes_of(&bundle_of("alice", alice_rows(2)))).unwrap();
    let before = snapshot(tmp.path());
    let body = bytes_of(&bundle_of("alice", alice_rows(9)));
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST {BUNDLES_PATH} HTTP/1.1\r\nHost: {addr}\r\n{}: {}\r\nContent-Length: {}\r\n\r\n",
        "Authorization",
        bearer("alice"),
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&body[..body.len() / 2]).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 400"), "{answer}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(snapshot(tmp.path()), before, "the half-sent upload changed the store");
    let o = upload(&url, &format!("{TOKEN_PREFIX}alice"), &body).unwrap();
    assert_eq!((o.added, o.requests_after), (7, 9));
}

#[test]
fn push_sends_only_new_rows_and_counts_them_once() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let url = serve(state(&team, &["alice"], DEFAULT_MAX_BYTES));
    let (root, local) = (tmp.path().join("r"), tmp.path().join("l"));
    person_tree(&root, "alice", 2, 4);
    let token = format!("{TOKEN_PREFIX}alice");
    let push = |extra: &[&str]| {
        let mut args = vec!["push", "--server", &url, "--token", &token, "--user", "alias", "--machine", "laptop"];
        args.extend(extra);
        ok(&cw(Some(&root), &local, &args))
    };
    let first = push(&[]);
    assert!(first.contains("pushed 8 requests") && first.contains("8 new, 0 already there"), "{first}");
    // The server acknowledged every row: nothing is sent again.
    let again = push(&[]);
    assert!(again.contains("nothing new to push"), "{again}");
    let later: Vec<String> =
        (1..=2).flat_map(|k| Resp::new("alice-s9", k, 3 * 24 * 60 + k as i64).to_lines()).collect();
    write(&root, "-home-alice-app/alice-s9.jsonl", &later);
    let third = push(&[]);
    assert!(third.contains("pushed 2 requests") && third.contains("2 new"), "{third}");
    assert!(third.contains("holds 10 requests"), "{third}");
    let all = push(&["--all"]);
    assert!(all.contains("pushed 10 requests") && all.contains("0 new"), "{all}");
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    assert_eq!((v["rows"][0]["user"].as_str(), v["total"]["requests"].as_u64()), (Some("alice"), Some(10)));
}

fn percentile(sorted_ms: &[f64], q: f64) -> f64 {
    sorted_ms[((sorted_ms.len() as f64 * q).ceil() as usize).clamp(1, sorted_ms.len()) - 1]
}

#[test]
#[ignore = "load test: cargo test --test team load -- --ignored --nocapture"]
fn load_twenty_pushers_two_hundred_overlapping_uploads() {
    const PUSHERS: usize = 20;
    const UPLOADS: usize = 10;
    const STEP: usize = 30;
    const WIDTH: usize = 60;
    const ROWS: usize = STEP * (UPLOADS - 1) + WIDTH;
    let tmp = tempfile::tempdir().unwrap();
    let users: Vec<String> = (0..PUSHERS).map(|i| format!("dev{i:02}")).collect();
    let url = serve(state(tmp.path(), &users.iter().map(String::as_str).collect::<Vec<_>>(), DEFAULT_MAX_BYTES));
    let union: Vec<Vec<cachewise::model::Request>> = users
        .iter()
        .map(|u| (0..ROWS).map(|k| row(u, &format!("{u}-s{}", k / 15), k as u64 + 1, k as i64 * 2)).collect())
        .collect();
    let started = Instant::now();
    let threads: Vec<_> = union
        .iter()
        .zip(&users)
        .map(|(rows, u)| {
            let bodies: Vec<Vec<u8>> =
                (0..UPLOADS).map(|j| bytes_of(&bundle_of(u, rows[j * STEP..j * STEP + WIDTH].to_vec()))).collect();
            let (url, token) = (url.clone(), format!("{TOKEN_PREFIX}{u}"));
            std::thread::spawn(move || {
                bodies
                    .iter()
                    .map(|b| {
                        let t = Instant::now();
                        let o = upload(&url, &token, b).unwrap();
                        (t.elapsed().as_secs_f64() * 1000.0, o.added)
                    })
                    .collect::<Vec<(f64, usize)>>()
            })
        })
        .collect();
    let results: Vec<(f64, usize)> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(results.iter().map(|r| r.1).sum::<usize>(), PUSHERS * ROWS, "each row is new to exactly one upload");
    let mut ms: Vec<f64> = results.iter().map(|r| r.0).collect();
    ms.sort_by(f64::total_cmp);
    let store = Store::open(tmp.path()).unwrap();
    let stored = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    let mut want: Vec<_> = union.into_iter().flatten().collect();
    prices().price_all(&mut want);
    assert_eq!(stored.len(), PUSHERS * ROWS, "a row was lost or doubled");
    let keys: std::collections::BTreeSet<_> = stored.iter().map(|r| (&r.user, &r.message_id, &r.request_id)).collect();
    assert_eq!(keys.len(), stored.len());
    let (got, exp) = (stored.iter().map(|r| r.cost_usd).sum::<f64>(), want.iter().map(|r| r.cost_usd).sum::<f64>());
    assert!((got - exp).abs() < 1e-6, "{got} vs {exp}");
    println!(
        "load: {PUSHERS} pushers x {UPLOADS} uploads of {WIDTH} rows ({} overlapping each time), {} rows in the union: \
{wall:.1} s; upload latency p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        WIDTH - STEP,
        PUSHERS * ROWS,
        percentile(&ms, 0.5),
        percentile(&ms, 0.99),
        ms[ms.len() - 1]
    );
}
