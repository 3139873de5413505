//! The per-request cache model (cache-model §1-§2): lineage starts, the gap
//! and TTL in force, the expected prefix, hit or miss and its cause, rebuilt
//! tokens and the miss cost. Hands on one `RequestCache` per request, in the
//! input's order, for the summary, what-if, stale, advice and compaction
//! modules and for the web UI's timeline columns.

use super::prices::{write_price, RateSource, TTL_1H_S, TTL_5M_S};
use super::threads::{CompactionTimes, ThreadIndex};
use crate::model::{Compaction, Request, MAIN_THREAD};
use crate::pricing::Rates;
use serde::Serialize;

/// What happened to the prompt cache at one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CacheClass {
    /// Read (nearly) the whole previous prompt.
    #[serde(rename = "hit")]
    Hit,
    /// A thread's first request.
    #[serde(rename = "first")]
    First,
    /// The first main-thread request after a compaction.
    #[serde(rename = "compaction")]
    Compaction,
    /// The model differs from the previous request's.
    #[serde(rename = "model_switch")]
    ModelSwitch,
    /// Miss after a gap longer than a 5-minute TTL.
    #[serde(rename = "ttl_5m")]
    Ttl5m,
    /// Miss after a gap longer than a 1-hour TTL.
    #[serde(rename = "ttl_1h")]
    Ttl1h,
    /// Miss within the TTL after a Claude Code version change.
    #[serde(rename = "version_change")]
    VersionChange,
    /// Miss with no cause the model knows.
    #[serde(rename = "unexplained")]
    Unexplained,
}

impl CacheClass {
    /// Every class, in report order.
    pub const ALL: [CacheClass; 8] = [
        CacheClass::Hit,
        CacheClass::First,
        CacheClass::Compaction,
        CacheClass::ModelSwitch,
        CacheClass::Ttl5m,
        CacheClass::Ttl1h,
        CacheClass::VersionChange,
        CacheClass::Unexplained,
    ];

    /// The JSON / column name of the class.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheClass::Hit => "hit",
            CacheClass::First => "first",
            CacheClass::Compaction => "compaction",
            CacheClass::ModelSwitch => "model_switch",
            CacheClass::Ttl5m => "ttl_5m",
            CacheClass::Ttl1h => "ttl_1h",
            CacheClass::VersionChange => "version_change",
            CacheClass::Unexplained => "unexplained",
        }
    }

    /// True for lineage starts (`first`, `compaction`, `model_switch`).
    pub fn is_start(self) -> bool {
        matches!(self, CacheClass::First | CacheClass::Compaction | CacheClass::ModelSwitch)
    }

    /// True for misses (`ttl_5m`, `ttl_1h`, `version_change`, `unexplained`).
    pub fn is_miss(self) -> bool {
        !self.is_start() && self != CacheClass::Hit
    }
}

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
    /// Lost tokens `L = max(0, E - r)`; 0 for lineage starts.
    pub lost_tokens: u64,
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
    /// The rates the request paid; None for an unknown model.
    #[serde(skip)]
    pub rates: Option<Rates>,
}

/// Classifies every request; the result has the input's length and order.
///
/// Requests may arrive in any order: they are grouped by
/// `(session_id, thread)` and ordered by time, then `message_id`.
pub fn analyze(requests: &[Request], compactions: &[Compaction], rates: &dyn RateSource) -> Vec<RequestCache> {
    let mut out: Vec<RequestCache> = requests
        .iter()
        .enumerate()
        .map(|(i, r)| RequestCache {
            class: CacheClass::First,
            gap_s: None,
            ttl_s: TTL_5M_S,
            ttl_after_s: TTL_5M_S,
            expected_prefix: 0,
            lost_tokens: 0,
            rebuilt_tokens: 0,
            miss_cost_usd: 0.0,
            prev: None,
            lineage_first: i,
            rates: rates.request_rates(r),
        })
        .collect();
    let index = ThreadIndex::build(requests);
    let comp = CompactionTimes::build(compactions);
    for thread in index.threads() {
        classify_thread(requests, thread, &comp, &mut out);
    }
    out
}

