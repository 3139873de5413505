//! The per-request cache model (cache-model v2 §1-§2): lineage starts, the
//! gap and TTL in force, the expected prefix, hit (or rewind) or miss and
//! its cause (`microcompact`, `context_edit`, `full_rebuild` where v1 said
//! `unexplained`), rebuilt tokens and the miss cost. A thread is walked as
//! the calls `threads::thread_calls` builds. Hands on one `RequestCache` per
//! request, in the input's order, for the summary, what-if, stale, advice
//! and compaction modules and for the web UI's timeline columns.

pub use super::cache_class::CacheClass;
use super::prices::{rewrite_premium, RateSource, TTL_1H_S, TTL_5M_S};
use super::threads::{thread_calls, CompactionTimes, SessionTimes, ThreadCall, ThreadIndex};
use crate::model::{Compaction, Request, TokenCounts, MAIN_THREAD};
use crate::pricing::Rates;
use serde::Serialize;
use std::borrow::Borrow;

/// The cache model's verdict on one request (cache-model §2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestCache {
    pub class: CacheClass,
    /// Seconds since the previous request of the thread; None for its first.
    pub gap_s: Option<f64>,
    /// TTL in force at this request (§2 `T`), from the previous request of
    /// the thread; 300 for a thread's first request. For compaction and
    /// model-switch starts it is the old lineage's TTL (informative only).
    pub ttl_s: u32,
    /// TTL in force after this request: what the next request's `ttl_s` is.
    pub ttl_after_s: u32,
    /// Expected prefix `E = P_{i-1}`; 0 for lineage starts.
    pub expected_prefix: u64,
    /// Lost tokens `L = max(0, min(E, P) - r)` (v2); 0 for lineage starts.
    pub lost_tokens: u64,
    /// A hit whose prompt shrank by more than the miss threshold (v2: the
    /// user went back, or the conversation was cut to a cached point).
    pub rewind: bool,
    /// Rebuilt tokens `B` (§2): `min(L, w + in)` on a miss, `w + in` on a
    /// lineage start, 0 on a hit.
    pub rebuilt_tokens: u64,
    /// `B * (write price of this request's TTL - read price)`.
    pub miss_cost_usd: f64,
    /// Index (into the input slice) of the previous request of the thread.
    #[serde(skip)]
    pub prev: Option<usize>,
    /// Index of the first request of this request's lineage.
    #[serde(skip)]
    pub lineage_first: usize,
    /// The cache read of that first request: the shared prefix the lineage
    /// started from (cache-model §5, §8.2; stored as `lineage_first_read`).
    #[serde(skip)]
    pub lineage_first_read: u64,
    /// The rates the request paid; None for an unknown model.
    #[serde(skip)]
    pub rates: Option<Rates>,
}

/// Classifies every request; the result has the input's length and order.
///
/// Requests may arrive in any order: they are grouped by
/// `(user, session_id, thread)` and ordered by time, then `message_id`.
pub fn analyze<R: Borrow<Request>>(
    requests: &[R],
    compactions: &[Compaction],
    rates: &dyn RateSource,
) -> Vec<RequestCache> {
    // What each request paid (`rates_for` on `Basis::Request`), each model
    // name resolved once.
    let mut out: Vec<RequestCache> = rates
        .request_rates_each(&mut requests.iter().map(Borrow::borrow))
        .into_iter()
        .enumerate()
        .map(|(i, rates)| RequestCache {
            class: CacheClass::First,
            gap_s: None,
            ttl_s: TTL_5M_S,
            ttl_after_s: TTL_5M_S,
            expected_prefix: 0,
            lost_tokens: 0,
            rewind: false,
            rebuilt_tokens: 0,
            miss_cost_usd: 0.0,
            prev: None,
            lineage_first: i,
            lineage_first_read: requests[i].borrow().tokens.cache_read,
            rates,
        })
        .collect();
    let index = ThreadIndex::build(requests);
    let comp = CompactionTimes::build(compactions);
    for thread in index.threads() {
        classify_thread(requests, thread, &comp, &mut out);
    }
    out
}

/// TTL of the writes of one call: 1h if any 1h write, 5m if any 5m write.
/// True when Claude Code recorded both calls' shapes and they differ: the
/// system prompt or the tools changed (exact, no threshold). The caller
/// has already ruled out a model switch.
fn shape_changed(prev: &Request, cur: &Request) -> bool {
    let (a, b) = (&prev.client.shape_hash, &cur.client.shape_hash);
    !a.is_empty() && !b.is_empty() && a != b
}

/// The TTL a call's cache writes got: the one Claude Code asked for when it
/// recorded it (`promptCacheRequested`), else the write split's.
fn written_ttl(cur: &Request, t: &TokenCounts) -> Option<u32> {
    if t.cache_write() == 0 {
        return None;
    }
    match cur.client.ttl_asked.as_str() {
        "5m" => Some(TTL_5M_S),
        "1h" => Some(TTL_1H_S),
        _ => wrote_ttl(t),
    }
}

