//! The JSON API: the CLI's shapes from the same functions. `/api/daily`,
//! `/api/sessions`, `/api/projects` and `/api/models` are `report
//! daily|session|project|model --json` (`since`, `until`, `project`,
//! `user`, `breakdown`; `/api/daily` also `by=week|month`); `/api/cache` is `cache --json`;
//! `/api/team` is `report team --json`, `/api/team.csv` and `/api/team.md`
//! its `--csv` and `--md` as downloads; `/api/advise/{id}` is `advise ID
//! --json` (`turns`); `/api/session/{id}` a session's usage row, cache
//! figures and timeline.

use super::error::{ApiError, WebError};
use super::pages::blocking;
use super::params::{ApiParams, Params};
use super::range::By;
use super::snapshot::Snapshot;
use super::state::AppState;
use crate::report::cache::view::cache_report;
use crate::report::cache::{CacheQuery, CacheReport};
use crate::report::query::Grouping;
use crate::report::session::timeline::session_timeline;
use crate::report::team::{render as render_team, TeamFormat};
use crate::report::usage::render::usage_json;
use crate::report::usage::{UsageReport, UsageRow};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;

type Api = Result<Json<Value>, ApiError>;

/// A usage report as JSON bytes, serialised once per snapshot and query.
async fn usage(state: AppState, g: Grouping, p: ApiParams) -> Result<Response, ApiError> {
    let q = p.0.usage_query(state.settings().tz, state.settings().week_start)?;
    let snap = state.snapshot();
    let body = blocking(move || {
        let json = snap.usage_json(g, &q, |r| {
            serde_json::to_vec(&usage_json(r)).map(Bytes::from).map_err(|e| WebError::Internal(e.to_string()))
        })?;
        Ok::<Bytes, WebError>(json)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /api/daily`: `cachewise report daily --json`; with `by=week` or
/// `by=month`, `report weekly|monthly --json` (what `/days?by=` shows).
pub async fn daily(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    let by = By::parse(Params::text(&p.0.by).as_deref())?;
    usage(state, by.grouping(), p).await
}

/// `GET /api/projects`: `cachewise report project --json`.
pub async fn projects(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    usage(state, Grouping::Project, p).await
}

/// `GET /api/models`: `cachewise report model --json`.
pub async fn models(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    usage(state, Grouping::Model, p).await
}

/// `GET /api/sessions`: `cachewise report session --json`.
pub async fn sessions(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    usage(state, Grouping::Session, p).await
}

/// `GET /api/cache`: `cachewise cache --json --per-page N --page K`
/// (`since`, `until`, `project`, `user`, `session`, `page`, `per_page`:
/// 500 rows of each per-session list unless asked, at most 5,000), as of
/// the snapshot's clock. Each answer is serialised once per snapshot.
pub async fn cache_api(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    let q = p.0.usage_query(state.settings().tz, state.settings().week_start)?;
    let (page, per_page) = (p.0.page()?, p.0.cache_per_page()?);
    let session = Params::text(&p.0.session);
    let snap = state.snapshot();
    let body = blocking(move || {
        let bytes = |r: &CacheReport| {
            serde_json::to_vec(&r.page(page, per_page)).map(Bytes::from).map_err(|e| WebError::Internal(e.to_string()))
        };
        let session = session.map(|s| snap.view.resolve_session(&s)).transpose()?;
        snap.cache_json((q.clone(), session.clone(), page, per_page), || {
            if q.whole_history() && q.user.is_none() && session.is_none() {
                return bytes(&snap.all()?.cache);
            }
            bytes(&cache_report(&snap.view, &CacheQuery { query: q, session })?)
        })
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /api/team`: `cachewise report team --json` (`since`, `until`,
/// `project`, `user`), stale sessions as of the snapshot's clock.
pub async fn team(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    let q = p.0.usage_query(state.settings().tz, state.settings().week_start)?;
    let snap = state.snapshot();
    let body = blocking(move || {
        snap.team_json(&q, |r| serde_json::to_vec(r).map(Bytes::from).map_err(|e| WebError::Internal(e.to_string())))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /api/team.csv`: `cachewise report team --csv` (one row per person
/// per active day, with the vendor baseline), as a download.
pub async fn team_csv(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    team_download(state, p, TeamFormat::Csv, "text/csv; charset=utf-8", "cachewise-team.csv").await
}

/// `GET /api/team.md`: `cachewise report team --md`, as a download.
pub async fn team_md(State(state): State<AppState>, p: ApiParams) -> Result<Response, ApiError> {
    team_download(state, p, TeamFormat::Markdown, "text/markdown; charset=utf-8", "cachewise-team.md").await
}

async fn team_download(
    state: AppState,
    p: ApiParams,
    format: TeamFormat,
    kind: &'static str,
    file: &'static str,
) -> Result<Response, ApiError> {
    let q = p.0.usage_query(state.settings().tz, state.settings().week_start)?;
    let snap = state.snapshot();
    let body = blocking(move || Ok::<String, WebError>(render_team(&*snap.team(&q)?, format))).await?;
    let disposition = format!("attachment; filename=\"{file}\"");
    Ok(([(header::CONTENT_TYPE, kind.to_owned()), (header::CONTENT_DISPOSITION, disposition)], body).into_response())
}

fn usage_row_json(row: &UsageRow) -> Value {
    let one = UsageReport {
        rows: vec![row.clone()],
        total: row.totals,
        calls: row.calls.unwrap_or_default(),
        ..UsageReport::empty(Grouping::Session)
    };
    usage_json(&one)["rows"][0].clone()
}

fn session_json(snap: &Snapshot, text: &str) -> Result<Value, WebError> {
    let not_found = || WebError::NotFound(format!("session {text:?}"));
    let everyone = snap.all()?;
    // An exact id, else a unique prefix or a title.
    let id = match everyone.sessions.rows.iter().any(|r| r.key == text) {
        true => text.to_owned(),
        false => snap.view.resolve_session(text).map_err(|_| not_found())?,
    };
    let id = id.as_str();
    let row = everyone.sessions.rows.iter().find(|r| r.key == id).ok_or_else(not_found)?;
    let d = snap.session(id)?;
    let indices: Vec<usize> = (0..d.requests.len()).collect();
    let timeline = session_timeline(id, &d.requests, &d.caches, &indices, &d.compactions).ok_or_else(not_found)?;
    let all = &everyone.cache;
    let cache = all.by_session.binary_search_by(|s| s.session_id.as_str().cmp(id)).ok().map(|i| &all.by_session[i]);
    let stale = all.stale.iter().find(|s| s.session_id == id);
    Ok(json!({ "usage": usage_row_json(row), "cache": cache, "stale": stale, "timeline": timeline }))
}

/// `GET /api/session/{id}`.
pub async fn session(State(state): State<AppState>, Path(id): Path<String>) -> Api {
    let snap: Arc<Snapshot> = state.snapshot();
    Ok(Json(blocking(move || session_json(&snap, &id)).await?))
}

/// `GET /api/advise/{id}?turns=`: `cachewise advise ID --turns N --json`.
pub async fn advise(State(state): State<AppState>, Path(id): Path<String>, p: ApiParams) -> Api {
    let turns = p.0.turns()?;
    let snap = state.snapshot();
    let v = blocking(move || {
        // An exact id is taken as it is; other text is resolved (which
        // reads every session id).
        let id = match snap.all()?.session_row(&id) {
            Some(_) => id,
            None => snap.view.resolve_session(&id)?,
        };
        let a = snap.advise(&id, turns)?;
        serde_json::to_value(&a).map_err(|e| WebError::Internal(e.to_string()))
    })
    .await?;
    Ok(Json(v))
}
