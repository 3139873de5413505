//! The reference cache model's summaries, over classified requests in
//! memory (`analyze::analyze`'s output): the class table, idle buckets, hit
//! ratios, write mix, what-if and keep-warm figures overall, per day and per
//! session (`summarize`), the stale sessions, the idle-compaction gaps and
//! compactions by trigger. The shipped reports read the stored columns
//! instead; tests hold both equal. Pure: the clock, the day key and the
//! titles are arguments.

#![allow(dead_code)]

use cachewise::analyze::{
    advise_in, compaction_labels, count_by_trigger, is_expiry, last_main, median, ping_usd, predicted, rates_for,
    resume_premium, rewrite_premium, Advice, Basis, CacheClass, CacheStats, DayStats, Expiry, Figures, GapBucket,
    IdleCompaction, InputSource, PolicyRow, ProjectMedians, RateSource, RequestCache, SessionStats, StaleSession,
    Tally, WarmPrefixes, WhatIf, IDLE_WHAT_IF_MIN_PROMPT, TTL_1H_S, TTL_5M_S,
};
use cachewise::model::{Compaction, Request, MAIN_THREAD};
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What `summarize` needs besides the tables.
pub(crate) struct SummaryOptions<'a> {
    /// The clock, for stale sessions.
    pub now: DateTime<Utc>,
    /// Session id -> title; missing titles are left empty.
    pub titles: &'a HashMap<String, String>,
    /// The day a request time belongs to (e.g. `utc_day`, or a local date).
    pub day_of: &'a dyn Fn(DateTime<Utc>) -> String,
}

/// The UTC calendar date of `t`, `YYYY-MM-DD`.
pub(crate) fn utc_day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// Everything the `cache` report shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CacheSummary {
    #[serde(flatten)]
    pub total: CacheStats,
    /// Stale sessions, highest cold-resume premium first.
    pub stale: Vec<StaleSession>,
    /// One entry per day, in date order.
    pub by_day: Vec<DayStats>,
    /// One entry per `(user, session)`, by session id then user.
    pub by_session: Vec<SessionStats>,
}

/// One request's figures.
fn figures(r: &Request, c: &RequestCache, what_if: WhatIf, expiry: Option<Expiry>) -> Figures {
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

/// Per-session running sums plus the session's time span.
struct SessionTally<'a> {
    tally: Tally,
    project: &'a str,
    first: DateTime<Utc>,
    last: DateTime<Utc>,
}

/// Summarises classified requests (`caches` from `analyze`, same order).
pub(crate) fn summarize(requests: &[Request], caches: &[RequestCache], opts: &SummaryOptions<'_>) -> CacheSummary {
    summarize_where(requests, caches, opts, &|_| true)
}

/// Running sums overall, per day and per session.
#[derive(Default)]
struct Tallies<'a> {
    total: Tally,
    days: HashMap<String, Tally>,
    sessions: HashMap<(&'a str, &'a str), SessionTally<'a>>,
}

impl<'a> Tallies<'a> {
    fn add(&mut self, day: String, r: &'a Request, f: &Figures) {
        self.total.add_figures(f);
        self.days.entry(day).or_default().add_figures(f);
        let s = self.sessions.entry((r.user.as_str(), r.session_id.as_str())).or_insert_with(|| SessionTally {
            tally: Tally::default(),
            project: &r.project,
            first: r.time,
            last: r.time,
        });
        s.tally.add_figures(f);
        s.first = s.first.min(r.time);
        s.last = s.last.max(r.time);
    }

    fn by_day(days: HashMap<String, Tally>) -> Vec<DayStats> {
        let mut v: Vec<DayStats> = days.into_iter().map(|(day, t)| DayStats { day, stats: t.finish() }).collect();
        v.sort_by(|a, b| a.day.cmp(&b.day));
        v
    }

    fn by_session(
        sessions: HashMap<(&str, &str), SessionTally<'_>>,
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
pub(crate) fn summarize_where(
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
            let w = request_what_if(requests, caches, &shared, i);
            t.add((opts.day_of)(r.time), r, &figures(r, c, w, e));
        }
    }
    let by_session = Tallies::by_session(t.sessions, opts.titles);
    let stale = stale_sessions(requests, caches, opts.now, opts.titles)
        .into_iter()
        .filter(|st| by_session.binary_search_by(|s| (&s.session_id, &s.user).cmp(&(&st.session_id, &st.user))).is_ok())
        .collect();
    CacheSummary { total: t.total.finish(), stale, by_day: Tallies::by_day(t.days), by_session }
}

/// Request times per `(model, version)`, sorted: answers "was some request
/// of this model and version made within `TX` before `t`?" by binary search.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedPrefixIndex<'a> {
    times: HashMap<(&'a str, &'a str), Vec<DateTime<Utc>>>,
}

