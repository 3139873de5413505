//! Cache model v2 at ingest: boundary lines (`compact_boundary` with its
//! trigger written or defaulted, old `isCompactSummary` roots,
//! `microcompact_boundary` with its sizes) are stored with their uuid,
//! kept once per session (a rewritten file replaces its rows), never with content;
//! and a store of the previous layout is upgraded on the next ingest
//! without losing the rows of deleted transcripts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cachewise::ingest::Silent;
use cachewise::model::{Boundary, Compaction};
use cachewise::pricing::PriceTable;
use cachewise::store::{frames, Store, Table};
use cachewise::update::ingest;
use common::*;
use polars::prelude::*;
use std::fs;
use std::path::Path;

fn run(root: &Path, data: &Path) -> cachewise::ingest::Outcome {
    ingest(
        &[root.to_path_buf()],
        &Store::open(data).unwrap(),
        &PriceTable::load(None).unwrap(),
        &Silent,
        chrono::Utc::now(),
    )
    .unwrap()
}

fn ts(minutes: i64) -> String {
    (t0() + chrono::Duration::minutes(minutes)).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn microcompact_line(session: &str, minutes: i64) -> String {
    format!(
        r#"{{"parentUuid":"p1","type":"system","subtype":"microcompact_boundary","content":"{SECRET}","sessionId":"{session}","timestamp":"{}","uuid":"mc-{minutes}","microcompactMetadata":{{"trigger":"auto","preTokens":120000,"tokensSaved":30500,"compactedToolIds":["{SECRET}"]}}}}"#,
        ts(minutes)
    )
}

fn boundaries(root: &Path) {
    let r = Resp::new("s1", 1, 1);
    let mut s1 = r.to_lines();
    s1.push(format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","sessionId":"s1","timestamp":"{}","uuid":"cb-m","compactMetadata":{{"trigger":"manual","preTokens":90000}}}}"#,
        ts(10)
    ));
    s1.push(format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","sessionId":"s1","timestamp":"{}","uuid":"cb-none"}}"#,
        ts(20)
    ));
    s1.push(format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","sessionId":"s1","timestamp":"{}","uuid":"cb-r","compactMetadata":{{"trigger":"reactive","preTokens":"n/a"}}}}"#,
        ts(25)
    ));
    s1.push(microcompact_line("s1", 30));
    s1.push(format!(
        r#"{{"parentUuid":null,"isCompactSummary":true,"type":"user","sessionId":"s1","timestamp":"{}","uuid":"old","message":{{"content":"{SECRET}"}}}}"#,
        ts(40)
    ));
    write(root, "-home-u-app/s1.jsonl", &s1);
    // A resumed copy replays the microcompact line into another file.
    write(root, "-home-u-app/s1-resumed.jsonl", &[microcompact_line("s1", 30)]);
}

/// (uuid, trigger, written, boundary, pre_tokens, tokens_saved) of a stored row.
type Seen<'a> = (&'a str, &'a str, bool, Boundary, Option<u64>, Option<u64>);

fn stored(data: &Path) -> Vec<Compaction> {
    let store = Store::open(data).unwrap();
    frames::compactions_from(&store.read(Table::Compactions).unwrap().unwrap()).unwrap()
}

#[test]
fn boundary_lines_keep_trigger_uuid_and_sizes_once_and_no_content() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    boundaries(root.path());
    run(root.path(), data.path());
    let rows = stored(data.path());
    let got: Vec<Seen<'_>> = rows
        .iter()
        .map(|c| (c.uuid.as_str(), c.trigger.as_str(), c.trigger_written, c.boundary, c.pre_tokens, c.tokens_saved))
        .collect();
    assert_eq!(
        got,
        [
            ("cb-m", "manual", true, Boundary::Compact, Some(90_000), None),
            ("cb-none", "auto", false, Boundary::Compact, None, None),
            ("cb-r", "reactive", true, Boundary::Compact, None, None),
            ("mc-30", "auto", true, Boundary::Microcompact, Some(120_000), Some(30_500)),
            ("old", "auto", false, Boundary::Compact, None, None),
            // The resumed file is another session: its copy is its own row,
            // and `compactions_by_trigger` counts the uuid once.
            ("mc-30", "auto", true, Boundary::Microcompact, Some(120_000), Some(30_500)),
        ]
    );
    for f in fs::read_dir(data.path()).unwrap() {
        let bytes = fs::read(f.unwrap().path()).unwrap();
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "content reached the store");
    }
}

