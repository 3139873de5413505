//! Keeps the dashboard current: every few seconds, an incremental ingest of
//! the transcript roots (unchanged files are not opened) and, when anything
//! changed, a new snapshot swapped in. The snapshot is also rebuilt once a
//! minute without new data, so stale sessions and "today" follow the clock.

use super::state::AppState;
use crate::ingest::{self, IngestError, Silent};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often transcripts are checked.
pub const POLL: Duration = Duration::from_secs(3);
/// Longest a snapshot is kept without new data.
pub const MAX_AGE: Duration = Duration::from_secs(60);

/// Ingests `roots` (if any) and rebuilds when needed, forever.
pub async fn keep_fresh(state: AppState, roots: Option<Vec<PathBuf>>) {
    let mut built = Instant::now();
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
        if !changed && built.elapsed() < MAX_AGE {
            continue;
        }
        let st = state.clone();
        match tokio::task::spawn_blocking(move || st.rebuild()).await {
            Ok(Ok(v)) => {
                built = Instant::now();
                if changed {
                    tracing::info!("transcripts changed; data version {v}");
                }
            }
            Ok(Err(e)) => tracing::error!("rebuilding the dashboard's data failed: {e}"),
            Err(e) => tracing::error!("rebuild task failed: {e}"),
        }
    }
}

/// One incremental ingest; true when the store changed. A data directory
/// that became a team directory while serving (bundles imported into it)
/// is left alone from then on, as the ingest policy (`cli::policy`) says.
fn ingest_once(state: &AppState, roots: &[PathBuf]) -> bool {
    let s = state.settings();
    if crate::team::holds_bundles(&s.store) {
        return false;
    }
    match ingest::ingest(roots, &s.store, &s.prices, &Silent, s.clock.now()) {
        Ok(o) => o.changed,
        Err(IngestError::NoRoots { .. }) => false,
        Err(e) => {
            tracing::warn!("ingest failed: {e}");
            false
        }
    }
}
