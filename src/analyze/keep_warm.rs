//! Two looks back at the main-thread expiries (misses classed `ttl_5m` or
//! `ttl_1h`, cache-model v3): the keep-warm what-if (§8.4: what pinging the
//! cache 30 s before each expiry through the gap would have cost against
//! the miss it avoids) and the backtest of the resume premium (§8.5: each
//! expiry's miss cost predicted from what was known just before it, v3 with
//! the warm shared prefix `Rs`, v2 rewriting everything, against what was
//! observed). Per-row figures (`Expiry`) are computed when the analysis is
//! stored; `KeepWarmTally` sums them per day, per session and in total.

use super::classify::{CacheClass, RequestCache};
use super::prefix::shared_prefix;
use crate::model::{Request, TokenCounts, MAIN_THREAD};
use crate::pricing::{cost, rewrite_premium, Rates, TTL_1H_S, TTL_5M_S};
use serde::Serialize;

/// A ping is sent this long before each expiry.
pub const PING_LEAD_S: u32 = 30;
/// Gaps longer than this are left out of the keep-warm what-if (nobody
/// keeps a cache warm overnight).
pub const KEEP_WARM_MAX_GAP_S: f64 = 8.0 * 3600.0;

/// True for a request the keep-warm what-if and the backtest look at.
pub fn is_expiry(class: CacheClass, thread: &str) -> bool {
    class.is_idle() && thread == MAIN_THREAD
}

/// Pings a keep-warm policy sends during a gap of `gap_s` with `ttl_s` in
/// force, one `PING_LEAD_S` before each expiry: `floor((g - 1) / (T - 30))`.
pub fn pings(gap_s: f64, ttl_s: u32) -> u64 {
    let period = f64::from(ttl_s.saturating_sub(PING_LEAD_S).max(1));
    ((gap_s - 1.0) / period).floor().max(0.0) as u64
}

/// One ping's cost: it reads the previous prompt `prev_prompt` and writes
/// one output token, at the rates of the request before the gap.
pub fn ping_usd(prev_rates: Option<&Rates>, prev_prompt: u64) -> f64 {
    let t = TokenCounts { cache_read: prev_prompt, output: 1, ..TokenCounts::default() };
    cost(prev_rates, &t, 0)
}

/// The backtest's predictions of an expiry's miss cost (v3, v2), at the
/// rates of the request `rates` and the TTL it wrote with (1 h when it
/// wrote any 1-hour tokens): `(E - Rs) * (write - read)` with `Rs` the
/// lineage's first read while the prefix was `warm_1h` at its time, and
/// `E * (write - read)`.
pub fn predicted(rates: Option<&Rates>, prev_prompt: u64, first_read: u64, warm_1h: bool, w1h: u64) -> (f64, f64) {
    let ttl = if w1h > 0 { TTL_1H_S } else { TTL_5M_S };
    let rs = shared_prefix(first_read, prev_prompt, warm_1h);
    let v3 = rewrite_premium(rates, (prev_prompt - rs) as f64, ttl);
    (v3, rewrite_premium(rates, prev_prompt as f64, ttl))
}

/// What the two looks back need of one expiry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expiry {
    pub gap_s: f64,
    /// TTL in force over the gap.
    pub ttl_s: u32,
    /// The observed miss cost (§2).
    pub miss_cost_usd: f64,
    /// One ping's cost (`ping_usd`).
    pub ping_usd: f64,
    /// The backtest's v3 and v2 predictions (`predicted`).
    pub predicted_usd: f64,
    pub predicted_v2_usd: f64,
}

/// The longest gap per TTL at which keeping warm costs less than the
/// median miss (None: no expiry of that TTL, or pings cost nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct BreakEven {
    #[serde(rename = "5m")]
    pub ttl_5m: Option<f64>,
    #[serde(rename = "1h")]
    pub ttl_1h: Option<f64>,
}

/// The keep-warm what-if (§8.4) of a set of requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KeepWarm {
    /// Pings sent through the gaps of 8 hours or less.
    pub pings: u64,
    /// What they cost.
    pub cost_usd: f64,
    /// The expiries they would have avoided (every one in scope).
    pub misses_avoided: u64,
    /// Those misses' cost minus the pings' (negative: keeping warm would
    /// have cost more).
    pub saving_usd: f64,
    /// Expiries after gaps over 8 hours, left out.
    pub left_out_gaps: u64,
    /// Per TTL, in seconds: `(k + 1) * (T - 30)` for the largest `k` with
    /// `k * median ping < median miss` (at or below the TTL minus 30 s:
    /// one ping already costs more than the miss).
    pub break_even_gap_s: BreakEven,
}

