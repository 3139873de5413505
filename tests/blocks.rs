//! `cachewise report blocks --json` and `advise`'s plan-limit sentence on
//! the real binary, over a fixture tree with hand-computed figures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use chrono::Duration;
use common::{t0, write, Resp};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn cw(root: &Path, data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--claude-dir", root.to_str().unwrap(), "--data-dir", data.to_str().unwrap(), "--tz", "UTC", "--quiet"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn blocks_json_over_a_gap_with_the_active_block_projected() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    // t0 = 20:00. Responses at 20:00 and 21:30 (block 20:00-01:00), then
    // 07:15 next day, 6 h 15 min after 01:00: gap 02:30-07:15, block 07:00-12:00.
    let rs = [Resp::new("s1", 1, 0), Resp::new("s1", 2, 90), Resp::new("s1", 3, 11 * 60 + 15)];
    write(&root, "-p/s1.jsonl", &rs.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    let now = (t0() + Duration::minutes(12 * 60)).to_rfc3339();
    let out = cw(&root, &data, &["report", "blocks", "--json", "--now", &now]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let (a, gap, b) = (&rows[0], &rows[1], &rows[2]);
    assert_eq!(
        (a["start"].as_str(), a["end"].as_str()),
        (Some("2026-02-11T20:00:00+00:00"), Some("2026-02-12T01:00:00+00:00"))
    );
    assert_eq!((a["requests"].as_u64(), a["active"].as_bool()), (Some(2), Some(false)));
    let cost_a = rs[0].sonnet_cost() + rs[1].sonnet_cost();
    assert!((a["cost_usd"].as_f64().unwrap() - cost_a).abs() < 1e-12);
    assert!((a["burn_rate_usd_per_h"].as_f64().unwrap() - cost_a / 1.5).abs() < 1e-12, "over 1.5 h");
    assert_eq!(a["input_tokens"].as_u64(), Some(rs[0].input + rs[1].input));
    assert_eq!(gap["gap"], true);
    assert_eq!(
        (gap["start"].as_str(), gap["end"].as_str()),
        (Some("2026-02-12T02:30:00+00:00"), Some("2026-02-12T07:15:00+00:00"))
    );
    assert_eq!((b["start"].as_str(), b["active"].as_bool()), (Some("2026-02-12T07:00:00+00:00"), Some(true)));
    assert_eq!(b["burn_rate_usd_per_h"], Value::Null, "one request: no rate");
    assert!((b["projected_usd"].as_f64().unwrap() - rs[2].sonnet_cost()).abs() < 1e-12);
}

#[test]
fn advise_says_when_there_are_too_few_plan_limit_samples() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    let path = write(&root, "-p/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    std::fs::create_dir_all(data.join("statusline")).unwrap();
    let sample = r#"{"time":"2026-02-11T20:01:00Z","session_id":"s1","five_hour":{"used_pct":12.0,"resets_at":1770854400},"seven_day":null}"#;
    std::fs::write(data.join("statusline/rate_limits.jsonl"), format!("{sample}\n")).unwrap();
    let now = (t0() + Duration::minutes(30)).to_rfc3339();
    let out = cw(&root, &data, &["advise", "s1", "--now", &now]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Plan limits: not enough plan-limit readings yet: the status line has seen your 5-hour use rise 0 of the 3 times an estimate needs."),
        "{text}"
    );
    let out = cw(&root, &data, &["advise", "s1", "--json", "--now", &now, "--no-ingest"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["plan_limits"]["five_hour"]["intervals"], 0);
    assert_eq!(v["plan_limits"]["cold_resume_five_hour_pct"], Value::Null);
    assert!(path.exists());
}
