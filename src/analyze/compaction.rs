//! The compaction report (issue item 4): per session, the peak prompt
//! against its auto-compact threshold (reference §4.3), the compactions seen
//! and what each cost, and the turns left before the next auto-compaction at
//! the session's median growth. Hands on serialisable `SessionCompaction`s.
//!
//! Cost of a compaction = the §4 cost of its `acompact-*` thread's requests
//! plus the miss cost of the main-thread `compaction` lineage start after it.
//! Matching rule: an `acompact-*` thread belongs to the first compaction of
//! its session at or after the thread's first request, if that compaction
//! came at most `ACOMPACT_MATCH_WINDOW_S` later; the summary request runs just
//! before the boundary is written. The lineage start belongs to the latest
//! compaction at or before it. Microcompacts are not compactions here; a
//! compaction's trigger is shown as `idle` when it was Claude Code's idle
//! compaction (cache-model §1 v2).

use super::advice::growth;
use super::classify::{CacheClass, RequestCache};
use super::idle::trigger_label;
use super::prices::request_cost;
use super::threads::ThreadIndex;
use crate::model::{Boundary, Compaction, Request};
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::collections::HashMap;

/// Longest time from an `acompact-*` request to its boundary.
pub const ACOMPACT_MATCH_WINDOW_S: i64 = 600;
/// A session whose peak prompt exceeded this ran on a 1M window.
pub const LARGE_WINDOW_ABOVE: u64 = 200_000;
/// Thread-name prefix of compaction summary requests.
pub const ACOMPACT_PREFIX: &str = "acompact-";

/// Auto-compact thresholds by context window (reference §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompactionParams {
    pub window_200k_threshold: u64,
    pub window_1m_threshold: u64,
}

impl Default for CompactionParams {
    fn default() -> Self {
        CompactionParams { window_200k_threshold: 167_000, window_1m_threshold: 967_000 }
    }
}

/// One compaction and its cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionCost {
    pub time: DateTime<Utc>,
    pub trigger: String,
    pub pre_tokens: Option<u64>,
    /// `acompact-*` requests matched to it.
    pub requests: u64,
    /// Their §4 cost.
    pub request_usd: f64,
    /// Rebuilt tokens of the main-thread lineage start after it.
    pub rebuild_tokens: u64,
    /// Miss cost of that lineage start.
    pub rebuild_usd: f64,
    pub total_usd: f64,
}

/// The compaction picture of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCompaction {
    pub session_id: String,
    /// Whose session (not in the report's JSON, which predates teams).
    #[serde(skip)]
    pub user: String,
    pub project: String,
    /// Model of the main thread's last request.
    pub model: String,
    pub peak_prompt: u64,
    /// 200_000 or 1_000_000 (`set_window`).
    pub window_tokens: u64,
    pub threshold: u64,
    pub last_prompt: u64,
    /// Median positive growth over main-thread hits; None if none grew.
    pub median_growth: Option<f64>,
    /// `floor((threshold - P_last) / G)`, 0 when already past it.
    pub turns_left: Option<u64>,
    pub compactions: Vec<CompactionCost>,
    pub total_usd: f64,
}

/// Index of the compaction an `acompact-*` thread starting at `t` belongs to.
fn match_acompact(comps: &[&Compaction], t: DateTime<Utc>) -> Option<usize> {
    let k = comps.partition_point(|c| c.time < t);
    let c = comps.get(k)?;
    (c.time - t <= TimeDelta::seconds(ACOMPACT_MATCH_WINDOW_S)).then_some(k)
}

/// Seconds from the last main-thread request at or before `t` to `t`.
fn gap_before<R: Borrow<Request>>(main: &[usize], requests: &[R], t: DateTime<Utc>) -> Option<f64> {
    let k = main.partition_point(|&i| requests[i].borrow().time <= t);
    k.checked_sub(1).map(|k| (t - requests[main[k]].borrow().time).as_seconds_f64())
}

/// Costs of a session's compactions (`comps` sorted by time).
fn costs<R: Borrow<Request>>(
    comps: &[&Compaction],
    main: &[usize],
    acompact: &[&[usize]],
    requests: &[R],
    caches: &[RequestCache],
) -> Vec<CompactionCost> {
    let mut out: Vec<CompactionCost> = comps
        .iter()
        .map(|c| CompactionCost {
            time: c.time,
            trigger: trigger_label(c, gap_before(main, requests, c.time)).to_owned(),
            pre_tokens: c.pre_tokens,
            requests: 0,
            request_usd: 0.0,
            rebuild_tokens: 0,
            rebuild_usd: 0.0,
            total_usd: 0.0,
        })
        .collect();
    for thread in acompact {
        let Some(k) = match_acompact(comps, requests[thread[0]].borrow().time) else {
            continue;
        };
        for &i in *thread {
            let r = requests[i].borrow();
            out[k].requests += 1;
            out[k].request_usd += request_cost(caches[i].rates.as_ref(), &r.tokens, r.web_search);
        }
    }
    for &i in main.iter().filter(|&&i| caches[i].class == CacheClass::Compaction) {
        let k = comps.partition_point(|c| c.time <= requests[i].borrow().time);
        if let Some(cc) = k.checked_sub(1).map(|k| &mut out[k]) {
            cc.rebuild_tokens += caches[i].rebuilt_tokens;
            cc.rebuild_usd += caches[i].miss_cost_usd;
        }
    }
    for cc in &mut out {
        cc.total_usd = cc.request_usd + cc.rebuild_usd;
    }
    out
}

