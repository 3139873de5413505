//! Lines of responses made of several API calls (`usage.iterations`), in
//! the three shapes of transcripts-and-pricing §2.4, with hand-computed
//! costs (Opus 4.8: $5 in / $25 out; Fable 5: $10 / $50; 5m write 1.25x,
//! 1h write 2x, read 0.1x).

use cachewise::ingest::{Outcome, Silent};
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::{usage, UsageReport};
use cachewise::store::Store;
use cachewise::update::ingest;
use serde_json::{json, Value};
use std::path::Path;

pub(super) const OPUS: &str = "claude-opus-4-8";
pub(super) const FABLE: &str = "claude-fable-5";

pub(super) fn prices() -> PriceTable {
    PriceTable::load(None).unwrap()
}

pub(super) fn run(root: &Path, data: &Path) -> Outcome {
    ingest(&[root.to_path_buf()], &Store::open(data).unwrap(), &prices(), &Silent, chrono::Utc::now()).unwrap()
}

pub(super) fn report(data: &Path, g: Grouping, breakdown: bool) -> UsageReport {
    let mut q = Query::new(chrono_tz::UTC);
    q.breakdown = breakdown;
    usage(&crate::common::view(&Store::open(data).unwrap(), &prices(), crate::common::t0()), g, &q).unwrap()
}

/// One call's usage: `[input, 5m write, 1h write, read, output]`; `split`
/// false leaves out the 5m/1h split (all of the write counts as 5m).
pub(super) fn calls_usage(t: [u64; 5], split: bool) -> Value {
    let mut u = json!({"input_tokens": t[0], "cache_creation_input_tokens": t[1] + t[2],
        "cache_read_input_tokens": t[3], "output_tokens": t[4]});
    if split {
        u["cache_creation"] = json!({"ephemeral_5m_input_tokens": t[1], "ephemeral_1h_input_tokens": t[2]});
    }
    u
}

/// A call of `kind` on `model` (none: the message's).
pub(super) fn call(kind: &str, model: Option<&str>, t: [u64; 5]) -> Value {
    let mut c = calls_usage(t, true);
    c["type"] = json!(kind);
    if let Some(m) = model {
        c["model"] = json!(m);
    }
    c
}

/// An assistant line of session `s` at minute `min`: top-level usage `top`
/// (given as a JSON usage object) and the `calls`.
pub(super) fn line(s: &str, n: u32, min: u32, model: &str, top: Value, calls: Vec<Value>) -> String {
    line_at("2026-05-01", s, n, min, model, top, calls)
}

/// `line` on another day (`YYYY-MM-DD`).
pub(super) fn line_at(day: &str, s: &str, n: u32, min: u32, model: &str, top: Value, calls: Vec<Value>) -> String {
    let mut usage = top;
    usage["iterations"] = Value::Array(calls);
    json!({"type": "assistant", "sessionId": s, "cwd": "/home/u/app", "version": "2.1.200",
        "timestamp": format!("{day}T12:{min:02}:00.000Z"), "requestId": format!("req_{s}_{n}"),
        "uuid": format!("u_{s}_{n}"),
        "message": {"id": format!("msg_{s}_{n}"), "model": model, "role": "assistant",
            "content": [{"type": "text", "text": "secret words"}], "usage": usage}})
    .to_string()
}

/// Shape 1: `message`, `advisor_message` (Fable), `message`; the top-level
/// usage is the two messages only.
/// Calls: 3*5 + 1000*6.25 + 40000*0.5 + 200*25 = 0.031265 (per million),
/// 149112*10 + 14153*50 = 2.19877, 1*5 + 41000*0.5 + 300*25 = 0.028005;
/// total $2.25804 (the top-level usage alone: $0.05927).
pub(super) fn advisor(s: &str, n: u32, min: u32) -> String {
    let calls = vec![
        call("message", None, [3, 1000, 0, 40_000, 200]),
        call("advisor_message", Some(FABLE), [149_112, 0, 0, 0, 14_153]),
        call("message", Some(OPUS), [1, 0, 0, 41_000, 300]),
    ];
    line(s, n, min, OPUS, calls_usage([4, 1000, 0, 81_000, 500], true), calls)
}
pub(super) const ADVISOR_COST: f64 = 2.25804;
pub(super) const ADVISOR_CALL_COST: f64 = 2.19877;

/// Shape 2: a refused `message` on Fable, then a `fallback_message` on
/// Opus; the top-level usage and `message.model` are the fallback's.
/// Refused: 3*10 + 21874*20 + 32238*1 + 12*50 = 0.470348; fallback:
/// 5*5 + 54112*0.5 + 800*25 = 0.047081; total $0.517429.
pub(super) fn refusal(s: &str, n: u32, min: u32) -> String {
    let fallback = [5, 0, 0, 54_112, 800];
    let calls =
        vec![call("message", Some(FABLE), [3, 0, 21_874, 32_238, 12]), call("fallback_message", Some(OPUS), fallback)];
    line(s, n, min, OPUS, calls_usage(fallback, true), calls)
}
pub(super) const REFUSED_COST: f64 = 0.470348;
pub(super) const FALLBACK_COST: f64 = 0.047081;

/// Shape 3: two `message` calls whose writes are 3,176 5m and 931 1h, with a
/// short top-level split (1h 931 + 5m 0 for a total of 4,107).
/// Calls: 2*5 + 3176*6.25 + 40000*0.5 + 100*25 = 0.04236 and
/// 1*5 + 931*10 + 43176*0.5 + 250*25 = 0.037153; total $0.079513.
pub(super) fn short_split(s: &str, n: u32, min: u32) -> String {
    let calls = vec![call("message", None, [2, 3176, 0, 40_000, 100]), call("message", None, [1, 0, 931, 43_176, 250])];
    let mut top = calls_usage([3, 0, 931, 83_176, 350], true);
    top["cache_creation_input_tokens"] = json!(4107);
    line(s, n, min, OPUS, top, calls)
}
pub(super) const SHORT_SPLIT_COST: f64 = 0.079513;

/// Shape 4: one `message` call equal to the top-level usage.
/// 3*5 + 1000*6.25 + 40000*0.5 + 200*25 = $0.031265.
pub(super) fn single(s: &str, n: u32, min: u32) -> String {
    let t = [3, 1000, 0, 40_000, 200];
    line(s, n, min, OPUS, calls_usage(t, true), vec![call("message", None, t)])
}
pub(super) const SINGLE_COST: f64 = 0.031265;

#[track_caller]
pub(super) fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
}

/// The `system` line that accompanies a refusal fallback.
pub(super) fn refusal_line(s: &str, min: u32) -> String {
    json!({"type": "system", "subtype": "model_refusal_fallback", "sessionId": s,
        "timestamp": format!("2026-05-01T12:{min:02}:00.000Z"), "uuid": format!("sys_{s}_{min}"),
        "content": "secret words", "originalModel": FABLE, "fallbackModel": OPUS, "trigger": "refusal",
        "level": "info"})
    .to_string()
}
