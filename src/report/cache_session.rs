//! Small lookups over the stored analysis: the rows of one session (or of
//! the last hours) as in-memory requests, classified again by the cache
//! model (a session's threads are whole, so the verdicts are the stored
//! ones), for the session timeline, resume advice and the Now panel. Only
//! these few rows ever become request objects.

use super::cache::CacheData;
use super::cache_view::CacheView;
use super::ReportError;
use crate::analyze::{advise_in, Advice};
use crate::materialize::{collect_sessions, requests_of, REQUEST};
use crate::model::columns as c;
use crate::model::{Compaction, Request};
use crate::pricing::PriceTable;
use crate::statusline::limits::{Priced, Sample};
use crate::store::frames::{self, Cols};
use crate::store::{Store, Table};
use chrono::{DateTime, Utc};
use polars::prelude::*;

/// The stored thread requests `filter` selects, as requests.
pub fn requests_where(view: &CacheView, filter: Expr) -> PolarsResult<Vec<Request>> {
    requests_of(&view.rows.clone().filter(filter).select(REQUEST.map(col)).collect()?)
}

/// The stored compactions of the sessions `keep` accepts.
fn compactions(store: &Store, keep: impl Fn(&Compaction) -> bool) -> Result<Vec<Compaction>, ReportError> {
    let mut all = store.load(Table::Compactions, frames::compactions_from)?;
    all.retain(keep);
    Ok(all)
}

/// One session's rows (every person's copy), classified, with its
/// compactions and title.
pub fn session_data(view: &CacheView, store: &Store, prices: &PriceTable, id: &str) -> Result<CacheData, ReportError> {
    let rows = requests_where(view, col(c::SESSION_ID).eq(lit(id.to_owned())))?;
    let comps = compactions(store, |k| k.session_id == id)?;
    let titles = view.titles.get(id).map(|t| (id.to_owned(), t.clone())).into_iter().collect();
    Ok(CacheData::new(rows, comps, titles, prices))
}

/// The rows of the sessions active in `(from, to]`, whole, classified.
pub fn recent_data(
    view: &CacheView,
    store: &Store,
    prices: &PriceTable,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<CacheData, ReportError> {
    let ms = |t: DateTime<Utc>| lit(t.timestamp_millis()).cast(utc_ms());
    let active = col(c::TIME).gt(ms(from)).and(col(c::TIME).lt_eq(ms(to)));
    let ids = view
        .rows
        .clone()
        .filter(active)
        .select([col(c::SESSION_ID)])
        .unique(None, UniqueKeepStrategy::Any)
        .collect()?;
    let ids: std::collections::HashSet<String> =
        Cols(&ids).str(c::SESSION_ID)?.into_iter().map(str::to_owned).collect();
    if ids.is_empty() {
        return Ok(CacheData::default());
    }
    let rows = requests_of(&collect_sessions(view.rows.clone().select(REQUEST.map(col)), &ids)?)?;
    let comps = compactions(store, |k| ids.contains(&k.session_id))?;
    let titles = ids.iter().filter_map(|id| Some((id.clone(), view.titles.get(id)?.clone()))).collect();
    Ok(CacheData::new(rows, comps, titles, prices))
}

/// Resume / compact / restart advice for the session `text` names, with
/// the project medians of the whole store.
pub fn advise(
    view: &CacheView,
    store: &Store,
    text: &str,
    turns: u32,
    now: DateTime<Utc>,
    prices: &PriceTable,
) -> Result<(Advice, CacheData), ReportError> {
    let id = view.resolve_session(text)?;
    let data = session_data(view, store, prices, &id)?;
    let medians = view.medians()?;
    let of = |project: &str| medians.project(project);
    let advice = advise_in(&id, &data.requests, &data.caches, &data.compactions, prices, now, turns, &of)
        .ok_or_else(|| ReportError::UnknownSession(format!("{text} (no main-thread request)")))?;
    Ok((advice, data))
}

/// What each stored request cost and used, over the windows of the status
/// line's samples (none without samples): what the plan-limit estimate
/// divides.
pub fn priced(view: &CacheView, samples: &[Sample]) -> PolarsResult<Vec<Priced>> {
    let Some(from) = samples.iter().map(|s| s.time).min() else { return Ok(Vec::new()) };
    let from = from - chrono::Duration::hours(6);
    let after = col(c::TIME).gt_eq(lit(from.timestamp_millis()).cast(utc_ms()));
    let cols = [c::TIME, c::COST_USD, c::INPUT, c::CACHE_WRITE_5M, c::CACHE_WRITE_1H, c::CACHE_READ, c::OUTPUT];
    let df = view.rows.clone().filter(after).select(cols.map(col)).collect()?;
    let k = Cols(&df);
    let (time, cost, tokens) = (k.time(c::TIME)?, k.f64(c::COST_USD)?, k.tokens()?);
    Ok((0..df.height())
        .map(|i| Priced { time: time[i], cost_usd: cost[i], tokens: tokens[i].prompt() + tokens[i].output })
        .collect())
}

/// Datetime in UTC milliseconds, as the tables store times.
fn utc_ms() -> DataType {
    DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
}
