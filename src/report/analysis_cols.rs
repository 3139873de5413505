//! The analysis columns a cache report sums, read once from a selected
//! frame: `AnalysisCols::figures(i)` is row `i` as the summary's
//! `RowFigures`, with the what-if costs the materialize stage stored.

use crate::analyze::{CacheClass, RowFigures, WhatIf};
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::store::frames::Cols;
use chrono::{DateTime, Utc};
use polars::prelude::*;

/// The columns `AnalysisCols::of` reads.
pub const FIGURES: [&str; 18] = [
    c::USER,
    c::SESSION_ID,
    c::PROJECT,
    c::TIME,
    c::MODEL,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::OUTPUT,
    c::CLASS,
    c::REWIND,
    c::GAP_S,
    c::REBUILT_TOKENS,
    c::MISS_COST_USD,
    c::ACTUAL_USD,
    c::POLICY_5M_USD,
    c::POLICY_1H_USD,
];

/// The `FIGURES` columns of a frame, as vectors.
pub struct AnalysisCols<'a> {
    pub user: Vec<&'a str>,
    pub session: Vec<&'a str>,
    pub project: Vec<&'a str>,
    pub time: Vec<DateTime<Utc>>,
    pub model: Vec<&'a str>,
    pub tokens: Vec<TokenCounts>,
    pub class: Vec<CacheClass>,
    pub rewind: Vec<bool>,
    pub gap_s: Vec<Option<f64>>,
    pub rebuilt: Vec<u64>,
    pub miss_cost: Vec<f64>,
    pub actual: Vec<f64>,
    pub policy_5m: Vec<f64>,
    pub policy_1h: Vec<f64>,
}

impl<'a> AnalysisCols<'a> {
    pub fn of(df: &'a DataFrame) -> PolarsResult<AnalysisCols<'a>> {
        let k = Cols(df);
        let class = df.column(c::CLASS)?.str()?;
        let class = class
            .iter()
            .map(|v| {
                let name = v.unwrap_or("");
                CacheClass::parse(name)
                    .ok_or_else(|| PolarsError::ComputeError(format!("analysis: unknown cache class {name:?}").into()))
            })
            .collect::<PolarsResult<Vec<CacheClass>>>()?;
        Ok(AnalysisCols {
            user: k.str(c::USER)?,
            session: k.str(c::SESSION_ID)?,
            project: k.str(c::PROJECT)?,
            time: k.time(c::TIME)?,
            model: k.str(c::MODEL)?,
            tokens: k.tokens()?,
            class,
            rewind: k.bool(c::REWIND)?,
            gap_s: df.column(c::GAP_S)?.f64()?.iter().collect(),
            rebuilt: k.u64(c::REBUILT_TOKENS)?,
            miss_cost: k.f64(c::MISS_COST_USD)?,
            actual: k.f64(c::ACTUAL_USD)?,
            policy_5m: k.f64(c::POLICY_5M_USD)?,
            policy_1h: k.f64(c::POLICY_1H_USD)?,
        })
    }

    /// Row `i` as the summary sums it.
    pub fn figures(&self, i: usize) -> RowFigures {
        RowFigures {
            tokens: self.tokens[i],
            class: self.class[i],
            rewind: self.rewind[i],
            gap_s: self.gap_s[i],
            rebuilt_tokens: self.rebuilt[i],
            miss_cost_usd: self.miss_cost[i],
            what_if: WhatIf::of(self.actual[i], self.policy_5m[i], self.policy_1h[i]),
        }
    }
}
