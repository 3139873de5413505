//! Dollars: an empty team report has no `-0.0`, and the
//! one dollar format keeps a negative amount's sign.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{write, Resp};
use std::path::Path;
use std::process::Output;

/// The binary's output, asserting it succeeded.
fn cachewise(root: Option<&Path>, data: &Path, args: &[&str]) -> Output {
    let o = common::cachewise_in(root, data, args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn empty_team_report_has_no_negative_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("r"), tmp.path().join("l"), tmp.path().join("team"));
    write(&root, "-home-u-app/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let bundle = tmp.path().join("alice.parquet");
    cachewise(Some(&root), &local, &["export", "--user", "alice", "--out", bundle.to_str().unwrap()]);
    cachewise(None, &team, &["import", bundle.to_str().unwrap()]);
    let empty_window = ["report", "team", "--json", "--since", "2030-01-01", "--until", "2030-01-02"];
    let never_written = tmp.path().join("empty");
    for (dir, args) in [(&team, &empty_window[..]), (&never_written, &["report", "team", "--json", "--no-ingest"][..])]
    {
        let text = String::from_utf8(cachewise(None, dir, args).stdout).unwrap();
        assert!(!text.contains("-0.0"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let cost = v["total"]["cost_usd"].as_f64().unwrap();
        assert!(cost == 0.0 && cost.is_sign_positive(), "{text}");
    }
    let table = String::from_utf8(cachewise(None, &team, &empty_window[..2]).stdout).unwrap();
    assert!(!table.contains("-$0.00"), "{table}");
}
