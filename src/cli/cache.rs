//! `cachewise cache` and `cachewise advise`: thin wrappers around
//! `report::cache` (the reference cache model over the store).

use super::plan::Plan;
use super::run::{refresh, warn_estimates};
use super::FilterArgs;
use crate::report::cache::{advise, cache_report, misses, CacheData, CacheQuery};
use crate::report::cache_render::{render_advice, render_cache, render_misses};
use crate::report::term::json;
use chrono::{DateTime, Utc};
use clap::Args;

#[derive(Debug, Args)]
pub struct CacheArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Only this session (full id, unique prefix, or title).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The clock for stale sessions (RFC 3339); default: now.
    #[arg(long, value_name = "RFC3339", value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// List every cache miss with its cause, costliest first.
    #[arg(long)]
    pub misses: bool,
    /// Print JSON (keys documented in the README).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// The session: full id, unique id prefix, or title.
    pub session: String,
    /// How many future turns to compare over.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub turns: u32,
    /// The clock (RFC 3339); default: now.
    #[arg(long, value_name = "RFC3339", value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// Print JSON (keys documented in the README).
    #[arg(long)]
    pub json: bool,
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).map_err(|e| format!("invalid time {s:?}: {e}"))
}

pub fn run_cache(plan: &Plan, a: &CacheArgs) -> anyhow::Result<()> {
    refresh(plan)?;
    let data = CacheData::load(&plan.store, &plan.prices)?;
    let session = a.session.as_deref().map(|s| data.resolve_session(s)).transpose()?;
    let q = CacheQuery { query: a.filter.query(plan.tz, false), session };
    warn_estimates(plan, &data.estimated_models);
    if a.misses {
        let rows = misses(&data, &q);
        match a.json {
            true => super::out(&json(&rows)?),
            false => super::out(&render_misses(&rows)),
        }
        return Ok(());
    }
    let report = cache_report(&data, &q, a.now.unwrap_or_else(Utc::now));
    if a.json {
        super::out(&json(&report)?);
    } else {
        super::out(&render_cache(&report));
    }
    Ok(())
}

pub fn run_advise(plan: &Plan, a: &AdviseArgs) -> anyhow::Result<()> {
    refresh(plan)?;
    let data = CacheData::load(&plan.store, &plan.prices)?;
    let advice = advise(&data, &a.session, a.turns, a.now.unwrap_or_else(Utc::now), &plan.prices)?;
    if a.json {
        super::out(&json(&advice)?);
    } else {
        super::out(&render_advice(&advice));
    }
    Ok(())
}
