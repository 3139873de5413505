//! The requests table's two parts and their generations. The base
//! (`requests.parquet`) carries a generation number in its Parquet metadata,
//! incremented by every rewrite (a fold); the recent part
//! (`requests-recent.parquet`) names the generation of the base it extends.
//! Writers hold the store's lock; readers do not, so a reader opens the base,
//! then the recent part, and checks that the two belong together: a recent
//! part of the base's generation always does; without one, the base must
//! still be the current one (else a fold replaced it, and removed or
//! rewrote the recent part, between the two opens) and the reader starts
//! over. A recent part of an older generation is what a fold cut short left
//! behind: its rows are already in the base, and it is ignored.

use super::{Store, StoreError, Table};
use polars::prelude::*;
use std::fs::File;
use std::io::{BufReader, Seek};
use std::path::PathBuf;

/// Parquet metadata key: the generation of the base requests file, which a
/// recent part must name to count.
const GENERATION: &str = "cachewise.requests_generation";

/// How many times a reader starts over while writers keep folding.
const TRIES: usize = 20;

impl Store {
    /// The files that hold the requests, opened together: the base, and the
    /// recent part when it extends this base. Reading through these handles
    /// sees one generation of the table even while another process rewrites
    /// it. A base the manifest says was written, but that is gone, is an
    /// error (`Missing`), not an empty table.
    pub fn open_requests(&self) -> Result<Vec<(Table, File)>, StoreError> {
        self.open_requests_with(|| {})
    }

    /// `open_requests`, running `between` after the base is opened and before
    /// the recent part is (tests change the store there).
    fn open_requests_with(&self, mut between: impl FnMut()) -> Result<Vec<(Table, File)>, StoreError> {
        for _ in 0..TRIES {
            let Some((base, generation)) = self.open_generation(Table::Requests)? else {
                self.check_not_missing()?;
                return Ok(Vec::new());
            };
            between();
            let mut parts = vec![(Table::Requests, base)];
            match self.open_generation(Table::RecentRequests)? {
                Some((recent, g)) if g == generation => {
                    parts.push((Table::RecentRequests, recent));
                    return Ok(parts);
                }
                _ if self.generation(Table::Requests)? == Some(generation) => return Ok(parts),
                _ => tracing::debug!("requests generation {generation} was replaced while opening; again"),
            }
        }
        Err(StoreError::Busy { dir: self.dir.clone(), tries: TRIES })
    }

    /// A missing base is fine in a store never written, and damage otherwise.
    fn check_not_missing(&self) -> Result<(), StoreError> {
        let m = self.manifest()?;
        match m.files.is_empty() && m.updated.is_none() {
            true => Ok(()),
            false => Err(StoreError::Missing { path: self.path(Table::Requests), files: m.files.len() }),
        }
    }

    /// Only `columns` of the requests (base then recent part, one
    /// generation); None when the table was never written.
    pub fn read_request_columns(&self, columns: &[&str]) -> Result<Option<DataFrame>, StoreError> {
        self.read_requests(Some(columns.iter().map(|s| (*s).to_owned()).collect()))
    }

    /// The requests (base then recent part, one generation), all columns
    /// or only `names`; None when the table was never written.
    pub(super) fn read_requests(&self, names: Option<Vec<String>>) -> Result<Option<DataFrame>, StoreError> {
        let mut out: Option<DataFrame> = None;
        for (part, file) in self.open_requests()? {
            let df = ParquetReader::new(BufReader::new(file))
                .with_columns(names.clone())
                .finish()
                .map_err(|e| StoreError::damaged(self.path(part), &e))?;
            match &mut out {
                None => out = Some(df),
                Some(o) => {
                    o.vstack_mut_owned(df).map_err(|source| StoreError::Polars { path: self.path(part), source })?;
                }
            }
        }
        Ok(out)
    }

    /// The stored requests as a lazy frame over the parts `open_requests`
    /// opened (None when nothing was ingested): a query reads only the
    /// columns it uses.
    pub fn scan_requests(&self) -> Result<Option<LazyFrame>, StoreError> {
        let files: Vec<File> = self.open_requests()?.into_iter().map(|(_, f)| f).collect();
        if files.is_empty() {
            return Ok(None);
        }
        let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
        LazyFrame::scan_parquet_sources(ScanSources::Files(files.into()), args)
            .map(Some)
            .map_err(|source| StoreError::Polars { path: self.path(Table::Requests), source })
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
        let meta = probe.get_metadata().map_err(|e| StoreError::damaged(path.clone(), &e))?;
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
        let next = self.next_generation()?;
        self.write_with(Table::Requests, df, next)?;
        self.remove(Table::RecentRequests)
    }

    /// The generation a new base gets: one past the current (readable) base.
    fn next_generation(&self) -> Result<u64, StoreError> {
        match self.generation(Table::Requests) {
            Ok(g) => Ok(g.map_or(1, |g| g + 1)),
            // A base being rebuilt over a damaged one starts a new count.
            Err(StoreError::Damaged { .. }) => Ok(1),
            Err(e) => Err(e),
        }
    }

    /// Writes the requests as a new base from frames made one at a time, so
    /// only one batch of rows is ever a DataFrame; `schema` is the table's.
    pub fn write_requests_base_batches(
        &self,
        schema: &Schema,
        batches: impl Iterator<Item = PolarsResult<DataFrame>>,
    ) -> Result<(), StoreError> {
        let meta = generation_meta(self.next_generation()?);
        self.atomic_write(&self.path(Table::Requests), |w| {
            let mut writer = self.parquet_writer(w).with_key_value_metadata(Some(meta)).batched(schema)?;
            for df in batches {
                writer.write_batch(&df?)?;
            }
            writer.finish().map(|_| ())
        })?;
        self.remove(Table::RecentRequests)
    }

