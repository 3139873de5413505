//! Cost tests: cache-write and read multipliers per model, dated read
//! changes, the long-context premium, Haiku 5.5 bands, fast mode, data
//! residency and web search.

use super::*;

#[test]
fn write_5m_1h_and_read_multipliers() {
    // Opus 4.5: pin = 5e-6, pout = 25e-6.
    // 1000*5e-6 + 2000*1.25*5e-6 + 3000*2*5e-6 + 10000*0.1*5e-6 + 500*25e-6
    // = 0.005 + 0.0125 + 0.03 + 0.005 + 0.0125 = 0.065
    close(cost("claude-opus-4-5", "2026-01-01T00:00:00Z", tok(1000, 2000, 3000, 10_000, 500)), 0.065);
    let r = table().base_rates("claude-opus-4-5", at("2026-01-01T00:00:00Z")).unwrap();
    close(r.write_5m(), 6.25e-6);
    close(r.write_1h(), 10e-6);
    close(r.read(), 0.5e-6);
}

#[test]
fn read_multiplier_per_model() {
    let reads = tok(0, 0, 0, 1_000_000, 0);
    let t = "2026-09-01T00:00:00Z";
    // Haiku 4.5: 1M * 0.1 * 1e-6 = 0.10
    close(cost("claude-haiku-4-5", t, reads), 0.1);
    // Claude 3 Haiku: 1M * 0.1 * 0.25e-6 = 0.025
    close(cost("claude-3-haiku", t, reads), 0.025);
    // Opus 5.5: 1M * 0.05 * 4e-6 = 0.20
    close(cost("claude-opus-5-5", t, reads), 0.2);
    // Fable 5.1 / Mythos 5.1: 1M * 0.025 * 10e-6 = 0.25
    close(cost("claude-fable-5-1", t, reads), 0.25);
    close(cost("claude-mythos-5-1", t, reads), 0.25);
    // Fable 5 keeps 0.1: 1M * 0.1 * 10e-6 = 1.00
    close(cost("claude-fable-5", t, reads), 1.0);
}

#[test]
fn sonnet_5_5_read_multiplier_changes_2026_10_07() {
    let reads = tok(0, 0, 0, 1_000_000, 0);
    // Before: 1M * 0.1 * 2e-6 = 0.20; from midnight UTC: 1M * 0.05 * 2e-6 = 0.10
    close(cost("claude-sonnet-5-5", "2026-10-06T23:59:59Z", reads), 0.2);
    close(cost("claude-sonnet-5-5", "2026-10-07T00:00:00Z", reads), 0.1);
    let t = table();
    assert_eq!(t.base_rates("claude-sonnet-5-5", at("2026-10-06T12:00:00Z")).unwrap().read_multiplier, 0.1);
    assert_eq!(t.base_rates("claude-sonnet-5-5", at("2026-10-08T12:00:00Z")).unwrap().read_multiplier, 0.05);
}

#[test]
fn sonnet_4_5_long_context_is_strictly_above_200k() {
    let t = "2026-01-15T00:00:00Z";
    // P = 200_000: no premium. 200000*0.1*3e-6 + 1000*15e-6 = 0.06 + 0.015 = 0.075
    close(cost("claude-sonnet-4-5-20250929", t, tok(0, 0, 0, 200_000, 1000)), 0.075);
    // P = 200_001: whole request at $6 / $22.50.
    // 200001*0.1*6e-6 + 1000*22.5e-6 = 0.1200006 + 0.0225 = 0.1425006
    close(cost("claude-sonnet-4-5-20250929", t, tok(0, 0, 0, 200_001, 1000)), 0.1425006);
    // Writes count towards P: in 1 + w5 200_000 -> premium.
    // 1*6e-6 + 200000*1.25*6e-6 = 0.000006 + 1.5 = 1.500006
    close(cost("claude-sonnet-4-5", t, tok(1, 200_000, 0, 0, 0)), 1.500006);
    // Beta retired 2026-04-30: 200001*0.1*3e-6 + 0.015 = 0.0600003 + 0.015 = 0.0750003
    close(cost("claude-sonnet-4-5", "2026-04-30T00:00:00Z", tok(0, 0, 0, 200_001, 1000)), 0.0750003);
}

#[test]
fn opus_4_6_premium_before_2026_03_13_only() {
    let tk = tok(10, 1000, 0, 250_000, 2000);
    // Before GA at $10 / $37.50: 10*10e-6 + 1000*1.25*10e-6 + 250000*0.1*10e-6 + 2000*37.5e-6
    // = 0.0001 + 0.0125 + 0.25 + 0.075 = 0.3376
    close(cost("claude-opus-4-6", "2026-03-12T23:59:59Z", tk), 0.3376);
    // From GA at $5 / $25: 0.00005 + 0.00625 + 0.125 + 0.05 = 0.1813
    close(cost("claude-opus-4-6", "2026-03-13T00:00:00Z", tk), 0.1813);
    let r = table().request_rates(&req("claude-opus-4-6", "2026-03-01T00:00:00Z", tk)).unwrap();
    close(r.input, 10e-6);
    close(r.output, 37.5e-6);
    // base_rates never carries the premium.
    close(table().base_rates("claude-opus-4-6", at("2026-03-01T00:00:00Z")).unwrap().input, 5e-6);
}

