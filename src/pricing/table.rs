//! The TOML price-table schema (`pricing/prices.toml`, also the format of
//! `--pricing FILE`), its parsing and validation, and how an override file is
//! merged into the embedded table.

use super::resolve::normalize;
use super::PricingError;
use crate::model::MAX_TOKENS;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The embedded price table.
pub(super) const EMBEDDED_TOML: &str = include_str!("../../pricing/prices.toml");

/// The path reported in errors about the embedded table.
pub(super) const EMBEDDED_NAME: &str = "<embedded pricing/prices.toml>";

/// Default cache-read price as a fraction of input.
const DEFAULT_READ_MULTIPLIER: f64 = 0.1;

/// Highest price a table may give, USD per million tokens (today's
/// dearest is $75): a typo or a hostile file cannot make a cost overflow.
pub(super) const MAX_PRICE_PER_MTOK: f64 = 1e6;

/// Highest multiplier (read, fast mode, long context) a table may give.
pub(super) const MAX_MULTIPLIER: f64 = 1e3;

/// One model's prices, as written in the TOML table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Canonical id (stored normalised, e.g. `claude-opus-4-6`).
    pub id: String,
    /// Other ids meaning this model (stored normalised).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Base input price, USD per million tokens.
    pub input_per_mtok: f64,
    /// Output price, USD per million tokens.
    pub output_per_mtok: f64,
    /// Cache-read price as a fraction of input, before any dated change.
    #[serde(default = "default_read_multiplier")]
    pub read_multiplier: f64,
    /// Dated changes of the read multiplier, sorted by date after loading.
    #[serde(default)]
    pub read_multiplier_from: Vec<DatedValue>,
    /// Whole-request premium above a prompt-size threshold.
    #[serde(default)]
    pub long_context: Option<LongContext>,
    /// Price multiplier of `speed == "fast"`; None when there is no fast mode.
    #[serde(default)]
    pub fast_multiplier: Option<f64>,
    /// Whether `inference_geo == "us"` costs 1.1x.
    #[serde(default)]
    pub geo_us: bool,
    /// Where the prices come from (shown by `cachewise prices`).
    #[serde(default)]
    pub source: Option<String>,
    /// When that source was published or captured: `YYYY-MM-DD`, or
    /// `YYYY-MM` when only the month is known.
    #[serde(default)]
    pub source_date: Option<String>,
}

/// A value that applies from a date (UTC midnight) on.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatedValue {
    pub from: NaiveDate,
    pub value: f64,
}

/// Premium pricing of whole requests whose prompt exceeds `threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LongContext {
    /// Premium applies when prompt tokens > threshold (strict).
    pub threshold: u64,
    pub input_mult: f64,
    pub output_mult: f64,
    /// Requests before this date (UTC midnight) pay it; None = forever.
    #[serde(default)]
    pub until: Option<NaiveDate>,
}

fn default_read_multiplier() -> f64 {
    DEFAULT_READ_MULTIPLIER
}

/// The whole file: `[[model]]` entries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    #[serde(default, rename = "model")]
    models: Vec<ModelPrice>,
}

/// Midnight UTC starting `date`.
pub(super) fn midnight_utc(date: NaiveDate) -> DateTime<Utc> {
    date.and_time(NaiveTime::MIN).and_utc()
}

impl ModelPrice {
    /// The read multiplier in force at `at`.
    pub fn read_multiplier_at(&self, at: DateTime<Utc>) -> f64 {
        self.read_multiplier_from
            .iter()
            .rev()
            .find(|c| midnight_utc(c.from) <= at)
            .map_or(self.read_multiplier, |c| c.value)
    }

    /// The premium a request of `prompt` tokens at `at` pays, if any.
    pub fn premium_at(&self, at: DateTime<Utc>, prompt: u64) -> Option<&LongContext> {
        self.long_context
            .as_ref()
            .filter(|lc| prompt > lc.threshold && lc.until.is_none_or(|until| at < midnight_utc(until)))
    }

