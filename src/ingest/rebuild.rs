//! Rebuilding a store (`cachewise ingest --rebuild`, and the recovery of
//! damaged derived tables): every transcript that exists is read again from
//! the start; the rows of transcripts deleted since are kept from whatever
//! table still reads (requests base, recent part, spares, titles,
//! compactions, calls, refusals); then every table and the manifest
//! are written anew. Hands on an `Outcome` whose `rebuilt` says plainly
//! which tables could not be read and which deleted transcripts' rows went
//! with them.

use super::derive::Derive;
use super::discover::{discover, SourceFile};
use super::merge::{merge, Base, Delta};
use super::read::{read_file, FileRead};
use super::{key, pricing_fingerprint, IngestError, Outcome, Progress};
use crate::model::{Call, Compaction, CostReading, Refusal, Request, SessionTitle};
use crate::pricing::PriceTable;
use crate::store::frames;
use crate::store::manifest::{Manifest, STORE_SCHEMA};
use crate::store::{Commit, Store, StoreError, Table};
use chrono::{DateTime, Utc};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

/// What a rebuild kept and lost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Tables (or the manifest) that could not be read, with the cause.
    pub unreadable: Vec<(String, String)>,
    /// Requests kept from transcripts that no longer exist.
    pub kept_requests: usize,
    /// Transcripts that no longer exist whose rows were kept.
    pub kept_sources: usize,
    /// Transcripts read before that no longer exist and whose rows no
    /// readable table held: their history is gone.
    pub lost_sources: Vec<String>,
    /// False when the manifest could not be read, so transcripts deleted
    /// since cannot be listed (`lost_sources` may be incomplete).
    pub manifest_read: bool,
    /// Every table that holds requests was read: nothing can have been lost.
    pub requests_complete: bool,
    /// What stood where a table belongs but was no file, and where it went.
    pub set_aside: Vec<(PathBuf, PathBuf)>,
}

impl Rebuilt {
    /// What a rebuild could not read, kept and lost, in plain words.
    pub fn describe(&self) -> String {
        let r = self;
        let mut out = String::new();
        for (file, cause) in &r.unreadable {
            out += &format!("could not read {file}: {cause}\n");
        }
        for (from, to) in &r.set_aside {
            out += &format!("{} was not a file: moved to {}\n", from.display(), to.display());
        }
        out += &format!(
            "kept {} request(s) of {} transcript(s) deleted since, from the tables that could be read\n",
            r.kept_requests, r.kept_sources
        );
        if !r.lost_sources.is_empty() {
            out += &format!(
                "lost: the rows of {} transcript(s) deleted since were only in the tables that could not be read:\n",
                r.lost_sources.len()
            );
            for s in r.lost_sources.iter().take(10) {
                out += &format!("  {s}\n");
            }
            if r.lost_sources.len() > 10 {
                out += &format!("  ... and {} more\n", r.lost_sources.len() - 10);
            }
        } else if !r.manifest_read && !r.requests_complete {
            out += "the manifest could not be read, so transcripts deleted since cannot be listed: any rows of theirs \
    that only the unreadable tables held are lost\n";
        } else {
            out += "nothing was lost\n";
        }
        out
    }
}

/// Rebuilds the store from the transcripts under `roots` (none, for a team
/// directory: its rows are all kept) and the rows the old tables still
/// hold, at the clock `now` (see `ingest`).
pub fn rebuild(
    roots: &[PathBuf],
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
    derive: &dyn Derive,
    now: DateTime<Utc>,
) -> Result<Outcome, IngestError> {
    rebuild_locked(roots, store.begin()?, prices, progress, derive, now)
}

