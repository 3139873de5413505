//! The cache report. Here: its types (`CacheQuery`, `CacheReport`,
//! `Reconcile`, `MissRow`) and how a session is found by id, prefix or
//! title. The report itself is `view::cache_report`, over a view's stored
//! columns (the tests hold it equal to an in-memory reference in
//! `tests/common`), summed in one pass (`tallies`, and the splits by Claude
//! Code version and prompt size: `splits`, `versions`, `context`); the
//! idle-compaction what-if's medians (`medians`), the misses and per-day
//! class costs (`rows`); in the terminal (`render`, `misses`) and in words
//! (`words`).

pub mod context;
pub mod medians;
pub mod misses;
pub mod render;
pub mod rows;
pub mod splits;
mod tallies;
pub mod versions;
pub mod view;
pub mod words;

use super::query::Query;
use super::resume::NotResumableSession;
use super::ReportError;
use crate::analyze::{
    CacheClass, CacheStats, DayStats, IdleCompaction, LiveAgreement, ServerReasons, SessionCompaction, SessionStats,
    StaleSession,
};
use crate::pricing::Estimate;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Finds a session among `ids` (sorted, unique) by full id, unique id
/// prefix, or title (exact, then unique case-insensitive substring).
pub fn find_session(ids: &[&str], titles: &HashMap<String, String>, text: &str) -> Result<String, ReportError> {
    if ids.binary_search(&text).is_ok() {
        return Ok(text.to_owned());
    }
    let by_prefix: Vec<&str> = ids.iter().copied().filter(|id| !text.is_empty() && id.starts_with(text)).collect();
    let lower = text.to_lowercase();
    let by_title: Vec<&str> =
        ids.iter().copied().filter(|id| titles.get(*id).is_some_and(|t| t.to_lowercase().contains(&lower))).collect();
    let exact: Vec<&str> =
        by_title.iter().copied().filter(|id| titles.get(*id).is_some_and(|t| t.eq_ignore_ascii_case(text))).collect();
    for candidates in [by_prefix, exact, by_title] {
        match candidates.as_slice() {
            [] => continue,
            [one] => return Ok((*one).to_owned()),
            many => {
                return Err(ReportError::AmbiguousSession {
                    text: text.to_owned(),
                    candidates: many.iter().take(5).map(|s| (*s).to_owned()).collect(),
                })
            }
        }
    }
    Err(ReportError::UnknownSession(text.to_owned()))
}

/// Which requests a cache report covers.
#[derive(Debug, Clone)]
pub struct CacheQuery {
    pub query: Query,
    /// A full session id (resolve user text with `resolve_session` first).
    pub session: Option<String>,
}

/// The `cache` report: the contract keys (`classes`, `idle_buckets`,
/// `what_if`, `stale`) plus hit ratios, the write mix, per day, per session
/// and compactions.
#[derive(Debug, Clone, Serialize)]
pub struct CacheReport {
    /// The cache model the figures follow (`v4`).
    pub model: &'static str,
    #[serde(flatten)]
    pub total: CacheStats,
    /// Compactions by trigger: `manual`, `auto`, `idle`, others by name.
    pub compactions_by_trigger: BTreeMap<String, u64>,
    /// What idle compaction would have cost against the 1-hour gaps it prevents.
    pub idle_compaction: IdleCompaction,
    /// The server's own miss reasons per class, and their agreement with
    /// the classes (`server_reasons`, `agreement`).
    #[serde(flatten)]
    pub server: ServerReasons,
    /// How often Claude Code's status-line `prompt_cache.warm` matched
    /// cachewise's verdict (every recorded reading, or the session's).
    pub live_agreement: LiveAgreement,
    /// Resumable sessions whose cache expired, highest premium first.
    pub stale: Vec<StaleSession>,
    /// Sessions that cannot be resumed, with why (cache-model §8.3 v3).
    pub not_resumable: Vec<NotResumableSession>,
    /// What Claude Code's settings and transcripts warn about
    /// (`cleanupPeriodDays` 0, transcripts about to be deleted unread).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub by_day: Vec<DayStats>,
    /// The cache's health per Claude Code version, first used first
    /// (`cache::versions`).
    pub versions: Vec<crate::report::cache::versions::VersionHealth>,
    /// The requests by the size of their prompt (`cache::context`).
    pub context: crate::report::cache::context::Context,
    pub by_session: Vec<SessionStats>,
    pub compaction: Vec<SessionCompaction>,
    pub now: DateTime<Utc>,
    /// Models of the covered requests priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
    /// The same selection as `report daily` counts it, beside the cache
    /// model's thread requests, and what makes the difference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Reconcile>,
    /// Present when `stale`, `by_session` and `compaction` are one page of
    /// their rows (`page`): which page, and how many rows each list holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lists: Option<ListPage>,
}

