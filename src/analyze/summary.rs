//! The `cache` report's numbers: the class table, idle-gap buckets, hit
//! ratios, the 5m/1h write mix, the idle cost and the what-if totals of any
//! set of requests (`CacheStats`), summed from groups of requests
//! (`Figures`) by a `Tally`, overall, per day (`DayStats`) and per session
//! (`SessionStats`). JSON keys are the `cache --json` contract.

use super::class_table::ClassTable;
use super::classify::CacheClass;
use super::gaps::{GapBucket, IdleBuckets};
use super::keep_warm::{Backtest, Expiry, KeepWarm, KeepWarmTally};
use super::what_if::{WhatIf, WriteMix};
use crate::model::TokenCounts;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The cache figures of any set of requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CacheStats {
    pub requests: u64,
    pub classes: ClassTable,
    /// Hits whose prompt shrank past the miss threshold (v2 rewinds).
    pub rewinds: u64,
    pub idle_buckets: IdleBuckets,
    /// Miss cost of `ttl_5m` and `ttl_1h` misses.
    pub idle_cost_usd: f64,
    /// `cache_read / (cache_read + cache_write + input)`; None with no tokens.
    pub hit_ratio_tokens: Option<f64>,
    /// `hits / (requests - lineage starts)`; None when all are starts.
    pub hit_ratio_requests: Option<f64>,
    pub write_mix: WriteMix,
    pub what_if: WhatIf,
    /// What keeping the cache warm through main-thread expiries would have
    /// cost and saved (cache-model §8.4 v3).
    pub keep_warm: KeepWarm,
    /// How well the resume premium predicted the main-thread expiries that
    /// happened, v3 beside v2 (§8.5).
    pub backtest: Backtest,
}

/// Cache figures of one day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayStats {
    pub day: String,
    #[serde(flatten)]
    pub stats: CacheStats,
}

/// Cache figures of one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionStats {
    pub session_id: String,
    /// Whose session (empty for local transcripts): one entry per
    /// `(user, session)`, never a mix of two people's copies.
    pub user: String,
    pub title: String,
    pub project: String,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    #[serde(flatten)]
    pub stats: CacheStats,
}

/// What the cache figures sum of a group of requests of one class and one
/// gap bucket (often one request): their count, summed tokens, rewinds,
/// rebuilt tokens, miss cost and what-if costs (from `RequestCache`s, or
/// grouped from stored columns).
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub count: u64,
    pub tokens: TokenCounts,
    pub class: CacheClass,
    pub rewinds: u64,
    /// The bucket of the gap the requests ended (None: thread starts).
    pub bucket: Option<GapBucket>,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
    pub what_if: WhatIf,
    /// A main-thread expiry's keep-warm and backtest figures.
    pub expiry: Option<Expiry>,
}

/// Running sums behind a `CacheStats`.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    stats: CacheStats,
    read: u64,
    write: u64,
    input: u64,
    expiries: KeepWarmTally,
}

impl Tally {
    /// Adds a group of requests.
    pub fn add_figures(&mut self, f: &Figures) {
        let s = &mut self.stats;
        s.requests += f.count;
        s.classes.add_parts(f.class, f.count, f.rebuilt_tokens, f.miss_cost_usd);
        s.rewinds += f.rewinds;
        if let Some(b) = f.bucket {
            s.idle_buckets.add_parts(b, f.count, f.rebuilt_tokens, f.miss_cost_usd);
        }
        s.write_mix.add_tokens(&f.tokens);
        s.what_if += f.what_if;
        self.read += f.tokens.cache_read;
        self.write += f.tokens.cache_write();
        self.input += f.tokens.input;
        if let Some(e) = &f.expiry {
            self.expiries.add(e);
        }
    }

    /// The figures of the requests added.
    pub fn finish(mut self) -> CacheStats {
        let s = &mut self.stats;
        s.idle_cost_usd = s.classes.idle_cost_usd();
        let denom = self.read + self.write + self.input;
        s.hit_ratio_tokens = (denom > 0).then(|| self.read as f64 / denom as f64);
        let continuing = s.requests - s.classes.starts();
        s.hit_ratio_requests =
            (continuing > 0).then(|| s.classes.get(CacheClass::Hit).count as f64 / continuing as f64);
        (s.keep_warm, s.backtest) = self.expiries.finish();
        self.stats
    }
}
