//! The router's shared state: the store, prices and zone every handler
//! needs, the current `Snapshot` behind an atomically swapped `Arc` (readers
//! never wait for a rebuild), an optional banner (demo data) and the clock.

use super::snapshot::Snapshot;
use crate::pricing::PriceTable;
use crate::report::ReportError;
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
    /// A notice shown on every page (e.g. "demo data").
    pub banner: Option<String>,
    pub clock: Clock,
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

impl AppState {
    /// Builds the first snapshot (blocking).
    pub fn new(settings: Settings) -> Result<AppState, ReportError> {
        let s = &settings;
        let first = Arc::new(Snapshot::build(&s.store, &s.prices, s.tz, s.clock.now(), 1)?);
        Ok(AppState { inner: Arc::new(Inner { snapshot: ArcSwap::new(first), versions: AtomicU64::new(1), settings }) })
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.inner.snapshot.load_full()
    }

    /// Rebuilds the snapshot from the store and swaps it in (blocking).
    pub fn rebuild(&self) -> Result<u64, ReportError> {
        let s = &self.inner.settings;
        let version = self.inner.versions.fetch_add(1, Ordering::Relaxed) + 1;
        let next = Arc::new(Snapshot::build(&s.store, &s.prices, s.tz, s.clock.now(), version)?);
        self.inner.snapshot.store(next);
        Ok(version)
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The current time by the state's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.inner.settings.clock.now()
    }
}
