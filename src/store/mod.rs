//! The data directory: Parquet tables plus the ingest manifest. Every write
//! is atomic (temporary file, fsync, rename), and one ingest at a time holds
//! the directory's lock, so a crash or Ctrl-C never leaves a torn table.

pub mod frames;
pub mod manifest;

use manifest::{Manifest, PREVIOUS_SCHEMA, STORE_SCHEMA};
use polars::prelude::*;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Seek, Write};
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
    /// The API calls inside responses (`model::Iteration`), keyed by the
    /// line they came from; a request's kept line selects its own.
    Iterations,
    /// `model_refusal_fallback` lines (`model::Refusal`), per source file.
    Refusals,
    /// Derived: one row per session (first, last, title, totals).
    Sessions,
}

impl Table {
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Spares => "spares.parquet",
            Table::Requests => "requests.parquet",
            Table::RecentRequests => "requests-recent.parquet",
            Table::Compactions => "compactions.parquet",
            Table::Titles => "titles.parquet",
            Table::Iterations => "iterations.parquet",
            Table::Refusals => "refusals.parquet",
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
/// Parquet metadata key: the generation of the base requests file, which a
/// recent part must name to count.
const GENERATION: &str = "cachewise.requests_generation";
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

    /// The manifest, or an empty one when there is none or its layout is
    /// too old to upgrade (the previous layout's is returned as it is).
    pub fn manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|source| StoreError::Manifest { path, source })?;
        Ok(if m.schema == STORE_SCHEMA || m.schema == PREVIOUS_SCHEMA { m } else { Manifest::default() })
    }

    pub fn save_manifest(&self, m: &Manifest) -> Result<(), StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = serde_json::to_vec(m).map_err(|source| StoreError::Manifest { path: path.clone(), source })?;
        self.atomic_write(&path, |w| w.write_all(&bytes).map_err(PolarsError::from))
    }

    /// Reads a table; `None` when it was never written. `Requests` includes
    /// the recent requests.
    pub fn read(&self, t: Table) -> Result<Option<DataFrame>, StoreError> {
        if t != Table::Requests {
            return self.read_file(t, None);
        }
        let mut out: Option<DataFrame> = None;
        for (part, file) in self.open_requests()? {
            let polars = |source| StoreError::Polars { path: self.path(part), source };
            let df = ParquetReader::new(BufReader::new(file)).finish().map_err(polars)?;
            match &mut out {
                None => out = Some(df),
                Some(o) => {
                    o.vstack_mut_owned(df).map_err(polars)?;
                }
            }
        }
        Ok(out)
    }

    /// The files that hold the requests, opened together: the base, and the
    /// recent part when it extends this base (a recent part left by a fold
    /// that was cut short is already in the base, and is ignored). Reading
    /// through these handles sees one version of the table even while
    /// another process rewrites it.
    pub fn open_requests(&self) -> Result<Vec<(Table, File)>, StoreError> {
        let Some((base, generation)) = self.open_generation(Table::Requests)? else { return Ok(Vec::new()) };
        let mut parts = vec![(Table::Requests, base)];
        if let Some((recent, g)) = self.open_generation(Table::RecentRequests)? {
            if g == generation {
                parts.push((Table::RecentRequests, recent));
            }
        }
        Ok(parts)
    }

    /// Which requests files `open_requests` would read.
    pub fn request_parts(&self) -> Result<Vec<Table>, StoreError> {
        Ok(self.open_requests()?.into_iter().map(|(t, _)| t).collect())
    }

    /// A requests file, opened, and the generation it was written for (0
    /// when it names none).
    fn open_generation(&self, t: Table) -> Result<Option<(File, u64)>, StoreError> {
        let path = self.path(t);
        let io = |source| StoreError::Io { path: path.clone(), source };
        let mut file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let mut probe = ParquetReader::new(BufReader::new(file.try_clone().map_err(io)?));
        let meta = probe.get_metadata().map_err(|source| StoreError::Polars { path: path.clone(), source })?;
        let found = meta.key_value_metadata.iter().flatten().find(|kv| kv.key == GENERATION);
        let generation = found.and_then(|kv| kv.value.as_deref()?.parse().ok()).unwrap_or(0);
        file.rewind().map_err(io)?;
        Ok(Some((file, generation)))
    }

    fn generation(&self, t: Table) -> Result<Option<u64>, StoreError> {
        Ok(self.open_generation(t)?.map(|(_, g)| g))
    }

    /// Writes the requests as a new base (folding in the recent part, which
    /// is then removed).
    pub fn write_requests_base(&self, df: &mut DataFrame) -> Result<(), StoreError> {
        let next = self.generation(Table::Requests)?.map_or(1, |g| g + 1);
        self.write_with(Table::Requests, df, next)?;
        self.remove(Table::RecentRequests)
    }

    /// Writes the requests as a new base from frames made one at a time, so
    /// only one batch of rows is ever a DataFrame; `schema` is the table's.
    pub fn write_requests_base_batches(
        &self,
        schema: &Schema,
        batches: impl Iterator<Item = PolarsResult<DataFrame>>,
    ) -> Result<(), StoreError> {
        let next = self.generation(Table::Requests)?.map_or(1, |g| g + 1);
        let meta = generation_meta(next);
        self.atomic_write(&self.path(Table::Requests), |w| {
            let mut writer = ParquetWriter::new(w).with_key_value_metadata(Some(meta)).batched(schema)?;
            for df in batches {
                writer.write_batch(&df?)?;
            }
            writer.finish().map(|_| ())
        })?;
        self.remove(Table::RecentRequests)
    }

    /// Writes the requests merged since the base was written.
    pub fn write_requests_recent(&self, df: &mut DataFrame) -> Result<(), StoreError> {
        let base = self.generation(Table::Requests)?.unwrap_or(0);
        self.write_with(Table::RecentRequests, df, base)
    }

    fn write_with(&self, t: Table, df: &mut DataFrame, generation: u64) -> Result<(), StoreError> {
        let path = self.path(t);
        let meta = generation_meta(generation);
        self.atomic_write(&path, |w| ParquetWriter::new(w).with_key_value_metadata(Some(meta)).finish(df).map(|_| ()))
    }

    /// Reads a table into rows with `from` (none when it was never written).
    pub fn load<T>(&self, t: Table, from: fn(&DataFrame) -> PolarsResult<Vec<T>>) -> Result<Vec<T>, StoreError> {
        match self.read(t)? {
            None => Ok(Vec::new()),
            Some(df) => from(&df).map_err(|source| StoreError::Polars { path: self.path(t), source }),
        }
    }

    /// Reads one table file as stored, only `columns` when given.
    pub fn read_file(&self, t: Table, columns: Option<&[&str]>) -> Result<Option<DataFrame>, StoreError> {
        let path = self.path(t);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let columns = columns.map(|c| c.iter().map(|s| (*s).to_owned()).collect());
        ParquetReader::new(BufReader::new(file))
            .with_columns(columns)
            .finish()
            .map(Some)
            .map_err(|source| StoreError::Polars { path, source })
    }

    /// Deletes a table file, if there is one.
    pub fn remove(&self, t: Table) -> Result<(), StoreError> {
        let path = self.path(t);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Io { path, source: e }),
            _ => Ok(()),
        }
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

