//! Terminal escapes: strings from transcripts and bundles
//! (titles, project and model names, paths, user and machine names) reach
//! the terminal stripped of control characters in every command that prints
//! them, on stdout and stderr; JSON escapes them instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{title_line, write, Resp};
use std::path::Path;
use std::process::Output;

use common::cachewise_in as cachewise;

/// Stdout and stderr of a run that succeeded, each free of control
/// characters other than newline.
fn clean_output(o: &Output, what: &str) -> String {
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{what}: {err}");
    for (name, text) in [("stdout", &out), ("stderr", &err)] {
        let bad: Vec<char> = text.chars().filter(|&c| c.is_control() && c != '\n').collect();
        assert!(bad.is_empty(), "{what} {name} holds {bad:?}: {text}");
    }
    format!("{out}{err}")
}

const TITLE: &str = r"\u001b]0;owned\u0007\u001b[2JFix \u009b31mthe build\u202e";
/// What `TITLE` reads as once the controls are gone.
const TITLE_SHOWN: &str = "]0;owned[2JFix 31mthe build";

/// One session with an escape-laden title, model and project directory,
/// plus a bad line so the warning names the hostile path.
fn hostile_tree(root: &Path) -> Resp {
    let mut r = Resp::new("s1", 1, 0);
    r.model = "claude-sonnet-4-5\\u001b[5m".into();
    let mut lines = r.to_lines();
    lines.push(title_line("s1", TITLE));
    lines.push("{broken".into());
    write(root, "-home-\x1b[31mred/s1.jsonl", &lines);
    r
}

#[test]
fn title_with_escape_is_sanitised_in_report_session() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_tree(root.path());
    let table = clean_output(&cachewise(Some(root.path()), data.path(), &["report", "session"]), "report session");
    assert!(table.contains("]0;owned[2JFix 31mthe"), "{table}");
    assert!(table.contains("-home-[31mred/s1.jsonl:"), "the warning names the path, cleaned: {table}");
    let csv = clean_output(&cachewise(Some(root.path()), data.path(), &["report", "session", "--csv"]), "csv");
    assert!(csv.contains("s1,"), "{csv}");
    let json = cachewise(Some(root.path()), data.path(), &["report", "session", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["rows"][0]["title"], "\x1b]0;owned\x07\x1b[2JFix \u{9b}31mthe build\u{202e}", "JSON keeps the value");
    assert!(!json.stdout.contains(&0x1b), "JSON escapes ESC as \\u001b");
    let raw = clean_output(&json, "report session --json");
    assert!(raw.contains(r"\u009b31mthe build\u202e"), "C1 and bidi controls are escaped, not dropped: {raw}");
}

#[test]
fn every_terminal_command_strips_escapes() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    hostile_tree(root.path());
    let later = "--now=2026-02-12T20:00:00Z";
    let runs: [&[&str]; 7] = [
        &[],
        &["report", "model"],
        &["report", "project", "--csv"],
        &["cache", later],
        &["cache", "--misses"],
        &["advise", "s1", later],
        &["ingest"],
    ];
    for args in runs {
        let text = clean_output(&cachewise(Some(root.path()), data.path(), args), &format!("{args:?}"));
        if args.first() == Some(&"cache") && args.len() == 2 && args[1] == later {
            assert!(text.contains(&TITLE_SHOWN[..20]), "stale sessions list the cleaned title: {text}");
        }
    }
}

#[test]
fn user_name_with_escape_is_sanitised_in_import_and_report_team() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("r"), tmp.path().join("l"), tmp.path().join("team"));
    let r = Resp::new("s1", 1, 0);
    write(&root, "-home-u-app/s1.jsonl", &r.to_lines());
    let bundle = tmp.path().join("evil.parquet");
    let args = ["export", "--user", "mallory", "--out", bundle.to_str().unwrap()];
    clean_output(&cachewise(Some(&root), &local, &args), "export");
    // Export refuses such names; another tool's bundle may
    // still carry them.
    let user = "\x1b[2J\x1b]8;;http://evil.example\x07mallory\x1b]8;;\x07";
    let mut b = cachewise::team::read_bundle(&std::fs::read(&bundle).unwrap(), "evil").unwrap();
    (b.meta.user, b.meta.machine, b.analysis) = (user.into(), "m\x1b[5m1".into(), None);
    b.requests.iter_mut().for_each(|r| (r.user, r.machine) = (user.into(), "m\x1b[5m1".into()));
    b.compactions.iter_mut().for_each(|c| c.user = user.into());
    b.calls.iter_mut().for_each(|i| i.user = user.into());
    std::fs::write(&bundle, cachewise::team::bundle_bytes(&b).unwrap()).unwrap();
    let out = clean_output(&cachewise(None, &team, &["import", bundle.to_str().unwrap()]), "import");
    assert!(out.contains("[2J]8;;http://evil.examplemallory]8;;@m[5m1: 1 request (1 new)"), "{out}");
    for format in [&["report", "team"][..], &["report", "team", "--md"], &["report", "team", "--csv"]] {
        let text = clean_output(&cachewise(None, &team, format), &format!("{format:?}"));
        assert!(text.contains("]8;;http://evil.examplemallory"), "{text}");
    }
}
