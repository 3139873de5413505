//! The requests table's two parts (`parts::REQUESTS`, the protocol in
//! `store::parts`): opening them as one generation, and writing a new base
//! (a fold) or a recent part. A base the manifest says was written, but
//! that is gone, is an error (`Missing`), not an empty table.

use super::parts::{Footer, Opened, REQUESTS};
use super::{Store, StoreError, Table};
use polars::prelude::*;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

impl Store {
    /// The files that hold the requests, opened together: the base, and the
    /// recent part when it extends this base. Reading through these handles
    /// sees one generation of the table even while another process rewrites
    /// it.
    pub fn open_requests(&self) -> Result<Vec<(Table, File)>, StoreError> {
        self.open_requests_with(|| {})
    }

    /// `open_requests`, running `between` after the base is opened and before
    /// the recent part is (tests change the store there).
    fn open_requests_with(&self, between: impl FnMut()) -> Result<Vec<(Table, File)>, StoreError> {
        Ok(self.opened_requests(between)?.map(|o| o.files(&REQUESTS)).unwrap_or_default())
    }

    /// Both parts opened as one generation (`between` runs after the base
    /// is opened); None when the table was never written.
    fn opened_requests(&self, between: impl FnMut()) -> Result<Option<Opened>, StoreError> {
        let opened = self.open_parts_with(&REQUESTS, None, between)?;
        if opened.is_none() {
            self.check_not_missing()?;
        }
        Ok(opened)
    }

    /// A missing base is fine in a store never written, and damage otherwise.
    pub(crate) fn check_not_missing(&self) -> Result<(), StoreError> {
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
        read_files(self, self.open_requests()?, names)
    }

    /// The stored requests as a lazy frame over the parts `open_requests`
    /// opened (None when nothing was ingested): a query reads only the
    /// columns it uses.
    pub fn scan_requests(&self) -> Result<Option<LazyFrame>, StoreError> {
        Ok(self.scan_requests_counted()?.map(|(lf, _)| lf))
    }

    /// `scan_requests` and how many rows it holds (from the parts'
    /// footers: the recent part only adds rows).
    pub fn scan_requests_counted(&self) -> Result<Option<(LazyFrame, usize)>, StoreError> {
        let Some(opened) = self.opened_requests(|| {})? else { return Ok(None) };
        let rows = usize::try_from(opened.rows).unwrap_or(usize::MAX);
        let files: Vec<File> = opened.files(&REQUESTS).into_iter().map(|(_, f)| f).collect();
        Ok(scan_files(self, files)?.map(|lf| (lf, rows)))
    }

    /// True when the requests base holds `column` (read from its footer
    /// alone); an older layout's base lacks the columns added since. False
    /// when there is no base.
    pub fn requests_base_has(&self, column: &str) -> Result<bool, StoreError> {
        let path = self.path(Table::Requests);
        let file = match super::files::open_regular(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let schema = ParquetReader::new(BufReader::new(file)).schema().map_err(|e| StoreError::damaged(path, &e))?;
        Ok(schema.get(column).is_some())
    }

    /// Which requests files `open_requests` would read.
    pub fn request_parts(&self) -> Result<Vec<Table>, StoreError> {
        Ok(self.open_requests()?.into_iter().map(|(t, _)| t).collect())
    }
}

impl super::Commit<'_> {
    /// Writes the requests as a new base (folding in the recent part, which
    /// is then removed).
    pub fn write_requests_base(&self, df: &mut DataFrame) -> Result<(), StoreError> {
        let generation = self.next_generation_of(&REQUESTS)?;
        let footer = Footer { generation, ..Footer::default() };
        self.write_part(&REQUESTS, Table::Requests, df, &footer, true)?;
        self.remove(Table::RecentRequests)
    }

