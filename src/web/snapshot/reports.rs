//! The reports of one person filter (or of everyone): the CLI's usage
//! reports (daily, session, project, model, summary), the `cache` report,
//! cost per day by token class and the session table, all over the
//! requests one `Query` selects. The snapshot builds the set for everyone
//! up front and one per `?user=` on demand.

use crate::pricing::PriceTable;
use crate::report::cache::{CacheQuery, CacheReport};
use crate::report::cache_rows::{annotate_sessions, daily_class_costs};
use crate::report::cache_view::{cache_report, CacheView};
use crate::report::class_cost::DayClassCost;
use crate::report::query::{Grouping, Query};
use crate::report::session_table::{session_rows, SessionRow};
use crate::report::summary::{last_30_days, summary_of, Summary};
use crate::report::usage::{self, UsageReport};
use crate::report::ReportError;
use crate::store::Store;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Arc;

/// Everything the overview, days, sessions, cache, projects and models
/// pages read, over one selection of requests.
pub struct Reports {
    pub summary: Summary,
    pub daily: Arc<UsageReport>,
    pub sessions: Arc<UsageReport>,
    pub projects: Arc<UsageReport>,
    pub models: Arc<UsageReport>,
    /// The `cache` report (the CLI's `cache --json`).
    pub cache: CacheReport,
    pub class_costs: Vec<DayClassCost>,
    pub session_rows: Vec<SessionRow>,
    /// Session id -> index into `session_rows`.
    row_of: HashMap<String, usize>,
}

/// What building a report set reads.
pub struct Inputs<'a> {
    pub store: &'a Store,
    pub prices: &'a PriceTable,
    /// The stored analysis.
    pub view: &'a CacheView,
    /// The clock of the snapshot.
    pub now: DateTime<Utc>,
}

/// `report::usage`, with the cache columns on session reports: what
/// `cachewise report` prints.
pub fn usage_report(i: &Inputs<'_>, g: Grouping, q: &Query) -> Result<UsageReport, ReportError> {
    let mut r = usage::usage(i.store, g, q, i.prices)?;
    if g == Grouping::Session {
        annotate_sessions(&mut r, i.view, i.now, q.user.as_deref())?;
    }
    Ok(r)
}

impl Reports {
    /// Builds the set over the requests `q` selects; `usage` runs (or
    /// recalls) one usage report.
    pub fn build(
        i: &Inputs<'_>,
        q: &Query,
        usage: impl Fn(Grouping) -> Result<Arc<UsageReport>, ReportError> + Sync,
    ) -> Result<Reports, ReportError> {
        let clock = std::time::Instant::now();
        let lap = |what: &str| tracing::debug!("reports for {:?}: {what} after {:?}", q.user, clock.elapsed());
        let cq = CacheQuery { query: q.clone(), session: None };
        // The usage reports read the requests table, the cache figures the
        // analysis table: side by side.
        let (usage_reports, cache_figures) = rayon::join(
            || -> Result<_, ReportError> {
                let (daily, sessions) = (usage(Grouping::Daily)?, usage(Grouping::Session)?);
                let (projects, models) = (usage(Grouping::Project)?, usage(Grouping::Model)?);
                lap("usage reports");
                Ok((daily, sessions, projects, models))
            },
            || -> Result<_, ReportError> {
                let cache = cache_report(i.view, &cq, i.now, i.prices)?;
                let class_costs = daily_class_costs(i.view, &cq)?;
                lap("cache report and class costs");
                Ok((cache, class_costs))
            },
        );
        let ((daily, sessions, projects, models), (cache, class_costs)) = (usage_reports?, cache_figures?);
        let session_rows = session_rows(&sessions, &cache.stale, &i.view.session_models()?, q.tz);
        let row_of = session_rows.iter().enumerate().map(|(i, r)| (r.session_id.clone(), i)).collect();
        let recent = usage::usage(i.store, Grouping::Session, &last_30_days(q, i.now), i.prices)?;
        lap("session rows and the last 30 days");
        Ok(Reports {
            summary: summary_of(i.store, &daily, recent, q, i.now)?,
            daily,
            sessions,
            projects,
            models,
            cache,
            class_costs,
            session_rows,
            row_of,
        })
    }

    /// The session table row of a session.
    pub fn session_row(&self, id: &str) -> Option<&SessionRow> {
        self.row_of.get(id).and_then(|&i| self.session_rows.get(i))
    }
}
