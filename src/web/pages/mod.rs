//! One module per page: an askama page struct (typed, formatted by the
//! template through `view::Formats`) and a thin handler that extracts its
//! parameters, calls one `report::`/`analyze::` function (CPU work in
//! `spawn_blocking`) and renders.

pub mod cache;
pub mod days;
pub mod groups;
pub mod overview;
pub mod periods;
pub mod session;
pub mod sessions;
pub mod team;

use super::error::WebError;
use super::params::Params;
use super::range::Range;
use super::snapshot::{Reports, Snapshot};
use super::state::AppState;
use crate::report::query::Query;
use std::sync::Arc;

/// Permits to run a request's CPU-bound work: one per core. Twenty
/// connections asking at once then queue for a core instead of all
/// building their pages together (each with its own working memory), which
/// set the server's peak memory and gained no throughput.
static CORES: std::sync::LazyLock<tokio::sync::Semaphore> = std::sync::LazyLock::new(|| {
    tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get))
});

/// Runs CPU-bound work off the async threads, a core's worth at a time.
pub async fn blocking<T, F>(f: F) -> Result<T, WebError>
where
    F: FnOnce() -> Result<T, WebError> + Send + 'static,
    T: Send + 'static,
{
    let _permit = CORES.acquire().await.map_err(|e| WebError::Internal(e.to_string()))?;
    tokio::task::spawn_blocking(f).await?
}

/// A `/session/{id}` link that survives any id.
pub fn session_href(id: &str) -> String {
    format!("/session/{}", super::params::encode(id))
}

/// The current snapshot and its reports for the page's person, days and
/// project (built off the async threads the first time they are asked for).
pub async fn reports(state: &AppState, params: &Params) -> Result<(Arc<Snapshot>, Arc<Reports>), WebError> {
    let snap = state.snapshot();
    let q = Query { breakdown: false, ..params.usage_query(snap.tz, state.settings().week_start)? };
    let s = Arc::clone(&snap);
    let r = blocking(move || Ok(s.reports_for(&q)?)).await?;
    Ok((snap, r))
}

/// The page's days, checked, as of the snapshot's clock.
pub fn range(state: &AppState, snap: &Snapshot, params: &Params) -> Result<Range, WebError> {
    Range::of(params, snap.now().with_timezone(&snap.tz).date_naive(), state.settings().week_start)
}

/// The snapshot's reports over everyone (the lists of models and
/// sessions a page offers whatever its filter). Blocking.
pub fn everyone(snap: &Snapshot) -> Result<Arc<Reports>, WebError> {
    Ok(snap.all()?)
}
