//! Names from transcripts and bundles in reports that leave the machine
//!: a tree whose project directory, session files,
//! model names and title are hostile (spreadsheet formulas, HTML, Markdown
//! markers, a newline, a bidi override, ESC), exported by a person whose
//! name is hostile too and imported into a team directory beside a bundle
//! whose user name holds control characters. Every report's CSV, Markdown
//! and terminal table is checked: no cell a spreadsheet runs as a formula,
//! no raw HTML or Markdown marker in Markdown, no newline inside a cell, no
//! control character.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cachewise_in as cachewise;
use common::{title_line, write, Resp};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Marks the two sides of a newline in a name: wherever `NLTAIL` shows, it
/// must be on the line of the `NLHEAD` before it.
const HEAD: &str = "NLHEAD";
const TAIL: &str = "NLTAIL";

/// (A directory name: no `/`, so no closing tag.)
const PROJECT: &str = "=cmd|'-C calc'!A0 <script>alert(1) <b>x |**b**| NLHEAD\n# NLTAIL \u{202e}\x1b[31m_i_";
/// `PROJECT` on one line, as every table shows it.
const PROJECT_SHOWN: &str = "=cmd|'-C calc'!A0 <script>alert(1) <b>x |**b**| NLHEAD # NLTAIL [31m_i_";
const SESSIONS: [&str; 3] = ["@SUM(A1)<img src=x>_u_ NLHEAD\n## NLTAIL\u{202e}\x1b[5m", "+proj2|[l](x:y)\t`c`", "-2+3"];
/// Model names as JSON text (escaped as a transcript holds them).
const MODELS: [&str; 3] = [
    r#"=HYPERLINK(\"http://x\",\"y\")"#,
    "<script>alert(2)</script>|**m**",
    r"claude-z NLHEAD\u000a# NLTAIL\u202e\u001b[2J",
];
const TITLE: &str = r"=1+1 <b>t</b> NLHEAD\n# NLTAIL \u202e\u001b[2J";
/// A person's name export accepts (no control character), and a machine.
const USER: &str = "=HYPERLINK(\"http://x\",\"y\")<script>alert(1)</script>|**b**";
const MACHINE: &str = "+m|x";
/// A bundle's user name with a newline, bidi override and ESC (written by
/// another tool: export refuses it).
const CTRL_USER: &str = "-mallory NLHEAD\n# NLTAIL\u{202e}\x1b[2J";

