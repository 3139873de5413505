//! Ingest and report behaviour on generated transcript trees: deduplication,
//! bad input, incremental reads, and that message content never reaches the
//! store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::usage;
use cachewise::store::{Store, Table};
use cachewise::update::ingest;
use common::*;
use std::fs;
use std::path::Path;

fn prices() -> PriceTable {
    PriceTable::load(None).unwrap()
}

fn run(root: &Path, data: &Path) -> cachewise::ingest::Outcome {
    ingest(&[root.to_path_buf()], &Store::open(data).unwrap(), &prices(), &Silent, chrono::Utc::now()).unwrap()
}

fn daily_total(data: &Path) -> cachewise::report::usage::Totals {
    usage(
        &common::view(&Store::open(data).unwrap(), &prices(), common::t0()),
        Grouping::Daily,
        &Query::new(chrono_tz::UTC),
    )
    .unwrap()
    .total
}

/// Session `s1` (3 responses of 3 lines), its sub-agent (2), and session
/// `s2`, which replays s1's first response (resume) and holds a sidechain
/// replay of s1's second one under another request id.
fn tree(root: &Path) -> Vec<Resp> {
    let main: Vec<Resp> = (1..=3).map(|n| Resp::new("s1", n, n as i64 * 2)).collect();
    let mut sub: Vec<Resp> = (4..=5).map(|n| Resp::new("s1", n, n as i64 * 2)).collect();
    for r in &mut sub {
        r.agent = Some("a1b2c3d".into());
        r.sidechain = true;
        r.model = "claude-haiku-4-5-20251001".into();
    }
    let mut lines = vec![user_line("s1", 0), title_line("s1", "Fix the <b>build</b>")];
    main.iter().for_each(|r| lines.extend(r.to_lines()));
    lines.push(compact_line("s1", 30, 167_094));
    write(root, "-home-u-app/s1.jsonl", &lines);
    write(
        root,
        "-home-u-app/s1/subagents/agent-a1b2c3d.jsonl",
        &sub.iter().flat_map(Resp::to_lines).collect::<Vec<_>>(),
    );
    let mut replay = main[1].clone();
    replay.req = "req_other".into();
    replay.sidechain = true;
    let mut s2 = main[0].to_lines();
    s2.extend(replay.to_lines());
    let own = Resp::new("s2", 9, 60);
    s2.extend(own.to_lines());
    write(root, "-home-u-app/s2.jsonl", &s2);
    let mut all = main;
    all.extend(sub);
    all.push(own);
    all
}

#[test]
fn dedups_across_files_and_prices_every_request() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let expected = tree(root.path());
    let o = run(root.path(), data.path());
    assert_eq!(o.requests, Some(expected.len()));
    assert_eq!(o.problems.bad, 0);
    let t = daily_total(data.path());
    assert_eq!(t.requests, 6);
    assert_eq!(t.tokens.output, expected.iter().map(|r| r.out).sum::<u64>());
    assert_eq!(t.tokens.cache_read, expected.iter().map(|r| r.read).sum::<u64>());
    // Haiku 4.5 is a third of Sonnet 4.5's price per token class.
    let cost: f64 =
        expected.iter().map(|r| if r.agent.is_some() { r.sonnet_cost() / 3.0 } else { r.sonnet_cost() }).sum();
    assert!((t.cost_usd - cost).abs() < 1e-9, "{} vs {cost}", t.cost_usd);
}

#[test]
fn store_never_holds_message_content() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    run(root.path(), data.path());
    for entry in fs::read_dir(data.path()).unwrap() {
        let bytes = fs::read(entry.unwrap().path()).unwrap();
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()));
        assert!(!bytes.windows(6).any(|w| w == b"please"));
    }
}

