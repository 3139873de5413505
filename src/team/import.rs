//! Import: validated bundles -> a team data directory. Every bundle is read
//! and checked before the store is touched; then, under the store's lock,
//! the stored requests and the bundles' rows go through `ingest::store_rows`,
//! whose dedup keys on (user, message id, request id): importing a bundle
//! twice, or overlapping exports of one person, counts each request once,
//! while the same message id under two users stays with both (and is
//! flagged). A ledger (`team-bundles.json`) marks the directory as holding
//! bundles and records who sent what from which machine.

use super::bundle::{read_bundle_limited, Bundle};
use super::export::write_atomic;
use super::limits::BundleLimits;
use super::TeamError;
use crate::ingest::store_rows_with_calls;
use crate::model::{Compaction, Request};
use crate::pricing::PriceTable;
use crate::store::manifest::STORE_SCHEMA;
use crate::store::{frames, Store, Table};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The ledger file: its presence marks a data directory holding bundles.
pub const LEDGER: &str = "team-bundles.json";

/// How many shared message ids an outcome lists by name.
const SHARED_EXAMPLES: usize = 5;

/// A bundle and where it came from (a path, or `upload`).
#[derive(Debug, Clone)]
pub struct Incoming {
    pub origin: String,
    pub bundle: Bundle,
}

/// One bundle of an import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleSummary {
    pub origin: String,
    pub user: String,
    pub machine: String,
    pub requests: usize,
    pub compactions: usize,
    /// Requests of this bundle that were new to the store (and to the
    /// bundles before it in the same import).
    pub added: usize,
}

/// A message id stored under more than one user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedMessage {
    pub message_id: String,
    pub users: Vec<String>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportOutcome {
    pub bundles: Vec<BundleSummary>,
    /// Request rows received.
    pub received: usize,
    pub requests_before: usize,
    pub requests_after: usize,
    /// New requests: `requests_after - requests_before` (for one upload of
    /// a server batch, its own bundle's new requests).
    pub added: usize,
    /// Received rows that were already stored (or repeated among the bundles).
    pub already_present: usize,
    /// Message ids kept under more than one user, in the whole store.
    pub shared_message_ids: usize,
    /// The first few of them.
    pub shared_examples: Vec<SharedMessage>,
    pub unknown_models: Vec<String>,
}

/// What the ledger keeps per `user@machine`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub bundles: u64,
    pub last_import: String,
    pub last_created: String,
    pub hashed_paths: bool,
}

/// True when the data directory holds imported bundles.
pub fn holds_bundles(store: &Store) -> bool {
    store.dir().join(LEDGER).exists()
}

/// Marks the data directory as a team directory (an empty ledger) before
/// any bundle arrives, so no writer reads local transcripts into it
/// meanwhile (`serve --team` calls it at start).
pub fn mark_team_dir(store: &Store) -> Result<(), TeamError> {
    if holds_bundles(store) {
        return Ok(());
    }
    if store.load(Table::Requests, frames::requests_from)?.iter().any(|r| r.user.is_empty()) {
        return Err(TeamError::LocalStore { dir: store.dir().to_path_buf() });
    }
    write_atomic(&store.dir().join(LEDGER), b"{}")
}

/// Reads and validates every file (directories: their `*.parquet`, sorted)
/// under the default `BundleLimits`. The first bad file stops it, before
/// anything is written.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Incoming>, TeamError> {
    read_inputs_limited(paths, &BundleLimits::default())
}

/// `read_inputs` with caps on what each bundle may expand to.
pub fn read_inputs_limited(paths: &[PathBuf], limits: &BundleLimits) -> Result<Vec<Incoming>, TeamError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let found = bundle_files(p)?;
            if found.is_empty() {
                return Err(TeamError::NoBundles { path: p.clone() });
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    files
        .into_iter()
        .map(|f| {
            let bytes = fs::read(&f).map_err(|source| TeamError::Io { path: f.clone(), source })?;
            let origin = f.display().to_string();
            Ok(Incoming { bundle: read_bundle_limited(&bytes, &origin, limits)?, origin })
        })
        .collect()
}

