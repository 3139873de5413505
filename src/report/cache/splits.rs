//! The columns the `cache` report's version and context splits read
//! (`cache::versions`, `cache::context`), taken from each batch once for both.

use super::context::ContextTally;
use super::versions::VersionTally;
use crate::analyze::CacheClass;
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::pricing::Rates;
use crate::store::frames::Cols;
use chrono::{DateTime, Utc};
use polars::prelude::{DataFrame, PolarsResult};

/// The analysis columns the splits read.
pub const COLUMNS: [&str; 16] = [
    c::USER,
    c::SESSION_ID,
    c::THREAD,
    c::VERSION,
    c::TIME,
    c::CLASS,
    c::MISS_COST_USD,
    c::ACTUAL_USD,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::OUTPUT,
    c::RATE_INPUT,
    c::RATE_OUTPUT,
    c::RATE_READ_MULTIPLIER,
];

/// One batch's rows, as the splits read them.
pub struct SplitRows<'a> {
    pub user: Vec<&'a str>,
    pub session: Vec<&'a str>,
    pub thread: Vec<&'a str>,
    pub version: Vec<&'a str>,
    pub time: Vec<DateTime<Utc>>,
    /// None for a class this release does not know.
    pub class: Vec<Option<CacheClass>>,
    pub miss_usd: Vec<f64>,
    pub actual_usd: Vec<f64>,
    pub tokens: Vec<TokenCounts>,
    /// None for a model without a price.
    pub rates: Vec<Option<Rates>>,
}

impl<'a> SplitRows<'a> {
    /// The rows of `df` (analysis rows with `COLUMNS`).
    pub fn of(df: &'a DataFrame) -> PolarsResult<SplitRows<'a>> {
        let k = Cols(df);
        Ok(SplitRows {
            user: k.str(c::USER)?,
            session: k.str(c::SESSION_ID)?,
            thread: k.str(c::THREAD)?,
            version: k.str(c::VERSION)?,
            time: k.time(c::TIME)?,
            class: k.str(c::CLASS)?.into_iter().map(CacheClass::parse).collect(),
            miss_usd: k.f64(c::MISS_COST_USD)?,
            actual_usd: k.f64(c::ACTUAL_USD)?,
            tokens: k.tokens()?,
            rates: k.rates()?,
        })
    }

    /// How many rows the batch has.
    pub fn rows(&self) -> usize {
        self.time.len()
    }
}

/// Both splits, counted a batch at a time.
#[derive(Debug, Default)]
pub struct Splits {
    pub versions: VersionTally,
    pub context: ContextTally,
}

impl Splits {
    /// Counts `df` (analysis rows with `COLUMNS`).
    pub fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        if df.height() == 0 {
            return Ok(());
        }
        let rows = SplitRows::of(df)?;
        self.versions.add(&rows);
        self.context.add(&rows);
        Ok(())
    }
}