impl<'a> SharedPrefixIndex<'a> {
    /// Indexes every request (any session, any thread).
    pub(crate) fn build(requests: &'a [Request]) -> SharedPrefixIndex<'a> {
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
    pub(crate) fn warm(&self, model: &str, version: &str, t: DateTime<Utc>, ttl_s: u32) -> bool {
        let Some(v) = self.times.get(&(model, version)) else {
            return false;
        };
        let from = t - TimeDelta::seconds(i64::from(ttl_s));
        let k = v.partition_point(|x| *x < from);
        v.get(k).is_some_and(|x| *x < t)
    }
}

/// The policy inputs of request `i` among classified requests.
pub(crate) fn policy_row<'a>(
    requests: &'a [Request],
    caches: &'a [RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
) -> PolicyRow<'a> {
    let (r, c) = (&requests[i], &caches[i]);
    PolicyRow {
        tokens: &r.tokens,
        web_search: r.web_search,
        rates: c.rates.as_ref(),
        keeps_observed: c.prev.is_none() || c.class.is_start() || c.class.ttl_independent(),
        gap_s: c.gap_s,
        prev_prompt: c.prev.map_or(0, |p| requests[p].tokens.prompt()),
        lineage_first_read: requests[c.lineage_first].tokens.cache_read,
        warm_5m: shared.warm(&r.model, &r.version, r.time, TTL_5M_S),
        warm_1h: shared.warm(&r.model, &r.version, r.time, TTL_1H_S),
    }
}

/// Actual and what-if costs of request `i`.
pub(crate) fn request_what_if(
    requests: &[Request],
    caches: &[RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
) -> WhatIf {
    policy_row(requests, caches, shared, i).what_if()
}

/// The `Expiry` of request `i` among classified requests (None unless a
/// main-thread expiry).
pub(crate) fn expiry_of(
    requests: &[Request],
    caches: &[RequestCache],
    shared: &SharedPrefixIndex<'_>,
    i: usize,
) -> Option<Expiry> {
    let (r, c) = (&requests[i], &caches[i]);
    if !is_expiry(c.class, &r.thread) {
        return None;
    }
    let prev = c.prev?;
    let e = c.expected_prefix;
    let warm = shared.warm(&r.model, &r.version, r.time, TTL_1H_S);
    let (predicted_usd, predicted_v2_usd) =
        predicted(c.rates.as_ref(), e, c.lineage_first_read, warm, r.tokens.cache_write_1h);
    Some(Expiry {
        gap_s: c.gap_s?,
        ttl_s: c.ttl_s,
        miss_cost_usd: c.miss_cost_usd,
        ping_usd: ping_usd(caches[prev].rates.as_ref(), e),
        predicted_usd,
        predicted_v2_usd,
    })
}

/// The stale sessions at `now`, highest premium first (ties by session id).
pub(crate) fn stale_sessions(
    requests: &[Request],
    caches: &[RequestCache],
    now: DateTime<Utc>,
    titles: &HashMap<String, String>,
) -> Vec<StaleSession> {
    let warm_prefixes = WarmPrefixes::of(requests.iter().map(|r| (r.model.as_str(), r.version.as_str(), r.time)), now);
    let mut out: Vec<StaleSession> = last_main(requests)
        .into_iter()
        .filter_map(|((user, sid), i)| {
            let (r, c) = (&requests[i], &caches[i]);
            let ttl_s = c.ttl_after_s;
            let (idle_s, expires_at, warm) = StaleSession::at(r.time, ttl_s, now);
            let premium = resume_premium(r, c, ttl_s, &warm_prefixes, r.tokens.prompt());
            (!warm).then(|| StaleSession {
                session_id: sid.to_string(),
                user: user.to_string(),
                title: titles.get(sid).cloned().unwrap_or_default(),
                project: r.project.to_string(),
                model: r.model.to_string(),
                premium_usd: premium.premium_usd,
                premium_v2_usd: premium.premium_v2_usd,
                shared_prefix_tokens: premium.shared_prefix_tokens,
                prompt_tokens: r.tokens.prompt(),
                compacted_since: false,
                last: r.time,
                ttl_s,
                idle_s,
                expires_at,
                warm,
                not_resumable: None,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.premium_usd.total_cmp(&a.premium_usd).then_with(|| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user)))
    });
    out
}

/// Compactions counted by trigger (`manual`, `auto`, `idle` always present,
/// other written triggers by name), each boundary line once (by uuid). A
/// compaction counts when the main-thread request before it (else after
/// it) is one `include` selects.
pub(crate) fn compactions_by_trigger(
    requests: &[Request],
    compactions: &[Compaction],
    include: &dyn Fn(&Request) -> bool,
) -> BTreeMap<String, u64> {
    let labels = compaction_labels(requests, compactions);
    count_by_trigger(
        labels.iter().map(|l| (l.compaction, l.label.as_str(), l.anchor.is_some_and(|i| include(&requests[i])))),
    )
}

/// One gap the idle-compaction what-if counts (§5 v2): a main-thread
/// `ttl_1h` miss after a prompt of 200k+ tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct IdleGap {
    /// Index of the miss in the request slice.
    pub request: usize,
    /// The miss cost (at the request's rates).
    pub rebuild_usd: f64,
    /// An idle compaction instead (base prices of the previous request's model).
    pub compact_usd: f64,
}

