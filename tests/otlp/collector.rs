//! The collector side of tests/otlp.rs: the receiver (`receiver.py`)
//! started on 127.0.0.1 and read back, and what the requests it accepted
//! add up to per day, from the log records and from the metric points.

use chrono::DateTime;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub(super) const RECEIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/otlp/receiver.py");

/// True when the receiver can run here (`protobuf`: with the package).
pub(super) fn ready(protobuf: bool) -> bool {
    let required = std::env::var("CACHEWISE_OTLP_PY").is_ok_and(|v| v == "required");
    let mut cmd = Command::new("python3");
    cmd.arg(RECEIVER);
    let out = if protobuf { cmd.arg("--check").output() } else { cmd.arg("--help").output() };
    let why = match out {
        Ok(o) if o.status.success() => return true,
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Err(e) => format!("skip: cannot run python3: {e}"),
    };
    assert!(!required, "CACHEWISE_OTLP_PY=required but {why}");
    println!("{why} (CACHEWISE_OTLP_PY=required makes this fail)");
    false
}

pub(super) struct Receiver {
    child: Child,
    port: u16,
    out: PathBuf,
    _dir: tempfile::TempDir,
}

impl Receiver {
    pub(super) fn start(args: &[&str]) -> Receiver {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("received.jsonl");
        let mut child = Command::new("python3")
            .arg(RECEIVER)
            .arg("--out")
            .arg(&out)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("receiver said {line:?}"));
        Receiver { child, port, out, _dir: dir }
    }

    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request answered, in order.
    pub(super) fn requests(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// The requests answered with a 2xx.
    pub(super) fn accepted(&self) -> Vec<Value> {
        self.requests().into_iter().filter(|r| r["status"].as_u64().is_some_and(|s| s < 300)).collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Per day: requests, cost, input, output, cache read, 5m and 1h writes.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Day {
    pub requests: u64,
    pub cost: f64,
    pub tokens: [u64; 5],
}

pub(super) fn day_of(nanos: &Value) -> String {
    let n: i64 = nanos.as_str().unwrap().parse().unwrap();
    DateTime::from_timestamp_nanos(n).format("%Y-%m-%d").to_string()
}

pub(super) fn attrs(v: &Value) -> BTreeMap<String, Value> {
    let kv = v["attributes"].as_array().cloned().unwrap_or_default();
    kv.into_iter()
        .map(|a| {
            let value = a["value"].as_object().and_then(|o| o.values().next().cloned()).unwrap_or(Value::Null);
            (a["key"].as_str().unwrap().to_owned(), value)
        })
        .collect()
}

pub(super) fn int(v: &Value) -> u64 {
    v.as_str().map_or_else(|| v.as_u64().unwrap(), |s| s.parse().unwrap())
}

/// What the accepted log records add up to per day.
pub(super) fn from_logs(accepted: &[Value]) -> BTreeMap<String, Day> {
    let mut out: BTreeMap<String, Day> = BTreeMap::new();
    for r in accepted.iter().filter(|r| r["path"] == "/v1/logs") {
        for rl in r["body"]["resourceLogs"].as_array().unwrap() {
            for rec in rl["scopeLogs"][0]["logRecords"].as_array().unwrap() {
                assert_eq!(rec["body"]["stringValue"], "claude_code.api_request");
                let a = attrs(rec);
                assert_eq!(a["event.name"], "api_request");
                assert_eq!(a["user.name"], "ana");
                let d = out.entry(day_of(&rec["timeUnixNano"])).or_default();
                d.requests += 1;
                d.cost += a["cost_usd"].as_f64().unwrap();
                let (w5, w1h) = (int(&a["cache.creation_5m_tokens"]), int(&a["cache.creation_1h_tokens"]));
                assert_eq!(int(&a["cache_creation_tokens"]), w5 + w1h);
                let kinds = [int(&a["input_tokens"]), int(&a["output_tokens"]), int(&a["cache_read_tokens"]), w5, w1h];
                for (t, k) in d.tokens.iter_mut().zip(kinds) {
                    *t += k;
                }
            }
        }
    }
    out
}

/// The points of metric `name` in the accepted requests, each with its
/// day (of its start), attributes and value.
pub(super) fn points(accepted: &[Value], name: &str) -> Vec<(String, BTreeMap<String, Value>, f64)> {
    let mut out = Vec::new();
    for r in accepted.iter().filter(|r| r["path"] == "/v1/metrics") {
        for rm in r["body"]["resourceMetrics"].as_array().unwrap() {
            for m in rm["scopeMetrics"][0]["metrics"].as_array().unwrap().iter().filter(|m| m["name"] == name) {
                assert_eq!(m["sum"]["aggregationTemporality"], 1, "delta");
                assert_eq!(m["sum"]["isMonotonic"], true);
                for p in m["sum"]["dataPoints"].as_array().unwrap() {
                    let v = p.get("asDouble").and_then(Value::as_f64).unwrap_or_else(|| int(&p["asInt"]) as f64);
                    assert!(int(&p["timeUnixNano"]) > int(&p["startTimeUnixNano"]));
                    assert_eq!(day_of(&p["startTimeUnixNano"]), day_of(&p["timeUnixNano"]), "a point within its day");
                    out.push((day_of(&p["startTimeUnixNano"]), attrs(p), v));
                }
            }
        }
    }
    out
}

/// What the accepted metric points add up to per day (requests left 0).
pub(super) fn from_metrics(accepted: &[Value]) -> BTreeMap<String, Day> {
    let mut out: BTreeMap<String, Day> = BTreeMap::new();
    for (day, _, v) in points(accepted, "claude_code.cost.usage") {
        out.entry(day).or_default().cost += v;
    }
    for (day, a, v) in points(accepted, "claude_code.token.usage") {
        let slot = match (a["type"].as_str().unwrap(), a.get("cache.ttl").and_then(Value::as_str)) {
            ("input", None) => 0,
            ("output", None) => 1,
            ("cacheRead", None) => 2,
            ("cacheCreation", Some("5m")) => 3,
            ("cacheCreation", Some("1h")) => 4,
            other => panic!("unexpected token point {other:?}"),
        };
        out.entry(day).or_default().tokens[slot] += v as u64;
    }
    out
}

#[track_caller]
pub(super) fn same_days(got: &BTreeMap<String, Day>, want: &BTreeMap<String, Day>, requests: bool, what: &str) {
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{what}: days");
    for (day, w) in want {
        let g = &got[day];
        assert_eq!(g.tokens, w.tokens, "{what} {day}: tokens");
        assert!((g.cost - w.cost).abs() <= 1e-9 * w.cost.max(1.0), "{what} {day}: {} != {}", g.cost, w.cost);
        if requests {
            assert_eq!(g.requests, w.requests, "{what} {day}: requests");
        }
    }
}
