//! Stores joined: a team store's tables with those of scratch stores that
//! `merge_tables` built from other people's rows (a team import's new
//! people, whose keys never meet the stored ones). The requests become a
//! new base (the files joined without decoding when their schemas agree),
//! the small tables take every store's rows in each table's order, and the
//! session totals are folded again from the requests. `team::append`
//! decides when; this module, beside the merge, writes the tables.

use super::merge::at;
use super::session_totals;
use super::side_tables::compaction_order;
use super::IngestError;
use crate::model::calls::sort_calls;
use crate::model::columns as c;
use crate::model::{Request, SessionTitle};
use crate::store::analysis::of_sessions;
use crate::store::frames;
use crate::store::{Commit, Store, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// The team's requests, then each scratch store's, written as a new base:
/// their files joined (`Commit::concat_requests_base`), or, when a schema
/// differs, a frame at a time.
pub(crate) fn append_requests(team: &Commit<'_>, more: &[&Store]) -> Result<usize, IngestError> {
    // The scratch stores wrote them in the team's codec: copied, not encoded.
    let files: Vec<std::path::PathBuf> = more.iter().map(|s| s.path(Table::Requests)).collect();
    if let Some(rows) = team.concat_requests_base(&files)? {
        return Ok(usize::try_from(rows).unwrap_or(usize::MAX));
    }
    let none: &[Request] = &[];
    let polars = at(team, Table::Requests);
    let schema = frames::requests_frame(none).map_err(&polars)?.schema().as_ref().clone();
    // A table an older layout wrote gets this layout's columns first.
    let old = team.read(Table::Requests)?.map(frames::in_current_layout).transpose().map_err(&polars)?;
    let mut count = old.as_ref().map_or(0, DataFrame::height);
    let mut parts: Vec<DataFrame> = Vec::new();
    parts.extend(old);
    for s in more {
        count += s.read_file(Table::Requests, Some(&[c::MESSAGE_ID]))?.map_or(0, |d| d.height());
    }
    let later = more.iter().map(|s| {
        let df = s.read(Table::Requests).map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
        df.map_or_else(|| Ok(DataFrame::empty_with_schema(&schema)), |d| d.select(schema.iter_names().cloned()))
    });
    let batches = parts.into_iter().map(Ok).chain(later);
    team.write_requests_base_batches(&schema, batches)?;
    Ok(count)
}

/// Spares, compactions and calls: the team's rows plus the scratch stores',
/// in each table's order.
pub(crate) fn append_small_tables(team: &Commit<'_>, more: &[&Store]) -> Result<(), IngestError> {
    let stores: Vec<&Store> = std::iter::once(team.store()).chain(more.iter().copied()).collect();
    let mut compactions = Vec::new();
    let mut calls = Vec::new();
    let mut spares: Option<DataFrame> = None;
    for s in &stores {
        compactions.extend(s.load(Table::Compactions, frames::compactions_from)?);
        calls.extend(s.load(Table::Calls, frames::calls_from)?);
        if let Some(df) = s.read(Table::Spares)? {
            let df = frames::in_current_layout(df).map_err(at(team, Table::Spares))?;
            match &mut spares {
                None => spares = Some(df),
                Some(all) => {
                    all.vstack_mut_owned(df).map_err(at(team, Table::Spares))?;
                }
            }
        }
    }
    // Bundles carry no titles and no refusals: a new team store takes the
    // scratch store's empty tables, so every table a store needs exists.
    for t in [Table::Titles, Table::Refusals] {
        if let (false, Some(s)) = (team.path(t).exists(), more.first()) {
            if let Some(mut df) = s.read(t)? {
                team.write(t, &mut df)?;
            }
        }
    }
    compactions.sort_by(|a, b| compaction_order(a).cmp(&compaction_order(b)));
    sort_calls(&mut calls);
    let mut df = frames::compactions_frame(&compactions).map_err(at(team, Table::Compactions))?;
    team.write(Table::Compactions, &mut df)?;
    let mut df = frames::calls_frame(&calls).map_err(at(team, Table::Calls))?;
    team.write(Table::Calls, &mut df)?;
    if let Some(mut df) = spares {
        let order = [c::USER, c::MESSAGE_ID, c::REQUEST_ID, c::SOURCE, c::LINE];
        df = df.sort(order, SortMultipleOptions::default()).map_err(at(team, Table::Spares))?;
        df.rechunk_mut();
        team.write(Table::Spares, &mut df)?;
    }
    Ok(())
}

/// Requests folded into sessions at a time.
const SESSION_SLICE: u32 = 262_144;

/// The session totals: stored rows of other sessions, and the `changed`
/// sessions (every session when None) derived again from the (whole)
/// requests table.
pub(crate) fn write_session_totals(team: &Commit<'_>, changed: Option<&HashSet<String>>) -> Result<(), IngestError> {
    let at = at(team, Table::SessionTotals);
    let titles: Vec<SessionTitle> = team
        .load(Table::Titles, frames::titles_from)?
        .into_iter()
        .filter(|t| changed.is_none_or(|c| c.contains(&t.session_id)))
        .collect();
    let Some(scan) = team.scan_requests()? else { return Ok(()) };
    // Folded a slice of the table at a time: the whole table's columns
    // would meet the analysis being written in memory.
    let mut fold = session_totals::Fold::default();
    let mut offset: i64 = 0;
    loop {
        let input = scan.clone().select(session_totals::INPUT_COLUMNS.map(col)).slice(offset, SESSION_SLICE).collect();
        let input = input.map_err(&at)?;
        if input.height() == 0 {
            break;
        }
        offset += i64::try_from(input.height()).unwrap_or(i64::MAX);
        match changed {
            None => fold.add_frame(&input),
            Some(c) => fold.add_frame(&input.filter(&of_sessions(&input, c).map_err(&at)?).map_err(&at)?),
        }
        .map_err(&at)?;
    }
    let mut derived = session_totals::frame(&fold.finish(&titles)).map_err(&at)?;
    if let (Some(c), Some(stored)) = (changed, team.read(Table::SessionTotals)?) {
        let mut kept = stored.filter(&!&of_sessions(&stored, c).map_err(&at)?).map_err(&at)?;
        kept.vstack_mut_owned(derived).map_err(&at)?;
        derived = kept.sort([c::SESSION_ID], SortMultipleOptions::default()).map_err(&at)?;
    }
    derived.rechunk_mut();
    team.write(Table::SessionTotals, &mut derived)?;
    Ok(())
}
