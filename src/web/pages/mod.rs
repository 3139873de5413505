//! One module per page: an askama page struct (typed, formatted by the
//! template through `view::Formats`) and a thin handler that extracts its
//! parameters, calls one `report::`/`analyze::` function (CPU work in
//! `spawn_blocking`) and renders.

pub mod cache;
pub mod days;
pub mod groups;
pub mod overview;
pub mod session;
pub mod sessions;

use super::error::WebError;

/// Runs CPU-bound work off the async threads.
pub async fn blocking<T, F>(f: F) -> Result<T, WebError>
where
    F: FnOnce() -> Result<T, WebError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(f).await?
}

/// A `/session/{id}` link that survives any id.
pub fn session_href(id: &str) -> String {
    format!("/session/{}", super::params::encode(id))
}
