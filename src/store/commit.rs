//! The one way anything writes a data directory's tables, manifest and
//! team ledger. A `Commit` holds the directory's lock for as long as it
//! lives; every one of those files is written through it (each atomically:
//! a temporary file renamed over the old name, `replace_file`), and a
//! scratch store's analysis rows are its analysis base (`team::append`
//! reads them from there); `finish` writes the manifest last, so a reader
//! or a crash between two writes never meets a manifest that names more
//! than the tables hold. A commit dropped without `finish` leaves the
//! manifest as it was: what was written is kept, and the next ingest reads
//! again whatever the old manifest did not record.
//!
//! Ingest, rebuild, team import and push, `serve --team`'s ledger and the
//! demo data all write this way; readers never take the lock.

use super::files::MANIFEST;
use super::manifest::Manifest;
use super::view::Version;
use super::{Store, StoreError, Table, Written};
use polars::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A writer of one data directory, holding its lock.
#[derive(Debug)]
pub struct Commit<'s> {
    store: &'s Store,
    _lock: File,
}

impl Store {
    /// Takes the directory's lock (`lock`) and begins a commit.
    pub fn begin(&self) -> Result<Commit<'_>, StoreError> {
        Ok(Commit { _lock: self.lock()?, store: self })
    }
}

impl std::ops::Deref for Commit<'_> {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.store
    }
}

impl Commit<'_> {
    /// The store this commit writes.
    pub fn store(&self) -> &Store {
        self.store
    }

    /// Writes the manifest, the commit's last write, and releases the
    /// lock; returns the store's version as this commit left it.
    pub fn finish(self, m: &Manifest) -> Result<Version, StoreError> {
        let path = self.dir.join(MANIFEST);
        let bytes = serde_json::to_vec(m).map_err(|source| StoreError::Manifest { path: path.clone(), source })?;
        self.atomic_write(&path, |w| w.write_all(&bytes).map_err(PolarsError::from))?;
        Ok(self.version())
    }

    /// Writes a table atomically.
    pub fn write(&self, t: Table, df: &mut DataFrame) -> Result<(), StoreError> {
        let path = self.path(t);
        self.atomic_write(&path, |w| self.parquet_writer(w).finish(df).map(|_| ()))
    }

    /// Replaces a team directory's ledger of imported bundles (`files::LEDGER`).
    pub fn write_ledger(&self, bytes: &[u8]) -> Result<(), StoreError> {
        self.atomic_write(&self.dir.join(super::files::LEDGER), |w| w.write_all(bytes).map_err(PolarsError::from))
    }

    /// Replaces a table with the same table of `fresh`, a store written
    /// inside this directory (a renamed file; removed when `fresh` has none).
    pub fn adopt(&self, t: Table, fresh: &Store) -> Result<(), StoreError> {
        let (from, to) = (fresh.path(t), self.path(t));
        match from.exists() {
            true => std::fs::rename(&from, &to).map_err(|source| StoreError::Io { path: to, source }),
            false => self.remove(t),
        }
    }

    /// Deletes a table file, if there is one.
    pub fn remove(&self, t: Table) -> Result<(), StoreError> {
        remove_if_there(self.path(t))
    }

    /// Deletes files of older store layouts.
    pub fn remove_obsolete(&self) -> Result<(), StoreError> {
        super::files::OBSOLETE.iter().try_for_each(|name| remove_if_there(self.dir.join(name)))
    }

    /// Moves whatever stands where a table or the manifest belongs but is not
    /// a regular file (a directory, a pipe, a link) aside (`set_aside`), so a
    /// rebuild can write there: each as (from, to).
    pub fn set_aside_strays(&self) -> Result<Vec<(PathBuf, PathBuf)>, StoreError> {
        let mut moved = Vec::new();
        for name in Table::ALL.iter().map(|t| t.file_name()).chain([MANIFEST]) {
            let from = self.dir.join(name);
            if let Some(to) =
                super::files::set_aside(&from).map_err(|source| StoreError::Io { path: from.clone(), source })?
            {
                moved.push((from, to));
            }
        }
        Ok(moved)
    }

    /// Replaces `path` (a file of this store, or of a scratch file beside
    /// it) with what `body` writes, waiting for the disk before the rename.
    pub(crate) fn atomic_write(
        &self,
        path: &Path,
        body: impl FnOnce(&mut BufWriter<&File>) -> PolarsResult<()>,
    ) -> Result<(), StoreError> {
        self.replace_file(path, true, body)
    }

    /// `atomic_write` without waiting for the disk: for a derived file that
    /// a reader checks (footer, stamp) and that is computed again when a
    /// crash leaves it torn or old (the analysis table's parts).
    pub(crate) fn atomic_write_derived(
        &self,
        path: &Path,
        body: impl FnOnce(&mut BufWriter<&File>) -> PolarsResult<()>,
    ) -> Result<(), StoreError> {
        self.replace_file(path, false, body)
    }

    fn replace_file(
        &self,
        path: &Path,
        sync: bool,
        body: impl FnOnce(&mut BufWriter<&File>) -> PolarsResult<()>,
    ) -> Result<(), StoreError> {
        if let Some(to) =
            super::files::set_aside(path).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?
        {
            tracing::warn!("{} was not a file: moved to {}", path.display(), to.display());
        }
        let sync = if sync && !self.scratch { super::files::Sync::Yes } else { super::files::Sync::No };
        super::files::replace_with(path, sync, |w| body(w).map_err(Written::Polars)).map_err(|e| match e {
            Written::Polars(source) => StoreError::Polars { path: path.to_path_buf(), source },
            Written::Io(source) => StoreError::Io { path: path.to_path_buf(), source },
        })
    }
}

/// Deletes `path`; a file that is not there is no error.
fn remove_if_there(path: PathBuf) -> Result<(), StoreError> {
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Io { path, source: e }),
        _ => Ok(()),
    }
}
