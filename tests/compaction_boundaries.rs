//! Cache model v2 at ingest: boundary lines (`compact_boundary` with its
//! trigger written or defaulted, old `isCompactSummary` roots,
//! `microcompact_boundary` with its sizes) are stored with their uuid,
//! kept once per session (a rewritten file replaces its rows), never with content;
//! and a store of the previous layout is upgraded on the next ingest
//! without losing the rows of deleted transcripts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

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

/// A 2.1.33x turn: the `api-request` line, then its reply pointing back.
fn recorded_turn(n: u64, minutes: i64, shape: &str) -> [String; 2] {
    let call = format!(
        r#"{{"type":"api-request","sessionId":"s1","id":"call-{n}","timestamp":"{}","querySource":"repl_main_thread","shapeHash":"{shape}"}}"#,
        ts(minutes)
    );
    let reply = format!(
        r#"{{"type":"assistant","sessionId":"s1","requestRef":"call-{n}","promptCacheRequested":"1h","timestamp":"{}","version":"2.1.332","message":{{"id":"msg_{n}","model":"claude-sonnet-4-5-20250929","usage":{{"input_tokens":3,"cache_creation_input_tokens":20000,"cache_creation":{{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":20000}},"cache_read_input_tokens":0,"output_tokens":10}}}},"requestId":"req_{n}"}}"#,
        ts(minutes)
    );
    [call, reply]
}

