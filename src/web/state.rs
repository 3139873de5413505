//! The router's shared state: the store, prices and zone the refresh task
//! opens views with, the current `Snapshot` behind an atomically swapped
//! `Arc` (readers never wait for a rebuild), an optional banner (demo data)
//! and the clock. Handlers read only the snapshot.

use super::snapshot::Snapshot;
use crate::pricing::PriceTable;
use crate::report::ReportError;
use crate::store::claude::ClaudeState;
use crate::store::Store;
use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where "now" comes from: the system clock, or a fixed time (tests).
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    System,
    Fixed(DateTime<Utc>),
}

impl Clock {
    pub fn now(self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Fixed(t) => t,
        }
    }
}

/// What the state is built from.
pub struct Settings {
    pub store: Store,
    pub prices: PriceTable,
    pub tz: Tz,
    /// The day the pages' weeks start on unless a page asks
    /// (`serve --start-of-week`).
    pub week_start: chrono::Weekday,
    /// A notice shown on every page (e.g. "demo data").
    pub banner: Option<String>,
    pub clock: Clock,
    /// Claude Code's config directories: its settings and transcripts say
    /// which sessions can still be resumed (empty: the defaults).
    pub claude_roots: Vec<std::path::PathBuf>,
}

/// Shared by every handler; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Settings,
    snapshot: ArcSwap<Snapshot>,
    versions: AtomicU64,
}

/// A snapshot of the store as it is now.
fn open(s: &Settings, version: u64) -> Result<Snapshot, ReportError> {
    let now = s.clock.now();
    let mut view = crate::materialize::view(&s.store, &s.prices, now)?;
    if !s.store.holds_bundles() {
        let settings = crate::config::claude_settings(&s.claude_roots);
        let state = ClaudeState::gather(view.manifest(), &s.claude_roots, settings, now, None);
        view = view.with_claude(state);
    }
    Ok(Snapshot::new(view, s.tz, version))
}

impl AppState {
    /// Opens the first snapshot (blocking).
    pub fn new(settings: Settings) -> Result<AppState, ReportError> {
        let first = Arc::new(open(&settings, 1)?);
        Ok(AppState { inner: Arc::new(Inner { snapshot: ArcSwap::new(first), versions: AtomicU64::new(1), settings }) })
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.inner.snapshot.load_full()
    }

    /// When the store's version differs from the snapshot's (any writer:
    /// this server's ingest, a report run beside it, an import), or a
    /// transcript it read was deleted since (Claude Code's cleanup: those
    /// sessions can no longer be resumed), opens a new snapshot and swaps
    /// it in; returns its data version, or None when nothing changed.
    /// Blocking.
    pub fn rebuild(&self) -> Result<Option<u64>, ReportError> {
        let s = &self.inner.settings;
        let snap = self.snapshot();
        let deleted = || ClaudeState::deleted(snap.view.manifest(), None);
        if s.store.version() == snap.view.version()
            && (s.store.holds_bundles() || deleted() == snap.view.claude().deleted)
        {
            return Ok(None);
        }
        let version = self.inner.versions.fetch_add(1, Ordering::Relaxed) + 1;
        self.inner.snapshot.store(Arc::new(open(s, version)?));
        Ok(Some(version))
    }

    /// Swaps in the current snapshot at the clock's time: the same view
    /// and tables, its reports computed afresh when asked.
    pub fn tick(&self) {
        self.inner.snapshot.store(Arc::new(self.snapshot().at(self.now())));
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The current time by the state's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.inner.settings.clock.now()
    }
}