#[test]
fn sessions_threads_titles_and_compactions() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    run(root.path(), data.path());
    let store = Store::open(data.path()).unwrap();
    let req = cachewise::store::frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    let threads: Vec<(&str, &str)> = req.iter().map(|r| (r.session_id.as_str(), r.thread.as_str())).collect();
    assert_eq!(threads.iter().filter(|t| **t == ("s1", "a1b2c3d")).count(), 2);
    assert_eq!(threads.iter().filter(|t| **t == ("s1", "main")).count(), 3);
    // The resumed copy keeps the original file's row (first by path).
    let first = req.iter().find(|r| r.message_id == "msg_s1_1").unwrap();
    assert!(first.source.ends_with("s1.jsonl"));
    assert_eq!(first.tokens.output, 101);
    assert_eq!(first.time, t0() + chrono::Duration::minutes(2));
    let comp = cachewise::store::frames::compactions_from(&store.read(Table::Compactions).unwrap().unwrap()).unwrap();
    assert_eq!(comp.len(), 1);
    assert_eq!((comp[0].trigger.as_str(), comp[0].pre_tokens), ("auto", Some(167_094)));
    let s =
        usage(&common::view(&store, &prices(), common::t0()), Grouping::Session, &Query::new(chrono_tz::UTC)).unwrap();
    let s1 = s.rows.iter().find(|r| r.key == "s1").unwrap();
    assert_eq!(s1.title, "Fix the <b>build</b>");
    assert_eq!(s1.totals.requests, 5);
}

#[test]
fn bad_lines_are_counted_with_file_and_line_and_good_lines_kept() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let good = Resp::new("s3", 1, 0);
    let mut neg = Resp::new("s3", 2, 1).to_lines().pop().unwrap();
    neg = neg.replace("\"input_tokens\":5", "\"input_tokens\":-5");
    let mut lines = vec!["{not json".to_string(), neg, r#"{"type":"brand-new-type","x":1}"#.into()];
    lines.extend(good.to_lines());
    lines.push(
        String::from_utf8_lossy(
            b"{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":1}},\"x\":\"\xff\"}",
        )
        .into(),
    );
    let path = write(root.path(), "-p/s3.jsonl", &lines);
    // CRLF line ends are accepted.
    let text = fs::read_to_string(&path).unwrap().replace('\n', "\r\n");
    fs::write(&path, text).unwrap();
    write(root.path(), "-p/empty.jsonl", &[]);
    fs::create_dir_all(root.path().join("projects/-p/dir.jsonl")).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!(o.problems.bad, 3, "{:?}", o.problems.samples);
    assert_eq!(o.problems.samples[0].line, 1);
    assert!(o.problems.samples[0].path.ends_with("s3.jsonl"));
    assert_eq!(o.problems.samples[1].line, 2);
    let t = daily_total(data.path());
    assert_eq!(t.requests, 1);
    assert_eq!(t.tokens.output, good.out);
}

#[test]
fn half_written_last_line_is_read_once_complete() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Resp::new("s4", 1, 0);
    let path = write(root.path(), "-p/s4.jsonl", &a.to_lines());
    let b = Resp::new("s4", 2, 5);
    let b_text = b.to_lines().join("\n") + "\n";
    let (head, tail) = b_text.split_at(b_text.len() - 40);
    append(&path, head);
    run(root.path(), data.path());
    let t = daily_total(data.path());
    assert_eq!(t.requests, 2, "complete lines of b are read");
    assert_eq!(t.tokens.output, a.out + 2, "b's last line is not complete yet: its placeholder counts");
    append(&path, tail);
    let o = run(root.path(), data.path());
    assert_eq!(o.files_read, 1);
    assert_eq!(daily_total(data.path()).tokens.output, a.out + b.out);
}

#[test]
fn unchanged_files_are_not_read_and_rewritten_files_keep_their_paid_rows() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    run(root.path(), data.path());
    let before = fs::read(data.path().join("requests.parquet")).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!((o.files_read, o.changed), (0, false));
    assert_eq!(fs::read(data.path().join("requests.parquet")).unwrap(), before);
    // Rewrite s2 with one other response only: its earlier one was paid for.
    let r = Resp::new("s2", 7, 90);
    write(root.path(), "-home-u-app/s2.jsonl", &r.to_lines());
    let o = run(root.path(), data.path());
    assert_eq!(daily_total(data.path()).requests, 7, "s2's request is kept beside the new one");
    assert_eq!(o.kept_from_rewritten, 1);
    // A deleted transcript keeps its history.
    fs::remove_file(root.path().join("projects/-home-u-app/s2.jsonl")).unwrap();
    Resp::new("s1", 8, 100)
        .to_lines()
        .iter()
        .for_each(|l| append(&root.path().join("projects/-home-u-app/s1.jsonl"), &format!("{l}\n")));
    run(root.path(), data.path());
    assert_eq!(daily_total(data.path()).requests, 8);
}

