//! The cache model as a stage of the pipeline, between `ingest` and the
//! views: after every merge the analysis table (`analysis.parquet`) holds
//! one row per thread request with its class, gap, TTLs, expected prefix,
//! rebuilt tokens, miss cost, prices, what-if policy costs and cold-resume
//! premium (`model::columns`). Only the sessions a merge touched are
//! classified again (a thread never crosses a session); the shared-prefix
//! flags of the what-if, the one figure that crosses sessions, are
//! recomputed, columnar, over the whole table when it is written whole, and
//! after an append from the earliest row that came or went on, with the
//! sessions the change reaches (`incremental`). Reports, pages and team SQL
//! then aggregate stored columns. The table carries a stamp of the cache
//! model and the price table it was computed with; a stamp that does not
//! match, or a table that does not read, is recomputed from scratch.

mod classify;
mod incremental;
mod joined;
mod rows;
mod side_rows;
mod sides;
mod streamed;
mod view;
mod warm;

pub use crate::store::analysis::collect_sessions;
pub use classify::{classify_sessions, sort_by_session};
pub use joined::write_parts;
pub use rows::{analysis_rows, bare, finish, finish_with, WHAT_IF};
pub use sides::{append_sides, refresh_sides, sides_of};
pub use view::{view, view_after};

