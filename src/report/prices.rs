//! `cachewise prices`: the price table a run uses (the embedded one, with
//! any `--pricing` file merged in) as rows with the derived per-MTok write
//! and read prices, the long-context rule in words, source and date, plus
//! which version each family's unknown versions are estimated as. Hands a
//! terminal table or the JSON contract to the CLI.

use super::fit::{self, Col, Layout};
use crate::model::format::thousands;
use crate::pricing::{DatedValue, LongContext, ModelPrice, PriceTable, Rates, GEO_US_MULTIPLIER};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One model of the table, with its prices in USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceRow {
    pub model: String,
    pub aliases: Vec<String>,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    pub cache_write_5m_per_mtok: f64,
    pub cache_write_1h_per_mtok: f64,
    /// Cache read price at `as_of`.
    pub cache_read_per_mtok: f64,
    /// Cache read price as a fraction of input, at `as_of`.
    pub read_multiplier: f64,
    /// Dated changes of the read multiplier.
    pub read_multiplier_from: Vec<DatedValue>,
    /// The read multiplier over time in words: `0.1`, or `0.1, 0.05 from 2026-10-07`.
    pub read_multiplier_rule: String,
    /// Price multiplier of fast mode; None when the model has none.
    pub fast_multiplier: Option<f64>,
    pub long_context: Option<LongContext>,
    /// `long_context` in words ("none" when absent).
    pub long_context_rule: String,
    /// Multiplier of `inference_geo: "us"`; None when it costs nothing extra.
    pub geo_us_multiplier: Option<f64>,
    pub source: Option<String>,
    pub source_date: Option<String>,
}

/// The whole listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceList {
    /// The clock the read prices are given at.
    pub as_of: DateTime<Utc>,
    /// The `--pricing` file merged into the embedded table, if any.
    pub pricing_file: Option<String>,
    pub models: Vec<PriceRow>,
    /// Family -> the model its versions missing from the table are priced as.
    pub estimates_use: BTreeMap<String, String>,
}

/// Lists `prices` with read prices as of `as_of`.
pub fn price_list(prices: &PriceTable, pricing_file: Option<String>, as_of: DateTime<Utc>) -> PriceList {
    PriceList {
        as_of,
        pricing_file,
        models: prices.models().iter().map(|m| row(m, as_of)).collect(),
        estimates_use: prices.families().into_iter().map(|(f, m)| (f.to_owned(), m.to_owned())).collect(),
    }
}

fn row(m: &ModelPrice, as_of: DateTime<Utc>) -> PriceRow {
    // Rates per million tokens (not per token), so the figures stay exact.
    let r = Rates { input: m.input_per_mtok, output: m.output_per_mtok, read_multiplier: m.read_multiplier_at(as_of) };
    PriceRow {
        model: m.id.clone(),
        aliases: m.aliases.clone(),
        input_per_mtok: m.input_per_mtok,
        output_per_mtok: m.output_per_mtok,
        cache_write_5m_per_mtok: r.write_5m(),
        cache_write_1h_per_mtok: r.write_1h(),
        cache_read_per_mtok: r.read(),
        read_multiplier: r.read_multiplier,
        read_multiplier_from: m.read_multiplier_from.clone(),
        read_multiplier_rule: read_rule(m),
        fast_multiplier: m.fast_multiplier,
        long_context: m.long_context,
        long_context_rule: long_context_rule(m.long_context.as_ref()),
        geo_us_multiplier: m.geo_us.then_some(GEO_US_MULTIPLIER),
        source: m.source.clone(),
        source_date: m.source_date.clone(),
    }
}

fn read_rule(m: &ModelPrice) -> String {
    let mut out = trim(m.read_multiplier);
    for c in &m.read_multiplier_from {
        let _ = write!(out, ", {} from {}", trim(c.value), c.from);
    }
    out
}

/// `none`, or e.g. `prompt > 200k: 2x input, 1.5x output, before 2026-03-13`
/// (the whole request pays it).
pub fn long_context_rule(lc: Option<&LongContext>) -> String {
    let Some(lc) = lc else { return "none".to_owned() };
    let until = lc.until.map(|d| format!(", before {d}")).unwrap_or_default();
    let threshold = match lc.threshold % 1000 {
        0 => format!("{}k", lc.threshold / 1000),
        _ => thousands(lc.threshold),
    };
    format!("prompt > {threshold}: {}x input, {}x output{until}", lc.input_mult, lc.output_mult)
}

/// The listing as JSON (keys in docs/reports.md).
pub fn render_json(l: &PriceList) -> String {
    match serde_json::to_string_pretty(l) {
        Ok(s) => format!("{s}\n"),
        Err(e) => format!("{{\"error\":\"{e}\"}}\n"),
    }
}