#[test]
fn fast_mode_has_no_long_context_premium() {
    // Opus 4.6 fast, before GA, P > 200k: 6 x standard, no premium.
    // 6 * (0.00005 + 0.00625 + 0.125 + 0.05) = 6 * 0.1813 = 1.0878
    let r = with(req("claude-opus-4-6", "2026-03-01T00:00:00Z", tok(10, 1000, 0, 250_000, 2000)), "fast", "");
    close(table().cost(&r).unwrap(), 1.0878);
    let rates = table().request_rates(&r).unwrap();
    close(rates.input, 30e-6);
    close(rates.output, 150e-6);
    assert_eq!(rates.read_multiplier, 0.1);
}

#[test]
fn fast_multipliers_opus_4_6_and_4_8() {
    let tk = tok(1000, 0, 0, 0, 1000);
    // Standard: 1000*5e-6 + 1000*25e-6 = 0.03
    let t = table();
    let std46 = req("claude-opus-4-6", "2026-04-01T00:00:00Z", tk);
    close(t.cost(&std46).unwrap(), 0.03);
    // Opus 4.6 fast 6x = 0.18; Opus 4.8 fast 2x = 0.06
    close(t.cost(&with(std46, "fast", "")).unwrap(), 0.18);
    close(t.cost(&with(req("claude-opus-4-8", "2026-09-01T00:00:00Z", tk), "fast", "")).unwrap(), 0.06);
    // A model without fast mode is billed at standard rates: 1000*1e-6 + 1000*5e-6 = 0.006
    close(t.cost(&with(req("claude-haiku-4-5", "2026-09-01T00:00:00Z", tk), "fast", "")).unwrap(), 0.006);
}

#[test]
fn geo_us_on_opus_4_6_not_on_opus_4_5() {
    let tk = tok(1000, 0, 0, 0, 1000);
    let t = table();
    let time = "2026-04-01T00:00:00Z";
    // Opus 4.6 us: 1.1 * 0.03 = 0.033; global: 0.03
    close(t.cost(&with(req("claude-opus-4-6", time, tk), "", "us")).unwrap(), 0.033);
    close(t.cost(&with(req("claude-opus-4-6", time, tk), "", "global")).unwrap(), 0.03);
    // Opus 4.5 has no data-residency pricing: 0.03
    close(t.cost(&with(req("claude-opus-4-5", time, tk), "", "us")).unwrap(), 0.03);
    // Fast and us stack: 6 * 1.1 * 0.03 = 0.198
    close(t.cost(&with(req("claude-opus-4-6", time, tk), "fast", "us")).unwrap(), 0.198);
}

#[test]
fn web_search_costs_one_cent_each_without_multipliers() {
    let t = table();
    let mut r = req("claude-opus-4-5", "2026-01-01T00:00:00Z", TokenCounts::default());
    r.web_search = 3;
    // 3 * 0.01 = 0.03
    close(t.cost(&r).unwrap(), 0.03);
    // Fast + us multiply tokens only: 2 searches, no tokens = 0.02
    let mut r = with(req("claude-opus-4-6", "2026-04-01T00:00:00Z", TokenCounts::default()), "fast", "us");
    r.web_search = 2;
    close(t.cost(&r).unwrap(), 0.02);
}

#[test]
fn haiku_5_5_prompt_size_bands() {
    let time = "2026-10-10T00:00:00Z";
    // P = 100_000: 100000*0.1e-6 + 1000*0.5e-6 = 0.01 + 0.0005 = 0.0105
    close(cost("claude-haiku-5-5", time, tok(100_000, 0, 0, 0, 1000)), 0.0105);
    // P = 100_001: 100001*0.5e-6 + 1000*2.5e-6 = 0.0500005 + 0.0025 = 0.0525005
    close(cost("claude-haiku-5-5", time, tok(100_001, 0, 0, 0, 1000)), 0.0525005);
    // Reads count: in 1 + r 100_000 -> upper band. 1*0.5e-6 + 100000*0.1*0.5e-6 = 0.0050005
    close(cost("claude-haiku-5-5", time, tok(1, 0, 0, 100_000, 0)), 0.0050005);
}

#[test]
fn rates_of_many_requests_are_each_requests_rates() {
    let tk = tok(10, 1000, 0, 250_000, 2000);
    let t = table();
    let reqs = vec![
        req("claude-opus-4-6", "2026-03-01T00:00:00Z", tk),
        req("claude-opus-4-6", "2026-03-13T00:00:00Z", tk),
        with(req("claude-opus-4-6", "2026-03-01T00:00:00Z", tk), "fast", ""),
        req("mystery-model", "2026-03-01T00:00:00Z", tk),
        req("claude-opus-4-6", "2026-03-01T00:00:00Z", tok(10, 0, 0, 100, 5)),
        with(req("claude-haiku-4-5", "2026-09-01T00:00:00Z", tk), "", "us"),
        req("claude-opus-4-6-20990101", "2026-03-01T00:00:00Z", tk),
    ];
    let each = t.request_rates_each(&reqs);
    let one: Vec<Option<Rates>> = reqs.iter().map(|r| t.request_rates(r)).collect();
    assert_eq!(each, one);
    assert_eq!(each.iter().filter(|r| r.is_none()).count(), 1, "the unknown model");
    // Premium before GA, none after: $10 then $5 per MTok input.
    close(each[0].map_or(0.0, |r| r.input), 10e-6);
    close(each[1].map_or(0.0, |r| r.input), 5e-6);
}