/// The report for one session given its main thread (time order).
fn session_report<R: Borrow<Request>>(
    main: &[usize],
    comps: &[&Compaction],
    acompact: &[&[usize]],
    requests: &[R],
    caches: &[RequestCache],
    params: &CompactionParams,
) -> Option<SessionCompaction> {
    let last = requests[*main.last()?].borrow();
    let compactions = costs(comps, main, acompact, requests, caches);
    let mut report = SessionCompaction {
        session_id: last.session_id.to_string(),
        user: last.user.to_string(),
        project: last.project.to_string(),
        model: last.model.to_string(),
        peak_prompt: main.iter().map(|&i| requests[i].borrow().tokens.prompt()).max().unwrap_or(0),
        window_tokens: 0,
        threshold: 0,
        last_prompt: last.tokens.prompt(),
        median_growth: growth(main, requests, caches),
        turns_left: None,
        total_usd: compactions.iter().map(|c| c.total_usd).sum(),
        compactions,
    };
    report.set_window(params);
    Some(report)
}

/// Whether Claude Code runs `model` (any spelling) at a 1M window by
/// default: Opus 4.7 and later, Sonnet 5 and later, Haiku 5.5 and later,
/// Fable (reference §4.3, the Claude API's defaults).
pub fn runs_at_1m(model: &str) -> bool {
    match crate::pricing::family_version(&crate::pricing::normalize(model)) {
        Some(("opus", v)) => v >= (4, 7),
        Some(("sonnet", v)) => v >= (5, 0),
        Some(("haiku", v)) => v >= (5, 5),
        Some(("fable", _)) => true,
        _ => false,
    }
}

impl SessionCompaction {
    /// Sets `window_tokens`, `threshold` and `turns_left` from the report's
    /// own figures (cache-model §10): the threshold is where the session's
    /// last automatic compaction ran when it has one (what Claude Code did,
    /// whatever its settings or provider), else its window's default; the
    /// window is 1M when the peak prompt passed 200k, else when that
    /// compaction ran past 200k, else (no such compaction) when Claude Code
    /// runs the model at 1M (`runs_at_1m`). A view applies it to stored
    /// reports too, so those an earlier release wrote read the same.
    pub fn set_window(&mut self, p: &CompactionParams) {
        let seen = self.compactions.iter().rev().find(|c| c.trigger == "auto").and_then(|c| c.pre_tokens);
        let by_default = seen.map_or_else(|| runs_at_1m(&self.model), |s| s > LARGE_WINDOW_ABOVE);
        (self.window_tokens, self.threshold) = match self.peak_prompt > LARGE_WINDOW_ABOVE || by_default {
            true => (1_000_000, seen.unwrap_or(p.window_1m_threshold)),
            false => (200_000, seen.unwrap_or(p.window_200k_threshold)),
        };
        let headroom = self.threshold.saturating_sub(self.last_prompt) as f64;
        self.turns_left = self.median_growth.filter(|g| *g > 0.0).map(|g| (headroom / g).floor() as u64);
    }
}

/// The compaction report of every session with a main thread, by session id.
pub fn compaction_report<R: Borrow<Request>>(
    requests: &[R],
    caches: &[RequestCache],
    compactions: &[Compaction],
    params: &CompactionParams,
) -> Vec<SessionCompaction> {
    let index = ThreadIndex::build(requests);
    let mut comps: HashMap<(&str, &str), Vec<&Compaction>> = HashMap::new();
    for c in compactions.iter().filter(|c| c.boundary == Boundary::Compact) {
        comps.entry((c.user.as_str(), c.session_id.as_str())).or_default().push(c);
    }
    for v in comps.values_mut() {
        v.sort_by_key(|c| c.time);
    }
    let mut mains: Vec<&[usize]> = Vec::new();
    let mut acompact: HashMap<(&str, &str), Vec<&[usize]>> = HashMap::new();
    for t in index.threads() {
        let r = requests[t[0]].borrow();
        if r.thread == crate::model::MAIN_THREAD {
            mains.push(t);
        } else if r.thread.starts_with(ACOMPACT_PREFIX) {
            acompact.entry((r.user.as_str(), r.session_id.as_str())).or_default().push(t);
        }
    }
    mains
        .into_iter()
        .filter_map(|main| {
            let r = requests[main[0]].borrow();
            let key = (r.user.as_str(), r.session_id.as_str());
            let c = comps.get(&key).map_or(&[][..], |v| &v[..]);
            let a = acompact.get(&key).map_or(&[][..], |v| &v[..]);
            session_report(main, c, a, requests, caches, params)
        })
        .collect()
}