    /// Writes the requests as a new base from frames made one at a time, so
    /// only one batch of rows is ever a DataFrame; `schema` is the table's.
    pub fn write_requests_base_batches(
        &self,
        schema: &Schema,
        batches: impl Iterator<Item = PolarsResult<DataFrame>>,
    ) -> Result<(), StoreError> {
        let path = self.path(Table::Requests);
        let generation = self.next_generation_of(&REQUESTS)?;
        let footer = Footer { generation, ..Footer::default() };
        let meta = super::parts::footer_meta(&REQUESTS, &footer, &path)?;
        self.atomic_write(&path, |w| {
            let mut writer = self.parquet_writer(w).with_key_value_metadata(Some(meta)).batched(schema)?;
            for df in batches {
                let df = df?;
                // The writer takes a batch of other columns without a word
                // and writes a file no reader opens: refuse it here.
                polars_ensure!(df.schema().as_ref() == schema, SchemaMismatch: "a batch's columns are not the table's");
                writer.write_batch(&df)?;
            }
            writer.finish().map(|_| ())
        })?;
        self.remove(Table::RecentRequests)
    }

    /// Writes the requests as a new base joined from files without decoding
    /// them (`concat`), the stored parts, then `more` (Parquet files of the
    /// table's schema in this store's codec, such as a scratch store's
    /// requests). Returns the rows it holds, or None, with the table as it
    /// was, when a file's schema differs (the caller encodes the rows).
    pub fn concat_requests_base(&self, more: &[PathBuf]) -> Result<Option<u64>, StoreError> {
        let mut files: Vec<(PathBuf, File)> =
            self.open_requests()?.into_iter().map(|(t, f)| (self.path(t), f)).collect();
        for p in more {
            let file = super::files::open_regular(p).map_err(|source| StoreError::Io { path: p.clone(), source })?;
            files.push((p.clone(), file));
        }
        let footer = Footer { generation: self.next_generation_of(&REQUESTS)?, ..Footer::default() };
        let pairs = super::parts::footer_pairs(&REQUESTS, &footer)
            .map_err(|e| StoreError::Damaged { path: self.path(Table::Requests), cause: e.to_string() })?;
        let rows = self.join_files(&self.path(Table::Requests), files, &pairs, true)?;
        if rows.is_some() {
            self.remove(Table::RecentRequests)?;
        }
        Ok(rows)
    }

    /// Writes the requests merged since the base was written.
    pub fn write_requests_recent(&self, df: &mut DataFrame) -> Result<(), StoreError> {
        let footer = Footer { generation: self.generation_of(&REQUESTS)?.unwrap_or(0), ..Footer::default() };
        self.write_part(&REQUESTS, Table::RecentRequests, df, &footer, true)
    }
}

/// The rows of `files` (parts of one table, in order) stacked; None for no file.
pub(super) fn read_files(
    store: &Store,
    files: Vec<(Table, File)>,
    names: Option<Vec<String>>,
) -> Result<Option<DataFrame>, StoreError> {
    let mut out: Option<DataFrame> = None;
    for (part, file) in files {
        let df = ParquetReader::new(BufReader::new(file))
            .with_columns(names.clone())
            .finish()
            .map_err(|e| StoreError::damaged(store.path(part), &e))?;
        match &mut out {
            None => out = Some(df),
            Some(o) => {
                o.vstack_mut_owned(df).map_err(|source| StoreError::Polars { path: store.path(part), source })?;
            }
        }
    }
    Ok(out)
}