fn client_records(data: &Path) -> Vec<(String, String, String)> {
    let df = Store::open(data).unwrap().read(Table::Requests).unwrap().unwrap();
    let mut rows: Vec<_> = frames::requests_from(&df)
        .unwrap()
        .into_iter()
        .map(|r| (r.client.query_source.to_string(), r.client.shape_hash.to_string(), r.client.ttl_asked.to_string()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_store_of_layout_5_is_upgraded_with_claude_codes_records_of_its_calls() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lines: Vec<String> = recorded_turn(1, 0, "aa").into_iter().chain(recorded_turn(2, 2, "bb")).collect();
    write(root.path(), "-home-u-app/s1.jsonl", &lines);
    // An older version's transcript, which the upgrade does not read again.
    write(root.path(), "-home-u-app/s2.jsonl", &Resp::new("s2", 1, 5).to_lines());
    run(root.path(), data.path());
    let recorded = |shape: &str| ("repl_main_thread".to_owned(), shape.to_owned(), "1h".to_owned());
    let none = (String::new(), String::new(), String::new());
    assert_eq!(client_records(data.path()), [none.clone(), recorded("aa"), recorded("bb")]);
    // As layout 5 left it: the requests table without the three columns.
    let store = Store::open(data.path()).unwrap();
    let mut old = store.read(Table::Requests).unwrap().unwrap().drop_many(["query_source", "shape_hash", "ttl_asked"]);
    store.begin().unwrap().write_requests_base(&mut old).unwrap();
    let manifest = data.path().join("manifest.json");
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, text.replacen(&current, "\"schema\":5", 1)).unwrap();
    assert!(run(root.path(), data.path()).changed);
    assert_eq!(client_records(data.path()), [none, recorded("aa"), recorded("bb")], "s1 read again");
    assert!(fs::read_to_string(&manifest).unwrap().contains(&current));
}

#[test]
fn report_source_splits_the_spend_by_what_made_each_call() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut lines: Vec<String> = recorded_turn(1, 0, "aa").into_iter().chain(recorded_turn(2, 2, "aa")).collect();
    lines[2] = lines[2].replace("repl_main_thread", "compact");
    lines.extend(Resp::new("s1", 3, 4).to_lines());
    write(root.path(), "-home-u-app/s1.jsonl", &lines);
    let out = cachewise(root.path(), data.path(), &["report", "source", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: Vec<(String, u64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["source"].as_str().unwrap().to_owned(), r["requests"].as_u64().unwrap()))
        .collect();
    got.sort();
    let want = [("(not recorded)", 1), ("compact", 1), ("repl_main_thread", 1)];
    assert_eq!(got, want.map(|(s, n)| (s.to_owned(), n)));
    let daily: serde_json::Value =
        serde_json::from_slice(&cachewise(root.path(), data.path(), &["report", "daily", "--json"]).stdout).unwrap();
    assert_eq!(v["total"], daily["total"], "the same spend, split");
    let text = cachewise(root.path(), data.path(), &["report", "source"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("Made by"));
}

#[test]
fn cache_names_the_claude_code_version_whose_cache_broke() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // 2.1.332: the second call's system prompt or tools changed (a new
    // shape, nothing read): a miss within the TTL, named exactly.
    let lines: Vec<String> = recorded_turn(1, 60, "aa").into_iter().chain(recorded_turn(2, 62, "bb")).collect();
    write(root.path(), "-home-u-app/s1.jsonl", &lines);
    write(root.path(), "-home-u-app/s2.jsonl", &Resp::new("s2", 1, 0).to_lines());
    let out = cachewise(root.path(), data.path(), &["cache", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["classes"]["shape_change"]["count"], 1);
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{versions:?}");
    let newest = &versions[1];
    assert_eq!((newest["version"].as_str(), newest["requests"].as_u64()), (Some("2.1.332"), Some(2)));
    assert_eq!((newest["misses_within_ttl"].as_u64(), newest["misses_per_100"].as_f64()), (Some(1), Some(50.0)));
    assert_eq!(newest["by_cause"]["shape_change"]["misses"], 1);
    let cause_usd = newest["by_cause"]["shape_change"]["miss_cost_usd"].as_f64().unwrap();
    assert!((cause_usd - v["classes"]["shape_change"]["miss_cost_usd"].as_f64().unwrap()).abs() < 1e-12);
    assert_eq!(newest["flagged"], false, "two requests are too few to compare");
    let miss = v["classes"]["shape_change"]["miss_cost_usd"].as_f64().unwrap();
    assert!(miss > 0.0 && (newest["misses_within_ttl_usd"].as_f64().unwrap() - miss).abs() < 1e-12);
    assert_eq!(versions[0]["misses_within_ttl"], 0);
    // Every request in one context band: all three prompts are under 100k.
    let bands = v["context"]["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 4);
    assert_eq!((bands[0]["band"].as_str(), bands[0]["requests"].as_u64()), (Some("under 100k"), Some(3)));
    assert_eq!(bands[0]["share"].as_f64(), Some(1.0));
    let text = String::from_utf8(cachewise(root.path(), data.path(), &["cache"]).stdout).unwrap();
    assert!(text.contains("By Claude Code version") && text.contains("2.1.332"), "{text}");
}

#[test]
fn a_reply_read_by_a_later_ingest_than_its_call_keeps_claude_codes_record() {
    // The status line ingests while a call is in flight: the `api-request`
    // line is read by one ingest, the reply by the next.
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let [call, reply] = recorded_turn(1, 0, "aa");
    let path = write(root.path(), "-home-u-app/s1.jsonl", &[call]);
    run(root.path(), data.path());
    append(&path, &format!("{reply}\n"));
    run(root.path(), data.path());
    let recorded = ("repl_main_thread".to_owned(), "aa".to_owned(), "1h".to_owned());
    assert_eq!(client_records(data.path()), [recorded]);
}

#[test]
fn a_long_conversation_is_told_which_compaction_window_would_have_cost_less() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Prompts of 300k to 700k tokens on a 1M window, read from cache; no
    // compaction in the history, so one costs reading the prompt and
    // writing a 25k summary.
    let lines: Vec<String> = (3..=7u64)
        .flat_map(|n| {
            let mut r = Resp::new("big", n, n as i64);
            (r.model, r.read, r.w5) = ("claude-opus-4-7".into(), n * 100_000, 1_000);
            r.to_lines()
        })
        .collect();
    write(root.path(), "-home-u-app/big.jsonl", &lines);
    let now = "2026-02-11T20:10:00Z";
    let out = cachewise(root.path(), data.path(), &["cache", "--json", "--now", now]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let windows = v["context"]["windows"].as_array().unwrap();
    let at = |tokens: u64| windows.iter().find(|w| w["window_tokens"] == tokens && w["default"] == false).unwrap();
    // At 400k: one compaction after the 401,007-token turn leaves 25k, so
    // each of the last three requests reads 376,007 fewer ($0.50 per million).
    let (read, summary) = (0.5e-6, 25_000.0 * 6.25e-6);
    let saving = (3.0 * 376_007.0 - 401_007.0) * read - summary;
    assert_eq!(at(400_000)["compactions"], 1);
    assert!((at(400_000)["saving_usd"].as_f64().unwrap() - saving).abs() < 1e-9, "{windows:?}");
    // At 600k: one after the 601,009-token turn; the last reads 576,009 fewer.
    let saving_600k = (576_009.0 - 601_009.0) * read - summary;
    assert!((at(600_000)["saving_usd"].as_f64().unwrap() - saving_600k).abs() < 1e-9);
    let default = windows.iter().find(|w| w["default"] == true).unwrap();
    assert_eq!((default["compactions"].as_u64(), default["saving_usd"].as_f64()), (Some(0), Some(0.0)));
    let bands = v["context"]["bands"].as_array().unwrap();
    assert_eq!(bands.iter().map(|b| b["requests"].as_u64().unwrap()).collect::<Vec<_>>(), [0, 0, 1, 4]);
    let text = String::from_utf8(cachewise(root.path(), data.path(), &["cache", "--now", now]).stdout).unwrap();
    assert!(text.contains("Compacting at 400k tokens would have cost $0.21 less, with 1 more compaction."), "{text}");
    // The live session is past 400k: compact now, with that evidence, and
    // with the turns after which compacting this session pays off.
    let advice =
        String::from_utf8(cachewise(root.path(), data.path(), &["advise", "big", "--now", now]).stdout).unwrap();
    let offer = "If you will go on for 16 turns or more, compact now: the prompt is 701k tokens, past 400k, and \
                 over your history compacting at 400k would have cost $0.21 less (with 1 more compaction).";
    assert!(advice.contains(offer), "{advice}");
    let json = cachewise(root.path(), data.path(), &["advise", "big", "--json", "--now", now]).stdout;
    let advice: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(advice["compact_now"]["window_tokens"], 400_000);
}
