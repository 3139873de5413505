//! Ingest: discover -> read/parse (rayon, one file per task) -> dedup ->
//! price -> store. Incremental: unchanged files are not opened, grown files
//! are read from their last complete line, rewritten files replace their rows.
//! Rows of files that have since been deleted stay in the store.

mod calls;
pub mod dedup;
mod derive;
pub mod discover;
mod holes;
mod line;
pub mod merge;
pub mod parse;
mod prefilter;
pub mod read;
mod rebuild;
pub mod session_totals;
pub mod side_tables;
pub mod sidechain;
mod skip;
pub mod soft;
mod target;
mod touched;
pub(crate) mod union;
pub mod unlogged;
pub mod upgrade;
mod usage;

use crate::model::{Call, Compaction, Request, SessionTitle};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::manifest::{Manifest, STORE_SCHEMA, UPGRADABLE_SCHEMAS};
use crate::store::view::Version;
use crate::store::{Commit, Store, StoreError, Table};
use chrono::{DateTime, Utc};
pub use derive::{Changed, Derive};
pub use rebuild::{rebuild, Rebuilt};

use dedup::Chunks;
use discover::{discover, SourceFile};
use merge::{merge, Base, Delta};
use rayon::prelude::*;
use read::{read_file, unchanged, FileRead, Mode};
use soft::Problems;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

/// Errors that stop an ingest (bad lines never do).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("no Claude Code transcripts found; looked in: {}", list(.looked))]
    NoRoots { looked: Vec<PathBuf> },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn list(p: &[PathBuf]) -> String {
    p.iter().map(|p| format!("{}/projects", p.display())).collect::<Vec<_>>().join(", ")
}

/// Receives progress, e.g. a progress bar: an ingest's bytes read, an
/// import's bundles merged.
pub trait Progress: Sync {
    fn start(&self, total: u64);
    fn advance(&self, done: u64);
    /// Names the step under way (an import's last step writes the store).
    fn step(&self, _what: &'static str) {}
    fn finish(&self);
}

/// A progress sink that shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// What an ingest did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub files: usize,
    pub files_read: usize,
    pub bytes_read: u64,
    pub problems: Problems,
    pub missing_roots: Vec<PathBuf>,
    /// Requests in the store afterwards (when anything changed).
    pub requests: Option<usize>,
    /// Requests kept although their transcript was rewritten without them.
    pub kept_from_rewritten: usize,
    /// The analysis tables did not read as current (damaged, missing, of
    /// other prices) and were computed again.
    pub analysis_recomputed: bool,
    pub unknown_models: UnknownModels,
    pub changed: bool,
    /// Set when the store was rebuilt: what was kept and lost.
    pub rebuilt: Option<Rebuilt>,
    /// What this ingest saw, for the view opened after it.
    pub seen: Seen,
}

/// What an ingest saw, handed to the view a command opens after it: the
/// transcripts discovery found (a view judges which sessions' transcripts
/// are gone without a `stat` of each), and the manifest as the ingest left
/// it with the store's version then (a view of that same version takes it
/// from here instead of parsing the file again).
#[derive(Debug, Default, Clone)]
pub struct Seen {
    pub transcripts: HashSet<String>,
    pub manifest: Option<(Version, Manifest)>,
}

