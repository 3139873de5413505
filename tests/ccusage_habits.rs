//! ccusage's habits on the `cachewise` binary: the `daily|weekly|monthly|
//! session|blocks` aliases and the short flags print byte for byte what
//! their long forms print; tables fit `COLUMNS`; every `--csv` has the
//! columns and values of its `--json` rows; YYYYMMDD dates, `--order`,
//! `--start-of-week`, `--offline`; fast mode told apart from standard.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::report::usage::render::csv_value;
use common::{title_line, write, Resp};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The run's clock: a day after the fixture, so nothing is warm.
const NOW: &str = "2026-02-14T12:00:00Z";

/// `cachewise` on `root` and `data` with `COLUMNS` set (or unset) and the
/// clock fixed.
fn run(root: &Path, data: &Path, columns: Option<&str>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cachewise"));
    c.args(args).arg("--data-dir").arg(data).arg("--claude-dir").arg(root).args(["--now", NOW]);
    c.env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR").env_remove("COLUMNS");
    if let Some(w) = columns {
        c.env("COLUMNS", w);
    }
    c.output().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap()
}

/// Three sessions over three days (2026-02-11, -12 and -13 UTC) in two
/// projects with long names and titles; s2 partly in fast mode on Opus.
fn fixture(root: &Path) {
    let long = "-home-someone-work-a-project-with-a-rather-long-directory-name";
    let mut s1: Vec<String> = (1..=3).flat_map(|k| Resp::new("s1", k, 230 + 4 * k as i64).to_lines()).collect();
    s1.push(title_line("s1", "Refactor the ingest pipeline so that sliced reads never hold the whole table"));
    write(root, &format!("{long}/s1.jsonl"), &s1);
    let mut s2: Vec<String> = Vec::new();
    for k in 1..=4 {
        let mut r = Resp::new("s2", k, 24 * 60 + 5 * k as i64);
        r.model = "claude-opus-4-6".into();
        let lines = r.to_lines();
        let fast = k % 2 == 0;
        s2.extend(lines.into_iter().map(|l| match fast {
            true => l.replace(r#""service_tier":"standard""#, r#""service_tier":"standard","speed":"fast""#),
            false => l,
        }));
    }
    write(root, "-home-u-shop/s2.jsonl", &s2);
    let s3: Vec<String> = (1..=2).flat_map(|k| Resp::new("s3", k, 2 * 24 * 60 + k as i64).to_lines()).collect();
    write(root, "-home-u-shop/s3.jsonl", &s3);
}

fn ingested() -> (tempfile::TempDir, tempfile::TempDir) {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fixture(root.path());
    ok(&run(root.path(), data.path(), None, &["ingest"]));
    (root, data)
}

#[test]
fn aliases_and_short_flags_print_what_their_long_forms_print() {
    let (root, data) = ingested();
    let pairs: [(&[&str], &[&str]); 8] = [
        (&["daily", "-z", "UTC"], &["report", "daily", "--tz", "UTC"]),
        (
            &["daily", "-s", "20260212", "-u", "20260213", "-j", "-b", "-o", "desc", "-z", "UTC"],
            &[
                "report",
                "daily",
                "--since",
                "2026-02-12",
                "--until",
                "2026-02-13",
                "--json",
                "--breakdown",
                "--order",
                "desc",
                "--tz",
                "UTC",
            ],
        ),
        (&["weekly", "--start-of-week", "sunday", "-j"], &["report", "weekly", "--start-of-week", "sunday", "--json"]),
        (&["monthly", "--compact"], &["report", "monthly", "--compact"]),
        (&["session", "-b"], &["report", "session", "--breakdown"]),
        (&["session", "-j", "--offline"], &["report", "session", "--json"]),
        (&["blocks", "-z", "UTC"], &["report", "blocks", "--tz", "UTC"]),
        (&["blocks", "-j", "-o", "desc"], &["report", "blocks", "--json", "--order", "desc"]),
    ];
    for (short, long) in pairs {
        for columns in [None, Some("100")] {
            let a = ok(&run(root.path(), data.path(), columns, &[&["--no-ingest"][..], short].concat()));
            let b = ok(&run(root.path(), data.path(), columns, &[&["--no-ingest"][..], long].concat()));
            assert_eq!(a, b, "{short:?} vs {long:?}");
            assert!(a.contains("s1") || a.contains("2026-02") || a.contains("rows"), "{short:?}: {a}");
        }
    }
}

#[test]
fn session_table_fits_the_terminal_and_names_project_models_and_last_active() {
    let (root, data) = ingested();
    let narrow = ok(&run(root.path(), data.path(), Some("100"), &["--tz", "UTC", "report", "session"]));
    let longest = narrow.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 100, "a line of {longest} characters:\n{narrow}");
    for header in ["Session", "Title", "Last active", "Cost"] {
        assert!(narrow.contains(header), "{header}:\n{narrow}");
    }
    assert!(narrow.contains("2026-02-13 20:02") && narrow.contains("Total"), "{narrow}");
    let wide = ok(&run(root.path(), data.path(), Some("100"), &["--tz", "UTC", "report", "session", "--wide"]));
    assert!(wide.lines().map(|l| l.chars().count()).max().unwrap() > 100, "--wide shows every column");
    for header in ["Project", "Models", "Fast mode", "Last active", "Write 1h", "Stale premium"] {
        assert!(wide.contains(header), "{header}:\n{wide}");
    }
    assert!(wide.contains("/home/u/app") && wide.contains("claude-opus-4-6, claude-opus-4-6 (fast)"), "{wide}");
    let at_160 = ok(&run(root.path(), data.path(), Some("160"), &["--tz", "UTC", "report", "session"]));
    assert!(at_160.lines().all(|l| l.chars().count() <= 160), "{at_160}");
    assert!(at_160.contains("Project"), "a wider terminal shows more columns:\n{at_160}");
    // Every other table fits too.
    for report in ["daily", "weekly", "monthly", "project", "model", "blocks"] {
        let t = ok(&run(root.path(), data.path(), Some("60"), &["--no-ingest", "report", report]));
        assert!(t.lines().all(|l| l.chars().count() <= 60), "{report}:\n{t}");
    }
}

