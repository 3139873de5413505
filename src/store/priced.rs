//! The stored requests priced with this run's table: every reader of
//! `cost_usd` (usage, team and blocks reports, the summary, the status
//! line's today figure, the analysis computed in memory) takes the
//! requests and their calls from here, so a report prices with the table
//! of its own run. The manifest records the fingerprint of the table the
//! stored costs were computed with (`Manifest::pricing`); when it is this
//! run's, the stored table is scanned as it is; otherwise (an earlier
//! `--pricing` run, `--pricing` with `--no-ingest`, a store whose rows were
//! priced with several tables) the rows are priced again in memory and
//! nothing is written. The calls Claude Code paid for without writing them
//! down (`Table::Unlogged`, derived at ingest) are read with the requests:
//! every reader sees them as request rows on the `unlogged:*` threads.

use super::manifest::{Manifest, STORE_SCHEMA};
use super::{frames, Store, StoreError, Table};
use crate::model::calls::sort_calls;
use crate::model::{is_unlogged, Call, Request};
use crate::pricing::{PriceTable, UnknownModels};
use polars::prelude::*;

/// True when `m` says the stored costs were computed with `prices` by this
/// layout.
pub fn priced_by(m: &Manifest, prices: &PriceTable) -> bool {
    m.schema == STORE_SCHEMA && m.pricing == prices.fingerprint()
}

/// Every stored request and call, priced again.
type Repriced = (Vec<Request>, Vec<Call>);

/// The requests a view reads and how many there are.
pub(super) type Counted = (LazyFrame, usize);

/// What a view reads of the requests, priced once (`priced_sources`).
pub struct PricedSources {
    /// The requests (the unlogged calls among them) and their number.
    pub requests: Option<Counted>,
    /// The calls inside responses when priced again in memory (None: the
    /// stored table, read when asked for).
    pub calls: Option<Vec<Call>>,
    /// The unlogged calls alone (a few rows).
    pub unlogged: Option<LazyFrame>,
}

impl Store {
    /// The requests as a lazy frame whose `cost_usd` is `prices`'s: the
    /// stored table when its costs were computed with `prices`, else the
    /// rows priced again in memory (as an ingest would, responses by their
    /// calls). None when nothing was ingested.
    pub fn requests_priced(&self, prices: &PriceTable) -> Result<Option<LazyFrame>, StoreError> {
        if self.priced_with(prices)? {
            return Ok(self.scan_requests_counted()?.map(|c| self.with_unlogged(c)).transpose()?.map(|(lf, _)| lf));
        }
        let Some((requests, _)) = self.repriced(prices)? else { return Ok(None) };
        let df = frames::requests_frame(&requests).map_err(self.at(Table::Requests))?;
        Ok(Some(df.lazy()))
    }

    /// The requests as `requests_priced` gives them (with their number)
    /// and their calls,
    /// priced once: the stored scan and no calls (read from their file when
    /// asked for) when the stored costs are `prices`'s, else both priced in
    /// memory. `manifest` is the store's, as the caller read it (a view
    /// reads it once).
    pub fn priced_sources(&self, manifest: &Manifest, prices: &PriceTable) -> Result<PricedSources, StoreError> {
        if priced_by(manifest, prices) {
            let unlogged = self.unlogged()?;
            let requests = self.scan_requests_counted()?.map(|c| self.with_unlogged(c)).transpose()?;
            return Ok(PricedSources { requests, calls: None, unlogged: unlogged.map(DataFrame::lazy) });
        }
        let Some((requests, calls)) = self.repriced(prices)? else {
            return Ok(PricedSources { requests: None, calls: Some(Vec::new()), unlogged: None });
        };
        let df = frames::requests_frame(&requests).map_err(self.at(Table::Requests))?;
        let unlogged: Vec<&Request> = requests.iter().filter(|r| is_unlogged(&r.thread)).collect();
        let unlogged = match unlogged.is_empty() {
            true => None,
            false => Some(frames::requests_frame(&unlogged).map_err(self.at(Table::Unlogged))?.lazy()),
        };
        Ok(PricedSources { requests: Some((df.lazy(), requests.len())), calls: Some(calls), unlogged })
    }

    /// True when the stored costs were computed with `prices` by this layout.
    fn priced_with(&self, prices: &PriceTable) -> Result<bool, StoreError> {
        Ok(priced_by(&self.manifest()?, prices))
    }

    /// Every stored request and call priced with `prices`, in memory.
    fn repriced(&self, prices: &PriceTable) -> Result<Option<Repriced>, StoreError> {
        let Some(df) = self.read(Table::Requests)? else { return Ok(None) };
        let mut requests = frames::requests_from(&df).map_err(self.at(Table::Requests))?;
        drop(df);
        requests.extend(self.load(Table::Unlogged, frames::requests_from)?);
        let mut calls = self.load(Table::Calls, frames::calls_from)?;
        sort_calls(&mut calls);
        let mut unknown = UnknownModels::new();
        prices.price_all(requests.iter_mut());
        if !calls.is_empty() {
            for r in &mut requests {
                prices.price_from_calls(r, &mut calls, &mut unknown);
            }
        }
        tracing::debug!(
            "priced {} stored requests in memory (the store was priced with another table)",
            requests.len()
        );
        Ok(Some((requests, calls)))
    }

    /// The stored requests' scan with the unlogged calls after them.
    fn with_unlogged(&self, (lf, n): Counted) -> Result<Counted, StoreError> {
        let Some(df) = self.unlogged()? else { return Ok((lf, n)) };
        let extra = df.height();
        let mut lf = lf;
        let names: Vec<Expr> =
            lf.collect_schema().map_err(self.at(Table::Requests))?.iter_names().map(|n| col(n.clone())).collect();
        let args = UnionArgs { to_supertypes: true, ..UnionArgs::default() };
        let both = concat([lf, df.lazy().select(names)], args).map_err(self.at(Table::Unlogged))?;
        Ok((both, n + extra))
    }

    /// The unlogged calls in this layout's columns (a table an older layout
    /// wrote lacks the newest); None when there are none.
    fn unlogged(&self) -> Result<Option<DataFrame>, StoreError> {
        let Some(df) = self.read(Table::Unlogged)?.filter(|df| df.height() > 0) else { return Ok(None) };
        frames::in_current_layout(df).map(Some).map_err(self.at(Table::Unlogged))
    }

    fn at(&self, t: Table) -> impl Fn(PolarsError) -> StoreError {
        let path = self.path(t);
        move |source| StoreError::Polars { path: path.clone(), source }
    }
}
