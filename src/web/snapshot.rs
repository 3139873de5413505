//! The dashboard's in-memory view of the store: the cache model over every
//! request and the report set (`Reports`: the CLI's usage, summary and
//! cache reports) over everyone, built once per data change by the same
//! `report::` and `analyze::` functions the CLI calls. Handlers read an
//! `Arc<Snapshot>`; filtered usage reports, the report set of one person
//! (`?user=`) and team reports are computed on demand and remembered
//! (`Memo`) until the next snapshot replaces this one.

mod memo;
mod reports;

pub use memo::Memo;
pub use reports::{Inputs, Reports};

use crate::analyze::{advise_in, Advice};
use crate::pricing::Estimate;
use crate::pricing::PriceTable;
use crate::report::blocks;
use crate::report::cache::CacheData;
use crate::report::cache_medians::MedianTable;
use crate::report::cache_session::{recent_data, session_data};
use crate::report::cache_view::CacheView;
use crate::report::query::{Grouping, Query};
use crate::report::team::{team, TeamOptions, TeamReport, DEFAULT_TOP_STALE};
use crate::report::usage::UsageReport;
use crate::report::ReportError;
use crate::store::Store;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::sync::Arc;

/// The stand-in for every `?user=` name the store does not hold (a name
/// no bundle can carry: it starts with a NUL).
const NOBODY: &str = "\u{0}nobody";

/// How many sessions' classified rows a snapshot remembers.
const SESSIONS_REMEMBERED: usize = 16;

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
    /// The stored analysis (scans of its tables) and titles.
    pub view: CacheView,
    /// The sessions active in the ten hours before `built`, classified
    /// (the Now panel's rows).
    pub recent: CacheData,
    /// How many thread requests the store holds.
    pub rows: usize,
    /// Stored models priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
    /// The project medians of resume advice, over every stored row.
    pub medians: MedianTable,
    sessions: Memo<String, CacheData>,
    /// `/api/cache` pages, serialised once per query, session and page.
    cache_json: Memo<CachePage, axum::body::Bytes>,
    /// The people of a team data directory, sorted (local rows, which name
    /// nobody, are not listed).
    pub users: Vec<String>,
    /// The reports over every request.
    pub all: Arc<Reports>,
    usage: Memo<(Grouping, Query), UsageReport>,
    usage_json: Memo<(Grouping, Query), axum::body::Bytes>,
    people: Memo<String, Reports>,
    teams: Memo<Query, TeamReport>,
    team_json: Memo<Query, axum::body::Bytes>,
}

/// Cache report pages a snapshot keeps serialised (a page is at most a
/// few megabytes).
const CACHE_PAGES_REMEMBERED: usize = 32;

