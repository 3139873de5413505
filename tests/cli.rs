//! The `cachewise` binary end to end on generated trees: JSON contract,
//! CSV, time zones, the summary, exit codes and error messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{cachewise, write, Resp};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Two responses 30 minutes apart around midnight UTC (2026-02-11 23:50 and
/// 2026-02-12 00:20), one on Opus 4.6.
fn fixture(root: &Path) -> (Resp, Resp) {
    let a = Resp::new("s1", 1, 230);
    let mut b = Resp::new("s1", 2, 260);
    b.model = "claude-opus-4-6".into();
    let mut lines = a.to_lines();
    lines.extend(b.to_lines());
    write(root, "-home-u-shop/s1.jsonl", &lines);
    (a, b)
}

#[test]
fn daily_json_follows_the_contract() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = fixture(root.path());
    let v = json(&cachewise(root.path(), data.path(), &["report", "daily", "--json", "--tz", "UTC"]));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["period"], "2026-02-11");
    assert_eq!(rows[0]["requests"], 1);
    assert_eq!(rows[0]["output_tokens"], a.out);
    assert_eq!(rows[0]["cache_write_5m_tokens"], a.w5);
    assert_eq!(rows[0]["cache_read_tokens"], a.read);
    assert!((rows[0]["cost_usd"].as_f64().unwrap() - a.sonnet_cost()).abs() < 1e-12);
    // Opus 4.6 is 5/3 of Sonnet 4.5 per token class.
    let opus = b.sonnet_cost() * 5.0 / 3.0;
    assert!((rows[1]["cost_usd"].as_f64().unwrap() - opus).abs() < 1e-12);
    assert_eq!(v["total"]["requests"], 2);
    assert!(v["total"].get("period").is_none());
    assert_eq!(v["total"]["input_tokens"], a.input + b.input);
}

#[test]
fn time_zone_moves_day_boundaries_and_options_go_anywhere() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    // 23:50Z and 00:20Z are both on 2026-02-11 in New York (UTC-5).
    let v = json(&cachewise(root.path(), data.path(), &["--tz", "America/New_York", "report", "daily", "--json"]));
    assert_eq!(v["rows"].as_array().unwrap().len(), 1);
    assert_eq!(v["rows"][0]["period"], "2026-02-11");
    let v = json(&cachewise(root.path(), data.path(), &["report", "monthly", "--json", "--no-ingest", "--tz", "UTC"]));
    assert_eq!(v["rows"][0]["period"], "2026-02");
    let v = json(&cachewise(root.path(), data.path(), &["report", "weekly", "--json", "--tz", "UTC"]));
    assert_eq!(v["rows"][0]["period"], "2026-02-09", "weeks start on Monday");
}

#[test]
fn session_model_and_project_reports_and_filters() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    let v = json(&cachewise(root.path(), data.path(), &["report", "session", "--json"]));
    let row = &v["rows"][0];
    assert_eq!(row["session_id"], "s1");
    assert_eq!(row["project"], "-home-u-shop");
    assert_eq!(row["first"], "2026-02-11T23:50:00+00:00");
    let v = json(&cachewise(root.path(), data.path(), &["report", "model", "--json"]));
    let models: Vec<&str> = v["rows"].as_array().unwrap().iter().map(|r| r["model"].as_str().unwrap()).collect();
    assert_eq!(models, ["claude-opus-4-6", "claude-sonnet-4-5-20250929"], "highest cost first");
    let v =
        json(&cachewise(root.path(), data.path(), &["report", "project", "--json", "--project", "nothing-like-it"]));
    assert_eq!(v["total"]["requests"], 0);
    let v = json(&cachewise(
        root.path(),
        data.path(),
        &["report", "daily", "--json", "--tz", "UTC", "--since", "20260212"],
    ));
    assert_eq!(v["total"]["requests"], 1);
    let v = json(&cachewise(root.path(), data.path(), &["report", "daily", "--json", "--breakdown", "--tz", "UTC"]));
    assert_eq!(v["rows"][1]["models"][0]["model"], "claude-opus-4-6");
}

