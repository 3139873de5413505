//! Thread requests -> analysis rows: the cache model (`analyze`) over a set
//! of whole sessions, one row per thread request with its verdict, the
//! prices it paid and what its money figures need later. The what-if policy
//! costs are added by `finish`, once the shared-prefix flags of the whole
//! table are known.

use super::warm::warm_flags;
use crate::analyze::{
    is_expiry, last_main, ping_usd, predicted, rates_for, request_cost, rewrite_premium, Basis, CacheClass, PolicyRow,
    RequestCache, IDLE_WHAT_IF_MIN_PROMPT, TTL_1H_S,
};
use crate::model::columns as c;
use crate::model::{Request, TokenCounts, MAIN_THREAD};
use crate::pricing::{PriceTable, Rates};
use crate::store::frames::{
    bool_column, f64_column, opt_f64_column, opt_u64_column, text_column, time_column, u64_column, Cols,
};
use polars::prelude::*;
use std::borrow::Borrow;

/// The idle-compaction what-if's price of one gap (§5 v2), split so the
/// summary size, a median over the whole table, comes in at view time:
/// `fixed + summary_tokens * per_token`.
fn idle_compact_parts<R: Borrow<Request>>(
    thread: &[R],
    c: &RequestCache,
    r: &Request,
    prices: &PriceTable,
) -> Option<(f64, f64)> {
    let p = thread[c.prev?].borrow();
    let p_prev = p.tokens.prompt();
    if c.class != CacheClass::Ttl1h || r.thread != MAIN_THREAD || p_prev < IDLE_WHAT_IF_MIN_PROMPT {
        return None;
    }
    let base = rates_for(prices, p, Basis::Base(p.time));
    Some(base.map_or((0.0, 0.0), |b| {
        (p_prev as f64 * b.read_multiplier * b.input, b.output + (b.write(TTL_1H_S) - b.read()))
    }))
}

/// Lays out one analysis row per request of `thread` (whole sessions, as
/// `analyze::thread_requests` makes them) classified as `caches`,
/// without the what-if columns (`finish` adds them).
pub fn analysis_rows<R: Borrow<Request>>(
    thread: &[R],
    caches: &[RequestCache],
    prices: &PriceTable,
) -> PolarsResult<DataFrame> {
    let rows: Vec<(&Request, &RequestCache)> = thread.iter().map(Borrow::borrow).zip(caches).collect();
    let u = |name: &str, f: fn(&RequestCache) -> u64| u64_column(name, rows.iter().map(|(_, k)| f(k)));
    let rate =
        |name: &str, f: fn(&Rates) -> f64| opt_f64_column(name, rows.iter().map(|(_, k)| k.rates.as_ref().map(f)));
    let mut last = vec![false; thread.len()];
    for i in last_main(thread).into_values() {
        last[i] = true;
    }
    let idle: Vec<Option<(f64, f64)>> = rows.iter().map(|(r, k)| idle_compact_parts(thread, k, r, prices)).collect();
    // A main-thread expiry's keep-warm ping, at the rates before the gap (§8.4).
    let ping = rows.iter().map(|(r, k)| {
        let prev = k.prev.filter(|_| is_expiry(k.class, &r.thread))?;
        Some(ping_usd(caches[prev].rates.as_ref(), k.expected_prefix))
    });
    let mut columns = request_columns(&rows)?;
    columns.extend([
        text_column(c::CLASS, rows.iter().map(|(_, k)| k.class.as_str()))?,
        bool_column(c::REWIND, rows.iter().map(|(_, k)| k.rewind)),
        opt_f64_column(c::GAP_S, rows.iter().map(|(_, k)| k.gap_s)),
        u(c::TTL_S, |k| u64::from(k.ttl_s)),
        u(c::TTL_AFTER_S, |k| u64::from(k.ttl_after_s)),
        u(c::EXPECTED_PREFIX, |k| k.expected_prefix),
        u(c::LOST_TOKENS, |k| k.lost_tokens),
        u(c::REBUILT_TOKENS, |k| k.rebuilt_tokens),
        f64_column(c::MISS_COST_USD, rows.iter().map(|(_, k)| k.miss_cost_usd)),
        u64_column(c::LINEAGE_FIRST_READ, rows.iter().map(|(_, k)| thread[k.lineage_first].borrow().tokens.cache_read)),
        rate(c::RATE_INPUT, |p| p.input),
        rate(c::RATE_OUTPUT, |p| p.output),
        rate(c::RATE_READ_MULTIPLIER, |p| p.read_multiplier),
        f64_column(c::ACTUAL_USD, rows.iter().map(|(r, k)| request_cost(k.rates.as_ref(), &r.tokens, r.web_search))),
        bool_column(c::LAST_MAIN, last.into_iter()),
        f64_column(
            c::RESUME_PREMIUM_USD,
            rows.iter().map(|(r, k)| rewrite_premium(k.rates.as_ref(), r.tokens.prompt() as f64, k.ttl_after_s)),
        ),
        opt_f64_column(c::IDLE_COMPACT_FIXED_USD, idle.iter().map(|x| x.map(|(f, _)| f))),
        opt_f64_column(c::IDLE_COMPACT_PER_TOKEN_USD, idle.iter().map(|x| x.map(|(_, p)| p))),
        opt_f64_column(c::KEEP_WARM_PING_USD, ping),
    ]);
    DataFrame::new(rows.len(), columns)
}