/// Three sessions under the hostile project, one model each, the first
/// titled; responses 10 minutes apart so the cache expires between some.
/// `tame`: without ESC, tab and bidi controls, so the team's tables show
/// the names as written (an export writes those characters as U+FFFD:
/// `an_export_of_names_with_control_characters_is_imported_whole`).
fn hostile_tree(root: &Path, tame: bool) {
    let tamed = |s: &str| {
        if tame {
            s.replace(['\u{202e}', '\u{1b}', '\t'], "").replace(r"\u202e", "").replace(r"\u001b", "")
        } else {
            s.to_owned()
        }
    };
    // The sessions ran in a directory named like the project: the path
    // every table names the project by is as hostile as its directory.
    let cwd = format!(r#""cwd":{}"#, serde_json::to_string(&format!("/x/{}", tamed(PROJECT))).unwrap());
    for (k, (session, model)) in SESSIONS.iter().zip(MODELS).enumerate() {
        let (session, model) = (tamed(session), tamed(model));
        let mut lines = Vec::new();
        for n in 1..=3 {
            let mut r = Resp::new(&format!("s{k}"), n, k as i64 * 60 + n as i64 * 10);
            r.model.clone_from(&model);
            r.msg = format!("msg_{k}_{n}");
            r.req = format!("req_{k}_{n}");
            lines.extend(r.to_lines().into_iter().map(|l| l.replace(r#""cwd":"/home/u/app""#, &cwd)));
        }
        if k == 0 {
            lines.push(title_line("s0", &tamed(TITLE)));
        }
        write(root, &format!("{}/{session}.jsonl", tamed(PROJECT)), &lines);
    }
}

/// The stdout of a run that succeeded; its stderr checked as terminal text.
fn text(o: &Output, what: &str) -> String {
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{what}: {err}");
    check_lines(&format!("{what} (stderr)"), &err);
    out.into_owned()
}

/// A local store of the hostile tree, and a team directory holding its
/// export (by `USER` on `MACHINE`) and a copy whose user is `CTRL_USER`.
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    local: PathBuf,
    team: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("claude"), tmp.path().join("local"), tmp.path().join("team"));
    hostile_tree(&root, false);
    let tame = tmp.path().join("tame");
    hostile_tree(&tame, true);
    let first = tmp.path().join("first.parquet");
    let args = ["export", "--user", USER, "--machine", MACHINE, "--out", first.to_str().unwrap()];
    text(&cachewise(Some(&tame), &tmp.path().join("tame-data"), &args), "export");
    let mut b = cachewise::team::read_bundle(&std::fs::read(&first).unwrap(), "first").unwrap();
    b.meta.user = CTRL_USER.into();
    b.meta.machine = "m\u{202e}\x1b[5m\nx".into();
    for r in &mut b.requests {
        r.user = CTRL_USER.into();
        r.machine = b.meta.machine.as_str().into();
        r.message_id = format!("{}-ctrl", r.message_id);
    }
    for c in &mut b.compactions {
        c.user = CTRL_USER.into();
    }
    for i in &mut b.calls {
        i.user = CTRL_USER.into();
    }
    b.analysis = None;
    let second = tmp.path().join("second.parquet");
    std::fs::write(&second, cachewise::team::bundle_bytes(&b).unwrap()).unwrap();
    text(&cachewise(None, &team, &["import", first.to_str().unwrap(), second.to_str().unwrap()]), "import");
    Fixture { _tmp: tmp, root, local, team }
}

/// A character no report may print: a control character other than the
/// newline ending a line, or a bidi control.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// No forbidden character, and no name broken over two lines.
fn check_lines(what: &str, out: &str) {
    let bad: Vec<char> = out.chars().filter(|&c| forbidden(c)).collect();
    assert!(bad.is_empty(), "{what}: holds {bad:?}:\n{out}");
    for line in out.lines() {
        if let Some(at) = line.find(TAIL) {
            assert!(line[..at].contains(HEAD), "{what}: a newline inside a cell broke the line {line:?}:\n{out}");
        }
    }
}

/// A cell a spreadsheet would run: it starts (after spaces) with `=`, `+`,
/// `-` or `@` and is not a number.
fn runs_as_formula(cell: &str) -> bool {
    cell.trim_start().starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err()
}

/// Every cell of a CSV: one line, no formula. Returns the records.
fn check_csv(what: &str, out: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(out.as_bytes());
    let rows: Vec<Vec<String>> = reader.records().map(|r| r.unwrap().iter().map(str::to_owned).collect()).collect();
    for cell in rows.iter().flatten() {
        assert!(!runs_as_formula(cell), "{what}: the cell {cell:?} runs as a formula:\n{out}");
    }
    for cell in rows.iter().flatten() {
        assert!(!cell.contains(['\n', '\r']), "{what}: a raw newline in the cell {cell:?}");
    }
    check_lines(what, out);
    rows
}

/// Markdown with no raw HTML, no Markdown marker from a name, and tables
/// whose rows have their header's number of cells.
fn check_md(what: &str, out: &str) {
    assert!(!out.contains(['<', '>']), "{what}: raw HTML:\n{out}");
    for raw in ["**b**", "**m**", "_u_", "_i_", "[l]", "`c`", "|**"] {
        assert!(!out.contains(raw), "{what}: the Markdown marker {raw:?} is raw:\n{out}");
    }
    let pipes = |l: &str| l.len() - l.replace('|', "").len() - l.matches("\\|").count();
    let mut header = None;
    for line in out.lines() {
        if line.starts_with('#') {
            assert!(["## Claude Code spend", "### Model mix", "### Top stale sessions"]
                .iter()
                .any(|h| line.starts_with(h)));
        }
        match (line.starts_with('|'), header) {
            (true, None) => header = Some(pipes(line)),
            (true, Some(n)) => assert_eq!(pipes(line), n, "{what}: the row {line:?} has another number of cells"),
            (false, _) => header = None,
        }
    }
    check_lines(what, out);
}

#[test]
fn csv_cells_with_formula_prefixes_are_neutralised() {
    let f = fixture();
    let rows =
        check_csv("report project", &text(&cachewise(Some(&f.root), &f.local, &["report", "project", "--csv"]), "p"));
    assert_eq!(rows[1][0], format!("'{PROJECT_SHOWN}"), "the project cell, neutralised");
    let requests = rows[0].iter().position(|h| h == "requests").unwrap();
    assert_eq!(rows[1][requests], "9", "numbers stay numbers");
    let out = text(&cachewise(Some(&f.root), &f.local, &["report", "session", "--csv", "--breakdown"]), "session");
    let rows = check_csv("report session --breakdown", &out);
    let keys: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert!(keys.contains(&"'-2+3"), "{keys:?}");
    assert!(keys.contains(&"'+proj2|[l](x:y) `c`"), "{keys:?}");
    assert!(keys.contains(&"'@SUM(A1)<img src=x>_u_ NLHEAD ## NLTAIL[5m"), "{keys:?}");
    let models: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert!(models.contains(&"'=HYPERLINK(\"http://x\",\"y\")"), "{models:?}");
    let out = text(&cachewise(None, &f.team, &["report", "team", "--csv", "--csv-summary"]), "team");
    let rows = check_csv("report team --csv", &out);
    let people: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[0].as_str(), r[1].as_str())).collect();
    assert!(people.contains(&(&format!("'{USER}"), &format!("'{MACHINE}"))), "{people:?}");
    assert!(people.contains(&("'-mallory NLHEAD # NLTAIL[2J", "m[5m x")), "{people:?}");
}

