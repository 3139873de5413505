//! The cache model walks a response's API calls (cache-model v2 §1): a
//! response made of a message call, an advisor call and a message call is
//! two thread requests, so the next request, which grows the last call's
//! prompt, is a hit in `cache --json` and in the team report alike (summed,
//! the calls would make it look like a context edit); and the team report's
//! model mix splits the response by call model, as `report model` does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cachewise;
use serde_json::{json, Value};

fn call(kind: &str, model: &str, t: [u64; 4]) -> Value {
    json!({"type": kind, "model": model, "input_tokens": t[0], "cache_creation_input_tokens": t[1],
        "cache_read_input_tokens": t[2], "output_tokens": t[3],
        "cache_creation": {"ephemeral_5m_input_tokens": t[1], "ephemeral_1h_input_tokens": 0}})
}

fn line(n: u32, minute: u32, t: [u64; 4], calls: Option<Vec<Value>>) -> String {
    let mut usage = json!({"input_tokens": t[0], "cache_creation_input_tokens": t[1],
        "cache_read_input_tokens": t[2], "output_tokens": t[3],
        "cache_creation": {"ephemeral_5m_input_tokens": t[1], "ephemeral_1h_input_tokens": 0}});
    if let Some(c) = calls {
        usage["iterations"] = Value::Array(c);
    }
    json!({"type": "assistant", "sessionId": "s1", "cwd": "/p", "version": "2.1.200",
        "timestamp": format!("2026-05-01T12:{minute:02}:00.000Z"), "requestId": format!("req_{n}"),
        "uuid": format!("u{n}"), "message": {"id": format!("msg_{n}"), "model": "claude-opus-4-8",
        "role": "assistant", "content": [], "usage": usage}})
    .to_string()
}

fn json_of(o: &std::process::Output) -> Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_request_after_a_response_of_calls_is_a_hit_in_cache_and_team_reports() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let opus = "claude-opus-4-8";
    let calls = vec![
        call("message", opus, [2, 3176, 41_001, 300]),
        call("advisor_message", "claude-fable-5", [149_112, 0, 0, 14_153]),
        call("message", opus, [1, 931, 44_179, 200]),
    ];
    let lines = [
        line(0, 0, [1, 1000, 40_000, 100], None),
        // The top-level usage as the parser sums it: all three calls.
        line(1, 1, [149_115, 4107, 85_180, 14_653], Some(calls)),
        // Reads the last call's whole prompt (45,111) and grows it to 60,000.
        line(2, 2, [1, 14_888, 45_111, 50], None),
    ];
    common::write(root.path(), "-p/s1.jsonl", &lines);
    let cache = json_of(&cachewise(root.path(), data.path(), &["cache", "--json", "--now", "2026-05-01T13:00:00Z"]));
    let count = |class: &str| cache["classes"][class]["count"].as_u64().unwrap();
    // first (request 0), then three hits: the two message calls and request 2.
    assert_eq!((count("first"), count("hit"), count("context_edit")), (1, 3, 0), "{cache}");
    assert_eq!(cache["rewinds"], 0);
    let team = json_of(&cachewise(root.path(), data.path(), &["--no-ingest", "report", "team", "--json"]));
    assert_eq!(team["total"]["edit_cost_usd"].as_f64().unwrap(), 0.0, "{team}");
    assert_eq!(team["rows"][0]["edit_cost_usd"].as_f64().unwrap(), 0.0);
    // The tokens stay the requests' own, advisor call included.
    assert_eq!(team["total"]["input_tokens"], 1 + 149_115 + 1);
    // The model mix splits the response by call, as `report model` does: the
    // advisor's Fable 5 call (149112*10 + 14153*50 = $2.19877) under Fable
    // with no request of its own, the rest under Opus 4.8 with all three.
    let models = team["rows"][0]["models"].as_array().unwrap();
    let share = |m: &str| models.iter().find(|x| x["model"] == m).unwrap().clone();
    let (fable, opus) = (share("claude-fable-5"), share("claude-opus-4-8"));
    assert!((fable["cost_usd"].as_f64().unwrap() - 2.19877).abs() < 1e-9, "{fable}");
    assert_eq!((fable["requests"].as_u64(), opus["requests"].as_u64()), (Some(0), Some(3)));
    let by_model: f64 = models.iter().map(|m| m["cost_usd"].as_f64().unwrap()).sum();
    let total = team["total"]["cost_usd"].as_f64().unwrap();
    assert!((by_model - total).abs() < 1e-9, "{by_model} vs {total}");
    let report_model = json_of(&cachewise(root.path(), data.path(), &["--no-ingest", "report", "model", "--json"]));
    let fable_row = report_model["rows"].as_array().unwrap().iter().find(|r| r["model"] == "claude-fable-5").unwrap();
    assert!((fable_row["cost_usd"].as_f64().unwrap() - 2.19877).abs() < 1e-9);
}
