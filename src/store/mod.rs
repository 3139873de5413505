//! The data directory: Parquet tables plus the ingest manifest. Every write
//! is atomic (temporary file, fsync, rename), and one ingest at a time holds
//! the directory's lock, so a crash or Ctrl-C never leaves a torn table.

pub mod frames;
pub mod manifest;

use manifest::{Manifest, STORE_SCHEMA};
use polars::prelude::*;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The tables kept in a data directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Every copy of a request seen more than once, and dropped sidechain
    /// replays: what an incremental merge deduplicates again.
    Spares,
    /// One row per deduplicated, priced request.
    Requests,
    Compactions,
    Titles,
    /// Derived: one row per session (first, last, title, totals).
    Sessions,
}

impl Table {
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Spares => "spares.parquet",
            Table::Requests => "requests.parquet",
            Table::Compactions => "compactions.parquet",
            Table::Titles => "titles.parquet",
            Table::Sessions => "sessions.parquet",
        }
    }
}

/// Errors of the data directory; each names the path involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {source}")]
    Polars { path: PathBuf, source: PolarsError },
    #[error("{path}: invalid manifest: {source}")]
    Manifest { path: PathBuf, source: serde_json::Error },
}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

const MANIFEST: &str = "manifest.json";
const LOCK: &str = ".lock";
/// Tables of older layouts (store schema 2 kept every candidate row).
const OBSOLETE: [&str; 1] = ["lines.parquet"];

impl Store {
    /// Opens (creating if needed) the data directory.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        fs::create_dir_all(dir).map_err(|source| StoreError::Io { path: dir.to_path_buf(), source })?;
        Ok(Store { dir: dir.to_path_buf() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, t: Table) -> PathBuf {
        self.dir.join(t.file_name())
    }

    /// Takes the directory's exclusive lock; released when the file drops.
    pub fn lock(&self) -> Result<File, StoreError> {
        let path = self.dir.join(LOCK);
        let io = |source| StoreError::Io { path: path.clone(), source };
        let f = File::options().create(true).truncate(false).write(true).open(&path).map_err(io)?;
        f.lock().map_err(io)?;
        Ok(f)
    }

    /// The manifest, or an empty one when there is none or its layout is old.
    pub fn manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|source| StoreError::Manifest { path, source })?;
        Ok(if m.schema == STORE_SCHEMA { m } else { Manifest::default() })
    }

    pub fn save_manifest(&self, m: &Manifest) -> Result<(), StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = serde_json::to_vec(m).map_err(|source| StoreError::Manifest { path: path.clone(), source })?;
        self.atomic_write(&path, |w| w.write_all(&bytes).map_err(PolarsError::from))
    }

    /// Reads a table; `None` when it was never written.
    pub fn read(&self, t: Table) -> Result<Option<DataFrame>, StoreError> {
        let path = self.path(t);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        ParquetReader::new(BufReader::new(file))
            .finish()
            .map(Some)
            .map_err(|source| StoreError::Polars { path, source })
    }

    /// Deletes files of older store layouts.
    pub fn remove_obsolete(&self) -> Result<(), StoreError> {
        for name in OBSOLETE {
            let path = self.dir.join(name);
            match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(StoreError::Io { path, source: e }),
                _ => {}
            }
        }
        Ok(())
    }

    /// Writes a table atomically.
    pub fn write(&self, t: Table, df: &mut DataFrame) -> Result<(), StoreError> {
        let path = self.path(t);
        self.atomic_write(&path, |w| ParquetWriter::new(w).finish(df).map(|_| ()))
    }

    fn atomic_write(
        &self,
        path: &Path,
        body: impl FnOnce(&mut BufWriter<&File>) -> PolarsResult<()>,
    ) -> Result<(), StoreError> {
        let io = |source| StoreError::Io { path: path.to_path_buf(), source };
        let tmp = tempfile::NamedTempFile::new_in(&self.dir).map_err(io)?;
        {
            let mut w = BufWriter::new(tmp.as_file());
            body(&mut w).map_err(|source| StoreError::Polars { path: path.to_path_buf(), source })?;
            w.flush().map_err(io)?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(path).map_err(|e| io(e.error))?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}
