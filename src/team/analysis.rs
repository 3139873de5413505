//! The analysis rows a bundle carries (schema 3, `kind` = `analysis`): the
//! cache model's verdict on each of the person's thread requests, computed
//! on their machine (`materialize`), so an import need not classify them
//! again. Only keys, token counts and the verdict's columns travel (no
//! message content; paths hashed like the requests'). Here: the columns and
//! their types, the rows an export takes (`for_export`) and the bounds an import holds them to (`check`): a hostile
//! row can neither name another person nor carry counts, costs or text
//! that no real transcript produces.

use super::hash::PathHasher;
use crate::analyze::CacheClass;
use crate::ingest::parse::MAX_WEB_SEARCHES;
use crate::model::columns as c;
use crate::model::{is_unsafe, name_fault, MAX_TOKENS};
use chrono::{DateTime, Utc};
use polars::prelude::*;

/// A bundle's analysis rows (`team::analysis::order()` columns) and the
/// stamp of what computed them.
#[derive(Debug, Clone)]
pub struct BundleAnalysis {
    pub stamp: String,
    pub rows: DataFrame,
}

impl PartialEq for BundleAnalysis {
    fn eq(&self, o: &BundleAnalysis) -> bool {
        self.stamp == o.stamp && self.rows.equals_missing(&o.rows)
    }
}

/// Analysis columns shared with request rows (same names and types).
pub const SHARED: [&str; 23] = crate::model::columns::ANALYSIS_REQUEST;

/// Columns of analysis rows only, with their types.
pub fn own_columns() -> Vec<(&'static str, DataType)> {
    use DataType::{Boolean, Float64, String, UInt64};
    vec![
        (c::CLASS, String),
        (c::REWIND, Boolean),
        (c::GAP_S, Float64),
        (c::TTL_S, UInt64),
        (c::TTL_AFTER_S, UInt64),
        (c::EXPECTED_PREFIX, UInt64),
        (c::LOST_TOKENS, UInt64),
        (c::REBUILT_TOKENS, UInt64),
        (c::MISS_COST_USD, Float64),
        (c::LINEAGE_FIRST_READ, UInt64),
        (c::RATE_INPUT, Float64),
        (c::RATE_OUTPUT, Float64),
        (c::RATE_READ_MULTIPLIER, Float64),
        (c::ACTUAL_USD, Float64),
        (c::LAST_MAIN, Boolean),
        (c::RESUME_PREMIUM_USD, Float64),
        (c::IDLE_COMPACT_FIXED_USD, Float64),
        (c::IDLE_COMPACT_PER_TOKEN_USD, Float64),
        (c::KEEP_WARM_PING_USD, Float64),
    ]
}

/// Every analysis column in the analysis table's order.
pub fn order() -> Vec<&'static str> {
    SHARED.iter().copied().chain(own_columns().into_iter().map(|(n, _)| n)).collect()
}

