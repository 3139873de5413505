//! The team report (`cachewise report team`): per person and in total,
//! active days, spend, spend per active day (mean, and median and p90 over
//! person-days), model mix, cache hit ratio, money lost to expired caches
//! and a monthly run-rate per seat, beside the vendor's
//! published baseline. Person-days and the model mix come from
//! `sql/team_person_days.sql` and `sql/team_model_mix.sql` over the query's
//! requests; the cache figures from the stored analysis table (`cache`,
//! `sql/team_person_cache.sql`): nothing is classified at view time. Hands on a typed
//! `TeamReport`; `render` prints it as JSON (the contract), CSV, Markdown or
//! a terminal table. The CLI and the web Team page both call `team`.

mod cache;
mod render;
mod sums;
mod window;

pub use render::{
    adoption_line, all_history, mix_cells, notes, person_cells, render, total_cells, who, window_line, window_warning,
    TeamFormat, HEADER, MIX_HEADER, PERSON_DAY_COLUMNS,
};

use cache::{Cache, UserCache};
use window::window;
pub use window::{Window, PILOT_DAYS};

use super::query::{Grouping, Query};
use super::ReportError;
use crate::model::columns as c;
use crate::model::{money, TokenCounts};
use crate::pricing::Estimate;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use polars::prelude::*;
use polars::sql::SQLContext;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

const PERSON_DAYS_SQL: &str = include_str!("../../sql/team_person_days.sql");
const MODEL_MIX_SQL: &str = include_str!("../../sql/team_model_mix.sql");

/// Days in an average month, for the run-rate projection.
pub const DAYS_PER_MONTH: f64 = 365.25 / 12.0;

/// The vendor's published Claude Code spend baseline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Baseline {
    pub source: &'static str,
    pub url: &'static str,
    /// Average spend per developer per active day.
    pub mean_per_active_day_usd: f64,
    /// 90% of users stay under this per active day.
    pub p90_users_per_active_day_usd: f64,
    pub monthly_low_usd: f64,
    pub monthly_high_usd: f64,
}

/// Anthropic's Claude Code docs, "Manage costs effectively".
pub const BASELINE: Baseline = Baseline {
    source: "Anthropic, Claude Code docs: Manage costs effectively",
    url: "https://code.claude.com/docs/en/costs",
    mean_per_active_day_usd: 13.0,
    p90_users_per_active_day_usd: 30.0,
    monthly_low_usd: 150.0,
    monthly_high_usd: 250.0,
};

/// One person's spend on one local day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersonDay {
    pub user: String,
    pub day: String,
    pub requests: u64,
    pub cost_usd: f64,
}

/// One model's part of someone's spend.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelShare {
    pub model: String,
    pub requests: u64,
    pub cost_usd: f64,
    /// Share of the person's (or team's) spend, 0..1.
    pub cost_share: f64,
}

/// Token counts under the usage report's JSON names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TokenFields {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_write_5m_tokens: u64,
    pub cache_write_1h_tokens: u64,
    pub cache_read_tokens: u64,
}

impl From<TokenCounts> for TokenFields {
    fn from(t: TokenCounts) -> TokenFields {
        TokenFields {
            input_tokens: t.input,
            output_tokens: t.output,
            cache_write_5m_tokens: t.cache_write_5m,
            cache_write_1h_tokens: t.cache_write_1h,
            cache_read_tokens: t.cache_read,
        }
    }
}

/// Figures shared by a person's row and the total.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figures {
    /// Person-days with at least one request.
    pub active_days: u64,
    pub requests: u64,
    pub cost_usd: f64,
    /// `cost_usd / active_days`: comparable with the baseline's average.
    pub cost_per_active_day_mean_usd: f64,
    pub cost_per_active_day_median_usd: f64,
    pub cost_per_active_day_p90_usd: f64,
    #[serde(flatten)]
    pub tokens: TokenFields,
    /// `cache_read / (cache_read + cache_write + input)`; None without tokens.
    pub cache_hit_ratio: Option<f64>,
    /// Miss cost of requests after the 5-minute or 1-hour cache expired.
    pub idle_cost_usd: f64,
    /// Miss cost within the TTL (cache model v2: `microcompact`,
    /// `context_edit`, `full_rebuild`).
    pub edit_cost_usd: f64,
    pub models: Vec<ModelShare>,
}

/// One person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamRow {
    pub user: String,
    pub machines: Vec<String>,
    #[serde(flatten)]
    pub figures: Figures,
    /// Run-rate: spend over the window, per average month.
    pub monthly_projection_usd: f64,
}

