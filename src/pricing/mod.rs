//! Prices per model (an embedded TOML table, overridable with `--pricing`),
//! model-id resolution, the rates a request pays, and money (`money`: the
//! one place tokens become dollars).
//!
//! API CONTRACT (other modules code against these signatures):
//! - `PriceTable::load(Option<&Path>) -> Result<PriceTable, PricingError>`
//! - `PriceTable::base_rates(model, at) -> Option<Rates>`: list prices, no premium
//! - `PriceTable::request_rates(&Request) -> Option<Rates>`: the rates that request
//!   paid (long-context premium, fast mode, `inference_geo: "us"` applied)
//! - `PriceTable::cost(&Request) -> Option<f64>`: None for unknown models
//! - `PriceTable::price_all(&mut [Request]) -> UnknownModels`
//!
//! Extras: `PriceTable::embedded`, `PriceTable::resolve` (raw model string ->
//! its `ModelPrice`, whose `id` is the canonical id) and `PriceTable::models`.
//!
//! Estimates: a model the table lacks but of a known family
//! (`claude-<family>-<major>[-<minor>]`, e.g. `claude-opus-5-7`) resolves to
//! the family's newest version in the table, everywhere (cost, rates, the
//! cache model); `PriceTable::estimate` / `estimated_models` say which
//! models were priced that way, for reports to show beside their totals. A
//! model of an unknown family stays unpriced (None, $0, named).
//!
//! Cost of one request, with prompt `P = in + w5 + w1h + r` at its `time`:
//! `m * [in*pin + w5*1.25*pin + w1h*2*pin + r*rm*pin + out*pout] + web*0.01`,
//! where `pin`/`pout` carry the long-context premium when `P > threshold`
//! before the premium's end date (never in fast mode), and `m` = fast
//! multiplier (when `speed == "fast"`) x 1.1 (when `inference_geo == "us"` on a
//! model with data-residency pricing). Nothing is rounded.

mod calls;
mod estimate;
mod money;
mod resolve;
mod table;
#[cfg(test)]
mod tests;

pub use estimate::{family_version, Estimate};
pub use money::{
    cost, projected, rewrite_premium, split, write_multiplier, Basis, ClassCost, Rates, TTL_1H_S, TTL_5M_S,
    WEB_SEARCH_USD,
};
pub use resolve::normalize;
pub use table::{DatedValue, LongContext, ModelPrice};

use crate::model::Request;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Multiplier of `inference_geo == "us"` on models with data-residency pricing.
pub const GEO_US_MULTIPLIER: f64 = 1.1;

/// Tokens per price unit (prices are USD per million tokens).
const PER_MTOK: f64 = 1_000_000.0;

/// Models that had no price, with how many requests used them.
pub type UnknownModels = BTreeMap<String, u64>;

/// Errors loading a price table.
#[derive(Debug, thiserror::Error)]
pub enum PricingError {
    #[error("cannot read pricing file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid pricing file {path}: {message}")]
    Parse { path: PathBuf, message: String },
}

/// The price table: embedded models plus any overrides.
#[derive(Debug, Clone)]
pub struct PriceTable {
    models: Vec<ModelPrice>,
    /// Normalised id or alias -> index into `models`.
    index: HashMap<String, usize>,
    /// Family (`opus`) -> index of its newest version, for estimates.
    families: HashMap<String, usize>,
}

impl PriceTable {
    /// The embedded table alone.
    pub fn embedded() -> Result<PriceTable, PricingError> {
        let models = table::parse(table::EMBEDDED_TOML, Path::new(table::EMBEDDED_NAME))?;
        Ok(PriceTable::from_models(models))
    }

    /// The embedded table, extended or overridden by `overrides` when given.
    pub fn load(overrides: Option<&Path>) -> Result<PriceTable, PricingError> {
        let mut t = PriceTable::embedded()?;
        if let Some(path) = overrides {
            let text = std::fs::read_to_string(path)
                .map_err(|source| PricingError::Read { path: path.to_path_buf(), source })?;
            let mut models = std::mem::take(&mut t.models);
            table::merge(&mut models, table::parse(&text, path)?);
            t = PriceTable::from_models(models);
        }
        Ok(t)
    }

