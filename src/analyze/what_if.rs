//! What-if TTL policy (cache-model §5): re-prices every request as if all
//! writes had used one TTL (5m or 1h), re-splitting its cacheable tokens
//! `K = w + r` into read and write by the policy's TTL. Hands on per-request
//! `WhatIf` figures (actual cost beside both policies) for the summary to sum
//! per day, per session and in total.
//!
//! Web searches are included, at $0.01 each, in the actual cost and in both
//! policies alike, so they never change a saving.

use super::classify::RequestCache;
use super::prices::{request_cost, write_multiplier, TTL_1H_S, TTL_5M_S};
use crate::model::Request;
use crate::pricing::WEB_SEARCH_USD;
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::collections::HashMap;
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
    /// Adds one request's writes.
    pub fn add(&mut self, r: &Request) {
        self.write_5m_tokens += r.tokens.cache_write_5m;
        self.write_1h_tokens += r.tokens.cache_write_1h;
    }
}

/// Request times per `(model, version)`, sorted: answers "was some request
/// of this model and version made within `TX` before `t`?" by binary search.
#[derive(Debug, Clone, Default)]
pub struct SharedPrefixIndex<'a> {
    times: HashMap<(&'a str, &'a str), Vec<DateTime<Utc>>>,
}

impl<'a> SharedPrefixIndex<'a> {
    /// Indexes every request (any session, any thread).
    pub fn build(requests: &'a [Request]) -> SharedPrefixIndex<'a> {
        let mut times: HashMap<(&str, &str), Vec<DateTime<Utc>>> = HashMap::new();
        for r in requests {
            times.entry((r.model.as_str(), r.version.as_str())).or_default().push(r.time);
        }
        for v in times.values_mut() {
            v.sort_unstable();
        }
        SharedPrefixIndex { times }
    }

    /// True when a request of `model`/`version` has `t - ttl_s <= time < t`.
    pub fn warm(&self, model: &str, version: &str, t: DateTime<Utc>, ttl_s: u32) -> bool {
        let Some(v) = self.times.get(&(model, version)) else {
            return false;
        };
        let from = t - TimeDelta::seconds(i64::from(ttl_s));
        let k = v.partition_point(|x| *x < from);
        v.get(k).is_some_and(|x| *x < t)
    }
}

/// Tokens read under policy `ttl_s` (§5); the rest of `K` is written.
fn policy_read(
    requests: &[Request],
    caches: &[RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
    ttl_s: u32,
) -> u64 {
    let (r, c) = (&requests[i], &caches[i]);
    let k = r.tokens.cache_write() + r.tokens.cache_read;
    let keeps_observed = c.class.is_start() || c.class.ttl_independent();
    let (Some(p), Some(g), false) = (c.prev, c.gap_s, keeps_observed) else {
        return r.tokens.cache_read;
    };
    if g <= f64::from(ttl_s) {
        return requests[p].tokens.prompt().min(k);
    }
    if shared.warm(&r.model, &r.version, r.time, ttl_s) {
        requests[c.lineage_first].tokens.cache_read.min(k)
    } else {
        0
    }
}

/// Cost of request `i` had every write used `ttl_s` (0 for unknown models).
pub fn policy_cost(
    requests: &[Request],
    caches: &[RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
    ttl_s: u32,
) -> f64 {
    let (r, c) = (&requests[i], &caches[i]);
    let Some(p) = c.rates.as_ref() else {
        return 0.0;
    };
    let k = r.tokens.cache_write() + r.tokens.cache_read;
    let read = policy_read(requests, caches, shared, i, ttl_s);
    let write = k.saturating_sub(read);
    r.tokens.input as f64 * p.input
        + read as f64 * p.read()
        + write as f64 * p.input * write_multiplier(ttl_s)
        + r.tokens.output as f64 * p.output
        + r.web_search as f64 * WEB_SEARCH_USD
}

/// Actual and what-if costs of request `i`.
pub fn request_what_if(
    requests: &[Request],
    caches: &[RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
) -> WhatIf {
    let r = &requests[i];
    let actual = request_cost(caches[i].rates.as_ref(), &r.tokens, r.web_search);
    let ttl_5m = policy_cost(requests, caches, shared, i, TTL_5M_S);
    let ttl_1h = policy_cost(requests, caches, shared, i, TTL_1H_S);
    WhatIf {
        actual_usd: actual,
        ttl_5m_usd: ttl_5m,
        ttl_1h_usd: ttl_1h,
        saving_5m_usd: actual - ttl_5m,
        saving_1h_usd: actual - ttl_1h,
    }
}