/// A lazy scan of already opened Parquet files of one table (None for none).
pub(crate) fn scan_files(store: &Store, files: Vec<File>) -> Result<Option<LazyFrame>, StoreError> {
    if files.is_empty() {
        return Ok(None);
    }
    let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
    LazyFrame::scan_parquet_sources(ScanSources::Files(files.into()), args)
        .map(Some)
        .map_err(|source| StoreError::Polars { path: store.path(Table::Requests), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::columns as c;
    use crate::store::frames;
    use std::fs;

    fn frame(ids: &[&str]) -> DataFrame {
        let users = vec![""; ids.len()];
        let columns = vec![Column::new(c::USER.into(), users), Column::new(c::MESSAGE_ID.into(), ids.to_vec())];
        let mut df = DataFrame::new(ids.len(), columns).unwrap();
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
        store.begin().unwrap().write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.begin().unwrap().write_requests_recent(&mut frame(&["c"])).unwrap();
        assert_eq!(ids(&store), ["a", "b", "c"]);
        assert_eq!(store.request_parts().unwrap(), [Table::Requests, Table::RecentRequests]);
        // A fold cut short after the new base was written: the old recent
        // part is still there, but names the old generation.
        let stale = fs::read(store.path(Table::RecentRequests)).unwrap();
        store.begin().unwrap().write_requests_base(&mut frame(&["a", "b", "c"])).unwrap();
        assert!(!store.path(Table::RecentRequests).exists(), "a fold removes the recent part");
        fs::write(store.path(Table::RecentRequests), stale).unwrap();
        assert_eq!(ids(&store), ["a", "b", "c"], "the stale recent part is not counted twice");
        assert_eq!(store.request_parts().unwrap(), [Table::Requests]);
    }

    #[test]
    fn reader_refuses_mixed_generations() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.begin().unwrap().write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.begin().unwrap().write_requests_recent(&mut frame(&["c"])).unwrap();
        // A writer folds between the reader's two opens: base 2 holds c and
        // a new d, and an append writes a recent part of generation 2.
        let mut folded = false;
        let parts = store
            .open_requests_with(|| {
                if !std::mem::replace(&mut folded, true) {
                    store.begin().unwrap().write_requests_base(&mut frame(&["a", "b", "c", "d"])).unwrap();
                    store.begin().unwrap().write_requests_recent(&mut frame(&["e"])).unwrap();
                }
            })
            .unwrap();
        assert_eq!(ids_of(&store, parts), ["a", "b", "c", "d", "e"], "old base 1 without its recent part loses c");
        // A fold alone (the recent part removed, none written yet).
        let mut folded = false;
        let parts = store
            .open_requests_with(|| {
                if !std::mem::replace(&mut folded, true) {
                    store.begin().unwrap().write_requests_base(&mut frame(&["a", "b", "c", "d", "e", "f"])).unwrap();
                }
            })
            .unwrap();
        assert_eq!(ids_of(&store, parts), ["a", "b", "c", "d", "e", "f"]);
        // A store that never settles is refused, not read half.
        let err = store
            .open_requests_with(|| store.begin().unwrap().write_requests_base(&mut frame(&["z"])).unwrap())
            .unwrap_err();
        assert!(matches!(err, StoreError::Busy { tries: super::super::parts::TRIES, .. }), "{err}");
    }

    #[test]
    fn joined_files_become_the_base_and_other_schemas_leave_it_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.begin().unwrap().write_requests_base(&mut frame(&["a", "b"])).unwrap();
        store.begin().unwrap().write_requests_recent(&mut frame(&["c"])).unwrap();
        let generation = store.generation_of(&REQUESTS).unwrap();
        let more = dir.path().join("more.parquet");
        let write = |df: &mut DataFrame| {
            let f = File::create(&more).unwrap();
            store.parquet_writer(f).finish(df).unwrap();
        };
        write(&mut frame(&["d", "e"]));
        assert_eq!(store.begin().unwrap().concat_requests_base(std::slice::from_ref(&more)).unwrap(), Some(5));
        assert_eq!(ids(&store), ["a", "b", "c", "d", "e"]);
        assert_eq!(store.request_parts().unwrap(), [Table::Requests], "the recent part is folded in");
        assert_eq!(store.generation_of(&REQUESTS).unwrap(), generation.map(|g| g + 1));
        let mut other = DataFrame::new(1, vec![Column::new("other".into(), [1u64])]).unwrap();
        write(&mut other);
        assert_eq!(store.begin().unwrap().concat_requests_base(std::slice::from_ref(&more)).unwrap(), None);
        assert_eq!(ids(&store), ["a", "b", "c", "d", "e"], "the table is as it was");
    }
}
