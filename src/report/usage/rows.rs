//! The usage sums' rows (`sums`: what `sql/usage_by_key.sql` gives) as typed rows.

use super::{Totals, UsageRow};
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::store::frames::Cols;
use polars::prelude::*;

/// One `UsageRow` per result row, its totals and its model split.
pub(super) fn rows_from(df: &DataFrame) -> PolarsResult<Vec<UsageRow>> {
    let k = Cols(df);
    let (key, sub, project) = (k.str(c::KEY)?, k.str(c::SUB)?, k.str(c::PROJECT)?);
    let (req, input, output) = (k.u64("requests")?, k.u64("input_tokens")?, k.u64("output_tokens")?);
    let (w5, w1h, read) =
        (k.u64("cache_write_5m_tokens")?, k.u64("cache_write_1h_tokens")?, k.u64("cache_read_tokens")?);
    let cost = k.f64(c::COST_USD)?;
    let (first, last) = (k.time(c::FIRST)?, k.time(c::LAST)?);
    let mut out: Vec<UsageRow> = Vec::new();
    for i in 0..df.height() {
        let tokens = TokenCounts {
            input: input[i],
            cache_write_5m: w5[i],
            cache_write_1h: w1h[i],
            cache_read: read[i],
            output: output[i],
        };
        let totals = Totals { requests: req[i], tokens, cost_usd: cost[i] };
        match out.last_mut() {
            Some(row) if row.key == key[i] => {
                row.totals = row.totals + totals;
                row.first = row.first.min(first[i]);
                row.last = row.last.max(last[i]);
                row.models.push((sub[i].to_owned(), totals));
            }
            _ => out.push(UsageRow {
                key: key[i].to_owned(),
                project: project[i].to_owned(),
                title: String::new(),
                first: first[i],
                last: last[i],
                totals,
                models: if sub[i].is_empty() { Vec::new() } else { vec![(sub[i].to_owned(), totals)] },
                cache: None,
                calls: None,
                used: None,
                project_path: None,
            }),
        }
    }
    Ok(out)
}
