//! A file read in blocks parses as if read at once: the reader feeds one
//! `Parser` per file the bytes of each block after the lines it already
//! consumed, so a response whose lines straddle two blocks is still one
//! candidate row (most output, earliest time), and a cut inside a line
//! leaves that line for the next block.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::discover::SourceFile;
use cachewise::ingest::parse::{parse_bytes, FileRows, Parser, Start};
use cachewise::ingest::sidechain::Links;
use common::{user_line, Resp};
use proptest::prelude::*;
use std::path::PathBuf;

fn file() -> SourceFile {
    SourceFile {
        path: PathBuf::from("/blocks/s.jsonl"),
        project: "blocks".into(),
        session: Some("s".into()),
        agent: None,
        size: 0,
        mtime_ns: 0,
    }
}

/// `data` fed in blocks cut at `cuts`, as `read::stream` feeds a file.
fn in_blocks(data: &[u8], cuts: &[usize]) -> FileRows {
    let (file, mut links) = (file(), Links::default());
    let mut parser = Parser::new(&file, Start::default(), &mut links, chrono::Utc::now());
    let mut buf = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([&data.len()]) {
        let cut = cut.clamp(from, data.len());
        buf.extend_from_slice(&data[from..cut]);
        from = cut;
        let used = parser.feed(&buf);
        buf.drain(..used);
    }
    parser.finish()
}

fn whole(data: &[u8]) -> FileRows {
    parse_bytes(&file(), data, Start::default(), &mut Links::default(), chrono::Utc::now())
}

/// Responses of 1 to 4 lines each, with user lines between.
fn transcript(shape: &[(usize, u64)]) -> Vec<u8> {
    let mut out = String::new();
    for (n, &(lines, output)) in shape.iter().enumerate() {
        let mut r = Resp::new("s", n as u64, n as i64);
        (r.lines, r.out) = (lines, 100 + output);
        for l in r.to_lines() {
            out.push_str(&l);
            out.push('\n');
        }
        out.push_str(&user_line("s", n as i64));
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn a_response_cut_between_its_lines_is_one_row() {
    let mut r = Resp::new("s", 1, 0);
    (r.lines, r.out) = (3, 777);
    let lines = r.to_lines();
    let data = format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2]).into_bytes();
    // Cut after the first line, and inside the third.
    let first = lines[0].len() + 1;
    let rows = in_blocks(&data, &[first, first + lines[1].len() + 10]);
    assert_eq!(rows.requests.len(), 1);
    assert_eq!(rows.requests[0].tokens.output, 777);
    assert_eq!(rows.requests[0].time, r.time, "the first line's time");
    assert_eq!(rows.requests[0].line, 3, "the line with most output");
    assert_eq!((rows.end.offset, rows.end.line), (data.len() as u64, 3));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_cut_into_blocks_parses_as_the_whole(
        shape in proptest::collection::vec((1usize..5, 0u64..1000), 1..12),
        cuts in proptest::collection::vec(0usize..20_000, 0..8),
        tail in 0usize..40,
    ) {
        let mut data = transcript(&shape);
        // A half-written last line stays unread either way.
        data.extend_from_slice(&br#"{"type":"assistant","message":{"id":"half"#[..tail.min(36)]);
        let mut cuts = cuts;
        cuts.sort_unstable();
        let (a, b) = (in_blocks(&data, &cuts), whole(&data));
        prop_assert_eq!(&a.requests, &b.requests);
        prop_assert_eq!(a.requests.len(), shape.len());
        prop_assert_eq!((a.end.offset, a.end.line), (b.end.offset, b.end.line));
        prop_assert_eq!(a.problems.lines, b.problems.lines);
        for (r, &(_, output)) in a.requests.iter().zip(&shape) {
            prop_assert_eq!(r.tokens.output, 100 + output);
        }
    }
}

/// A file on disk read by `read::read_file`, whatever size discovery saw:
/// the same rows as the bytes parsed at once, the end at the last newline,
/// and the fingerprinted head the file's first bytes.
#[test]
fn a_file_reads_whole_whatever_size_discovery_saw() {
    use cachewise::ingest::read::{read_file, Mode};
    use cachewise::store::manifest::{fingerprint, HEAD_LEN};
    let shape: Vec<(usize, u64)> = (0..40).map(|n| (1 + n % 4, n as u64 * 7)).collect();
    let mut data = transcript(&shape);
    let complete = data.len();
    data.extend_from_slice(br#"{"type":"assistant","message":{"id":"half"#);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, &data).unwrap();
    let on_disk = SourceFile { path: path.clone(), ..file() };
    let want = parse_bytes(&on_disk, &data, Start::default(), &mut Links::default(), chrono::Utc::now());
    assert_eq!(want.end.offset, complete as u64);
    assert!(complete > HEAD_LEN as usize, "the head is a prefix");
    // As discovered, grown since (seen smaller), shrunk since (seen larger).
    for seen in [data.len() as u64, 100, data.len() as u64 * 3] {
        let file = SourceFile { size: seen, ..on_disk.clone() };
        let read = read_file(&file, None, chrono::Utc::now());
        assert_eq!(read.mode, Mode::Full);
        assert_eq!(read.rows.requests, want.requests, "seen {seen}");
        assert_eq!(read.rows.requests.len(), shape.len());
        assert_eq!((read.rows.end.offset, read.rows.end.line), (want.end.offset, want.end.line));
        assert_eq!(read.bytes, complete as u64);
        assert_eq!(read.state.head_len, HEAD_LEN);
        assert_eq!(read.state.head_hash, fingerprint(&data[..HEAD_LEN as usize]));
    }
    // A file shorter than the head: the head is what was read.
    let short = transcript(&[(1, 5)]);
    std::fs::write(&path, &short).unwrap();
    let read = read_file(&SourceFile { path, size: short.len() as u64, ..file() }, None, chrono::Utc::now());
    assert_eq!(read.state.head_len, short.len() as u64);
    assert_eq!(read.state.head_hash, fingerprint(&short));
    assert_eq!(read.rows.requests.len(), 1);
}
