//! The cache model as a stage of the pipeline, between `ingest` and the
//! views: after every merge the analysis table (`analysis.parquet`) holds
//! one row per thread request with its class, gap, TTLs, expected prefix,
//! rebuilt tokens, miss cost, prices, what-if policy costs and cold-resume
//! premium (`model::columns`). Only the sessions a merge touched are
//! classified again (a thread never crosses a session); the shared-prefix
//! flags of the what-if, the one figure that crosses sessions, are
//! recomputed over the whole table, columnar. Reports, pages and team SQL
//! then aggregate stored columns. The table carries a stamp of the cache
//! model and the price table it was computed with; a stamp that does not
//! match, or a table that does not read, is recomputed from scratch.

mod rows;
mod sessions;
mod sides;
mod warm;

pub use rows::{analysis_rows, bare, finish, finish_with, requests_of, stored_rates, warm_of, REQUEST, WHAT_IF};
pub use sides::{frames, refresh_sides, Frames};

use crate::analyze::MODEL_VERSION;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::frames::{self, Cols};
use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// Parquet metadata key of the analysis table's stamp.
const STAMP: &str = "cachewise.analysis";
/// The analysis table's layout; bump when its columns change.
const LAYOUT: u32 = 3;

/// What a merge changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Everything (a rebuilt store, new prices): analyse every session.
    All,
    /// The rows of these session ids (any user) changed.
    Sessions(HashSet<String>),
}

/// The stamp of an analysis computed with `prices` by this build.
pub fn stamp(prices: &PriceTable) -> String {
    let p = crate::store::manifest::fingerprint(format!("{:?}", prices.models()).as_bytes());
    format!("{MODEL_VERSION}/{LAYOUT}/{p}")
}

/// Brings the analysis table up to date after a merge; returns its rows.
pub fn refresh(store: &Store, prices: &PriceTable, changed: &Changed) -> Result<usize, StoreError> {
    let clock = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!("analysis: {what} after {:?}", clock.elapsed());
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let kept = match changed {
        Changed::Sessions(s) => match current(store, prices) {
            Ok(Some(old)) => Some((without(&old.drop_many(WHAT_IF), s).map_err(at)?, s)),
            _ => None,
        },
        Changed::All => None,
    };
    let only = kept.as_ref().map(|(_, s)| *s);
    lap("read the stored rows");
    let (new, sides) = compute_with_sides(store, prices, only)?;
    lap("classified");
    let df = match kept {
        Some((mut old, _)) => {
            old.vstack_mut_owned(new).map_err(at)?;
            old
        }
        None => new,
    };
    let n = write(store, prices, df)?;
    lap("wrote the rows");
    sides::store_sides(store, prices, sides, only)?;
    lap("wrote the side tables");
    Ok(n)
}

/// Adds the what-if columns to a whole analysis table (`finish`) and stores
/// it with `prices`'s stamp; returns its rows.
pub fn write(store: &Store, prices: &PriceTable, df: DataFrame) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let clock = std::time::Instant::now();
    let mut df = finish(df).map_err(|source| StoreError::Polars { path: path.clone(), source })?;
    tracing::debug!("analysis: what-if columns in {:?}", clock.elapsed());
    df.rechunk_mut();
    let meta = KeyValueMetadata::from_static(vec![(STAMP.to_owned(), stamp(prices))]);
    store.atomic_write_derived(&path, |w| {
        ParquetWriter::new(w)
            .with_compression(ParquetCompression::Lz4Raw)
            .with_statistics(StatisticsOptions::empty())
            .with_key_value_metadata(Some(meta))
            .finish(&mut df)
            .map(|_| ())
    })?;
    Ok(df.height())
}

