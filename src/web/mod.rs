//! The dashboard: `app(state)` is the axum router (pages, JSON API,
//! hashed static assets, security headers) over an `AppState` whose
//! `Snapshot` the server's refresh task (`refresh`) swaps when transcripts
//! change. `web/templates/` holds the askama templates and `web/static/` the
//! CSS and JS, all compiled in; this module holds the Rust that serves them.
//! Every figure comes from the `report::` and `analyze::` functions the CLI
//! calls.

pub mod api;
pub mod assets;
pub mod demo;
pub mod error;
pub mod events;
pub mod host;
pub mod layout;
pub mod pages;
pub mod params;
pub mod push;
pub mod range;
pub mod refresh;
pub mod security;
pub mod snapshot;
pub mod state;
pub mod view;

pub use error::WebError;
pub use state::{AppState, Clock, Settings};

use axum::middleware;
use axum::routing::get;
use axum::Router;

/// The router: every route of the dashboard's contract.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", get(pages::overview::page))
        .route("/sessions", get(pages::sessions::page))
        .route("/session/{id}", get(pages::session::page))
        .route("/days", get(pages::days::days))
        .route("/day/{date}", get(pages::days::day))
        .route("/cache", get(pages::cache::page))
        .route("/projects", get(pages::groups::projects))
        .route("/models", get(pages::groups::models))
        .route("/team", get(pages::team::page))
        .route("/api/daily", get(api::daily))
        .route("/api/sessions", get(api::sessions))
        .route("/api/projects", get(api::projects))
        .route("/api/models", get(api::models))
        .route("/api/session/{id}", get(api::session))
        .route("/api/cache", get(api::cache_api))
        .route("/api/team", get(api::team))
        .route("/api/team.csv", get(api::team_csv))
        .route("/api/team.md", get(api::team_md))
        .route("/api/advise/{id}", get(api::advise))
        .route("/events", get(events::events))
        .route("/static/{name}", get(assets::serve))
        .fallback(not_found)
        .layer(middleware::from_fn(security::headers))
        .with_state(state)
}

async fn not_found(uri: axum::http::Uri) -> WebError {
    WebError::NotFound(format!("page {}", uri.path()))
}