/// `rebuild`, inside a commit the caller began (it holds the lock).
pub(super) fn rebuild_locked(
    roots: &[PathBuf],
    commit: Commit<'_>,
    prices: &PriceTable,
    progress: &dyn Progress,
    derive: &dyn Derive,
    now: DateTime<Utc>,
) -> Result<Outcome, IngestError> {
    let found = discover(roots);
    let mut notes = Rebuilt::default();
    let old_manifest = old_manifest(&commit, &mut notes);
    let written = old_manifest.as_ref().is_none_or(|m| !m.files.is_empty() || m.updated.is_some());
    let exists: HashSet<String> = found.files.iter().map(key).collect();
    let salvaged = salvage(&commit, &exists, written, &mut notes);
    notes.set_aside = commit.set_aside_strays()?;
    let reads = read_all(&found.files, progress, now);
    let mut out = Outcome {
        files: found.files.len(),
        files_read: reads.len(),
        missing_roots: found.missing_roots,
        ..Outcome::default()
    };
    account(&salvaged, old_manifest.as_ref(), &exists, &mut notes);
    let mut manifest = Manifest::default();
    // The new reads first: a line read again is theirs, with its calls, on
    // a tie with what the store held (an upgrade reads fields it lacked).
    let mut delta = Delta::default();
    for r in reads {
        out.bytes_read += r.bytes;
        out.problems += r.rows.problems;
        delta.rows.0.push(r.rows.requests);
        delta.compactions.extend(r.rows.compactions);
        delta.titles.extend(r.rows.titles);
        delta.calls.extend(r.rows.calls);
        delta.refusals.extend(r.rows.refusals);
        delta.readings.extend(r.rows.readings);
        manifest.files.insert(key(&r.file), r.state);
    }
    delta.rows.0.push(salvaged.requests);
    delta.compactions.extend(salvaged.compactions);
    delta.titles.extend(salvaged.titles);
    delta.calls.extend(salvaged.calls);
    delta.refusals.extend(salvaged.refusals);
    delta.readings.extend(salvaged.readings);
    keep_listed(&mut manifest, &delta, old_manifest);
    let merged = merge(&commit, Base::Empty, delta, prices, derive)?;
    commit.remove_obsolete()?;
    manifest.schema = STORE_SCHEMA;
    manifest.pricing = pricing_fingerprint(prices);
    manifest.updated = Some(now.to_rfc3339());
    commit.finish(&manifest)?;
    out.unknown_models = merged.unknown;
    out.requests = Some(merged.requests);
    out.changed = true;
    out.rebuilt = Some(notes);
    Ok(out)
}

/// The old manifest, or `None` (noted) when it does not read.
fn old_manifest(store: &Store, notes: &mut Rebuilt) -> Option<Manifest> {
    let m = store.manifest().map_err(|e| notes.unreadable.push(("manifest.json".into(), e.to_string()))).ok();
    notes.manifest_read = m.is_some();
    m
}

/// Deleted transcripts whose rows were kept (the last chunk of the delta,
/// after the new reads) stay listed in the manifest, so a later rebuild can
/// still name them should their rows be lost then.
fn keep_listed(manifest: &mut Manifest, delta: &Delta, old: Option<Manifest>) {
    let old_files = old.map(|m| m.files).unwrap_or_default();
    let sources: BTreeSet<String> =
        delta.rows.0.last().map(|rows| rows.iter().map(|r| r.source.to_string()).collect()).unwrap_or_default();
    for source in sources {
        let state = old_files.get(&source).cloned().unwrap_or_default();
        manifest.files.entry(source).or_insert(state);
    }
}

fn read_all(files: &[SourceFile], progress: &dyn Progress, now: DateTime<Utc>) -> Vec<FileRead> {
    let mut todo: Vec<&SourceFile> = files.iter().collect();
    todo.sort_by_key(|f| std::cmp::Reverse(f.size));
    progress.start(todo.iter().map(|f| f.size).sum());
    let reads = todo
        .par_iter()
        .map(|f| {
            let r = read_file(f, None, now);
            progress.advance(r.bytes);
            r
        })
        .collect();
    progress.finish();
    reads
}

/// Rows of transcripts that no longer exist, from the tables that read.
#[derive(Debug, Default)]
struct Salvaged {
    requests: Vec<Request>,
    compactions: Vec<Compaction>,
    titles: Vec<SessionTitle>,
    /// The calls of their lines, and their refusal lines.
    calls: Vec<Call>,
    refusals: Vec<Refusal>,
    /// Claude Code's own totals of deleted transcripts.
    readings: Vec<CostReading>,
    /// Whether every table that held requests was read.
    requests_complete: bool,
}