#[test]
fn csv_and_table_outputs() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, _) = fixture(root.path());
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--csv", "--tz", "UTC"]);
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), "period,first,last,requests,input_tokens,output_tokens,cache_write_5m_tokens,cache_write_1h_tokens,cache_read_tokens,cost_usd");
    let first = lines.next().unwrap();
    let stamp = "2026-02-11T23:50:00+00:00";
    assert!(first.starts_with(&format!("2026-02-11,{stamp},{stamp},1,{},{}", a.input, a.out)), "{first}");
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--tz", "UTC"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("2026-02-11") && text.contains("Total"), "{text}");
}

#[test]
fn summary_without_subcommand() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    let o = cachewise(root.path(), data.path(), &[]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success());
    assert!(text.contains("all time") && text.contains("Data last changed"), "{text}");
}

#[test]
fn summary_says_when_claude_code_was_last_used_and_when_data_changed_to_the_second() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    let o = cachewise(root.path(), data.path(), &["--tz", "UTC", "--now", "2026-06-01T12:00:00Z"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("Nothing in the last 30 days: Claude Code was last used on 2026-02-12 (109 days ago)"),
        "{text}"
    );
    assert!(text.contains("report daily --since 20260114"), "{text}");
    // Every period names its days.
    for (label, days) in [
        ("today ", "  2026-06-01\n"),
        ("7 days ", "  2026-05-26 to 2026-06-01\n"),
        ("30 days ", "  2026-05-03 to 2026-06-01\n"),
        ("all time ", "  2026-02-11 to 2026-02-12\n"),
    ] {
        let line = text.lines().find(|l| l.starts_with(label)).unwrap_or_default();
        assert!(format!("{line}\n").ends_with(days), "{label:?}: {text}");
    }
    let line = text.lines().find(|l| l.starts_with("Data last changed ")).unwrap();
    let stamp = line.trim_start_matches("Data last changed ").split(". ").next().unwrap();
    assert!(chrono::NaiveDateTime::parse_from_str(&stamp.replace(" UTC", ""), "%Y-%m-%d %H:%M:%S").is_ok(), "{line}");
    let recent = cachewise(root.path(), data.path(), &["--tz", "UTC", "--now", "2026-02-13T12:00:00Z"]);
    assert!(!String::from_utf8(recent.stdout).unwrap().contains("Nothing in the last 30 days"));
}

