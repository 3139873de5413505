//! Merging new candidate rows into the stored tables without reloading all
//! of them. Only the requests whose `(user, message id)` the new rows touch,
//! or whose rows came from a file that is read again from the start, are
//! deduplicated again; the other stored requests keep their rows and prices.
//! The `spares` table holds what that needs: every copy of a request seen
//! more than once, and every dropped sidechain replay (a request seen once is
//! fully described by its `requests` row). So appending to a few transcripts
//! costs a few rows' work plus one rewrite of the tables.

use super::calls::{readings, refusals, Calls};
use super::dedup::{full_plan, Chunks};
use super::derive::{Changed, Derive};
use super::session_totals;
use super::side_tables::side_tables;
use super::target::{write_batches, Requests, Target};
use super::touched::split;
use super::unlogged::{self, Touched};
use super::IngestError;
use crate::model::columns as c;
use crate::model::{Call, Compaction, CostReading, Refusal, Request, SessionTitle};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::analysis::of_sessions;
use crate::store::frames;
use crate::store::{Commit, Store, StoreError, Table};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use std::collections::HashSet;

/// Which stored rows take part in the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// None: the tables are rebuilt from the delta alone.
    Empty,
    /// Every stored row is deduplicated and priced again (a new price table,
    /// or a store of an older layout).
    All,
    /// Only the requests the delta touches.
    Touched,
}

/// What an ingest or import adds.
#[derive(Debug, Default)]
pub struct Delta {
    /// New candidate rows (before deduplication), in chunks.
    pub rows: Chunks,
    /// Source files whose earlier rows are void (they are read again whole).
    pub replaced: HashSet<String>,
    pub compactions: Vec<Compaction>,
    pub titles: Vec<SessionTitle>,
    /// New call rows (the calls of the new rows' lines).
    pub calls: Vec<Call>,
    /// New `model_refusal_fallback` lines.
    pub refusals: Vec<Refusal>,
    /// New `cost-state` readings.
    pub readings: Vec<CostReading>,
}

/// The result of a merge.
#[derive(Debug, Default)]
pub struct Merged {
    /// Requests in the store afterwards.
    pub requests: usize,
    /// Models without a price among the requests priced now.
    pub unknown: UnknownModels,
    /// Requests kept although the transcript they came from was
    /// rewritten without them.
    pub kept_from_rewritten: usize,
}

/// Merges `delta` into the store's tables and writes them, then brings the
/// analysis tables up to date for what changed.
pub fn merge(
    store: &Commit<'_>,
    base: Base,
    delta: Delta,
    prices: &PriceTable,
    derive: &dyn Derive,
) -> Result<Merged, IngestError> {
    let touched = match base {
        Base::Touched => {
            Touched::Sessions(delta.readings.iter().map(|r| (r.user.clone(), r.session_id.clone())).collect())
        }
        Base::All | Base::Empty => Touched::All,
    };
    let (merged, scope, stored) = merge_tables_analyzed(store, base, delta, prices, Some(derive))?;
    // A rebuilt store's derived tables were computed from memory and stored
    // while the tables were written.
    if !stored {
        derive.after(store, &scope)?;
    }
    unlogged::refresh(store, prices, &touched)?;
    Ok(merged)
}

/// `merge` without the analysis: writes the tables and says what changed
/// (team import appends analysis rows it already has).
pub fn merge_tables(
    store: &Commit<'_>,
    base: Base,
    delta: Delta,
    prices: &PriceTable,
) -> Result<(Merged, Changed), IngestError> {
    let (merged, scope, _) = merge_tables_analyzed(store, base, delta, prices, None)?;
    Ok((merged, scope))
}