/// What an `/api/cache` answer depends on: the query, the session, the
/// page and its length.
pub type CachePage = (Query, Option<String>, usize, usize);

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
        let view = CacheView::load(store, prices)?;
        let i = Inputs { store, prices, view: &view, now };
        let usage = Memo::default();
        let users = view.users()?;
        // A team's Team page is what its lead opens first: its report is
        // built beside everyone's reports, so the page answers from memory.
        let opts = TeamOptions { now, top_stale: DEFAULT_TOP_STALE };
        let (all, team_report) = rayon::join(
            || Reports::build(&i, &q, |g| usage.get_or((g, q.clone()), || reports::usage_report(&i, g, &q))),
            || (users.len() > 1).then(|| team(store, &q, prices, &opts)).transpose(),
        );
        // A Team report that fails is left for the Team page to report.
        let team_report = team_report.unwrap_or_else(|e| {
            tracing::warn!("the Team report: {e}");
            None
        });
        let all = all?;
        let recent = recent_data(&view, store, prices, now - blocks::BLOCK * 2, now)?;
        let teams = Memo::default();
        if let Some(r) = team_report {
            teams.get_or(q.clone(), || Ok::<_, ReportError>(r))?;
        }
        Ok(Snapshot {
            version,
            built: now,
            tz,
            updated: store.manifest()?.updated,
            users,
            rows: view.count()?,
            estimated_models: view.estimated_models(prices)?,
            medians: view.medians()?,
            sessions: Memo::with_limit(SESSIONS_REMEMBERED),
            cache_json: Memo::with_limit(CACHE_PAGES_REMEMBERED),
            recent,
            view,
            all: Arc::new(all),
            usage,
            usage_json: Memo::default(),
            people: Memo::default(),
            teams,
            team_json: Memo::default(),
        })
    }

    /// True when the store held no request.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// True when the store holds more than one person's requests (a team
    /// data directory): the pages offer the person filter and the Team page.
    pub fn is_team(&self) -> bool {
        self.users.len() > 1
    }

    fn inputs<'a>(&'a self, store: &'a Store, prices: &'a PriceTable) -> Inputs<'a> {
        Inputs { store, prices, view: &self.view, now: self.built }
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
        let q = self.known(q);
        self.usage.get_or((g, q.clone()), || reports::usage_report(&self.inputs(store, prices), g, &q))
    }

    /// `usage` as JSON bytes (`json` serialises it), remembered per
    /// snapshot like the report. Blocking.
    pub fn usage_json<E: From<ReportError>>(
        &self,
        store: &Store,
        g: Grouping,
        q: &Query,
        prices: &PriceTable,
        json: impl FnOnce(&UsageReport) -> Result<axum::body::Bytes, E>,
    ) -> Result<axum::body::Bytes, E> {
        let q = self.known(q);
        let bytes = self.usage_json.get_or((g, q.clone()), || json(&*self.usage(store, g, &q, prices)?))?;
        Ok((*bytes).clone())
    }

    /// `team` as JSON bytes (`json` serialises it), remembered per snapshot.
    /// Blocking.
    pub fn team_json<E: From<ReportError>>(
        &self,
        store: &Store,
        q: &Query,
        prices: &PriceTable,
        json: impl FnOnce(&TeamReport) -> Result<axum::body::Bytes, E>,
    ) -> Result<axum::body::Bytes, E> {
        let q = self.known(q);
        let bytes = self.team_json.get_or(q.clone(), || json(&*self.team(store, &q, prices)?))?;
        Ok((*bytes).clone())
    }

    /// `q` with a user nobody has replaced by `NOBODY`, so all such names
    /// share one remembered value.
    fn known(&self, q: &Query) -> Query {
        match &q.user {
            Some(u) if !self.users.iter().any(|k| k == u) => Query { user: Some(NOBODY.to_owned()), ..q.clone() },
            _ => q.clone(),
        }
    }

    /// The report set of one person (`None`: everyone), remembered per
    /// snapshot. Blocking the first time for a person.
    pub fn reports(&self, store: &Store, prices: &PriceTable, user: Option<&str>) -> Result<Arc<Reports>, ReportError> {
        let Some(user) = user else { return Ok(Arc::clone(&self.all)) };
        // Every name nobody has shares one (empty) report set, so made-up
        // names cost one build per snapshot, not one each.
        let user = if self.users.iter().any(|u| u == user) { user } else { NOBODY };
        self.people.get_or(user.to_owned(), || {
            let q = Query { user: Some(user.to_owned()), ..Query::new(self.tz) };
            Reports::build(&self.inputs(store, prices), &q, |g| self.usage(store, g, &q, prices))
        })
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

    /// One session's rows (every person's copy), classified, remembered for
    /// the last few sessions asked. Blocking. `NotFound`-worthy when empty.
    pub fn session(&self, store: &Store, prices: &PriceTable, id: &str) -> Result<Arc<CacheData>, ReportError> {
        self.sessions.get_or(id.to_owned(), || session_data(&self.view, store, prices, id))
    }

    /// Resume advice for session `id` (exact) at `now`, with the project
    /// medians of the whole store; None without a main thread.
    pub fn advise(
        &self,
        store: &Store,
        prices: &PriceTable,
        id: &str,
        turns: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<Advice>, ReportError> {
        let d = self.session(store, prices, id)?;
        let of = |project: &str| self.medians.project(project);
        Ok(advise_in(id, &d.requests, &d.caches, &d.compactions, prices, now, turns, &of))
    }

    /// `report::team` for this query, as of `built` (what `cachewise report
    /// team --json` prints), remembered per snapshot. Blocking.
    pub fn team(&self, store: &Store, q: &Query, prices: &PriceTable) -> Result<Arc<TeamReport>, ReportError> {
        let opts = TeamOptions { now: self.built, top_stale: DEFAULT_TOP_STALE };
        let q = self.known(q);
        self.teams.get_or(q.clone(), || team(store, &q, prices, &opts))
    }
}