#[test]
fn a_transcript_rewritten_shorter_or_emptied_keeps_every_paid_request() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let exchanges: Vec<Resp> = (1..=10).map(|n| Resp::new("s", n, n as i64)).collect();
    let lines = |rs: &[Resp]| rs.iter().flat_map(Resp::to_lines).collect::<Vec<_>>();
    let path = write(root.path(), "-home-u-app/s.jsonl", &lines(&exchanges));
    run(root.path(), data.path());
    let paid = daily_total(data.path());
    assert_eq!(paid.requests, 10);
    // A rewind: the first five exchanges, then two new ones.
    let mut rewound = exchanges[..5].to_vec();
    rewound.extend([Resp::new("s", 11, 20), Resp::new("s", 12, 21)]);
    write(root.path(), "-home-u-app/s.jsonl", &lines(&rewound));
    let o = run(root.path(), data.path());
    assert_eq!(o.kept_from_rewritten, 5, "the five exchanges the rewind dropped");
    let after = daily_total(data.path());
    assert_eq!(after.requests, 12);
    let new: f64 = rewound[5..].iter().map(Resp::sonnet_cost).sum();
    assert!((after.cost_usd - paid.cost_usd - new).abs() < 1e-9);
    // Emptied: nothing read, nothing lost.
    std::fs::write(&path, "").unwrap();
    let o = run(root.path(), data.path());
    assert_eq!(o.kept_from_rewritten, 12, "every request the file held");
    assert_eq!(daily_total(data.path()).requests, 12);
    let out = cachewise(root.path(), data.path(), &["ingest"]);
    assert!(out.status.success());
}

#[test]
fn a_store_of_an_older_layout_is_rebuilt_without_losing_deleted_transcripts() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    run(root.path(), data.path());
    let before = daily_total(data.path());
    // As a store of layout 2 left it: an older manifest and its lines table.
    let manifest = data.path().join("manifest.json");
    let text = fs::read_to_string(&manifest).unwrap();
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    assert!(text.contains(&current), "{text:.80}");
    fs::write(&manifest, text.replacen(&current, "\"schema\":2", 1)).unwrap();
    fs::write(data.path().join("lines.parquet"), b"old layout").unwrap();
    fs::remove_file(root.path().join("projects/-home-u-app/s2.jsonl")).unwrap();
    let o = run(root.path(), data.path());
    assert!(o.changed);
    assert!(!data.path().join("lines.parquet").exists(), "the old layout's table is removed");
    let after = daily_total(data.path());
    assert_eq!((after.requests, after.tokens), (before.requests, before.tokens), "s2's rows outlive its file");
    assert!((after.cost_usd - before.cost_usd).abs() < 1e-12);
}

#[test]
fn missing_roots_are_explained() {
    let data = tempfile::tempdir().unwrap();
    let err =
        ingest(&[data.path().join("nope")], &Store::open(data.path()).unwrap(), &prices(), &Silent, chrono::Utc::now())
            .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("no Claude Code transcripts found") && msg.contains("nope/projects"), "{msg}");
}

#[test]
fn huge_line_is_read() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut lines = vec![format!(r#"{{"type":"user","message":{{"content":"{}"}}}}"#, "x".repeat(12 << 20))];
    let r = Resp::new("s5", 1, 0);
    lines.extend(r.to_lines());
    write(root.path(), "-p/s5.jsonl", &lines);
    run(root.path(), data.path());
    assert_eq!(daily_total(data.path()).tokens.output, r.out);
}

#[test]
fn a_line_longer_than_the_bound_is_a_bad_line_named_with_its_offset() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (Resp::new("s6", 1, 0), Resp::new("s6", 2, 1));
    let first = a.to_lines().join("\n") + "\n";
    let long = "x".repeat(cachewise::ingest::read::MAX_LINE + 1);
    let mut text = format!("{first}{long}\n");
    text += &(b.to_lines().join("\n") + "\n");
    let path = root.path().join("projects/-p/s6.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &text).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!((o.problems.bad, o.problems.lines), (1, 7), "{:?}", o.problems.samples);
    let bad = &o.problems.samples[0];
    assert_eq!((bad.path.as_path(), bad.line), (path.as_path(), 4));
    let want = format!("a line of {} bytes at byte offset {} is longer than the bound", long.len() + 1, first.len());
    assert!(bad.reason.starts_with(&want), "{bad}");
    assert_eq!(o.bytes_read, text.len() as u64, "the long line is read past, not left for later");
    let t = daily_total(data.path());
    assert_eq!((t.requests, t.tokens.output), (2, a.out + b.out), "the lines after it are read");
}

#[test]
fn a_2_gb_sparse_file_is_one_bad_line_and_read_once() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let good = Resp::new("s7", 1, 0);
    write(root.path(), "-p/s7.jsonl", &good.to_lines());
    let sparse = root.path().join("projects/-p/sparse.jsonl");
    fs::File::create(&sparse).unwrap().set_len(2 << 30).unwrap();
    let started = std::time::Instant::now();
    let o = cachewise(root.path(), data.path(), &["ingest"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("2 files, 2 read (2147.5 MB), 4 lines, 1 malformed; 1 request stored"), "{out}");
    let named =
        format!("{}:1: a line of {} bytes at byte offset 0 is longer than the bound", sparse.display(), 2u64 << 30);
    assert!(err.contains(&named), "{err}");
    eprintln!("ingest of a 2 GiB sparse file (debug build): {:?}", started.elapsed());
    let again = cachewise(root.path(), data.path(), &["ingest"]);
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("2 files, 0 read"), "not read again");
}