#[test]
fn exit_codes_and_messages() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = cachewise(root.path(), data.path(), &["report", "daily"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no Claude Code transcripts found") && err.contains("--claude-dir"), "{err}");
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--since", "yesterday"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid date"));
    let o = cachewise(root.path(), data.path(), &["--tz", "Mars/Base", "report", "daily"]);
    assert_eq!(o.status.code(), Some(2));
    let o = cachewise(root.path(), data.path(), &["report", "hourly"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn malformed_lines_are_reported_on_stderr_with_file_and_line() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut lines = Resp::new("s9", 1, 0).to_lines();
    lines.insert(1, "{broken".into());
    write(root.path(), "-p/s9.jsonl", &lines);
    let o = cachewise(root.path(), data.path(), &["report", "daily", "--json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("skipped 1 malformed line") && err.contains("s9.jsonl:2:"), "{err}");
    assert_eq!(json(&o)["total"]["requests"], 1);
}

/// s7: a warm follow-up 2 minutes later, then a 10-minute gap that expires
/// the 5-minute cache: the third request re-writes the whole prompt.
fn cache_fixture(root: &Path) -> Vec<Resp> {
    let mut rs: Vec<Resp> = [(1u64, 0i64), (2, 2), (3, 12)].iter().map(|(n, m)| Resp::new("s7", *n, *m)).collect();
    rs[0].read = 0;
    rs[0].w5 = 30_000;
    rs[1].read = 30_003; // previous prompt: 1+... close enough to be a hit
    rs[1].w5 = 1_000;
    rs[2].read = 0;
    rs[2].w5 = 31_000;
    write(root, "-home-u-cache/s7.jsonl", &rs.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    rs
}

#[test]
fn cache_json_classifies_the_expired_cache() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    cache_fixture(root.path());
    let v = json(&cachewise(root.path(), data.path(), &["cache", "--json", "--now", "2026-02-12T00:00:00Z"]));
    assert_eq!(v["classes"]["first"]["count"], 1);
    assert_eq!(v["classes"]["hit"]["count"], 1);
    assert_eq!(v["classes"]["ttl_5m"]["count"], 1);
    // Lost: the previous prompt (6 + 1000 + 30003 = 31009) minus 0 read, capped by what was rebuilt (31000 + 6).
    assert_eq!(v["classes"]["ttl_5m"]["rebuilt_tokens"], 31_006);
    // Miss cost: 31006 * (1.25 - 0.1) * $3/MTok.
    let cost = v["classes"]["ttl_5m"]["miss_cost_usd"].as_f64().unwrap();
    assert!((cost - 31_006.0 * 1.15 * 3e-6).abs() < 1e-12, "{cost}");
    assert_eq!(v["idle_buckets"]["5m_1h"]["count"], 1);
    assert_eq!(v["idle_buckets"]["le_5m"]["count"], 1);
    assert!(v["what_if"]["actual_usd"].as_f64().unwrap() > 0.0);
    assert!(v["what_if"]["ttl_1h_usd"].is_number() && v["what_if"]["ttl_5m_usd"].is_number());
    let stale = &v["stale"][0];
    assert_eq!(stale["session_id"], "s7");
    assert_eq!(stale["ttl_s"], 300);
    assert_eq!(stale["prompt_tokens"], 31_006);
    // The session report carries the same figures as sortable columns.
    let now = ["report", "session", "--json", "--no-ingest", "--now", "2026-02-12T00:00:00Z"];
    let v = json(&cachewise(root.path(), data.path(), &now));
    let row = &v["rows"][0];
    assert_eq!(row["misses"], 1);
    assert_eq!(row["peak_prompt"], 31_008);
    assert!((row["idle_cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12);
    assert!(row["stale_premium_usd"].as_f64().unwrap() > 0.0);
    assert!(row.get("not_resumable").is_none());
    // Months later the session is past Claude Code's cleanup (30 days by
    // default): its history stays, it is no longer stale.
    let later = ["report", "session", "--json", "--no-ingest", "--now", "2026-04-01T00:00:00Z"];
    let v = json(&cachewise(root.path(), data.path(), &later));
    let row = &v["rows"][0];
    assert_eq!((row["not_resumable"].as_str(), row["stale_premium_usd"].as_f64()), (Some("past_cleanup"), Some(0.0)));
    assert_eq!(row["misses"], 1);
}

#[test]
fn advise_json_compares_the_three_options() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    cache_fixture(root.path());
    // A unique prefix of the session id is enough.
    let v = json(&cachewise(
        root.path(),
        data.path(),
        &["advise", "s7", "--json", "--turns", "5", "--now", "2026-02-12T00:00:00Z"],
    ));
    assert_eq!(v["session_id"], "s7");
    assert_eq!(v["warm"], false);
    assert_eq!(v["turns"], 5);
    // The request time is its first line's (20:12:00.000) plus the 5-minute TTL.
    assert_eq!(v["expires_at"], "2026-02-11T20:17:00Z");
    let o = &v["options"];
    let (resume, compact, restart) =
        (o["resume_usd"].as_f64().unwrap(), o["compact_usd"].as_f64().unwrap(), o["restart_usd"].as_f64().unwrap());
    assert!(restart <= resume.min(compact), "restart is the floor");
    let rec = v["recommendation"].as_str().unwrap();
    assert_eq!(rec, if compact < resume { "compact" } else { "resume" });
    let chosen = resume.min(compact);
    assert!((v["history_premium_usd"].as_f64().unwrap() - (chosen - restart)).abs() < 1e-12);
    let o = cachewise(root.path(), data.path(), &["advise", "no-such-session"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no session matches"));
}

/// A reader that stops early (`cachewise report session --json | head -c 1`)
/// ends the program quietly: exit 0, no panic and no backtrace on stderr.
#[test]
fn a_reader_that_stops_early_is_not_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // 400 sessions: far more JSON than a pipe holds (64 KiB).
    for n in 0..400u64 {
        let s = format!("s{n}");
        write(root.path(), &format!("-home-u-many/{s}.jsonl"), &Resp::new(&s, n, 0).to_lines());
    }
    assert!(cachewise(root.path(), data.path(), &["ingest"]).status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["--no-ingest", "--data-dir"])
        .arg(data.path())
        .args(["report", "session", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here; the rest of the output has nowhere to go.
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first, b"{");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// Dates and times a person mistypes get an answer that says what to type;
/// an empty range is an error, not an empty table.
#[test]
fn mistyped_dates_and_an_inverted_range_are_explained() {
    let data = tempfile::tempdir().unwrap();
    let err = |args: &[&str]| {
        let out = common::cachewise_in(None, data.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(err(&["daily", "-s", "2026-13-01"]).contains("is no day of the calendar"));
    assert!(err(&["daily", "-s", "nov"]).contains("use YYYY-MM-DD or YYYYMMDD, e.g. 2026-11-30"));
    assert!(err(&["--now", "yesterday", "daily"]).contains("use RFC 3339 (2026-11-30T18:00:00Z) or a day"));
    assert!(err(&["daily", "-s", "2026-11-30", "-u", "2026-11-01"]).contains("is after --until 2026-11-01"));
    assert!(err(&["cache", "-s", "2026-11-30", "-u", "2026-11-01"]).contains("swap them"));
    // A day alone is a clock too.
    let out = common::cachewise_in(None, data.path(), &["--now", "2026-11-30", "--no-ingest", "daily", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Of the two default homes of transcripts most machines have one: the
/// other's absence is no news. A folder the user named and that holds none
/// is.
#[test]
fn only_a_named_folder_without_transcripts_is_noted() {
    let (home, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(&home.path().join(".claude"), "-p/s.jsonl", &Resp::new("s", 1, 0).to_lines());
    let run = |extra: &[&str]| {
        let mut c = std::process::Command::new(common::bin());
        c.args(extra).arg("--data-dir").arg(data.path()).args(["report", "daily"]);
        c.env("HOME", home.path()).env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR");
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(!run(&[]).contains("no transcripts under"), "~/.config/claude is simply not used here");
    let named = home.path().join("elsewhere");
    let claude = home.path().join(".claude");
    let err = run(&["--claude-dir", claude.to_str().unwrap(), "--claude-dir", named.to_str().unwrap()]);
    assert!(err.contains(&format!("no transcripts under {}/projects", named.display())), "{err}");
}

/// `--help` fits a terminal: wrapped to its width (100 columns when the
/// output is not a terminal).
#[test]
fn help_lines_fit_a_terminal() {
    let data = tempfile::tempdir().unwrap();
    for command in
        ["", "cache", "advise", "report", "serve", "export", "import", "push", "statusline", "hooks", "ingest"]
    {
        let mut args: Vec<&str> = command.split_whitespace().collect();
        args.push("--help");
        let out = common::cachewise_in(None, data.path(), &args);
        let text = String::from_utf8_lossy(&out.stdout);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= 100, "{command} --help: a line of {widest} characters");
    }
}

/// One name per project in every view: the path its sessions ran in (the
/// `cwd` Claude Code's directory name encodes), as the dashboard shows it,
/// in `report project` and `report session` tables and CSV; the JSON keeps
/// the directory in `project` (the key scripts group by) and gives the path
/// beside it.
#[test]
fn a_project_is_named_by_its_path_in_every_view() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-home-u-app/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let out = |args: &[&str]| {
        let o = cachewise(root.path(), data.path(), args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    for args in [&["report", "project"][..], &["report", "session"], &["report", "project", "--csv"]] {
        let text = out(args);
        assert!(text.contains("/home/u/app"), "{args:?}:\n{text}");
    }
    assert!(!out(&["report", "project"]).contains("-home-u-app"), "the table shows the path, not the directory");
    let v: Value = serde_json::from_str(&out(&["report", "project", "--json"])).unwrap();
    assert_eq!(
        (v["rows"][0]["project"].as_str(), v["rows"][0]["project_path"].as_str()),
        (Some("-home-u-app"), Some("/home/u/app"))
    );
    let v: Value = serde_json::from_str(&out(&["report", "session", "--json"])).unwrap();
    assert_eq!(v["rows"][0]["project_path"], "/home/u/app");
    let store = cachewise::store::Store::open(data.path()).unwrap();
    let page = common::get(&common::web_state(&store, common::t0()), "/projects");
    assert!(page.contains("/home/u/app"), "{page}");
}