/// `merge_tables`; when the tables are rebuilt from the rows alone and
/// `derive` is given, the derived tables are computed from the rows
/// (`Derive::whole`) while the tables are written; the last value says
/// whether they were stored so (else `Derive::after` computes them from
/// the tables written).
fn merge_tables_analyzed(
    store: &Commit<'_>,
    base: Base,
    delta: Delta,
    prices: &PriceTable,
    derive: Option<&dyn Derive>,
) -> Result<(Merged, Changed, bool), IngestError> {
    let Delta { rows, replaced, compactions, titles, calls, refusals: new_refusals, readings: new_readings } = delta;
    let mut calls = Calls::gather(store, base, calls)?;
    let refusals = refusals(store, base, new_refusals, &replaced)?;
    let readings = readings(store, base, new_readings, &replaced)?;
    let spares = stored_spares(store, base)?;
    let target = Target::choose(store, base, &rows, &replaced, &spares)?;
    let split = split(base, &rows, &replaced, &target.requests, &spares).map_err(at(store, Table::Requests))?;
    let kept_from_rewritten = split.kept_from_rewritten;
    drop(spares);
    let (compactions, (titles, mut changed)) = side_tables(store, base, compactions, titles, &replaced)?;
    let mut all = rows;
    all.0.push(split.old);
    let p = full_plan(&mut all);
    let new_spares =
        frames::requests_frame(&picked(&all, p.spare.iter().copied())).map_err(at(store, Table::Spares))?;
    let unknown = price_kept(&mut all, &p.kept, &mut calls, prices);
    let fresh = picked(&all, p.kept.iter().map(|&(i, _)| i));
    let spares = stack(store, Table::Spares, split.spares, new_spares, &SPARE_ORDER)?;
    // A rebuilt table is written straight from the rows, a batch at a time
    // (and its sessions derived while the rows are classified); otherwise
    // the new rows join the kept ones.
    let whole = target.whole && split.requests.height() == 0;
    let (requests, sessions) = if whole {
        (Requests::Rows, None)
    } else {
        changed.extend(split.sessions);
        changed.extend(fresh.iter().map(|r| r.session_id.to_string()));
        let df = joined(store, split.requests, &fresh)?;
        let sessions = sessions_of_changed(store, &df, target.whole, &titles, &changed)?;
        (Requests::Frame(df), Some(sessions))
    };
    let n = target.other_rows + if let Requests::Frame(df) = &requests { df.height() } else { fresh.len() };
    // A rebuilt store's analysis beside the tables' writes: the requests'
    // write leaves a core idle most of its time, which the classification
    // fills. It reads no table the merge writes: the rows come from here.
    let derive = derive.filter(|_| whole);
    let boundaries = if derive.is_some() { boundaries(store, compactions.as_ref())? } else { Vec::new() };
    let analyze = || match derive {
        Some(d) => d.whole(store, fresh.clone(), &calls.0, &boundaries),
        None => Ok(false),
    };
    let write_requests = || match requests {
        Requests::Frame(df) => target.write(store, df),
        Requests::Rows => write_batches(store, &fresh),
    };
    let small = SmallTables { spares, compactions, titles, refusals, readings, sessions };
    let small_tables = || small.write(store, &calls, &fresh);
    let (analysis, (a, b)) = rayon::join(analyze, || rayon::join(write_requests, small_tables));
    a.and(b)?;
    let stored = analysis?;
    let scope = if whole { Changed::All } else { Changed::Sessions(changed) };
    Ok((Merged { requests: n, unknown, kept_from_rewritten }, scope, stored))
}

/// The stored spares (none into an empty store), in this layout.
fn stored_spares(store: &Store, base: Base) -> Result<DataFrame, IngestError> {
    let spares = match base {
        Base::Empty => None,
        _ => store.read(Table::Spares)?.map(frames::in_current_layout).transpose().map_err(at(store, Table::Spares))?,
    };
    spares.map_or_else(|| empty(store, Table::Spares), Ok)
}

/// The rows of `all` at `indices`.
fn picked(all: &Chunks, indices: impl Iterator<Item = usize>) -> Vec<&Request> {
    let refs = all.refs();
    indices.map(|i| refs[i]).collect()
}

/// The compaction boundaries the merge leaves: `merged` when it rewrote
/// the table, else the stored ones.
fn boundaries(store: &Store, merged: Option<&DataFrame>) -> Result<Vec<Compaction>, IngestError> {
    match merged {
        Some(df) => frames::compactions_from(df).map_err(at(store, Table::Compactions)),
        None => Ok(store.load(Table::Compactions, frames::compactions_from)?),
    }
}

/// The tables a merge writes beside the requests.
struct SmallTables {
    spares: DataFrame,
    /// None when no compaction changed.
    compactions: Option<DataFrame>,
    titles: Vec<SessionTitle>,
    refusals: Option<DataFrame>,
    readings: Option<DataFrame>,
    /// The session totals, when the merge derived them from the tables;
    /// else they are derived from the merged rows (`fresh`).
    sessions: Option<DataFrame>,
}

impl SmallTables {
    fn write(self, store: &Commit<'_>, calls: &Calls, fresh: &[&Request]) -> Result<(), IngestError> {
        write(store, Table::Spares, self.spares)?;
        if let Some(df) = self.compactions {
            write(store, Table::Compactions, df)?;
        }
        write(store, Table::Titles, frames::titles_frame(&self.titles).map_err(at(store, Table::Titles))?)?;
        calls.write(store)?;
        if let Some(df) = self.refusals {
            write(store, Table::Refusals, df)?;
        }
        if let Some(df) = self.readings {
            write(store, Table::CostReadings, df)?;
        }
        let sessions = match self.sessions {
            Some(df) => df,
            None => session_totals::frame(&session_totals::derive(fresh, &self.titles))
                .map_err(at(store, Table::SessionTotals))?,
        };
        write(store, Table::SessionTotals, sessions)
    }
}

