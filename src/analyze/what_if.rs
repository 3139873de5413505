//! What-if TTL policy (cache-model §5): re-prices every request as if all
//! writes had used one TTL (5m or 1h), re-splitting its cacheable tokens
//! `K = w + r` into read and write by the policy's TTL. Hands on per-request
//! `WhatIf` figures (actual cost beside both policies, from a `PolicyRow`),
//! stored by `materialize` and summed by the reports.
//!
//! Web searches are included, at $0.01 each, in the actual cost and in both
//! policies alike, so they never change a saving.

use super::prices::{request_cost, TTL_1H_S, TTL_5M_S};
use crate::model::TokenCounts;
use crate::pricing::Rates;
use serde::Serialize;
use std::ops::AddAssign;

/// Actual cost and the cost under each TTL policy, in USD.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WhatIf {
    /// Reference §4 cost of the requests as they were.
    pub actual_usd: f64,
    /// Cost if every write had used the 5-minute TTL.
    pub ttl_5m_usd: f64,
    /// Cost if every write had used the 1-hour TTL.
    pub ttl_1h_usd: f64,
    /// `actual - ttl_5m`: positive when 5m everywhere would have saved money.
    pub saving_5m_usd: f64,
    /// `actual - ttl_1h`: positive when 1h everywhere would have saved money.
    pub saving_1h_usd: f64,
}

impl AddAssign for WhatIf {
    fn add_assign(&mut self, o: WhatIf) {
        self.actual_usd += o.actual_usd;
        self.ttl_5m_usd += o.ttl_5m_usd;
        self.ttl_1h_usd += o.ttl_1h_usd;
        self.saving_5m_usd += o.saving_5m_usd;
        self.saving_1h_usd += o.saving_1h_usd;
    }
}

/// The actual mix of cache writes, by TTL, in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WriteMix {
    pub write_5m_tokens: u64,
    pub write_1h_tokens: u64,
}

impl WriteMix {
    /// Adds one request's writes, from its tokens.
    pub fn add_tokens(&mut self, t: &TokenCounts) {
        self.write_5m_tokens += t.cache_write_5m;
        self.write_1h_tokens += t.cache_write_1h;
    }
}

/// What the §5 policy re-pricing needs of one request: its tokens and
/// rates, its class and gap, and the reads a policy could give it. The
/// stored analysis columns (`materialize`) hold exactly these.
#[derive(Debug, Clone, Copy)]
pub struct PolicyRow<'a> {
    pub tokens: &'a TokenCounts,
    pub web_search: u64,
    pub rates: Option<&'a Rates>,
    /// Lineage starts and TTL-independent misses keep their observed read.
    pub keeps_observed: bool,
    /// Seconds since the thread's previous request; None for its first.
    pub gap_s: Option<f64>,
    /// The previous request's prompt (`expected_prefix`).
    pub prev_prompt: u64,
    /// The cache read of the lineage's first request.
    pub lineage_first_read: u64,
    /// Some request of this model and version came within 5 minutes before.
    pub warm_5m: bool,
    /// ... within an hour before.
    pub warm_1h: bool,
}

impl PolicyRow<'_> {
    /// Tokens read under policy `ttl_s` (§5); the rest of `K` is written.
    fn read(&self, ttl_s: u32) -> u64 {
        let t = self.tokens;
        let k = t.cache_write() + t.cache_read;
        let (Some(g), false) = (self.gap_s, self.keeps_observed) else {
            return t.cache_read;
        };
        let warm = if ttl_s >= TTL_1H_S { self.warm_1h } else { self.warm_5m };
        if g <= f64::from(ttl_s) {
            self.prev_prompt.min(k)
        } else if warm {
            self.lineage_first_read.min(k)
        } else {
            0
        }
    }

    /// Cost had every write used `ttl_s` (0 for unknown models).
    pub fn cost(&self, ttl_s: u32) -> f64 {
        let Some(p) = self.rates else {
            return 0.0;
        };
        let t = self.tokens;
        let k = t.cache_write() + t.cache_read;
        let read = self.read(ttl_s);
        let write = k.saturating_sub(read);
        let (w5, w1h) = if ttl_s >= TTL_1H_S { (0, write) } else { (write, 0) };
        let policy =
            TokenCounts { input: t.input, cache_write_5m: w5, cache_write_1h: w1h, cache_read: read, output: t.output };
        p.cost(&policy, self.web_search)
    }

    /// Actual and what-if costs.
    pub fn what_if(&self) -> WhatIf {
        let actual = request_cost(self.rates, self.tokens, self.web_search);
        WhatIf::of(actual, self.cost(TTL_5M_S), self.cost(TTL_1H_S))
    }
}

impl WhatIf {
    /// The figures of one request from its actual and policy costs.
    pub fn of(actual: f64, ttl_5m: f64, ttl_1h: f64) -> WhatIf {
        WhatIf {
            actual_usd: actual,
            ttl_5m_usd: ttl_5m,
            ttl_1h_usd: ttl_1h,
            saving_5m_usd: actual - ttl_5m,
            saving_1h_usd: actual - ttl_1h,
        }
    }
}
