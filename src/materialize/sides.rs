//! The analysis side tables kept beside the analysis rows, per session:
//! compaction labels (`analysis-compactions.parquet`) and the session
//! table (`analysis-sessions.parquet`: last main-thread request, models,
//! compaction report). An ingest makes them in the same classification
//! that makes the analysis rows (`classify`, asked for the sides), and this
//! module stores them. Where only analysis rows are at hand, they are
//! derived from those rows of whole sessions, classified again in memory
//! (the verdicts are the given ones) a person or a set of sessions at a
//! time (`side_frames`): a team import's new people (`sides_of`, whether
//! the rows are a bundle's own analysis or computed), an analysis a view
//! computes in memory, and stored side tables that do not read
//! (`refresh_sides`). `materialize::view` hands views the three tables
//! (`store::view::AnalysisFrames`).

use super::side_rows::{labels_frame, session_analysis_frame};
use super::Changed;
use crate::analyze::analyze;
use crate::model::columns as c;
use crate::model::columns::ANALYSIS_REQUEST as REQUEST;
use crate::model::{Call, Compaction};
use crate::pricing::PriceTable;
use crate::store::analysis::{collect_sessions, without};
use crate::store::frames::requests_of;
use crate::store::frames::{self, Cols};
use crate::store::{Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// The side tables of the analysis rows `rows` (whole sessions).
pub(super) fn side_frames(
    rows: &DataFrame,
    compactions: &[Compaction],
    calls: &[Call],
    prices: &PriceTable,
) -> PolarsResult<[DataFrame; 2]> {
    let thread = requests_of(rows)?;
    let ids: HashSet<(&str, &str)> = thread.iter().map(|r| (r.user.as_str(), r.session_id.as_str())).collect();
    let comps: Vec<Compaction> =
        compactions.iter().filter(|k| ids.contains(&(k.user.as_str(), k.session_id.as_str()))).cloned().collect();
    let caches = analyze(&thread, &comps, prices);
    Ok([labels_frame(&thread, &comps)?, session_analysis_frame(&thread, &caches, &comps, calls)?])
}

/// The analysis rows `filter` selects, with the columns a request needs.
fn rows_where(scan: &LazyFrame, filter: Expr) -> PolarsResult<DataFrame> {
    scan.clone().filter(filter).select(REQUEST.map(col)).collect()
}

/// Brings the side tables up to date with the stored analysis rows: the
/// sessions `changed` names, or every person's, one person at a time.
pub fn refresh_sides(store: &Commit<'_>, prices: &PriceTable, changed: &Changed) -> Result<(), StoreError> {
    let path = store.path(Table::SessionAnalysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let scan = super::scan(store, prices)?;
    let compactions = store.load(Table::Compactions, frames::compactions_from)?;
    let calls = store.load(Table::Calls, frames::calls_from)?;
    let old = match changed {
        Changed::Sessions(s) => stored(store)?.map(|t| (t, s)),
        Changed::All => None,
    };
    let mut parts: Vec<[DataFrame; 2]> = Vec::new();
    match &old {
        Some(([labels, reports], sessions)) => {
            parts.push([without(labels, sessions).map_err(at)?, without(reports, sessions).map_err(at)?]);
            let rows = collect_sessions(scan.clone().select(REQUEST.map(col)), sessions).map_err(at)?;
            parts.push(side_frames(&rows, &compactions, &calls, prices).map_err(at)?);
        }
        None => {
            let users =
                scan.clone().select([col(c::USER)]).unique(None, UniqueKeepStrategy::Any).collect().map_err(at)?;
            let mut users: Vec<String> =
                Cols(&users).str(c::USER).map_err(at)?.into_iter().map(str::to_owned).collect();
            users.sort_unstable();
            for u in users {
                let rows = rows_where(&scan, col(c::USER).eq(lit(u))).map_err(at)?;
                parts.push(side_frames(&rows, &compactions, &calls, prices).map_err(at)?);
            }
        }
    }
    write_sides(store, stack(parts).map_err(at)?)
}

/// The side tables of one person's analysis rows `rows` (whole sessions,
/// every `REQUEST` column), with `store`'s compactions and calls: what
/// `refresh_sides` derives for that person, since a person's side rows
/// depend on their own sessions alone (a team import computes them in the
/// person's scratch store, from rows a fraction of the team's).
pub fn sides_of(store: &Store, rows: &DataFrame, prices: &PriceTable) -> Result<[DataFrame; 2], StoreError> {
    let at = |source| StoreError::Polars { path: store.path(Table::SessionAnalysis), source };
    let compactions = store.load(Table::Compactions, frames::compactions_from)?;
    let calls = store.load(Table::Calls, frames::calls_from)?;
    side_frames(rows, &compactions, &calls, prices).map_err(at)
}

/// Stores the side tables of sessions the store did not hold (`sides_of`
/// each), after the stored tables' rows when `onto_stored` (else they are
/// the whole tables). Stored tables that do not read are derived again
/// for every session.
pub fn append_sides(
    store: &Commit<'_>,
    prices: &PriceTable,
    new: Vec<[DataFrame; 2]>,
    onto_stored: bool,
) -> Result<(), StoreError> {
    let at = |source| StoreError::Polars { path: store.path(Table::SessionAnalysis), source };
    let mut parts = Vec::with_capacity(new.len() + 1);
    if onto_stored {
        match stored(store)? {
            Some(old) => parts.push(old),
            None => return refresh_sides(store, prices, &Changed::All),
        }
    }
    parts.extend(new);
    write_sides(store, stack(parts).map_err(at)?)
}

/// Writes side frames computed for `only` these sessions (merged with the
/// stored tables' other sessions), or for every session.
pub(super) fn store_sides(
    store: &Commit<'_>,
    prices: &PriceTable,
    new: [DataFrame; 2],
    only: Option<&HashSet<String>>,
) -> Result<(), StoreError> {
    let at = |source| StoreError::Polars { path: store.path(Table::SessionAnalysis), source };
    let mut parts = Vec::new();
    if let Some(sessions) = only {
        match stored(store)? {
            Some([labels, reports]) => {
                parts.push([without(&labels, sessions).map_err(at)?, without(&reports, sessions).map_err(at)?]);
            }
            // Side tables lost while the rows were kept: every session's.
            None => return refresh_sides(store, prices, &Changed::All),
        }
    }
    parts.push(new);
    write_sides(store, stack(parts).map_err(at)?)
}

/// Empty side tables.
pub(super) fn empty_sides() -> [DataFrame; 2] {
    stack(Vec::new()).unwrap_or_else(|_| [DataFrame::empty(), DataFrame::empty()])
}

/// Writes the side tables (derived: a torn one is computed again).
fn write_sides(store: &Commit<'_>, [labels, reports]: [DataFrame; 2]) -> Result<(), StoreError> {
    let write = |t: Table, mut df: DataFrame| {
        df.rechunk_mut();
        // Waited for on disk: a side table torn by a power loss would take
        // every page that reads it down.
        store.atomic_write(&store.path(t), |w| store.parquet_writer(w).finish(&mut df).map(|_| ()))
    };
    // The two at once, on two cores.
    let (a, b) = rayon::join(|| write(Table::AnalysisCompactions, labels), || write(Table::SessionAnalysis, reports));
    a.and(b)
}

/// True when both side tables are there.
pub(super) fn stored_read(store: &Store) -> bool {
    [Table::AnalysisCompactions, Table::SessionAnalysis].iter().all(|t| store.footer_reads(*t))
}

/// The stored side tables, when both read.
fn stored(store: &Store) -> Result<Option<[DataFrame; 2]>, StoreError> {
    let read = |t: Table| match store.read_file(t, None) {
        Ok(df) => Ok(df),
        Err(StoreError::Damaged { .. }) => Ok(None),
        Err(e) => Err(e),
    };
    let (labels, reports) = rayon::join(|| read(Table::AnalysisCompactions), || read(Table::SessionAnalysis));
    Ok(labels?.zip(reports?).map(|(l, r)| [l, r]))
}

/// The parts stacked, table by table (empty tables when there are none).
pub(super) fn stack(parts: Vec<[DataFrame; 2]>) -> PolarsResult<[DataFrame; 2]> {
    let mut out: Option<[DataFrame; 2]> = None;
    for [l, r] in parts {
        match &mut out {
            None => out = Some([l, r]),
            Some([ol, or]) => {
                ol.vstack_mut_owned(l)?;
                or.vstack_mut_owned(r)?;
            }
        }
    }
    match out {
        Some(o) => Ok(o),
        None => Ok([
            labels_frame::<crate::model::Request>(&[], &[])?,
            session_analysis_frame::<crate::model::Request>(&[], &[], &[], &[])?,
        ]),
    }
}
