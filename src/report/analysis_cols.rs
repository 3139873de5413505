//! The analysis columns a cache report sums, read once from a selected
//! frame without copying the numbers (`AnalysisCols::of`): row `i` is the
//! summary's `Figures` (`figures`), with the what-if costs the materialize
//! stage stored. `LocalDays` turns a row's time into its local day.

use crate::analyze::{CacheClass, Expiry, Figures, GapBucket, WhatIf};
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::store::frames::{Cols, Floats};
use chrono::{NaiveDate, Offset, TimeZone};
use chrono_tz::Tz;
use polars::prelude::*;

/// The columns `AnalysisCols::of` reads.
pub(super) const FIGURES: [&str; 21] = [
    c::USER,
    c::SESSION_ID,
    c::PROJECT,
    c::TIME,
    c::MODEL,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::CLASS,
    c::REWIND,
    c::GAP_S,
    c::REBUILT_TOKENS,
    c::MISS_COST_USD,
    c::ACTUAL_USD,
    c::POLICY_5M_USD,
    c::POLICY_1H_USD,
    c::TTL_S,
    c::KEEP_WARM_PING_USD,
    c::BACKTEST_USD,
    c::BACKTEST_V2_USD,
];

/// The `FIGURES` columns of a frame (its number columns one chunk each).
pub(super) struct AnalysisCols<'a> {
    pub user: Vec<&'a str>,
    pub session: Vec<&'a str>,
    pub project: Vec<&'a str>,
    pub model: Vec<&'a str>,
    /// Milliseconds since the epoch, UTC.
    pub time_ms: &'a [i64],
    input: &'a [u64],
    write_5m: &'a [u64],
    write_1h: &'a [u64],
    read: &'a [u64],
    class: Vec<CacheClass>,
    rewind: Vec<bool>,
    gap_s: Floats<'a>,
    rebuilt: &'a [u64],
    miss_cost: &'a [f64],
    actual: &'a [f64],
    policy_5m: &'a [f64],
    policy_1h: &'a [f64],
    ttl_s: &'a [u64],
    ping: Floats<'a>,
    backtest: Floats<'a>,
    backtest_v2: Floats<'a>,
}

