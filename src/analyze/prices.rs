//! Where the analysis gets its prices: the `RateSource` trait (implemented by
//! `pricing::PriceTable`, and by fakes in tests) and the reference §4 cost
//! formula over a request's `Rates`. Hands on per-token write/read prices to
//! the classifier, the what-if, stale and advice modules.

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
}

impl RateSource for PriceTable {
    fn request_rates(&self, r: &Request) -> Option<Rates> {
        PriceTable::request_rates(self, r)
    }

    fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates> {
        PriceTable::base_rates(self, model, at)
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
