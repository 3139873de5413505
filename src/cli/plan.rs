//! Raw flags -> the resolved `Plan` every command runs with (roots, data
//! directory, time zone, prices, the run's clock), built once; and the one
//! `StoreView` a command reads through.

use super::Global;
use crate::config;
use crate::ingest::Seen;
use crate::pricing::PriceTable;
use crate::store::claude::ClaudeState;
use crate::store::view::StoreView;
use crate::store::Store;
use anyhow::Context;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::path::PathBuf;

/// Everything a command needs from flags and environment.
#[derive(Clone)]
pub struct Plan {
    pub roots: Vec<PathBuf>,
    /// The roots were named (`--claude-dir`, `CLAUDE_CONFIG_DIR`), not the
    /// defaults: a missing one is worth a note.
    pub roots_named: bool,
    pub store: Store,
    pub tz: Tz,
    pub ingest: bool,
    pub quiet: bool,
    pub prices: PriceTable,
    /// The run's clock: read once, when the plan is resolved.
    pub now: DateTime<Utc>,
    /// True when `--now` fixed the clock: a long-running command (`serve`)
    /// keeps that time instead of reading the system clock.
    pub now_fixed: bool,
    /// The width terminal tables fit (`config::table_width`); None: no limit.
    pub width: Option<usize>,
    /// Set once this run's ingest has read every transcript there is
    /// (`run::ingest_now`): what it saw, so no transcript is then unread,
    /// none it found needs a `stat`, and the first view takes its manifest.
    pub ingested: std::cell::RefCell<Option<Seen>>,
}

/// Said when a report reads a team directory whose costs come from another
/// price table without writing it (`--no-ingest`, or another writer held
/// the lock): it prices them in memory.
const REPRICED_TEAM: &str = "warning: this team directory's costs were computed with another price table \
(an earlier cachewise, or --pricing), so this report prices its rows again in memory: on a large team that \
takes minutes and gigabytes. A report without --no-ingest, or `cachewise ingest --rebuild` (the same --data-dir, \
and --pricing if reports use one), prices its rows again once, a person at a time, and makes reports fast again.";

/// A usage error: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl Plan {
    pub fn resolve(g: &Global) -> anyhow::Result<Plan> {
        let env_roots = std::env::var(config::ENV_CLAUDE_CONFIG_DIR).ok();
        let env_data = std::env::var(config::ENV_DATA_DIR).ok();
        let roots = config::roots(&g.claude_dir, env_roots.as_deref(), dirs::home_dir().as_deref());
        let data_dir = config::data_dir(g.data_dir.as_deref(), env_data.as_deref());
        let tz = config::time_zone(g.tz.as_deref()).map_err(UsageError)?;
        let prices = PriceTable::load(g.pricing.as_deref())?;
        let store =
            Store::open(&data_dir).with_context(|| format!("cannot use data directory {}", data_dir.display()))?;
        let now = g.now.unwrap_or_else(Utc::now);
        let width = config::table_width(std::env::var(config::ENV_COLUMNS).ok().as_deref());
        let roots_named = !g.claude_dir.is_empty() || env_roots.as_deref().is_some_and(|v| !v.trim().is_empty());
        Ok(Plan {
            roots,
            roots_named,
            store,
            tz,
            ingest: !g.no_ingest,
            quiet: g.quiet,
            prices,
            now,
            now_fixed: g.now.is_some(),
            width,
            ingested: Default::default(),
        })
    }

    /// Warns when this is a team directory the store's readers price again
    /// in memory (`team::people::stale`; `REPRICED_TEAM`).
    pub fn warn_if_priced_elsewhere(&self) -> anyhow::Result<()> {
        if crate::team::people::stale(&self.store, &self.prices)? {
            super::note(REPRICED_TEAM);
        }
        Ok(())
    }

    /// A team directory whose rows were priced with another table is priced
    /// again (`update::reprice_team`), as a local store is ingested, unless
    /// `--no-ingest` says to only read. When that cannot be done now (another
    /// writer holds the lock, a full disk), the run goes on reading the
    /// store as it is, priced in memory (the report then warns): the figures
    /// are right, only slower.
    pub fn reprice_if_stale(&self) -> anyhow::Result<()> {
        if !self.ingest || !crate::team::people::stale(&self.store, &self.prices)? {
            return Ok(());
        }
        if !self.quiet {
            super::note("note: this team directory's costs came from another price table; pricing its rows again, a person at a time (once)");
        }
        let store = self.store.waiting(crate::store::lock::Waiting::No);
        match crate::update::reprice_team(&store, &self.prices, &super::progress::Bar::new(self.quiet)) {
            Err(crate::team::TeamError::Store(crate::store::StoreError::Locked { .. })) | Ok(_) => {}
            Err(e) => super::note(&format!("warning: could not price the team directory again: {e}")),
        }
        Ok(())
    }

    /// The store as this run reads it, at the run's clock, with what
    /// Claude Code's settings and transcripts say (a team directory reads
    /// no local transcript, so it has none to judge).
    pub fn view(&self) -> anyhow::Result<StoreView> {
        let mut seen = self.ingested.borrow_mut();
        let known = seen.as_mut().and_then(|s| s.manifest.take());
        let view = crate::materialize::view_after(&self.store, &self.prices, self.now, known)?;
        Ok(match self.store.holds_bundles() {
            true => {
                self.warn_if_priced_elsewhere()?;
                view
            }
            false => {
                let settings = config::claude_settings(&self.roots);
                let found = seen.as_ref().map(|s| &s.transcripts);
                let state = ClaudeState::gather(view.manifest(), &self.roots, settings, self.now, found);
                view.with_claude(state)
            }
        })
    }
}
