//! Fuzzing the bundle reader: random bytes, and valid bundles
//! with bytes flipped, overwritten, cut short or spliced, never panic and
//! never make the reader allocate past its caps (the process's peak
//! resident memory stays within a bound far below what one lying page
//! header could claim). Bounded for CI: `CACHEWISE_FUZZ_CASES` (default
//! 1,500) inputs; run more by setting it. Alone in its binary, so the peak
//! memory is this test's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::team_support as support;

use cachewise::team::limits::BundleLimits;
use cachewise::team::read_bundle_limited;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use support::*;

/// Caps for the fuzz: 5,000 rows, 4 MiB after decompression.
const LIMITS: BundleLimits =
    BundleLimits { rows: 5_000, decompressed: 4 << 20, latest: chrono::DateTime::<chrono::Utc>::MAX_UTC };

/// How much the peak resident memory may grow over the whole run.
const PEAK_GROWTH: u64 = 192 << 20;

fn seeds() -> Vec<Vec<u8>> {
    [3u64, 40, 700]
        .iter()
        .map(|&n| {
            let rows = (1..=n).map(|k| row(&format!("u{}", k % 3), "s1", k, k as i64)).collect();
            bytes_of(&bundle_of("u0", rows))
        })
        .collect()
}

/// Peak resident memory (VmHWM) in bytes; None off Linux.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Splice(usize, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), prop_oneof![Just(0u8), Just(0x7f), Just(0xff), any::<u8>()])
            .prop_map(|(i, b)| Mutation::Set(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, v)| Mutation::Splice(i, v)),
    ]
}

fn apply(mut bytes: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let n = bytes.len().max(1);
        match m {
            Mutation::Flip(i, b) => {
                if let Some(x) = bytes.get_mut(i % n) {
                    *x ^= b;
                }
            }
            Mutation::Set(i, b) => {
                if let Some(x) = bytes.get_mut(i % n) {
                    *x = *b;
                }
            }
            Mutation::Truncate(i) => bytes.truncate(i % n),
            Mutation::Splice(i, v) => {
                let at = i % n;
                bytes.splice(at..at, v.iter().copied());
            }
        }
    }
    bytes
}

#[derive(Debug, Default)]
struct Tally {
    read: usize,
    refused: std::collections::BTreeMap<String, usize>,
}

fn kind(e: &cachewise::team::TeamError) -> String {
    let s = format!("{e:?}");
    s.split([' ', '{', '(']).next().unwrap_or_default().to_owned()
}

#[test]
fn random_and_mutated_bundles_never_panic_nor_allocate_past_the_caps() {
    let cases: u32 = std::env::var("CACHEWISE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_500);
    let seeds = seeds();
    // Warm up (thread pools, the first reads) before the baseline.
    for s in &seeds {
        assert!(read_bundle_limited(s, "seed", &LIMITS).is_ok());
    }
    let baseline = peak_rss();
    let started = std::time::Instant::now();
    let tally = std::cell::RefCell::new(Tally::default());
    let input = prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..2048).prop_map(|mut v| {
            // Half of them look like Parquet at both ends.
            if v.len() > 8 && v[0] % 2 == 0 {
                v[..4].copy_from_slice(b"PAR1");
                let n = v.len();
                v[n - 4..].copy_from_slice(b"PAR1");
            }
            v
        }),
        6 => (0..seeds.len(), proptest::collection::vec(mutation(), 1..6)).prop_map(move |(i, ms)| apply(seeds[i].clone(), &ms)),
    ];
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    // The decoder's own panics are caught and refused as damaged files;
    // keep their messages out of the test's output.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = runner.run(&input, |bytes| {
        match read_bundle_limited(&bytes, "fuzz", &LIMITS) {
            Ok(b) => {
                prop_assert!(b.requests.len() + b.compactions.len() <= LIMITS.rows as usize);
                tally.borrow_mut().read += 1;
            }
            Err(e) => *tally.borrow_mut().refused.entry(kind(&e)).or_default() += 1,
        }
        Ok(())
    });
    std::panic::set_hook(hook);
    result.unwrap();
    let t = tally.into_inner();
    eprintln!("fuzz: {cases} inputs in {:?}: {} read, refused {:?}", started.elapsed(), t.read, t.refused);
    if let (Some(before), Some(after)) = (baseline, peak_rss()) {
        eprintln!("fuzz: peak RSS {} MiB -> {} MiB", before >> 20, after >> 20);
        assert!(after.saturating_sub(before) < PEAK_GROWTH, "peak RSS grew by {} MiB", (after - before) >> 20);
    }
    assert!(t.read > 0 && !t.refused.is_empty(), "the fuzz exercised both paths: {t:?}");
}
