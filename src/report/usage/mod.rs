//! Usage reports (daily, weekly, monthly, session, project, model): a
//! view's requests -> `Query::prepare` -> (requests made of several API
//! calls split by model, `report::calls`) -> sums per key and sub
//! (`sums`, what `sql/usage_by_key.sql` computes) ->
//! typed rows with totals. The CLI and the web pages both call `usage`.

pub mod ccusage_json;
pub mod models;
pub mod render;
mod rows;
mod sums;
pub mod table;

use super::calls::{self, CallTotals};
use super::query::{Grouping, Query};
use super::slices::{for_each_slice_of, BATCH_ROWS};
use super::ReportError;
use crate::model::columns as c;
use crate::model::{Call, TokenCounts};
use crate::pricing::{Estimate, PriceTable};
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use chrono::{DateTime, Utc};
use models::{model_counts, session_models_of, SessionModels};
use polars::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use sums::KeySums;

/// Requests, tokens and cost of any set of requests; merges with `+`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Totals {
    pub requests: u64,
    pub tokens: TokenCounts,
    pub cost_usd: f64,
}

impl std::ops::Add for Totals {
    type Output = Totals;
    fn add(self, o: Totals) -> Totals {
        Totals {
            requests: self.requests + o.requests,
            tokens: self.tokens + o.tokens,
            cost_usd: self.cost_usd + o.cost_usd,
        }
    }
}

impl std::iter::Sum for Totals {
    fn sum<I: Iterator<Item = Totals>>(it: I) -> Totals {
        it.fold(Totals::default(), |a, b| a + b)
    }
}

/// One row of a usage report.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    /// The period, session id, project or model.
    pub key: String,
    /// The (first by name) project of the rows; empty for a period row.
    pub project: String,
    /// Session title (session reports only).
    pub title: String,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    pub totals: Totals,
    /// Per model, with `--breakdown`.
    pub models: Vec<(String, Totals)>,
    /// Cache figures of a session row (`report::cache::rows::annotate_sessions`).
    pub cache: Option<SessionCache>,
    /// Advisor and fallback calls of a session row (`report::calls`).
    pub calls: Option<CallTotals>,
    /// The models of a session row, fast mode told apart.
    pub used: Option<SessionModels>,
    /// The path people know the project by (its `cwd`,
    /// `report::project_paths`) on a project or session row; None when
    /// its rows carry no cwd (the directory name is all there is).
    pub project_path: Option<String>,
}

/// The cache columns of the session report, the ones users sort by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SessionCache {
    /// Cache misses of any cause (not counting thread starts).
    pub misses: u64,
    /// Miss cost of TTL expiries.
    pub idle_cost_usd: f64,
    /// Miss cost within the TTL (`microcompact`, `context_edit`,
    /// `full_rebuild`, cache model v2): the cache was warm, the prompt changed.
    pub edit_cost_usd: f64,
    /// Hits after the prompt shrank (v2 rewinds).
    pub rewinds: u64,
    /// Largest prompt of any request.
    pub peak_prompt: u64,
    /// Cold-resume premium if resumed now (0 while the cache is warm).
    pub stale_premium_usd: f64,
    /// The main conversation's cache is within its TTL now; None for a
    /// session with sub-agent requests only (nothing to resume).
    pub warm: Option<bool>,
    /// What the next message pays once the cache has expired (due now when
    /// `warm` is false); None without a main conversation.
    pub cold_resume_usd: Option<f64>,
    /// The last main-conversation request; None without one.
    pub last_main: Option<DateTime<Utc>>,
    /// Why the session cannot be resumed (cache-model §8.3 v3; None: it
    /// can, or it has no main conversation, which `warm: null` says).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_resumable: Option<crate::analyze::NotResumable>,
}

/// A usage report: rows, their total, the models that had no price and
/// those priced as their family's newest version.
#[derive(Debug, Clone)]
pub struct UsageReport {
    pub grouping: Grouping,
    pub rows: Vec<UsageRow>,
    pub total: Totals,
    pub unknown_models: Vec<String>,
    pub estimated_models: Vec<Estimate>,
    /// Advisor calls, fallbacks and refused attempts of every selected request.
    pub calls: CallTotals,
}

