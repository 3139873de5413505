//! The data directory: Parquet tables plus the ingest manifest. `Store`
//! reads; every write of its tables goes through a `Commit` (`commit`),
//! which holds the directory's lock, replaces each file atomically
//! (temporary file, fsync, rename; the analysis parts, computed again when
//! lost, and a scratch store's tables, thrown away after the import, skip
//! the fsync) and writes the manifest last, so a crash or Ctrl-C never
//! leaves a torn table or a manifest naming more than the tables hold.
//!
//! The requests live in two parts of one generation (`requests`: the base
//! and a recent part that appends rewrite, checked together by readers);
//! `spares`, `compactions`, `titles` and the session totals are derived from the
//! same rows. A table that does not read, or that the manifest says was
//! written but is gone, is an error naming the file, the cause and
//! `cachewise ingest --rebuild` (`health` finds them before an ingest
//! trusts the store; the derived tables are rebuilt on the spot).

pub mod analysis;
pub mod claude;
mod commit;
mod concat;
pub mod files;
pub mod frames;
mod health;
pub mod lock;
pub mod manifest;
pub mod parts;
mod priced;
pub use priced::priced_by;
mod requests;
pub mod samples;
pub mod view;

pub use commit::Commit;
pub use health::TableProblem;

use manifest::{Manifest, STORE_SCHEMA, UPGRADABLE_SCHEMAS};
use polars::prelude::*;
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// The tables kept in a data directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Every copy of a request seen more than once, and dropped sidechain
    /// replays: what an incremental merge deduplicates again.
    Spares,
    /// One row per deduplicated, priced request. Reading it yields the
    /// base file followed by `RecentRequests`.
    Requests,
    /// Requests merged since the base file was last rewritten: appends
    /// rewrite this small file only, and fold it into the base when it grows.
    RecentRequests,
    Compactions,
    Titles,
    /// The API calls inside responses (`model::Call`), keyed by the
    /// line they came from; a request's kept line selects its own.
    Calls,
    /// `model_refusal_fallback` lines (`model::Refusal`), per source file.
    Refusals,
    /// Derived: the session totals, one row per session (first, last,
    /// title, totals; `ingest::session_totals`), in `sessions.parquet`.
    SessionTotals,
    /// Derived: the cache model's verdict per thread request (`materialize`);
    /// reading it yields the base without the sessions `RecentAnalysis`
    /// replaces, then that part.
    Analysis,
    /// The analysis rows of the sessions merged since the base was written.
    RecentAnalysis,
    /// Derived: each compaction boundary's label and anchor (`materialize`).
    AnalysisCompactions,
    /// Derived: the session analysis, per `(user, session)` its last
    /// main-thread request and compaction report (`materialize::side_rows`),
    /// in `analysis-sessions.parquet`.
    SessionAnalysis,
    /// Claude Code's own running totals (`cost-state` lines,
    /// `model::CostReading`), per source file.
    CostReadings,
    /// Derived: calls Claude Code paid for without writing them down, as
    /// request rows (`ingest::unlogged`); views read them with the requests.
    Unlogged,
}

impl Table {
    /// Every table.
    pub const ALL: [Table; 14] = [
        Table::Spares,
        Table::Requests,
        Table::RecentRequests,
        Table::Compactions,
        Table::Titles,
        Table::Calls,
        Table::Refusals,
        Table::SessionTotals,
        Table::Analysis,
        Table::RecentAnalysis,
        Table::AnalysisCompactions,
        Table::SessionAnalysis,
        Table::CostReadings,
        Table::Unlogged,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            Table::Spares => "spares.parquet",
            Table::Requests => "requests.parquet",
            Table::RecentRequests => "requests-recent.parquet",
            Table::Compactions => "compactions.parquet",
            Table::Titles => "titles.parquet",
            Table::Calls => "iterations.parquet",
            Table::Refusals => "refusals.parquet",
            Table::SessionTotals => "sessions.parquet",
            Table::Analysis => "analysis.parquet",
            Table::RecentAnalysis => "analysis-recent.parquet",
            Table::AnalysisCompactions => "analysis-compactions.parquet",
            Table::SessionAnalysis => "analysis-sessions.parquet",
            Table::CostReadings => "cost-readings.parquet",
            Table::Unlogged => "unlogged.parquet",
        }
    }
}

/// What a damaged store's error tells the user to run.
pub const REBUILD_HINT: &str = "rebuild the store with `cachewise ingest --rebuild` (same --data-dir): \
transcripts that still exist are read again, rows of deleted ones are kept where a readable table holds them, \
and it says what could not be kept";

/// Errors of the data directory; each names the path involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {source}")]
    Polars { path: PathBuf, source: PolarsError },
    #[error("{path}: invalid manifest: {source}; {hint}", hint = REBUILD_HINT)]
    Manifest { path: PathBuf, source: serde_json::Error },
    #[error(
        "cannot take the data directory's lock {path}: {source}. Writing needs a writable data directory: \
fix its permissions, choose another with --data-dir DIR (or CACHEWISE_DATA_DIR), or report on the stored \
data without writing with --no-ingest"
    )]
    Lock { path: PathBuf, source: std::io::Error },
    /// A table file that exists but does not read as the table.
    #[error("{path} is damaged: {cause}; {hint}", hint = REBUILD_HINT)]
    Damaged { path: PathBuf, cause: String },
    /// A table file that the manifest says was written, but is gone.
    #[error(
        "{path} is missing, but the manifest says {files} transcript(s) were read into this store; {hint}",
        hint = REBUILD_HINT
    )]
    Missing { path: PathBuf, files: usize },
    /// Another writer holds the lock, and this store does not wait
    /// (`lock::Waiting::No`).
    #[error("{dir}: the data directory's lock is taken: {holder}")]
    Locked { dir: PathBuf, holder: lock::Holder },
    /// The requests parts kept changing while they were opened.
    #[error("{dir}: the requests table changed {tries} times while it was being opened; try again")]
    Busy { dir: PathBuf, tries: usize },
}