fn bundle_files(dir: &Path) -> Result<Vec<PathBuf>, TeamError> {
    let io = |source| TeamError::Io { path: dir.to_path_buf(), source };
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "parquet") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Merges bundles into the store. Validation failures change nothing.
pub fn import(
    store: &Store,
    incoming: &[Incoming],
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> Result<ImportOutcome, TeamError> {
    for i in incoming {
        if i.bundle.requests.iter().any(|r| r.user.is_empty()) || i.bundle.iterations.iter().any(|c| c.user.is_empty())
        {
            let why = "its rows name no user (export with --user NAME)".to_owned();
            return Err(TeamError::NotABundle { origin: i.origin.clone(), why });
        }
    }
    let _lock = store.lock()?;
    let stored = store.load(Table::Requests, frames::requests_from)?;
    if !holds_bundles(store) && stored.iter().any(|r| r.user.is_empty()) {
        return Err(TeamError::LocalStore { dir: store.dir().to_path_buf() });
    }
    let mut compactions = store.load(Table::Compactions, frames::compactions_from)?;
    let titles = store.load(Table::Titles, frames::titles_from)?;
    let mut calls = store.load(Table::Iterations, frames::iterations_from)?;
    let requests_before = stored.len();
    let bundles = summaries(&stored, incoming);
    let mut lines = stored;
    let mut received = 0;
    for i in incoming {
        received += i.bundle.requests.len();
        lines.extend(i.bundle.requests.iter().cloned());
        // A bundle's compactions are its user's (cache threads are per user).
        compactions
            .extend(i.bundle.compactions.iter().map(|c| Compaction { user: i.bundle.meta.user.clone(), ..c.clone() }));
        calls.extend(i.bundle.iterations.iter().cloned());
    }
    let shared = shared_message_ids(&lines);
    let (requests_after, unknown) = store_rows_with_calls(store, lines, calls, compactions, titles, prices)?;
    record(store, incoming, now)?;
    Ok(ImportOutcome {
        bundles,
        received,
        requests_before,
        requests_after,
        added: requests_after.saturating_sub(requests_before),
        already_present: received.saturating_sub(requests_after.saturating_sub(requests_before)),
        shared_message_ids: shared.len(),
        shared_examples: shared.into_iter().take(SHARED_EXAMPLES).collect(),
        unknown_models: unknown.into_keys().collect(),
    })
}

fn summary(i: &Incoming) -> BundleSummary {
    let b = &i.bundle;
    BundleSummary {
        origin: i.origin.clone(),
        user: b.requests.first().map_or_else(|| b.meta.user.to_string(), |r| r.user.to_string()),
        machine: b.meta.machine.clone(),
        requests: b.requests.len(),
        compactions: b.compactions.len(),
        added: 0,
    }
}

fn request_key(r: &Request) -> (&str, &str, &str) {
    (&r.user, &r.message_id, &r.request_id)
}

/// Each bundle's summary, counting the request keys it brings that neither
/// the store nor an earlier bundle had.
fn summaries(stored: &[Request], incoming: &[Incoming]) -> Vec<BundleSummary> {
    let mut known: HashSet<(&str, &str, &str)> = stored.iter().map(request_key).collect();
    incoming
        .iter()
        .map(|i| {
            let added = i.bundle.requests.iter().filter(|r| known.insert(request_key(r))).count();
            BundleSummary { added, ..summary(i) }
        })
        .collect()
}

/// Message ids that appear under more than one user, by id.
pub fn shared_message_ids(requests: &[Request]) -> Vec<SharedMessage> {
    let mut users: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in requests {
        users.entry(r.message_id.as_str()).or_default().insert(r.user.as_str());
    }
    users
        .into_iter()
        .filter(|(_, u)| u.len() > 1)
        .map(|(m, u)| SharedMessage { message_id: m.to_owned(), users: u.into_iter().map(str::to_owned).collect() })
        .collect()
}

/// Updates the ledger and the manifest's freshness after a merge.
fn record(store: &Store, incoming: &[Incoming], now: DateTime<Utc>) -> Result<(), TeamError> {
    let path = store.dir().join(LEDGER);
    let mut ledger: BTreeMap<String, LedgerEntry> = match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(source) => return Err(TeamError::Io { path, source }),
    };
    let stamp = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    for i in incoming {
        let s = summary(i);
        let e = ledger.entry(format!("{}@{}", s.user, s.machine)).or_default();
        e.bundles += 1;
        e.last_import.clone_from(&stamp);
        e.last_created.clone_from(&i.bundle.meta.created);
        e.hashed_paths = i.bundle.meta.hashed_paths;
    }
    let bytes = serde_json::to_vec_pretty(&ledger).unwrap_or_default();
    write_atomic(&path, &bytes)?;
    let mut m = store.manifest()?;
    m.schema = STORE_SCHEMA;
    m.updated = Some(now.to_rfc3339());
    store.save_manifest(&m)?;
    Ok(())
}
