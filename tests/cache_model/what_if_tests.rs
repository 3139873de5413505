//! Tests of cache-model §5, one per branch: lineage starts and
//! version-change, microcompact, context-edit and full-rebuild misses keep the observed split; gaps within the
//! policy TTL read the previous prompt; longer gaps read the lineage's shared
//! prefix only when a request of the same model and version was made within
//! the TTL before (edges included); web searches and unknown models.

use super::fixtures::*;
use crate::common::summary::{request_what_if, SharedPrefixIndex};
use cachewise::analyze::{analyze, WhatIf};
use cachewise::model::Request;

fn what_if(reqs: &[Request], i: usize) -> WhatIf {
    let caches = analyze(reqs, &[], &FakeRates);
    let shared = SharedPrefixIndex::build(reqs);
    request_what_if(reqs, &caches, &shared, i)
}

#[test]
fn within_both_ttls_reads_the_previous_prompt() {
    let reqs = [main("s", 0.0, [1, 10_000, 0, 0, 10]), main("s", 100.0, [1, 500, 0, 10_001, 10])];
    let w0 = what_if(&reqs, 0);
    assert_close(w0.actual_usd, 12_521.0);
    assert_close(w0.ttl_5m_usd, 12_521.0);
    assert_close(w0.ttl_1h_usd, 20_021.0);
    let w1 = what_if(&reqs, 1);
    assert_close(w1.actual_usd, 1646.1);
    assert_close(w1.ttl_5m_usd, 1646.1);
    assert_close(w1.ttl_1h_usd, 2021.1);
    assert_close(w1.saving_1h_usd, 1646.1 - 2021.1);
    assert_close(w1.saving_5m_usd, 0.0);
}

/// A 1h hit after 1000 s whose lineage first read 8000 shared tokens.
fn one_hour_hit(extra: Option<Request>) -> (Vec<Request>, usize) {
    let mut reqs = vec![main("s", 0.0, [1, 0, 2000, 8000, 10]), main("s", 1000.0, [1, 0, 500, 10_001, 10])];
    reqs.extend(extra);
    (reqs, 1)
}

#[test]
fn beyond_the_ttl_with_a_cold_shared_prefix_reads_nothing() {
    let (reqs, i) = one_hour_hit(None);
    let w = what_if(&reqs, i);
    assert_close(w.actual_usd, 2021.1);
    assert_close(w.ttl_1h_usd, 2021.1);
    // K = 10501, all written at 1.25.
    assert_close(w.ttl_5m_usd, 1.0 + 10_501.0 * 1.25 + 20.0);
    let w0 = what_if(&reqs, 0);
    assert_close(w0.actual_usd, 4821.0);
    assert_close(w0.ttl_5m_usd, 3321.0);
}

#[test]
fn beyond_the_ttl_with_a_warm_shared_prefix_reads_the_lineage_first_read() {
    let warm = 1.0 + 800.0 + 2501.0 * 1.25 + 20.0;
    let cold = 1.0 + 10_501.0 * 1.25 + 20.0;
    // Another session, same model and version, 200 s before: warm.
    let (reqs, i) = one_hour_hit(Some(main("other", 800.0, [1, 100, 0, 0, 1])));
    assert_close(what_if(&reqs, i).ttl_5m_usd, warm);
    // Exactly 300 s before: still warm; 300.001 s before: cold.
    let (reqs, i) = one_hour_hit(Some(main("other", 700.0, [1, 100, 0, 0, 1])));
    assert_close(what_if(&reqs, i).ttl_5m_usd, warm);
    let (reqs, i) = one_hour_hit(Some(main("other", 699.999, [1, 100, 0, 0, 1])));
    assert_close(what_if(&reqs, i).ttl_5m_usd, cold);
    // A sub-agent thread of the same session counts too.
    let (reqs, i) = one_hour_hit(Some(req("s", "a1", 900.0, [1, 100, 0, 0, 1])));
    assert_close(what_if(&reqs, i).ttl_5m_usd, warm);
    // Another version or model does not; nor does a request at the same instant.
    let (reqs, i) = one_hour_hit(Some(with_version(main("other", 800.0, [1, 100, 0, 0, 1]), "2.1.9")));
    assert_close(what_if(&reqs, i).ttl_5m_usd, cold);
    let (reqs, i) = one_hour_hit(Some(with_model(main("other", 800.0, [1, 100, 0, 0, 1]), M2)));
    assert_close(what_if(&reqs, i).ttl_5m_usd, cold);
    let (reqs, i) = one_hour_hit(Some(main("other", 1000.0, [1, 100, 0, 0, 1])));
    assert_close(what_if(&reqs, i).ttl_5m_usd, cold);
}

#[test]
fn ttl_miss_recomputed_under_both_policies() {
    // Observed: 5m lineage, a 2000 s gap, a full rewrite (ttl_5m).
    let reqs = [main("s", 0.0, [1, 10_000, 0, 0, 10]), main("s", 2000.0, [1, 10_501, 0, 0, 10])];
    let w = what_if(&reqs, 1);
    assert_close(w.actual_usd, 1.0 + 10_501.0 * 1.25 + 20.0);
    assert_close(w.ttl_5m_usd, w.actual_usd);
    // Under 1h the gap is within the TTL: read P_prev = 10001, write 500 at 2.
    assert_close(w.ttl_1h_usd, 1.0 + 1000.1 + 500.0 * 2.0 + 20.0);
}

#[test]
fn version_change_and_within_ttl_misses_keep_the_observed_split() {
    let r0 = main("s", 0.0, [1, 0, 10_000, 0, 10]);
    let vc = with_version(main("s", 60.0, [1, 0, 10_001, 500, 10]), "2.1.1");
    let w = what_if(&[r0.clone(), vc], 1);
    assert_close(w.ttl_5m_usd, 1.0 + 50.0 + 10_001.0 * 1.25 + 20.0);
    assert_close(w.ttl_1h_usd, 1.0 + 50.0 + 10_001.0 * 2.0 + 20.0);
    let un = main("s", 60.0, [1, 0, 10_001, 500, 10]);
    let w = what_if(&[r0, un], 1);
    assert_close(w.ttl_5m_usd, 1.0 + 50.0 + 10_001.0 * 1.25 + 20.0);
}

#[test]
fn lineage_starts_keep_the_observed_split_at_the_policy_price() {
    let reqs = [main("s", 0.0, [3, 1000, 2000, 17_000, 10])];
    let w = what_if(&reqs, 0);
    assert_close(w.actual_usd, 3.0 + 1250.0 + 4000.0 + 1700.0 + 20.0);
    assert_close(w.ttl_5m_usd, 3.0 + 3000.0 * 1.25 + 1700.0 + 20.0);
    assert_close(w.ttl_1h_usd, 3.0 + 3000.0 * 2.0 + 1700.0 + 20.0);
}

#[test]
fn web_searches_count_in_all_three_and_unknown_models_cost_nothing() {
    let mut r = main("s", 0.0, [0, 1000, 0, 0, 0]);
    r.web_search = 2;
    let w = what_if(&[r], 0);
    assert_close(w.actual_usd, 1250.02);
    assert_close(w.ttl_5m_usd, 1250.02);
    assert_close(w.ttl_1h_usd, 2000.02);
    let mut u = with_model(main("s", 0.0, [5, 1000, 0, 0, 9]), UNKNOWN);
    u.web_search = 1;
    assert_eq!(what_if(&[u], 0), WhatIf::default());
}
