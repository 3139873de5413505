//! Import: validated bundles -> a team data directory. Every bundle is read
//! and checked before the store is touched; then, under the store's lock,
//! the bundles of people new to the store are merged into scratch stores of
//! their own (`ingest::merge::merge_tables`) and appended (`append`); when
//! the store already holds some of the bundles' people, or its costs came
//! from another price table, every person is written again that way, each
//! with their stored rows and new bundles (`people`). Both dedup on (user,
//! message id, request id):
//! importing a bundle twice, or overlapping exports of one person, counts
//! each request once, while the same message id under two users stays with
//! both (and is flagged). A ledger (`team-bundles.json`) marks the
//! directory as holding bundles and records who sent what from which
//! machine.

use super::bundle::Bundle;
use super::limits::BundleLimits;
use super::pending::{self, Pending};
use super::shared::shared_message_ids_stored;
pub use super::shared::SharedMessage;
use super::TeamError;
use crate::ingest::{Progress, Silent};
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::frames::Cols;
use crate::store::manifest::STORE_SCHEMA;
use crate::store::{Commit, Store};
use chrono::{DateTime, SecondsFormat, Utc};
use foldhash::{HashSet, HashSetExt};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The ledger file: its presence marks a data directory holding bundles.
pub use crate::store::files::LEDGER;

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
    store.holds_bundles()
}

/// Marks the data directory as a team directory (an empty ledger) before
/// any bundle arrives, so no writer reads local transcripts into it
/// meanwhile (`serve --team` calls it at start). An import calls it after
/// every file checked and before its first write: a refused import writes
/// nothing, and an interrupted first import leaves a team directory (the
/// same import run again completes it), never one a report would read
/// local transcripts into.
pub fn mark_team_dir(store: &Commit<'_>) -> Result<(), TeamError> {
    if holds_bundles(store) {
        return Ok(());
    }
    if stored_people(store)?.contains_key("") {
        return Err(TeamError::LocalStore { dir: store.dir().to_path_buf() });
    }
    Ok(store.write_ledger(b"{}")?)
}

