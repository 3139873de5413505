//! The reports of one person filter (or of everyone): the CLI's usage
//! reports (daily, session, project, model, summary), the `cache` report,
//! cost per day by token class and the session list, all over the
//! requests one `Query` selects, from the snapshot's view at its clock.

use super::Snapshot;
use crate::report::cache::rows::{annotate_sessions, annotate_sessions_with, session_caches, DailyClassCosts};
use crate::report::cache::view::cache_report_with;
use crate::report::cache::{CacheQuery, CacheReport, Reconcile};
use crate::report::class_cost::DayClassCost;
use crate::report::query::{Grouping, Query};
use crate::report::session::list::{session_rows, SessionRow};
use crate::report::summary::{last_30_days, summary_of, Summary};
use crate::report::usage::{self, UsageReport};
use crate::report::ReportError;
use crate::store::view::StoreView;
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

/// `report::usage`, with the cache columns on session reports: what
/// `cachewise report` prints.
pub(super) fn usage_report(view: &StoreView, g: Grouping, q: &Query) -> Result<UsageReport, ReportError> {
    let mut r = usage::usage(view, g, q)?;
    if g == Grouping::Session {
        annotate_sessions(&mut r, view, q.user.as_deref())?;
    }
    Ok(r)
}

/// `usage_report` of several groupings, from one read of the requests
/// (`usage::usages`); the sessions' cache figures, when a session report is
/// asked for, read from the analysis beside it.
pub(super) fn usage_reports(view: &StoreView, gs: &[Grouping], q: &Query) -> Result<Vec<UsageReport>, ReportError> {
    let clock = std::time::Instant::now();
    let with_sessions = gs.contains(&Grouping::Session);
    let (reports, caches) = rayon::join(
        || usage::usages(view, gs, q),
        || with_sessions.then(|| session_caches(view, q.user.as_deref())).transpose(),
    );
    let (mut reports, caches) = (reports?, caches?);
    tracing::debug!("usage reports {gs:?}: made after {:?}", clock.elapsed());
    if let Some(caches) = caches {
        for r in reports.iter_mut().filter(|r| r.grouping == Grouping::Session) {
            annotate_sessions_with(r, &caches);
        }
    }
    Ok(reports)
}

impl Reports {
    /// Builds the set over the requests `q` selects, the usage reports
    /// through the snapshot's memo.
    pub fn build(snap: &Snapshot, q: &Query) -> Result<Reports, ReportError> {
        let view = &snap.view;
        let cq = CacheQuery { query: q.clone(), session: None };
        let four = [Grouping::Daily, Grouping::Session, Grouping::Project, Grouping::Model];
        let mut class_costs = DailyClassCosts::new(q.tz);
        // Both sides below read the analysis: it is made once, before them
        // (a view whose analysis is computed in memory would else compute
        // it on each side at once).
        let _ = view.analysis()?;
        // The usage reports read the requests, the cache report the
        // analysis: side by side, the dashboard of a 100-person store is
        // ready in 7-9 s instead of 10 (docs/performance.md).
        let (usages, cache) =
            rayon::join(|| snap.usages(four, q), || cache_report_with(view, &cq, Some(&mut class_costs)));
        let ([daily, sessions, projects, models], mut cache) = (usages?, cache?);
        cache.usage = Some(Reconcile::of(&cache.total, daily.total, daily.calls));
        let class_costs = class_costs.days();
        let session_rows = session_rows(&sessions, snap.session_models()?, q.tz);
        let row_of = session_rows.iter().enumerate().map(|(i, r)| (r.session_id.clone(), i)).collect();
        let recent = usage::usage(view, Grouping::Session, &last_30_days(q, view.now()))?;
        Ok(Reports {
            summary: summary_of(view, &daily, recent, q),
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

    /// The session list row of a session.
    pub fn session_row(&self, id: &str) -> Option<&SessionRow> {
        self.row_of.get(id).and_then(|&i| self.session_rows.get(i))
    }
}