/// A person's analysis rows for a bundle: `user` on every row, only rows at
/// or after the window's start and before its end, paths hashed with
/// `hasher`, the what-if columns left out.
pub fn for_export(
    analysis: DataFrame,
    user: &str,
    (since, until): (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    hasher: Option<&PathHasher>,
) -> PolarsResult<DataFrame> {
    let mut lf = analysis.lazy().select(order().into_iter().map(col).collect::<Vec<_>>());
    let ms = |t: DateTime<Utc>| lit(t.timestamp_millis());
    if let Some(s) = since {
        lf = lf.filter(col(c::TIME).cast(DataType::Int64).gt_eq(ms(s)));
    }
    if let Some(u) = until {
        lf = lf.filter(col(c::TIME).cast(DataType::Int64).lt(ms(u)));
    }
    let mut df = lf.with_column(lit(user.to_owned()).alias(c::USER)).collect()?;
    if let Some(h) = hasher {
        for name in [c::PROJECT, c::CWD] {
            let hashed: StringChunked = df.column(name)?.str()?.apply_values(|v| h.hash(v).into());
            df.with_column(hashed.into_column())?;
        }
    }
    df.rechunk_mut();
    Ok(df)
}

/// Largest per-request prompt-sized count (four token fields at the bound).
const MAX_PROMPT: u64 = 4 * MAX_TOKENS;
/// Largest TTL a row may name: a day (real ones are 5 minutes or 1 hour).
const MAX_TTL_S: u64 = 86_400;
/// Largest dollar figure of one request (far above any price table's).
const MAX_USD: f64 = 10_000_000.0;

/// Checks analysis rows against the bundle's `user` and the bounds real
/// transcripts keep; the first failure, naming the row and column.
pub fn check(df: &DataFrame, user: &str) -> Result<(), String> {
    check_text(df, user)?;
    let bounded = [
        (c::INPUT, MAX_TOKENS),
        (c::CACHE_WRITE_5M, MAX_TOKENS),
        (c::CACHE_WRITE_1H, MAX_TOKENS),
        (c::CACHE_READ, MAX_TOKENS),
        (c::OUTPUT, MAX_TOKENS),
        (c::WEB_SEARCH, MAX_WEB_SEARCHES),
        (c::TTL_S, MAX_TTL_S),
        (c::TTL_AFTER_S, MAX_TTL_S),
        (c::EXPECTED_PREFIX, MAX_PROMPT),
        (c::LOST_TOKENS, MAX_PROMPT),
        (c::REBUILT_TOKENS, MAX_PROMPT),
        (c::LINEAGE_FIRST_READ, MAX_TOKENS),
    ];
    for (name, bound) in bounded {
        let col = df.column(name).map_err(|e| e.to_string())?.cast(&DataType::UInt64).map_err(|e| e.to_string())?;
        let values = col.u64().map_err(|e| e.to_string())?;
        let found = values.iter().enumerate().find_map(|(i, v)| v.filter(|v| *v > bound).map(|v| (i, v)));
        if let Some((i, v)) = found {
            return Err(format!("analysis row {}: {name} {v} is above the bound of {bound}", i + 1));
        }
    }
    let money = [
        c::GAP_S,
        c::COST_USD,
        c::MISS_COST_USD,
        c::RATE_INPUT,
        c::RATE_OUTPUT,
        c::RATE_READ_MULTIPLIER,
        c::ACTUAL_USD,
        c::RESUME_PREMIUM_USD,
        c::IDLE_COMPACT_FIXED_USD,
        c::IDLE_COMPACT_PER_TOKEN_USD,
        c::KEEP_WARM_PING_USD,
    ];
    for name in money {
        let values = df.column(name).and_then(|c| c.f64().cloned()).map_err(|e| e.to_string())?;
        let bad = |v: f64| !v.is_finite() || v < 0.0 || (name != c::GAP_S && v > MAX_USD);
        let found = values.iter().enumerate().find_map(|(i, v)| v.filter(|v| bad(*v)).map(|v| (i, v)));
        if let Some((i, v)) = found {
            return Err(format!("analysis row {}: {name} {v} is not a finite figure between 0 and {MAX_USD}", i + 1));
        }
    }
    Ok(())
}

/// The text columns: the bundle's user on every row, a known class, and
/// names (`model::name_fault`: no control characters, bounded length; the
/// rule export keeps, `team::names`).
fn check_text(df: &DataFrame, user: &str) -> Result<(), String> {
    let text = |name: &str| df.column(name).and_then(|c| c.str().cloned()).map_err(|e| e.to_string());
    if let Some((i, other)) = text(c::USER)?.iter().enumerate().find(|(_, u)| *u != Some(user)) {
        let other: String = other.unwrap_or("").chars().filter(|c| !is_unsafe(*c)).take(40).collect();
        return Err(format!("analysis row {} names user {other:?}, but the bundle is {user:?}'s", i + 1));
    }
    let classes = text(c::CLASS)?;
    if let Some(i) = classes.iter().position(|k| k.and_then(CacheClass::parse).is_none()) {
        return Err(format!("analysis row {}: unknown cache class", i + 1));
    }
    for name in [
        c::SESSION_ID,
        c::THREAD,
        c::PROJECT,
        c::CWD,
        c::MODEL,
        c::VERSION,
        c::MESSAGE_ID,
        c::SPEED,
        c::INFERENCE_GEO,
        c::SERVER_REASON,
        c::QUERY_SOURCE,
        c::SHAPE_HASH,
        c::TTL_ASKED,
    ] {
        let fault = text(name)?.iter().enumerate().find_map(|(i, v)| v.and_then(name_fault).map(|f| (i, f)));
        if let Some((i, fault)) = fault {
            return Err(format!("analysis row {}: {name} holds control characters or is too long ({fault})", i + 1));
        }
    }
    Ok(())
}

/// The bundle's analysis rows in the analysis table's layout; None when it
/// has none.
pub(super) fn rows_of(df: &DataFrame) -> PolarsResult<Option<DataFrame>> {
    let kind = df.column(c::KIND)?.str()?;
    let rows = df.filter(&kind.equal(super::bundle::KIND_ANALYSIS))?;
    if rows.height() == 0 {
        return Ok(None);
    }
    // A bundle written before a column was added lacks it: null (its stamp
    // names the older analysis, so an import classifies its rows again).
    let mut rows = rows;
    let client = c::CLIENT_COLUMNS.map(|n| (n, DataType::String));
    for (name, dtype) in client.into_iter().chain(own_columns()) {
        if rows.column(name).is_err() {
            let n = rows.height();
            rows.with_column(Column::full_null(name.into(), n, &dtype))?;
        }
    }
    let mut rows = rows.select(order())?;
    rows.rechunk_mut();
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_rows_of_an_older_bundle_get_the_new_columns_as_nulls() {
        let mut columns: Vec<Column> =
            SHARED.iter().map(|n| Column::full_null((*n).into(), 1, &DataType::String)).collect();
        for (name, dtype) in own_columns().into_iter().filter(|(n, _)| *n != c::KEEP_WARM_PING_USD) {
            columns.push(Column::full_null(name.into(), 1, &dtype));
        }
        columns.push(Column::new(c::KIND.into(), [super::super::bundle::KIND_ANALYSIS]));
        let df = DataFrame::new(1, columns).unwrap();
        let rows = rows_of(&df).unwrap().unwrap();
        assert_eq!(rows.get_column_names().iter().map(|n| n.as_str()).collect::<Vec<_>>(), order());
        assert_eq!(rows.column(c::KEEP_WARM_PING_USD).unwrap().null_count(), 1);
    }
}
