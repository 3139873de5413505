//! The calls table (`Table::Calls`) in a merge. Its rows are keyed by the line they
//! came from (`user`, `message_id`, `request_id`, `source`, `line`, index),
//! so they need no deduplication of their own: whichever line deduplication
//! keeps for a request, its calls are the rows with that line's key. A merge
//! therefore keeps every stored row, adds the new rows (a row read twice,
//! after an ingest cut short or a file read again whole, counts once, the
//! new one), and prices the calls of every request it prices. Rows of deleted transcripts stay, like their requests. The
//! `refusals` table (`model_refusal_fallback` lines) and the
//! `cost-readings` table (`cost-state` lines) are kept the same way.

use super::merge::Base;
use super::IngestError;
use crate::model::calls::{call_line_key, sort_calls};
use crate::model::{Call, CostReading, Refusal, Request};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::{frames, Commit, Store, Table};
use std::collections::HashSet;

/// The refusals table when it changed: the stored rows without those of
/// `replaced` files, plus `new`, once each, by session and time.
pub(super) fn refusals(
    store: &Store,
    base: Base,
    mut new: Vec<Refusal>,
    replaced: &HashSet<String>,
) -> Result<Option<polars::prelude::DataFrame>, IngestError> {
    if base == Base::Touched && new.is_empty() && replaced.is_empty() && store.path(Table::Refusals).exists() {
        return Ok(None);
    }
    if base != Base::Empty {
        let mut old = store.load(Table::Refusals, frames::refusals_from)?;
        old.retain(|r| !replaced.contains(&r.source));
        new.extend(old);
    }
    new.sort_by(|a, b| (&a.session_id, a.time, &a.source).cmp(&(&b.session_id, b.time, &b.source)));
    new.dedup();
    let df = frames::refusals_frame(&new)
        .map_err(|source| crate::store::StoreError::Polars { path: store.path(Table::Refusals), source })?;
    Ok(Some(df))
}

/// The cost-readings table when it changed: the stored rows without those
/// of `replaced` files, plus `new`, once each, by source and line.
pub(super) fn readings(
    store: &Store,
    base: Base,
    mut new: Vec<CostReading>,
    replaced: &HashSet<String>,
) -> Result<Option<polars::prelude::DataFrame>, IngestError> {
    if base == Base::Touched && new.is_empty() && replaced.is_empty() {
        return Ok(None);
    }
    if base != Base::Empty {
        let mut old = store.load(Table::CostReadings, frames::readings_from)?;
        old.retain(|r| !replaced.contains(&r.source));
        new.extend(old);
    }
    if new.is_empty() && !store.path(Table::CostReadings).exists() {
        return Ok(None);
    }
    new.sort_by(|a, b| (&a.user, &a.source, a.line, &a.model).cmp(&(&b.user, &b.source, b.line, &b.model)));
    new.dedup_by(|a, b| (&a.user, &a.source, a.line, &a.model) == (&b.user, &b.source, b.line, &b.model));
    let df = frames::readings_frame(&new)
        .map_err(|source| crate::store::StoreError::Polars { path: store.path(Table::CostReadings), source })?;
    Ok(Some(df))
}

/// Every call row after a merge, sorted by line key and index.
#[derive(Debug, Default)]
pub(super) struct Calls(pub Vec<Call>);

impl Calls {
    /// The stored rows (none when the tables are rebuilt from the delta)
    /// plus `new`: a file read again whole keeps its earlier rows, as its
    /// requests do (`touched`), and a line read again has its new calls.
    pub(super) fn gather(store: &Store, base: Base, new: Vec<Call>) -> Result<Calls, IngestError> {
        let mut rows = new;
        if base != Base::Empty {
            rows.extend(store.load(Table::Calls, frames::calls_from)?);
        }
        // Stable: of two copies of one row, the new one (first) stays.
        sort_calls(&mut rows);
        rows.dedup_by(|a, b| a.index == b.index && call_line_key(a) == call_line_key(b));
        Ok(Calls(rows))
    }

    /// Prices `r` from its calls when its line logged any (else leaves the
    /// price `price_all` set).
    pub(super) fn price(&mut self, prices: &PriceTable, r: &mut Request, unknown: &mut UnknownModels) {
        if !self.0.is_empty() {
            prices.price_from_calls(r, &mut self.0, unknown);
        }
    }

    /// Writes the table.
    pub(super) fn write(&self, store: &Commit<'_>) -> Result<(), IngestError> {
        let mut df = frames::calls_frame(&self.0)
            .map_err(|source| crate::store::StoreError::Polars { path: store.path(Table::Calls), source })?;
        df.rechunk_mut();
        store.write(Table::Calls, &mut df)?;
        Ok(())
    }
}
