//! The team report's sums: the selected requests summed per person, local
//! day, model, speed and machine, and the analysis rows' miss cost per person and
//! class (a few thousand rows). Every query of the person days, model mix,
//! tokens and lost cost (`sql/team_*.sql`) is a sum over `requests` and
//! `analysis`, so over these sums it gives the figures it gives over the
//! rows. The tables are read a slice at a time
//! (`report::slices`). With API calls
//! stored, the model mix's rows are the requests split into their calls.

use crate::model::columns as c;
use crate::model::Call;
use crate::report::calls;
use crate::report::query::{Grouping, Query};
use crate::report::slices::{for_each_slice_of, BATCH_ROWS};
use polars::prelude::*;

/// What the sums add up, per person, day, model and machine: `counted`,
/// the cost and `c::TOKENS`.
const SUMMED: [&str; 2] = [c::COUNTED, c::COST_USD];

/// `lf` (requests with `key` and `counted`) summed per person, local day,
/// model, speed (fast mode apart) and machine.
fn group(lf: LazyFrame) -> LazyFrame {
    let keys = [c::USER, c::KEY, c::MODEL, c::SPEED, c::MACHINE].map(col);
    lf.group_by(keys).agg(SUMMED.iter().chain(&c::TOKENS).map(|n| col(*n).sum()).collect::<Vec<_>>())
}

fn counted(lf: LazyFrame) -> LazyFrame {
    lf.with_column(lit(1u64).cast(DataType::UInt64).alias(c::COUNTED))
}

/// The requests of `scan` (the stored requests table) that `q` selects,
/// summed; in memory.
pub(super) fn requests(scan: &LazyFrame, n: usize, q: &Query) -> PolarsResult<LazyFrame> {
    batched(scan, n, q, BATCH_ROWS, |lf| group(counted(lf)), group)
}

/// The miss cost of the analysis rows of `scan` (the stored analysis
/// table) that `q` selects, summed per person and class (what
/// `sql/team_person_cache.sql` reads of them); in memory.
pub(super) fn analysis(scan: &LazyFrame, n: usize, q: &Query) -> PolarsResult<LazyFrame> {
    let group = |lf: LazyFrame| lf.group_by([col(c::USER), col(c::CLASS)]).agg([col(c::MISS_COST_USD).sum()]);
    batched(scan, n, q, BATCH_ROWS, group, group)
}

/// `first` over the rows of `scan` (`n` rows) that `q` selects, a slice
/// of the table at a time, then `then` over the stacked results.
fn batched(
    scan: &LazyFrame,
    n: usize,
    q: &Query,
    rows: IdxSize,
    first: impl Fn(LazyFrame) -> LazyFrame,
    then: impl Fn(LazyFrame) -> LazyFrame,
) -> PolarsResult<LazyFrame> {
    let mut parts: Vec<LazyFrame> = Vec::new();
    for_each_slice_of(scan, n, q, rows, |slice| {
        parts.push(first(q.prepare(slice, Grouping::Daily)?).collect()?.lazy());
        Ok(())
    })?;
    Ok(then(concat(parts, UnionArgs::default())?).collect()?.lazy())
}

/// The selected requests (`lf`) with each response made of API calls split
/// into one row per call (`calls::split_by_model`), summed: the model mix
/// then puts each call's cost under its own model, as `report model` does,
/// and every other total is unchanged.
pub(super) fn split(lf: LazyFrame, stored: &[Call]) -> PolarsResult<LazyFrame> {
    let keys = [c::KEY, c::MODEL, c::SPEED, c::MACHINE];
    let cols: Vec<Expr> =
        keys.iter().chain(&SUMMED).chain(&c::TOKENS).chain(&calls::KEY_COLUMNS).map(|n| col(*n)).collect();
    let df = counted(lf).select(cols).collect()?;
    let matched = calls::match_rows(&df, stored)?;
    Ok(group(calls::split_by_model(df, stored, &matched, false, false)?.lazy()).collect()?.lazy())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::calls::tests::request;
    use crate::model::TokenCounts;
    use crate::store::frames;
    use chrono::TimeDelta;

    #[test]
    fn sums_over_slices_equal_sums_over_the_rows() {
        let rows: Vec<crate::model::Request> = (0..30u64)
            .map(|i| {
                let model = if i % 4 == 0 { "claude-opus-4-1" } else { "claude-sonnet-4-5" };
                let mut r = request(model, TokenCounts { input: i, output: 3 * i, ..TokenCounts::default() });
                r.time += TimeDelta::hours(9 * i as i64);
                r.user = ["ana", "bo", "cy"][(i % 3) as usize].into();
                r.machine = if i % 5 == 0 { "desk" } else { "laptop" }.into();
                r.cost_usd = 0.25 * i as f64;
                r
            })
            .collect();
        let (lf, n) = (frames::requests_frame(&rows).unwrap().lazy(), rows.len());
        let q = Query::new(chrono_tz::UTC);
        let sorted = |rows: IdxSize| {
            let keys = [c::USER, c::KEY, c::MODEL, c::MACHINE];
            batched(&lf, n, &q, rows, |lf| group(counted(lf)), group)
                .unwrap()
                .sort(keys, SortMultipleOptions::default())
                .collect()
                .unwrap()
        };
        let (one, sliced) = (sorted(1_000), sorted(4));
        assert_eq!(one, sliced);
        assert!(one.height() > 10, "several people, days, models and machines");
        let counted: u64 = one.column(c::COUNTED).unwrap().u64().unwrap().sum().unwrap();
        assert_eq!(counted, 30);
        let cost = one.column(c::COST_USD).unwrap().f64().unwrap().sum().unwrap();
        assert!((cost - 0.25 * 435.0).abs() < 1e-9);
    }
}
