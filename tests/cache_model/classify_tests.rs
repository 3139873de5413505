//! Tests of cache-model §1-§2: each class, the miss threshold, TTL in force
//! (carried over by requests that wrote nothing), lineage starts, rebuilt
//! tokens, miss costs, and ordering.

use super::fixtures::*;
use cachewise::analyze::{analyze, CacheClass, RequestCache};
use cachewise::model::{Compaction, Request};

fn run(reqs: &[Request], comps: &[Compaction]) -> Vec<RequestCache> {
    analyze(reqs, comps, &FakeRates)
}

fn classes(reqs: &[Request], comps: &[Compaction]) -> Vec<CacheClass> {
    run(reqs, comps).iter().map(|c| c.class).collect()
}

#[test]
fn first_then_hit() {
    let reqs = [main("s", 0.0, [1, 1000, 0, 20000, 100]), main("s", 60.0, [1, 500, 0, 21001, 100])];
    let c = run(&reqs, &[]);
    assert_eq!(c[0].class, CacheClass::First);
    assert_eq!(c[0].gap_s, None);
    assert_eq!(c[0].rebuilt_tokens, 1001);
    assert_close(c[0].miss_cost_usd, 1001.0 * 1.15);
    assert_eq!(c[0].expected_prefix, 0);
    assert_eq!(c[1].class, CacheClass::Hit);
    assert_eq!(c[1].gap_s, Some(60.0));
    assert_eq!(c[1].expected_prefix, 21001);
    assert_eq!((c[1].lost_tokens, c[1].rebuilt_tokens), (0, 0));
    assert_eq!(c[1].miss_cost_usd, 0.0);
    assert_eq!(c[1].prev, Some(0));
}

#[test]
fn miss_threshold_is_2000_tokens_for_small_prefixes() {
    // E = 21001; 5% is 1050, so the threshold is 2000.
    let r0 = main("s", 0.0, [1, 1000, 0, 20000, 100]);
    let hit = [r0.clone(), main("s", 60.0, [1, 3000, 0, 19001, 100])];
    let c = run(&hit, &[]);
    assert_eq!((c[1].class, c[1].lost_tokens), (CacheClass::Hit, 2000));
    let miss = [r0, main("s", 60.0, [1, 3000, 0, 19000, 100])];
    let c = run(&miss, &[]);
    assert_eq!((c[1].class, c[1].lost_tokens), (CacheClass::ContextEdit, 2001));
    assert_eq!(c[1].rebuilt_tokens, 2001);
    assert_close(c[1].miss_cost_usd, 2001.0 * 1.15);
}

#[test]
fn miss_threshold_is_5_percent_for_large_prefixes() {
    let r0 = main("s", 0.0, [0, 100_000, 0, 0, 10]);
    let c = run(&[r0.clone(), main("s", 60.0, [0, 6000, 0, 95_000, 10])], &[]);
    assert_eq!(c[1].class, CacheClass::Hit);
    let c = run(&[r0, main("s", 60.0, [0, 6000, 0, 94_999, 10])], &[]);
    assert_eq!(c[1].class, CacheClass::ContextEdit);
}

