//! Keeps the dashboard current: every few seconds, an incremental ingest of
//! the transcript roots (unchanged files are not opened), then, when the
//! store's version changed (this ingest, or any other writer: a report run
//! beside the server, an import), a new snapshot swapped in. Without a
//! change, the snapshot moves to the clock once a minute (the same view,
//! no table read again), so stale sessions and "today" follow it.

use super::state::AppState;
use crate::ingest::{IngestError, Silent};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often transcripts are checked.
pub const POLL: Duration = Duration::from_secs(3);
/// Longest a snapshot is kept without new data.
pub const MAX_AGE: Duration = Duration::from_secs(60);

/// Ingests `roots` (if any) and rebuilds when needed, forever. The first
/// snapshot's reports are computed right away.
pub async fn keep_fresh(state: AppState, roots: Option<Vec<PathBuf>>) {
    let mut built = Instant::now();
    warm(&state).await;
    loop {
        tokio::time::sleep(POLL).await;
        let st = state.clone();
        let roots = roots.clone();
        let changed = tokio::task::spawn_blocking(move || match roots {
            Some(r) => ingest_once(&st, &r),
            None => false,
        })
        .await
        .unwrap_or(false);
        let st = state.clone();
        match tokio::task::spawn_blocking(move || st.rebuild()).await {
            Ok(Ok(Some(v))) => {
                built = Instant::now();
                tracing::info!("the store changed{}; data version {v}", if changed { " (transcripts)" } else { "" });
                warm(&state).await;
            }
            Ok(Ok(None)) if built.elapsed() >= MAX_AGE => {
                built = Instant::now();
                state.tick();
                warm(&state).await;
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => tracing::error!("reading the store for the dashboard failed: {e}"),
            Err(e) => tracing::error!("rebuild task failed: {e}"),
        }
    }
}

/// Computes everyone's reports of the current snapshot (and the team
/// report, in a team data directory), so the next page answers from memory.
async fn warm(state: &AppState) {
    let snap = state.snapshot();
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || {
        snap.project_paths();
        snap.all()?;
        match snap.is_team() {
            true => snap.team(&crate::report::query::Query::new(snap.tz)).map(|_| ()),
            false => Ok(()),
        }
    })
    .await
    {
        tracing::warn!("the dashboard's reports: {e}");
    }
}

/// One incremental ingest; true when the store changed. A data directory
/// that became a team directory while serving (bundles imported into it)
/// is left alone from then on, as the ingest policy (`cli::policy`) says.
fn ingest_once(state: &AppState, roots: &[PathBuf]) -> bool {
    let s = state.settings();
    if s.store.holds_bundles() {
        return false;
    }
    match s.store.make_again_if_deleted() {
        Ok(true) => tracing::warn!(
            "the data directory {} was deleted; reading the transcripts into it again",
            s.store.dir().display()
        ),
        Ok(false) => {}
        Err(e) => {
            tracing::warn!("{e}");
            return false;
        }
    }
    let store = s.store.waiting(crate::store::lock::Waiting::No);
    match crate::update::ingest(roots, &store, &s.prices, &Silent, s.clock.now()) {
        Ok(o) => o.changed,
        // Another writer holds the lock (say, a suspended ingest): this
        // refresh reads nothing, the next one tries again.
        Err(IngestError::NoRoots { .. } | IngestError::Store(crate::store::StoreError::Locked { .. })) => false,
        Err(e) => {
            tracing::warn!("ingest failed: {e}");
            false
        }
    }
}
