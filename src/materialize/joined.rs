//! The analysis table stored from parts (each without the what-if
//! columns): the shared-prefix flags are found over every part first (three
//! columns), then each part gets its what-if columns and is encoded into a
//! file of its own in one of two lanes (`crate::lanes`), and the files are
//! joined without decoding (`Commit::join_files`) into a new base. A team
//! import so writes its 1.7M analysis rows on both cores. Parts whose
//! schemas differ are written by one writer a batch at a time instead.
//! Hands `team::append` the rows written.

use super::warm::WarmKeys;
use super::{finish_with, stamp};
use crate::lanes;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::{Commit, StoreError, Table};
use polars::io::parquet::write::BatchedWriter;
use polars::prelude::*;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

/// The shared-prefix flags of every row, and where each part starts.
struct Flags {
    starts: Vec<usize>,
    w5: Vec<bool>,
    w1: Vec<bool>,
}

impl Flags {
    /// Part `i` with its what-if columns, a chunk of the part at a time:
    /// each chunk gets its own columns and is handed to `write` (one row
    /// group each), so no column of the part is copied into one buffer (a
    /// whole part's rechunk was the cold ingest's largest allocation).
    /// Returns the rows written.
    fn write_part(&self, i: usize, mut df: DataFrame, write: &mut Piece<'_>) -> PolarsResult<usize> {
        let (from, rows) = (self.starts[i], df.height());
        if rows == 0 {
            return write(&finish_with(df, Vec::new(), Vec::new())?).map(|()| 0);
        }
        let mut at = from;
        for piece in df.split_chunks() {
            let h = piece.height();
            let piece = finish_with(piece, self.w5[at..at + h].to_vec(), self.w1[at..at + h].to_vec())?;
            at += h;
            write(&piece)?;
        }
        Ok(rows)
    }
}

/// A batched writer started on the first batch written through it.
struct Lazy<W: std::io::Write, F: FnOnce() -> PolarsResult<ParquetWriter<W>>> {
    open: Option<F>,
    writer: Option<BatchedWriter<W>>,
}

impl<W: std::io::Write, F: FnOnce() -> PolarsResult<ParquetWriter<W>>> Lazy<W, F> {
    fn new(open: F) -> Self {
        Lazy { open: Some(open), writer: None }
    }

    fn write(&mut self, df: &DataFrame) -> PolarsResult<()> {
        if self.writer.is_none() {
            let open = self.open.take().ok_or_else(|| PolarsError::ComputeError("writer opened twice".into()))?;
            self.writer = Some(open()?.batched(df.schema())?);
        }
        match &mut self.writer {
            Some(w) => w.write_batch(df),
            None => Ok(()),
        }
    }

    fn finish(self) -> PolarsResult<()> {
        match self.writer {
            Some(w) => w.finish().map(|_| ()),
            None => Ok(()),
        }
    }
}