/// Stores an analysis table given in parts (each without the what-if
/// columns), a part at a time: the shared-prefix flags are found over all
/// of them first (three columns), then each part gets its what-if columns
/// and is written as a batch. `parts` yields the same frames each time it
/// is called. Returns the rows written.
pub fn write_parts<F>(store: &Store, prices: &PriceTable, parts: F) -> Result<usize, StoreError>
where
    F: Fn() -> Box<dyn Iterator<Item = Result<DataFrame, StoreError>>>,
{
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let mut keys = Vec::new();
    for part in parts() {
        let df = part?;
        keys.push(df.select([c::MODEL, c::VERSION, c::TIME]).map_err(at)?);
    }
    let (w5, w1) = warm_of(&keys.iter().collect::<Vec<_>>()).map_err(at)?;
    drop(keys);
    let meta = KeyValueMetadata::from_static(vec![(STAMP.to_owned(), stamp(prices))]);
    let mut rows = 0;
    let mut failed: Option<StoreError> = None;
    store
        .atomic_write(&path, |w| {
            let mut writer: Option<polars::io::parquet::write::BatchedWriter<_>> = None;
            for part in parts() {
                let df = match part {
                    Ok(df) => df,
                    Err(e) => {
                        failed = Some(e);
                        return Err(PolarsError::ComputeError("a part of the analysis did not read".into()));
                    }
                };
                let n = df.height();
                let mut df = finish_with(df, w5[rows..rows + n].to_vec(), w1[rows..rows + n].to_vec())?;
                df.rechunk_mut();
                rows += n;
                if writer.is_none() {
                    let pw = ParquetWriter::new(&mut *w)
                        .with_compression(ParquetCompression::Lz4Raw)
                        .with_key_value_metadata(Some(meta.clone()));
                    writer = Some(pw.batched(df.schema())?);
                }
                if let Some(wr) = &mut writer {
                    wr.write_batch(&df)?;
                }
            }
            match writer {
                Some(wr) => wr.finish().map(|_| ()),
                None => Ok(()),
            }
        })
        .map_err(|e| failed.take().unwrap_or(e))?;
    Ok(rows)
}

/// The analysis rows (without the what-if columns) of every stored
/// session, computed now (team import analyses one person's bundles so).
pub fn rows(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    compute(store, prices, None)
}

/// The stored analysis table when it was computed with `prices` by this
/// build; None when there is none or its stamp differs.
pub fn current(store: &Store, prices: &PriceTable) -> Result<Option<DataFrame>, StoreError> {
    let path = store.path(Table::Analysis);
    let Some(file) = open_current(store, prices)? else { return Ok(None) };
    ParquetReader::new(std::io::BufReader::new(file)).finish().map(Some).map_err(|e| StoreError::damaged(path, &e))
}

/// The stored analysis file, opened, when its stamp is `prices`'s; the
/// handle reads this version even if a merge replaces the file meanwhile.
pub(crate) fn open_current(store: &Store, prices: &PriceTable) -> Result<Option<std::fs::File>, StoreError> {
    use std::io::Seek;
    let path = store.path(Table::Analysis);
    let io = |source| StoreError::Io { path: path.clone(), source };
    let mut file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(StoreError::Io { path, source }),
    };
    let mut reader = ParquetReader::new(std::io::BufReader::new(file.try_clone().map_err(io)?));
    let meta = reader.get_metadata().map_err(|e| StoreError::damaged(path.clone(), &e))?;
    let found = meta.key_value_metadata.iter().flatten().find(|kv| kv.key == STAMP);
    if found.and_then(|kv| kv.value.as_deref()) != Some(stamp(prices).as_str()) {
        return Ok(None);
    }
    file.rewind().map_err(io)?;
    Ok(Some(file))
}

/// The analysis of the store as a lazy frame: a scan of the stored table
/// (a query reads only the columns it uses), or, when the table is missing,
/// damaged or was computed with other prices, the analysis computed now in
/// memory (not stored).
pub fn scan(store: &Store, prices: &PriceTable) -> Result<LazyFrame, StoreError> {
    let path = store.path(Table::Analysis);
    match open_current(store, prices) {
        Ok(Some(file)) => {
            let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
            LazyFrame::scan_parquet_sources(ScanSources::Files(vec![file].into()), args)
                .map_err(|source| StoreError::Polars { path, source })
        }
        Ok(None) | Err(StoreError::Damaged { .. }) => Ok(computed(store, prices)?.lazy()),
        Err(e) => Err(e),
    }
}

