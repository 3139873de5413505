//! The refresh after a merge that changed some sessions: those sessions are
//! classified again; the sessions the recent part already replaces keep
//! their rows; the shared-prefix flags are computed over the whole table,
//! reading only the base's key columns. A base row whose flags change
//! moves, with the rest of its session, into the recent part (for live
//! appends, whose requests are the latest, none do). Then the recent part
//! alone is written, or folded with the base into a new base once it grows.

use super::rows::{finish_with, WHAT_IF};
use super::warm::warm_flags;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::analysis::{of_sessions, without};
use crate::store::frames::Cols;
use crate::store::parts::Opened;
use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// The base's columns that the shared-prefix flags need.
const KEYS: [&str; 6] = [c::SESSION_ID, c::MODEL, c::VERSION, c::TIME, c::WARM_5M, c::WARM_1H];

/// Refreshes the rows of `changed` on top of the stored `parts`; returns
/// the rows of the whole table.
pub(super) fn refresh(
    store: &Store,
    prices: &PriceTable,
    stamp: &str,
    mut parts: Opened,
    changed: &HashSet<String>,
    fold_at: usize,
) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let clock = std::time::Instant::now();
    let lap = |what: &str| tracing::debug!("analysis: {what} after {:?}", clock.elapsed());
    let mut sessions: HashSet<String> = parts.replaces.union(changed).cloned().collect();
    let (mut mine, side) = super::compute_with_sides(store, prices, Some(changed))?;
    lap("classified the changed sessions");
    if let Some(recent) = store.read_analysis_recent(&mut parts)? {
        let kept = without(&recent.drop_many(WHAT_IF), changed).map_err(at)?;
        mine.vstack_mut_owned(kept).map_err(at)?;
    }
    let missing = || StoreError::Damaged { path: path.clone(), cause: "missing".into() };
    let keys = store.read_file(Table::Analysis, Some(&KEYS))?.ok_or_else(missing)?;
    loop {
        let outside = without(&keys, &sessions).map_err(at)?;
        let (w5, w1) = warm_flags(&[&outside, &mine]).map_err(at)?;
        let n = outside.height();
        let moved = moved(&outside, &w5[..n], &w1[..n]).map_err(at)?;
        if moved.is_empty() {
            let mine = finish_with(mine, w5[n..].to_vec(), w1[n..].to_vec()).map_err(at)?;
            tracing::debug!(
                "analysis: {} rows of {} sessions finished after {:?}",
                mine.height(),
                sessions.len(),
                clock.elapsed()
            );
            let rows = write(store, stamp, parts.generation, mine, &sessions, (n, fold_at))?;
            super::sides::store_sides(store, prices, side, Some(changed))?;
            return Ok(rows);
        }
        tracing::debug!("analysis: the shared-prefix flags of {} stored session(s) changed", moved.len());
        let base = store.read_file(Table::Analysis, None)?.ok_or_else(missing)?;
        let rows = base.filter(&of_sessions(&base, &moved).map_err(at)?).map_err(at)?;
        mine.vstack_mut_owned(rows.drop_many(WHAT_IF)).map_err(at)?;
        sessions.extend(moved);
    }
}

/// Sessions of base rows whose stored flags differ from `w5`/`w1`.
fn moved(outside: &DataFrame, w5: &[bool], w1: &[bool]) -> PolarsResult<HashSet<String>> {
    let k = Cols(outside);
    let (ids, s5, s1) = (k.str(c::SESSION_ID)?, k.bool(c::WARM_5M)?, k.bool(c::WARM_1H)?);
    let differs = |&i: &usize| s5[i] != w5[i] || s1[i] != w1[i];
    Ok((0..outside.height()).filter(differs).map(|i| ids[i].to_owned()).collect())
}

/// Writes `mine` (the rows of `sessions`) as the recent part, or folds it
/// with the base's other rows (`base_rows` of them) into a new base when
/// it passes `fold_at` rows or an eighth of the base.
fn write(
    store: &Store,
    stamp: &str,
    generation: u64,
    mut mine: DataFrame,
    sessions: &HashSet<String>,
    (base_rows, fold_at): (usize, usize),
) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    if mine.height() <= fold_at.max(base_rows / 8) {
        mine.rechunk_mut();
        store.write_analysis_recent(&mut mine, stamp, generation, sessions)?;
        return Ok(base_rows + mine.height());
    }
    let base = store.read_file(Table::Analysis, None)?;
    let base = base.ok_or_else(|| StoreError::Damaged { path: path.clone(), cause: "missing".into() })?;
    let mut all = without(&base, sessions).map_err(at)?;
    all.vstack_mut_owned(mine).map_err(at)?;
    all.rechunk_mut();
    store.write_analysis_base(&mut all, stamp, generation + 1)?;
    Ok(all.height())
}