    /// Writes the requests as a new base joined from files without decoding
    /// them (`concat`): the stored parts, then `more` (Parquet files of the
    /// table's schema in this store's codec, such as a scratch store's
    /// requests). Returns the rows it holds, or None, with the table as it
    /// was, when a file's schema differs (the caller encodes the rows).
    pub fn concat_requests_base(&self, more: &[PathBuf]) -> Result<Option<u64>, StoreError> {
        let mut files: Vec<(PathBuf, File)> =
            self.open_requests()?.into_iter().map(|(t, f)| (self.path(t), f)).collect();
        for p in more {
            let file = File::open(p).map_err(|source| StoreError::Io { path: p.clone(), source })?;
            files.push((p.clone(), file));
        }
        let set = [(GENERATION, self.next_generation()?.to_string())];
        let rows = self.join_files(&self.path(Table::Requests), files, &set, true)?;
        if rows.is_some() {
            self.remove(Table::RecentRequests)?;
        }
        Ok(rows)
    }

    /// Writes the requests merged since the base was written.
    pub fn write_requests_recent(&self, df: &mut DataFrame) -> Result<(), StoreError> {
        let base = self.generation(Table::Requests)?.unwrap_or(0);
        self.write_with(Table::RecentRequests, df, base)
    }

    fn write_with(&self, t: Table, df: &mut DataFrame, generation: u64) -> Result<(), StoreError> {
        let path = self.path(t);
        let meta = generation_meta(generation);
        self.atomic_write(&path, |w| self.parquet_writer(w).with_key_value_metadata(Some(meta)).finish(df).map(|_| ()))
    }
}

fn generation_meta(generation: u64) -> KeyValueMetadata {
    KeyValueMetadata::from_static(vec![(GENERATION.to_owned(), generation.to_string())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::columns as c;
    use crate::store::frames;
    use std::fs;

    fn frame(ids: &[&str]) -> DataFrame {
        let mut df = DataFrame::new(ids.len(), vec![Column::new(c::MESSAGE_ID.into(), ids.to_vec())]).unwrap();
        df.rechunk_mut();
        df
    }

    fn ids_of(store: &Store, parts: Vec<(Table, File)>) -> Vec<String> {
        let mut out = Vec::new();
        for (_, f) in parts {
            let df = ParquetReader::new(BufReader::new(f)).finish().unwrap();
            out.extend(frames::Cols(&df).str(c::MESSAGE_ID).unwrap().into_iter().map(str::to_owned));
        }
        let _ = store;
        out
    }

    fn ids(store: &Store) -> Vec<String> {
        ids_of(store, store.open_requests().unwrap())
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

    #[test]
    fn reader_refuses_mixed_generations() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.write_requests_recent(&mut frame(&["c"])).unwrap();
        // A writer folds between the reader's two opens: base 2 holds c and
        // a new d, and an append writes a recent part of generation 2.
        let mut folded = false;
        let parts = store
            .open_requests_with(|| {
                if !std::mem::replace(&mut folded, true) {
                    store.write_requests_base(&mut frame(&["a", "b", "c", "d"])).unwrap();
                    store.write_requests_recent(&mut frame(&["e"])).unwrap();
                }
            })
            .unwrap();
        assert_eq!(ids_of(&store, parts), ["a", "b", "c", "d", "e"], "old base 1 without its recent part loses c");
        // A fold alone (the recent part removed, none written yet).
        let mut folded = false;
        let parts = store
            .open_requests_with(|| {
                if !std::mem::replace(&mut folded, true) {
                    store.write_requests_base(&mut frame(&["a", "b", "c", "d", "e", "f"])).unwrap();
                }
            })
            .unwrap();
        assert_eq!(ids_of(&store, parts), ["a", "b", "c", "d", "e", "f"]);
        // A store that never settles is refused, not read half.
        let err = store.open_requests_with(|| store.write_requests_base(&mut frame(&["z"])).unwrap()).unwrap_err();
        assert!(matches!(err, StoreError::Busy { tries: TRIES, .. }), "{err}");
    }

    #[test]
    fn joined_files_become_the_base_and_other_schemas_leave_it_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.write_requests_recent(&mut frame(&["c"])).unwrap();
        let generation = store.generation(Table::Requests).unwrap();
        let more = dir.path().join("more.parquet");
        let write = |df: &mut DataFrame| {
            let f = File::create(&more).unwrap();
            store.parquet_writer(f).finish(df).unwrap();
        };
        write(&mut frame(&["d", "e"]));
        assert_eq!(store.concat_requests_base(std::slice::from_ref(&more)).unwrap(), Some(5));
        assert_eq!(ids(&store), ["a", "b", "c", "d", "e"]);
        assert_eq!(store.request_parts().unwrap(), [Table::Requests], "the recent part is folded in");
        assert_eq!(store.generation(Table::Requests).unwrap(), generation.map(|g| g + 1));
        let mut other = DataFrame::new(1, vec![Column::new("other".into(), [1u64])]).unwrap();
        write(&mut other);
        assert_eq!(store.concat_requests_base(std::slice::from_ref(&more)).unwrap(), None);
        assert_eq!(ids(&store), ["a", "b", "c", "d", "e"], "the table is as it was");
    }
}
