//! A few sessions' stored rows with the cache model's stored verdicts: one
//! session's (its timeline and its resume advice) or those of the sessions
//! active lately (the Now panel). Nothing is classified again: a row's
//! verdict is its stored columns (`columns::VERDICT`), as the `cache`
//! report sums them. Only these few rows ever become request objects.

use super::resume::Compacted;
use super::ReportError;
use crate::analyze::limits::Priced;
use crate::analyze::{advise_in, last_main, next_prompt, resumability, Advice, CacheClass, RequestCache, WarmPrefixes};
use crate::model::columns::{self as c, ANALYSIS_REQUEST, VERDICT};
use crate::model::{Compaction, Request};
use crate::report::cache::medians::MedianTable;
use crate::store::analysis::collect_sessions;
use crate::store::frames::{requests_of, Cols};
use crate::store::view::StoreView;
use chrono::{DateTime, Utc};
use polars::prelude::*;
use std::collections::{HashMap, HashSet};

/// Stored rows of some whole sessions, each with its stored verdict.
#[derive(Debug, Clone, Default)]
pub struct StoredRows {
    pub requests: Vec<Request>,
    /// `caches[i]` is the stored verdict of `requests[i]`.
    pub caches: Vec<RequestCache>,
    /// The sessions' compaction and microcompact boundaries.
    pub compactions: Vec<Compaction>,
    /// Session id -> title, for these sessions.
    pub titles: HashMap<String, String>,
    /// The shared prefixes warm at the view's clock (any session's
    /// requests): the v3 cold-resume premium's `Rs`.
    pub prefixes: WarmPrefixes,
    /// Which of these sessions Claude Code compacted after their last
    /// main-thread request, with their projects' `Bc` (§8 v4).
    pub compacted: Compacted,
}

impl StoredRows {
    /// What a warm cache would hold of the next message's prompt after the
    /// main-thread request `i` (`analyze::next_prompt`).
    pub fn next_prompt(&self, i: usize) -> u64 {
        let r = &self.requests[i];
        let base = self.compacted.base(r.user.as_str(), r.session_id.as_str(), r.time, r.project.as_str());
        next_prompt(r.tokens.prompt(), self.caches[i].lineage_first_read, base)
    }
}

/// The stored verdicts of analysis rows (the `VERDICT` columns), in order.
/// `prev` and `lineage_first` are not stored; they are left empty
/// (`lineage_first_read` is).
pub fn verdicts_of(df: &DataFrame) -> PolarsResult<Vec<RequestCache>> {
    let k = Cols(df);
    let class = k.str(c::CLASS)?;
    let rewind = k.bool(c::REWIND)?;
    let gap = k.opt_f64(c::GAP_S)?;
    let (ttl, after) = (k.u64(c::TTL_S)?, k.u64(c::TTL_AFTER_S)?);
    let (prefix, lost, rebuilt) = (k.u64(c::EXPECTED_PREFIX)?, k.u64(c::LOST_TOKENS)?, k.u64(c::REBUILT_TOKENS)?);
    let miss = k.f64(c::MISS_COST_USD)?;
    let first_read = k.u64(c::LINEAGE_FIRST_READ)?;
    let rates = k.rates()?;
    let secs = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    (0..df.height())
        .map(|i| {
            let class = CacheClass::parse(class[i]).ok_or_else(|| {
                PolarsError::ComputeError(format!("analysis row {i}: unknown cache class {:?}", class[i]).into())
            })?;
            Ok(RequestCache {
                class,
                gap_s: gap[i],
                ttl_s: secs(ttl[i]),
                ttl_after_s: secs(after[i]),
                expected_prefix: prefix[i],
                lost_tokens: lost[i],
                rewind: rewind[i],
                rebuilt_tokens: rebuilt[i],
                miss_cost_usd: miss[i],
                prev: None,
                lineage_first: i,
                lineage_first_read: first_read[i],
                rates: rates[i],
            })
        })
        .collect()
}

/// The rows of `lf` (analysis rows of whole sessions), with their
/// compactions and titles.
fn rows_of(view: &StoreView, df: DataFrame) -> Result<StoredRows, ReportError> {
    let requests = requests_of(&df)?;
    let caches = verdicts_of(&df)?;
    let ids: HashSet<&str> = requests.iter().map(|r| r.session_id.as_str()).collect();
    let compactions: Vec<Compaction> =
        view.compactions()?.iter().filter(|k| ids.contains(k.session_id.as_str())).cloned().collect();
    let titles = view.titles()?;
    let titles = ids.iter().filter_map(|id| Some(((*id).to_owned(), titles.get(*id)?.clone()))).collect();
    let lasts = last_main(&requests).into_values().map(|i| &requests[i]);
    let compacted = Compacted::of(view, &compactions, lasts.map(|r| (r.user.as_str(), r.session_id.as_str(), r.time)))?;
    Ok(StoredRows { requests, caches, compactions, titles, prefixes: view.warm_prefixes()?, compacted })
}

