//! `cachewise cache` and `cachewise advise`: open the run's view, call
//! `report::cache::view` / `report::stored_rows`, print.

use super::plan::Plan;
use super::run::{refresh, warn_estimates};
use super::{FilterArgs, LayoutArgs};
use crate::analyze::limits;
use crate::model::limits::WindowKind;
use crate::report::cache::misses::render_misses;
use crate::report::cache::render::{render_advice, render_cache};
use crate::report::cache::rows::misses;
use crate::report::cache::view::cache_report;
use crate::report::cache::CacheQuery;
use crate::report::fit::{self, Layout};
use crate::report::now::{cold_resume_usd, LimitUse};
use crate::report::stored_rows::{advise, priced, StoredRows};
use crate::store::view::StoreView;
use chrono::{DateTime, Utc};
use clap::Args;

#[derive(Debug, Args)]
pub struct CacheArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Only this session (full id, unique prefix, or title).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// List every cache miss with its cause, costliest first.
    #[arg(long)]
    pub misses: bool,
    /// Cut the per-session lists (stale, by_session, compaction) to pages
    /// of this many rows; the JSON's `lists` then says how many each holds
    /// (what `/api/cache` does, 500 rows by default).
    #[arg(long, value_name = "ROWS", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub per_page: Option<u64>,
    /// Which page of `--per-page` rows (1-based).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "per_page",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub page: u64,
    /// Print JSON (keys in docs/reports.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub layout: LayoutArgs,
}

#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// The session: full id, unique id prefix, or title.
    pub session: String,
    /// How many future turns to compare over.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub turns: u32,
    /// Print JSON (keys in docs/reports.md).
    #[arg(long)]
    pub json: bool,
}

pub(super) fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    // A day alone: its start, in UTC.
    match crate::config::parse_date(s).ok().and_then(|d| d.and_hms_opt(0, 0, 0)) {
        Some(t) => Ok(t.and_utc()),
        None => Err(format!("invalid time {s:?}: use RFC 3339 (2026-11-30T18:00:00Z) or a day (2026-11-30)")),
    }
}

pub(super) fn run_cache(plan: &Plan, a: &CacheArgs) -> anyhow::Result<()> {
    refresh(plan)?;
    let view = plan.view()?;
    let session = a.session.as_deref().map(|s| view.resolve_session(s)).transpose()?;
    let q = CacheQuery { query: a.filter.query(plan.tz, false), session };
    if a.misses {
        warn_estimates(plan, &view.estimated_models()?);
        let rows = misses(&view, &q)?;
        match a.json {
            true => super::out_json(&rows)?,
            false => super::out(&render_misses(&rows, a.layout.layout(plan))),
        }
        return Ok(());
    }
    let mut report = cache_report(&view, &q)?;
    if let Some(per_page) = a.per_page {
        report = report.page(a.page as usize, per_page as usize);
    }
    warn_estimates(plan, &report.estimated_models);
    if a.json {
        super::out_json(&report)?;
    } else {
        super::out(&render_cache(&report, a.layout.layout(plan)));
    }
    Ok(())
}

pub(super) fn run_advise(plan: &Plan, a: &AdviseArgs) -> anyhow::Result<()> {
    refresh(plan)?;
    let view = plan.view()?;
    let (advice, rows) = advise(&view, &a.session, a.turns)?;
    let limits = plan_limits(&view, &rows, &advice.session_id)?;
    if a.json {
        let mut v = serde_json::to_value(&advice)?;
        if let (Some(m), Some(l)) = (v.as_object_mut(), limits) {
            m.insert("plan_limits".into(), l.to_json());
        }
        super::out_json(&v)?;
    } else {
        let layout = Layout { width: plan.width, compact: false, tz: plan.tz };
        super::out(&render_advice(&advice, layout));
        if let Some(l) = limits {
            super::out(&fit::wrap(&format!("{}\n", l.sentence()), layout));
        }
    }
    Ok(())
}

/// The 5-hour window's estimate, when the status line has recorded samples.
fn plan_limits(view: &StoreView, rows: &StoredRows, session: &str) -> anyhow::Result<Option<LimitUse>> {
    let samples = view.samples();
    if samples.iter().all(|s| s.five_hour.is_none()) {
        return Ok(None);
    }
    let estimate = limits::estimate(samples, &priced(view)?, WindowKind::FiveHour);
    Ok(Some(LimitUse { estimate, cold_resume_usd: cold_resume_usd(rows, session) }))
}
