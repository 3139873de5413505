//! Table tests: model-id resolution, the reference model list, `price_all`
//! and `--pricing` override files.

use super::*;
use std::io::Write;

#[test]
fn real_corpus_models_price_right() {
    let t = table();
    let time = at("2026-02-20T00:00:00Z");
    for (model, pin, pout) in [
        ("claude-opus-4-20250514", 15e-6, 75e-6),
        ("claude-sonnet-4-20250514", 3e-6, 15e-6),
        ("claude-opus-4-6", 5e-6, 25e-6),
        ("claude-sonnet-4-5-20250929", 3e-6, 15e-6),
        ("claude-haiku-4-5-20251001", 1e-6, 5e-6),
    ] {
        let r = t.base_rates(model, time).unwrap();
        close(r.input, pin);
        close(r.output, pout);
        assert_eq!(r.read_multiplier, 0.1, "{model}");
    }
}

#[test]
fn every_spelling_resolves_to_its_canonical_id() {
    let t = table();
    for (raw, want) in [
        ("claude-opus-4-20250514", "claude-opus-4"),
        ("claude-opus-4-5-20251101", "claude-opus-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
        ("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
        ("eu.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4"),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("claude-opus-4-6[1m]", "claude-opus-4-6"),
        ("claude-opus-4-6-fast", "claude-opus-4-6"),
        ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),
        ("claude-4-opus-20250514", "claude-opus-4"),
    ] {
        assert_eq!(t.resolve(raw).map(|m| m.id.as_str()), Some(want), "{raw}");
    }
}

#[test]
fn unknown_models_resolve_to_none() {
    let t = table();
    for raw in
        ["claude-nova-4-9", "<synthetic>", "", "claude-opus", "gpt-4o", "claude-sonnet-4-5-extra", "claude-3-9-opus"]
    {
        assert!(t.resolve(raw).is_none(), "{raw}");
        assert!(t.estimate(raw).is_none(), "{raw}");
        assert!(t.base_rates(raw, at("2026-01-01T00:00:00Z")).is_none(), "{raw}");
    }
    assert!(t.cost(&req("claude-nova-4-9", "2026-01-01T00:00:00Z", tok(1, 0, 0, 0, 1))).is_none());
}

#[test]
fn every_reference_model_resolves() {
    // Reference section 3.2, both tables.
    let ids = [
        "claude-opus-4-20250514",
        "claude-opus-4-1-20250805",
        "claude-opus-4-5-20251101",
        "claude-opus-4-6",
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-4-20250514",
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-6",
        "claude-haiku-4-5-20251001",
        "claude-3-7-sonnet-20250219",
        "claude-3-5-sonnet-20241022",
        "claude-3-5-sonnet-20240620",
        "claude-3-5-haiku-20241022",
        "claude-3-opus-20240229",
        "claude-3-haiku-20240307",
        "claude-opus-5",
        "claude-opus-5-5",
        "claude-sonnet-5",
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
        "claude-fable-5",
        "claude-mythos-5",
        "claude-fable-5-1",
        "claude-mythos-5-1",
        "claude-fable-5-2",
        "claude-mythos-5-2",
    ];
    let t = table();
    for id in ids {
        assert!(t.resolve(id).is_some(), "{id} does not resolve");
    }
    let mut canon: Vec<&str> = t.models().iter().map(|m| m.id.as_str()).collect();
    assert_eq!(canon.len(), 26);
    canon.sort_unstable();
    canon.dedup();
    assert_eq!(canon.len(), 26, "duplicate canonical ids");
    for id in ids {
        assert!(t.estimate(id).is_none(), "{id} is in the table, not estimated");
    }
    // Every embedded row says where its prices come from, and when.
    for m in t.models() {
        assert!(m.source.as_deref().is_some_and(|s| !s.is_empty()), "{} has no source", m.id);
        assert!(m.source_date.is_some(), "{} has no source_date", m.id);
    }
}

#[test]
fn price_all_sets_costs_and_counts_unknown_models() {
    let t = table();
    let tk = tok(1000, 0, 0, 0, 1000);
    let time = "2026-04-01T00:00:00Z";
    let mut reqs = vec![
        req("claude-opus-4-5-20251101", time, tk),
        req("<synthetic>", time, tk),
        req("claude-nova-4-9", time, tk),
        req("claude-nova-4-9", time, tk),
        req("claude-opus-4-5-20251101", time, tk),
    ];
    reqs[1].cost_usd = 9.0;
    let unknown = t.price_all(&mut reqs);
    assert_eq!(unknown, UnknownModels::from([("<synthetic>".into(), 1), ("claude-nova-4-9".into(), 2)]));
    // Opus 4.5: 1000*5e-6 + 1000*25e-6 = 0.03
    close(reqs[0].cost_usd, 0.03);
    close(reqs[4].cost_usd, 0.03);
    assert_eq!(reqs[1].cost_usd, 0.0);
    assert_eq!(reqs[2].cost_usd, 0.0);
}

#[test]
fn price_all_over_100k_requests() {
    let t = table();
    let models = ["claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "x"];
    let mut reqs: Vec<Request> =
        (0..100_000).map(|i| req(models[i % 4], "2026-04-01T00:00:00Z", tok(1, 0, 0, 0, 0))).collect();
    let start = std::time::Instant::now();
    let unknown = t.price_all(&mut reqs);
    eprintln!("price_all over 100k requests: {:?}", start.elapsed());
    assert_eq!(unknown.get("x"), Some(&25_000));
    // 25_000 requests each at 5e-6 + 3e-6 + 1e-6 per input token = 0.225
    close(reqs.iter().map(|r| r.cost_usd).sum::<f64>(), 0.225);
}

pub(super) fn write_temp(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn override_file_replaces_and_extends() {
    let f = write_temp(
        r#"
[[model]]
id = "claude-opus-4-5"
input_per_mtok = 1.0
output_per_mtok = 2.0

[[model]]
id = "my-model"
aliases = ["my-alias"]
input_per_mtok = 7.0
output_per_mtok = 9.0
read_multiplier = 0.2
fast_multiplier = 3.0
"#,
    );
    let t = PriceTable::load(Some(f.path())).unwrap();
    assert_eq!(t.models().len(), table().models().len() + 1);
    let time = at("2026-01-01T00:00:00Z");
    // Replaced entry, reached through its dated spelling too.
    let r = t.base_rates("claude-opus-4-5-20251101", time).unwrap();
    close(r.input, 1e-6);
    close(r.output, 2e-6);
    // New entry and its alias: 1M reads * 0.2 * 7e-6 = 1.4; fast x3 = 4.2
    assert_eq!(t.resolve("my-alias").map(|m| m.id.as_str()), Some("my-model"));
    let r = with(req("my-alias", "2026-01-01T00:00:00Z", tok(0, 0, 0, 1_000_000, 0)), "fast", "");
    close(t.cost(&r).unwrap(), 4.2);
    // Other models untouched.
    close(t.base_rates("claude-opus-4-6", time).unwrap().input, 5e-6);
}

#[test]
fn bad_override_file_names_the_path() {
    let f = write_temp("[[model]]\nid = \"x\"\ninput_per_mtok = \"cheap\"\n");
    let err = PriceTable::load(Some(f.path())).unwrap_err();
    assert!(matches!(err, PricingError::Parse { .. }), "{err:?}");
    assert!(err.to_string().contains(&f.path().display().to_string()), "{err}");

    let f = write_temp("[[model]]\nid = \"x\"\ninput_per_mtok = -1.0\noutput_per_mtok = 1.0\n");
    let err = PriceTable::load(Some(f.path())).unwrap_err();
    assert!(err.to_string().contains("input_per_mtok"), "{err}");

    let missing = f.path().with_extension("missing.toml");
    let err = PriceTable::load(Some(&missing)).unwrap_err();
    assert!(matches!(err, PricingError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains(&missing.display().to_string()), "{err}");
}