/// TTL of the writes of one request: 1h if any 1h write, 5m if any 5m write.
fn wrote_ttl(r: &Request) -> Option<u32> {
    if r.tokens.cache_write_1h > 0 {
        Some(TTL_1H_S)
    } else if r.tokens.cache_write_5m > 0 {
        Some(TTL_5M_S)
    } else {
        None
    }
}

/// Which lineage start `cur` is, if any (§1; compaction wins over a model
/// switch when both apply).
fn start_class(prev: Option<&Request>, cur: &Request, comp: &CompactionTimes<'_>) -> Option<CacheClass> {
    let Some(p) = prev else {
        return Some(CacheClass::First);
    };
    if cur.thread == MAIN_THREAD && comp.between(&cur.session_id, p.time, cur.time) {
        return Some(CacheClass::Compaction);
    }
    (cur.model != p.model).then_some(CacheClass::ModelSwitch)
}

/// Hit or miss with its cause, for a request that is not a lineage start.
fn miss_class(prev: &Request, cur: &Request, gap_s: f64, ttl_s: u32, lost: u64) -> CacheClass {
    let e = prev.tokens.prompt() as f64;
    if (lost as f64) <= f64::max(2000.0, 0.05 * e) {
        CacheClass::Hit
    } else if ttl_s == TTL_1H_S && gap_s > f64::from(TTL_1H_S) {
        CacheClass::Ttl1h
    } else if ttl_s == TTL_5M_S && gap_s > f64::from(TTL_5M_S) {
        CacheClass::Ttl5m
    } else if cur.version != prev.version {
        CacheClass::VersionChange
    } else {
        CacheClass::Unexplained
    }
}

/// Miss cost of `b` rebuilt tokens at the TTL request `r` wrote with.
fn miss_cost(r: &Request, rates: Option<&Rates>, b: u64) -> f64 {
    let Some(p) = rates else { return 0.0 };
    if b == 0 {
        return 0.0;
    }
    let ttl = if r.tokens.cache_write_1h > 0 { TTL_1H_S } else { TTL_5M_S };
    b as f64 * (write_price(p, ttl) - p.read())
}

/// Classifies one thread's requests (indices in time order).
fn classify_thread(requests: &[Request], thread: &[usize], comp: &CompactionTimes<'_>, out: &mut [RequestCache]) {
    let mut prev: Option<usize> = None;
    let mut lineage_ttl: Option<u32> = None;
    let mut lineage_first = thread.first().copied().unwrap_or(0);
    for &i in thread {
        let cur = &requests[i];
        let prev_req = prev.map(|p| &requests[p]);
        let ttl_s = prev.map_or(TTL_5M_S, |p| out[p].ttl_after_s);
        let gap_s = prev_req.map(|p| (cur.time - p.time).as_seconds_f64());
        let own = cur.tokens.cache_write() + cur.tokens.input;
        let c = &mut out[i];
        c.prev = prev;
        c.gap_s = gap_s;
        c.ttl_s = ttl_s;
        let start = start_class(prev_req, cur, comp);
        if let (None, Some(p)) = (start, prev_req) {
            let e = p.tokens.prompt();
            let lost = e.saturating_sub(cur.tokens.cache_read);
            c.expected_prefix = e;
            c.lost_tokens = lost;
            c.class = miss_class(p, cur, gap_s.unwrap_or(0.0), ttl_s, lost);
            if c.class != CacheClass::Hit {
                c.rebuilt_tokens = lost.min(own);
            }
        } else {
            lineage_ttl = None;
            lineage_first = i;
            c.class = start.unwrap_or(CacheClass::First);
            c.rebuilt_tokens = own;
        }
        c.lineage_first = lineage_first;
        c.miss_cost_usd = miss_cost(cur, c.rates.as_ref(), c.rebuilt_tokens);
        if let Some(t) = wrote_ttl(cur) {
            lineage_ttl = Some(t);
        }
        c.ttl_after_s = lineage_ttl.unwrap_or(TTL_5M_S);
        prev = Some(i);
    }
}