/// The whole team.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamTotal {
    /// Everyone in the team data directory (or the one `--user`), idle or not.
    pub people: usize,
    /// People with at least one request in the window (adoption:
    /// `people_active / people`).
    pub people_active: usize,
    /// Adoption: `people_active / people`, in percent (0 without people).
    pub adoption_pct: f64,
    /// The window's spend divided by every person in the team.
    pub cost_per_seat_usd: f64,
    #[serde(flatten)]
    pub figures: Figures,
    /// Team run-rate per average month, divided by the people in it.
    pub monthly_projection_per_seat_usd: f64,
    /// People whose mean spend per active day is under the baseline's 90% line.
    pub people_under_baseline_p90: usize,
}

/// Rows that need a second look.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Flags {
    /// Message ids stored under more than one user (kept for each).
    pub message_ids_under_several_users: usize,
}

/// The team report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamReport {
    pub rows: Vec<TeamRow>,
    pub total: TeamTotal,
    pub baseline: Baseline,
    pub window: Window,
    pub flags: Flags,
    pub person_days: Vec<PersonDay>,
    pub unknown_models: Vec<String>,
    /// Models priced as their family's newest version (estimated).
    pub estimated_models: Vec<Estimate>,
}

/// Builds the team report over the store's requests selected by `q`. The
/// cache figures are read from the analysis table, which classified each
/// person's whole history, so the window's edges do not turn warm requests
/// cold (`cache`).
pub fn team(view: &StoreView, q: &Query) -> Result<TeamReport, ReportError> {
    let people = people(view, q)?;
    let Some(lf) = view.requests() else {
        return Ok(assemble(q, &people, Vec::new(), Vec::new(), Cache::default()));
    };
    let calls = view.calls()?;
    let selected = q.prepare(lf.clone(), Grouping::Daily)?;
    // The person days, model mix, tokens, machines and models are sums
    // over the selected requests: summed once per person, day, model and
    // machine (a few thousand rows), the SQL then sums those. That pass
    // runs beside the analysis sums and the shared message ids, one after
    // the other, for the 100-person target (docs/performance.md).
    let (rows, others) = rayon::join(
        || sums::requests(&lf, view.request_rows(), q),
        || -> Result<(LazyFrame, usize), ReportError> {
            let analysis = sums::analysis(&view.analysis()?, view.analysis_rows()?, q)?;
            Ok((analysis, sums::shared_message_ids(&lf, view.request_rows(), q)?))
        },
    );
    let (rows, (analysis, shared_ids)) = (rows?, others?);
    let by_call = match calls.is_empty() {
        true => rows.clone(),
        false => sums::split(selected.clone(), calls)?,
    };
    let mut ctx = SQLContext::new();
    ctx.register("requests", by_call);
    let person_days = person_days_from(&Grouping::Daily.key_text(ctx.execute(PERSON_DAYS_SQL)?.collect()?)?)?;
    let mix = model_mix_from(&ctx.execute(MODEL_MIX_SQL)?.collect()?)?;
    drop(ctx);
    let sources = cache::Sources { requests: rows, shared_ids, analysis, prices: view.prices() };
    let cache = Cache::of(sources)?;
    Ok(assemble(q, &people, person_days, mix, cache))
}

/// The people the report lists whether or not they were active in the
/// window: everyone in the team data directory, or the one `--user`.
fn people(view: &StoreView, q: &Query) -> Result<Vec<String>, ReportError> {
    let all = view.users()?;
    Ok(match &q.user {
        Some(u) => all.into_iter().filter(|p| p == u).collect(),
        None => all,
    })
}

fn assemble(
    q: &Query,
    people: &[String],
    days: Vec<PersonDay>,
    mix: Vec<(String, ModelShare)>,
    cache: Cache,
) -> TeamReport {
    let window = window(q, &days);
    let month = |cost: f64| if window.days == 0 { 0.0 } else { cost / window.days as f64 * DAYS_PER_MONTH };
    let users: BTreeSet<&str> = days.iter().map(|d| d.user.as_str()).chain(people.iter().map(String::as_str)).collect();
    let empty = UserCache::default();
    let rows: Vec<TeamRow> = users
        .iter()
        .map(|&user| {
            let u = cache.by_user.get(user).unwrap_or(&empty);
            let mine: Vec<&PersonDay> = days.iter().filter(|d| d.user == user).collect();
            let models = mix.iter().filter(|(who, _)| who == user).map(|(_, m)| m.clone()).collect();
            let lost = (u.idle_cost_usd, u.edit_cost_usd);
            let figures = figures(&mine, models, u.tokens, lost);
            TeamRow {
                user: user.to_owned(),
                machines: u.machines.iter().cloned().collect(),
                monthly_projection_usd: month(figures.cost_usd),
                figures,
            }
        })
        .collect();
    let total = total(&days, &mix, &cache, &rows, month);
    let flags = Flags { message_ids_under_several_users: cache.shared_ids };
    TeamReport {
        rows,
        total,
        baseline: BASELINE,
        window,
        flags,
        person_days: days,
        unknown_models: cache.unknown_models,
        estimated_models: cache.estimated_models,
    }
}

