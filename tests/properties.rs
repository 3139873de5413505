//! Property tests on generated transcript trees: ingesting twice changes
//! nothing; ingesting in two halves equals ingesting at once; ingesting
//! after every step of growing, replaying and rewriting files equals one
//! ingest of the final tree; every report
//! adds up to the same total; costs are never negative; a damaged copy of a
//! tree yields exactly the totals of its undamaged lines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use cachewise::ingest::Silent;
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::usage::{usage, Totals};
use cachewise::store::{frames, Store, Table};
use cachewise::update::ingest;
use common::{stepwise, write, Resp};
use proptest::prelude::*;
use std::path::Path;

const MODELS: &[&str] =
    &["claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-future-9"];

/// A generated session: (model index, minutes, tokens, lines) per response.
type Spec = Vec<Vec<(usize, i64, [u64; 5], usize)>>;

fn spec() -> impl Strategy<Value = Spec> {
    let resp = (0..MODELS.len(), 0i64..20_000, prop::array::uniform5(0u64..300_000), 1usize..4);
    prop::collection::vec(prop::collection::vec(resp, 1..6), 1..5)
}

/// Lines per file path; session k's file also replays session k-1's first response.
fn files(spec: &Spec) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut prev_first: Option<Vec<String>> = None;
    for (k, session) in spec.iter().enumerate() {
        let sid = format!("s{k}");
        let mut lines = prev_first.take().unwrap_or_default();
        for (n, (m, minutes, t, nl)) in session.iter().enumerate() {
            let mut r = Resp::new(&sid, n as u64, *minutes);
            r.model = MODELS[*m].into();
            (r.input, r.w5, r.w1h, r.read, r.out) = (t[0] % 50, t[1], t[2], t[3] * 3, t[4] % 5000);
            r.lines = *nl;
            let l = r.to_lines();
            if n == 0 {
                prev_first = Some(l.clone());
            }
            lines.extend(l);
        }
        out.push((format!("-proj{}/{sid}.jsonl", k % 2), lines));
    }
    out
}

fn ingest_tree(root: &Path, data: &Path) {
    ingest(
        &[root.to_path_buf()],
        &Store::open(data).unwrap(),
        &PriceTable::load(None).unwrap(),
        &Silent,
        chrono::Utc::now(),
    )
    .unwrap();
}

fn totals(data: &Path, g: Grouping) -> Totals {
    usage(
        &common::view(&Store::open(data).unwrap(), &PriceTable::load(None).unwrap(), common::t0()),
        g,
        &Query::new(chrono_tz::UTC),
    )
    .unwrap()
    .total
}

/// The stored requests in time order (the base and the recent part are each
/// in order; together they need not be).
fn requests(data: &Path) -> Vec<cachewise::model::Request> {
    let store = Store::open(data).unwrap();
    let mut rows = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    rows.sort_by(|a, b| {
        (a.time, &a.message_id, &a.user, &a.request_id).cmp(&(b.time, &b.message_id, &b.user, &b.request_id))
    });
    rows
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn reingest_changes_nothing_and_split_equals_whole(spec in spec(), cut in 0usize..5) {
        let tree = files(&spec);
        let (whole_root, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (p, l) in &tree { write(whole_root.path(), p, l); }
        ingest_tree(whole_root.path(), whole.path());
        let first = requests(whole.path());
        ingest_tree(whole_root.path(), whole.path());
        prop_assert_eq!(&requests(whole.path()), &first);
        // The same tree ingested in two halves, into another data dir.
        let (split_root, split) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cut = cut.min(tree.len());
        for (p, l) in &tree[..cut] { write(split_root.path(), p, l); }
        if cut > 0 { ingest_tree(split_root.path(), split.path()); }
        for (p, l) in &tree[cut..] { write(split_root.path(), p, l); }
        ingest_tree(split_root.path(), split.path());
        let strip = |v: Vec<cachewise::model::Request>, root: &Path| -> Vec<cachewise::model::Request> {
            v.into_iter().map(|mut r| { r.source = r.source.replace(&root.to_string_lossy().into_owned(), "").into(); r }).collect()
        };
        prop_assert_eq!(strip(requests(split.path()), split_root.path()), strip(first, whole_root.path()));
    }

    #[test]
    fn every_report_adds_up_to_the_same_total_and_costs_are_not_negative(spec in spec()) {
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (p, l) in files(&spec) { write(root.path(), &p, &l); }
        ingest_tree(root.path(), data.path());
        let daily = totals(data.path(), Grouping::Daily);
        for g in [Grouping::Weekly, Grouping::Monthly, Grouping::Session, Grouping::Project, Grouping::Model] {
            let t = totals(data.path(), g);
            prop_assert_eq!(t.requests, daily.requests);
            prop_assert_eq!(t.tokens, daily.tokens);
            prop_assert!((t.cost_usd - daily.cost_usd).abs() < 1e-9 * daily.cost_usd.max(1.0));
        }
        prop_assert!(requests(data.path()).iter().all(|r| r.cost_usd >= 0.0));
    }

    #[test]
    fn damaged_copy_yields_the_totals_of_its_undamaged_lines(spec in spec(), picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6)) {
        let tree = files(&spec);
        let total_lines: usize = tree.iter().map(|(_, l)| l.len()).sum();
        let damaged: std::collections::HashSet<usize> = picks.iter().map(|i| i.index(total_lines)).collect();
        let (bad_root, bad) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (good_root, good) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut n = 0;
        for (p, lines) in &tree {
            let mut with_damage = Vec::new();
            let mut without = Vec::new();
            for l in lines {
                if damaged.contains(&n) {
                    with_damage.push(l[..l.len() / 2].to_string());
                } else {
                    with_damage.push(l.clone());
                    without.push(l.clone());
                }
                n += 1;
            }
            write(bad_root.path(), p, &with_damage);
            write(good_root.path(), p, &without);
        }
        ingest_tree(bad_root.path(), bad.path());
        ingest_tree(good_root.path(), good.path());
        let (b, g) = (totals(bad.path(), Grouping::Daily), totals(good.path(), Grouping::Daily));
        prop_assert_eq!(b.requests, g.requests);
        prop_assert_eq!(b.tokens, g.tokens);
        prop_assert!((b.cost_usd - g.cost_usd).abs() < 1e-9);
    }

    #[test]
    fn stepwise_ingest_equals_one_ingest_of_the_final_tree_unless_a_file_was_rewritten(events in stepwise::events(), steps in stepwise::steps()) {
        stepwise_equals_once(&events, &steps)?;
    }
}

