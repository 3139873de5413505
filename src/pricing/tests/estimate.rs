//! Fable 5.2 / Mythos 5.2 prices worked out by hand to the cent, and the
//! estimate rule: a new version of a known family is priced as the family's
//! newest version and flagged; an unknown family stays unpriced; an exact
//! `--pricing` entry clears the flag.

use super::table::write_temp;
use super::*;

/// Rounds to whole cents, as every report prints dollars.
fn cents(x: f64) -> i64 {
    (x * 100.0).round() as i64
}

#[test]
fn fable_5_2_standard_requests_to_the_cent() {
    let t = "2026-11-20T10:00:00Z";
    // pin = 8e-6, pout = 40e-6; 5m write 10e-6, 1h write 16e-6, read 0.2e-6.
    // 5m writes: 1000*8e-6 + 20000*10e-6 + 400000*0.2e-6 + 2000*40e-6
    //          = 0.008 + 0.2 + 0.08 + 0.08 = 0.368 -> $0.37 (prompt 421k: no premium)
    let a = cost("claude-fable-5-2", t, tok(1000, 20_000, 0, 400_000, 2000));
    close(a, 0.368);
    assert_eq!(cents(a), 37);
    // 1h writes: 3*8e-6 + 50000*16e-6 + 1200000*0.2e-6 + 5000*40e-6
    //          = 0.000024 + 0.8 + 0.24 + 0.2 = 1.240024 -> $1.24 (prompt 1.25M: flat)
    let b = cost("claude-fable-5-2-20261109", t, tok(3, 0, 50_000, 1_200_000, 5000));
    close(b, 1.240024);
    assert_eq!(cents(b), 124);
    // Both kinds of write: 12345*8e-6 + 6789*10e-6 + 101112*16e-6 + 987654*0.2e-6 + 13579*40e-6
    //   = 0.09876 + 0.06789 + 1.617792 + 0.1975308 + 0.54316 = 2.5251328 -> $2.53
    let c = cost("claude-fable-5-2", t, tok(12_345, 6789, 101_112, 987_654, 13_579));
    close(c, 2.5251328);
    assert_eq!(cents(c), 253);
    let r = table().base_rates("claude-fable-5-2", at(t)).unwrap();
    close(r.write_5m(), 10e-6);
    close(r.write_1h(), 16e-6);
    close(r.read(), 0.2e-6);
}

#[test]
fn fable_5_2_fast_requests_to_the_cent() {
    let t = table();
    let time = "2026-11-20T10:00:00Z";
    // Fast is 2x: $16 in / $80 out. 2 * 0.368 = 0.736 -> $0.74
    let a = with(req("claude-fable-5-2", time, tok(1000, 20_000, 0, 400_000, 2000)), "fast", "");
    close(t.cost(&a).unwrap(), 0.736);
    assert_eq!(cents(t.cost(&a).unwrap()), 74);
    let rates = t.request_rates(&a).unwrap();
    close(rates.input, 16e-6);
    close(rates.output, 80e-6);
    // 2 * 1.240024 = 2.480048 -> $2.48
    let b = with(req("claude-fable-5-2", time, tok(3, 0, 50_000, 1_200_000, 5000)), "fast", "");
    close(t.cost(&b).unwrap(), 2.480048);
    assert_eq!(cents(t.cost(&b).unwrap()), 248);
    // Fast and us stack: 2 * 1.1 * 2.5251328 = 5.55529216 -> $5.56
    let c = with(req("claude-fable-5-2", time, tok(12_345, 6789, 101_112, 987_654, 13_579)), "fast", "us");
    close(t.cost(&c).unwrap(), 5.55529216);
    assert_eq!(cents(t.cost(&c).unwrap()), 556);
}

#[test]
fn mythos_5_2_is_priced_as_fable_5_2() {
    let tk = tok(12_345, 6789, 101_112, 987_654, 13_579);
    let t = "2026-11-20T10:00:00Z";
    close(cost("claude-mythos-5-2", t, tk), 2.5251328);
    assert!(table().estimate("claude-mythos-5-2").is_none(), "in the table, not estimated");
}