/// A 3 GiB hole inside a line, between two good responses: the hole is
/// seeked over (`ingest::holes`), not read, so the ingest takes well under
/// a second and little memory (measured by hand, not asserted here); the
/// line is named with its offset and length, the responses on both sides
/// are stored, and a later append is read from after it.
#[test]
fn a_hole_inside_a_line_is_one_bad_line_and_the_lines_around_it_are_read() {
    use std::io::{Seek, SeekFrom, Write};
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b, c) = (Resp::new("s9", 1, 0), Resp::new("s9", 2, 1), Resp::new("s9", 3, 2));
    let before = a.to_lines().join("\n") + "\n";
    let started = r#"{"type":"user","message":{"content":"x"#;
    let after = b.to_lines().join("\n") + "\n";
    let path = root.path().join("projects/-p/s9.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = fs::File::create(&path).unwrap();
    f.write_all(format!("{before}{started}").as_bytes()).unwrap();
    let hole = 3u64 << 30;
    f.set_len((before.len() + started.len()) as u64 + hole).unwrap();
    f.seek(SeekFrom::End(0)).unwrap();
    f.write_all(format!("\n{after}").as_bytes()).unwrap();
    let size = f.metadata().unwrap().len();
    let o = run(root.path(), data.path());
    assert_eq!((o.problems.bad, o.problems.lines), (1, 7), "{:?}", o.problems.samples);
    let bad = &o.problems.samples[0];
    assert_eq!((bad.path.as_path(), bad.line), (path.as_path(), 4));
    let len = started.len() as u64 + hole + 1;
    let want =
        format!("a line of {len} bytes at byte offset {} is longer than the bound of 67108864 bytes", before.len());
    assert!(bad.reason.starts_with(&want), "{bad}");
    assert_eq!(o.bytes_read, size, "the file is covered once, to its end");
    let t = daily_total(data.path());
    assert_eq!((t.requests, t.tokens.output), (2, a.out + b.out), "the responses on both sides");
    f.write_all((c.to_lines().join("\n") + "\n").as_bytes()).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!((o.problems.bad, o.bytes_read), (0, f.metadata().unwrap().len() - size), "only the append is read");
    let t = daily_total(data.path());
    assert_eq!((t.requests, t.tokens.output), (3, a.out + b.out + c.out));
}

#[test]
fn a_line_stamped_more_than_a_day_ahead_is_a_bad_line() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let now = chrono::Utc::now();
    let stamped = |n: u64, t: chrono::DateTime<chrono::Utc>| Resp { time: t, lines: 1, ..Resp::new("s8", n, 0) };
    let ok = [stamped(1, now - chrono::Duration::minutes(1)), stamped(2, now + chrono::Duration::hours(2))];
    let year = |y: i32| chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, y, 4, 12, 0, 0, 0).unwrap();
    let future = [stamped(3, year(2262)), stamped(4, year(9999))];
    let lines: Vec<String> = [&ok[..], &future[..]].concat().iter().flat_map(Resp::to_lines).collect();
    let path = write(root.path(), "-p/s8.jsonl", &lines);
    let o = run(root.path(), data.path());
    assert_eq!(o.problems.bad, 2, "{:?}", o.problems.samples);
    for (bad, line) in o.problems.samples.iter().zip([3, 4]) {
        assert_eq!((bad.path.as_path(), bad.line), (path.as_path(), line));
        assert!(bad.reason.contains("is more than a day after the clock"), "{bad}");
    }
    let t = daily_total(data.path());
    assert_eq!((t.requests, t.tokens.output), (2, ok[0].out + ok[1].out));
    // Nothing in the future is active or warm.
    let v: serde_json::Value = serde_json::from_slice(
        &cachewise(root.path(), data.path(), &["report", "blocks", "--json", "--no-ingest"]).stdout,
    )
    .unwrap();
    let ends = v["rows"].as_array().unwrap().iter().filter_map(|r| r["end"].as_str());
    let last = ends.map(|e| chrono::DateTime::parse_from_rfc3339(e).unwrap()).max().unwrap();
    assert!(last < now + chrono::Duration::days(1), "{v}");
    let advice = cachewise(root.path(), data.path(), &["advise", "s8", "--no-ingest"]);
    let advice = String::from_utf8_lossy(&advice.stdout);
    assert!(!advice.contains("days"), "{advice}");
}