/// Ingesting after each of `steps` equals one ingest of the final tree
/// (the requests and the small tables), unless a file was rewritten.
fn stepwise_equals_once(events: &[stepwise::Event], steps: &[stepwise::Step]) -> Result<(), TestCaseError> {
    let files = stepwise::files(events);
    let (root, stepwise, once) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rewritten = stepwise::play(root.path(), &files, steps, |_| ingest_tree(root.path(), stepwise.path()));
    // The final tree: every file complete, as last rewritten.
    stepwise::finish(root.path(), &files, &rewritten);
    ingest_tree(root.path(), stepwise.path());
    ingest_tree(root.path(), once.path());
    if rewritten.iter().any(|r| *r) {
        // A file rewritten on the way: what its earlier lines held was
        // paid for and stays, so the steps kept at least every request
        // of the final tree (and a kept copy's earlier time).
        let kept: std::collections::HashSet<String> =
            requests(stepwise.path()).into_iter().map(|r| r.message_id).collect();
        for r in requests(once.path()) {
            prop_assert!(kept.contains(&r.message_id), "{} lost", r.message_id);
        }
        return Ok(());
    }
    prop_assert_eq!(requests(stepwise.path()), requests(once.path()));
    let table = |d: &Path, t: Table| Store::open(d).unwrap().read(t).unwrap().unwrap();
    for t in [Table::SessionTotals, Table::Spares, Table::Titles, Table::Compactions] {
        let (a, b) = (table(stepwise.path(), t), table(once.path(), t));
        let rows = |d: &polars::prelude::DataFrame| {
            (0..d.height()).map(|i| format!("{:?}", d.get_row(i).unwrap())).collect::<Vec<_>>()
        };
        prop_assert!(a.equals_missing(&b), "{:?} differs: {:?} vs {:?}", t, rows(&a), rows(&b));
    }
    Ok(())
}

/// A case the property found: two compaction lines with one uuid and time
/// but different `preTokens`, the first read in an earlier step than the
/// second. The copy kept is the same either way (the one of fewer tokens).
#[test]
fn copies_of_one_compaction_read_in_two_steps_keep_the_copy_one_read_keeps() {
    let events = [(0, 0, 0, 1, 0), (0, 4, 0, 428, 3), (0, 2, 2, 422, 43), (2, 0, 1, 441, 49), (0, 4, 1, 537, 200)];
    let steps = [
        (1, 0, true, true, false),
        (0, 0, true, true, false),
        (0, 5, false, true, false),
        (0, 2, false, false, false),
        (2, 4, false, true, false),
        (0, 3, false, false, false),
        (0, 2, false, true, false),
        (2, 1, false, false, false),
        (1, 5, false, true, false),
    ];
    stepwise_equals_once(&events, &steps).unwrap();
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let files = stepwise::files(&events);
    stepwise::finish(root.path(), &files, &[false; 3]);
    ingest_tree(root.path(), data.path());
    let kept = Store::open(data.path()).unwrap().load(Table::Compactions, frames::compactions_from).unwrap();
    let pre: Vec<Option<u64>> = kept.iter().filter(|c| c.session_id == "s0").map(|c| c.pre_tokens).collect();
    assert_eq!(pre, [Some(1428)]);
}