/// The price table's columns: the five prices always but the 1 h write's;
/// the rules as the width allows (`Long context` wraps).
const COLUMNS: [Col; 9] = [
    Col::text("Model", 0),
    Col::num("Input", 0),
    Col::num("Output", 0),
    Col::num("Write 5m", 0),
    Col::num("Write 1h", 1),
    Col::num("Read", 0),
    Col::text("Read x", 3),
    Col::text("Fast x", 2),
    Col::text("Long context", 1),
];

/// The listing as a terminal table that fits `layout`, sources underneath.
pub fn render_table(l: &PriceList, layout: Layout) -> String {
    let usd = |x: f64| format!("${}", trim(x));
    let rows: Vec<Vec<String>> = l
        .models
        .iter()
        .map(|r| {
            vec![
                r.model.clone(),
                usd(r.input_per_mtok),
                usd(r.output_per_mtok),
                usd(r.cache_write_5m_per_mtok),
                usd(r.cache_write_1h_per_mtok),
                usd(r.cache_read_per_mtok),
                r.read_multiplier_rule.clone(),
                r.fast_multiplier.map_or_else(|| "-".to_owned(), trim),
                r.long_context_rule.clone(),
            ]
        })
        .collect();
    let mut out = format!(
        "Prices in USD per million tokens (read prices as of {});\na long-context premium applies to the whole request.\n{}\n",
        l.as_of.format("%Y-%m-%d"),
        fit::table(&COLUMNS, &rows, layout)
    );
    if let Some(f) = &l.pricing_file {
        let _ = writeln!(out, "Includes {f} (--pricing).");
    }
    out += "\nSources:\n";
    for r in &l.models {
        let date = r.source_date.as_deref().unwrap_or("undated");
        let (model, source) = (super::cell::term(&r.model), r.source.as_deref().unwrap_or("(no source given)"));
        let _ = writeln!(out, "  {model:<20} {:<10}  {}", super::cell::term(date), super::cell::term(source));
    }
    let families: Vec<String> = l.estimates_use.iter().map(|(f, m)| format!("{f} -> {m}")).collect();
    let _ = writeln!(
        out,
        "\nA model missing here but spelled claude-<family>-<major>[-<minor>] is priced as its family's\n\
newest version ({}) and marked estimated in every report;\n--pricing FILE adds exact prices (same TOML schema).",
        families.join(", ")
    );
    out
}

/// `10`, `0.2`, `18.75`: no trailing zeros, at most six decimals.
fn trim(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn fable_5_2_row_and_rules() {
        let t = PriceTable::embedded().unwrap();
        let l = price_list(&t, None, "2026-11-30T00:00:00Z".parse().unwrap());
        let f = l.models.iter().find(|r| r.model == "claude-fable-5-2").unwrap();
        assert_eq!((f.input_per_mtok, f.output_per_mtok), (8.0, 40.0));
        assert_eq!((trim(f.cache_write_5m_per_mtok), trim(f.cache_write_1h_per_mtok)), ("10".into(), "16".into()));
        assert_eq!(trim(f.cache_read_per_mtok), "0.2");
        assert_eq!((f.read_multiplier, f.fast_multiplier), (0.025, Some(2.0)));
        assert_eq!(f.long_context_rule, "none");
        assert_eq!(f.source_date.as_deref(), Some("2026-11-12"));
        let o = l.models.iter().find(|r| r.model == "claude-opus-4-6").unwrap();
        assert_eq!(o.long_context_rule, "prompt > 200k: 2x input, 1.5x output, before 2026-03-13");
        // Sonnet 5.5's read price is the one in force at `as_of`: 0.05 x $2.
        let s = l.models.iter().find(|r| r.model == "claude-sonnet-5-5").unwrap();
        assert_eq!((s.read_multiplier, trim(s.cache_read_per_mtok)), (0.05, "0.1".into()));
        assert_eq!(s.read_multiplier_rule, "0.1, 0.05 from 2026-10-07");
        assert_eq!(
            long_context_rule(Some(&LongContext {
                threshold: 123_456,
                until: None,
                ..*o.long_context.as_ref().unwrap()
            })),
            "prompt > 123,456: 2x input, 1.5x output"
        );
        assert_eq!(l.estimates_use.get("fable").map(String::as_str), Some("claude-fable-5-2"));
        assert_eq!(l.estimates_use.get("opus").map(String::as_str), Some("claude-opus-5-5"));
        let text = render_table(&l, Layout::WIDE);
        assert!(text.contains("claude-fable-5-2     2026-11-12  pricing pages and launch notes"), "{text}");
        assert!(text.contains("fable -> claude-fable-5-2"), "{text}");
        for width in [80, 100] {
            let text = render_table(&l, Layout { width: Some(width), ..Layout::WIDE });
            let table: Vec<&str> = text.lines().take_while(|l| !l.starts_with("Includes") && !l.is_empty()).collect();
            assert!(table.iter().all(|l| l.chars().count() <= width), "{width}: {text}");
            assert!(text.contains("claude-fable-5-2") && text.contains("$"), "{text}");
        }
    }
}
