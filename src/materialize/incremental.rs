//! The refresh after a merge that changed some sessions: those sessions are
//! classified again; the sessions the recent part already replaces keep
//! their rows; the shared-prefix flags are computed again from the
//! earliest changed row on (a TTL before it read too), reading only the
//! base's key columns. A base row whose flags change
//! moves, with the rest of its session, into the recent part (for live
//! appends, whose requests are the latest, none do). Then the recent part
//! alone is written, or folded with the base into a new base once it grows.

use super::rows::{finish_with, WHAT_IF};
use super::warm::{times, warm_flags};
use crate::analyze::{TTL_1H_S, TTL_5M_S};
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::analysis::{of_sessions, without};
use crate::store::frames::Cols;
use crate::store::parts::Opened;
use crate::store::{Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::collections::{HashMap, HashSet};

/// The base's columns that the shared-prefix flags need.
const KEYS: [&str; 6] = [c::SESSION_ID, c::MODEL, c::VERSION, c::TIME, c::WARM_5M, c::WARM_1H];

/// The base's columns the flags need; None when there is no base.
fn read_keys(store: &Store) -> Result<Option<DataFrame>, StoreError> {
    store.read_file(Table::Analysis, Some(&KEYS))
}

/// Refreshes the rows of `changed` on top of the stored `parts`, given
/// those sessions' rows classified again (`classified`: the analysis rows
/// and the side tables); returns the rows of the whole table.
pub(super) fn refresh(
    store: &Commit<'_>,
    prices: &PriceTable,
    stamp: &str,
    mut parts: Opened,
    changed: &HashSet<String>,
    classified: (DataFrame, [DataFrame; 2]),
    fold_at: usize,
) -> Result<usize, StoreError> {
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let clock = std::time::Instant::now();
    let mut sessions: HashSet<String> = parts.replaces.union(changed).cloned().collect();
    let (mut mine, side) = classified;
    // The changed sessions' rows after, then before (in the recent part,
    // or in the base when the recent part does not replace them there).
    let mut change = Change::default();
    change.count(&mine, 1).map_err(at)?;
    if let Some(recent) = store.read_analysis_recent(&mut parts)? {
        let recent = recent.drop_many(WHAT_IF);
        let theirs = of_sessions(&recent, changed).map_err(at)?;
        change.count(&recent.filter(&theirs).map_err(at)?, -1).map_err(at)?;
        mine.vstack_mut_owned(recent.filter(&!&theirs).map_err(at)?).map_err(at)?;
    }
    let missing = || StoreError::Damaged { path: path.clone(), cause: "missing".into() };
    let keys = read_keys(store)?.ok_or_else(missing)?;
    let in_base: HashSet<String> = changed.difference(&parts.replaces).cloned().collect();
    change.count(&keys.filter(&of_sessions(&keys, &in_base).map_err(at)?).map_err(at)?, -1).map_err(at)?;
    let from = change.earliest();
    loop {
        let outside = without(&keys, &sessions).map_err(at)?;
        let window = window(&outside, from, &mine).map_err(at)?;
        let (w5, w1) = warm_flags(&[&window, &mine]).map_err(at)?;
        let (w, n) = (window.height(), outside.height());
        let moved = moved(&window, from, &w5[..w], &w1[..w]).map_err(at)?;
        if moved.is_empty() {
            let mine = finish_with(mine, w5[w..].to_vec(), w1[w..].to_vec()).map_err(at)?;
            tracing::debug!(
                "analysis: {} rows of {} sessions finished after {:?}",
                mine.height(),
                sessions.len(),
                clock.elapsed()
            );
            // The rows and the side tables at once: neither reads the other.
            let (rows, sides) = rayon::join(
                || write(store, stamp, parts.generation, mine, &sessions, (n, fold_at)),
                || super::sides::store_sides(store, prices, side, Some(changed)),
            );
            return sides.and(rows);
        }
        tracing::debug!("analysis: the shared-prefix flags of {} stored session(s) changed", moved.len());
        let base = store.read_file(Table::Analysis, None)?.ok_or_else(missing)?;
        let rows = base.filter(&of_sessions(&base, &moved).map_err(at)?).map_err(at)?;
        mine.vstack_mut_owned(rows.drop_many(WHAT_IF)).map_err(at)?;
        sessions.extend(moved);
    }
}

/// The rows whose coming or going can change other rows' flags: each
/// (model, version, time) counted +1 per row after the refresh, -1 per row
/// before. A session's rows before an append are its rows after, less the
/// new ones: those alone are left.
#[derive(Default)]
struct Change(HashMap<(String, String, i64), i64>);

impl Change {
    fn count(&mut self, rows: &DataFrame, by: i64) -> PolarsResult<()> {
        let k = Cols(rows);
        let (model, version, time) = (k.str(c::MODEL)?, k.str(c::VERSION)?, times(rows)?);
        for ((m, v), t) in model.iter().zip(&version).zip(time) {
            *self.0.entry(((*m).to_owned(), (*v).to_owned(), t)).or_default() += by;
        }
        Ok(())
    }

    /// The earliest time (ms) of a row that came or went: a row's flags
    /// depend only on the rows before it, so a row earlier than that keeps
    /// its flags. None when the rows are the same.
    fn earliest(&self) -> Option<i64> {
        self.0.iter().filter(|(_, n)| **n != 0).map(|((_, _, t), _)| *t).min()
    }
}

/// The rows of `outside` the flags of `mine` and of the rows from `from` on
/// read: a row's flags read the latest row before it, when that row is
/// within the longest TTL. So those from a TTL before `from`, and those
/// within a TTL before a row of `mine`.
fn window(outside: &DataFrame, from: Option<i64>, mine: &DataFrame) -> PolarsResult<DataFrame> {
    let ttl = i64::from(TTL_1H_S.max(TTL_5M_S)) * 1000;
    let reach = from.map_or(i64::MAX, |f| f.saturating_sub(ttl));
    let mut after = times(mine)?;
    after.sort_unstable();
    let near = |t: i64| after.get(after.partition_point(|m| *m < t)).is_some_and(|m| m - t <= ttl);
    let keep: BooleanChunked = times(outside)?.into_iter().map(|t| t >= reach || near(t)).collect();
    outside.filter(&keep)
}

/// Sessions of base rows (`window`) from `from` on whose stored flags
/// differ from `w5`/`w1`.
fn moved(window: &DataFrame, from: Option<i64>, w5: &[bool], w1: &[bool]) -> PolarsResult<HashSet<String>> {
    let Some(from) = from else { return Ok(HashSet::new()) };
    let k = Cols(window);
    let (ids, s5, s1, t) = (k.str(c::SESSION_ID)?, k.bool(c::WARM_5M)?, k.bool(c::WARM_1H)?, times(window)?);
    let differs = |&i: &usize| t[i] >= from && (s5[i] != w5[i] || s1[i] != w1[i]);
    Ok((0..window.height()).filter(differs).map(|i| ids[i].to_owned()).collect())
}

/// Writes `mine` (the rows of `sessions`) as the recent part, or folds it
/// with the base's other rows (`base_rows` of them) into a new base when
/// it passes `fold_at` rows or an eighth of the base.
fn write(
    store: &Commit<'_>,
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