impl UsageReport {
    /// A report with no rows.
    pub fn empty(grouping: Grouping) -> UsageReport {
        UsageReport {
            grouping,
            rows: Vec::new(),
            total: Totals::default(),
            unknown_models: Vec::new(),
            estimated_models: Vec::new(),
            calls: CallTotals::default(),
        }
    }
}

/// Runs a usage report over a view's requests.
pub fn usage(view: &StoreView, grouping: Grouping, q: &Query) -> Result<UsageReport, ReportError> {
    let mut reports = usages(view, &[grouping], q)?;
    Ok(reports.pop().unwrap_or_else(|| UsageReport::empty(grouping)))
}

/// Usage reports of several groupings over the requests `q` selects, in
/// the order of `groupings`: each slice of the stored requests is read
/// once for all of them (the dashboard's daily, session, project and model
/// reports were four reads of the table).
pub fn usages(view: &StoreView, groupings: &[Grouping], q: &Query) -> Result<Vec<UsageReport>, ReportError> {
    let Some(lf) = view.requests() else {
        return Ok(groupings.iter().map(|g| UsageReport::empty(*g)).collect());
    };
    let stored_calls = view.calls()?;
    if stored_calls.is_empty() {
        // No call to match a row with: the sums run a slice at a time.
        let clock = std::time::Instant::now();
        let (frames, models, used) = by_slices(&lf, view.request_rows(), q, BATCH_ROWS, groupings)?;
        tracing::debug!("usage: {} grouping(s) summed after {:?}", groupings.len(), clock.elapsed());
        let mut used = Some(used);
        let report = |(g, rows): (&Grouping, DataFrame)| {
            let by_session = (*g == Grouping::Session).then(|| (BTreeMap::new(), used.take().unwrap_or_default()));
            finish(view, *g, q, Grouped { rows, models: models.clone(), calls: CallTotals::default(), by_session })
        };
        return groupings.iter().zip(frames).map(report).collect();
    }
    let one = |g: Grouping| {
        let mut names = stored_columns(&[g], q);
        names.extend(calls::KEY_COLUMNS.iter().chain([&c::SPEED]).filter(|n| !names.contains(n)).collect::<Vec<_>>());
        let rows = one_chunk(q.filter(lf.clone())?, &names)?;
        let used = match g {
            Grouping::Session => session_models_of(vec![model_counts(rows.clone().lazy())])?,
            _ => HashMap::new(),
        };
        let selected = q.keyed(rows.lazy(), g)?.select(columns(g, true)).collect()?;
        finish(view, g, q, with_calls(selected, g, q, stored_calls, used)?)
    };
    groupings.iter().map(|g| one(*g)).collect()
}

/// A usage report from the sums' rows: typed rows, session titles, calls
/// and models, in the report's order, with their total.
fn finish(view: &StoreView, grouping: Grouping, q: &Query, grouped: Grouped) -> Result<UsageReport, ReportError> {
    let Grouped { rows: df, models, calls: mut total_calls, by_session } = grouped;
    let mut rows = rows::rows_from(&grouping.key_text(df)?)?;
    let (unlogged, unlogged_by_session) = calls::unlogged(view, q)?;
    total_calls = total_calls + unlogged;
    if let Some((mut by_session, mut used)) = by_session {
        let titles = view.titles()?;
        for (s, u) in unlogged_by_session {
            let e = by_session.entry(s).or_default();
            *e = *e + u;
        }
        for r in &mut rows {
            r.title = titles.get(&r.key).cloned().unwrap_or_default();
            r.calls = Some(by_session.get(&r.key).copied().unwrap_or_default());
            r.used = Some(used.remove(&r.key).unwrap_or_default());
        }
    }
    super::project_paths::name_rows(view, grouping, &mut rows)?;
    if !grouping.is_period() {
        rows.sort_by(|a, b| b.totals.cost_usd.total_cmp(&a.totals.cost_usd).then_with(|| a.key.cmp(&b.key)));
    }
    let total = rows.iter().map(|r| r.totals).sum();
    let (unknown_models, estimated_models) = model_flags(models, view.calls()?, view.prices());
    Ok(UsageReport { grouping, rows, total, unknown_models, estimated_models, calls: total_calls })
}

