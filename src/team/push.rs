//! `cachewise push`: export the rows since the last successful push to this
//! server (less an hour of overlap, for responses still growing then) and
//! POST them to `/api/v1/bundles` with a bearer token. Idempotent because
//! the server's import deduplicates, so a retry or an overlap never double
//! counts. The watermark per server lives in the data directory
//! (`push-state.json`) and moves only after the server said 200.

use super::bundle::bundle_bytes;
use super::export::{export, write_atomic, ExportSpec};
use super::import::ImportOutcome;
use super::server::BUNDLES_PATH;
use super::TeamError;
use crate::store::Store;
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The watermark file in the data directory.
pub const STATE_FILE: &str = "push-state.json";

/// Rows this much older than the watermark are sent again.
pub const OVERLAP: TimeDelta = TimeDelta::hours(1);

/// What the client remembers about one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerMark {
    /// Time of the newest request the server has acknowledged.
    pub pushed_until: DateTime<Utc>,
    /// RFC 3339 time of the last successful push.
    pub last_push: String,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PushOutcome {
    /// Rows at or after this time were sent (None: all).
    pub since: Option<DateTime<Utc>>,
    pub requests: usize,
    pub compactions: usize,
    pub bytes: usize,
    /// The server's answer; None when there was nothing to send.
    pub server: Option<ImportOutcome>,
}

fn state_path(store: &Store) -> std::path::PathBuf {
    store.dir().join(STATE_FILE)
}

/// The watermarks of every server pushed to.
pub fn load_marks(store: &Store) -> Result<BTreeMap<String, ServerMark>, TeamError> {
    let path = state_path(store);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| TeamError::Io { path, source: std::io::Error::new(std::io::ErrorKind::InvalidData, e) }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(source) => Err(TeamError::Io { path, source }),
    }
}

/// Exports what is new for `server` and uploads it; `all` ignores the
/// watermark (still idempotent).
pub fn push(
    store: &Store,
    server: &str,
    token: &str,
    mut spec: ExportSpec,
    all: bool,
) -> Result<PushOutcome, TeamError> {
    let mut marks = load_marks(store)?;
    if !all {
        if let Some(m) = marks.get(server) {
            let from = m.pushed_until - OVERLAP;
            spec.since = Some(spec.since.map_or(from, |s| s.max(from)));
        }
    }
    let bundle = export(store, &spec)?;
    let mut out = PushOutcome {
        since: spec.since,
        requests: bundle.requests.len(),
        compactions: bundle.compactions.len(),
        bytes: 0,
        server: None,
    };
    if bundle.requests.is_empty() && bundle.compactions.is_empty() {
        return Ok(out);
    }
    let bytes = bundle_bytes(&bundle)?;
    out.bytes = bytes.len();
    out.server = Some(upload(server, token, &bytes)?);
    let newest = bundle.requests.iter().map(|r| r.time).max();
    let previous = marks.get(server).map(|m| m.pushed_until);
    if let Some(until) = newest.max(previous) {
        let last_push = spec.created.to_rfc3339_opts(SecondsFormat::Secs, true);
        marks.insert(server.to_owned(), ServerMark { pushed_until: until, last_push });
        let bytes = serde_json::to_vec_pretty(&marks).unwrap_or_default();
        write_atomic(&state_path(store), &bytes)?;
    }
    Ok(out)
}

/// POSTs bundle bytes to `server` (a base URL); the server's outcome on 200.
pub fn upload(server: &str, token: &str, bytes: &[u8]) -> Result<ImportOutcome, TeamError> {
    let url = format!("{}{BUNDLES_PATH}", server.trim_end_matches('/'));
    let fail = |why: String| TeamError::Push { url: url.clone(), why };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(300)))
        .build()
        .into();
    let mut resp = agent
        .post(&url)
        .header("authorization", &format!("Bearer {token}"))
        .header("content-type", "application/vnd.apache.parquet")
        .send(bytes)
        .map_err(|e| fail(e.to_string()))?;
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().map_err(|e| fail(e.to_string()))?;
    if status != 200 {
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
            .unwrap_or(text);
        return Err(fail(format!("HTTP {status}: {message}")));
    }
    serde_json::from_str(&text).map_err(|e| fail(format!("unreadable answer: {e}")))
}
