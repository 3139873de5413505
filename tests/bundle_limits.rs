//! Decompression bombs: a bundle that would expand past
//! the row or decompressed-byte caps is refused before it is read, with 413
//! on push and a clear error on `import`, and the store is left untouched.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::team_support as support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cachewise::team::limits::{BundleLimits, DEFAULT_MAX_DECOMPRESSED, DEFAULT_MAX_ROWS};
use cachewise::team::{read_bundle_limited, TeamError};
use cachewise::update::{PushState as TeamState, BUNDLES_PATH, DEFAULT_MAX_BYTES};
use cachewise::web::push::router;
use http_body_util::BodyExt;
use serde_json::Value;
use support::*;
use tower::ServiceExt;

/// A bundle of alice's `n` requests (and one compaction), as bytes.
fn body(n: u64) -> Vec<u8> {
    bytes_of(&bundle_of("alice", (1..=n).map(|k| row("alice", "a-s1", k, k as i64)).collect()))
}

async fn post(state: TeamState, body: Vec<u8>) -> (StatusCode, Value) {
    let req = Request::builder()
        .method("POST")
        .uri(BUNDLES_PATH)
        .header("authorization", format!("Bearer {TOKEN_PREFIX}alice"))
        .body(Body::from(body))
        .unwrap();
    let resp = router(state).oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn bundle_row_cap_refused_with_413() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = BundleLimits { rows: 10, decompressed: DEFAULT_MAX_DECOMPRESSED, ..BundleLimits::default() };
    let st = state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES).with_limits(limits);
    // 10 requests and a compaction: 11 rows.
    let (status, v) = post(st.clone(), body(10)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    assert_eq!(
        v["error"],
        "upload: the bundle would expand to 11 rows, over the limit of 10; send it in parts (export --since DATE) or raise the limit"
    );
    assert!(snapshot(tmp.path()).is_empty(), "a refused bundle wrote nothing");
    let (status, v) = post(st, body(9)).await;
    assert_eq!((status, v["added"].as_u64()), (StatusCode::OK, Some(9)), "exactly at the cap is fine");
}

#[tokio::test]
async fn bundle_decompressed_byte_cap_refused_with_413() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = BundleLimits { rows: DEFAULT_MAX_ROWS, decompressed: 16 << 10, ..BundleLimits::default() };
    let st = state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES).with_limits(limits);
    let big = body(2_000);
    assert!(big.len() < 64 << 10, "the bundle itself is small: {} bytes", big.len());
    let (status, v) = post(st, big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains("bytes after decompression, over the limit of 16384"), "{msg}");
    assert!(snapshot(tmp.path()).is_empty());
}

#[test]
fn default_caps_admit_ordinary_bundles_and_refuse_a_row_bomb() {
    let ok = read_bundle_limited(&body(500), "b", &BundleLimits::default()).unwrap();
    assert_eq!(ok.requests.len(), 500);
    // The same bytes, read under a cap one row short of them.
    let err = read_bundle_limited(&body(500), "b", &BundleLimits { rows: 500, ..BundleLimits::default() }).unwrap_err();
    assert!(matches!(err, TeamError::OverLimit { what: "rows", found: 501, limit: 500, .. }), "{err}");
}

#[test]
fn import_refuses_a_bundle_over_the_caps_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("alice.parquet");
    std::fs::write(&file, body(20)).unwrap();
    let team = tmp.path().join("team");
    let o = cw(None, &team, &["import", "--max-bundle-rows", "5", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{}: the bundle would expand to 21 rows, over the limit of 5", file.display())),
        "{err}"
    );
    assert!(!team.join("requests.parquet").exists(), "nothing was imported");
    let o = cw(None, &team, &["import", "--max-bundle-bytes", "1000", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("bytes after decompression, over the limit of 1000"));
    assert!(ok(&cw(None, &team, &["import", file.to_str().unwrap()])).contains("20 new"));
}

/// Peak resident memory of this process (VmHWM), in MiB.
fn peak_mib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: u64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0);
    kb / 1024
}

#[tokio::test]
#[ignore = "builds a 4M-row bundle (a minute in a debug build): cargo test --test bundle_limits bomb -- --ignored --nocapture"]
async fn four_million_row_bomb_is_refused_at_once_with_the_default_caps() {
    let bomb = tokio::task::spawn_blocking(|| row_bomb(4_000_000)).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let st = state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES);
    let before = peak_mib();
    let started = std::time::Instant::now();
    let (status, v) = post(st, bomb.clone()).await;
    let took = started.elapsed();
    eprintln!(
        "bomb: {} KB, 4,000,000 rows: {status} in {took:?}; peak RSS {before} -> {} MiB: {v}",
        bomb.len() / 1024,
        peak_mib()
    );
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(v["error"].as_str().unwrap().contains("4000000 rows, over the limit of 1000000"), "{v}");
    assert!(took < std::time::Duration::from_secs(2), "{took:?}");
    assert!(snapshot(tmp.path()).is_empty());
}

#[tokio::test]
async fn a_shared_string_bomb_is_refused_and_the_server_answers_the_next_push() {
    let bomb = tokio::task::spawn_blocking(|| shared_string_bomb(4_000)).await.unwrap();
    assert!(bomb.len() < 8 << 20, "the file is small: {} bytes", bomb.len());
    let tmp = tempfile::tempdir().unwrap();
    let st = state(tmp.path(), &["alice"], DEFAULT_MAX_BYTES);
    let before = peak_mib();
    let (status, v) = post(st.clone(), bomb.clone()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert!(v.to_string().contains("bytes (at most"), "{v}");
    assert!(peak_mib() < before + 512, "refused before any value was built per row");
    let (status, v) = post(st, body(3)).await;
    assert_eq!(status, StatusCode::OK, "a good push after the bomb: {v}");
    let err = read_bundle_limited(&bomb, "bomb.parquet", &BundleLimits::default()).unwrap_err();
    assert!(matches!(err, TeamError::Damaged { .. }), "{err}");
}

/// A bundle of one-row row groups has a footer of megabytes that would
/// take seconds and most of a gigabyte to parse (an 84 MB one took 12 s and
/// 736 MB): a footer over `MAX_FOOTER` is refused before it is parsed.
#[test]
fn a_bundle_whose_footer_is_megabytes_is_refused_before_it_is_parsed() {
    use cachewise::team::limits::MAX_FOOTER;
    use polars::prelude::*;
    let df = ParquetReader::new(std::io::Cursor::new(body(1))).finish().unwrap();
    let mut rows = df.slice(0, 1).new_from_index(0, 2_400);
    let meta = KeyValueMetadata::from_static(vec![("cachewise.bundle_schema".to_owned(), "1".to_owned())]);
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_key_value_metadata(Some(meta))
        .with_row_group_size(Some(1))
        .finish(&mut rows)
        .unwrap();
    let n = bytes.len();
    let footer = u64::from(u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()));
    assert!(footer > MAX_FOOTER, "the footer is {footer} bytes");
    let started = std::time::Instant::now();
    let err = read_bundle_limited(&bytes, "many-groups.parquet", &BundleLimits::default()).unwrap_err();
    assert!(err.to_string().contains("bytes of Parquet footer"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_millis(100), "{:?}", started.elapsed());
}
