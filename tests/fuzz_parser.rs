//! A bounded fuzz of the transcript line parser: random bytes,
//! mutated real-shaped lines, huge numbers, deep nesting and invalid UTF-8,
//! between good lines. Asserts that nothing panics, that the output is
//! bounded by the input (rows <= lines, titles <= 200 characters, at most 5
//! kept samples), that every good line around the bad ones is kept with its
//! exact counts, and that bad lines are counted. 256 cases per property in CI
//! (a few seconds); `PROPTEST_CASES=200000 cargo test --release --test
//! fuzz_parser` runs it longer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::discover::SourceFile;
use cachewise::ingest::parse::{parse_bytes, FileRows, Start};
use cachewise::ingest::sidechain::Links;
use common::Resp;
use proptest::prelude::*;
use std::path::PathBuf;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn file() -> SourceFile {
    SourceFile {
        path: PathBuf::from("/fuzz/s.jsonl"),
        project: "fuzz".into(),
        session: None,
        agent: None,
        size: 0,
        mtime_ns: 0,
    }
}

fn parse(data: &[u8]) -> FileRows {
    parse_bytes(&file(), data, Start::default(), &mut Links::default(), chrono::Utc::now())
}

/// A real-shaped assistant line (content included) of a response no good
/// line shares, so a mutation can never pose as a good line.
fn hostile_base(n: u64) -> String {
    let mut r = Resp::new("evil", n, n as i64);
    r.lines = 1;
    r.msg = format!("evil_msg_{n}");
    r.to_lines().pop().unwrap()
}

/// One bad or odd line (never containing a newline).
fn hostile_line() -> impl Strategy<Value = Vec<u8>> {
    let random = proptest::collection::vec(any::<u8>(), 0..600);
    let huge = (0u64..3, prop_oneof![Just(u64::MAX), Just(1u64 << 63), Just(1_000_000_001u64)], 0usize..6).prop_map(
        |(n, v, field)| {
            let keys = [
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "ephemeral_5m_input_tokens",
                "cache_creation_input_tokens",
                "ephemeral_1h_input_tokens",
            ];
            let line = hostile_base(n);
            let key = format!("\"{}\":", keys[field]);
            match line.find(&key) {
                Some(i) => {
                    let end = i + key.len() + line[i + key.len()..].find([',', '}']).unwrap_or(0);
                    format!("{}{v}{}", &line[..i + key.len()], &line[end..]).into_bytes()
                }
                None => line.into_bytes(),
            }
        },
    );
    let mutated = (0u64..4, proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)).prop_map(
        |(n, edits)| {
            let mut b = hostile_base(n).into_bytes();
            for (at, byte) in edits {
                let i = at.index(b.len());
                b[i] = byte;
            }
            b
        },
    );
    let truncated = (0u64..4, any::<prop::sample::Index>()).prop_map(|(n, at)| {
        let b = hostile_base(n).into_bytes();
        b[..at.index(b.len())].to_vec()
    });
    let nested = (1usize..20_000, any::<bool>()).prop_map(|(depth, obj)| {
        let (open, close) = if obj { ("{\"a\":", "}") } else { ("[", "]") };
        format!("{{\"type\":\"assistant\",\"message\":{{\"usage\":{}1{}}}}}", open.repeat(depth), close.repeat(depth))
            .into_bytes()
    });
    let bad_utf8 = (0u64..4, any::<prop::sample::Index>()).prop_map(|(n, at)| {
        let mut b = hostile_base(n).into_bytes();
        let i = at.index(b.len());
        b.splice(i..i, [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
        b
    });
    let long_title = (1usize..5000).prop_map(|n| {
        format!(r#"{{"type":"ai-title","sessionId":"s","aiTitle":"{}"}}"#, "\u{1b}é".repeat(n)).into_bytes()
    });
    prop_oneof![random, huge, mutated, truncated, nested, bad_utf8, long_title]
        .prop_map(|b| b.into_iter().map(|c| if c == b'\n' { b' ' } else { c }).collect())
}

/// Good responses (one line each) and hostile lines, interleaved.
fn tree() -> impl Strategy<Value = (Vec<Resp>, Vec<u8>, usize)> {
    proptest::collection::vec(prop_oneof![Just(None::<Vec<u8>>), hostile_line().prop_map(Some)], 1..24).prop_map(
        |slots| {
            let mut good = Vec::new();
            let mut data = Vec::new();
            let mut lines = 0;
            for (i, slot) in slots.into_iter().enumerate() {
                match slot {
                    None => {
                        let mut r = Resp::new("good", i as u64, i as i64);
                        r.lines = 1;
                        data.extend(r.to_lines().pop().unwrap().into_bytes());
                        good.push(r);
                    }
                    Some(bytes) => data.extend(bytes),
                }
                data.push(b'\n');
                lines += 1;
            }
            (good, data, lines)
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_bytes_never_panic_and_stay_bounded(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let rows = parse(&data);
        let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
        prop_assert!(rows.problems.lines <= newlines);
        prop_assert!(rows.requests.len() as u64 <= newlines);
        prop_assert!(rows.problems.samples.len() <= 5);
        prop_assert!(rows.end.offset <= data.len() as u64);
    }

    #[test]
    fn good_lines_around_bad_ones_are_kept((good, data, lines) in tree()) {
        let rows = parse(&data);
        prop_assert_eq!(rows.end.line, lines as u64);
        prop_assert_eq!(rows.end.offset, data.len() as u64);
        prop_assert!(rows.problems.samples.len() <= 5);
        prop_assert!(rows.problems.lines - rows.problems.bad >= good.len() as u64);
        prop_assert!(rows.titles.iter().all(|t| t.title.chars().count() <= 200));
        for r in &good {
            let got = rows.requests.iter().find(|q| q.message_id == r.msg);
            prop_assert!(got.is_some(), "good line {} lost", r.msg);
            let t = got.unwrap().tokens;
            prop_assert_eq!((t.input, t.cache_write_5m, t.cache_read, t.output), (r.input, r.w5, r.read, r.out));
        }
        for q in &rows.requests {
            prop_assert!(q.tokens.above_bound().is_none(), "{:?}", q.tokens);
        }
    }
}
