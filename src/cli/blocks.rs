//! `cachewise report blocks` (and `cachewise blocks`): ingest if asked,
//! `report::blocks` over the run's view (the requests the filters select,
//! at its clock), print.

use super::plan::Plan;
use super::run::refresh;
use super::ReportOpts;
use crate::report::blocks::{blocks_of, to_json, to_table};
use crate::report::order::Order;

pub(super) fn run_blocks(plan: &Plan, a: &ReportOpts) -> anyhow::Result<()> {
    if a.output.csv || a.breakdown {
        return Err(super::UsageError("report blocks takes --json, not --csv or --breakdown".into()).into());
    }
    if a.output.ccusage() {
        return Err(super::UsageError(super::run::CCUSAGE_SHAPES.into()).into());
    }
    refresh(plan)?;
    let mut rows = blocks_of(&plan.view()?, &a.filter.query(plan.tz, false))?;
    if a.order == Some(Order::Desc) {
        rows.reverse();
    }
    if a.output.json {
        super::out(&format!("{:#}\n", to_json(&rows)));
    } else {
        super::out(&to_table(&rows, a.layout(plan)));
    }
    Ok(())
}