/// How the cache figures reconcile with the usage reports over the same
/// selection. `report daily` counts responses and prices every call inside
/// them; the cache model counts each call of a conversation thread (a
/// response made of several calls is several thread requests), and an
/// advisor call belongs to no thread, nor does a call Claude Code did not
/// write down. So `cost_usd = thread_cost_usd + advisor_cost_usd +
/// unlogged_cost_usd + other_usd`, where `other_usd` (responses with no
/// call the cache model reads) is zero but for odd transcripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Reconcile {
    /// Responses, as `report daily` counts them.
    pub requests: u64,
    /// Their cost, as `report daily` sums it.
    pub cost_usd: f64,
    /// Requests of conversation threads, as the cache model counts them.
    pub thread_requests: u64,
    /// Their cost (the what-if's actual cost).
    pub thread_cost_usd: f64,
    pub advisor_calls: u64,
    pub advisor_cost_usd: f64,
    /// Calls Claude Code paid for without writing them down.
    pub unlogged_calls: u64,
    pub unlogged_cost_usd: f64,
    /// Whatever else differs (normally zero).
    pub other_usd: f64,
}

impl Reconcile {
    /// The usage reports' `totals` and `calls` against the cache model's
    /// thread requests (`total`).
    pub fn of(total: &CacheStats, totals: super::usage::Totals, calls: super::calls::CallTotals) -> Reconcile {
        let thread_cost_usd = total.what_if.actual_usd;
        Reconcile {
            requests: totals.requests,
            cost_usd: totals.cost_usd,
            thread_requests: total.requests,
            thread_cost_usd,
            advisor_calls: calls.advisor_calls,
            advisor_cost_usd: calls.advisor_cost_usd,
            unlogged_calls: calls.unlogged_calls,
            unlogged_cost_usd: calls.unlogged_cost_usd,
            other_usd: totals.cost_usd - thread_cost_usd - calls.advisor_cost_usd - calls.unlogged_cost_usd,
        }
    }
}

/// One page of a cache report's per-session lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ListPage {
    /// 1-based.
    pub page: usize,
    pub per_page: usize,
    pub stale_total: usize,
    pub not_resumable_total: usize,
    pub by_session_total: usize,
    pub compaction_total: usize,
}

impl CacheReport {
    /// The report with `stale`, `by_session` and `compaction` cut to their
    /// `page`-th run of `per_page` rows (1-based; each list in its own
    /// order), and `lists` saying how many rows each holds: a team's report
    /// lists tens of thousands of sessions, too many for one response.
    pub fn page(&self, page: usize, per_page: usize) -> CacheReport {
        fn cut<T: Clone>(v: &[T], page: usize, per_page: usize) -> Vec<T> {
            let start = page.saturating_sub(1).saturating_mul(per_page).min(v.len());
            v[start..].iter().take(per_page).cloned().collect()
        }
        CacheReport {
            stale: cut(&self.stale, page, per_page),
            not_resumable: cut(&self.not_resumable, page, per_page),
            by_session: cut(&self.by_session, page, per_page),
            compaction: cut(&self.compaction, page, per_page),
            lists: Some(ListPage {
                page,
                per_page,
                stale_total: self.stale.len(),
                not_resumable_total: self.not_resumable.len(),
                by_session_total: self.by_session.len(),
                compaction_total: self.compaction.len(),
            }),
            ..self.head()
        }
    }

    /// The report without its per-session lists.
    fn head(&self) -> CacheReport {
        CacheReport {
            model: self.model,
            total: self.total.clone(),
            compactions_by_trigger: self.compactions_by_trigger.clone(),
            idle_compaction: self.idle_compaction,
            server: self.server.clone(),
            live_agreement: self.live_agreement,
            stale: Vec::new(),
            not_resumable: Vec::new(),
            warnings: self.warnings.clone(),
            by_day: self.by_day.clone(),
            versions: self.versions.clone(),
            context: self.context.clone(),
            by_session: Vec::new(),
            compaction: Vec::new(),
            now: self.now,
            estimated_models: self.estimated_models.clone(),
            usage: self.usage,
            lists: self.lists,
        }
    }
}

/// One cache miss, for `cache --misses`.
#[derive(Debug, Clone, Serialize)]
pub struct MissRow {
    pub time: DateTime<Utc>,
    pub session_id: String,
    pub thread: String,
    pub model: String,
    pub version: String,
    /// The cache model's class (inferred from the transcript).
    pub class: CacheClass,
    /// What a person reads (`analyze::cause_of`): the server's reason when
    /// it gave a known one, else `class`; and who named it.
    pub cause: String,
    pub cause_from: crate::analyze::CauseFrom,
    /// Seconds since the thread's previous request.
    pub gap_s: Option<f64>,
    /// TTL in force (seconds).
    pub ttl_s: u32,
    /// The previous prompt, which a hit would have read.
    pub expected_prefix: u64,
    pub cache_read: u64,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
    /// The server's miss reason (cache-model section 19); empty: none.
    pub server_reason: String,
    /// Its `cache_missed_input_tokens`, when given (beside `rebuilt_tokens`).
    pub server_missed_tokens: Option<u64>,
}