/// Stores the analysis table of `n` parts: `load(i, columns)` reads part
/// `i`, only `columns` when given. Returns the rows written.
pub fn write_parts<L>(store: &Commit<'_>, prices: &PriceTable, n: usize, load: L) -> Result<usize, StoreError>
where
    L: Fn(usize, Option<&[&str]>) -> Result<DataFrame, StoreError> + Sync,
{
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let key_columns = [c::MODEL, c::VERSION, c::TIME];
    let (mut keys, mut starts, mut rows) = (WarmKeys::default(), Vec::with_capacity(n), 0);
    for i in 0..n {
        let df = load(i, Some(&key_columns))?;
        starts.push(rows);
        rows += df.height();
        keys.add(&df).map_err(at)?;
    }
    let (w5, w1) = keys.flags();
    let flags = Flags { starts, w5, w1 };
    let rows = match joined(store, prices, n, &load, &flags)? {
        Some(rows) => rows,
        None => batched(store, prices, n, &load, &flags)?,
    };
    store.remove(Table::RecentAnalysis)?;
    Ok(rows)
}

/// Each part encoded in a lane, then the files joined; None, with the
/// table as it was, when their schemas differ.
fn joined<L>(
    store: &Commit<'_>,
    prices: &PriceTable,
    n: usize,
    load: &L,
    flags: &Flags,
) -> Result<Option<usize>, StoreError>
where
    L: Fn(usize, Option<&[&str]>) -> Result<DataFrame, StoreError> + Sync,
{
    let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
    encode_joined(store, prices, n, |i, write| {
        let df = load(i, None)?;
        flags.write_part(i, df, write).map_err(at)
    })
}

/// What `encode_joined` hands each item: writes a piece of the table.
pub(super) type Piece<'a> = dyn FnMut(&DataFrame) -> PolarsResult<()> + 'a;

/// Items `0..n` encoded in two lanes (`crate::lanes`), item `i` into a
/// file of its own by `encode(i, write)`, which hands `write` its pieces
/// in order and returns its rows; then the files joined, in item order,
/// into a new analysis base without decoding them. None, with the table
/// as it was, when their schemas differ.
pub(super) fn encode_joined<E>(
    store: &Commit<'_>,
    prices: &PriceTable,
    n: usize,
    encode: E,
) -> Result<Option<usize>, StoreError>
where
    E: Fn(usize, &mut Piece<'_>) -> Result<usize, StoreError> + Sync,
{
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let io = |source| StoreError::Io { path: store.dir().to_path_buf(), source };
    let dir = tempfile::Builder::new().prefix(".analysis-").tempdir_in(store.dir()).map_err(io)?;
    let items: Vec<usize> = (0..n).collect();
    let encoded = lanes::run(&items, lanes::LANES, |&i| -> Result<(PathBuf, File), StoreError> {
        let file = dir.path().join(format!("{i}.parquet"));
        let io = |source| StoreError::Io { path: file.clone(), source };
        let mut out = std::io::BufWriter::new(File::create(&file).map_err(io)?);
        let mut writer = Lazy::new(|| polars_writer(store.analysis_writer(&mut out, "", 0)));
        encode(i, &mut |piece: &DataFrame| writer.write(piece))?;
        writer.finish().map_err(at)?;
        out.flush().map_err(io)?;
        let out = File::open(&file).map_err(io)?;
        Ok((file, out))
    });
    let files = encoded.into_iter().collect::<Result<Vec<_>, _>>()?;
    let set = store.analysis_base_pairs(&stamp(prices), store.next_analysis_generation())?;
    let written = store.join_files(&path, files, &set, false)?;
    Ok(written.map(|rows| usize::try_from(rows).unwrap_or(usize::MAX)))
}

/// A store error inside polars' write callbacks.
fn polars_writer<W: std::io::Write>(w: Result<ParquetWriter<W>, StoreError>) -> PolarsResult<ParquetWriter<W>> {
    w.map_err(|e| PolarsError::ComputeError(e.to_string().into()))
}

/// The parts written by one writer, a batch each.
fn batched<L>(store: &Commit<'_>, prices: &PriceTable, n: usize, load: &L, flags: &Flags) -> Result<usize, StoreError>
where
    L: Fn(usize, Option<&[&str]>) -> Result<DataFrame, StoreError>,
{
    let (stamp, generation) = (stamp(prices), store.next_analysis_generation());
    let mut rows = 0;
    let mut failed: Option<StoreError> = None;
    store
        .atomic_write(&store.path(Table::Analysis), |w| {
            let mut writer = Lazy::new(|| polars_writer(store.analysis_writer(&mut *w, &stamp, generation)));
            for i in 0..n {
                let df = match load(i, None) {
                    Ok(df) => df,
                    Err(e) => {
                        failed = Some(e);
                        return Err(PolarsError::ComputeError("a part of the analysis did not read".into()));
                    }
                };
                rows += flags.write_part(i, df, &mut |piece: &DataFrame| writer.write(piece))?;
            }
            writer.finish()
        })
        .map_err(|e| failed.take().unwrap_or(e))?;
    Ok(rows)
}