#[test]
fn markdown_cells_escape_html_and_markdown() {
    let f = fixture();
    let md = text(&cachewise(None, &f.team, &["report", "team", "--md"]), "team --md");
    check_md("report team --md", &md);
    let user = "=HYPERLINK(\"http://x\",\"y\")&lt;script&gt;alert(1)&lt;/script&gt;\\|\\*\\*b\\*\\*";
    assert!(md.contains(&format!("| {user} |")), "{md}");
    assert!(md.contains("&lt;script&gt;alert(2)&lt;/script&gt;\\|\\*\\*m\\*\\*"), "the model cell: {md}");
    assert!(md.contains("| **Team (2 people)** |"), "the total row stays bold: {md}");
}

#[test]
fn export_refuses_control_characters_in_user_and_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claude");
    write(&root, "-home-u-app/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let out = tmp.path().join("b.parquet");
    let long = "a".repeat(5000);
    for (flag, name, shown) in [
        ("--user", "alice\n# heading", "--user \"alice\\n# heading\" holds the control character U+000A"),
        ("--user", &long, "--user is 5000 bytes long, over the bound of 4096 bytes"),
        ("--user", "bob\u{202e}", "holds the control character U+202E"),
        ("--machine", "m\x1b[5m1", "--machine \"m\\u{1b}[5m1\" holds the control character U+001B"),
    ] {
        let mut args = vec!["export", "--out", out.to_str().unwrap(), flag, name];
        if flag == "--machine" {
            args.extend(["--user", "alice"]);
        }
        let o = cachewise(Some(&root), &tmp.path().join("data"), &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {name:?}: {err}");
        assert!(err.contains(shown), "{err}");
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn newlines_in_names_render_as_spaces_in_every_table() {
    let f = fixture();
    let table = text(&cachewise(Some(&f.root), &f.local, &["report", "project"]), "project");
    check_lines("report project", &table);
    assert!(table.contains(PROJECT_SHOWN), "{table}");
    let table = text(&cachewise(Some(&f.root), &f.local, &["report", "session", "--breakdown"]), "session");
    check_lines("report session", &table);
    assert!(table.contains("=1+1 <b>t</b> NLHEAD # NLTAIL"), "the title, on one line: {table}");
    assert!(table.contains("└ claude-z NLHEAD # NLTAIL[2J"), "the model, on one line: {table}");
    for format in [&["report", "team"][..], &["report", "team", "--csv"], &["report", "team", "--md"]] {
        let out = text(&cachewise(None, &f.team, format), &format!("{format:?}"));
        check_lines(&format!("{format:?}"), &out);
        assert!(out.contains("-mallory NLHEAD \\# NLTAIL") || out.contains("-mallory NLHEAD # NLTAIL"), "{out}");
    }
}

/// The issue's "done when": every report over hostile names.
#[test]
fn every_report_over_hostile_names_has_safe_cells() {
    let f = fixture();
    let later = "--now=2026-02-12T20:00:00Z";
    let mut runs: Vec<Vec<&str>> =
        vec![vec![], vec!["cache", later], vec!["cache", "--misses"], vec!["report", "blocks"]];
    runs.push(vec!["advise", "+proj2", later]);
    for kind in ["daily", "weekly", "monthly", "session", "project", "model"] {
        for extra in [&[][..], &["--breakdown"], &["--csv"], &["--csv", "--breakdown"]] {
            runs.push([&["report", kind][..], extra].concat());
        }
    }
    for args in &runs {
        let out = text(&cachewise(Some(&f.root), &f.local, args), &format!("{args:?}"));
        if args.contains(&"--csv") {
            check_csv(&format!("{args:?}"), &out);
        } else {
            check_lines(&format!("{args:?}"), &out);
        }
    }
    let team_runs: [&[&str]; 6] = [
        &["report", "team"],
        &["report", "team", "--csv"],
        &["report", "team", "--md"],
        &["report", "session", "--csv", "--breakdown"],
        &["report", "model"],
        &["report", "project", "--csv"],
    ];
    for args in team_runs {
        let out = text(&cachewise(None, &f.team, args), &format!("team {args:?}"));
        match args.last() {
            Some(&"--md") => check_md("report team --md", &out),
            _ if args.contains(&"--csv") => {
                check_csv(&format!("team {args:?}"), &out);
            }
            _ => check_lines(&format!("team {args:?}"), &out),
        }
    }
}

/// The report's `total` of a run's `--json` output: (requests, dollars).
fn totals(o: &Output, what: &str) -> (u64, f64) {
    let json: serde_json::Value = serde_json::from_str(&text(o, what)).unwrap();
    (json["total"]["requests"].as_u64().unwrap(), json["total"]["cost_usd"].as_f64().unwrap())
}

/// A person's tree whose project directory, cwd, session id, message ids
/// and version hold ESC, tab and U+202E, and whose cwd is longer than a
/// bundle's names may be: the export writes them as names (`model::name`),
/// so the lead's import takes the bundle with its analysis rows, every
/// request and dollar arrives, and no report of the team prints one raw.
#[test]
fn an_export_of_names_with_control_characters_is_imported_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, local, team) = (tmp.path().join("claude"), tmp.path().join("local"), tmp.path().join("team"));
    let project = "-home-u-\x1b[31mred\tapp\u{202e}txt";
    let cwd = format!(r"/home/u/\u001b[31mred\tapp\u202etxt/{}", "d".repeat(5000));
    let mut want = 0.0;
    for (k, session) in [r"s1\u001b[5m", r"s2\t\u202e"].into_iter().enumerate() {
        let mut lines = Vec::new();
        for n in 1..=3 {
            let mut r = Resp::new(session, n, k as i64 * 60 + n as i64 * 10);
            r.version = r"2.1.\u001b[2J1".into();
            want += r.sonnet_cost();
            lines.extend(
                r.to_lines().into_iter().map(|l| l.replace(r#""cwd":"/home/u/app""#, &format!(r#""cwd":"{cwd}""#))),
            );
        }
        write(&root, &format!("{project}/s{k}.jsonl"), &lines);
    }
    let local_totals = totals(&cachewise(Some(&root), &local, &["report", "daily", "--json"]), "local daily");
    assert_eq!(local_totals.0, 6);
    assert!((local_totals.1 - want).abs() < 1e-9, "{local_totals:?} against {want}");
    let bundle = tmp.path().join("b.parquet");
    let o = cachewise(Some(&root), &local, &["export", "--user", "ana", "--out", bundle.to_str().unwrap()]);
    let note = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{note}");
    check_lines("export", &note);
    assert!(note.contains("name(s) held control or bidi characters or were over 4096 bytes"), "{note}");
    let b = cachewise::team::read_bundle(&std::fs::read(&bundle).unwrap(), "b").unwrap();
    let r = &b.requests[0];
    assert_eq!(r.project.as_str(), "-home-u-\u{fffd}[31mred\u{fffd}app\u{fffd}txt", "each character replaced");
    assert_eq!(r.cwd.len(), 4096, "cut to the bound");
    assert!(r.cwd.starts_with("/home/u/\u{fffd}[31mred\u{fffd}app\u{fffd}txt/ddd"));
    assert_eq!(b.analysis.as_ref().map(|a| a.rows.height()), Some(6), "the analysis rows travel too");
    let o = cachewise(None, &team, &["import", bundle.to_str().unwrap()]);
    text(&o, "import");
    assert_eq!(totals(&cachewise(None, &team, &["report", "daily", "--json"]), "team daily"), local_totals);
    for args in [&["report", "team"][..], &["report", "team", "--csv"], &["report", "team", "--md"]] {
        let out = text(&cachewise(None, &team, args), &format!("{args:?}"));
        check_lines(&format!("{args:?}"), &out);
        assert!(out.contains("ana"), "{args:?}: {out}");
    }
    let out = text(&cachewise(None, &team, &["report", "session"]), "team sessions");
    check_lines("team sessions", &out);
    let out = text(&cachewise(None, &team, &["report", "project"]), "team projects");
    check_lines("team projects", &out);
    assert!(out.contains("/home/u/\u{fffd}[31mred\u{fffd}app\u{fffd}txt/ddd"), "the project by its path: {out}");
}
