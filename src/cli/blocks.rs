//! `cachewise report blocks`: ingest if asked, `report::blocks` over the
//! run's view (the requests the filters select, at its clock), print.

use super::plan::Plan;
use super::run::refresh;
use super::ReportArgs;
use crate::report::blocks::{blocks_of, to_json, to_table};

pub fn run_blocks(plan: &Plan, a: &ReportArgs) -> anyhow::Result<()> {
    if a.output.csv || a.breakdown {
        return Err(super::UsageError("report blocks takes --json, not --csv or --breakdown".into()).into());
    }
    refresh(plan)?;
    let rows = blocks_of(&plan.view()?, &a.filter.query(plan.tz, false))?;
    if a.output.json {
        println!("{:#}", to_json(&rows));
    } else {
        print!("{}", to_table(&rows, plan.tz));
    }
    Ok(())
}
