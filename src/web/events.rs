//! `GET /events?v=N`: server-sent events telling a page that the data
//! changed. The request is held until the snapshot's version differs from
//! `v` (then one `update` event naming the new version) or for `HOLD` (then
//! a comment); either way the response ends and the browser's EventSource
//! reconnects after `retry`, so no stream is kept open, a server that went
//! away is retried quietly, and shutdown never waits long.

use super::state::AppState;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::time::Duration;

/// Longest a request is held.
pub const HOLD: Duration = Duration::from_secs(15);
/// How often the version is looked at while holding.
const STEP: Duration = Duration::from_millis(200);
/// What the browser waits before reconnecting, in milliseconds.
const RETRY_MS: u32 = 2000;

/// `?v=`: the version the page was built from. An empty value (`?v=`) is
/// no version, as a missing one is; anything else must be a number.
#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    #[serde(default, deserialize_with = "version")]
    pub v: Option<u64>,
}

fn version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let text: Option<String> = Option::deserialize(d)?;
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => t.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// The event body for a change to `version`.
pub fn update_event(version: u64) -> String {
    format!("retry: {RETRY_MS}\nid: {version}\nevent: update\ndata: {version}\n\n")
}

/// `GET /events`.
pub async fn events(State(state): State<AppState>, Query(q): Query<EventsQuery>, headers: HeaderMap) -> Response {
    let last_id = headers.get("last-event-id").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    let known = q.v.or(last_id);
    let steps = (HOLD.as_millis() / STEP.as_millis()) as usize;
    let mut body = format!("retry: {RETRY_MS}\n: nothing new\n\n");
    for i in 0..=steps {
        let v = state.snapshot().version;
        if known != Some(v) {
            body = update_event(v);
            break;
        }
        if i < steps {
            tokio::time::sleep(STEP).await;
        }
    }
    ([(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}