fn total(
    days: &[PersonDay],
    mix: &[(String, ModelShare)],
    cache: &Cache,
    rows: &[TeamRow],
    month: impl Fn(f64) -> f64,
) -> TeamTotal {
    let mut by_model: BTreeMap<&str, ModelShare> = BTreeMap::new();
    for (_, m) in mix {
        let e = by_model.entry(&m.model).or_insert_with(|| ModelShare {
            cost_share: 0.0,
            requests: 0,
            cost_usd: 0.0,
            ..m.clone()
        });
        e.requests += m.requests;
        e.cost_usd += m.cost_usd;
    }
    let tokens = cache.by_user.values().map(|u| u.tokens).sum();
    let idle = money::sum(cache.by_user.values().map(|u| u.idle_cost_usd));
    let edit = money::sum(cache.by_user.values().map(|u| u.edit_cost_usd));
    let figures = figures(&days.iter().collect::<Vec<_>>(), by_model.into_values().collect(), tokens, (idle, edit));
    let people = rows.len();
    let seats = |cost: f64| if people == 0 { 0.0 } else { cost / people as f64 };
    let active = rows.iter().filter(|r| r.figures.active_days > 0);
    let under =
        active.clone().filter(|r| r.figures.cost_per_active_day_mean_usd < BASELINE.p90_users_per_active_day_usd);
    let people_active = active.count();
    TeamTotal {
        people,
        people_active,
        adoption_pct: if people == 0 { 0.0 } else { people_active as f64 / people as f64 * 100.0 },
        cost_per_seat_usd: seats(figures.cost_usd),
        monthly_projection_per_seat_usd: seats(month(figures.cost_usd)),
        people_under_baseline_p90: under.count(),
        figures,
    }
}

/// `lost`: the miss cost after an expiry and within the TTL.
fn figures(days: &[&PersonDay], mut models: Vec<ModelShare>, tokens: TokenCounts, lost: (f64, f64)) -> Figures {
    let costs: Vec<f64> = days.iter().map(|d| d.cost_usd).collect();
    let cost = money::sum(costs.iter().copied());
    let active = days.len() as u64;
    for m in &mut models {
        m.cost_share = if cost > 0.0 { m.cost_usd / cost } else { 0.0 };
    }
    models.sort_by(|a, b| b.cost_usd.total_cmp(&a.cost_usd).then_with(|| a.model.cmp(&b.model)));
    let denom = tokens.prompt();
    Figures {
        active_days: active,
        requests: days.iter().map(|d| d.requests).sum(),
        cost_usd: cost,
        cost_per_active_day_mean_usd: if active == 0 { 0.0 } else { cost / active as f64 },
        cost_per_active_day_median_usd: quantile(&costs, 0.5),
        cost_per_active_day_p90_usd: quantile(&costs, 0.9),
        tokens: tokens.into(),
        cache_hit_ratio: (denom > 0).then(|| tokens.cache_read as f64 / denom as f64),
        idle_cost_usd: lost.0,
        edit_cost_usd: lost.1,
        models,
    }
}

/// The `q`-quantile by linear interpolation between closest ranks (numpy's
/// default; the median of an even count is the mean of the middle two); 0
/// for no values.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    let Some(last) = v.len().checked_sub(1) else { return 0.0 };
    let h = last as f64 * q.clamp(0.0, 1.0);
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

fn person_days_from(df: &DataFrame) -> PolarsResult<Vec<PersonDay>> {
    let k = Cols(df);
    let (user, day) = (k.str(c::USER)?, k.str(c::KEY)?);
    let (req, cost) = (k.u64(c::REQUESTS)?, k.f64(c::COST_USD)?);
    Ok((0..df.height())
        .map(|i| PersonDay { user: user[i].to_owned(), day: day[i].to_owned(), requests: req[i], cost_usd: cost[i] })
        .collect())
}

fn model_mix_from(df: &DataFrame) -> PolarsResult<Vec<(String, ModelShare)>> {
    let k = Cols(df);
    let (user, model) = (k.str(c::USER)?, k.str(c::MODEL)?);
    let (req, cost) = (k.u64(c::REQUESTS)?, k.f64(c::COST_USD)?);
    Ok((0..df.height())
        .map(|i| {
            let share = ModelShare { model: model[i].to_owned(), requests: req[i], cost_usd: cost[i], cost_share: 0.0 };
            (user[i].to_owned(), share)
        })
        .collect())
}

#[cfg(test)]
mod tests;