fn generation_meta(generation: u64) -> KeyValueMetadata {
    KeyValueMetadata::from_static(vec![(GENERATION.to_owned(), generation.to_string())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::columns as c;

    fn frame(ids: &[&str]) -> DataFrame {
        let mut df = DataFrame::new(ids.len(), vec![Column::new(c::MESSAGE_ID.into(), ids.to_vec())]).unwrap();
        df.rechunk_mut();
        df
    }

    fn ids(store: &Store) -> Vec<String> {
        let df = store.read(Table::Requests).unwrap().unwrap();
        frames::Cols(&df).str(c::MESSAGE_ID).unwrap().into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn requests_are_the_base_then_the_recent_part_of_the_same_generation() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.read(Table::Requests).unwrap().is_none());
        store.write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.write_requests_recent(&mut frame(&["c"])).unwrap();
        assert_eq!(ids(&store), ["a", "b", "c"]);
        assert_eq!(store.request_parts().unwrap(), [Table::Requests, Table::RecentRequests]);
        // A fold cut short after the new base was written: the old recent
        // part is still there, but names the old generation.
        let stale = fs::read(store.path(Table::RecentRequests)).unwrap();
        store.write_requests_base(&mut frame(&["a", "b", "c"])).unwrap();
        assert!(!store.path(Table::RecentRequests).exists(), "a fold removes the recent part");
        fs::write(store.path(Table::RecentRequests), stale).unwrap();
        assert_eq!(ids(&store), ["a", "b", "c"], "the stale recent part is not counted twice");
        assert_eq!(store.request_parts().unwrap(), [Table::Requests]);
    }
}