/// Brings the store up to date with the transcripts under `roots`. `now`
/// is the caller's clock: a line stamped more than a day after it is a bad
/// line (`parse::MAX_AHEAD`), and the manifest's `updated` is `now`.
pub fn ingest(
    roots: &[PathBuf],
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
    derive: &dyn Derive,
    now: DateTime<Utc>,
) -> Result<Outcome, IngestError> {
    let clock = std::time::Instant::now();
    let commit = store.begin()?;
    // The manifest is parsed while the tree is walked.
    let (found, manifest) = rayon::join(|| discover(roots), || store.manifest());
    tracing::debug!("found {} files and read the manifest in {:?}", found.files.len(), clock.elapsed());
    if found.found_roots.is_empty() {
        return Err(IngestError::NoRoots { looked: roots.to_vec() });
    }
    let started = std::time::Instant::now();
    let transcripts: HashSet<String> = found.files.iter().map(key).collect();
    let mut manifest = manifest?;
    if needs_rebuild(store, &manifest)? {
        return rebuild::rebuild_locked(roots, commit, prices, progress, derive, now);
    }
    let upgraded = upgrade::forget_files_with_calls(&mut manifest);
    if upgraded > 0 {
        tracing::info!("upgrading the store: reading {upgraded} files with fields it did not keep again");
    }
    let reads = read_changed(&found.files, &manifest, progress, now);
    tracing::debug!("read {} files in {:?}", reads.len(), started.elapsed());
    let mut out = Outcome {
        files: found.files.len(),
        files_read: reads.len(),
        missing_roots: found.missing_roots,
        ..Outcome::default()
    };
    let reprice = manifest.pricing != pricing_fingerprint(prices) || manifest.schema != STORE_SCHEMA;
    if reads.iter().all(|r| r.bytes == 0 && r.mode == Mode::Append) && !reprice && store.path(Table::Requests).exists()
    {
        let version = nothing_new(commit, &mut manifest, reads, derive, &mut out)?;
        out.seen = Seen { transcripts, manifest: Some((version, manifest)) };
        return Ok(out);
    }
    apply(&commit, &mut manifest, reads, prices, derive, &mut out)?;
    tracing::debug!("merged and wrote tables at {:?}", started.elapsed());
    manifest.schema = STORE_SCHEMA;
    manifest.pricing = pricing_fingerprint(prices);
    manifest.updated = Some(now.to_rfc3339());
    // The version while the lock is still held: what this ingest wrote.
    let version = commit.finish(&manifest)?;
    out.seen = Seen { transcripts, manifest: Some((version, manifest)) };
    Ok(out)
}

/// Reads the files that changed since the manifest's record of them,
/// the largest first (so no core is left with one big file at the end),
/// each core taking the next file in that order (an indexed split would
/// start one core halfway down the list and leave it a big file at the
/// end); the reads come back in that order.
fn read_changed(
    files: &[SourceFile],
    manifest: &Manifest,
    progress: &dyn Progress,
    now: DateTime<Utc>,
) -> Vec<FileRead> {
    let mut todo: Vec<&SourceFile> = files.iter().filter(|f| !unchanged(f, manifest.files.get(&key(f)))).collect();
    todo.sort_by_key(|f| std::cmp::Reverse(f.size));
    let total: u64 =
        todo.iter().map(|f| f.size.saturating_sub(manifest.files.get(&key(f)).map_or(0, |s| s.offset))).sum();
    progress.start(total);
    let mut reads: Vec<(usize, FileRead)> = todo
        .iter()
        .enumerate()
        .par_bridge()
        .map(|(i, f)| {
            let r = read_file(f, manifest.files.get(&key(f)), now);
            progress.advance(r.bytes);
            (i, r)
        })
        .collect();
    read::release_buffers();
    reads.sort_unstable_by_key(|(i, _)| *i);
    progress.finish();
    reads.into_iter().map(|(_, r)| r).collect()
}

/// An ingest that found no new line: the manifest records what the reads
/// saw (when they read anything), and only a damaged, missing or stale
/// analysis table (derived, so never a reason to fail) is written again.
fn nothing_new(
    commit: Commit<'_>,
    manifest: &mut Manifest,
    reads: Vec<FileRead>,
    derive: &dyn Derive,
    out: &mut Outcome,
) -> Result<Version, IngestError> {
    for r in reads {
        out.problems += r.rows.problems;
        manifest.files.insert(key(&r.file), r.state);
    }
    if !derive.is_current(&commit) {
        derive.after(&commit, &Changed::All)?;
        out.analysis_recomputed = true;
    }
    Ok(match out.files_read > 0 {
        true => commit.finish(manifest)?,
        false => commit.version(),
    })
}