/// The backtest of the resume premium (§8.5) over a set of requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Backtest {
    /// Main-thread expiries predicted.
    pub misses: u64,
    /// Their observed miss cost.
    pub observed_usd: f64,
    /// v3's prediction (the warm shared prefix read, not written).
    pub predicted_usd: f64,
    /// v2's prediction (`Rs = 0`).
    pub v2_predicted_usd: f64,
    /// Sum of `|v3 prediction - observed|` as a percent of the observed
    /// sum (None when nothing was observed).
    pub mae_pct: Option<f64>,
    /// The same for v2.
    pub v2_mae_pct: Option<f64>,
}

/// Running sums behind `KeepWarm` and `Backtest`.
#[derive(Debug, Clone, Default)]
pub struct KeepWarmTally {
    keep_warm: KeepWarm,
    backtest: Backtest,
    abs_err: f64,
    abs_err_v2: f64,
    /// (ping cost, miss cost) per expiry in scope, 5-minute then 1-hour.
    costs: [Vec<(f64, f64)>; 2],
}

impl KeepWarmTally {
    /// Adds one expiry.
    pub fn add(&mut self, e: &Expiry) {
        let b = &mut self.backtest;
        b.misses += 1;
        b.observed_usd += e.miss_cost_usd;
        b.predicted_usd += e.predicted_usd;
        b.v2_predicted_usd += e.predicted_v2_usd;
        self.abs_err += (e.predicted_usd - e.miss_cost_usd).abs();
        self.abs_err_v2 += (e.predicted_v2_usd - e.miss_cost_usd).abs();
        let k = &mut self.keep_warm;
        if e.gap_s > KEEP_WARM_MAX_GAP_S {
            k.left_out_gaps += 1;
            return;
        }
        let n = pings(e.gap_s, e.ttl_s);
        let usd = n as f64 * e.ping_usd;
        k.pings += n;
        k.cost_usd += usd;
        k.misses_avoided += 1;
        k.saving_usd += e.miss_cost_usd - usd;
        self.costs[usize::from(e.ttl_s >= TTL_1H_S)].push((e.ping_usd, e.miss_cost_usd));
    }

    /// The figures of the expiries added.
    pub fn finish(self) -> (KeepWarm, Backtest) {
        let mut k = self.keep_warm;
        let [c5, c1] = self.costs;
        k.break_even_gap_s = BreakEven { ttl_5m: break_even(c5, TTL_5M_S), ttl_1h: break_even(c1, TTL_1H_S) };
        let mut b = self.backtest;
        let observed = b.observed_usd;
        let pct = |err: f64| (observed > 0.0).then(|| 100.0 * err / observed);
        b.mae_pct = pct(self.abs_err);
        b.v2_mae_pct = pct(self.abs_err_v2);
        (k, b)
    }
}

/// `(k + 1) * (T - 30)` for the largest `k` with `k * ping < miss`, over
/// the medians of `costs`; None without costs or with free pings.
fn break_even(costs: Vec<(f64, f64)>, ttl_s: u32) -> Option<f64> {
    let (pings, misses): (Vec<f64>, Vec<f64>) = costs.into_iter().unzip();
    let (ping, miss) = (super::stats::median(pings)?, super::stats::median(misses)?);
    if ping <= 0.0 {
        return None;
    }
    let k = ((miss / ping).ceil() - 1.0).max(0.0);
    Some((k + 1.0) * f64::from(ttl_s.saturating_sub(PING_LEAD_S)))
}

/// The keep-warm what-if of a session's last main-thread expiry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LastBreak {
    pub gap_s: f64,
    pub pings: u64,
    /// What the pings would have cost.
    pub cost_usd: f64,
    /// The miss cost they would have avoided.
    pub miss_cost_usd: f64,
    /// `miss_cost_usd - cost_usd` (negative: keeping warm costs more).
    pub saving_usd: f64,
}

/// The keep-warm what-if of the last main-thread expiry among `main`
/// (time order), when its gap is 8 hours or less (§8.4 v3).
pub(crate) fn last_break(main: &[usize], requests: &[Request], caches: &[RequestCache]) -> Option<LastBreak> {
    let j = (1..main.len()).rev().find(|&j| is_expiry(caches[main[j]].class, &requests[main[j]].thread))?;
    let c = &caches[main[j]];
    let gap_s = c.gap_s.filter(|g| *g <= KEEP_WARM_MAX_GAP_S)?;
    let n = pings(gap_s, c.ttl_s);
    let cost_usd = n as f64 * ping_usd(caches[main[j - 1]].rates.as_ref(), c.expected_prefix);
    Some(LastBreak {
        gap_s,
        pings: n,
        cost_usd,
        miss_cost_usd: c.miss_cost_usd,
        saving_usd: c.miss_cost_usd - cost_usd,
    })
}
