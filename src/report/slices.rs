//! Reading a stored table a slice at a time: a report that sums, counts or
//! takes extremes over many rows runs over each slice and merges the
//! partial results, so it holds one batch of the table's columns, not the
//! whole table's (on a 20-person team store, hundreds of megabytes less).

use super::query::Query;
use polars::prelude::*;

/// Rows per slice.
pub const BATCH_ROWS: IdxSize = 262_144;

/// Calls `f` with each slice of `scan` (a stored table of `n` rows, as
/// the view counted them) in order; at least once, so an empty table still
/// gives `f` its schema. A query of one person (`Query::user`) takes the
/// whole scan at once: its filter then reaches the Parquet reader, which
/// skips the row groups of everyone else (a filter after a slice cannot).
pub fn for_each_slice(
    scan: &LazyFrame,
    n: usize,
    q: &Query,
    f: impl FnMut(LazyFrame) -> PolarsResult<()>,
) -> PolarsResult<()> {
    for_each_slice_of(scan, n, q, BATCH_ROWS, f)
}

/// `for_each_slice` with slices of `rows` rows.
pub fn for_each_slice_of(
    scan: &LazyFrame,
    n: usize,
    q: &Query,
    rows: IdxSize,
    mut f: impl FnMut(LazyFrame) -> PolarsResult<()>,
) -> PolarsResult<()> {
    if q.user.is_some() {
        return f(scan.clone());
    }
    let mut offset: usize = 0;
    loop {
        f(scan.clone().slice(i64::try_from(offset).unwrap_or(i64::MAX), rows))?;
        offset += rows as usize;
        if offset >= n {
            return Ok(());
        }
    }
}
