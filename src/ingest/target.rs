//! Which requests a merge rewrites (`Target`): the recent part alone when
//! the delta touches no stored request of the base and the recent part
//! stays small, else every request, folded into a new base; and how the
//! rewritten requests are written.

use super::dedup::Chunks;
use super::merge::{at, empty, Base};
use super::touched::Touched;
use super::IngestError;
use crate::model::columns as c;
use crate::model::Request;
use crate::store::frames;
use crate::store::{Commit, Store, Table};
use polars::prelude::*;
use std::collections::HashSet;

/// The merged requests: a frame, or (when the table is rebuilt from the
/// rows alone) the rows themselves.
pub(super) enum Requests {
    Frame(DataFrame),
    Rows,
}

/// Rows per batch when a rebuilt requests table is written.
const BATCH_ROWS: usize = 16_384;

pub(super) fn write_batches(store: &Commit<'_>, rows: &[&Request]) -> Result<(), IngestError> {
    let schema = empty(store, Table::Requests)?.schema().as_ref().clone();
    let batches = rows.chunks(BATCH_ROWS).map(|b| {
        let mut df = frames::requests_frame(b)?;
        df.rechunk_mut();
        Ok(df)
    });
    store.write_requests_base_batches(&schema, batches)?;
    Ok(())
}

/// The requests a merge rewrites: the recent part alone when the delta
/// touches no request of the base and the recent part stays small, else
/// every request (folding the recent part into a new base).
pub(super) struct Target {
    pub whole: bool,
    pub requests: DataFrame,
    /// Requests left as they are (the base, when only the recent part is rewritten).
    pub other_rows: usize,
}

/// The recent part is folded into the base when it would pass this many
/// rows, or an eighth of the base.
const FOLD_AT: usize = 10_000;

impl Target {
    pub(super) fn choose(
        store: &Store,
        base: Base,
        rows: &Chunks,
        replaced: &HashSet<String>,
        spares: &DataFrame,
    ) -> Result<Target, IngestError> {
        // Whole, in this layout's columns: a base of an older layout (without
        // the newest columns) is rewritten with its rows' figures kept.
        let whole = |requests: Option<DataFrame>| -> Result<Target, IngestError> {
            let requests = requests.map(frames::in_current_layout).transpose().map_err(at(store, Table::Requests))?;
            let requests = requests.map_or_else(|| empty(store, Table::Requests), Ok)?;
            Ok(Target { whole: true, requests, other_rows: 0 })
        };
        if base != Base::Touched {
            return whole((base == Base::All).then(|| store.read(Table::Requests)).transpose()?.flatten());
        }
        if !store.requests_base_has(c::TTL_ASKED)? {
            return whole(store.read(Table::Requests)?);
        }
        let parts = store.request_parts()?;
        let recent = match parts.contains(&Table::RecentRequests) {
            true => store.read_file(Table::RecentRequests, None)?,
            false => None,
        };
        let recent = recent.map_or_else(|| empty(store, Table::RecentRequests), Ok)?;
        let new_rows: usize = rows.0.iter().map(Vec::len).sum();
        let grown = |base_rows: usize| recent.height() + new_rows > FOLD_AT.max(base_rows / 8);
        // Whether the new rows touch the base: from its key columns.
        // The base's sources matter only when a file is read again whole.
        let columns: &[&str] = match replaced.is_empty() {
            true => &[c::USER, c::MESSAGE_ID],
            false => &[c::USER, c::MESSAGE_ID, c::SOURCE],
        };
        let Some(keys) = store.read_file(Table::Requests, Some(columns))? else {
            return whole(store.read(Table::Requests)?);
        };
        let base_hit = || -> PolarsResult<bool> {
            let touched = Touched::of(base, rows, replaced, &[&keys, &recent, spares])?;
            touched.any(&keys)
        };
        if grown(keys.height()) || base_hit().map_err(at(store, Table::Requests))? {
            return whole(store.read(Table::Requests)?);
        }
        Ok(Target { whole: false, requests: recent, other_rows: keys.height() })
    }

    pub(super) fn write(&self, store: &Commit<'_>, mut df: DataFrame) -> Result<(), IngestError> {
        df.rechunk_mut();
        match self.whole {
            true => store.write_requests_base(&mut df)?,
            false => store.write_requests_recent(&mut df)?,
        }
        Ok(())
    }
}
