//! The columns the `cache` report's version and context splits read
//! (`cache::versions`, `cache::context`), taken from each batch once for both.

use super::context::ContextTally;
use super::versions::VersionTally;
use crate::analyze::CacheClass;
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::pricing::Rates;
use crate::store::frames::{Cols, Floats};
use polars::prelude::{DataFrame, Float64Type, PolarsResult, UInt64Type};

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

/// One batch's rows, as the splits read them (its number columns one
/// chunk each, as `StoreView::for_each_batch` gives them, read in place).
pub struct SplitRows<'a> {
    pub user: Vec<&'a str>,
    pub session: Vec<&'a str>,
    pub thread: Vec<&'a str>,
    pub version: Vec<&'a str>,
    /// Milliseconds since the epoch, UTC.
    pub time_ms: &'a [i64],
    /// None for a class this release does not know.
    pub class: Vec<Option<CacheClass>>,
    pub miss_usd: &'a [f64],
    pub actual_usd: &'a [f64],
    tokens: [&'a [u64]; 5],
    rates: [Floats<'a>; 3],
}

impl<'a> SplitRows<'a> {
    /// The rows of `df` (analysis rows with `COLUMNS`).
    pub fn of(df: &'a DataFrame) -> PolarsResult<SplitRows<'a>> {
        let k = Cols(df);
        let u64s = |name| k.slice::<UInt64Type>(name);
        Ok(SplitRows {
            user: k.str(c::USER)?,
            session: k.str(c::SESSION_ID)?,
            thread: k.str(c::THREAD)?,
            version: k.str(c::VERSION)?,
            time_ms: k.millis_slice(c::TIME)?,
            class: k.str(c::CLASS)?.into_iter().map(CacheClass::parse).collect(),
            miss_usd: k.slice::<Float64Type>(c::MISS_COST_USD)?,
            actual_usd: k.slice::<Float64Type>(c::ACTUAL_USD)?,
            tokens: [
                u64s(c::INPUT)?,
                u64s(c::CACHE_WRITE_5M)?,
                u64s(c::CACHE_WRITE_1H)?,
                u64s(c::CACHE_READ)?,
                u64s(c::OUTPUT)?,
            ],
            rates: [k.floats(c::RATE_INPUT)?, k.floats(c::RATE_OUTPUT)?, k.floats(c::RATE_READ_MULTIPLIER)?],
        })
    }

    /// How many rows the batch has.
    pub fn rows(&self) -> usize {
        self.time_ms.len()
    }

    /// Row `i`'s tokens.
    pub fn tokens(&self, i: usize) -> TokenCounts {
        let [input, w5, w1h, read, output] = self.tokens;
        TokenCounts {
            input: input[i],
            cache_write_5m: w5[i],
            cache_write_1h: w1h[i],
            cache_read: read[i],
            output: output[i],
        }
    }

    /// The rates row `i` paid (None for a model without a price).
    pub fn rates(&self, i: usize) -> Option<Rates> {
        let [input, output, read] = self.rates;
        Rates::stored(input.get(i), output.get(i), read.get(i))
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
