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
mod warm;

pub use rows::{analysis_rows, finish, stored_rates};
pub use sessions::{labels_frame, reports_frame};

use crate::analyze::{analyze, MODEL_VERSION};
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::frames::{self, Cols};
use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Seek};

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

/// The side tables, refreshed with the analysis rows.
const SIDE: [Table; 2] = [Table::AnalysisCompactions, Table::AnalysisSessions];

/// Brings the analysis tables up to date after a merge; returns the
/// analysis rows.
pub fn refresh(store: &Store, prices: &PriceTable, changed: &Changed) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let old = match changed {
        Changed::Sessions(s) => match (current(store, prices), sides(store)) {
            (Ok(Some(rows)), Ok(Some(side))) => Some((rows, side, s)),
            _ => None,
        },
        Changed::All => None,
    };
    let only = old.as_ref().map(|(_, _, s)| *s);
    let new = compute(store, prices, only)?;
    let (rows, side) = match old {
        Some((rows, side, s)) => {
            let rows = stack(without(&rows, s).map(rows::bare), new.rows).map_err(at)?;
            let [labels, reports] = side;
            let labels = stack(without(&labels, s), new.labels).map_err(at)?;
            let reports = stack(without(&reports, s), new.reports).map_err(at)?;
            (rows, [labels, reports])
        }
        None => (new.rows, [new.labels, new.reports]),
    };
    for (t, mut df) in SIDE.into_iter().zip(side) {
        df.rechunk_mut();
        store.write(t, &mut df)?;
    }
    let mut df = finish(rows).map_err(at)?;
    df.rechunk_mut();
    let meta = KeyValueMetadata::from_static(vec![(STAMP.to_owned(), stamp(prices))]);
    store.atomic_write(&path, |w| {
        ParquetWriter::new(w).with_key_value_metadata(Some(meta)).finish(&mut df).map(|_| ())
    })?;
    Ok(df.height())
}

/// The stored side tables, when both read.
fn sides(store: &Store) -> Result<Option<[DataFrame; 2]>, StoreError> {
    let labels = store.read_file(Table::AnalysisCompactions, None)?;
    let reports = store.read_file(Table::AnalysisSessions, None)?;
    Ok(labels.zip(reports).map(|(l, r)| [l, r]))
}

fn stack(kept: PolarsResult<DataFrame>, new: DataFrame) -> PolarsResult<DataFrame> {
    let mut kept = kept?;
    kept.vstack_mut_owned(new)?;
    Ok(kept)
}

/// The stored analysis file, opened, when it was computed with `prices` by
/// this build; None when there is none or its stamp differs.
fn open_current(store: &Store, prices: &PriceTable) -> Result<Option<File>, StoreError> {
    let path = store.path(Table::Analysis);
    let io = |source| StoreError::Io { path: path.clone(), source };
    let mut file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(StoreError::Io { path, source }),
    };
    let mut reader = ParquetReader::new(BufReader::new(file.try_clone().map_err(io)?));
    let meta = reader.get_metadata().map_err(|e| StoreError::damaged(path.clone(), &e))?;
    let found = meta.key_value_metadata.iter().flatten().find(|kv| kv.key == STAMP);
    if found.and_then(|kv| kv.value.as_deref()) != Some(stamp(prices).as_str()) {
        return Ok(None);
    }
    file.rewind().map_err(io)?;
    Ok(Some(file))
}

/// The stored analysis table when it was computed with `prices` by this
/// build; None when there is none or its stamp differs.
pub fn current(store: &Store, prices: &PriceTable) -> Result<Option<DataFrame>, StoreError> {
    let Some(file) = open_current(store, prices)? else { return Ok(None) };
    let path = store.path(Table::Analysis);
    ParquetReader::new(BufReader::new(file)).finish().map(Some).map_err(|e| StoreError::damaged(path, &e))
}