fn wrote_ttl(t: &TokenCounts) -> Option<u32> {
    if t.cache_write_1h > 0 {
        Some(TTL_1H_S)
    } else if t.cache_write_5m > 0 {
        Some(TTL_5M_S)
    } else {
        None
    }
}

/// Which lineage start `cur` is, if any (§1; compaction wins over a model
/// switch when both apply).
fn start_class(
    prev: Option<&Request>,
    cur: &Request,
    model: &str,
    prev_model: &str,
    comp: &SessionTimes<'_>,
) -> Option<CacheClass> {
    let Some(p) = prev else {
        return Some(CacheClass::First);
    };
    if cur.thread == MAIN_THREAD && comp.between(cur, p.time) {
        return Some(CacheClass::Compaction);
    }
    (model != prev_model).then_some(CacheClass::ModelSwitch)
}

/// The miss threshold `max(2000, 0.05 * E)` (§2).
fn threshold(e: u64) -> f64 {
    f64::max(2000.0, 0.05 * e as f64)
}

/// Cause of a miss within the thread (§2 v2), the first that applies.
fn miss_cause(prev: &Request, cur: &Request, read: u64, gap_s: f64, ttl_s: u32, comp: &SessionTimes<'_>) -> CacheClass {
    if ttl_s == TTL_1H_S && gap_s > f64::from(TTL_1H_S) {
        CacheClass::Ttl1h
    } else if ttl_s == TTL_5M_S && gap_s > f64::from(TTL_5M_S) {
        CacheClass::Ttl5m
    } else if shape_changed(prev, cur) {
        CacheClass::ShapeChange
    } else if cur.version != prev.version {
        CacheClass::VersionChange
    } else if cur.thread == MAIN_THREAD && comp.microcompact_between(cur, prev.time) {
        CacheClass::Microcompact
    } else if read > 0 {
        CacheClass::ContextEdit
    } else {
        CacheClass::FullRebuild
    }
}

/// Miss cost of `b` rebuilt tokens at the TTL `t` wrote with.
fn miss_cost(t: &TokenCounts, rates: Option<&Rates>, b: u64) -> f64 {
    let ttl = if t.cache_write_1h > 0 { TTL_1H_S } else { TTL_5M_S };
    rewrite_premium(rates, b as f64, ttl)
}

/// Classifies one thread's requests (indices in time order), walking the
/// thread's calls (`thread_calls`).
fn classify_thread<R: Borrow<Request>>(
    requests: &[R],
    thread: &[usize],
    comp: &CompactionTimes<'_>,
    out: &mut [RequestCache],
) {
    let Some(&first) = thread.first() else { return };
    let comp = comp.of_session(requests[first].borrow());
    let mut prev: Option<ThreadCall<'_>> = None;
    let mut lineage_ttl: Option<u32> = None;
    let mut lineage_first = first;
    for call in thread_calls(requests, thread) {
        let (i, t) = (call.request, call.tokens);
        let cur = requests[i].borrow();
        let prev_req = prev.map(|p| requests[p.request].borrow());
        let ttl_s = prev.map_or(TTL_5M_S, |p| out[p.request].ttl_after_s);
        let gap_s = prev_req.map(|p| (cur.time - p.time).as_seconds_f64());
        let own = t.cache_write() + t.input;
        let start = start_class(prev_req, cur, call.model, prev.map_or("", |p| p.model), &comp);
        let c = &mut out[i];
        c.prev = prev.map(|p| p.request);
        c.gap_s = gap_s;
        c.ttl_s = ttl_s;
        if let (None, Some(p), Some(pc)) = (start, prev_req, prev) {
            let e = pc.tokens.prompt();
            let lost = e.min(t.prompt()).saturating_sub(t.cache_read);
            c.expected_prefix = e;
            c.lost_tokens = lost;
            if lost as f64 <= threshold(e) {
                c.class = CacheClass::Hit;
                c.rewind = (t.prompt() as f64) < e as f64 - threshold(e);
            } else {
                c.class = miss_cause(p, cur, t.cache_read, gap_s.unwrap_or(0.0), ttl_s, &comp);
                c.rebuilt_tokens = lost.min(own);
            }
        } else {
            lineage_ttl = None;
            lineage_first = i;
            c.class = start.unwrap_or(CacheClass::First);
            c.rebuilt_tokens = own;
        }
        c.lineage_first = lineage_first;
        c.lineage_first_read = requests[lineage_first].borrow().tokens.cache_read;
        c.miss_cost_usd = miss_cost(t, c.rates.as_ref(), c.rebuilt_tokens);
        if let Some(w) = written_ttl(cur, t) {
            lineage_ttl = Some(w);
        }
        c.ttl_after_s = lineage_ttl.unwrap_or(TTL_5M_S);
        prev = Some(call);
    }
}