/// The CSV's header and cells against the JSON's rows: the same keys (the
/// breakdown's `models` list aside), one header name each, the same values.
fn csv_equals_json(csv: &str, json: &Value) {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    let mut unique = header.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), header.len(), "one header name each: {header:?}");
    let rows = json["rows"].as_array().unwrap();
    let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len());
    for (rec, row) in records.iter().zip(rows) {
        let mut keys: Vec<&String> = row.as_object().unwrap().keys().filter(|k| *k != "models").collect();
        keys.sort();
        let mut names: Vec<&String> = header.iter().collect();
        names.sort();
        assert_eq!(names, keys);
        for (name, cell) in header.iter().zip(rec.iter()) {
            match &row[name.as_str()] {
                // serde_json reads floats to within one unit in the last place.
                Value::Number(n) if n.is_f64() => {
                    let (a, b) = (cell.parse::<f64>().unwrap(), n.as_f64().unwrap());
                    assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{name}: {a} vs {b}");
                }
                // A text cell that would run as a formula is written with a
                // leading `'` (report::cell); the rest as the JSON has it.
                v => assert_eq!(
                    cell.strip_prefix('\'').filter(|c| c.starts_with('-')).unwrap_or(cell),
                    csv_value(v),
                    "{name}"
                ),
            }
        }
    }
}

#[test]
fn every_csv_has_the_columns_and_values_of_its_json_rows() {
    let (root, data) = ingested();
    for report in ["daily", "weekly", "monthly", "session", "project", "model"] {
        let args = ["--no-ingest", "--tz", "UTC", "report", report];
        let csv = ok(&run(root.path(), data.path(), None, &[&args[..], &["--csv"]].concat()));
        let json = json(&run(root.path(), data.path(), None, &[&args[..], &["--json"]].concat()));
        csv_equals_json(&csv, &json);
        let header = csv.lines().next().unwrap();
        if report == "model" {
            assert!(header.starts_with("model,first,last,requests,"), "{header}");
        }
        if report == "session" {
            assert!(
                header.starts_with("session_id,project,project_path,title,model_names,fast_requests,first,last,"),
                "{header}"
            );
            for key in ["misses", "idle_cost_usd", "stale_premium_usd", "cold_resume_usd", "last_main"] {
                assert!(header.split(',').any(|h| h == key), "{key} in {header}");
            }
        }
    }
    // With --breakdown a `model` column follows the key; the model rows sum to the row.
    let csv =
        ok(&run(root.path(), data.path(), None, &["--no-ingest", "--tz", "UTC", "report", "daily", "--csv", "-b"]));
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header = r.headers().unwrap().clone();
    assert_eq!((&header[0], &header[1]), ("period", "model"));
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let day2: Vec<&csv::StringRecord> = rows.iter().filter(|x| &x[0] == "2026-02-12").collect();
    let models: Vec<&str> = day2.iter().map(|x| &x[1]).collect();
    assert_eq!(models, ["", "claude-opus-4-6", "claude-opus-4-6 (fast)", "claude-sonnet-4-5-20250929"]);
}