/// The columns an analysis row shares with its request
/// (`columns::ANALYSIS_REQUEST`).
fn request_columns(rows: &[(&Request, &RequestCache)]) -> PolarsResult<Vec<Column>> {
    let s = |name: &str, f: fn(&Request) -> &str| text_column(name, rows.iter().map(|(r, _)| f(r)));
    let t = |name: &str, f: fn(&TokenCounts) -> u64| u64_column(name, rows.iter().map(|(r, _)| f(&r.tokens)));
    Ok(vec![
        s(c::USER, |r| &r.user)?,
        s(c::SESSION_ID, |r| &r.session_id)?,
        s(c::THREAD, |r| &r.thread)?,
        s(c::PROJECT, |r| &r.project)?,
        s(c::CWD, |r| &r.cwd)?,
        time_column(c::TIME, rows.iter().map(|(r, _)| r.time)),
        s(c::MODEL, |r| &r.model)?,
        s(c::VERSION, |r| &r.version)?,
        s(c::MESSAGE_ID, |r| &r.message_id)?,
        t(c::INPUT, |k| k.input),
        t(c::CACHE_WRITE_5M, |k| k.cache_write_5m),
        t(c::CACHE_WRITE_1H, |k| k.cache_write_1h),
        t(c::CACHE_READ, |k| k.cache_read),
        t(c::OUTPUT, |k| k.output),
        u64_column(c::WEB_SEARCH, rows.iter().map(|(r, _)| r.web_search)),
        f64_column(c::COST_USD, rows.iter().map(|(r, _)| r.cost_usd)),
        s(c::SPEED, |r| &r.speed)?,
        s(c::INFERENCE_GEO, |r| &r.inference_geo)?,
        s(c::SERVER_REASON, |r| &r.server_reason)?,
        opt_u64_column(c::SERVER_MISSED_TOKENS, rows.iter().map(|(r, _)| r.server_missed_tokens)),
        s(c::QUERY_SOURCE, |r| &r.client.query_source)?,
        s(c::SHAPE_HASH, |r| &r.client.shape_hash)?,
        s(c::TTL_ASKED, |r| &r.client.ttl_asked)?,
    ])
}

/// The columns `finish` adds (over the whole table).
pub const WHAT_IF: [&str; 6] =
    [c::WARM_5M, c::WARM_1H, c::POLICY_5M_USD, c::POLICY_1H_USD, c::BACKTEST_USD, c::BACKTEST_V2_USD];

/// Analysis rows without the columns `finish` adds (as `analysis_rows`
/// makes them, so kept rows stack onto new ones).
pub fn bare(df: DataFrame) -> DataFrame {
    df.drop_many(WHAT_IF)
}

/// Adds the shared-prefix flags and the what-if policy costs to a whole
/// analysis table (every row: the flags cross sessions).
pub fn finish(df: DataFrame) -> PolarsResult<DataFrame> {
    let df = bare(df);
    let (w5, w1) = warm_flags(&[&df])?;
    finish_with(df, w5, w1)
}

/// Adds the what-if columns to analysis rows (without them) whose
/// shared-prefix flags over the whole table are `w5` and `w1`.
pub fn finish_with(df: DataFrame, w5: Vec<bool>, w1: Vec<bool>) -> PolarsResult<DataFrame> {
    let k = Cols(&df);
    let tokens = k.tokens()?;
    let web = k.u64(c::WEB_SEARCH)?;
    let classes = k.str(c::CLASS)?;
    let gaps = k.opt_f64(c::GAP_S)?;
    let (prev, first_read) = (k.u64(c::EXPECTED_PREFIX)?, k.u64(c::LINEAGE_FIRST_READ)?);
    let rates = k.rates()?;
    let expiry: Vec<bool> = df.column(c::KEEP_WARM_PING_USD)?.f64()?.iter().map(|v| v.is_some()).collect();
    let mut p5 = Vec::with_capacity(df.height());
    let mut p1 = Vec::with_capacity(df.height());
    let mut backtest = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let rates = rates[i];
        let class = CacheClass::parse(classes[i]).unwrap_or(CacheClass::First);
        let row = PolicyRow {
            tokens: &tokens[i],
            web_search: web[i],
            rates: rates.as_ref(),
            keeps_observed: gaps[i].is_none() || class.is_start() || class.ttl_independent(),
            gap_s: gaps[i],
            prev_prompt: prev[i],
            lineage_first_read: first_read[i],
            warm_5m: w5[i],
            warm_1h: w1[i],
        };
        p5.push(row.cost(crate::analyze::TTL_5M_S));
        p1.push(row.cost(TTL_1H_S));
        let w1h = tokens[i].cache_write_1h;
        backtest.push(expiry[i].then(|| predicted(rates.as_ref(), prev[i], first_read[i], w1[i], w1h)));
    }
    let mut df = df;
    df.with_column(bool_column(c::WARM_5M, w5.into_iter()))?;
    df.with_column(bool_column(c::WARM_1H, w1.into_iter()))?;
    df.with_column(f64_column(c::POLICY_5M_USD, p5.into_iter()))?;
    df.with_column(f64_column(c::POLICY_1H_USD, p1.into_iter()))?;
    df.with_column(opt_f64_column(c::BACKTEST_USD, backtest.iter().map(|b| b.map(|(v3, _)| v3))))?;
    df.with_column(opt_f64_column(c::BACKTEST_V2_USD, backtest.iter().map(|b| b.map(|(_, v2)| v2))))?;
    Ok(df)
}