    /// Builds the lookup index; canonical ids win over aliases, and later
    /// entries' aliases over earlier ones.
    fn from_models(models: Vec<ModelPrice>) -> PriceTable {
        let mut index = HashMap::new();
        for (i, m) in models.iter().enumerate() {
            for alias in &m.aliases {
                index.insert(alias.clone(), i);
            }
        }
        for (i, m) in models.iter().enumerate() {
            index.insert(m.id.clone(), i);
        }
        let mut newest: HashMap<String, (estimate::Version, usize)> = HashMap::new();
        for (i, m) in models.iter().enumerate() {
            if let Some((family, version)) = estimate::family_version(&m.id) {
                let e = newest.entry(family.to_owned()).or_insert((version, i));
                if version > e.0 {
                    *e = (version, i);
                }
            }
        }
        let families = newest.into_iter().map(|(f, (_, i))| (f, i)).collect();
        PriceTable { models, index, families }
    }

    /// Identifies this table: the store records the fingerprint of the
    /// table its `cost_usd` were computed with (the manifest's `pricing`),
    /// so an ingest with another table reprices, and a reader prices in
    /// memory (`Store::requests_priced`).
    pub fn fingerprint(&self) -> u64 {
        crate::store::manifest::fingerprint(format!("{:?}", self.models).as_bytes())
    }

    /// Every model in the table, embedded ones first.
    pub fn models(&self) -> &[ModelPrice] {
        &self.models
    }

    /// Family -> canonical id of its newest version: what a version the
    /// table lacks is priced as. Sorted by family.
    pub fn families(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> =
            self.families.iter().map(|(f, &i)| (f.as_str(), self.models[i].id.as_str())).collect();
        out.sort_unstable();
        out
    }

    /// The prices of a raw `message.model` string (any spelling), estimated
    /// for a new version of a known family; None when unknown.
    /// `ModelPrice::id` is the canonical id of the prices used.
    pub fn resolve(&self, model: &str) -> Option<&ModelPrice> {
        self.lookup(model).map(|i| &self.models[i])
    }

    /// The prices `model` is estimated with: Some only for a model the
    /// table lacks whose family it knows.
    pub fn estimate(&self, model: &str) -> Option<&ModelPrice> {
        let key = normalize(model);
        match self.index.contains_key(&key) {
            true => None,
            false => self.family_newest(&key).map(|i| &self.models[i]),
        }
    }

    /// The estimated ones among `models` (raw spellings), sorted, each once.
    pub fn estimated_models<'m>(&self, models: impl IntoIterator<Item = &'m str>) -> Vec<Estimate> {
        let mut out: Vec<Estimate> = models
            .into_iter()
            .filter_map(|m| self.estimate(m).map(|p| Estimate { model: m.to_owned(), priced_as: p.id.clone() }))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn lookup(&self, model: &str) -> Option<usize> {
        let key = normalize(model);
        self.index.get(&key).copied().or_else(|| self.family_newest(&key))
    }

    fn family_newest(&self, key: &str) -> Option<usize> {
        let (family, _) = estimate::family_version(key)?;
        self.families.get(family).copied()
    }

    /// List rates of `model` at time `at` (no long-context premium).
    pub fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates> {
        self.resolve(model).map(|m| m.base_rates(at))
    }

    /// The rates `req` paid: premium, fast mode and data residency applied.
    pub fn request_rates(&self, req: &Request) -> Option<Rates> {
        self.resolve(&req.model).map(|m| m.request_rates(req))
    }

    /// The rates of `req` on `basis` (`Basis`); None for an unknown model.
    pub fn rates(&self, req: &Request, basis: Basis) -> Option<Rates> {
        let m = self.resolve(&req.model)?;
        Some(match basis {
            Basis::Request => m.request_rates(req),
            Basis::Base(at) => m.base_rates(at),
            Basis::Session(at) => m.session_rates(at, &req.speed, &req.inference_geo),
        })
    }

    /// `request_rates` of each of `requests`, each model name resolved once.
    pub fn request_rates_each<'r>(&self, requests: impl IntoIterator<Item = &'r Request>) -> Vec<Option<Rates>> {
        let mut resolver = CachedLookup::new(self);
        requests.into_iter().map(|r| resolver.index(&r.model).map(|i| self.models[i].request_rates(r))).collect()
    }

    /// Cost of one request in USD; None when the model is unknown.
    pub fn cost(&self, req: &Request) -> Option<f64> {
        self.resolve(&req.model).map(|m| m.cost(req))
    }

    /// Sets `cost_usd` on every request; returns the unknown models.
    pub fn price_all<'r>(&self, requests: impl IntoIterator<Item = &'r mut Request>) -> UnknownModels {
        let mut unknown = UnknownModels::new();
        let mut resolver = CachedLookup::new(self);
        for r in requests {
            match resolver.index(&r.model) {
                Some(i) => r.cost_usd = self.models[i].cost(r),
                None => {
                    r.cost_usd = 0.0;
                    match unknown.get_mut(r.model.as_str()) {
                        Some(n) => *n += 1,
                        None => {
                            unknown.insert(r.model.to_string(), 1);
                        }
                    }
                }
            }
        }
        unknown
    }
}