#[test]
fn fast_mode_is_its_own_model_row() {
    let (root, data) = ingested();
    let v = json(&run(root.path(), data.path(), None, &["--no-ingest", "report", "model", "--json"]));
    let rows = v["rows"].as_array().unwrap();
    let req = |name: &str| rows.iter().find(|r| r["model"] == name).map(|r| r["requests"].as_u64().unwrap());
    assert_eq!((req("claude-opus-4-6"), req("claude-opus-4-6 (fast)")), (Some(2), Some(2)));
    assert_eq!(req("claude-sonnet-4-5-20250929"), Some(5));
    let v = json(&run(root.path(), data.path(), None, &["--no-ingest", "report", "session", "--json"]));
    let s2 = v["rows"].as_array().unwrap().iter().find(|r| r["session_id"] == "s2").unwrap();
    assert_eq!(s2["fast_requests"], 2);
    assert_eq!(s2["model_names"], serde_json::json!(["claude-opus-4-6", "claude-opus-4-6 (fast)"]));
    let s1 = v["rows"].as_array().unwrap().iter().find(|r| r["session_id"] == "s1").unwrap();
    assert_eq!(s1["fast_requests"], 0);
    let t = ok(&run(root.path(), data.path(), None, &["--no-ingest", "report", "daily", "-b"]));
    assert!(t.contains("└ claude-opus-4-6 (fast)"), "{t}");
}