/// The columns a session's rows are read with.
fn columns() -> Vec<Expr> {
    ANALYSIS_REQUEST.iter().chain(&VERDICT).map(|n| col(*n)).collect()
}

/// One session's stored rows (every person's copy) and verdicts.
pub fn session_stored_rows(view: &StoreView, id: &str) -> Result<StoredRows, ReportError> {
    let df = view.analysis()?.filter(col(c::SESSION_ID).eq(lit(id.to_owned()))).select(columns()).collect()?;
    rows_of(view, df)
}

/// The stored rows of the sessions active in `(from, to]`, whole.
pub fn recent_rows(view: &StoreView, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<StoredRows, ReportError> {
    let ms = |t: DateTime<Utc>| lit(t.timestamp_millis()).cast(utc_ms());
    let active = col(c::TIME).gt(ms(from)).and(col(c::TIME).lt_eq(ms(to)));
    let ids =
        view.analysis()?.filter(active).select([col(c::SESSION_ID)]).unique(None, UniqueKeepStrategy::Any).collect()?;
    let ids: HashSet<String> = Cols(&ids).str(c::SESSION_ID)?.into_iter().map(str::to_owned).collect();
    if ids.is_empty() {
        return Ok(StoredRows::default());
    }
    rows_of(view, collect_sessions(view.analysis()?.select(columns()), &ids)?)
}

/// Resume / compact / restart advice for the session `text` names, as of
/// the view's clock, with the project medians of the whole store.
pub fn advise(view: &StoreView, text: &str, turns: u32) -> Result<(Advice, StoredRows), ReportError> {
    let id = view.resolve_session(text)?;
    let rows = session_stored_rows(view, &id)?;
    let advice = advise_rows(view, &rows, &view.medians()?, &id, turns)?;
    Ok((advice, rows))
}

/// `advice` with `compact_now` when its prompt is past a window that would
/// have cost less over the whole history (§17).
fn with_compact_now(view: &StoreView, mut advice: Advice) -> Result<Advice, ReportError> {
    let prompt = advice.inputs.prompt_tokens;
    // Compacted since its last request, the conversation's prompt is the summary's.
    if prompt >= crate::analyze::window::WINDOWS[0] && !advice.claude_code.compacted_since {
        let all = super::cache::CacheQuery { query: super::query::Query::new(chrono_tz::UTC), session: None };
        let windows = crate::report::cache::context::context_report(view, &all)?.windows;
        let recommended = advice.recommendation == crate::analyze::Recommendation::Compact;
        advice.compact_now =
            crate::analyze::window::compact_now(prompt, &windows, advice.break_even_turns, recommended);
    }
    Ok(advice)
}

/// The advice for session `id` (exact) over its stored `rows`, as of the
/// view's clock, with the project `medians`: what `advise` and the
/// session page both show.
pub fn advise_rows(
    view: &StoreView,
    rows: &StoredRows,
    medians: &MedianTable,
    id: &str,
    turns: u32,
) -> Result<Advice, ReportError> {
    let of = |project: &str| medians.project(project);
    let (requests, caches, compactions) = (&rows.requests, &rows.caches, &rows.compactions);
    let advice = advise_in(id, requests, caches, compactions, view.prices(), view.now(), turns, &of, &rows.prefixes)
        .ok_or_else(|| ReportError::NoMainThread(id.to_owned()))?;
    // Whose it is: the session's last main-thread request's person.
    let user = requests.iter().filter(|r| r.session_id == *id).max_by_key(|r| r.time).map_or("", |r| r.user.as_str());
    let k = view.claude();
    let days = k.settings.cleanup_days();
    Ok(match resumability(user, advice.last, view.now(), days, k.deleted.contains(id)) {
        Some(reason) => advice.not_resumable(reason, days),
        None => with_compact_now(view, advice)?,
    })
}

/// What each stored request cost and used, over the windows of the status
/// line's samples (none without samples): what the plan-limit estimate
/// divides.
pub fn priced(view: &StoreView) -> Result<Vec<Priced>, ReportError> {
    let Some(from) = view.samples().iter().map(|s| s.time).min() else { return Ok(Vec::new()) };
    let from = from - chrono::Duration::hours(6);
    let after = col(c::TIME).gt_eq(lit(from.timestamp_millis()).cast(utc_ms()));
    let cols = [c::TIME, c::COST_USD, c::INPUT, c::CACHE_WRITE_5M, c::CACHE_WRITE_1H, c::CACHE_READ, c::OUTPUT];
    let df = view.analysis()?.filter(after).select(cols.map(col)).collect()?;
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
