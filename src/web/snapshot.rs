//! The dashboard's in-memory view of the store: the CLI's usage reports
//! (daily, session, project, model, summary), the cache model over every
//! request, and the tables the pages show by default, built once per data
//! change by the same `report::` and `analyze::` functions the CLI calls.
//! Handlers read an `Arc<Snapshot>`; filtered usage reports are computed on
//! demand and remembered until the next snapshot replaces this one.

use crate::pricing::PriceTable;
use crate::report::cache::{annotate_sessions, cache_report, CacheData, CacheQuery, CacheReport};
use crate::report::class_cost::{daily_class_costs, DayClassCost};
use crate::report::query::{Grouping, Query};
use crate::report::session_table::{session_rows, SessionRow};
use crate::report::summary::{summary, Summary};
use crate::report::usage::{self, UsageReport};
use crate::report::ReportError;
use crate::store::Store;
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many filtered reports a snapshot remembers.
const MEMO_LIMIT: usize = 256;

/// A usage report's identity: grouping and every query field.
type MemoKey = (u8, Option<NaiveDate>, Option<NaiveDate>, Option<String>, bool);

/// Everything the pages read, as of one version of the store.
pub struct Snapshot {
    /// Increases with every rebuild.
    pub version: u64,
    /// The clock the snapshot was built at: stale sessions and the
    /// summary's "today" are as of this time.
    pub built: DateTime<Utc>,
    pub tz: Tz,
    /// When the store last changed (the manifest's time).
    pub updated: Option<String>,
    pub summary: Summary,
    pub daily: Arc<UsageReport>,
    pub sessions: Arc<UsageReport>,
    pub projects: Arc<UsageReport>,
    pub models: Arc<UsageReport>,
    /// Requests, their cache classes, compactions and titles.
    pub data: CacheData,
    /// The `cache` report over everything (the CLI's `cache --json`).
    pub cache: CacheReport,
    pub class_costs: Vec<DayClassCost>,
    pub session_rows: Vec<SessionRow>,
    /// Session id -> indices into `requests`.
    pub by_session: HashMap<String, Vec<usize>>,
    /// Session id -> index into `session_rows`.
    row_of: HashMap<String, usize>,
    memo: Mutex<HashMap<MemoKey, Arc<UsageReport>>>,
}

fn memo_key(g: Grouping, q: &Query) -> MemoKey {
    (g as u8, q.since, q.until, q.project.clone(), q.breakdown)
}

/// `report::usage`, with the cache columns on session reports: what
/// `cachewise report` prints.
fn usage_report(
    store: &Store,
    g: Grouping,
    q: &Query,
    prices: &PriceTable,
    data: &CacheData,
    now: DateTime<Utc>,
) -> Result<UsageReport, ReportError> {
    let mut r = usage::usage(store, g, q, prices)?;
    if g == Grouping::Session {
        annotate_sessions(&mut r, data, now);
    }
    Ok(r)
}

impl Snapshot {
    /// Reads the store and runs every report and the cache model as of `now`.
    pub fn build(
        store: &Store,
        prices: &PriceTable,
        tz: Tz,
        now: DateTime<Utc>,
        version: u64,
    ) -> Result<Snapshot, ReportError> {
        let q = Query::new(tz);
        let data = CacheData::load(store, prices)?;
        let report = |g| usage_report(store, g, &q, prices, &data, now).map(Arc::new);
        let (daily, sessions, projects, models) = (
            report(Grouping::Daily)?,
            report(Grouping::Session)?,
            report(Grouping::Project)?,
            report(Grouping::Model)?,
        );
        let cache = cache_report(&data, &CacheQuery { query: q.clone(), session: None }, now);
        let class_costs = daily_class_costs(&data.requests, &data.caches, tz);
        let session_rows = session_rows(&sessions, &cache.stale, &data.requests, tz);
        let mut by_session: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, r) in data.requests.iter().enumerate() {
            by_session.entry(r.session_id.clone()).or_default().push(i);
        }
        let row_of = session_rows.iter().enumerate().map(|(i, r)| (r.session_id.clone(), i)).collect();
        let mut memo = HashMap::new();
        for (g, r) in [
            (Grouping::Daily, &daily),
            (Grouping::Session, &sessions),
            (Grouping::Project, &projects),
            (Grouping::Model, &models),
        ] {
            memo.insert(memo_key(g, &q), Arc::clone(r));
        }
        Ok(Snapshot {
            version,
            built: now,
            tz,
            updated: store.manifest()?.updated,
            summary: summary(store, &q, prices, now)?,
            daily,
            sessions,
            projects,
            models,
            data,
            cache,
            class_costs,
            session_rows,
            by_session,
            row_of,
            memo: Mutex::new(memo),
        })
    }

    /// True when the store held no request.
    pub fn is_empty(&self) -> bool {
        self.data.requests.is_empty()
    }

    /// `report::usage` (annotated like the CLI's) for this query, remembered
    /// per snapshot; session reports are as of `built`. Blocking:
    /// call it from `spawn_blocking`.
    pub fn usage(
        &self,
        store: &Store,
        g: Grouping,
        q: &Query,
        prices: &PriceTable,
    ) -> Result<Arc<UsageReport>, ReportError> {
        let key = memo_key(g, q);
        if let Some(r) = self.memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(r);
        }
        let r = Arc::new(usage_report(store, g, q, prices, &self.data, self.built)?);
        if let Ok(mut m) = self.memo.lock() {
            if m.len() >= MEMO_LIMIT {
                m.clear();
            }
            m.insert(key, Arc::clone(&r));
        }
        Ok(r)
    }

    /// The session table row of a session.
    pub fn session_row(&self, id: &str) -> Option<&SessionRow> {
        self.row_of.get(id).and_then(|&i| self.session_rows.get(i))
    }
}