fn salvage(store: &Store, exists: &HashSet<String>, written: bool, notes: &mut Rebuilt) -> Salvaged {
    let gone = |source: &str| !exists.contains(source);
    let mut complete = true;
    let mut rows = |t: Table| match request_rows(store, t) {
        Ok(r) => r,
        Err(e) => {
            complete = false;
            notes.unreadable.push((t.file_name().to_owned(), cause(&e)));
            Vec::new()
        }
    };
    // The recent part counts when it extends the base, or when the base is lost.
    let parts = store.request_parts().unwrap_or_else(|_| vec![Table::Requests, Table::RecentRequests]);
    let mut requests: Vec<Request> = parts.iter().flat_map(|&t| rows(t)).collect();
    let spares = rows(Table::Spares);
    if written && !store.path(Table::Requests).exists() {
        complete = false;
        notes.unreadable.push((Table::Requests.file_name().to_owned(), "missing".into()));
    }
    // As an incremental merge does: every spare copy, plus the requests seen once.
    let repeated: HashSet<(String, String, String)> = spares.iter().map(identity).collect();
    requests.retain(|r| !repeated.contains(&identity(r)));
    requests.extend(spares);
    let mut side = |t: Table| match store.read_file(t, None) {
        Ok(df) => df,
        Err(e) => {
            notes.unreadable.push((t.file_name().to_owned(), cause(&e)));
            None
        }
    };
    let titles = side(Table::Titles).and_then(|df| frames::titles_from(&df).ok()).unwrap_or_default();
    let compactions = side(Table::Compactions).and_then(|df| frames::compactions_from(&df).ok()).unwrap_or_default();
    let calls = side(Table::Calls).and_then(|df| frames::calls_from(&df).ok()).unwrap_or_default();
    let refusals = side(Table::Refusals).and_then(|df| frames::refusals_from(&df).ok()).unwrap_or_default();
    let readings = side(Table::CostReadings).and_then(|df| frames::readings_from(&df).ok()).unwrap_or_default();
    Salvaged {
        requests: requests.into_iter().map(|r| Request { cost_usd: 0.0, ..r }).collect(),
        titles: titles.into_iter().filter(|t| gone(&t.source)).collect(),
        compactions: compactions.into_iter().filter(|c| gone(&c.source)).collect(),
        calls,
        refusals: refusals.into_iter().filter(|r| gone(&r.source)).collect(),
        readings: readings.into_iter().filter(|r| gone(&r.source)).collect(),
        requests_complete: complete,
    }
}

/// A table of request rows, as rows (none when it was never written).
fn request_rows(store: &Store, t: Table) -> Result<Vec<Request>, StoreError> {
    match store.read_file(t, None)? {
        None => Ok(Vec::new()),
        Some(df) => frames::requests_from(&df).map_err(|e| StoreError::damaged(store.path(t), &e)),
    }
}

/// A request's identity: (user, message id, request id).
fn identity(r: &Request) -> (String, String, String) {
    (r.user.to_string(), r.message_id.clone(), r.request_id.clone())
}

fn cause(e: &StoreError) -> String {
    match e {
        StoreError::Damaged { cause, .. } => cause.clone(),
        StoreError::Missing { .. } => "missing".into(),
        other => other.to_string(),
    }
}

/// Counts what was kept of deleted transcripts, and names those lost.
fn account(s: &Salvaged, old: Option<&Manifest>, exists: &HashSet<String>, notes: &mut Rebuilt) {
    let of_deleted: Vec<&Request> = s.requests.iter().filter(|r| !exists.contains(r.source.as_str())).collect();
    let kept: BTreeSet<&str> = of_deleted.iter().map(|r| r.source.as_str()).collect();
    notes.kept_requests = of_deleted.len();
    notes.kept_sources = kept.len();
    notes.requests_complete = s.requests_complete;
    if s.requests_complete {
        return;
    }
    if let Some(m) = old {
        notes.lost_sources =
            m.files.keys().filter(|k| !exists.contains(*k) && !kept.contains(k.as_str())).cloned().collect();
    }
}
