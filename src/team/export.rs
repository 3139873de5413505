//! Export: a person's store -> a `Bundle` of their requests, the calls
//! inside them (call rows of the requests' kept lines) and compactions
//! (optionally since a time, optionally with hashed paths), labelled with
//! user and machine, and written atomically to a file; with the cache
//! model's rows of the same requests (`export_with_analysis`). Nothing but
//! the stored usage rows and their verdicts leaves: no titles, no message
//! content. Every name in a bundle keeps the rule import holds it to
//! (`team::names`), so a person's own export is never refused.

use super::analysis;
use super::bundle::{bundle_bytes, Bundle, BundleAnalysis, BundleMeta, BUNDLE_SCHEMA};
use super::hash::PathHasher;
use super::import::holds_bundles;
use super::names::{self, Renamed};
use super::TeamError;
use crate::materialize;
use crate::model::calls::{call_line_key, request_line_key};
use crate::pricing::PriceTable;
use crate::store::{frames, Store, Table};
use chrono::{DateTime, SecondsFormat, Utc};
use std::collections::HashSet;
use std::path::Path;

/// What to export.
#[derive(Debug, Clone)]
pub struct ExportSpec {
    pub user: String,
    pub machine: String,
    /// Only rows at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only rows before this instant.
    pub until: Option<DateTime<Utc>>,
    /// Hash project paths, cwd, branches and sources.
    pub hasher: Option<PathHasher>,
    /// The export's time (the clock comes in as an argument).
    pub created: DateTime<Utc>,
}

/// The machine name bundles default to: the host name.
pub fn default_machine() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// A bundle an export made, and the names it changed to make it one
/// import accepts (`team::names`).
#[derive(Debug, Clone)]
pub struct Exported {
    pub bundle: Bundle,
    pub renamed: Renamed,
}

/// Reads the store's requests and compactions into a bundle, every name
/// in it one import accepts (`team::names`).
pub fn export(store: &Store, spec: &ExportSpec) -> Result<Bundle, TeamError> {
    export_renamed(store, spec).map(|e| e.bundle)
}

/// `export`, and the names it changed.
pub fn export_renamed(store: &Store, spec: &ExportSpec) -> Result<Exported, TeamError> {
    let mut bundle = rows(store, spec)?;
    let renamed = names::neutralise(&mut bundle).map_err(|source| TeamError::Polars { what: "exporting", source })?;
    Ok(Exported { bundle, renamed })
}

/// The store's rows in the window, labelled and hashed as `spec` says.
fn rows(store: &Store, spec: &ExportSpec) -> Result<Bundle, TeamError> {
    if holds_bundles(store) {
        return Err(TeamError::TeamStore { dir: store.dir().to_path_buf() });
    }
    let mut requests = store.load(Table::Requests, frames::requests_from)?;
    // Calls Claude Code paid for without writing them down travel as the
    // request rows every view reads them as (`unlogged:*` threads).
    requests.extend(store.load(Table::Unlogged, frames::requests_from)?);
    let mut compactions = store.load(Table::Compactions, frames::compactions_from)?;
    let within = |t: DateTime<Utc>| spec.since.is_none_or(|s| t >= s) && spec.until.is_none_or(|u| t < u);
    requests.retain(|r| within(r.time));
    compactions.retain(|c| within(c.time));
    let mut calls = store.load(Table::Calls, frames::calls_from)?;
    let lines: HashSet<_> = requests.iter().map(request_line_key).collect();
    calls.retain(|i| lines.contains(&call_line_key(i)));
    drop(lines);
    for r in &mut requests {
        r.user = spec.user.as_str().into();
        r.machine = spec.machine.as_str().into();
    }
    for i in &mut calls {
        i.user = spec.user.as_str().into();
    }
    for c in &mut compactions {
        c.user.clone_from(&spec.user);
    }
    if let Some(h) = &spec.hasher {
        h.apply(&mut requests, &mut compactions);
        h.apply_calls(&mut calls);
    }
    let meta = BundleMeta {
        schema: BUNDLE_SCHEMA,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        user: spec.user.clone(),
        machine: spec.machine.clone(),
        created: spec.created.to_rfc3339_opts(SecondsFormat::Secs, true),
        hashed_paths: spec.hasher.is_some(),
    };
    Ok(Bundle { meta, requests, compactions, calls, analysis: None })
}

/// `export` with the person's analysis rows (`team::analysis`), computed
/// here with `prices` so the team's import need not classify them again;
/// the names changed on the way are counted, for a note.
pub fn export_with_analysis(store: &Store, spec: &ExportSpec, prices: &PriceTable) -> Result<Exported, TeamError> {
    let mut bundle = rows(store, spec)?;
    let polars = |source| TeamError::Polars { what: "exporting the analysis", source };
    let analyzed = materialize::load(store, prices)?;
    let window = (spec.since, spec.until);
    let analyzed = analysis::for_export(analyzed, &spec.user, window, spec.hasher.as_ref()).map_err(polars)?;
    bundle.analysis = Some(BundleAnalysis { stamp: materialize::stamp(prices), rows: analyzed });
    let renamed = names::neutralise(&mut bundle).map_err(polars)?;
    Ok(Exported { bundle, renamed })
}

/// Writes the bundle to `path` (`-`: stdout) as `file::write` does: a
/// regular file atomically, a link's regular-file target, never a device.
pub fn write_file(bundle: &Bundle, path: &Path) -> Result<super::file::Written, TeamError> {
    super::file::write(path, &bundle_bytes(bundle)?)
}

/// Replaces `path` with `bytes` atomically, synced (`files::replace`).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TeamError> {
    crate::store::files::replace(path, crate::store::files::Sync::Yes, bytes)
        .map_err(|source| TeamError::Io { path: path.to_path_buf(), source })
}
