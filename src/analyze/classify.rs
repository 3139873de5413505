//! The per-request cache model (cache-model v2 §1-§2): lineage starts, the
//! gap and TTL in force, the expected prefix, hit (or rewind) or miss and
//! its cause (`microcompact`, `context_edit`, `full_rebuild` where v1 said
//! `unexplained`), rebuilt tokens and the miss cost. A thread is walked as
//! the calls `threads::thread_calls` builds. Hands on one `RequestCache` per
//! request, in the input's order, for the summary, what-if, stale, advice
//! and compaction modules and for the web UI's timeline columns.

use super::prices::{rewrite_premium, RateSource, TTL_1H_S, TTL_5M_S};
use super::threads::{thread_calls, CompactionTimes, SessionTimes, ThreadCall, ThreadIndex};
use crate::model::{Compaction, Request, TokenCounts, MAIN_THREAD};
use crate::pricing::Rates;
use serde::Serialize;
use std::borrow::Borrow;

/// What happened to the prompt cache at one request (cache-model v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheClass {
    /// Read (nearly) the whole previous prompt, or what it still holds.
    Hit,
    /// A thread's first request.
    First,
    /// The first main-thread request after a compaction.
    Compaction,
    /// The model differs from the previous request's.
    ModelSwitch,
    /// Miss after a gap longer than a 5-minute TTL.
    #[serde(rename = "ttl_5m")]
    Ttl5m,
    /// Miss after a gap longer than a 1-hour TTL.
    #[serde(rename = "ttl_1h")]
    Ttl1h,
    /// Miss within the TTL after Claude Code's system prompt or tool set
    /// changed: its record of the call (`shapeHash`, 2.1.33x) differs from
    /// the previous call's on the same model.
    ShapeChange,
    /// Miss within the TTL after a Claude Code version change.
    VersionChange,
    /// Miss within the TTL right after Claude Code cleared old tool results
    /// (a `microcompact_boundary` since the previous request).
    Microcompact,
    /// Miss within the TTL that still read the head of the prompt: what
    /// follows it was rewritten (tool results cleared, memory, tools or
    /// history edited).
    ContextEdit,
    /// Miss within the TTL that read nothing although the cache was warm.
    FullRebuild,
}

impl CacheClass {
    /// Every class, in report order.
    pub const ALL: [CacheClass; 11] = [
        CacheClass::Hit,
        CacheClass::First,
        CacheClass::Compaction,
        CacheClass::ModelSwitch,
        CacheClass::Ttl5m,
        CacheClass::Ttl1h,
        CacheClass::ShapeChange,
        CacheClass::VersionChange,
        CacheClass::Microcompact,
        CacheClass::ContextEdit,
        CacheClass::FullRebuild,
    ];

    /// The JSON / column name of the class.
    pub fn as_str(self) -> &'static str {
        // `parse` is the inverse (test `class_names_parse_back`).
        match self {
            CacheClass::Hit => "hit",
            CacheClass::First => "first",
            CacheClass::Compaction => "compaction",
            CacheClass::ModelSwitch => "model_switch",
            CacheClass::Ttl5m => "ttl_5m",
            CacheClass::Ttl1h => "ttl_1h",
            CacheClass::ShapeChange => "shape_change",
            CacheClass::VersionChange => "version_change",
            CacheClass::Microcompact => "microcompact",
            CacheClass::ContextEdit => "context_edit",
            CacheClass::FullRebuild => "full_rebuild",
        }
    }

    /// The class a stored name (`as_str`) names.
    pub fn parse(name: &str) -> Option<CacheClass> {
        Some(match name {
            "hit" => CacheClass::Hit,
            "first" => CacheClass::First,
            "compaction" => CacheClass::Compaction,
            "model_switch" => CacheClass::ModelSwitch,
            "ttl_5m" => CacheClass::Ttl5m,
            "ttl_1h" => CacheClass::Ttl1h,
            "shape_change" => CacheClass::ShapeChange,
            "version_change" => CacheClass::VersionChange,
            "microcompact" => CacheClass::Microcompact,
            "context_edit" => CacheClass::ContextEdit,
            "full_rebuild" => CacheClass::FullRebuild,
            _ => return None,
        })
    }

    /// True for lineage starts (`first`, `compaction`, `model_switch`).
    pub fn is_start(self) -> bool {
        matches!(self, CacheClass::First | CacheClass::Compaction | CacheClass::ModelSwitch)
    }

    /// True for misses (any cause).
    pub fn is_miss(self) -> bool {
        !self.is_start() && self != CacheClass::Hit
    }

    /// True for the misses an idle gap caused (`ttl_5m`, `ttl_1h`): the
    /// reports' idle cost, and `sql/team_person_cache.sql`'s.
    pub fn is_idle(self) -> bool {
        matches!(self, CacheClass::Ttl5m | CacheClass::Ttl1h)
    }

    /// True for the misses of a warm cache whose prompt changed
    /// (`shape_change`, `microcompact`, `context_edit`, `full_rebuild`):
    /// the reports' edit cost, and `sql/team_person_cache.sql`'s.
    pub fn is_edit(self) -> bool {
        matches!(
            self,
            CacheClass::ShapeChange | CacheClass::Microcompact | CacheClass::ContextEdit | CacheClass::FullRebuild
        )
    }

    /// One plain sentence: what happened, and what the user can do about it.
    pub fn meaning(self) -> &'static str {
        match self {
            CacheClass::Hit => "Read the previous prompt from the cache: nothing to do.",
            CacheClass::First => "A conversation or sub-agent started and wrote its prompt once: unavoidable.",
            CacheClass::Compaction => "The history was replaced by a summary and written afresh: compact when you change task, not more often.",
            CacheClass::ModelSwitch => "Another model has its own cache and started a new one: switch models between tasks, not within one.",
            CacheClass::Ttl5m => "You came back after the 5-minute cache expired and it was written again: resume sooner, or compare 1-hour writes in the what-if.",
            CacheClass::Ttl1h => "You came back after the 1-hour cache expired and it was written again: compact or start fresh before a long break.",
            CacheClass::ShapeChange => "The system prompt or the tool set changed (Claude Code records both with every call), so nothing after them could be read: keep MCP servers, tools, CLAUDE.md and settings fixed within a session.",
            CacheClass::VersionChange => "Claude Code was upgraded between two requests and wrote a new prefix: nothing to do; it happens once per upgrade.",
            CacheClass::Microcompact => "Claude Code cleared old tool results, which broke the cache behind them: compact or start a new session before the context grows this large.",
            CacheClass::ContextEdit => "The start of the prompt was still cached but what followed changed (tool results cleared, memory, tools or history edited): avoid editing CLAUDE.md, MCP servers or settings mid-session.",
            CacheClass::FullRebuild => "Nothing was read although the cache should have been warm: nothing on your side; if it is frequent, report it.",
        }
    }

    /// True for misses the what-if keeps as observed (§5 v2: the cache was
    /// lost whatever the TTL).
    pub fn ttl_independent(self) -> bool {
        matches!(
            self,
            CacheClass::ShapeChange
                | CacheClass::VersionChange
                | CacheClass::Microcompact
                | CacheClass::ContextEdit
                | CacheClass::FullRebuild
        )
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
