//! Opening a `StoreView`: the store's tables of one version, as this run
//! reads them. The analysis is the stored one when it is current (computed
//! by this build with this run's prices, side tables readable); otherwise
//! it is computed in memory, when first asked for, and not stored (a
//! report with `--no-ingest` and `--pricing`, a damaged derived table).

use super::sides::side_frames;
use super::{computed, stamp};
use crate::pricing::PriceTable;
use crate::store::manifest::Manifest;
use crate::store::view::{AnalysisFrames, AnalysisSource, Sources, StoreView, Version};
use crate::store::{frames, Store, StoreError, Table};
use chrono::{DateTime, Utc};
use polars::prelude::*;

/// The view of `store` as of `now`, priced with `prices`.
pub fn view(store: &Store, prices: &PriceTable, now: DateTime<Utc>) -> Result<StoreView, StoreError> {
    view_after(store, prices, now, None)
}

/// `view`, given the manifest an ingest just left and the store's version
/// then (`ingest::Seen`): when the store is still at that version, the
/// manifest is taken from there, not parsed from the file again.
pub fn view_after(
    store: &Store,
    prices: &PriceTable,
    now: DateTime<Utc>,
    known: Option<(Version, Manifest)>,
) -> Result<StoreView, StoreError> {
    let version = store.version();
    let manifest = match known {
        Some((v, m)) if v == version => m,
        _ => store.manifest()?,
    };
    // Priced with this run's table: the stored costs when they are its,
    // else priced again in memory (nothing is written).
    let priced = store.priced_sources(&manifest, prices)?;
    let analysis = match stored(store, prices) {
        Ok(Some(source)) => source,
        Ok(None) | Err(StoreError::Damaged { .. }) => computed_later(store, prices),
        Err(e) => return Err(e),
    };
    let sources = Sources { requests: priced.requests, calls: priced.calls, unlogged: priced.unlogged, analysis };
    StoreView::new(store, prices, manifest, version, sources, now)
}

/// The stored analysis when it is current: its parts scanned, its side
/// tables opened.
fn stored(store: &Store, prices: &PriceTable) -> Result<Option<AnalysisSource>, StoreError> {
    // A side table that does not read (torn) is computed in memory instead.
    let open = |t: Table| crate::store::files::open_regular(&store.path(t)).ok().filter(|_| store.footer_reads(t));
    let (Some(labels), Some(session_analysis)) = (open(Table::AnalysisCompactions), open(Table::SessionAnalysis))
    else {
        return Ok(None);
    };
    let Some(parts) = store.open_analysis(&stamp(prices))? else { return Ok(None) };
    Ok(Some(AnalysisSource::Stored { rows: Box::new(store.scan_analysis(parts)?), labels, session_analysis }))
}

/// The analysis of every stored request, computed when first asked for.
fn computed_later(store: &Store, prices: &PriceTable) -> AnalysisSource {
    let (store, prices) = (store.clone(), prices.clone());
    AnalysisSource::Computed(Box::new(move || -> Result<AnalysisFrames, StoreError> {
        let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
        let rows = computed(&store, &prices)?;
        let compactions = store.load(Table::Compactions, frames::compactions_from)?;
        let calls = store.load(Table::Calls, frames::calls_from)?;
        let [labels, session_analysis] = side_frames(&rows, &compactions, &calls, &prices).map_err(at)?;
        Ok(AnalysisFrames { rows: rows.lazy(), labels, session_analysis })
    }))
}
