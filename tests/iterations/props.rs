//! Property: for generated responses made of several calls (any types,
//! models with and without a long-context band, fast mode, US geo, web
//! searches), each stored request costs the sum of its calls priced each at
//! its own model plus its web searches, its tokens are the calls' sum, and
//! the daily, session, project and model totals (and the model breakdown)
//! agree.

use super::support::*;
use cachewise::model::Request;
use cachewise::report::query::Grouping;
use cachewise::store::{frames, Store, Table};
use common::write;
use proptest::prelude::*;
use serde_json::json;

use super::common;

const MODELS: &[&str] = &[OPUS, FABLE, "claude-sonnet-4-5", "claude-haiku-4-5"];
const KINDS: &[&str] = &["message", "advisor_message", "fallback_message", "compaction_message"];

/// (kind, model or the message's, tokens) per call.
type Calls = Vec<(usize, Option<usize>, [u64; 5])>;
/// Per response: message model, calls, web searches, fast, us.
type Spec = Vec<(usize, Calls, u64, bool, bool)>;

fn spec() -> impl Strategy<Value = Spec> {
    let tokens = prop::array::uniform5(0u64..150_000);
    let call = (0..KINDS.len(), prop::option::of(0..MODELS.len()), tokens);
    let resp = (0..MODELS.len(), prop::collection::vec(call, 0..5), 0u64..3, any::<bool>(), any::<bool>());
    prop::collection::vec(resp, 1..12)
}

fn lines(spec: &Spec) -> Vec<(String, Vec<String>)> {
    let mut files: Vec<(String, Vec<String>)> = vec![("-p1/s0.jsonl".into(), vec![]), ("-p2/s1.jsonl".into(), vec![])];
    for (n, (m, calls, web, fast, us)) in spec.iter().enumerate() {
        let values: Vec<_> = calls.iter().map(|(k, cm, t)| call(KINDS[*k], cm.map(|i| MODELS[i]), *t)).collect();
        let mut top = calls_usage([1, 2, 3, 4, 5], n % 2 == 0);
        top["server_tool_use"] = json!({"web_search_requests": web});
        top["speed"] = json!(if *fast { "fast" } else { "standard" });
        top["inference_geo"] = json!(if *us { "us" } else { "" });
        let (file, s) = if n % 3 == 0 { (1, "s1") } else { (0, "s0") };
        let day = if n % 2 == 0 { "2026-03-01" } else { "2026-03-02" };
        files[file].1.push(line_at(day, s, n as u32, (n % 60) as u32, MODELS[*m], top, values));
    }
    files
}

fn same(a: &cachewise::report::usage::Totals, b: &cachewise::report::usage::Totals) -> bool {
    a.requests == b.requests && a.tokens == b.tokens && (a.cost_usd - b.cost_usd).abs() < 1e-9 * a.cost_usd.max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn a_request_costs_its_calls_and_every_report_agrees(spec in spec()) {
        let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (rel, l) in lines(&spec) {
            write(root.path(), &rel, &l);
        }
        run(root.path(), data.path());
        let store = Store::open(data.path()).unwrap();
        let requests: Vec<Request> = store.load(Table::Requests, frames::requests_from).unwrap();
        let calls = store.load(Table::Calls, frames::calls_from).unwrap();
        prop_assert_eq!(requests.len(), spec.len());
        let prices = prices();
        for r in &requests {
            let own: Vec<_> = calls.iter().filter(|i| i.belongs_to(r)).collect();
            if own.is_empty() {
                continue;
            }
            let tokens = own.iter().map(|i| i.tokens).sum();
            prop_assert_eq!(r.tokens, tokens);
            let priced: f64 = own
                .iter()
                .map(|i| prices.cost(&Request { model: i.model.clone(), tokens: i.tokens, web_search: 0, ..r.clone() }).unwrap())
                .sum::<f64>()
                + r.web_search as f64 * 0.01;
            prop_assert!((priced - r.cost_usd).abs() < 1e-9, "{} vs {}", priced, r.cost_usd);
        }
        let daily = report(data.path(), Grouping::Daily, false).total;
        for (g, breakdown) in [(Grouping::Session, false), (Grouping::Project, false), (Grouping::Model, false), (Grouping::Daily, true), (Grouping::Session, true)] {
            let r = report(data.path(), g, breakdown);
            prop_assert!(same(&r.total, &daily), "{:?} {:?} vs {:?}", g, r.total, daily);
            let rows: f64 = r.rows.iter().flat_map(|row| row.models.iter().map(|m| m.1.cost_usd)).sum();
            if breakdown {
                prop_assert!((rows - daily.cost_usd).abs() < 1e-9 * daily.cost_usd.max(1.0));
            }
        }
    }
}

/// How many generated requests carry several calls, over a fixed sample of
/// the strategy (quoted in the closing note).
#[test]
fn generated_requests_with_several_calls() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut responses, mut several) = (0, 0);
    for _ in 0..24 {
        let s = spec().new_tree(&mut runner).unwrap().current();
        responses += s.len();
        several += s.iter().filter(|r| r.1.len() > 1).count();
    }
    println!("{several} of {responses} generated requests carry several calls");
    assert!(several * 3 > responses, "the strategy exercises multi-call responses");
}