/// True when the stored analysis table's footer reads and carries the
/// stamp of `prices` and this build, and the side tables are there (an
/// ingest with nothing new checks this, and recomputes them when false).
pub fn is_current(store: &Store, prices: &PriceTable) -> bool {
    let sides = [Table::AnalysisCompactions, Table::AnalysisSessions];
    matches!(open_current(store, prices), Ok(Some(_))) && sides.iter().all(|t| store.path(*t).exists())
}

/// The analysis of the store, as stored, or computed now (not stored) when
/// the table is missing or was computed with other prices.
pub fn load(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    match current(store, prices) {
        Ok(Some(df)) => Ok(df),
        Ok(None) | Err(StoreError::Damaged { .. }) => computed(store, prices),
        Err(e) => Err(e),
    }
}

/// The whole analysis computed now from the stored rows (not stored).
pub(crate) fn computed(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    let path = store.path(Table::Analysis);
    let df = compute(store, prices, None)?;
    finish(df).map_err(|source| StoreError::Polars { path, source })
}

/// `df` without the rows of `sessions`.
fn without(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    let ids = Cols(df).str(c::SESSION_ID)?;
    let keep: BooleanChunked = ids.iter().map(|s| !sessions.contains(*s)).collect();
    df.drop_many(rows::WHAT_IF).filter(&keep)
}

/// The analysis rows (without what-if columns) of every session, or of
/// `only` these session ids.
fn compute(store: &Store, prices: &PriceTable, only: Option<&HashSet<String>>) -> Result<DataFrame, StoreError> {
    Ok(analysed(store, prices, only, false)?.0)
}

/// `compute`, with the side tables of the same sessions.
fn compute_with_sides(
    store: &Store,
    prices: &PriceTable,
    only: Option<&HashSet<String>>,
) -> Result<(DataFrame, [DataFrame; 2]), StoreError> {
    let (rows, sides) = analysed(store, prices, only, true)?;
    Ok((rows, sides.unwrap_or_else(sides::empty_sides)))
}

/// The analysis rows of every session, or of `only` these, and (`sides`)
/// their side tables.
fn analysed(
    store: &Store,
    prices: &PriceTable,
    only: Option<&HashSet<String>>,
    sides: bool,
) -> Result<(DataFrame, Option<[DataFrame; 2]>), StoreError> {
    let path = store.path(Table::Requests);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let df = match (
        only,
        crate::report::usage::requests(store).map_err(|e| StoreError::Polars {
            path: path.clone(),
            source: PolarsError::ComputeError(e.to_string().into()),
        })?,
    ) {
        (_, None) => None,
        // A few sessions (an append): a pushed-down filter.
        (Some(s), Some(lf)) if s.len() <= 64 => {
            let any = s.iter().map(|id| col(c::SESSION_ID).eq(lit(id.clone()))).reduce(Expr::or);
            Some(lf.filter(any.unwrap_or(lit(false))).collect().map_err(at)?)
        }
        (Some(s), Some(lf)) => {
            let df = lf.collect().map_err(at)?;
            let ids = Cols(&df).str(c::SESSION_ID).map_err(at)?;
            let mask: BooleanChunked = ids.iter().map(|x| s.contains(*x)).collect();
            Some(df.filter(&mask).map_err(at)?)
        }
        (None, Some(lf)) => Some(lf.collect().map_err(at)?),
    };
    let mut requests = match df {
        Some(df) => frames::requests_from(&df).map_err(at)?,
        None => Vec::new(),
    };
    requests.sort_by(|a, b| (&a.user, &a.session_id).cmp(&(&b.user, &b.session_id)));
    let calls = store.load(Table::Iterations, frames::iterations_from)?;
    let mut compactions = store.load(Table::Compactions, frames::compactions_from)?;
    if let Some(s) = only {
        compactions.retain(|k| s.contains(&k.session_id));
    }
    let thread = prices.thread_requests(requests, &calls);
    let caches = crate::analyze::analyze(&thread, &compactions, prices);
    let rows = analysis_rows(&thread, &caches, prices).map_err(at)?;
    let sides = match sides {
        true => Some([
            sessions::labels_frame(&thread, &compactions).map_err(at)?,
            sessions::reports_frame(&thread, &caches, &compactions, &calls).map_err(at)?,
        ]),
        false => None,
    };
    Ok((rows, sides))
}
