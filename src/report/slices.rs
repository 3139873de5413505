//! Reading a stored table a slice at a time: a report that sums, counts or
//! takes extremes over many rows runs over each slice and merges the
//! partial results, so it holds one batch of the table's columns, not the
//! whole table's (on a 20-person team store, hundreds of megabytes less).
//! `for_each_frame` reads the next slice while the caller sums the last.

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

/// `for_each_slice` with each slice made a frame by `make` on a thread of
/// its own, one slice ahead of `f`: the next slice is read and decoded
/// while `f` sums the last, in the same order (the same sums to the last
/// bit). At most two slices' frames are held, and one being made.
pub fn for_each_frame(
    scan: &LazyFrame,
    n: usize,
    q: &Query,
    make: impl Fn(LazyFrame) -> PolarsResult<DataFrame> + Sync,
    mut f: impl FnMut(&DataFrame) -> PolarsResult<()>,
) -> PolarsResult<()> {
    if q.user.is_some() || n <= BATCH_ROWS as usize {
        return for_each_slice(scan, n, q, |slice| f(&make(slice)?));
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<PolarsResult<DataFrame>>(0);
        let make = &make;
        s.spawn(move || {
            // Stops at the first error, or when the receiver is gone (`f`
            // failed): the error that ends the loop is the receiver's.
            let _ = for_each_slice(scan, n, q, |slice| {
                let frame = make(slice);
                let failed = frame.is_err();
                match tx.send(frame) {
                    Ok(()) if !failed => Ok(()),
                    _ => Err(PolarsError::ComputeError("stopped".into())),
                }
            });
        });
        rx.into_iter().try_for_each(|frame| f(&frame?))
    })
}