/// The compactions table as the previous store layout (schema 3) wrote it.
fn old_layout(rows: &[(&str, i64, &str, &str)]) -> DataFrame {
    let ms: Vec<i64> = rows.iter().map(|r| (t0() + chrono::Duration::minutes(r.1)).timestamp_millis()).collect();
    let time = Int64Chunked::from_vec("time".into(), ms).into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC));
    DataFrame::new(
        rows.len(),
        vec![
            Column::new("session_id".into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()),
            time.into_column(),
            Column::new("trigger".into(), rows.iter().map(|r| r.2).collect::<Vec<_>>()),
            Column::new("pre_tokens".into(), vec![None::<u64>; rows.len()]),
            Column::new("source".into(), rows.iter().map(|r| r.3).collect::<Vec<_>>()),
        ],
    )
    .unwrap()
}

#[test]
fn a_store_of_the_previous_layout_is_upgraded_without_losing_deleted_transcripts() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    boundaries(root.path());
    let gone = Resp::new("s9", 2, 5);
    write(root.path(), "-home-u-app/s9.jsonl", &gone.to_lines());
    run(root.path(), data.path());
    let requests_before = Store::open(data.path()).unwrap().read(Table::Requests).unwrap().unwrap().height();
    // As schema 3 left it: no microcompacts, no uuids, "unknown" for a
    // defaulted trigger, and a compaction of a transcript since deleted.
    let manifest = data.path().join("manifest.json");
    let text = fs::read_to_string(&manifest).unwrap();
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    fs::write(&manifest, text.replacen(&current, "\"schema\":3", 1)).unwrap();
    let s1 = root.path().join("projects/-home-u-app/s1.jsonl").to_string_lossy().into_owned();
    let s9 = root.path().join("projects/-home-u-app/s9.jsonl").to_string_lossy().into_owned();
    let mut df = old_layout(&[("s1", 10, "manual", &s1), ("s9", 6, "unknown", &s9)]);
    ParquetWriter::new(fs::File::create(data.path().join("compactions.parquet")).unwrap()).finish(&mut df).unwrap();
    fs::remove_file(&s9).unwrap();
    assert!(run(root.path(), data.path()).changed);
    let rows = stored(data.path());
    assert_eq!(rows.len(), 7, "{rows:?}");
    assert_eq!(rows.iter().filter(|c| c.boundary == Boundary::Microcompact).count(), 2, "re-read");
    let kept = rows.iter().find(|c| c.session_id == "s9").unwrap();
    assert_eq!((kept.trigger.as_str(), kept.trigger_written, kept.uuid.as_str()), ("auto", false, ""));
    let after = Store::open(data.path()).unwrap().read(Table::Requests).unwrap().unwrap().height();
    assert_eq!(after, requests_before, "s9's request outlives its file");
    assert!(fs::read_to_string(&manifest).unwrap().contains(&current));
}

#[test]
fn a_trigger_with_control_characters_is_stored_without_them() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let line = format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","sessionId":"s1","timestamp":"{}","uuid":"cb\u001b[2J","compactMetadata":{{"trigger":"\u001b]0;pwned\u0007auto{}"}}}}"#,
        ts(5),
        "x".repeat(100)
    );
    write(root.path(), "-p/s1.jsonl", &[line]);
    run(root.path(), data.path());
    let rows = stored(data.path());
    assert_eq!(rows[0].uuid, "cb[2J");
    assert_eq!(rows[0].trigger, format!("]0;pwnedauto{}", "x".repeat(52)), "64 characters, none a control");
}
