//! Where the analysis gets its prices: the `RateSource` trait (implemented
//! by `pricing::PriceTable`, and by fakes in tests) and the one choice of
//! rates (`rates_for` on a `pricing::Basis`). The money itself (a cost, its
//! split, a rewrite premium) is `pricing`'s; it is re-exported here for the
//! classifier, the what-if, stale, advice, keep-warm and idle-compaction
//! modules.

use crate::model::Request;
use crate::pricing::{PriceTable, Rates};
use chrono::{DateTime, Utc};

pub use crate::pricing::{cost as request_cost, rewrite_premium, write_multiplier, Basis, TTL_1H_S, TTL_5M_S};

/// The prices the analysis needs; `None` means an unknown model, whose money
/// figures are then 0.
pub trait RateSource {
    /// Rates the request paid (cache-model §4: with long-context premium where it applied).
    fn request_rates(&self, r: &Request) -> Option<Rates>;
    /// List rates of a model at a time, no premium (the idle-compaction what-if).
    fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates>;
    /// List rates of `r`'s model at a time times `r`'s fast-mode and
    /// data-residency multipliers (the advice, §7 v3). A source without
    /// multipliers gives its list rates.
    fn session_rates(&self, r: &Request, at: DateTime<Utc>) -> Option<Rates> {
        self.base_rates(&r.model, at)
    }
    /// `request_rates` of each of `requests`, in order.
    fn request_rates_each(&self, requests: &mut dyn Iterator<Item = &Request>) -> Vec<Option<Rates>> {
        requests.map(|r| self.request_rates(r)).collect()
    }
}

impl RateSource for PriceTable {
    fn request_rates(&self, r: &Request) -> Option<Rates> {
        PriceTable::request_rates(self, r)
    }

    fn base_rates(&self, model: &str, at: DateTime<Utc>) -> Option<Rates> {
        PriceTable::base_rates(self, model, at)
    }

    fn session_rates(&self, r: &Request, at: DateTime<Utc>) -> Option<Rates> {
        self.rates(r, Basis::Session(at))
    }

    fn request_rates_each(&self, requests: &mut dyn Iterator<Item = &Request>) -> Vec<Option<Rates>> {
        PriceTable::request_rates_each(self, requests)
    }
}

/// The rates of `r` on `basis`; `None` for an unknown model.
pub fn rates_for(source: &dyn RateSource, r: &Request, basis: Basis) -> Option<Rates> {
    match basis {
        Basis::Request => source.request_rates(r),
        Basis::Base(at) => source.base_rates(&r.model, at),
        Basis::Session(at) => source.session_rates(r, at),
    }
}
