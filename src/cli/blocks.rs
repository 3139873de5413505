//! `cachewise report blocks`: ingest if asked, load the requests the
//! filters select, hand them to `report::blocks` with the clock, print.

use super::plan::Plan;
use super::run::refresh;
use super::ReportArgs;
use crate::report::blocks::{blocks, to_json, to_table};
use crate::store::frames;
use chrono::Utc;

pub fn run_blocks(plan: &Plan, a: &ReportArgs) -> anyhow::Result<()> {
    if a.output.csv || a.breakdown {
        return Err(super::UsageError("report blocks takes --json, not --csv or --breakdown".into()).into());
    }
    refresh(plan)?;
    let requests = match plan.store.requests_priced(&plan.prices)? {
        Some(lf) => frames::requests_from(&lf.collect()?)?,
        None => Vec::new(),
    };
    let q = a.filter.query(plan.tz, false);
    let selected: Vec<_> = requests.iter().filter(|r| q.accepts(r)).collect();
    let rows = blocks(&selected, a.now.unwrap_or_else(Utc::now));
    if a.output.json {
        println!("{:#}", to_json(&rows));
    } else {
        print!("{}", to_table(&rows, plan.tz));
    }
    Ok(())
}