/// Every gap the idle-compaction what-if counts, over all requests.
pub(crate) fn idle_gaps(requests: &[Request], caches: &[RequestCache], rates: &dyn RateSource) -> Vec<IdleGap> {
    let mut out = Vec::new();
    let mut medians: HashMap<&str, ProjectMedians> = HashMap::new();
    for (i, (r, c)) in requests.iter().zip(caches).enumerate() {
        let Some(p) = c.prev.map(|p| &requests[p]) else { continue };
        let p_prev = p.tokens.prompt();
        if c.class != CacheClass::Ttl1h || r.thread != MAIN_THREAD || p_prev < IDLE_WHAT_IF_MIN_PROMPT {
            continue;
        }
        let m = medians.entry(&p.project).or_insert_with(|| project_medians(&p.project, requests, caches));
        let (s, _) = m.summary_tokens(p_prev);
        let base = rates_for(rates, p, Basis::Base(p.time));
        let (pin, pout, rm) = base.map_or((0.0, 0.0, 0.0), |b| (b.input, b.output, b.read_multiplier));
        let compact_usd = p_prev as f64 * rm * pin + s * pout + rewrite_premium(base.as_ref(), s, TTL_1H_S);
        out.push(IdleGap { request: i, rebuild_usd: c.miss_cost_usd, compact_usd });
    }
    out
}

/// Sums the gaps whose request `include` selects; `idle_compactions` is
/// the `idle` count of `compactions_by_trigger`.
pub(crate) fn idle_sum(
    gaps: &[IdleGap],
    requests: &[Request],
    include: &dyn Fn(&Request) -> bool,
    idle: u64,
) -> IdleCompaction {
    let mut out = IdleCompaction { idle_compactions: idle, ..IdleCompaction::default() };
    for g in gaps.iter().filter(|g| include(&requests[g.request])) {
        out.gaps += 1;
        out.rebuild_usd += g.rebuild_usd;
        out.compact_usd += g.compact_usd;
    }
    out
}

/// Advice for `session_id` at `now` over `turns` future turns, not knowing
/// the session's compactions (`claude_code.compacted_since` is false); see
/// `advise_with`. None when the session has no main-thread request.
pub(crate) fn advise(
    session_id: &str,
    requests: &[Request],
    caches: &[RequestCache],
    rates: &dyn RateSource,
    now: DateTime<Utc>,
    turns: u32,
) -> Option<Advice> {
    advise_with(session_id, requests, caches, &[], rates, now, turns)
}

/// `analyze::advise_in` with the project medians and the warm shared
/// prefixes computed from every request given.
pub(crate) fn advise_with(
    session_id: &str,
    requests: &[Request],
    caches: &[RequestCache],
    compactions: &[Compaction],
    rates: &dyn RateSource,
    now: DateTime<Utc>,
    turns: u32,
) -> Option<Advice> {
    let medians = |project: &str| project_medians(project, requests, caches);
    let prefixes = WarmPrefixes::of(requests.iter().map(|r| (r.model.as_str(), r.version.as_str(), r.time)), now);
    advise_in(session_id, requests, caches, compactions, rates, now, turns, &medians, &prefixes)
}

/// The medians of `project` over classified requests (the stored
/// columns' `report::cache::medians` in memory).
fn project_medians(project: &str, requests: &[Request], caches: &[RequestCache]) -> ProjectMedians {
    ProjectMedians {
        first: scoped_median(CacheClass::First, project, true, requests, caches),
        compaction: scoped_median(CacheClass::Compaction, project, false, requests, caches),
    }
}

/// Median prompt of main-thread requests of `class`, in the project if it
/// has any, else (when `or_all`) in all sessions.
fn scoped_median(
    class: CacheClass,
    project: &str,
    or_all: bool,
    requests: &[Request],
    caches: &[RequestCache],
) -> Option<(f64, InputSource)> {
    let pick = |in_project: bool| {
        let v: Vec<f64> = requests
            .iter()
            .zip(caches)
            .filter(|(r, c)| c.class == class && r.thread == MAIN_THREAD)
            .filter(|(r, _)| !in_project || r.project == project)
            .map(|(r, _)| r.tokens.prompt() as f64)
            .collect();
        median(v)
    };
    let all = || if or_all { pick(false).map(|m| (m, InputSource::AllSessions)) } else { None };
    pick(true).map(|m| (m, InputSource::Project)).or_else(all)
}