/// Checks every table before trusting any. A damaged or missing requests
/// table is an error naming the file and the rebuild command (rebuilding
/// could lose rows of deleted transcripts, so the user asks for it); a
/// damaged or missing derived table (spares, sessions, titles, compactions)
/// means the store is rebuilt now, and the outcome says so.
fn needs_rebuild(store: &Store, manifest: &Manifest) -> Result<bool, IngestError> {
    let written = !manifest.files.is_empty() || manifest.updated.is_some();
    let problems = store.problems(written);
    if let Some(p) = problems.iter().find(|p| matches!(p.table(), Table::Requests | Table::RecentRequests)) {
        return Err(p.error(store, manifest.files.len()).into());
    }
    for p in &problems {
        tracing::debug!("rebuilding: {}", p.error(store, manifest.files.len()));
    }
    Ok(!problems.is_empty())
}

/// Identifies the price table `cost_usd` was computed with; a new table
/// (an upgrade or a `--pricing` file) reprices the stored requests.
fn pricing_fingerprint(prices: &PriceTable) -> u64 {
    prices.fingerprint()
}

fn key(f: &SourceFile) -> String {
    crate::store::files::path_key(&f.path)
}

/// Merges the new reads into the stored tables and rewrites them.
fn apply(
    store: &Commit<'_>,
    manifest: &mut Manifest,
    reads: Vec<FileRead>,
    prices: &PriceTable,
    derive: &dyn Derive,
    out: &mut Outcome,
) -> Result<(), IngestError> {
    // An older layout's rows keep their figures (its requests base is
    // rewritten whole with the new columns: `merge::Target::choose`).
    let layout_ok = manifest.schema == STORE_SCHEMA || UPGRADABLE_SCHEMAS.contains(&manifest.schema);
    let base = if layout_ok && manifest.pricing == pricing_fingerprint(prices) { Base::Touched } else { Base::All };
    let mut delta = Delta { rows: Chunks(Vec::with_capacity(reads.len())), ..Delta::default() };
    for r in reads {
        out.bytes_read += r.bytes;
        out.problems += r.rows.problems;
        let k = key(&r.file);
        if r.mode == Mode::Full {
            delta.replaced.insert(k.clone());
        }
        delta.rows.0.push(r.rows.requests);
        delta.compactions.extend(r.rows.compactions);
        delta.titles.extend(r.rows.titles);
        delta.calls.extend(r.rows.calls);
        delta.refusals.extend(r.rows.refusals);
        delta.readings.extend(r.rows.readings);
        manifest.files.insert(k, r.state);
    }
    let merged = merge(store, base, delta, prices, derive)?;
    store.remove_obsolete()?;
    tracing::debug!("merged");
    out.unknown_models = merged.unknown;
    out.requests = Some(merged.requests);
    out.kept_from_rewritten = merged.kept_from_rewritten;
    out.changed = true;
    Ok(())
}

/// Candidate rows of some source, with what goes with them.
#[derive(Debug, Default)]
pub struct Rows {
    pub rows: Vec<Request>,
    /// The call rows of the candidate rows' lines.
    pub calls: Vec<Call>,
    pub compactions: Vec<Compaction>,
    pub titles: Vec<SessionTitle>,
}

/// Writes candidate rows, their call rows, compactions and titles as the
/// store's tables, replacing what they held: deduplicates and prices the
/// requests and derives the sessions, through the same merge as an ingest
/// (`merge`), so every table is built one way. Returns the number of
/// requests and the models without a price. The demo data is written this
/// way (`update::store_rows`).
pub fn store_rows(
    store: &Commit<'_>,
    given: Rows,
    prices: &PriceTable,
    derive: &dyn Derive,
) -> Result<(usize, UnknownModels), IngestError> {
    let Rows { rows, calls, compactions, titles } = given;
    let delta =
        Delta { rows: Chunks(vec![rows]), replaced: HashSet::new(), compactions, titles, calls, ..Delta::default() };
    let merged = merge(store, Base::Empty, delta, prices, derive)?;
    Ok((merged.requests, merged.unknown))
}

/// Titles by session: the last line of the strongest kind wins.
pub fn best_titles(titles: &[SessionTitle]) -> BTreeMap<String, String> {
    let mut best: BTreeMap<&str, &SessionTitle> = BTreeMap::new();
    for t in titles {
        let e = best.entry(t.session_id.as_str()).or_insert(t);
        if (t.kind, t.seq) >= (e.kind, e.seq) {
            *e = t;
        }
    }
    best.into_iter().map(|(k, v)| (k.to_owned(), v.title.clone())).collect()
}