/// The stored columns the usage reports of `groupings` read, before their
/// keys are added (`Query::keyed`).
fn stored_columns(groupings: &[Grouping], q: &Query) -> Vec<&'static str> {
    let mut names: Vec<&str> = [c::TIME, c::MODEL].into_iter().chain(c::TOKENS).chain([c::COST_USD]).collect();
    if groupings.iter().any(|g| !g.is_period()) {
        names.push(c::PROJECT);
    }
    if groupings.contains(&Grouping::Session) {
        names.push(c::SESSION_ID);
    }
    if q.breakdown || groupings.contains(&Grouping::Model) || groupings.contains(&Grouping::Session) {
        names.push(c::SPEED);
    }
    if groupings.contains(&Grouping::Source) {
        names.push(c::QUERY_SOURCE);
    }
    names
}

/// The columns `names` of the rows of `lf`, as one chunk. Polars projects
/// a frame of several chunks (a Parquet file's row groups) a chunk at a
/// time and stacks the results, which writes a literal column (a period's
/// empty project and sub) out row by row; over one chunk a literal stays
/// one value until the grouping (a tenth of a warm daily report).
fn one_chunk(lf: LazyFrame, names: &[&str]) -> PolarsResult<DataFrame> {
    let mut df = lf.select(names.iter().map(|n| col(*n)).collect::<Vec<_>>()).collect()?;
    df.rechunk_mut();
    Ok(df)
}

/// The columns a usage report reads (`with_calls`: and the calls' keys).
fn columns(grouping: Grouping, with_calls: bool) -> Vec<Expr> {
    let mut cols: Vec<Expr> = [c::TIME, c::MODEL].iter().chain(&c::TOKENS).map(|n| col(*n)).collect();
    // A period row names no project (`UsageRow::project`): not reading the
    // column was a third of a team's daily report.
    cols.push(if grouping.is_period() { lit("").alias(c::PROJECT) } else { col(c::PROJECT) });
    cols.extend([col(c::COST_USD), col(c::KEY), col(c::SUB), lit(1u64).cast(DataType::UInt64).alias(c::COUNTED)]);
    if with_calls {
        // The speed labels a call's model as the request's (`calls::split_by_model`).
        cols.extend(calls::KEY_COLUMNS.iter().chain([&c::SPEED]).map(|n| col(*n)));
    }
    cols
}

/// The usage sums' rows of one grouping, before they are typed.
struct Grouped {
    /// By key and sub.
    rows: DataFrame,
    /// The models of the selected requests.
    models: Vec<String>,
    /// The calls' totals.
    calls: CallTotals,
    /// A session report's calls and models of each session.
    by_session: Option<(BTreeMap<String, CallTotals>, HashMap<String, SessionModels>)>,
}

/// Each grouping's sums, the models, and each session's models.
type Sliced = (Vec<DataFrame>, Vec<String>, HashMap<String, SessionModels>);