/// Memoised `PriceTable::lookup` for runs of requests: raw model string ->
/// model index, with a fast path for the same model as the previous request.
struct CachedLookup<'a> {
    table: &'a PriceTable,
    seen: HashMap<String, Option<usize>>,
    last: Option<(String, Option<usize>)>,
}

impl<'a> CachedLookup<'a> {
    fn new(table: &'a PriceTable) -> Self {
        CachedLookup { table, seen: HashMap::new(), last: None }
    }

    fn index(&mut self, model: &str) -> Option<usize> {
        if let Some((m, idx)) = &self.last {
            if m == model {
                return *idx;
            }
        }
        let idx = match self.seen.get(model) {
            Some(idx) => *idx,
            None => {
                let idx = self.table.lookup(model);
                self.seen.insert(model.to_string(), idx);
                idx
            }
        };
        match &mut self.last {
            Some((m, i)) => {
                m.clear();
                m.push_str(model);
                *i = idx;
            }
            None => self.last = Some((model.to_owned(), idx)),
        }
        idx
    }
}

impl ModelPrice {
    /// List per-token rates at `at`: no premium, fast mode or geo multiplier.
    pub fn base_rates(&self, at: DateTime<Utc>) -> Rates {
        Rates {
            input: self.input_per_mtok / PER_MTOK,
            output: self.output_per_mtok / PER_MTOK,
            read_multiplier: self.read_multiplier_at(at),
        }
    }

    /// The fast-mode multiplier `speed` gets on this model (None: not fast,
    /// or the model has no fast pricing).
    fn fast(&self, speed: &str) -> Option<f64> {
        match self.fast_multiplier {
            Some(f) if speed.eq_ignore_ascii_case("fast") => Some(f),
            _ => None,
        }
    }

    /// Fast mode times data residency: what multiplies every token price.
    fn multiplier(&self, speed: &str, geo: &str) -> f64 {
        let mut m = self.fast(speed).unwrap_or(1.0);
        if self.geo_us && geo.eq_ignore_ascii_case("us") {
            m *= GEO_US_MULTIPLIER;
        }
        m
    }

    /// Per-token rates `req` paid on this model.
    pub fn request_rates(&self, req: &Request) -> Rates {
        let base = self.base_rates(req.time);
        let (mut input, mut output) = (base.input, base.output);
        // Fast mode never carries the long-context charge (the pricing page: fast mode includes the long-context window).
        if self.fast(&req.speed).is_none() {
            if let Some(lc) = self.premium_at(req.time, req.tokens.prompt()) {
                input *= lc.input_mult;
                output *= lc.output_mult;
            }
        }
        let m = self.multiplier(&req.speed, &req.inference_geo);
        Rates { input: m * input, output: m * output, read_multiplier: base.read_multiplier }
    }

    /// List rates at `at` times the fast-mode (`speed`) and data-residency
    /// (`geo`) multipliers, no long-context premium (`Basis::Session`).
    pub fn session_rates(&self, at: DateTime<Utc>, speed: &str, geo: &str) -> Rates {
        let base = self.base_rates(at);
        let m = self.multiplier(speed, geo);
        Rates { input: m * base.input, output: m * base.output, read_multiplier: base.read_multiplier }
    }

    /// Cost of `req` in USD on this model, web searches included.
    pub fn cost(&self, req: &Request) -> f64 {
        self.request_rates(req).cost(&req.tokens, req.web_search)
    }
}