#[test]
fn a_new_version_of_a_known_family_is_priced_as_its_newest_and_flagged() {
    let t = table();
    let time = "2026-11-20T10:00:00Z";
    let tk = tok(1000, 2000, 3000, 100_000, 500);
    // Opus 5.5 prices: 1000*4e-6 + 2000*5e-6 + 3000*8e-6 + 100000*0.05*4e-6 + 500*20e-6
    //   = 0.004 + 0.01 + 0.024 + 0.02 + 0.01 = 0.068
    for raw in ["claude-opus-5-7", "claude-opus-5-7-20261201", "us.anthropic.claude-opus-5-7-v1:0", "claude-opus-6"] {
        close(t.cost(&req(raw, time, tk)).unwrap(), 0.068);
        assert_eq!(t.resolve(raw).map(|m| m.id.as_str()), Some("claude-opus-5-5"), "{raw}");
        assert_eq!(t.estimate(raw).map(|m| m.id.as_str()), Some("claude-opus-5-5"), "{raw}");
    }
    // Fast mode of the version used: 2 x 0.068 = 0.136
    close(t.cost(&with(req("claude-opus-5-7", time, tk), "fast", "")).unwrap(), 0.136);
    for (raw, newest) in [
        ("claude-fable-5-3", "claude-fable-5-2"),
        ("claude-mythos-6", "claude-mythos-5-2"),
        ("claude-sonnet-5-7", "claude-sonnet-5-5"),
        ("claude-haiku-6", "claude-haiku-5-5"),
    ] {
        assert_eq!(t.estimate(raw).map(|m| m.id.as_str()), Some(newest), "{raw}");
    }
    let est = t.estimated_models([
        "claude-opus-5-7",
        "claude-opus-4-6",
        "claude-nova-1",
        "claude-opus-5-7",
        "claude-fable-5-3",
    ]);
    let want = [("claude-fable-5-3", "claude-fable-5-2"), ("claude-opus-5-7", "claude-opus-5-5")]
        .map(|(m, p)| Estimate { model: m.into(), priced_as: p.into() });
    assert_eq!(est, want);
}

#[test]
fn estimated_requests_are_priced_by_price_all_and_not_unknown() {
    let t = table();
    let tk = tok(1000, 0, 0, 0, 1000);
    let mut reqs =
        vec![req("claude-opus-5-7", "2026-11-20T10:00:00Z", tk), req("claude-nova-2", "2026-11-20T10:00:00Z", tk)];
    let unknown = t.price_all(&mut reqs);
    assert_eq!(unknown, UnknownModels::from([("claude-nova-2".into(), 1)]));
    // As Opus 5.5: 1000*4e-6 + 1000*20e-6 = 0.024; the unknown family costs 0.
    close(reqs[0].cost_usd, 0.024);
    assert_eq!(reqs[1].cost_usd, 0.0);
}

#[test]
fn an_exact_pricing_entry_clears_the_estimate() {
    let f = write_temp(
        r#"
[[model]]
id = "claude-opus-5-7"
input_per_mtok = 6.0
output_per_mtok = 30.0

[[model]]
id = "claude-nova-1"
input_per_mtok = 1.0
output_per_mtok = 2.0
"#,
    );
    let t = PriceTable::load(Some(f.path())).unwrap();
    let time = "2026-11-20T10:00:00Z";
    assert!(t.estimate("claude-opus-5-7").is_none());
    assert_eq!(t.resolve("claude-opus-5-7-20261201").map(|m| m.id.as_str()), Some("claude-opus-5-7"));
    // 1000*6e-6 + 1000*30e-6 = 0.036
    close(t.cost(&req("claude-opus-5-7", time, tok(1000, 0, 0, 0, 1000))).unwrap(), 0.036);
    assert!(t.estimated_models(["claude-opus-5-7"]).is_empty());
    // The file's entry is now the newest Opus, and a family of its own is known.
    assert_eq!(t.estimate("claude-opus-5-9").map(|m| m.id.as_str()), Some("claude-opus-5-7"));
    assert_eq!(t.estimate("claude-nova-2").map(|m| m.id.as_str()), Some("claude-nova-1"));
}

#[test]
fn source_dates_are_checked() {
    let f =
        write_temp("[[model]]\nid = \"x\"\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\nsource_date = \"Nov 2026\"\n");
    let err = PriceTable::load(Some(f.path())).unwrap_err();
    assert!(err.to_string().contains("source_date = \"Nov 2026\""), "{err}");
    for ok in ["2026-11", "2026-11-12"] {
        let f = write_temp(&format!(
            "[[model]]\nid = \"x\"\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\nsource = \"s\"\nsource_date = \"{ok}\"\n"
        ));
        let t = PriceTable::load(Some(f.path())).unwrap();
        assert_eq!(t.resolve("x").and_then(|m| m.source_date.as_deref()), Some(ok));
    }
}
