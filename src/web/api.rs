//! The JSON API: the CLI's shapes from the same functions. `/api/daily` and
//! `/api/sessions` are `report daily|session --json` (`since`, `until`,
//! `project`, `breakdown`); `/api/cache` is the cache model's summary;
//! `/api/session/{id}` a session's usage row, cache figures and timeline;
//! `/api/advise/{id}` the advice (`turns`).

use super::error::{ApiError, WebError};
use super::pages::blocking;
use super::params::ApiParams;
use super::snapshot::Snapshot;
use super::state::AppState;
use crate::analyze;
use crate::report::query::Grouping;
use crate::report::render::usage_json;
use crate::report::timeline::session_timeline;
use crate::report::usage::{UsageReport, UsageRow};
use axum::extract::{Path, State};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;

type Api = Result<Json<Value>, ApiError>;

async fn usage(state: AppState, g: Grouping, p: ApiParams) -> Api {
    let q = p.0.usage_query(state.settings().tz)?;
    let snap = state.snapshot();
    let r = blocking(move || {
        let set = state.settings();
        Ok(snap.usage(&set.store, g, &q, &set.prices)?)
    })
    .await?;
    Ok(Json(usage_json(&r)))
}

/// `GET /api/daily`: `cachewise report daily --json`.
pub async fn daily(State(state): State<AppState>, p: ApiParams) -> Api {
    usage(state, Grouping::Daily, p).await
}

/// `GET /api/sessions`: `cachewise report session --json`.
pub async fn sessions(State(state): State<AppState>, p: ApiParams) -> Api {
    usage(state, Grouping::Session, p).await
}

/// `GET /api/cache`: the cache summary.
pub async fn cache(State(state): State<AppState>) -> Api {
    let snap = state.snapshot();
    let v = serde_json::to_value(&snap.cache).map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(Json(v))
}

fn usage_row_json(row: &UsageRow) -> Value {
    let one = UsageReport { grouping: Grouping::Session, rows: vec![row.clone()], total: row.totals, unknown_models: Vec::new() };
    usage_json(&one)["rows"][0].clone()
}

fn session_json(snap: &Snapshot, id: &str) -> Result<Value, WebError> {
    let not_found = || WebError::NotFound(format!("session {id:?}"));
    let indices = snap.by_session.get(id).ok_or_else(not_found)?;
    let row = snap.sessions.rows.iter().find(|r| r.key == id).ok_or_else(not_found)?;
    let timeline = session_timeline(id, &snap.requests, &snap.caches, indices, &snap.compactions).ok_or_else(not_found)?;
    let cache = snap.cache.by_session.binary_search_by(|s| s.session_id.as_str().cmp(id)).ok().map(|i| &snap.cache.by_session[i]);
    let stale = snap.cache.stale.iter().find(|s| s.session_id == id);
    Ok(json!({ "usage": usage_row_json(row), "cache": cache, "stale": stale, "timeline": timeline }))
}

/// `GET /api/session/{id}`.
pub async fn session(State(state): State<AppState>, Path(id): Path<String>) -> Api {
    let snap: Arc<Snapshot> = state.snapshot();
    Ok(Json(blocking(move || session_json(&snap, &id)).await?))
}

/// `GET /api/advise/{id}?turns=`.
pub async fn advise(State(state): State<AppState>, Path(id): Path<String>, p: ApiParams) -> Api {
    let turns = p.0.turns()?;
    let snap = state.snapshot();
    let v = blocking(move || {
        let now = state.now();
        let a = analyze::advise(&id, &snap.requests, &snap.caches, &state.settings().prices, now, turns)
            .ok_or_else(|| WebError::NotFound(format!("session {id:?} (with a main thread)")))?;
        serde_json::to_value(&a).map_err(|e| WebError::Internal(e.to_string()))
    })
    .await?;
    Ok(Json(v))
}