/// The bundle files `paths` name (directories: their `*.parquet`, sorted).
fn input_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, TeamError> {
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
    Ok(files)
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

/// Merges decoded bundles (uploads) into the store. Validation failures
/// change nothing.
pub fn import(
    store: &Store,
    incoming: &[Incoming],
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> Result<ImportOutcome, TeamError> {
    let mut pending = incoming.iter().map(Pending::decoded).collect::<Result<Vec<_>, _>>()?;
    import_pending(store, &mut pending, prices, now, &Silent)
}

/// Reads, validates and imports bundle files (directories: their
/// `*.parquet`, sorted), holding one person's rows at a time, telling
/// `progress` of each bundle merged. The first bad file stops it, before
/// anything is written.
pub fn import_files(
    store: &Store,
    paths: &[PathBuf],
    limits: &BundleLimits,
    prices: &PriceTable,
    now: DateTime<Utc>,
    progress: &dyn Progress,
) -> Result<ImportOutcome, TeamError> {
    let clock = std::time::Instant::now();
    let files = input_files(paths)?;
    let limits = &limits.at(now);
    let mut pending = pending::footers(files.clone(), limits)?;
    tracing::debug!("import: read {} footer(s) in {:?}", pending.len(), clock.elapsed());
    let outcome = import_pending(store, &mut pending, prices, now, progress);
    progress.finish();
    match outcome {
        // People's lanes meet files out of order: the first bad one is named.
        Err(e) if pending::is_verdict(&e) => Err(pending::first_bad(&files, limits).err().unwrap_or(e)),
        r => r,
    }
}

/// People new to a store priced with this table are appended
/// (`people::append_people`: their bundles merged apart, the bundle's
/// analysis rows reused); bundles of people the store already holds, or a
/// store priced with another table, write every person again
/// (`people::rewrite_people`), each with their new bundles.
fn import_pending(
    store: &Store,
    pending: &mut [Pending<'_>],
    prices: &PriceTable,
    now: DateTime<Utc>,
    progress: &dyn Progress,
) -> Result<ImportOutcome, TeamError> {
    let commit = store.begin()?;
    let people = stored_people(store)?;
    if !holds_bundles(store) && people.contains_key("") {
        return Err(TeamError::LocalStore { dir: store.dir().to_path_buf() });
    }
    let requests_before = people.values().sum();
    // Merging a known person writes the store: their files are checked first.
    pending::check_known(pending, &people)?;
    let pending = &*pending;
    let mut by_user: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, p) in pending.iter().enumerate() {
        by_user.entry(p.meta.user.as_str()).or_default().push(k);
    }
    let known: BTreeSet<&str> = by_user.keys().copied().filter(|u| people.contains_key(*u)).collect();
    let stale = requests_before > 0 && !crate::store::priced_by(&store.manifest()?, prices);
    let stored = stored_keys(store, &known)?;
    let added = std::sync::Mutex::new(vec![0; pending.len()]);
    let bundles_of = |user: &str| {
        let Some(list) = by_user.get(user) else { return Ok(Vec::new()) };
        let bundles = list.iter().map(|&k| pending[k].bundle()).collect::<Result<Vec<_>, _>>()?;
        if let Ok(mut a) = added.lock() {
            count_added(&stored, list, &bundles, &mut a);
        }
        Ok(bundles)
    };
    let users: Vec<&str> = by_user.keys().copied().collect();
    let written = match known.is_empty() && !stale {
        true => super::people::append_people(&commit, prices, progress, &users, &bundles_of)?,
        false => Some(super::people::rewrite_people(&commit, prices, progress, &users, &bundles_of)?),
    };
    let added = added.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (unknown, requests_after) =
        written.map_or_else(|| (Vec::new(), requests_before), |w| (w.unknown.into_keys().collect(), w.requests));
    let shared = shared_message_ids_stored(store)?;
    record(commit, pending, prices.fingerprint(), now)?;
    let received = pending.iter().map(Pending::requests).sum();
    Ok(ImportOutcome {
        bundles: pending.iter().zip(&added).map(|(p, &added)| summary(p, added)).collect(),
        received,
        requests_before,
        requests_after,
        added: requests_after.saturating_sub(requests_before),
        already_present: received.saturating_sub(requests_after.saturating_sub(requests_before)),
        shared_message_ids: shared.0,
        shared_examples: shared.1,
        unknown_models: unknown,
    })
}

/// For each bundle (`list` indexes `added`), the request keys it brings
/// that neither the store nor an earlier bundle had.
fn count_added(stored: &HashSet<RequestKey>, list: &[usize], bundles: &[Cow<'_, Bundle>], added: &mut [usize]) {
    let mut seen: HashSet<(&str, &str, &str)> = HashSet::new();
    for (&k, b) in list.iter().zip(bundles) {
        added[k] = b
            .requests
            .iter()
            .filter(|r| {
                let key = (r.user.as_str(), r.message_id.as_str(), r.request_id.as_str());
                let is_stored =
                    !stored.is_empty() && stored.contains(&(key.0.to_owned(), key.1.to_owned(), key.2.to_owned()));
                !is_stored && seen.insert(key)
            })
            .count();
    }
}

/// Requests per user in the store (the `user` column alone is read).
pub(super) fn stored_people(store: &Store) -> Result<BTreeMap<String, usize>, TeamError> {
    let Some(df) = store.read_request_columns(&[c::USER])? else { return Ok(BTreeMap::new()) };
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    let users = Cols(&df).str(c::USER).map_err(|source| TeamError::Polars { what: "reading users", source })?;
    for u in users {
        *out.entry(u.to_owned()).or_default() += 1;
    }
    Ok(out)
}

type RequestKey = (String, String, String);

/// The stored request keys of `users`.
fn stored_keys(store: &Store, users: &BTreeSet<&str>) -> Result<HashSet<RequestKey>, TeamError> {
    if users.is_empty() {
        return Ok(HashSet::new());
    }
    let Some(df) = store.read_request_columns(&[c::USER, c::MESSAGE_ID, c::REQUEST_ID])? else {
        return Ok(HashSet::new());
    };
    let polars = |source| TeamError::Polars { what: "reading request keys", source };
    let k = Cols(&df);
    let (u, m, r) =
        (k.str(c::USER).map_err(polars)?, k.str(c::MESSAGE_ID).map_err(polars)?, k.str(c::REQUEST_ID).map_err(polars)?);
    Ok((0..df.height())
        .filter(|&i| users.contains(u[i]))
        .map(|i| (u[i].to_owned(), m[i].to_owned(), r[i].to_owned()))
        .collect())
}

fn summary(p: &Pending<'_>, added: usize) -> BundleSummary {
    BundleSummary {
        origin: p.origin.clone(),
        user: p.meta.user.clone(),
        machine: p.meta.machine.clone(),
        requests: p.requests(),
        compactions: p.compactions(),
        added,
    }
}

/// Updates the ledger, the manifest's freshness and its `pricing` after a merge.
fn record(commit: Commit<'_>, pending: &[Pending<'_>], pricing: u64, now: DateTime<Utc>) -> Result<(), TeamError> {
    let path = commit.dir().join(LEDGER);
    let mut ledger: BTreeMap<String, LedgerEntry> = match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(source) => return Err(TeamError::Io { path, source }),
    };
    let stamp = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    for p in pending {
        let e = ledger.entry(format!("{}@{}", p.meta.user, p.meta.machine)).or_default();
        e.bundles += 1;
        e.last_import.clone_from(&stamp);
        e.last_created.clone_from(&p.meta.created);
        e.hashed_paths = p.meta.hashed_paths;
    }
    let bytes = serde_json::to_vec_pretty(&ledger).unwrap_or_default();
    commit.write_ledger(&bytes)?;
    let mut m = commit.manifest()?;
    m.schema = STORE_SCHEMA;
    m.pricing = pricing;
    m.updated = Some(now.to_rfc3339());
    commit.finish(&m)?;
    Ok(())
}
