//! An old inline sub-agent's thread does not depend on where an append
//! boundary fell: ingesting a session file in
//! two parts, cut at any line, names every thread as one cold read does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::update::ingest;
use common::reference::CacheData;
use common::{append, write};
use std::collections::BTreeMap;
use std::path::Path;

/// Main thread, then a sub-agent chain root -> a1 -> tool result -> a2, with a
/// main-thread request in between.
fn lines() -> Vec<String> {
    let spec: [(&str, &str, bool, Option<&str>); 6] = [
        ("m-0001", "null", false, Some("m1")),
        ("root-aaa", "null", true, None),
        ("a-000001", "\"root-aaa\"", true, Some("a1")),
        ("m-0002", "\"m-0001\"", false, Some("m2")),
        ("a-000002", "\"a-000001\"", true, None),
        ("a-000003", "\"a-000002\"", true, Some("a2")),
    ];
    spec.iter()
        .enumerate()
        .map(|(i, (uuid, parent, side, msg))| {
            let head = format!(
                r#"{{"parentUuid":{parent},"isSidechain":{side},"sessionId":"s","uuid":"{uuid}","timestamp":"2026-02-11T20:00:0{i}Z","#
            );
            match msg {
                None => format!(r#"{head}"type":"user","message":{{"role":"user","content":"x"}}}}"#),
                Some(m) => format!(
                    r#"{head}"type":"assistant","requestId":"r{m}","message":{{"id":"{m}","model":"claude-sonnet-4-5","usage":{{"input_tokens":1,"output_tokens":2}}}}}}"#
                ),
            }
        })
        .collect()
}

fn threads(root: &Path, data: &Path) -> BTreeMap<String, String> {
    let (store, prices) = (Store::open(data).unwrap(), PriceTable::load(None).unwrap());
    ingest(&[root.to_path_buf()], &store, &prices, &Silent, chrono::Utc::now()).unwrap();
    let d = CacheData::load(&store, &prices);
    d.requests.iter().map(|r| (r.message_id.clone(), r.thread.to_string())).collect()
}

#[test]
fn sidechain_thread_independent_of_appends() {
    let all = lines();
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-p/s.jsonl", &all);
    let cold = threads(root.path(), data.path());
    assert_eq!(cold["a2"], "sc-root-aaa");
    assert_eq!(cold["m2"], "main");
    for cut in 1..all.len() {
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let path = write(root.path(), "-p/s.jsonl", &all[..cut]);
        threads(root.path(), data.path());
        append(&path, &(all[cut..].join("\n") + "\n"));
        assert_eq!(threads(root.path(), data.path()), cold, "appended after line {cut}");
    }
}