/// Prices the rows the plan keeps, each at the time it is kept with, and
/// their calls; hands on the models the table has no price for.
fn price_kept(
    all: &mut Chunks,
    kept: &[(usize, DateTime<Utc>)],
    calls: &mut Calls,
    prices: &PriceTable,
) -> UnknownModels {
    let mut kept_time: Vec<Option<DateTime<Utc>>> = vec![None; all.0.iter().map(Vec::len).sum()];
    for &(i, time) in kept {
        kept_time[i] = Some(time);
    }
    let kept_rows = all.iter_mut().zip(&kept_time).filter_map(|(r, t)| t.map(|t| (r, t)));
    let mut unknown = prices.price_all(kept_rows.map(|(r, t)| {
        r.time = t;
        r
    }));
    for (r, _) in all.iter_mut().zip(&kept_time).filter(|(_, t)| t.is_some()) {
        calls.price(prices, r, &mut unknown);
    }
    unknown
}

/// Row order of the `requests` table (unique per request).
const REQUEST_ORDER: [&str; 4] = [c::TIME, c::MESSAGE_ID, c::USER, c::REQUEST_ID];
/// Row order of the `spares` table (unique per row).
const SPARE_ORDER: [&str; 5] = [c::USER, c::MESSAGE_ID, c::REQUEST_ID, c::SOURCE, c::LINE];

/// The session totals: stored rows of unchanged sessions, derived rows of
/// the others (from the rewritten requests, plus `base`, the base's rows
/// of those sessions, when only the recent part was rewritten).
/// The kept rows of the table (`old`) and the merged ones, in table order.
fn joined(store: &Store, old: DataFrame, fresh: &[&Request]) -> Result<DataFrame, IngestError> {
    let new = frames::requests_frame(fresh).map_err(at(store, Table::Requests))?;
    stack(store, Table::Requests, old, new, &REQUEST_ORDER)
}

/// The session totals after a merge into `requests`: read with the base's
/// rows of the changed sessions when only the recent part is rewritten
/// (`whole` false; the session totals' columns alone).
fn sessions_of_changed(
    store: &Store,
    requests: &DataFrame,
    whole: bool,
    titles: &[SessionTitle],
    changed: &HashSet<String>,
) -> Result<DataFrame, IngestError> {
    let columns = Some(&session_totals::INPUT_COLUMNS[..]);
    let base = match whole {
        true => None,
        false => store.read_file_sessions(Table::Requests, columns, changed)?,
    };
    sessions_table(store, requests, base.as_ref(), titles, changed)
}

fn sessions_table(
    store: &Store,
    requests: &DataFrame,
    base: Option<&DataFrame>,
    titles: &[SessionTitle],
    changed: &HashSet<String>,
) -> Result<DataFrame, IngestError> {
    let stored = store.read(Table::SessionTotals)?;
    let build = || -> PolarsResult<DataFrame> {
        let mut input = requests.select(session_totals::INPUT_COLUMNS)?;
        input = input.filter(&of_sessions(&input, changed)?)?;
        if let Some(base) = base {
            input.vstack_mut_owned(base.select(session_totals::INPUT_COLUMNS)?)?;
        }
        let titles: Vec<SessionTitle> = titles.iter().filter(|t| changed.contains(&t.session_id)).cloned().collect();
        let derived = session_totals::frame(&session_totals::derive_frame(&input, &titles)?)?;
        let Some(stored) = stored else { return Ok(derived) };
        let mut out = stored.filter(&!&of_sessions(&stored, changed)?)?;
        out.vstack_mut_owned(derived)?;
        out.sort([c::SESSION_ID], SortMultipleOptions::default())
    };
    build().map_err(at(store, Table::SessionTotals))
}

/// Stored rows kept plus new rows, in the table's order.
fn stack(store: &Store, t: Table, kept: DataFrame, new: DataFrame, order: &[&str]) -> Result<DataFrame, IngestError> {
    let go = || -> PolarsResult<DataFrame> {
        if kept.height() == 0 && t == Table::Requests {
            return Ok(new); // `plan` orders the kept rows already.
        }
        let mut out = kept;
        out.vstack_mut_owned(new)?;
        out.sort(order.iter().map(|s| PlSmallStr::from(*s)).collect::<Vec<_>>(), SortMultipleOptions::default())
    };
    go().map_err(at(store, t))
}

pub(super) fn empty(store: &Store, t: Table) -> Result<DataFrame, IngestError> {
    let none: &[Request] = &[];
    frames::requests_frame(none).map_err(|source| StoreError::Polars { path: store.path(t), source }.into())
}

pub(super) fn at(store: &Store, t: Table) -> impl Fn(PolarsError) -> IngestError + '_ {
    move |source| StoreError::Polars { path: store.path(t), source }.into()
}

fn write(store: &Commit<'_>, t: Table, mut df: DataFrame) -> Result<(), IngestError> {
    df.rechunk_mut();
    store.write(t, &mut df)?;
    Ok(())
}
