//! Hostile numbers: token fields above the bound of 10^9
//! per request are bad lines naming file and line, good lines around them
//! are kept, and no sum wraps; bundles carrying such values are refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::usage;
use cachewise::store::Store;
use cachewise::update::ingest;
use common::*;

fn prices() -> PriceTable {
    PriceTable::load(None).unwrap()
}

fn one_line(session: &str, n: u64, edit: impl Fn(&mut Resp)) -> String {
    let mut r = Resp::new(session, n, n as i64);
    r.lines = 1;
    edit(&mut r);
    r.to_lines().pop().unwrap()
}

#[test]
fn token_field_above_bound_is_a_bad_line() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (Resp::new("s1", 1, 0), Resp::new("s1", 5, 9));
    let mut lines = a.to_lines();
    lines.push(one_line("s1", 2, |r| r.out = u64::MAX));
    lines.push(one_line("s1", 3, |r| r.input = 1 << 63));
    lines.push(one_line("s1", 4, |r| r.input = 1 << 63));
    lines.push(one_line("s1", 6, |r| r.read = 1_000_000_001));
    let mut at_bound = Resp::new("s1", 7, 7);
    (at_bound.lines, at_bound.read) = (1, 1_000_000_000);
    lines.extend(at_bound.to_lines()); // at the bound: kept
    lines.extend(b.to_lines());
    write(root.path(), "-p/s1.jsonl", &lines);
    let store = Store::open(data.path()).unwrap();
    let o = ingest(&[root.path().to_path_buf()], &store, &prices(), &Silent, chrono::Utc::now()).unwrap();
    assert_eq!(o.problems.bad, 4, "{:?}", o.problems.samples);
    let s = &o.problems.samples;
    assert_eq!(s.iter().map(|b| b.line).collect::<Vec<_>>(), [4, 5, 6, 7]);
    assert!(s[0].path.ends_with("s1.jsonl"));
    assert_eq!(
        s[0].reason,
        format!("usage.output_tokens {} is above the bound of 1000000000 tokens per request", u64::MAX)
    );
    assert_eq!(
        s[1].reason,
        format!("usage.input_tokens {} is above the bound of 1000000000 tokens per request", 1u64 << 63)
    );
    assert!(s[3].reason.starts_with("usage.cache_read_input_tokens 1000000001 "), "{}", s[3].reason);
    let t = usage(&common::view(&store, &prices(), common::t0()), Grouping::Daily, &Query::new(chrono_tz::UTC))
        .unwrap()
        .total;
    assert_eq!(t.requests, 3);
    assert_eq!(t.tokens.input, a.input + b.input + at_bound.input);
    assert_eq!(t.tokens.cache_read, a.read + b.read + 1_000_000_000);
    assert_eq!(t.tokens.output, a.out + b.out + at_bound.out);
    // The request at the bound has a 10^9-token prompt: Sonnet 4.5's long
    // context premium (2x input classes, 1.5x output) applies.
    let out_cost = at_bound.out as f64 * 15e-6;
    let long = 2.0 * (at_bound.sonnet_cost() - out_cost) + 1.5 * out_cost;
    let cost = a.sonnet_cost() + b.sonnet_cost() + long;
    assert!((t.cost_usd - cost).abs() < 1e-9, "{} vs {cost}", t.cost_usd);
}

#[test]
fn bundle_with_token_above_bound_is_refused() {
    use cachewise::team::{bundle_bytes, export, read_bundle, ExportSpec};
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lines: Vec<String> = (1..=2).flat_map(|n| Resp::new("s1", n, n as i64).to_lines()).collect();
    write(root.path(), "-p/s1.jsonl", &lines);
    let store = Store::open(data.path()).unwrap();
    ingest(&[root.path().to_path_buf()], &store, &prices(), &Silent, chrono::Utc::now()).unwrap();
    let spec = ExportSpec {
        user: "mallory".into(),
        machine: "m".into(),
        since: None,
        until: None,
        hasher: None,
        created: t0(),
    };
    let mut bundle = export(&store, &spec).unwrap();
    assert!(read_bundle(&bundle_bytes(&bundle).unwrap(), "ok.parquet").is_ok());
    // Two rows of 2^63 would sum to 0 (mod 2^64): the checksum is right, the values are not.
    bundle.requests[0].tokens.input = 1 << 63;
    bundle.requests[1].tokens.input = 1 << 63;
    let err = read_bundle(&bundle_bytes(&bundle).unwrap(), "evil.parquet").unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "evil.parquet: damaged bundle: request row 1 (message \"{}\"): input_tokens 9223372036854775808 is above \
the bound of 1000000000 tokens per request",
            bundle.requests[0].message_id
        )
    );
}