    /// Normalises ids, sorts dated changes and checks every number.
    fn validate(mut self) -> Result<ModelPrice, String> {
        let raw_id = self.id.clone();
        self.id = normalize(&self.id);
        if self.id.is_empty() {
            return Err(format!("model `{raw_id}`: empty id"));
        }
        self.aliases = self.aliases.iter().map(|a| normalize(a)).collect();
        self.read_multiplier_from.sort_by_key(|c| c.from);
        let mut numbers = vec![
            ("input_per_mtok", self.input_per_mtok),
            ("output_per_mtok", self.output_per_mtok),
            ("read_multiplier", self.read_multiplier),
        ];
        numbers.extend(self.read_multiplier_from.iter().map(|c| ("read_multiplier_from.value", c.value)));
        if let Some(f) = self.fast_multiplier {
            numbers.push(("fast_multiplier", f));
        }
        if let Some(lc) = &self.long_context {
            numbers.push(("long_context.input_mult", lc.input_mult));
            numbers.push(("long_context.output_mult", lc.output_mult));
        }
        if let Some(d) = self.source_date.as_deref().filter(|d| !is_day_or_month(d)) {
            return Err(format!("model `{raw_id}`: source_date = {d:?} is not YYYY-MM-DD or YYYY-MM"));
        }
        if let Some((name, v)) = numbers.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
            return Err(format!("model `{raw_id}`: {name} = {v} is not a finite number >= 0"));
        }
        if let Some((name, v, max)) = numbers.iter().map(|&(n, v)| (n, v, bound_of(n))).find(|(_, v, max)| v > max) {
            return Err(format!("model `{raw_id}`: {name} = {v} is above the bound of {max}"));
        }
        let worst = self.worst_cost();
        match worst.is_finite() {
            true => Ok(self),
            false => Err(format!("model `{raw_id}`: prices whose cost overflows ({worst}) at {MAX_TOKENS} tokens")),
        }
    }

    /// The dearest request these prices allow: every token field at
    /// `MAX_TOKENS`, at the highest price, every multiplier applied (fast,
    /// long context, data residency, a 1-hour write). Finite for any table
    /// within the bounds; checked so a change of bounds cannot let one overflow.
    fn worst_cost(&self) -> f64 {
        let price = self.input_per_mtok.max(self.output_per_mtok) / 1e6;
        let read = self.read_multiplier_from.iter().map(|c| c.value).fold(self.read_multiplier, f64::max);
        let lc = self.long_context.map_or(1.0, |lc| lc.input_mult.max(lc.output_mult).max(1.0));
        let mult = self.fast_multiplier.unwrap_or(1.0).max(1.0) * lc * super::GEO_US_MULTIPLIER * read.max(2.0);
        5.0 * MAX_TOKENS as f64 * price * mult
    }
}

/// The bound of a checked field: a price per MTok or a multiplier.
fn bound_of(name: &str) -> f64 {
    match name.ends_with("_per_mtok") {
        true => MAX_PRICE_PER_MTOK,
        false => MAX_MULTIPLIER,
    }
}

/// `2026-11-12` or `2026-11`.
fn is_day_or_month(s: &str) -> bool {
    let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok();
    (s.len() == 10 && day(s)) || (s.len() == 7 && day(&format!("{s}-01")))
}

/// Parses and validates a price table; errors name `path`.
pub(super) fn parse(text: &str, path: &Path) -> Result<Vec<ModelPrice>, PricingError> {
    let parse_err = |message: String| PricingError::Parse { path: path.to_path_buf(), message };
    let file: PriceFile = toml::from_str(text).map_err(|e| parse_err(e.to_string()))?;
    file.models.into_iter().map(|m| m.validate().map_err(parse_err)).collect()
}

/// Merges `extra` into `base`: a known canonical id replaces that entry, a new
/// id is appended.
pub(super) fn merge(base: &mut Vec<ModelPrice>, extra: Vec<ModelPrice>) {
    for model in extra {
        match base.iter().position(|b| b.id == model.id) {
            Some(i) => base[i] = model,
            None => base.push(model),
        }
    }
}
