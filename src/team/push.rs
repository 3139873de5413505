//! `cachewise push`: export the rows this server has not acknowledged yet
//! and POST them to `/api/v1/bundles` with a bearer token. The watermark is
//! in ingest order, not event time: the client keeps, per server, a key of
//! every row the server acknowledged (`push-sent/`, 8 bytes a row), so a
//! row that reaches the store later with an older timestamp (a transcript
//! copied in, a late sub-agent file) is still sent, and a request whose
//! figures changed since (a response still growing) is sent again. Keys
//! are added only after the server said 200; the server's import
//! deduplicates, so a retry or `--all` never double counts. `push-state.json`
//! records the last push per server. Also `plain_http_warning` (the token
//! must not travel in clear).

use super::accept::BUNDLES_PATH;
use super::bundle::{bundle_bytes, hex};
use super::export::{export_renamed, write_atomic, ExportSpec};
use super::import::ImportOutcome;
use super::TeamError;
use crate::store::Store;
use axum::http::Uri;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The watermark file in the data directory.
pub const STATE_FILE: &str = "push-state.json";

/// The directory of acknowledged row keys, one file per server.
pub use crate::store::files::PUSH_SENT as SENT_DIR;

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
    /// Rows at or after this time were considered (None: all).
    pub since: Option<DateTime<Utc>>,
    /// Rows the server had already acknowledged, not sent again.
    pub skipped: usize,
    pub requests: usize,
    pub compactions: usize,
    pub bytes: usize,
    /// The server's answer; None when there was nothing to send.
    pub server: Option<ImportOutcome>,
    /// What the export changed in names so the server accepts them
    /// (`team::names`), in words; None when nothing changed.
    pub renamed: Option<String>,
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

/// Exports what `server` has not acknowledged and uploads it; `all`
/// sends every row again (still idempotent).
pub fn push(store: &Store, server: &str, token: &str, spec: ExportSpec, all: bool) -> Result<PushOutcome, TeamError> {
    let mut marks = load_marks(store)?;
    let sent_path = sent_path(store, server);
    let mut sent = if all { HashSet::new() } else { load_sent(&sent_path)? };
    let super::export::Exported { mut bundle, renamed } = export_renamed(store, &spec)?;
    let before = bundle.requests.len() + bundle.compactions.len();
    let req_keys: Vec<u64> = bundle.requests.iter().map(row_key).collect();
    let comp_keys: Vec<u64> = bundle.compactions.iter().map(row_key).collect();
    let mut keep = req_keys.iter().map(|k| !sent.contains(k));
    bundle.requests.retain(|_| keep.next().unwrap_or(true));
    let mut keep = comp_keys.iter().map(|k| !sent.contains(k));
    bundle.compactions.retain(|_| keep.next().unwrap_or(true));
    let mut out = PushOutcome {
        since: spec.since,
        skipped: before - bundle.requests.len() - bundle.compactions.len(),
        requests: bundle.requests.len(),
        compactions: bundle.compactions.len(),
        bytes: 0,
        server: None,
        renamed: renamed.describe(),
    };
    if bundle.requests.is_empty() && bundle.compactions.is_empty() {
        return Ok(out);
    }
    let bytes = bundle_bytes(&bundle)?;
    out.bytes = bytes.len();
    out.server = Some(upload(server, token, &bytes)?);
    sent.extend(req_keys.into_iter().chain(comp_keys));
    save_sent(&sent_path, &sent)?;
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

/// A row's key: the first 8 bytes of the SHA-256 of its JSON, so any
/// change to the row (a response that grew) makes it new again.
fn row_key<T: Serialize>(row: &T) -> u64 {
    let json = serde_json::to_vec(row).unwrap_or_default();
    let d = Sha256::digest(&json);
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

fn sent_path(store: &Store, server: &str) -> PathBuf {
    let d = Sha256::digest(server.trim_end_matches('/').as_bytes());
    store.dir().join(SENT_DIR).join(format!("{}.keys", hex(&d[..8])))
}

fn load_sent(path: &Path) -> Result<HashSet<u64>, TeamError> {
    crate::store::files::read_key_set(path).map_err(|source| TeamError::Io { path: path.to_path_buf(), source })
}

fn save_sent(path: &Path, sent: &HashSet<u64>) -> Result<(), TeamError> {
    crate::store::files::write_key_set(path, sent).map_err(|source| TeamError::Io { path: path.to_path_buf(), source })
}

/// Why sending a token to `server` is unsafe, if it is: anything but
/// https, except plain http to a real loopback host (a 127.0.0.0/8 or ::1
/// literal, or `localhost`). The URL is parsed as a client would connect
/// (`http://127.0.0.1@evil.example/` goes to evil.example).
pub fn plain_http_warning(server: &str) -> Option<String> {
    let uri: Result<Uri, _> = server.trim().parse();
    let safe = uri.is_ok_and(|u| match u.scheme_str().map(str::to_ascii_lowercase).as_deref() {
        Some("https") => true,
        Some("http") => u.host().is_some_and(is_loopback_host),
        _ => false,
    });
    (!safe).then(|| {
        format!("{server} is not https: the token travels unencrypted; put the server behind TLS (https://...)")
    })
}

fn is_loopback_host(host: &str) -> bool {
    let h = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    h.eq_ignore_ascii_case("localhost") || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
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

#[cfg(test)]
mod tests {
    use super::plain_http_warning;

    #[test]
    fn plain_http_warns_unless_the_host_is_really_loopback() {
        for warn in [
            "http://127.evil.example",
            "http://127.0.0.1@evil.example/",
            "HTTP://evil.example",
            "http://127.0.0.1.nip.io",
            "http://localhost.evil.example:80",
            "http://[::2]:8080",
            "ftp://127.0.0.1/",
            "not a url",
        ] {
            assert!(plain_http_warning(warn).is_some(), "{warn}");
        }
        for quiet in [
            "https://team.example",
            "HTTPS://team.example/",
            "http://127.0.0.1:7878",
            "http://127.9.9.9/",
            "http://LOCALHOST:1",
            "http://[::1]:7878/",
        ] {
            assert_eq!(plain_http_warning(quiet), None, "{quiet}");
        }
    }
}
