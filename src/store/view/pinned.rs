//! A view's small table files: opened with the others, read once (`Pinned`),
//! decoded once (`Decoded`).

use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::fs::File;
use std::io::{Read, Seek};
use std::sync::{Arc, Mutex, OnceLock};

/// A table file opened with the others. Its bytes are read (under a lock,
/// plain I/O) the first time they are needed and kept; decoding happens
/// outside the lock, because polars decodes on its thread pool, where a
/// waiting thread may run another job of the same view that needs the same
/// table (a lock held across the decode would deadlock that thread).
pub(super) struct Pinned {
    raw: Mutex<Raw>,
}

enum Raw {
    Absent,
    File(File),
    Bytes(Arc<[u8]>),
}

impl Pinned {
    /// A file already opened.
    pub(super) fn of(file: File) -> Pinned {
        Pinned { raw: Mutex::new(Raw::File(file)) }
    }

    pub(super) fn open(store: &Store, t: Table) -> Result<Pinned, StoreError> {
        let path = store.path(t);
        let raw = match crate::store::files::open_regular(&path) {
            Ok(f) => Raw::File(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Raw::Absent,
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        Ok(Pinned { raw: Mutex::new(raw) })
    }

    /// The file's bytes (None when there is no such file).
    fn bytes(&self, store: &Store, t: Table) -> Result<Option<Arc<[u8]>>, StoreError> {
        let mut raw = self.raw.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Raw::File(f) = &mut *raw {
            let mut buf = Vec::new();
            let io = |source| StoreError::Io { path: store.path(t), source };
            f.rewind().map_err(io)?;
            f.read_to_end(&mut buf).map_err(io)?;
            *raw = Raw::Bytes(buf.into());
        }
        Ok(match &*raw {
            Raw::Bytes(b) => Some(Arc::clone(b)),
            _ => None,
        })
    }

    /// The file decoded as a frame (None when there is no such file).
    pub(super) fn frame(&self, store: &Store, t: Table) -> Result<Option<DataFrame>, StoreError> {
        let Some(bytes) = self.bytes(store, t)? else { return Ok(None) };
        let df = ParquetReader::new(std::io::Cursor::new(&*bytes)).finish();
        df.map(Some).map_err(|e| StoreError::damaged(store.path(t), &e))
    }
}

/// A value decoded from a `Pinned` file once (two threads asking at once
/// may both decode; the first result is kept).
pub(super) struct Decoded<T> {
    file: Pinned,
    pub(super) value: OnceLock<T>,
}

impl<T> Decoded<T> {
    pub(super) fn open(store: &Store, t: Table) -> Result<Decoded<T>, StoreError> {
        Ok(Decoded { file: Pinned::open(store, t)?, value: OnceLock::new() })
    }

    /// The table's rows (`from` decodes them; an absent file is `empty`).
    pub(super) fn get(
        &self,
        store: &Store,
        t: Table,
        from: impl FnOnce(&DataFrame) -> PolarsResult<T>,
        empty: impl FnOnce() -> T,
    ) -> Result<&T, StoreError> {
        if let Some(v) = self.value.get() {
            return Ok(v);
        }
        let value = match self.file.frame(store, t)? {
            None => empty(),
            Some(df) => from(&df).map_err(|e| StoreError::damaged(store.path(t), &e))?,
        };
        Ok(self.value.get_or_init(|| value))
    }
}
