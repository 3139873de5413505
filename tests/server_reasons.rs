//! The server's own miss reasons (cache-model section 19), on
//! transcripts of the documented shape: a reason on a miss after a tool
//! change, on an expired resume, on a model switch, one on a hit, and an
//! unknown type (kept as written, bounded and plain); read at ingest,
//! stored per request, counted per class in `cache --json` with their
//! agreement, named in words beside each miss, and carried by team bundles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{cachewise, cachewise_in, write, Resp};
use serde_json::{json, Value};
use std::path::Path;

/// `r`'s lines, each carrying the server's reason `reason` (JSON object).
fn with_reason(r: &Resp, reason: &Value) -> Vec<String> {
    let diag = format!(r#""diagnostics":{{"cache_miss_reason":{reason}}},"usage":{{"#);
    r.to_lines().into_iter().map(|l| l.replacen(r#""usage":{"#, &diag, 1)).collect()
}

fn resp(n: u64, minutes: i64, read: u64, write: u64) -> Resp {
    Resp { input: 3, read, w5: write, ..Resp::new("s1", n, minutes) }
}

/// One session: first, a hit (with a reason), a tool change, an expired
/// resume, a model switch and a miss with an unknown reason type.
fn tree(root: &Path) {
    let mut lines = resp(1, 0, 0, 20_000).to_lines();
    lines.extend(with_reason(
        &resp(2, 1, 20_003, 500),
        &json!({"type": "messages_changed", "cache_missed_input_tokens": 12}),
    ));
    lines.extend(with_reason(
        &resp(3, 2, 5_000, 15_600),
        &json!({"type": "tools_changed", "cache_missed_input_tokens": 15_506}),
    ));
    lines.extend(with_reason(&resp(4, 122, 0, 20_700), &json!({"type": "previous_message_not_found"})));
    let switch = Resp { model: "claude-opus-4-5-20251101".into(), ..resp(5, 123, 0, 20_800) };
    lines.extend(with_reason(&switch, &json!({"type": "model_changed", "cache_missed_input_tokens": 20_703})));
    let unknown = Resp { model: "claude-opus-4-5-20251101".into(), ..resp(6, 183, 0, 20_900) };
    lines.extend(with_reason(&unknown, &json!({"type": "beta_flag_changed\u{1b}[31m<b>"})));
    write(root, "-home-u-app/s1.jsonl", &lines);
}

fn json_of(out: std::process::Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check_reasons(v: &Value) {
    let s = &v["server_reasons"];
    let tally = |carrying, by_type, agree, disagree| json!({"carrying": carrying, "by_type": by_type, "agree": agree, "disagree": disagree});
    assert_eq!(s["hit"], tally(1, json!({"messages_changed": 1}), 0, 1), "{s}");
    assert_eq!(s["context_edit"], tally(1, json!({"tools_changed": 1}), 1, 0), "{s}");
    assert_eq!(s["model_switch"], tally(1, json!({"model_changed": 1}), 1, 0), "{s}");
    assert_eq!(
        s["ttl_5m"],
        tally(2, json!({"previous_message_not_found": 1, "beta_flag_changed31mb": 1}), 1, 0),
        "an unknown type is kept as written, its controls and markup dropped, and counted in neither: {s}"
    );
    assert_eq!(s["first"], tally(0, json!({}), 0, 0), "every class is listed");
    assert_eq!(v["agreement"], json!({"agree": 3, "disagree": 1, "hits_with_reason": 1}));
}

#[test]
fn reasons_are_counted_per_class_with_their_agreement() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    tree(&root);
    let report = json_of(cachewise(&root, &data, &["cache", "--json"]));
    check_reasons(&report);

    let misses = json_of(cachewise(&root, &data, &["cache", "--misses", "--json"]));
    let tool = misses.as_array().unwrap().iter().find(|m| m["class"] == "context_edit").unwrap();
    assert_eq!(
        (tool["server_reason"].as_str(), tool["server_missed_tokens"].as_u64()),
        (Some("tools_changed"), Some(15_506))
    );

    let out = cachewise(&root, &data, &["--no-ingest", "cache", "--misses"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("the tools changed (15,506 tokens)"), "{text}");
    assert!(text.contains("the cached prefix had expired or was evicted"), "{text}");
    let out = cachewise(&root, &data, &["--no-ingest", "cache"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("5 requests carry one; 3 agree with cachewise's cause, 1 disagrees (1 on requests"),
        "{text}"
    );
    // The headline names the days its figures cover.
    let days: Vec<&str> = report["by_day"].as_array().unwrap().iter().map(|d| d["day"].as_str().unwrap()).collect();
    let span = match days.as_slice() {
        [one] => format!(" on {one}"),
        [first, .., last] => format!(", {first} to {last}"),
        [] => unreachable!("the fixture has requests"),
    };
    let head = format!("Prompt cache over {} requests{span}", report["requests"]);
    assert_eq!(text.lines().next(), Some(head.as_str()), "{text}");
}

#[test]
fn team_bundles_carry_the_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data, team) = (tmp.path().join("claude"), tmp.path().join("data"), tmp.path().join("team"));
    tree(&root);
    let bundle = tmp.path().join("alice.parquet");
    let out = cachewise(&root, &data, &["export", "--user", "alice", "--out", bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = cachewise_in(None, &team, &["import", bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    check_reasons(&json_of(cachewise_in(None, &team, &["--no-ingest", "cache", "--json"])));
}

#[test]
fn a_requests_table_without_the_reason_columns_reads_as_carrying_none() {
    use cachewise::model::columns as c;
    use cachewise::store::{frames, Store, Table};
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    tree(&root);
    assert_eq!(cachewise(&root, &data, &["ingest"]).status.code(), Some(0));
    let store = Store::open(&data).unwrap();
    let df = store.read(Table::Requests).unwrap().unwrap();
    let stored = frames::requests_from(&df).unwrap();
    let reasons: Vec<&str> = stored.iter().map(|r| r.server_reason.as_str()).filter(|r| !r.is_empty()).collect();
    assert_eq!(reasons.len(), 5, "{reasons:?}");
    let older = df.drop_many(c::REASON_COLUMNS);
    let read = frames::requests_from(&older).unwrap();
    assert_eq!(read.len(), stored.len());
    assert!(read.iter().all(|r| r.server_reason.is_empty() && r.server_missed_tokens.is_none()));
}

#[test]
fn a_reason_on_a_first_request_and_conflicting_reasons_on_one_response_are_counted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    // A session's first request that carries a reason, then a response
    // whose three lines carry two reasons: the kept line's (the last, the
    // whole output) is the request's, once.
    let mut lines = with_reason(&resp(1, 0, 0, 20_000), &json!({"type": "tools_changed"}));
    let mut second = with_reason(&resp(2, 1, 0, 20_100), &json!({"type": "previous_message_not_found"}));
    let kept = second.len() - 1;
    second[kept] = second[kept].replace("previous_message_not_found", "system_changed");
    lines.extend(second);
    write(&root, "-home-u-app/s1.jsonl", &lines);
    let v = json_of(cachewise(&root, &data, &["cache", "--json"]));
    let s = &v["server_reasons"];
    assert_eq!(s["first"]["by_type"], json!({"tools_changed": 1}), "{s}");
    assert_eq!((s["first"]["agree"].as_u64(), s["first"]["disagree"].as_u64()), (Some(0), Some(1)));
    assert_eq!(s["full_rebuild"]["by_type"], json!({"system_changed": 1}), "{s}");
    assert_eq!(s["full_rebuild"]["agree"], 1);
    assert_eq!(v["agreement"], json!({"agree": 1, "disagree": 1, "hits_with_reason": 0}));
    // The cause a person reads is the server's.
    let out = cachewise(&root, &data, &["--no-ingest", "cache", "--misses"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("the system prompt changed") && !text.contains("expired or was evicted"), "{text}");
}