/// The view counts the requests from the parts' footers (base and recent
/// part), and the view opened after an ingest takes the manifest it left.
#[test]
fn the_view_counts_both_parts_and_takes_the_manifest_the_ingest_left() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = write(root.path(), "-p/s5.jsonl", &Resp::new("s5", 1, 0).to_lines());
    run(root.path(), data.path());
    append(&path, &(Resp::new("s5", 2, 5).to_lines().join("\n") + "\n"));
    let o = run(root.path(), data.path());
    let store = Store::open(data.path()).unwrap();
    assert!(store.path(Table::RecentRequests).exists(), "the append wrote a recent part");
    let view = common::view(&store, &prices(), common::t0());
    let rows = view.requests().unwrap().collect().unwrap().height();
    assert_eq!((view.request_rows(), rows), (2, 2));
    // What the ingest saw: the transcript it found, and its manifest at the
    // store's version then, which the view takes instead of reading the file.
    assert!(o.seen.transcripts.contains(&path.to_string_lossy().into_owned()));
    let (version, mut manifest) = o.seen.manifest.clone().unwrap();
    assert_eq!(version, store.version());
    assert_eq!(manifest, store.manifest().unwrap());
    manifest.updated = Some("given".to_owned());
    let now = common::t0();
    let given = cachewise::materialize::view_after(&store, &prices(), now, Some((version, manifest.clone()))).unwrap();
    assert_eq!(given.manifest().updated.as_deref(), Some("given"));
    // At another version the file is read.
    let other = cachewise::store::view::Version(version.0 ^ 1);
    let read = cachewise::materialize::view_after(&store, &prices(), now, Some((other, manifest))).unwrap();
    assert_eq!(read.manifest(), &store.manifest().unwrap());
}

#[test]
fn transcripts_whose_names_differ_only_in_non_utf8_bytes_keep_their_own_rows() {
    use std::os::unix::ffi::OsStrExt;
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = root.path().join("projects/-home-u-app");
    fs::create_dir_all(&dir).unwrap();
    for (name, n) in [(&b"s\xff.jsonl"[..], 1), (&b"s\xfe.jsonl"[..], 2)] {
        let lines: Vec<String> = Resp::new("s", n, n as i64).to_lines();
        fs::write(dir.join(std::ffi::OsStr::from_bytes(name)), lines.join("\n") + "\n").unwrap();
    }
    for round in 0..3 {
        run(root.path(), data.path());
        assert_eq!(daily_total(data.path()).requests, 2, "round {round}: each file's request stays");
    }
}

/// A relative `--claude-dir` spelled another way (`./claude`, `claude`)
/// names the same transcripts: the second ingest reads nothing again.
#[test]
fn a_relative_claude_dir_spelled_another_way_reads_nothing_again() {
    let work = tempfile::tempdir().unwrap();
    write(&work.path().join("claude"), "-p/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    let data = work.path().join("data");
    let run = |root: &str| {
        let o = std::process::Command::new(common::bin())
            .current_dir(work.path())
            .args(["--claude-dir", root, "--data-dir"])
            .arg(&data)
            .arg("ingest")
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert!(run("./claude").starts_with("1 file, 1 read"), "the first ingest reads it");
    for spelled in ["claude", "claude/", "./claude/."] {
        let out = run(spelled);
        assert!(out.starts_with("1 file, 0 read"), "{spelled}: {out}");
    }
}
