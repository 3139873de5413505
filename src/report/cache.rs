//! The cache report's types (`CacheQuery`, `CacheReport`, `MissRow`) and
//! the in-memory reference: `CacheData` runs `analyze` over request rows
//! (one session's for timelines and advice, `report::cache_session`; a
//! whole store for tests and the demo), and `cache_report` sums them as
//! the reference model does. Reports over a store read the stored columns
//! instead (`report::cache_view`), which the tests hold equal to this.

use super::query::Query;
use super::usage::session_titles;
use super::ReportError;
use crate::analyze::{
    analyze, compaction_report, compactions_by_trigger, idle_gaps, summarize_where, CacheClass, CacheStats,
    CompactionParams, DayStats, IdleCompaction, IdleGap, RequestCache, SessionCompaction, SessionStats, StaleSession,
    SummaryOptions, IDLE, MODEL_VERSION,
};
use crate::model::{Compaction, Request};
use crate::pricing::{Estimate, PriceTable};
use crate::store::{frames, Store, Table};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The stored requests as the cache model's rows: one per thread call of
/// each response (`PriceTable::thread_requests`).
pub fn thread_requests(store: &Store, prices: &PriceTable) -> Result<Vec<Request>, ReportError> {
    let requests = match store.requests_priced(prices)? {
        Some(lf) => frames::requests_from(&lf.collect()?)?,
        None => return Ok(Vec::new()),
    };
    let calls = store.calls_priced(prices)?;
    Ok(prices.thread_requests(requests, &calls))
}

/// Requests with their cache classification, compactions and titles.
#[derive(Debug, Clone, Default)]
pub struct CacheData {
    pub requests: Vec<Request>,
    /// `caches[i]` classifies `requests[i]`.
    pub caches: Vec<RequestCache>,
    pub compactions: Vec<Compaction>,
    pub titles: HashMap<String, String>,
    /// Models among `requests` priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
    /// The gaps of the idle-compaction what-if, priced once at load.
    pub idle_gaps: Vec<IdleGap>,
}

impl CacheData {
    /// Loads the store's tables and runs the cache model over all of them.
    pub fn load(store: &Store, prices: &PriceTable) -> Result<CacheData, ReportError> {
        let requests = thread_requests(store, prices)?;
        let compactions = match store.read(Table::Compactions)? {
            Some(df) => frames::compactions_from(&df)?,
            None => Vec::new(),
        };
        let titles = session_titles(store)?.into_iter().collect();
        Ok(CacheData::new(requests, compactions, titles, prices))
    }

    /// Classifies in-memory rows (demo data, tests; each request one call).
    pub fn new(
        requests: Vec<Request>,
        compactions: Vec<Compaction>,
        titles: HashMap<String, String>,
        prices: &PriceTable,
    ) -> CacheData {
        let caches = analyze(&requests, &compactions, prices);
        let models: BTreeSet<&str> = requests.iter().map(|r| r.model.as_str()).collect();
        let estimated_models = prices.estimated_models(models);
        let idle_gaps = idle_gaps(&requests, &caches, prices);
        CacheData { requests, caches, compactions, titles, estimated_models, idle_gaps }
    }

    /// Finds a session by full id, unique id prefix, or title (exact, then
    /// unique case-insensitive substring).
    pub fn resolve_session(&self, text: &str) -> Result<String, ReportError> {
        let mut ids: Vec<&str> = self.requests.iter().map(|r| r.session_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        resolve_session(&ids, &self.titles, text)
    }
}

/// Finds a session among `ids` (sorted, unique) by full id, unique id
/// prefix, or title (exact, then unique case-insensitive substring).
pub fn resolve_session(ids: &[&str], titles: &HashMap<String, String>, text: &str) -> Result<String, ReportError> {
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
    /// The cache model the figures follow (`v2`).
    pub model: &'static str,
    #[serde(flatten)]
    pub total: CacheStats,
    /// Compactions by trigger: `manual`, `auto`, `idle`, others by name.
    pub compactions_by_trigger: BTreeMap<String, u64>,
    /// What idle compaction would have cost against the 1-hour gaps it prevents.
    pub idle_compaction: IdleCompaction,
    pub stale: Vec<StaleSession>,
    pub by_day: Vec<DayStats>,
    pub by_session: Vec<SessionStats>,
    pub compaction: Vec<SessionCompaction>,
    pub now: DateTime<Utc>,
    /// Models of the covered requests priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
    /// Present when `stale`, `by_session` and `compaction` are one page of
    /// their rows (`page`): which page, and how many rows each list holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lists: Option<ListPage>,
}

/// One page of a cache report's per-session lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ListPage {
    /// 1-based.
    pub page: usize,
    pub per_page: usize,
    pub stale_total: usize,
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
            by_session: cut(&self.by_session, page, per_page),
            compaction: cut(&self.compaction, page, per_page),
            lists: Some(ListPage {
                page,
                per_page,
                stale_total: self.stale.len(),
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
            stale: Vec::new(),
            by_day: self.by_day.clone(),
            by_session: Vec::new(),
            compaction: Vec::new(),
            now: self.now,
            estimated_models: self.estimated_models.clone(),
            lists: self.lists,
        }
    }
}

/// The cache report of the requests `q` selects, as of `now`.
pub fn cache_report(data: &CacheData, q: &CacheQuery, now: DateTime<Utc>) -> CacheReport {
    let tz = q.query.tz;
    let day_of = move |t: DateTime<Utc>| t.with_timezone(&tz).format("%Y-%m-%d").to_string();
    let include = |r: &Request| q.selects(r);
    let opts = SummaryOptions { now, titles: &data.titles, day_of: &day_of };
    let s = summarize_where(&data.requests, &data.caches, &opts, &include);
    let sessions: std::collections::HashSet<&str> = s.by_session.iter().map(|x| x.session_id.as_str()).collect();
    let compaction = compaction_report(&data.requests, &data.caches, &data.compactions, &CompactionParams::default())
        .into_iter()
        .filter(|c| sessions.contains(c.session_id.as_str()))
        .collect();
    let models: BTreeSet<&str> = data.requests.iter().filter(|r| include(r)).map(|r| r.model.as_str()).collect();
    let estimated_models =
        data.estimated_models.iter().filter(|e| models.contains(e.model.as_str())).cloned().collect();
    let by_trigger = compactions_by_trigger(&data.requests, &data.compactions, &include);
    let idle = by_trigger.get(IDLE).copied().unwrap_or(0);
    let idle_compaction = IdleCompaction::sum(&data.idle_gaps, &data.requests, &include, idle);
    CacheReport {
        model: MODEL_VERSION,
        total: s.total,
        compactions_by_trigger: by_trigger,
        idle_compaction,
        stale: s.stale,
        by_day: s.by_day,
        by_session: s.by_session,
        compaction,
        now,
        estimated_models,
        lists: None,
    }
}

impl CacheQuery {
    /// True for the requests this report covers (the query's days, project
    /// and user, and the session if one is set).
    pub fn selects(&self, r: &Request) -> bool {
        self.session.as_ref().is_none_or(|s| r.session_id == *s) && self.query.accepts(r)
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
    pub class: CacheClass,
    /// Seconds since the thread's previous request.
    pub gap_s: Option<f64>,
    /// TTL in force (seconds).
    pub ttl_s: u32,
    /// The previous prompt, which a hit would have read.
    pub expected_prefix: u64,
    pub cache_read: u64,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
}
