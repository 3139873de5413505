//! The dashboard's cache: one `StoreView` (one version of the store, its
//! tables opened once and decoded at most once, one clock) plus memos of
//! the reports computed from it, by the same `report::` functions the CLI
//! calls. Handlers read an `Arc<Snapshot>` and touch no file; every figure
//! of a page comes from its snapshot's view, at its clock.
//!
//! The refresh task swaps in a new snapshot when the store's version
//! changes (`build`: a new view) and, while it does not, once a minute at a
//! later clock (`at`: the same view and tables, fresh memos but for the
//! usage and team reports, which never read the clock), so stale sessions
//! and "today" follow the clock without reading the store again or summing
//! every request again.
//! Reports are computed when a page first asks for them (the refresh task
//! asks for everyone's right after a swap).

mod memo;
mod reports;

pub use memo::Memo;
pub use reports::Reports;

use crate::analyze::Advice;
use crate::pricing::Estimate;
use crate::report::blocks;
use crate::report::cache::medians::MedianTable;
use crate::report::query::{Grouping, Query};
use crate::report::stored_rows::{advise_rows, recent_rows, session_stored_rows, StoredRows};
use crate::report::team::{team, TeamReport};
use crate::report::usage::UsageReport;
use crate::report::ReportError;
use crate::store::view::StoreView;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The stand-in for every `?user=` name the store does not hold (a name
/// no bundle can carry: it starts with a NUL).
const NOBODY: &str = "\u{0}nobody";

/// How many filtered report sets (a person, some days) a snapshot remembers.
const REPORT_SETS_REMEMBERED: usize = 24;

/// How many sessions' rows a snapshot remembers.
const SESSIONS_REMEMBERED: usize = 16;

/// Cache report pages a snapshot keeps serialised (a page is at most a
/// few megabytes).
const CACHE_PAGES_REMEMBERED: usize = 32;

/// What an `/api/cache` answer depends on: the query, the session, the
/// page and its length.
pub type CachePage = (Query, Option<String>, usize, usize);

/// One version of the store at one clock, and what was computed from it.
pub struct Snapshot {
    /// The data version pages and `/events` name: it increases when the
    /// store changed (not when only the clock moved).
    pub version: u64,
    pub tz: Tz,
    /// The store as of this snapshot, at its clock.
    pub view: StoreView,
    users: OnceLock<Vec<String>>,
    estimated: OnceLock<Vec<Estimate>>,
    medians: OnceLock<MedianTable>,
    all: Memo<(), Reports>,
    people: Memo<Query, Reports>,
    paths: OnceLock<Arc<HashMap<String, String>>>,
    session_models: OnceLock<HashMap<String, Vec<String>>>,
    /// Shared with the snapshots of the same view at later clocks (`at`):
    /// the usage and team reports never read the clock.
    usage: Arc<Memo<(Grouping, Query), UsageReport>>,
    usage_json: Memo<(Grouping, Query), axum::body::Bytes>,
    sessions: Memo<String, StoredRows>,
    recent: Memo<(), StoredRows>,
    cache_json: Memo<CachePage, axum::body::Bytes>,
    /// Shared like `usage`.
    teams: Arc<Memo<Query, TeamReport>>,
    team_json: Memo<Query, axum::body::Bytes>,
}

impl Snapshot {
    /// A snapshot of `view` (as of its clock) named `version`; nothing is
    /// computed until a page asks.
    pub fn new(view: StoreView, tz: Tz, version: u64) -> Snapshot {
        Snapshot {
            version,
            tz,
            view,
            users: OnceLock::new(),
            estimated: OnceLock::new(),
            medians: OnceLock::new(),
            all: Memo::default(),
            people: Memo::with_limit(REPORT_SETS_REMEMBERED),
            paths: OnceLock::new(),
            session_models: OnceLock::new(),
            usage: Arc::default(),
            usage_json: Memo::default(),
            sessions: Memo::with_limit(SESSIONS_REMEMBERED),
            recent: Memo::default(),
            cache_json: Memo::with_limit(CACHE_PAGES_REMEMBERED),
            teams: Arc::default(),
            team_json: Memo::default(),
        }
    }

    /// The same store at a later clock: same view and tables; the usage
    /// and team reports, which do not depend on the clock, are kept, every
    /// other memo starts empty.
    pub fn at(&self, now: DateTime<Utc>) -> Snapshot {
        Snapshot {
            usage: Arc::clone(&self.usage),
            teams: Arc::clone(&self.teams),
            ..Snapshot::new(self.view.at(now), self.tz, self.version)
        }
    }

    /// The clock of every figure of this snapshot.
    pub fn now(&self) -> DateTime<Utc> {
        self.view.now()
    }

    /// When the store last changed (the manifest's time).
    pub fn updated(&self) -> Option<&str> {
        self.view.manifest().updated.as_deref()
    }

    /// True when the store holds no request.
    pub fn is_empty(&self) -> bool {
        self.view.requests().is_none()
    }

    /// The people of a team data directory, sorted (local rows, which name
    /// nobody, are not listed); none when the store cannot say.
    pub fn users(&self) -> &[String] {
        if let Some(u) = self.users.get() {
            return u;
        }
        // Computed before `get_or_init`, which would block a second caller
        // (or this thread, re-entered from a pool) while it runs.
        let users = self.view.users().unwrap_or_else(|e| {
            tracing::warn!("the people of the store: {e}");
            Vec::new()
        });
        self.users.get_or_init(|| users)
    }

    /// True when the store holds more than one person's requests (a team
    /// data directory): the pages offer the person filter and the Team page.
    pub fn is_team(&self) -> bool {
        self.users().len() > 1
    }

    /// Stored models priced as their family's newest version (none when
    /// the store cannot say).
    pub fn estimated_models(&self) -> &[Estimate] {
        if let Some(e) = self.estimated.get() {
            return e;
        }
        let estimated = self.view.estimated_models().unwrap_or_else(|e| {
            tracing::warn!("the stored models: {e}");
            Vec::new()
        });
        self.estimated.get_or_init(|| estimated)
    }

    /// The project medians of resume advice, over every stored row.
    pub fn medians(&self) -> Result<&MedianTable, ReportError> {
        if let Some(m) = self.medians.get() {
            return Ok(m);
        }
        let m = self.view.medians()?;
        Ok(self.medians.get_or_init(|| m))
    }

    /// The reports over everyone. Blocking the first time.
    pub fn all(&self) -> Result<Arc<Reports>, ReportError> {
        self.all.get_or((), || Reports::build(self, &Query::new(self.tz)))
    }

    /// `report::usage` (annotated like the CLI's) for this query, remembered
    /// per snapshot. Blocking: call it from `spawn_blocking`.
    pub fn usage(&self, g: Grouping, q: &Query) -> Result<Arc<UsageReport>, ReportError> {
        let q = self.known(q);
        self.usage.get_or((g, q.clone()), || reports::usage_report(&self.view, g, &q))
    }

    /// `usage` of several groupings; those not remembered yet are made
    /// from one read of the requests (`reports::usage_reports`). Blocking.
    pub fn usages<const N: usize>(&self, gs: [Grouping; N], q: &Query) -> Result<[Arc<UsageReport>; N], ReportError> {
        let q = self.known(q);
        let missing: Vec<Grouping> = gs.into_iter().filter(|g| !self.usage.holds(&(*g, q.clone()))).collect();
        let mut made: HashMap<Grouping, UsageReport> = match missing.len() {
            0 | 1 => HashMap::new(),
            _ => missing.iter().copied().zip(reports::usage_reports(&self.view, &missing, &q)?).collect(),
        };
        let mut one = |g: Grouping| {
            let made = made.remove(&g);
            self.usage.get_or((g, q.clone()), || made.map_or_else(|| reports::usage_report(&self.view, g, &q), Ok))
        };
        let out: Vec<Arc<UsageReport>> = gs.into_iter().map(&mut one).collect::<Result<_, _>>()?;
        let mut out = out.into_iter();
        Ok(gs.map(|g| out.next().unwrap_or_else(|| Arc::new(UsageReport::empty(g)))))
    }

    /// `usage` as JSON bytes (`json` serialises it), remembered per
    /// snapshot like the report. Blocking.
    pub fn usage_json<E: From<ReportError>>(
        &self,
        g: Grouping,
        q: &Query,
        json: impl FnOnce(&UsageReport) -> Result<axum::body::Bytes, E>,
    ) -> Result<axum::body::Bytes, E> {
        let q = self.known(q);
        let bytes = self.usage_json.get_or((g, q.clone()), || json(&*self.usage(g, &q)?))?;
        Ok((*bytes).clone())
    }

    /// `team` as JSON bytes (`json` serialises it), remembered per snapshot.
    /// Blocking.
    pub fn team_json<E: From<ReportError>>(
        &self,
        q: &Query,
        json: impl FnOnce(&TeamReport) -> Result<axum::body::Bytes, E>,
    ) -> Result<axum::body::Bytes, E> {
        let q = self.weekless(q);
        let bytes = self.team_json.get_or(q.clone(), || json(&*self.team(&q)?))?;
        Ok((*bytes).clone())
    }

    /// `known(q)` for a value that has no weeks and no breakdown (a report
    /// set, a team report): every week start shares one.
    fn weekless(&self, q: &Query) -> Query {
        Query { breakdown: false, week_start: chrono::Weekday::Mon, ..self.known(q) }
    }

    /// `q` with a user nobody has replaced by `NOBODY`, so all such names
    /// share one remembered value.
    fn known(&self, q: &Query) -> Query {
        match &q.user {
            Some(u) if !self.users().iter().any(|k| k == u) => Query { user: Some(NOBODY.to_owned()), ..q.clone() },
            _ => q.clone(),
        }
    }

    /// The report set of one person (`None`: everyone), remembered per
    /// snapshot. Blocking the first time for a person.
    pub fn reports(&self, user: Option<&str>) -> Result<Arc<Reports>, ReportError> {
        self.reports_for(&Query { user: user.map(str::to_owned), ..Query::new(self.tz) })
    }

    /// The report set of the requests `q` selects (a person, some days, a
    /// project), remembered per snapshot. Blocking the first time.
    pub fn reports_for(&self, q: &Query) -> Result<Arc<Reports>, ReportError> {
        if q.user.is_none() && q.whole_history() {
            return self.all();
        }
        // Every name nobody has shares one (empty) report set, so made-up
        // names cost one build per snapshot, not one each.
        let q = Query { tz: self.tz, ..self.weekless(q) };
        self.people.get_or(q.clone(), || Reports::build(self, &q))
    }

    /// Project directory -> the path its transcripts ran in (empty when the
    /// store cannot say). Blocking the first time.
    pub fn project_paths(&self) -> Arc<HashMap<String, String>> {
        if let Some(p) = self.paths.get() {
            return Arc::clone(p);
        }
        let paths = crate::report::project_paths::project_paths(&self.view).unwrap_or_else(|e| {
            tracing::warn!("the projects' paths: {e}");
            HashMap::new()
        });
        Arc::clone(self.paths.get_or_init(|| Arc::new(paths)))
    }

    /// Each session's models, most requests first (every person's copy
    /// counted), read once per snapshot: every person's session list names them.
    pub fn session_models(&self) -> Result<&HashMap<String, Vec<String>>, ReportError> {
        if let Some(m) = self.session_models.get() {
            return Ok(m);
        }
        let models = self.view.session_models()?;
        Ok(self.session_models.get_or_init(|| models))
    }

    /// A page of the cache report as JSON bytes (`/api/cache`), made by
    /// `make` the first time. Blocking.
    pub fn cache_json<E>(
        &self,
        page: CachePage,
        make: impl FnOnce() -> Result<axum::body::Bytes, E>,
    ) -> Result<axum::body::Bytes, E> {
        self.cache_json.get_or(page, make).map(|b| (*b).clone())
    }

    /// One session's stored rows and verdicts (every person's copy),
    /// remembered for the last few sessions asked. Blocking.
    pub fn session(&self, id: &str) -> Result<Arc<StoredRows>, ReportError> {
        self.sessions.get_or(id.to_owned(), || session_stored_rows(&self.view, id))
    }

    /// The sessions active in the ten hours before the clock (the Now
    /// panel's rows). Blocking the first time.
    pub fn recent(&self) -> Result<Arc<StoredRows>, ReportError> {
        let now = self.now();
        self.recent.get_or((), || recent_rows(&self.view, now - blocks::BLOCK * 2, now))
    }

    /// Resume advice for session `id` (exact) at the snapshot's clock, with
    /// the project medians of the whole store (`NoMainThread` without a
    /// main thread).
    pub fn advise(&self, id: &str, turns: u32) -> Result<Advice, ReportError> {
        advise_rows(&self.view, &*self.session(id)?, self.medians()?, id, turns)
    }

    /// `report::team` for this query (what `cachewise report team --json`
    /// prints), remembered per snapshot. Blocking.
    pub fn team(&self, q: &Query) -> Result<Arc<TeamReport>, ReportError> {
        let q = self.weekless(q);
        self.teams.get_or(q.clone(), || team(&self.view, &q))
    }
}