#[test]
fn dates_order_weeks_and_offline() {
    let (root, data) = ingested();
    let daily = |extra: &[&str]| {
        let v = json(&run(
            root.path(),
            data.path(),
            None,
            &[&["--no-ingest", "-z", "UTC", "daily", "-j"][..], extra].concat(),
        ));
        v["rows"].as_array().unwrap().iter().map(|r| r["period"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(daily(&[]), ["2026-02-11", "2026-02-12", "2026-02-13"]);
    assert_eq!(daily(&["-o", "desc"]), ["2026-02-13", "2026-02-12", "2026-02-11"]);
    assert_eq!(daily(&["--order", "asc"]), daily(&[]));
    assert_eq!(daily(&["-s", "20260212"]), ["2026-02-12", "2026-02-13"]);
    assert_eq!(daily(&["-s", "20260212"]), daily(&["--since", "2026-02-12"]));
    assert_eq!(daily(&["-u", "20260211"]), ["2026-02-11"]);
    assert_eq!(daily(&["--offline"]), daily(&[]));
    let weeks = |start: &str| {
        let args = ["--no-ingest", "-z", "UTC", "weekly", "-j", "--start-of-week", start];
        let v = json(&run(root.path(), data.path(), None, &args));
        v["rows"].as_array().unwrap().iter().map(|r| r["period"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    // 2026-02-11 is a Wednesday.
    assert_eq!(weeks("monday"), ["2026-02-09"]);
    assert_eq!(weeks("sunday"), ["2026-02-08"]);
    assert_eq!(weeks("thursday"), ["2026-02-05", "2026-02-12"]);
    let bad = run(root.path(), data.path(), None, &["weekly", "--start-of-week", "someday"]);
    assert_eq!(bad.status.code(), Some(2));
    // Sessions by their last request when an order is asked.
    let v = json(&run(root.path(), data.path(), None, &["--no-ingest", "session", "-j", "-o", "desc"]));
    let ids: Vec<&str> = v["rows"].as_array().unwrap().iter().map(|r| r["session_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["s3", "s2", "s1"]);
    let help = ok(&run(root.path(), data.path(), None, &["--help"]));
    assert!(help.contains("never goes online") && help.contains("cachewise daily"), "{help}");
}

/// The lines of `out` that belong to a table (its borders and rows).
fn table_lines(out: &str) -> impl Iterator<Item = &str> {
    out.lines().filter(|l| l.contains('│') || l.contains('─'))
}

#[test]
fn every_table_fits_80_and_100_columns_and_the_session_table_keeps_the_stale_premium() {
    let (root, data) = ingested();
    let commands: [&[&str]; 9] = [
        &["report", "daily"],
        &["report", "session"],
        &["report", "project"],
        &["report", "blocks"],
        &["report", "team"],
        &["cache"],
        &["cache", "--misses"],
        &["prices"],
        &["report", "daily", "--breakdown"],
    ];
    for width in [80, 100] {
        for args in commands {
            let out =
                ok(&run(root.path(), data.path(), Some(&width.to_string()), &[&["--no-ingest"][..], args].concat()));
            assert!(table_lines(&out).count() > 0, "{args:?} printed no table:\n{out}");
            for line in table_lines(&out) {
                assert!(
                    line.chars().count() <= width,
                    "{args:?} at {width}: a line of {}:\n{out}",
                    line.chars().count()
                );
            }
        }
        let sessions =
            ok(&run(root.path(), data.path(), Some(&width.to_string()), &["--no-ingest", "report", "session"]));
        assert!(sessions.contains("Stale premium") && sessions.contains("Title"), "{width}:\n{sessions}");
    }
    let stale = ok(&run(root.path(), data.path(), Some("80"), &["--no-ingest", "cache"]));
    assert!(
        stale.contains("Resume premium") && stale.contains("s1") && stale.contains("Refactor the ingest"),
        "{stale}"
    );
    // The prose around the tables breaks between words to fit too.
    for args in [&["cache"][..], &["advise", "s1"]] {
        let out = ok(&run(root.path(), data.path(), Some("80"), &[&["--no-ingest"][..], args].concat()));
        let longest = out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(longest <= 80, "{args:?}: a line of {longest}:\n{out}");
        let wide = ok(&run(root.path(), data.path(), None, &[&["--no-ingest"][..], args].concat()));
        assert!(wide.lines().any(|l| l.chars().count() > 80), "{args:?} without COLUMNS:\n{wide}");
    }
}

/// A JSON value's shape: each object's keys with their values' shapes, an
/// array as the shape of its first item, a scalar as its type.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

/// `--json --json-format ccusage` prints ccusage 20's shape, held to
/// ccusage's own output on the public corpus (`tests/data/ccusage-20.0.24`):
/// the same keys and types at every level, the same periods, and the same
/// tokens and cost wherever docs/ccusage.md says the two count alike (every
/// session; every day and month but the one day ccusage's daily report
/// counts a response twice). Other reports refuse the flag.
#[test]
fn json_format_ccusage_prints_ccusages_shape_with_its_figures() {
    let Some(root) = common::real_corpus() else { return };
    let data = tempfile::tempdir().unwrap();
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ccusage-20.0.24");
    let counted_apart = ["2026-02-10", "2026-02"];
    for report in ["daily", "monthly", "session"] {
        let text = std::fs::read_to_string(recorded.join(format!("real-{report}.json"))).unwrap();
        let theirs: Value = serde_json::from_str(&text).unwrap();
        let ours = json(&run(&root, data.path(), None, &["--tz", "UTC", report, "--json", "--json-format", "ccusage"]));
        assert_eq!(shape(&ours), shape(&theirs), "{report}");
        let rows = |v: &Value| -> std::collections::BTreeMap<String, Value> {
            v[report]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["period"].as_str().unwrap().to_owned(), r.clone()))
                .collect()
        };
        let (ours, theirs) = (rows(&ours), rows(&theirs));
        assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>(), "{report}: periods");
        for (period, t) in theirs.iter().filter(|(p, _)| !counted_apart.contains(&p.as_str())) {
            let o = &ours[period];
            for key in ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "totalTokens"] {
                assert_eq!(o[key], t[key], "{report} {period} {key}");
            }
            let (a, b) = (o["totalCost"].as_f64().unwrap(), t["totalCost"].as_f64().unwrap());
            assert!((a - b).abs() < 1e-6, "{report} {period}: {a} against {b}");
            assert_eq!(o["modelsUsed"].as_array().map(Vec::len), t["modelsUsed"].as_array().map(Vec::len));
        }
    }
    let refused =
        run(&root, data.path(), None, &["--no-ingest", "report", "project", "--json", "--json-format", "ccusage"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is for the daily, monthly and session reports"));
}
