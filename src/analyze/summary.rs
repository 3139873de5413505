//! The `cache` report's numbers (issue item 1): the class table, idle-gap
//! buckets, hit ratios, the 5m/1h write mix, the idle cost and the what-if
//! totals, overall, per day and per session, plus the stale sessions. Pure:
//! the clock, the day key and the titles come in as arguments. Hands on a
//! serialisable `CacheSummary` whose JSON keys are the contract.

use super::class_table::ClassTable;
use super::classify::{CacheClass, RequestCache};
use super::gaps::{GapBucket, IdleBuckets};
use super::keep_warm::{expiry_of, Backtest, Expiry, KeepWarm, KeepWarmTally};
use super::stale::{stale_sessions, StaleSession};
use super::threads::SessionKey;
use super::what_if::{request_what_if, SharedPrefixIndex, WhatIf, WriteMix};
use crate::model::{Request, TokenCounts};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// What `summarize` needs besides the tables.
pub struct SummaryOptions<'a> {
    /// The clock, for stale sessions.
    pub now: DateTime<Utc>,
    /// Session id -> title; missing titles are left empty.
    pub titles: &'a HashMap<String, String>,
    /// The day a request time belongs to (e.g. `utc_day`, or a local date).
    pub day_of: &'a dyn Fn(DateTime<Utc>) -> String,
}

/// The UTC calendar date of `t`, `YYYY-MM-DD`.
pub fn utc_day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

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

/// Everything the `cache` report shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheSummary {
    #[serde(flatten)]
    pub total: CacheStats,
    /// Stale sessions, highest cold-resume premium first.
    pub stale: Vec<StaleSession>,
    /// One entry per day, in date order.
    pub by_day: Vec<DayStats>,
    /// One entry per `(user, session)`, by session id then user.
    pub by_session: Vec<SessionStats>,
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

impl Figures {
    fn of(r: &Request, c: &RequestCache, what_if: WhatIf, expiry: Option<Expiry>) -> Figures {
        Figures {
            count: 1,
            tokens: r.tokens,
            class: c.class,
            rewinds: u64::from(c.rewind),
            bucket: c.gap_s.map(GapBucket::of),
            rebuilt_tokens: c.rebuilt_tokens,
            miss_cost_usd: c.miss_cost_usd,
            what_if,
            expiry,
        }
    }
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
    fn add(&mut self, r: &Request, c: &RequestCache, w: WhatIf, e: Option<Expiry>) {
        self.add_figures(&Figures::of(r, c, w, e));
    }

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

/// Per-session running sums plus the session's time span.
struct SessionTally<'a> {
    tally: Tally,
    project: &'a str,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
}

/// Summarises classified requests (`caches` from `analyze`, same order).
pub fn summarize(requests: &[Request], caches: &[RequestCache], opts: &SummaryOptions<'_>) -> CacheSummary {
    summarize_where(requests, caches, opts, &|_| true)
}

/// Running sums overall, per day and per session.
#[derive(Default)]
struct Tallies<'a> {
    total: Tally,
    days: HashMap<String, Tally>,
    sessions: HashMap<SessionKey<'a>, SessionTally<'a>>,
}

impl<'a> Tallies<'a> {
    fn add(&mut self, day: String, r: &'a Request, c: &RequestCache, w: WhatIf, e: Option<Expiry>) {
        self.total.add(r, c, w, e);
        self.days.entry(day).or_default().add(r, c, w, e);
        let s = self.sessions.entry((r.user.as_str(), r.session_id.as_str())).or_insert_with(|| SessionTally {
            tally: Tally::default(),
            project: &r.project,
            first: r.time,
            last: r.time,
        });
        s.tally.add(r, c, w, e);
        s.first = s.first.min(r.time);
        s.last = s.last.max(r.time);
    }

    fn by_day(days: HashMap<String, Tally>) -> Vec<DayStats> {
        let mut v: Vec<DayStats> = days.into_iter().map(|(day, t)| DayStats { day, stats: t.finish() }).collect();
        v.sort_by(|a, b| a.day.cmp(&b.day));
        v
    }

    fn by_session(
        sessions: HashMap<SessionKey<'_>, SessionTally<'_>>,
        titles: &HashMap<String, String>,
    ) -> Vec<SessionStats> {
        let mut v: Vec<SessionStats> = sessions
            .into_iter()
            .map(|((user, sid), s)| SessionStats {
                session_id: sid.to_string(),
                user: user.to_string(),
                title: titles.get(sid).cloned().unwrap_or_default(),
                project: s.project.to_string(),
                first: s.first,
                last: s.last,
                stats: s.tally.finish(),
            })
            .collect();
        v.sort_by(|a, b| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user)));
        v
    }
}

/// Summarises the requests `include` selects. Classification and what-if
/// still see every request, so a selected request's previous one may lie
/// outside the selection (a date range cuts no thread in half). Stale
/// sessions are those with a selected request.
pub fn summarize_where(
    requests: &[Request],
    caches: &[RequestCache],
    opts: &SummaryOptions<'_>,
    include: &dyn Fn(&Request) -> bool,
) -> CacheSummary {
    let shared = SharedPrefixIndex::build(requests);
    let mut t = Tallies::default();
    for (i, (r, c)) in requests.iter().zip(caches).enumerate() {
        if include(r) {
            let e = expiry_of(requests, caches, &shared, i);
            t.add((opts.day_of)(r.time), r, c, request_what_if(requests, caches, &shared, i), e);
        }
    }
    let by_session = Tallies::by_session(t.sessions, opts.titles);
    let stale = stale_sessions(requests, caches, opts.now, opts.titles)
        .into_iter()
        .filter(|st| by_session.binary_search_by(|s| (&s.session_id, &s.user).cmp(&(&st.session_id, &st.user))).is_ok())
        .collect();
    CacheSummary { total: t.total.finish(), stale, by_day: Tallies::by_day(t.days), by_session }
}
