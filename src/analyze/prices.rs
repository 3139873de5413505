//! Where the analysis gets its prices and its money: the `RateSource` trait
//! (implemented by `pricing::PriceTable`, and by fakes in tests), the one
//! choice of rates (`rates_for`: a request's own rates, or the model's base
//! list prices, cache-model §4 v2), the one cache-money function
//! (`rewrite_premium`) and the reference §4 cost formula. Hands on these to
//! the classifier, the what-if, stale, advice and idle-compaction modules.

use crate::model::{Request, TokenCounts};
use crate::pricing::{PriceTable, Rates, WEB_SEARCH_USD};
use chrono::{DateTime, Utc};

/// TTL of a 5-minute cache write, in seconds.
pub const TTL_5M_S: u32 = 300;
/// TTL of a 1-hour cache write, in seconds.
pub const TTL_1H_S: u32 = 3600;

/// The prices the analysis needs; `None` means an unknown model, whose money
/// figures are then 0.
pub trait RateSource {
    /// Rates the request paid (cache-model §4: with long-context premium where it applied).
    fn request_rates(&self, r: &Request) -> Option<Rates>;
    /// List rates of a model at a time, no premium (used by advice, §7).
    fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates>;
    /// `request_rates` of each of `requests`, in order.
    fn request_rates_each(&self, requests: &[Request]) -> Vec<Option<Rates>> {
        requests.iter().map(|r| self.request_rates(r)).collect()
    }
}

impl RateSource for PriceTable {
    fn request_rates(&self, r: &Request) -> Option<Rates> {
        PriceTable::request_rates(self, r)
    }

    fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates> {
        PriceTable::base_rates(self, model, at)
    }

    fn request_rates_each(&self, requests: &[Request]) -> Vec<Option<Rates>> {
        PriceTable::request_rates_each(self, requests)
    }
}

/// Which prices a money figure uses (cache-model §4 v2). The difference is
/// deliberate and lives here only: a miss cost, a what-if cost, a stale
/// premium and an idle gap's rebuild are what *that request* paid, so they
/// use its rates (long-context premium, fast mode and `inference_geo`
/// multipliers included); the advice (§7) and the compaction side of the
/// idle-compaction what-if (§5 v2) price future or hypothetical requests at
/// the model's base list prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The rates the request paid.
    Request,
    /// The model's list prices at a time, no premium or multiplier.
    Base(DateTime<Utc>),
}

/// The rates of `r` on `basis`; `None` for an unknown model.
pub fn rates_for(source: &dyn RateSource, r: &Request, basis: Basis) -> Option<Rates> {
    match basis {
        Basis::Request => source.request_rates(r),
        Basis::Base(at) => source.base_rates(&r.model, at),
    }
}

/// The cache money function: what writing `tokens` into a `ttl_s` cache
/// costs over reading them, `tokens * (write price at ttl_s - read price)`.
/// A miss cost (§2), a cold-resume premium (§6) and the advice's cold
/// resume (§7) are all this, on the rates `rates_for` chose.
pub fn rewrite_premium(rates: Option<&Rates>, tokens: f64, ttl_s: u32) -> f64 {
    match rates {
        Some(p) if tokens != 0.0 => tokens * (write_price(p, ttl_s) - p.read()),
        _ => 0.0,
    }
}

/// Write multiplier of a TTL: 2 for 1h, 1.25 for 5m.
pub fn write_multiplier(ttl_s: u32) -> f64 {
    if ttl_s >= TTL_1H_S {
        2.0
    } else {
        1.25
    }
}

/// Per-token price of a cache write with `ttl_s` under `rates`.
pub fn write_price(rates: &Rates, ttl_s: u32) -> f64 {
    rates.input * write_multiplier(ttl_s)
}

/// Reference §4 cost of one request: every token class at its rate, web
/// searches at $0.01 each. `None` rates (unknown model) cost 0.
pub fn request_cost(rates: Option<&Rates>, t: &TokenCounts, web_search: u64) -> f64 {
    let Some(p) = rates else { return 0.0 };
    t.input as f64 * p.input
        + t.cache_write_5m as f64 * p.write_5m()
        + t.cache_write_1h as f64 * p.write_1h()
        + t.cache_read as f64 * p.read()
        + t.output as f64 * p.output
        + web_search as f64 * WEB_SEARCH_USD
}