impl StoreError {
    /// A table file that did not read: the first line of the decoder's error.
    pub fn damaged(path: PathBuf, e: &PolarsError) -> StoreError {
        let text = e.to_string();
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("unreadable");
        StoreError::Damaged { path, cause: first.chars().take(200).collect() }
    }
}

/// What failed in a table's write: its encoding or the file.
enum Written {
    Polars(PolarsError),
    Io(std::io::Error),
}

impl From<std::io::Error> for Written {
    fn from(e: std::io::Error) -> Written {
        Written::Io(e)
    }
}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// A scratch store (`open_scratch`).
    scratch: bool,
    /// Whether a writer waits for the lock (`lock`).
    waiting: lock::Waiting,
}

use files::MANIFEST;

impl Store {
    /// Opens (creating if needed) the data directory.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        fs::create_dir_all(dir).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })?;
        Ok(Store { dir: dir.to_path_buf(), scratch: false, waiting: lock::Waiting::Yes })
    }

    /// Opens a scratch store: one a team import builds beside the team's
    /// and throws away. Its files are read once, soon, and never survive a
    /// crash, so they are written without waiting for the disk.
    pub fn open_scratch(dir: &Path) -> Result<Store, StoreError> {
        Ok(Store { scratch: true, ..Store::open(dir)? })
    }

    /// A Parquet writer of the store's codec: LZ4, which writes the
    /// requests of a 20-person team (1.7M rows) in 1.5 s where zstd takes
    /// 2.5 s, and reads as fast; the files are about three times larger
    /// (83 MB against 24 MB for those requests).
    pub(crate) fn parquet_writer<W: std::io::Write>(&self, w: W) -> ParquetWriter<W> {
        ParquetWriter::new(w).with_compression(ParquetCompression::Lz4Raw)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the data directory again when it was deleted under a running
    /// process (the server): true when it had to. The next ingest then
    /// fills it from the transcripts, as a first one would.
    pub fn make_again_if_deleted(&self) -> Result<bool, StoreError> {
        if self.dir.exists() {
            return Ok(false);
        }
        fs::create_dir_all(&self.dir).map_err(|source| StoreError::Io { path: self.dir.clone(), source })?;
        Ok(true)
    }

    /// True when the directory is a team directory: it holds imported or
    /// pushed bundles (their ledger), so no local transcript is read into it.
    pub fn holds_bundles(&self) -> bool {
        self.dir.join(files::LEDGER).exists()
    }

    pub fn path(&self, t: Table) -> PathBuf {
        self.dir.join(t.file_name())
    }

    /// The manifest, or an empty one when there is none or its layout is
    /// too old to upgrade (the previous layout's is returned as it is).
    pub fn manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = match files::read_regular(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|source| StoreError::Manifest { path, source })?;
        Ok(if m.schema == STORE_SCHEMA || UPGRADABLE_SCHEMAS.contains(&m.schema) { m } else { Manifest::default() })
    }

    /// Reads a table; `None` when it was never written. `Requests` is the
    /// base followed by the recent part of the same generation.
    pub fn read(&self, t: Table) -> Result<Option<DataFrame>, StoreError> {
        match t {
            Table::Requests => self.read_requests(None),
            _ => self.read_file(t, None),
        }
    }

    /// Reads a table into rows with `from` (none when it was never written).
    pub fn load<T>(&self, t: Table, from: fn(&DataFrame) -> PolarsResult<Vec<T>>) -> Result<Vec<T>, StoreError> {
        match self.read(t)? {
            None => Ok(Vec::new()),
            Some(df) => from(&df).map_err(|e| StoreError::damaged(self.path(t), &e)),
        }
    }

    /// Reads one table file as stored, only `columns` when given.
    pub fn read_file(&self, t: Table, columns: Option<&[&str]>) -> Result<Option<DataFrame>, StoreError> {
        let path = self.path(t);
        let file = match files::open_regular(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                return Err(StoreError::Damaged { path, cause: e.to_string() })
            }
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let columns = columns.map(|c| c.iter().map(|s| (*s).to_owned()).collect());
        ParquetReader::new(BufReader::new(file))
            .with_columns(columns)
            .finish()
            .map(Some)
            .map_err(|e| StoreError::damaged(path, &e))
    }

    /// The rows of `sessions` in one table file, only `columns` (which
    /// name the session id; every column when None): a filter the Parquet
    /// reader sees, so row groups of other sessions are skipped. None when
    /// there is no file.
    pub fn read_file_sessions(
        &self,
        t: Table,
        columns: Option<&[&str]>,
        sessions: &std::collections::HashSet<String>,
    ) -> Result<Option<DataFrame>, StoreError> {
        let path = self.path(t);
        let file = match files::open_regular(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let Some(scan) = requests::scan_files(self, vec![file])? else { return Ok(None) };
        let selected = match columns {
            Some(columns) => scan.select(columns.iter().map(|n| col(*n)).collect::<Vec<_>>()),
            None => scan,
        };
        analysis::collect_sessions(selected, sessions).map(Some).map_err(|e| StoreError::damaged(path, &e))
    }
}