/// The usage sums of each grouping over every slice of the stored requests
/// (the slice's selected rows read once for all groupings; `sums`); the
/// models of the selected rows, and (with a session report) each session's.
fn by_slices(
    lf: &LazyFrame,
    n: usize,
    q: &Query,
    rows: IdxSize,
    groupings: &[Grouping],
) -> Result<Sliced, ReportError> {
    let mut sums: Vec<KeySums> = groupings.iter().map(|_| KeySums::default()).collect();
    let (mut models, mut counts): (Vec<String>, Vec<LazyFrame>) = (Vec::new(), Vec::new());
    let stored = stored_columns(groupings, q);
    let sessions = groupings.contains(&Grouping::Session);
    for_each_slice_of(lf, n, q, rows, |slice| {
        let df = one_chunk(q.filter(slice)?, &stored)?;
        models.extend(distinct_models(&df)?);
        if sessions {
            counts.push(model_counts(df.clone().lazy()).collect()?.lazy());
        }
        for (g, sums) in groupings.iter().zip(&mut sums) {
            sums.add(&q.keyed(df.clone().lazy(), *g)?.select(columns(*g, false)).collect()?)?;
        }
        Ok(())
    })?;
    let frames = sums.into_iter().map(KeySums::frame).collect::<PolarsResult<Vec<_>>>()?;
    Ok((frames, models, session_models_of(counts)?))
}

/// The models of `rows`, each once. Rows come grouped by session, mostly
/// of one model in a row: a model is looked up only when it changes.
fn distinct_models(rows: &DataFrame) -> PolarsResult<Vec<String>> {
    let (mut seen, mut last) = (BTreeSet::new(), None);
    for arr in rows.column(c::MODEL)?.str()?.downcast_iter() {
        for model in arr.iter().flatten() {
            if last != Some(model) {
                seen.insert(model);
                last = Some(model);
            }
        }
    }
    Ok(seen.into_iter().map(str::to_owned).collect())
}

/// The sums' rows, the models, the calls' totals and (session reports)
/// each session's calls and models (`used`), of the selected rows
/// (`selected`, with the calls' key columns), each request made of several
/// calls split by model when the report is by model or broken down by model.
fn with_calls(
    mut selected: DataFrame,
    grouping: Grouping,
    q: &Query,
    stored_calls: &[Call],
    used: HashMap<String, SessionModels>,
) -> PolarsResult<Grouped> {
    let matched = calls::match_rows(&selected, stored_calls)?;
    let per_request = |i: usize| CallTotals::of(&stored_calls[matched[i].1.clone()]);
    let total_calls = (0..matched.len()).map(per_request).fold(CallTotals::default(), |a, b| a + b);
    let by_session = session_calls(grouping, &selected, &matched, per_request)?.map(|calls| (calls, used));
    let models = distinct_models(&selected)?;
    let (by_model, sub_model) = (grouping == Grouping::Model, q.breakdown);
    if by_model || sub_model {
        selected = calls::split_by_model(selected, stored_calls, &matched, by_model, sub_model)?;
    }
    let mut sums = KeySums::default();
    sums.add(&selected)?;
    Ok(Grouped { rows: sums.frame()?, models, calls: total_calls, by_session })
}

/// The calls of each session of a session report (None for other groupings).
fn session_calls(
    grouping: Grouping,
    selected: &DataFrame,
    matched: &[(usize, std::ops::Range<usize>)],
    per_request: impl Fn(usize) -> CallTotals,
) -> PolarsResult<Option<BTreeMap<String, CallTotals>>> {
    if grouping != Grouping::Session {
        return Ok(None);
    }
    let mut out: BTreeMap<String, CallTotals> = BTreeMap::new();
    if matched.is_empty() {
        return Ok(Some(out));
    }
    let keys = Cols(selected).str(c::KEY)?;
    for (k, (row, _)) in matched.iter().enumerate() {
        let e = out.entry(keys[*row].to_owned()).or_default();
        *e = *e + per_request(k);
    }
    Ok(Some(out))
}

/// Models among the selected requests and the stored calls that the price
/// table does not know, and those it priced as their family's newest version.
fn model_flags(mut models: Vec<String>, calls: &[Call], prices: &PriceTable) -> (Vec<String>, Vec<Estimate>) {
    models.extend(calls.iter().map(|i| i.model.to_string()));
    models.sort_unstable();
    models.dedup();
    let unknown = models.iter().filter(|m| prices.resolve(m).is_none()).cloned().collect();
    (unknown, prices.estimated_models(models.iter().map(String::as_str)))
}

#[cfg(test)]
mod tests;
