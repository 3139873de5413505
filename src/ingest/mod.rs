//! Ingest: discover -> read/parse (rayon, one file per task) -> dedup ->
//! price -> store. Incremental: unchanged files are not opened, grown files
//! are read from their last complete line, rewritten files replace their rows.
//! Rows of files that have since been deleted stay in the store.

pub mod dedup;
pub mod discover;
mod line;
pub mod parse;
mod prefilter;
pub mod read;
pub mod sessions;
pub mod soft;

use crate::model::{Compaction, Request, SessionTitle};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::frames;
use crate::store::manifest::{Manifest, STORE_SCHEMA};
use crate::store::{Store, StoreError, Table};
use discover::{discover, SourceFile};
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

/// Receives progress while files are read (bytes), e.g. a progress bar.
pub trait Progress: Sync {
    fn start(&self, total_bytes: u64);
    fn advance(&self, bytes: u64);
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
    pub unknown_models: UnknownModels,
    pub changed: bool,
}

/// Brings the store up to date with the transcripts under `roots`.
pub fn ingest(
    roots: &[PathBuf],
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
) -> Result<Outcome, IngestError> {
    let found = discover(roots);
    if found.found_roots.is_empty() {
        return Err(IngestError::NoRoots { looked: roots.to_vec() });
    }
    let _lock = store.lock()?;
    let started = std::time::Instant::now();
    let mut manifest = store.manifest()?;
    let todo: Vec<&SourceFile> = found.files.iter().filter(|f| !unchanged(f, manifest.files.get(&key(f)))).collect();
    let total: u64 =
        todo.iter().map(|f| f.size.saturating_sub(manifest.files.get(&key(f)).map_or(0, |s| s.offset))).sum();
    progress.start(total);
    let reads: Vec<FileRead> = todo
        .par_iter()
        .map(|f| {
            let r = read_file(f, manifest.files.get(&key(f)));
            progress.advance(r.bytes);
            r
        })
        .collect();
    progress.finish();
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
        for r in reads {
            out.problems += r.rows.problems;
            manifest.files.insert(key(&r.file), r.state);
        }
        if out.files_read > 0 {
            store.save_manifest(&manifest)?;
        }
        return Ok(out);
    }
    apply(store, &mut manifest, reads, prices, &mut out)?;
    tracing::debug!("merged and wrote tables at {:?}", started.elapsed());
    manifest.schema = STORE_SCHEMA;
    manifest.pricing = pricing_fingerprint(prices);
    manifest.updated = Some(chrono::Utc::now().to_rfc3339());
    store.save_manifest(&manifest)?;
    Ok(out)
}

/// Identifies the price table `cost_usd` was computed with; a new table
/// (an upgrade or a `--pricing` file) reprices the stored requests.
fn pricing_fingerprint(prices: &PriceTable) -> u64 {
    crate::store::manifest::fingerprint(format!("{:?}", prices.models()).as_bytes())
}

fn key(f: &SourceFile) -> String {
    f.path.to_string_lossy().into_owned()
}

/// Merges the new reads into the stored tables and rewrites them.
fn apply(
    store: &Store,
    manifest: &mut Manifest,
    reads: Vec<FileRead>,
    prices: &PriceTable,
    out: &mut Outcome,
) -> Result<(), IngestError> {
    let fresh = manifest.schema == STORE_SCHEMA;
    let mut lines = if fresh { load(store, Table::Lines, frames::requests_from)? } else { Vec::new() };
    let mut compactions = if fresh { load(store, Table::Compactions, frames::compactions_from)? } else { Vec::new() };
    let mut titles = if fresh { load(store, Table::Titles, frames::titles_from)? } else { Vec::new() };
    let replaced: HashSet<String> = reads.iter().filter(|r| r.mode == Mode::Full).map(|r| key(&r.file)).collect();
    lines.retain(|r| !replaced.contains(&r.source));
    compactions.retain(|r| !replaced.contains(&r.source));
    titles.retain(|r| !replaced.contains(&r.source));
    let mut by_source: BTreeMap<String, Vec<Request>> = BTreeMap::new();
    for r in lines {
        by_source.entry(r.source.clone()).or_default().push(r);
    }
    for r in reads {
        out.bytes_read += r.bytes;
        out.problems += r.rows.problems;
        let k = key(&r.file);
        let old = by_source.remove(&k).unwrap_or_default();
        by_source.insert(
            k.clone(),
            if old.is_empty() { r.rows.requests } else { read::merge_requests(old, r.rows.requests) },
        );
        compactions.extend(r.rows.compactions);
        titles.extend(r.rows.titles);
        manifest.files.insert(k, r.state);
    }
    let lines: Vec<Request> = by_source.into_values().flatten().collect();
    let (requests, unknown) = store_rows(store, lines, compactions, titles, prices)?;
    out.unknown_models = unknown;
    out.requests = Some(requests);
    out.changed = true;
    Ok(())
}

/// Writes candidate rows, compactions and titles as the store's tables:
/// deduplicates and prices the requests and derives the sessions. Returns the
/// number of requests and the models without a price. Demo data and team
/// imports go through here too, so every table is built one way.
pub fn store_rows(
    store: &Store,
    lines: Vec<Request>,
    mut compactions: Vec<Compaction>,
    mut titles: Vec<SessionTitle>,
    prices: &PriceTable,
) -> Result<(usize, UnknownModels), IngestError> {
    write(store, Table::Lines, frames::requests_frame(&lines))?;
    let t = std::time::Instant::now();
    let candidates = lines.len();
    let mut requests = dedup::dedup(lines);
    let unknown = prices.price_all(&mut requests);
    tracing::debug!("dedup and pricing of {candidates} rows took {:?}", t.elapsed());
    sort_compactions(&mut compactions);
    titles.sort_by(|a, b| (&a.session_id, a.kind, a.seq, &a.source).cmp(&(&b.session_id, b.kind, b.seq, &b.source)));
    let sessions = sessions::derive(&requests, &titles);
    write(store, Table::Requests, frames::requests_frame(&requests))?;
    write(store, Table::Compactions, frames::compactions_frame(&compactions))?;
    write(store, Table::Titles, frames::titles_frame(&titles))?;
    write(store, Table::Sessions, sessions::frame(&sessions))?;
    Ok((requests.len(), unknown))
}

fn sort_compactions(c: &mut Vec<Compaction>) {
    c.sort_by(|a, b| (&a.session_id, a.time, &a.source).cmp(&(&b.session_id, b.time, &b.source)));
    c.dedup_by(|a, b| a.session_id == b.session_id && a.time == b.time && a.trigger == b.trigger);
}

fn load<T>(
    store: &Store,
    t: Table,
    from: fn(&polars::prelude::DataFrame) -> polars::prelude::PolarsResult<Vec<T>>,
) -> Result<Vec<T>, IngestError> {
    match store.read(t)? {
        None => Ok(Vec::new()),
        Some(df) => from(&df).map_err(|source| StoreError::Polars { path: store.path(t), source }.into()),
    }
}

fn write(
    store: &Store,
    t: Table,
    df: polars::prelude::PolarsResult<polars::prelude::DataFrame>,
) -> Result<(), IngestError> {
    let mut df = df.map_err(|source| StoreError::Polars { path: store.path(t), source })?;
    store.write(t, &mut df)?;
    Ok(())
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
