//! The push server's side: `accept_bundle` (axum-free: bearer token ->
//! user, size limit, validate, import with the token's user on every row)
//! and `router`, a standalone axum router for `POST /api/v1/bundles` that
//! `serve --team` serves alone on its listener (no dashboard there). The
//! token is checked before a byte of the body is read (401); bodies over
//! the limit get 413, and so do bundles that would expand past the
//! `BundleLimits`; a body that ends early, or a bundle that fails
//! validation, is refused before the store is touched, so a failed upload
//! changes nothing. Answers with the `ImportOutcome` as JSON.

use super::batch::Batcher;
use super::bundle::read_bundle_limited;
use super::import::{ImportOutcome, Incoming};
use super::limits::BundleLimits;
use super::tokens::TokenMap;
use super::TeamError;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::Store;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use polars::prelude::Column;
use std::sync::Arc;

/// Where bundles are posted.
pub const BUNDLES_PATH: &str = "/api/v1/bundles";

/// Default upload limit: 64 MiB (a year of one heavy user is a few MiB).
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// What the handler needs: the team store, the tokens, the prices imports
/// are priced with, the upload limit, and the group-commit queue.
#[derive(Debug, Clone)]
pub struct TeamState {
    pub store: Store,
    pub tokens: Arc<TokenMap>,
    pub prices: Arc<PriceTable>,
    pub max_bytes: usize,
    /// Caps on what one bundle may expand to (rows, decompressed bytes).
    pub limits: BundleLimits,
    batch: Arc<Batcher>,
}

impl TeamState {
    /// The state of a team server over `store`; uploads over `max_bytes`
    /// (e.g. `DEFAULT_MAX_BYTES`) get 413.
    pub fn new(store: Store, tokens: TokenMap, prices: PriceTable, max_bytes: usize) -> TeamState {
        TeamState {
            store,
            tokens: Arc::new(tokens),
            prices: Arc::new(prices),
            max_bytes,
            limits: BundleLimits::default(),
            batch: Arc::new(Batcher::default()),
        }
    }

    /// The same state with other bundle caps (413 past them).
    pub fn with_limits(self, limits: BundleLimits) -> TeamState {
        TeamState { limits, ..self }
    }
}

/// Authorises, validates and imports one uploaded bundle (with any others
/// that arrive meanwhile). The token's user replaces whatever user the
/// bundle names; the reply names no other member.
pub fn accept_bundle(
    state: &TeamState,
    authorization: Option<&str>,
    bytes: &[u8],
    now: DateTime<Utc>,
) -> Result<ImportOutcome, TeamError> {
    let user = state.tokens.authorize(authorization)?.to_owned();
    if bytes.len() > state.max_bytes {
        return Err(TeamError::TooLarge { size: bytes.len(), limit: state.max_bytes });
    }
    let mut bundle = read_bundle_limited(bytes, "upload", &state.limits)?;
    for r in &mut bundle.requests {
        r.user = user.as_str().into();
    }
    for i in &mut bundle.iterations {
        i.user = user.as_str().into();
    }
    for c in &mut bundle.compactions {
        c.user.clone_from(&user);
    }
    if let Some(a) = &mut bundle.analysis {
        let n = a.rows.height();
        let named = Column::new(c::USER.into(), vec![user.as_str(); n]);
        a.rows.with_column(named).map_err(|source| TeamError::Polars { what: "reading the upload", source })?;
    }
    bundle.meta.user = user;
    let mut outcome =
        state.batch.submit(&state.store, &state.prices, Incoming { origin: "upload".into(), bundle }, now)?;
    // A pusher learns nothing about other members: no names of whoever
    // shares a message id with someone (the count stays).
    outcome.shared_examples.clear();
    Ok(outcome)
}

/// The HTTP status of a team error.
pub fn status_of(e: &TeamError) -> u16 {
    match e {
        TeamError::Unauthorized => 401,
        TeamError::TooLarge { .. } | TeamError::OverLimit { .. } => 413,
        TeamError::NewerSchema { .. } => 422,
        TeamError::NotParquet { .. } | TeamError::NotABundle { .. } | TeamError::Damaged { .. } => 400,
        _ => 500,
    }
}

/// `POST /api/v1/bundles` and nothing else (any other path is a JSON 404),
/// with its own state and the dashboard's security headers on every reply.
pub fn router(state: TeamState) -> Router {
    let limit = state.max_bytes;
    Router::new()
        .route(BUNDLES_PATH, post(upload))
        .fallback(|| async { error(404, "not found: this address only accepts POST /api/v1/bundles".into()) })
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::from_fn(crate::web::security::headers))
        .with_state(state)
}

fn error(status: u16, message: String) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(serde_json::json!({ "error": message }))).into_response()
}

fn team_error(e: &TeamError) -> Response {
    if status_of(e) >= 500 {
        tracing::error!("bundle upload failed: {e}");
    }
    error(status_of(e), e.to_string())
}

async fn upload(State(state): State<TeamState>, req: Request) -> Response {
    let auth = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Err(e) = state.tokens.authorize(auth.as_deref()) {
        return team_error(&e);
    }
    let bytes = match Bytes::from_request(req, &state).await {
        Ok(b) => b,
        Err(rejection) => return error(rejection.status().as_u16(), rejection.body_text()),
    };
    let job = tokio::task::spawn_blocking(move || accept_bundle(&state, auth.as_deref(), &bytes, Utc::now()));
    match job.await {
        Ok(Ok(outcome)) => (StatusCode::OK, Json(outcome)).into_response(),
        Ok(Err(e)) => team_error(&e),
        Err(e) => error(500, format!("import task failed: {e}")),
    }
}