use crate::analyze::MODEL_VERSION;
use crate::pricing::PriceTable;
use crate::store::frames;
use crate::store::{Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// The analysis table's layout; bump when its columns change. 5: the
/// v3 columns (backtest, keep-warm ping); 6: with the server's miss
/// reason columns (`columns::REASON_COLUMNS`).
const LAYOUT: u32 = 6;

pub use crate::ingest::Changed;
use crate::model::{Call, Compaction};

/// The stamp of an analysis computed with `prices` by this build.
pub fn stamp(prices: &PriceTable) -> String {
    format!("{MODEL_VERSION}/{LAYOUT}/{}", prices.fingerprint())
}

/// Brings the analysis tables up to date after a merge; returns the
/// analysis rows. Only the sessions `changed` names are classified again,
/// and only the recent part is written (`incremental`), unless the table
/// must be computed whole (no usable stored table, `Changed::All`) or the
/// recent part has grown past `FOLD_AT` rows or an eighth of the base.
pub fn refresh(store: &Commit<'_>, prices: &PriceTable, changed: &Changed) -> Result<usize, StoreError> {
    refresh_folding_at(store, prices, changed, FOLD_AT)
}

/// `refresh`, folding the recent part into the base past `fold_at` rows.
pub fn refresh_folding_at(
    store: &Commit<'_>,
    prices: &PriceTable,
    changed: &Changed,
    fold_at: usize,
) -> Result<usize, StoreError> {
    let stamp = stamp(prices);
    if let Changed::Sessions(sessions) = changed {
        let done = current_parts(store, &stamp).and_then(|parts| {
            compute_with_sides(store, prices, Some(sessions))
                .and_then(|mine| incremental::refresh(store, prices, &stamp, parts, sessions, mine, fold_at))
        });
        match done {
            Err(StoreError::Damaged { path, cause }) => {
                tracing::debug!("computing the analysis table again: {}: {cause}", path.display());
            }
            other => return other,
        }
    }
    let (rows, side) = compute_with_sides(store, prices, None)?;
    let n = write(store, prices, rows)?;
    sides::store_sides(store, prices, side, None)?;
    Ok(n)
}

/// The recent part folds into the base past this many rows (or an eighth
/// of the base).
const FOLD_AT: usize = 10_000;

/// The stored analysis parts when they are current and their side tables
/// are there; a `Damaged` error ("stale") when they are not.
fn current_parts(store: &Store, stamp: &str) -> Result<crate::store::parts::Opened, StoreError> {
    match (store.open_analysis(stamp), sides::stored_read(store)) {
        (Ok(Some(parts)), true) => Ok(parts),
        (Ok(_), _) => Err(StoreError::Damaged { path: store.path(Table::Analysis), cause: "stale".into() }),
        (Err(e), _) => Err(e),
    }
}

/// Adds the what-if columns to a whole analysis table (`finish`) and stores
/// it as a new base with `prices`'s stamp; returns its rows.
pub fn write(store: &Commit<'_>, prices: &PriceTable, df: DataFrame) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let clock = std::time::Instant::now();
    let mut df = finish(df).map_err(|source| StoreError::Polars { path: path.clone(), source })?;
    tracing::debug!("analysis: what-if columns in {:?}", clock.elapsed());
    df.rechunk_mut();
    store.write_analysis_base(&mut df, &stamp(prices), store.next_analysis_generation())?;
    Ok(df.height())
}

/// The analysis rows (without the what-if columns) of every stored
/// session, computed now (team import analyzes one person's bundles so).
pub fn rows(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    compute(store, prices, None)
}

/// The stored analysis table when it was computed with `prices` by this
/// build; None when there is none or its stamp differs.
pub fn current(store: &Store, prices: &PriceTable) -> Result<Option<DataFrame>, StoreError> {
    store.open_analysis(&stamp(prices))?.map(|p| store.read_analysis(p)).transpose()
}

/// The stored analysis as a lazy frame when it was computed with `prices`
/// by this build (`Store::scan_analysis`); None otherwise.
pub(crate) fn stored_scan(store: &Store, prices: &PriceTable) -> Result<Option<LazyFrame>, StoreError> {
    store.open_analysis(&stamp(prices))?.map(|p| store.scan_analysis(p)).transpose()
}

/// The analysis of the store as a lazy frame (`stored_scan`), or, when the
/// table is missing, damaged or was computed with other prices, the
/// analysis computed now in memory (not stored).
pub fn scan(store: &Store, prices: &PriceTable) -> Result<LazyFrame, StoreError> {
    match stored_scan(store, prices) {
        Ok(Some(lf)) => Ok(lf),
        Ok(None) | Err(StoreError::Damaged { .. }) => Ok(computed(store, prices)?.lazy()),
        Err(e) => Err(e),
    }
}

/// True when the stored analysis parts' footers read and carry the stamp
/// of `prices` and this build, and the side tables are there (an ingest
/// with nothing new checks this, and computes them again when false).
pub fn is_current(store: &Store, prices: &PriceTable) -> bool {
    matches!(store.open_analysis(&stamp(prices)), Ok(Some(_))) && sides::stored_read(store)
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

/// The whole analysis computed now from the stored rows (not stored),
/// their costs `prices`'s (`Store::requests_priced`): a reader's fallback.
pub(crate) fn computed(store: &Store, prices: &PriceTable) -> Result<DataFrame, StoreError> {
    let path = store.path(Table::Analysis);
    let df = analyzed(store, store.requests_priced(prices)?, prices, None, false)?.0;
    finish(df).map_err(|source| StoreError::Polars { path, source })
}

/// The analysis rows (without what-if columns) of every session, or of
/// `only` these session ids. The writers' path: the stored costs are the
/// ones the merge just computed with `prices`.
fn compute(store: &Store, prices: &PriceTable, only: Option<&HashSet<String>>) -> Result<DataFrame, StoreError> {
    Ok(analyzed(store, store.scan_requests()?, prices, only, false)?.0)
}

/// `compute`, with the side tables of the same sessions.
fn compute_with_sides(
    store: &Store,
    prices: &PriceTable,
    only: Option<&HashSet<String>>,
) -> Result<(DataFrame, [DataFrame; 2]), StoreError> {
    let (rows, sides) = analyzed(store, store.scan_requests()?, prices, only, true)?;
    Ok((rows, sides.unwrap_or_else(sides::empty_sides)))
}

/// The analysis rows of every session of `requests` (the stored requests),
/// or of `only` these, and (`sides`) their side tables.
fn analyzed(
    store: &Store,
    requests: Option<LazyFrame>,
    prices: &PriceTable,
    only: Option<&HashSet<String>>,
    sides: bool,
) -> Result<(DataFrame, Option<[DataFrame; 2]>), StoreError> {
    let path = store.path(Table::Requests);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let clock = std::time::Instant::now();
    let df = match (only, requests) {
        (_, None) => None,
        (Some(s), Some(lf)) => Some(collect_sessions(lf, s).map_err(at)?),
        (None, Some(lf)) => Some(lf.collect().map_err(at)?),
    };
    let calls = store.load(Table::Calls, frames::calls_from)?;
    let compactions = store.load(Table::Compactions, frames::compactions_from)?;
    tracing::debug!("analysis: requests and their side rows read in {:?}", clock.elapsed());
    classified(store, df, &calls, compactions, prices, only, sides)
}

/// The analysis rows of the requests of `df` (of `only` these sessions, if
/// given), with `calls` and the boundaries of `compactions`, and (`sides`)
/// their side tables.
fn classified(
    store: &Store,
    df: Option<DataFrame>,
    calls: &[Call],
    mut compactions: Vec<Compaction>,
    prices: &PriceTable,
    only: Option<&HashSet<String>>,
    sides: bool,
) -> Result<(DataFrame, Option<[DataFrame; 2]>), StoreError> {
    let at = |source| StoreError::Polars { path: store.path(Table::Requests), source };
    let mut requests = match df {
        Some(df) => frames::requests_from(&df).map_err(at)?,
        None => Vec::new(),
    };
    sort_by_session(&mut requests);
    if let Some(s) = only {
        compactions.retain(|k| s.contains(&k.session_id));
    }
    classify_sessions(&requests, calls, &compactions, prices, sides).map_err(at)
}

/// Stores a whole analysis (`classify_sessions` over every stored request) as a new
/// base and its side tables; returns its rows. A large one is written in
/// slices, one per lane (`write_parts`), so it is encoded on every core.
pub fn store_whole(
    store: &Commit<'_>,
    prices: &PriceTable,
    rows: DataFrame,
    side: [DataFrame; 2],
) -> Result<usize, StoreError> {
    let n = match rows.height() < SLICED_FROM {
        true => write(store, prices, rows)?,
        false => {
            let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
            let size = rows.height().div_ceil(crate::lanes::LANES);
            write_parts(store, prices, crate::lanes::LANES, |i, columns| {
                let part = rows.slice((i * size) as i64, size);
                match columns {
                    Some(c) => part.select(c.iter().copied()).map_err(at),
                    None => Ok(part),
                }
            })?
        }
    };
    sides::store_sides(store, prices, side, None)?;
    Ok(n)
}

/// A whole analysis of this many rows or more is written in slices.
const SLICED_FROM: usize = 32_768;

/// The cache model as the stage after a merge (`ingest::Derive`), with
/// this run's prices.
pub struct Stage<'a> {
    pub prices: &'a PriceTable,
}

impl crate::ingest::Derive for Stage<'_> {
    fn whole(
        &self,
        store: &Commit<'_>,
        mut rows: Vec<&crate::model::Request>,
        calls: &[crate::model::Call],
        boundaries: &[crate::model::Compaction],
    ) -> Result<bool, crate::ingest::IngestError> {
        // Sorted as `classify_sessions` takes them, and classified as
        // references, none copied: the tables are written from the same
        // rows meanwhile.
        let clock = std::time::Instant::now();
        sort_by_session(&mut rows);
        // A chunk at a time, so the whole analysis is never held; whole
        // when there are no rows (or, unexpectedly, the lanes' files do
        // not join).
        if let Some((n, sides)) = streamed::store_streamed(store, self.prices, &rows, calls, boundaries)? {
            sides::store_sides(store, self.prices, sides, None)?;
            tracing::debug!("analysis: {n} rows classified and stored in {:?}", clock.elapsed());
            return Ok(true);
        }
        let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
        let (rows, sides) = classify_sessions(&rows, calls, boundaries, self.prices, true).map_err(at)?;
        let Some(sides) = sides else { return Ok(false) };
        store_whole(store, self.prices, rows, sides)?;
        Ok(true)
    }

    fn after(&self, store: &Commit<'_>, scope: &Changed) -> Result<(), crate::ingest::IngestError> {
        refresh(store, self.prices, scope)?;
        Ok(())
    }

    fn is_current(&self, store: &Store) -> bool {
        is_current(store, self.prices)
    }
}