/// The analysis tables as a view reads them.
#[derive(Clone)]
pub struct Frames {
    /// One row per thread request (`analysis.parquet`).
    pub rows: LazyFrame,
    /// Compaction labels (`analysis-compactions.parquet`).
    pub labels: LazyFrame,
    /// Compaction reports (`analysis-sessions.parquet`).
    pub reports: LazyFrame,
}

/// Scans of the stored analysis tables, or the analysis computed now (not
/// stored) when they are missing, damaged or were computed with other
/// prices (`--pricing` on a report with `--no-ingest`).
pub fn frames(store: &Store, prices: &PriceTable) -> Result<Frames, StoreError> {
    let scan = |file: File| {
        let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
        LazyFrame::scan_parquet_sources(ScanSources::Files(vec![file].into()), args)
    };
    let open = |t: Table| File::open(store.path(t)).ok();
    if let (Ok(Some(rows)), Some(labels), Some(reports)) =
        (open_current(store, prices), open(Table::AnalysisCompactions), open(Table::AnalysisSessions))
    {
        let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
        return Ok(Frames {
            rows: scan(rows).map_err(at)?,
            labels: scan(labels).map_err(at)?,
            reports: scan(reports).map_err(at)?,
        });
    }
    let path = store.path(Table::Analysis);
    let a = compute(store, prices, None)?;
    let rows = finish(a.rows).map_err(|source| StoreError::Polars { path, source })?;
    Ok(Frames { rows: rows.lazy(), labels: a.labels.lazy(), reports: a.reports.lazy() })
}

/// The analysis of the store, as stored, or computed now (not stored) when
/// the table is missing or was computed with other prices.
pub fn load(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    match current(store, prices) {
        Ok(Some(df)) => Ok(df),
        Ok(None) | Err(StoreError::Damaged { .. }) => {
            let path = store.path(Table::Analysis);
            let df = compute(store, prices, None)?.rows;
            finish(df).map_err(|source| StoreError::Polars { path, source })
        }
        Err(e) => Err(e),
    }
}

/// `df` without the rows of `sessions`.
fn without(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    let ids = Cols(df).str(c::SESSION_ID)?;
    let keep: BooleanChunked = ids.iter().map(|s| !sessions.contains(*s)).collect();
    df.filter(&keep)
}

/// The analysis of some sessions: rows (without what-if columns), labels
/// and compaction reports.
struct Analysed {
    rows: DataFrame,
    labels: DataFrame,
    reports: DataFrame,
}

/// The analysis of every session, or of `only` these session ids.
fn compute(store: &Store, prices: &PriceTable, only: Option<&HashSet<String>>) -> Result<Analysed, StoreError> {
    let path = store.path(Table::Requests);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let mut requests = match store.read(Table::Requests)? {
        Some(df) => {
            let df = match only {
                Some(s) => {
                    let ids = Cols(&df).str(c::SESSION_ID).map_err(at)?;
                    let mask: BooleanChunked = ids.iter().map(|x| s.contains(*x)).collect();
                    df.filter(&mask).map_err(at)?
                }
                None => df,
            };
            frames::requests_from(&df).map_err(at)?
        }
        None => Vec::new(),
    };
    requests.sort_by(|a, b| (&a.user, &a.session_id).cmp(&(&b.user, &b.session_id)));
    let calls = store.load(Table::Iterations, frames::iterations_from)?;
    let mut compactions = store.load(Table::Compactions, frames::compactions_from)?;
    if let Some(s) = only {
        compactions.retain(|k| s.contains(&k.session_id));
    }
    let thread = prices.thread_requests(requests, &calls);
    let caches = analyze(&thread, &compactions, prices);
    Ok(Analysed {
        rows: analysis_rows(&thread, &caches, prices).map_err(at)?,
        labels: labels_frame(&thread, &compactions).map_err(at)?,
        reports: reports_frame(&thread, &caches, &compactions, &calls).map_err(at)?,
    })
}