impl<'a> AnalysisCols<'a> {
    pub(super) fn of(df: &'a DataFrame) -> PolarsResult<AnalysisCols<'a>> {
        let k = Cols(df);
        let class = k
            .str(c::CLASS)?
            .into_iter()
            .map(|name| {
                CacheClass::parse(name)
                    .ok_or_else(|| PolarsError::ComputeError(format!("analysis: unknown cache class {name:?}").into()))
            })
            .collect::<PolarsResult<Vec<CacheClass>>>()?;
        let (u64s, f64s) = (|name| k.slice::<UInt64Type>(name), |name| k.slice::<Float64Type>(name));
        Ok(AnalysisCols {
            user: k.str(c::USER)?,
            session: k.str(c::SESSION_ID)?,
            project: k.str(c::PROJECT)?,
            model: k.str(c::MODEL)?,
            time_ms: k.millis_slice(c::TIME)?,
            input: u64s(c::INPUT)?,
            write_5m: u64s(c::CACHE_WRITE_5M)?,
            write_1h: u64s(c::CACHE_WRITE_1H)?,
            read: u64s(c::CACHE_READ)?,
            class,
            rewind: k.bool(c::REWIND)?,
            gap_s: k.floats(c::GAP_S)?,
            rebuilt: u64s(c::REBUILT_TOKENS)?,
            miss_cost: f64s(c::MISS_COST_USD)?,
            actual: f64s(c::ACTUAL_USD)?,
            policy_5m: f64s(c::POLICY_5M_USD)?,
            policy_1h: f64s(c::POLICY_1H_USD)?,
            ttl_s: u64s(c::TTL_S)?,
            ping: k.floats(c::KEEP_WARM_PING_USD)?,
            backtest: k.floats(c::BACKTEST_USD)?,
            backtest_v2: k.floats(c::BACKTEST_V2_USD)?,
        })
    }

    /// Row `i` as the summary sums it.
    pub(super) fn figures(&self, i: usize) -> Figures {
        Figures {
            count: 1,
            tokens: TokenCounts {
                input: self.input[i],
                cache_write_5m: self.write_5m[i],
                cache_write_1h: self.write_1h[i],
                cache_read: self.read[i],
                output: 0,
            },
            class: self.class[i],
            rewinds: u64::from(self.rewind[i]),
            bucket: self.gap_s.get(i).map(GapBucket::of),
            rebuilt_tokens: self.rebuilt[i],
            miss_cost_usd: self.miss_cost[i],
            what_if: WhatIf::of(self.actual[i], self.policy_5m[i], self.policy_1h[i]),
            expiry: self.expiry(i),
        }
    }

    /// Row `i`'s keep-warm and backtest figures, on a main-thread expiry.
    fn expiry(&self, i: usize) -> Option<Expiry> {
        Some(Expiry {
            gap_s: self.gap_s.get(i)?,
            ttl_s: u32::try_from(self.ttl_s[i]).unwrap_or(u32::MAX),
            miss_cost_usd: self.miss_cost[i],
            ping_usd: self.ping.get(i)?,
            predicted_usd: self.backtest.get(i).unwrap_or(0.0),
            predicted_v2_usd: self.backtest_v2.get(i).unwrap_or(0.0),
        })
    }
}

/// Local days of UTC times in one time zone, remembering the offset of the
/// last quarter hour asked (offsets change on quarter hours at most).
pub(super) struct LocalDays {
    tz: Tz,
    quarter: i64,
    offset_ms: i64,
}

const QUARTER_MS: i64 = 900_000;
const DAY_MS: i64 = 86_400_000;

impl LocalDays {
    pub(super) fn new(tz: Tz) -> LocalDays {
        LocalDays { tz, quarter: i64::MIN, offset_ms: 0 }
    }

    /// The local day of `ms` (UTC milliseconds), as days since 1970-01-01.
    pub(super) fn day(&mut self, ms: i64) -> i32 {
        let quarter = ms.div_euclid(QUARTER_MS);
        if quarter != self.quarter {
            let t = chrono::DateTime::from_timestamp_millis(quarter * QUARTER_MS).unwrap_or_default();
            self.offset_ms = i64::from(self.tz.offset_from_utc_datetime(&t.naive_utc()).fix().local_minus_utc()) * 1000;
            self.quarter = quarter;
        }
        i32::try_from((ms + self.offset_ms).div_euclid(DAY_MS)).unwrap_or(0)
    }

    /// `YYYY-MM-DD` of a day number.
    pub(super) fn name(day: i32) -> String {
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
        (epoch + chrono::TimeDelta::days(i64::from(day))).format("%Y-%m-%d").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_days_follow_the_zone_and_its_daylight_saving() {
        let ms = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis();
        let mut utc = LocalDays::new(chrono_tz::UTC);
        assert_eq!(LocalDays::name(utc.day(ms("2026-03-08T23:59:59.999Z"))), "2026-03-08");
        let mut ny = LocalDays::new(chrono_tz::America::New_York);
        // 04:30 UTC is 23:30 the day before in EST (UTC-5) ...
        assert_eq!(LocalDays::name(ny.day(ms("2026-03-08T04:30:00Z"))), "2026-03-07");
        // ... and 00:30 local in EDT (UTC-4) after the switch.
        assert_eq!(LocalDays::name(ny.day(ms("2026-03-09T04:30:00Z"))), "2026-03-09");
        let mut kolkata = LocalDays::new(chrono_tz::Asia::Kolkata);
        assert_eq!(LocalDays::name(kolkata.day(ms("2026-03-08T18:29:00Z"))), "2026-03-08");
        assert_eq!(LocalDays::name(kolkata.day(ms("2026-03-08T18:30:00Z"))), "2026-03-09");
    }
}
