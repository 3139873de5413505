//! The push server: `POST /api/v1/bundles` and nothing else, the router
//! `serve --team` serves alone on its listener (no dashboard there). The
//! token is checked before a byte of the body is read (401), then the body
//! is read within the upload limit (413) and accepted by `update::accept`
//! (validated, then imported with the token's user on every row); the
//! reply is the import's outcome as JSON, or `{"error": ...}` with the
//! refusal's status.

use crate::update::{accept, status_of, PushError, PushState, BUNDLES_PATH};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use chrono::Utc;

/// `POST /api/v1/bundles` and nothing else (any other path is a JSON 404),
/// with its own state and the dashboard's security headers on every reply.
pub fn router(state: PushState) -> Router {
    let limit = state.max_bytes;
    Router::new()
        .route(BUNDLES_PATH, post(upload))
        .fallback(|| async { error(404, "not found: this address only accepts POST /api/v1/bundles".into()) })
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::from_fn(super::security::headers))
        .with_state(state)
}

fn error(status: u16, message: String) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(serde_json::json!({ "error": message }))).into_response()
}

fn team_error(e: &PushError) -> Response {
    if status_of(e) >= 500 {
        tracing::error!("bundle upload failed: {e}");
    }
    error(status_of(e), e.to_string())
}

async fn upload(State(state): State<PushState>, req: Request) -> Response {
    let auth = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Err(e) = state.tokens.authorize(auth.as_deref()) {
        return team_error(&e);
    }
    let bytes = match Bytes::from_request(req, &state).await {
        Ok(b) => b,
        Err(rejection) => return error(rejection.status().as_u16(), rejection.body_text()),
    };
    let job = tokio::task::spawn_blocking(move || accept(&state, auth.as_deref(), &bytes, Utc::now()));
    match job.await {
        Ok(Ok(outcome)) => (StatusCode::OK, Json(outcome)).into_response(),
        Ok(Err(e)) => team_error(&e),
        Err(e) => error(500, format!("import task failed: {e}")),
    }
}