#[test]
fn ttl_5m_edge_at_exactly_300_s() {
    let r0 = main("s", 0.0, [1, 10_000, 0, 0, 10]);
    let c = run(&[r0.clone(), main("s", 300.0, [1, 10_001, 0, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].ttl_s), (CacheClass::FullRebuild, 300));
    let c = run(&[r0, main("s", 300.001, [1, 10_001, 0, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].ttl_s), (CacheClass::Ttl5m, 300));
    assert_eq!(c[1].rebuilt_tokens, 10_001);
    assert_close(c[1].miss_cost_usd, 10_001.0 * 1.15);
}

#[test]
fn ttl_1h_edge_at_exactly_3600_s() {
    let r0 = main("s", 0.0, [1, 0, 10_000, 0, 10]);
    let c = run(&[r0.clone(), main("s", 3600.0, [1, 0, 10_001, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].ttl_s), (CacheClass::FullRebuild, 3600));
    let c = run(&[r0.clone(), main("s", 3600.001, [1, 0, 10_001, 0, 10])], &[]);
    assert_eq!((c[1].class, c[1].ttl_s), (CacheClass::Ttl1h, 3600));
    assert_close(c[1].miss_cost_usd, 10_001.0 * 1.9);
    // A 1h TTL is not broken by a 1000 s gap: that miss has no TTL cause.
    let c = run(&[r0, main("s", 1000.0, [1, 0, 10_001, 0, 10])], &[]);
    assert_eq!(c[1].class, CacheClass::FullRebuild);
}

#[test]
fn version_change_within_ttl_and_ttl_first_beyond() {
    let r0 = main("s", 0.0, [1, 10_000, 0, 0, 10]);
    let r1 = with_version(main("s", 60.0, [1, 10_001, 0, 0, 10]), "2.1.1");
    assert_eq!(classes(&[r0.clone(), r1], &[])[1], CacheClass::VersionChange);
    let r1 = with_version(main("s", 400.0, [1, 10_001, 0, 0, 10]), "2.1.1");
    assert_eq!(classes(&[r0.clone(), r1], &[])[1], CacheClass::Ttl5m);
    // A version change that still hit is a hit.
    let r1 = with_version(main("s", 60.0, [1, 10, 0, 10_001, 10]), "2.1.1");
    assert_eq!(classes(&[r0, r1], &[])[1], CacheClass::Hit);
}

#[test]
fn ttl_carried_over_by_requests_that_wrote_nothing() {
    let reqs = [
        main("s", 0.0, [1, 0, 5000, 0, 10]),
        main("s", 10.0, [1, 0, 0, 5001, 10]),
        main("s", 2010.0, [1, 5002, 0, 0, 10]),
    ];
    let c = run(&reqs, &[]);
    assert_eq!(c[1].ttl_after_s, 3600);
    assert_eq!((c[2].ttl_s, c[2].class), (3600, CacheClass::FullRebuild));
    assert_eq!(c[2].ttl_after_s, 300);
}

#[test]
fn ttl_defaults_to_5m_when_the_lineage_never_wrote() {
    let reqs = [main("s", 0.0, [10, 0, 0, 20_000, 5]), main("s", 400.0, [10, 20_000, 0, 0, 5])];
    let c = run(&reqs, &[]);
    assert_eq!((c[0].ttl_after_s, c[1].ttl_s, c[1].class), (300, 300, CacheClass::Ttl5m));
}

#[test]
fn carried_ttl_does_not_cross_a_lineage_start() {
    let reqs = [
        main("s", 0.0, [1, 0, 5000, 0, 10]),
        with_model(main("s", 10.0, [1, 0, 0, 5001, 10]), M2),
        with_model(main("s", 410.0, [1, 5002, 0, 0, 10]), M2),
    ];
    let c = run(&reqs, &[]);
    assert_eq!(c[1].class, CacheClass::ModelSwitch);
    assert_eq!(c[1].ttl_s, 3600, "informative: the old lineage's TTL");
    assert_eq!(c[1].ttl_after_s, 300);
    assert_eq!((c[2].ttl_s, c[2].class), (300, CacheClass::Ttl5m));
}

#[test]
fn compaction_starts_a_lineage_in_the_main_thread() {
    let reqs = [main("s", 0.0, [1, 0, 167_000, 0, 10]), main("s", 200.0, [1, 0, 20_000, 21_000, 10])];
    let c = run(&reqs, &[compaction("s", 100.0)]);
    assert_eq!(c[1].class, CacheClass::Compaction);
    assert_eq!(c[1].rebuilt_tokens, 20_001);
    assert_close(c[1].miss_cost_usd, 20_001.0 * 1.9);
    assert_eq!((c[1].expected_prefix, c[1].lost_tokens), (0, 0));
    assert_eq!(c[1].gap_s, Some(200.0));
}

#[test]
fn compaction_window_is_after_previous_and_at_or_before_this() {
    let reqs = [main("s", 0.0, [1, 0, 167_000, 0, 10]), main("s", 200.0, [1, 0, 20_000, 21_000, 10])];
    assert_eq!(classes(&reqs, &[compaction("s", 0.0)])[1], CacheClass::ContextEdit);
    assert_eq!(classes(&reqs, &[compaction("s", 200.0)])[1], CacheClass::Compaction);
    assert_eq!(classes(&reqs, &[compaction("s", 200.001)])[1], CacheClass::ContextEdit);
    assert_eq!(classes(&reqs, &[compaction("other", 100.0)])[1], CacheClass::ContextEdit);
}

#[test]
fn compaction_does_not_start_a_lineage_in_sub_agents() {
    let reqs = [req("s", "a1", 0.0, [1, 0, 167_000, 0, 10]), req("s", "a1", 200.0, [1, 0, 20_000, 21_000, 10])];
    assert_eq!(classes(&reqs, &[compaction("s", 100.0)])[1], CacheClass::ContextEdit);
}

#[test]
fn model_switch_and_compaction_wins_over_it() {
    let r0 = main("s", 0.0, [1, 0, 50_000, 0, 10]);
    let r1 = with_model(main("s", 30.0, [1, 0, 50_011, 0, 10]), M2);
    let c = run(&[r0.clone(), r1.clone()], &[]);
    assert_eq!((c[1].class, c[1].rebuilt_tokens), (CacheClass::ModelSwitch, 50_012));
    let c = run(&[r0, r1], &[compaction("s", 10.0)]);
    assert_eq!(c[1].class, CacheClass::Compaction);
}

#[test]
fn rebuilt_tokens_are_the_smaller_of_lost_and_written() {
    let r0 = main("s", 0.0, [0, 50_000, 0, 0, 10]);
    let c = run(&[r0.clone(), main("s", 400.0, [5, 31_000, 0, 20_000, 10])], &[]);
    assert_eq!((c[1].lost_tokens, c[1].rebuilt_tokens), (30_000, 30_000));
    // v2: L = min(E, P) - r can never exceed w + in, so B = L.
    let c = run(&[r0, main("s", 400.0, [1, 10_000, 0, 0, 10])], &[]);
    assert_eq!((c[1].lost_tokens, c[1].rebuilt_tokens), (10_001, 10_001));
}

#[test]
fn miss_cost_uses_the_ttl_this_request_wrote() {
    let r0 = main("s", 0.0, [0, 50_000, 0, 0, 10]);
    let c = run(&[r0, main("s", 400.0, [0, 0, 50_000, 0, 10])], &[]);
    assert_eq!(c[1].class, CacheClass::Ttl5m);
    assert_close(c[1].miss_cost_usd, 50_000.0 * 1.9);
}

#[test]
fn unknown_model_is_classified_but_costs_nothing() {
    let reqs = [
        with_model(main("s", 0.0, [0, 50_000, 0, 0, 10]), UNKNOWN),
        with_model(main("s", 400.0, [0, 50_010, 0, 0, 10]), UNKNOWN),
    ];
    let c = run(&reqs, &[]);
    assert_eq!(c[1].class, CacheClass::Ttl5m);
    assert_eq!((c[0].miss_cost_usd, c[1].miss_cost_usd), (0.0, 0.0));
    assert!(c[1].rates.is_none());
}

#[test]
fn threads_are_separate_and_order_is_by_time_then_message_id() {
    let mut a = main("s", 0.0, [0, 10_000, 0, 0, 10]);
    let mut b = main("s", 0.0, [0, 10, 0, 10_000, 10]);
    a.message_id = "msg_a".into();
    b.message_id = "msg_b".into();
    let sub = req("s", "a1", 5.0, [0, 30_000, 0, 0, 10]);
    let later = main("s", 10.0, [0, 10, 0, 10_010, 10]);
    // Input in scrambled order: results keep the input's indices.
    let reqs = [later, sub, b, a];
    let c = run(&reqs, &[]);
    assert_eq!(c[3].class, CacheClass::First);
    assert_eq!((c[2].class, c[2].prev), (CacheClass::Hit, Some(3)));
    assert_eq!(c[1].class, CacheClass::First);
    assert_eq!((c[0].class, c[0].prev), (CacheClass::Hit, Some(2)));
}

#[test]
fn class_names_match_the_json() {
    for k in CacheClass::ALL {
        let json = serde_json::to_value(k).unwrap();
        assert_eq!(json, serde_json::Value::String(k.as_str().to_string()));
    }
    let starts: Vec<_> = CacheClass::ALL.iter().filter(|k| k.is_start()).collect();
    assert_eq!(starts.len(), 3);
    assert_eq!(CacheClass::ALL.iter().filter(|k| k.is_miss()).count(), 7);
}

#[test]
fn class_names_parse_back() {
    for k in CacheClass::ALL {
        assert_eq!(CacheClass::parse(k.as_str()), Some(k));
    }
    assert_eq!(CacheClass::parse("unexplained"), None);
}

/// What names the classes outside the enum follows it: the team SQL's idle
/// and edit lists, a style for every class a page colours, and a swatch in
/// the session timeline's legend for every edit class.
#[test]
fn the_sql_lists_styles_and_legend_follow_the_classes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap();
    let names = |keep: fn(CacheClass) -> bool| -> Vec<String> {
        CacheClass::ALL.iter().filter(|c| keep(**c)).map(|c| format!("'{}'", c.as_str())).collect()
    };
    let sql = read("sql/team_person_cache.sql");
    assert!(sql.contains(&format!("class IN ({})", names(CacheClass::is_idle).join(", "))), "idle list");
    assert!(sql.contains(&format!("class IN ({})", names(CacheClass::is_edit).join(", "))), "edit list");
    let css = read("web/static/app.css");
    for c in CacheClass::ALL.iter().filter(|c| **c != CacheClass::First) {
        assert!(css.contains(&format!(".cls.c-{}", c.as_str())), "no style for {}", c.as_str());
    }
    let legend = read("web/templates/session.html");
    for c in CacheClass::ALL.iter().filter(|c| c.is_edit()) {
        assert!(css.contains(&format!(".sw.{} ", c.as_str())), "no swatch colour for {}", c.as_str());
        assert!(legend.contains(&format!("<span class=\"sw {}\"></span>", c.as_str())), "no legend for {}", c.as_str());
    }
}

fn shaped(mut r: Request, shape: &str) -> Request {
    r.client.shape_hash = shape.into();
    r
}

#[test]
fn a_new_shape_on_the_same_model_is_a_system_prompt_or_tools_change() {
    let r0 = shaped(main("s", 0.0, [1, 1000, 0, 20000, 100]), "aa");
    let rebuilt = [1, 21000, 0, 0, 100];
    let changed = [r0.clone(), shaped(main("s", 60.0, rebuilt), "bb")];
    assert_eq!(classes(&changed, &[]), [CacheClass::First, CacheClass::ShapeChange]);
    // Even across an upgrade: the record names the change itself.
    let upgraded = [r0.clone(), with_version(shaped(main("s", 60.0, rebuilt), "bb"), "9.9.9")];
    assert_eq!(classes(&upgraded, &[]), [CacheClass::First, CacheClass::ShapeChange]);
    // The same shape, or one unrecorded, keeps the inference.
    let same = [r0.clone(), shaped(main("s", 60.0, rebuilt), "aa")];
    assert_eq!(classes(&same, &[]), [CacheClass::First, CacheClass::FullRebuild]);
    let unrecorded = [r0.clone(), main("s", 60.0, rebuilt)];
    assert_eq!(classes(&unrecorded, &[]), [CacheClass::First, CacheClass::FullRebuild]);
    // A hit is a hit whatever the shape says; an expiry stays an expiry.
    let hit = [r0.clone(), shaped(main("s", 60.0, [1, 500, 0, 21001, 100]), "bb")];
    assert_eq!(classes(&hit, &[]), [CacheClass::First, CacheClass::Hit]);
    let expired = [r0, shaped(main("s", 600.0, rebuilt), "bb")];
    assert_eq!(classes(&expired, &[]), [CacheClass::First, CacheClass::Ttl5m]);
}

#[test]
fn the_ttl_claude_code_asked_for_is_the_ttl_of_the_calls_writes() {
    let mut r0 = main("s", 0.0, [1, 1000, 0, 20000, 100]);
    r0.client.ttl_asked = "1h".into();
    let later = main("s", 1200.0, [1, 21000, 0, 0, 100]);
    let c = run(&[r0.clone(), later.clone()], &[]);
    assert_eq!(c[0].ttl_after_s, 3600, "asked for an hour");
    assert_eq!(c[1].class, CacheClass::FullRebuild, "20 minutes into a 1-hour cache is no expiry");
    // Without the record, the write split says 5 minutes.
    r0.client.ttl_asked = "".into();
    let c = run(&[r0, later], &[]);
    assert_eq!((c[0].ttl_after_s, c[1].class), (300, CacheClass::Ttl5m));
}
