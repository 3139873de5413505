//! Resume, compact or restart (cache-model §7): for one session at `now`,
//! the dollar totals of the three options over `N` future turns, the
//! recommendation (cheaper of resume and compact, ties to resume), the
//! break-even `N`, the history premium, and whether the cache is warm. Pure:
//! the clock and prices are arguments. Hands on a serialisable `Advice`
//! carrying the inputs it used and a plain-language explanation.

pub(crate) use super::advice_options::Prices;
use super::advice_options::{after_compaction, break_even, option_starts, totals, Turns};
use super::advice_text::explain;
use super::classify::{CacheClass, RequestCache};
use super::claude_code::{claude_code, ClaudeCode};
use super::keep_warm::last_break;
pub(super) use super::keep_warm::LastBreak;
use super::prefix::{shared_prefix, WarmPrefixes};
use super::prices::{rates_for, write_multiplier, Basis, RateSource};
use super::stale::{next_prompt, resume_premium, NotResumable};
use super::stats::median;
use super::threads::time_order;
use crate::model::{Compaction, Request, MAIN_THREAD};
use crate::pricing::Rates;
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::borrow::Borrow;

/// Growth per turn when the session has no growing main-thread hit.
pub const DEFAULT_GROWTH_TOKENS: f64 = 2000.0;
/// Floor of the summary size `S`.
pub const MIN_SUMMARY_TOKENS: f64 = 2000.0;
/// Summary size as a share of `P` when no compaction was ever seen.
pub const FALLBACK_SUMMARY_SHARE: f64 = 0.1;
/// Largest horizon searched for the break-even.
pub const MAX_BREAK_EVEN_TURNS: u32 = 200;

/// Which option to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recommendation {
    Resume,
    Compact,
    /// Start a new session: this one cannot be resumed (`not_resumable`).
    Restart,
}

/// Where an input came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// Computed from the session's own requests.
    Session,
    /// From the sessions of the same project.
    Project,
    /// From all sessions (the project had none).
    AllSessions,
    /// The reference default (`G = 2000`, `S = 10% of P`).
    Default,
}

/// Dollar totals of the three options over the horizon.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdviceOptions {
    pub resume_usd: f64,
    pub compact_usd: f64,
    pub restart_usd: f64,
}

/// The numbers §7 works from, so a person can redo the sums.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdviceInputs {
    pub model: String,
    /// `P`, the last main-thread prompt.
    pub prompt_tokens: u64,
    /// `G`, growth per turn.
    pub growth_tokens: f64,
    pub growth_source: InputSource,
    /// `O`, output per turn.
    pub output_tokens: f64,
    /// `Bc`, the base context of a new session.
    pub base_context_tokens: f64,
    pub base_context_source: InputSource,
    /// `S`, the summary size.
    pub summary_tokens: f64,
    pub summary_source: InputSource,
    /// `m`, the write multiplier of `T_last`.
    pub write_multiplier: f64,
    /// `rm`, the read multiplier.
    pub read_multiplier: f64,
    /// `pin` and `pout` in USD per million tokens (0 when unpriced).
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
    /// False when the model has no price (every money figure is then 0).
    pub priced: bool,
}

/// The advice for one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    pub session_id: String,
    pub project: String,
    /// `now - t_last <= T_last`.
    pub warm: bool,
    /// `t_last`, the last main-thread request.
    pub last: DateTime<Utc>,
    /// `t_last + T_last`: when the cache expires or expired.
    pub expires_at: DateTime<Utc>,
    /// `T_last` in seconds.
    pub ttl_s: u32,
    /// Seconds since `t_last`.
    pub idle_s: f64,
    pub turns: u32,
    pub options: AdviceOptions,
    pub recommendation: Recommendation,
    /// Smallest `N` in 1..=200 where compacting first costs less than
    /// resuming; None if there is none.
    pub break_even_turns: Option<u32>,
    /// Recommended total minus restart total.
    pub history_premium_usd: f64,
    pub inputs: AdviceInputs,
    /// What resuming pays once because the cache expired,
    /// `(P - Rs) * (write price at T_last - read price)` at the rates the
    /// last request paid, `P` what a warm cache would hold of the next
    /// prompt (`next_prompt`: the system prompt and tools after a compaction
    /// since the last request): the stale premium of §6, the same figure
    /// every view shows for the session.
    pub cold_resume_usd: f64,
    /// The same premium as cache model v2 priced it (`P` written again).
    pub cold_resume_v2_usd: f64,
    /// `Rs`, the shared prefix warm at `now` (§8.2 v3): a cold resume and a
    /// cold compaction read it; a restart reads up to `Bc` of it.
    pub shared_prefix_tokens: u64,
    /// What keeping the cache warm through the session's last expiry would
    /// have cost and saved (§8.4 v3; None without one of 8 hours or less).
    pub keep_warm: Option<LastBreak>,
    /// What Claude Code itself will do (§7 v2).
    pub claude_code: ClaudeCode,
    /// Why the session cannot be resumed (§8.3 v3; None: it can). The
    /// figures stay, for its history; the explanation says so first.
    pub not_resumable: Option<NotResumable>,
    /// Compact now: the prompt is past the window that would have cost
    /// least over the history (§17; None otherwise, or not resumable).
    pub compact_now: Option<super::window::CompactNow>,
    pub explanation: String,
}

impl Advice {
    /// The advice of a session that cannot be resumed: Claude Code will
    /// show no resume dialog and compact nothing, and the explanation says
    /// first, plainly, that it cannot be resumed and why.
    pub fn not_resumable(mut self, reason: NotResumable, cleanup_days: u64) -> Advice {
        self.not_resumable = Some(reason);
        self.compact_now = None;
        self.recommendation = Recommendation::Restart;
        self.claude_code.resume_dialog = false;
        self.claude_code.idle_compaction_at = None;
        self.explanation =
            super::advice_text::not_resumable_text(reason, cleanup_days) + &explain(&self, chrono_tz::UTC);
        self
    }

    /// The explanation without its opening about resumability: the cache
    /// state, the three totals and the comparison, times in `tz` (the
    /// stored `explanation` says them in UTC).
    pub fn details(&self, tz: chrono_tz::Tz) -> String {
        explain(self, tz)
    }
}

/// The session's main-thread requests in time order. A session id two
/// people share (a copied session) names the latest one's session: a
/// thread is `(user, session, thread)`, never a mix.
fn main_thread(session_id: &str, requests: &[Request]) -> Vec<usize> {
    let mut v: Vec<usize> = (0..requests.len())
        .filter(|&i| requests[i].session_id == session_id && requests[i].thread == MAIN_THREAD)
        .collect();
    v.sort_by(|&a, &b| time_order(&requests[a], &requests[b]));
    if let Some(&last) = v.last() {
        let user = &requests[last].user;
        v.retain(|&i| requests[i].user == *user);
    }
    v
}

/// `G`: median positive growth over main-thread hits, else the default. A
/// hit's previous prompt is its expected prefix `E = P_{i-1}` (stored).
pub(crate) fn growth<R: Borrow<Request>>(main: &[usize], requests: &[R], caches: &[RequestCache]) -> Option<f64> {
    let diffs: Vec<f64> = main
        .iter()
        .filter(|&&i| caches[i].class == CacheClass::Hit)
        .filter_map(|&i| {
            let d = requests[i].borrow().tokens.prompt() as i64 - caches[i].expected_prefix as i64;
            (d > 0).then_some(d as f64)
        })
        .collect();
    median(diffs)
}

/// The medians `Bc` and `S` come from (§7): main-thread prompts of first
/// requests, in the session's project if it has any, else over all
/// sessions; and of requests after a compaction, in the project only
/// (other projects' compactions are not used for `S`, §7 v3), from the
/// stored columns (`report::cache::medians`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProjectMedians {
    pub first: Option<(f64, InputSource)>,
    /// Always of the project itself (`InputSource::Project`) when present.
    pub compaction: Option<(f64, InputSource)>,
}

impl ProjectMedians {
    /// `Bc`: the median first prompt (0 when none was seen).
    pub fn base_context(&self) -> (f64, InputSource) {
        self.first.unwrap_or((0.0, InputSource::Default))
    }

    /// `S`, the one rule of the advice (§7) and the idle-compaction what-if
    /// (§5 v2): the median prompt after the project's compactions minus
    /// `Bc`, floored at `MIN_SUMMARY_TOKENS`; when the project has no
    /// compaction, `FALLBACK_SUMMARY_SHARE` of `p` (not floored), where `p`
    /// is `P_last` for the advice and `P_{i-1}` for the what-if.
    pub fn summary_tokens(&self, p: u64) -> (f64, InputSource) {
        match self.compaction {
            Some((after, src)) => ((after - self.base_context().0).max(MIN_SUMMARY_TOKENS), src),
            None => (FALLBACK_SUMMARY_SHARE * p as f64, InputSource::Default),
        }
    }
}

/// Gathers `P`, `G`, `O`, `Bc`, `S` and the prices (§7) for a session whose
/// main-thread requests are `main` (time order, non-empty).
fn advice_inputs(
    main: &[usize],
    requests: &[Request],
    caches: &[RequestCache],
    base: Option<Rates>,
    ttl_s: u32,
    medians: &ProjectMedians,
) -> (AdviceInputs, Prices, Turns) {
    let last = &requests[main[main.len() - 1]];
    let p_last = last.tokens.prompt();
    let prices = Prices { rates: base, ttl_s };
    let g = growth(main, requests, caches);
    let outs: Vec<f64> = main.iter().map(|&i| requests[i].tokens.output as f64).collect();
    let t = Turns { g: g.unwrap_or(DEFAULT_GROWTH_TOKENS), o: median(outs).unwrap_or(0.0) };
    let (bc, bc_src) = medians.base_context();
    let (s, s_src) = medians.summary_tokens(p_last);
    let inputs = AdviceInputs {
        model: last.model.to_string(),
        prompt_tokens: p_last,
        growth_tokens: t.g,
        growth_source: if g.is_some() { InputSource::Session } else { InputSource::Default },
        output_tokens: t.o,
        base_context_tokens: bc,
        base_context_source: bc_src,
        summary_tokens: s,
        summary_source: s_src,
        write_multiplier: write_multiplier(ttl_s),
        read_multiplier: base.map_or(0.0, |b| b.read_multiplier),
        input_usd_per_mtok: base.map_or(0.0, |b| b.input) * 1e6,
        output_usd_per_mtok: base.map_or(0.0, |b| b.output) * 1e6,
        priced: base.is_some(),
    };
    (inputs, prices, t)
}

/// Compact when strictly cheaper than resuming, else resume; with the
/// chosen option's total.
fn recommend(options: &AdviceOptions) -> (Recommendation, f64) {
    if options.compact_usd < options.resume_usd {
        (Recommendation::Compact, options.compact_usd)
    } else {
        (Recommendation::Resume, options.resume_usd)
    }
}

/// Advice for `session_id` at `now` over `turns` future turns; None when
/// the session has no main-thread request. Prices are the list rates of the
/// last request's model at `now` times its fast-mode and data-residency
/// multipliers (`Basis::Session`, §7 v3); `compactions` tell what Claude
/// Code already did; `medians` gives the project medians of the last
/// request's project and `prefixes` the shared prefixes warm at `now`, so
/// `requests` may hold only the session's rows.
#[allow(clippy::too_many_arguments)]
pub fn advise_in(
    session_id: &str,
    requests: &[Request],
    caches: &[RequestCache],
    compactions: &[Compaction],
    rates: &dyn RateSource,
    now: DateTime<Utc>,
    turns: u32,
    medians: &dyn Fn(&str) -> ProjectMedians,
    prefixes: &WarmPrefixes,
) -> Option<Advice> {
    let main = main_thread(session_id, requests);
    let &last_i = main.last()?;
    let last = &requests[last_i];
    let medians = medians(&last.project);
    let ttl_s = caches[last_i].ttl_after_s;
    let idle_s = (now - last.time).as_seconds_f64();
    let warm = idle_s <= f64::from(ttl_s);
    let session_rates = rates_for(rates, last, Basis::Session(now));
    let (inputs, prices, t) = advice_inputs(&main, requests, caches, session_rates, ttl_s, &medians);
    let (p, bc, s) = (inputs.prompt_tokens as f64, inputs.base_context_tokens, inputs.summary_tokens);
    let c_last = &caches[last_i];
    let rs = shared_prefix(c_last.lineage_first_read, inputs.prompt_tokens, prefixes.warm(&last.model, &last.version));
    let cc = claude_code(last, ttl_s, compactions, now);
    let next = next_prompt(inputs.prompt_tokens, c_last.lineage_first_read, cc.compacted_since.then_some(bc));
    let premium = resume_premium(last, c_last, ttl_s, prefixes, next);
    let mut st = option_starts(p, bc, s, warm, rs as f64, prices);
    if cc.compacted_since {
        // Its own base context, at most its last prompt, of which a warm
        // cache holds `next`.
        st = after_compaction(st, (bc.min(p), next as f64), s, warm, rs as f64, prices);
    }
    let options = totals(st, turns, t, prices);
    let (recommendation, chosen) = recommend(&options);
    let mut advice = Advice {
        session_id: session_id.to_string(),
        project: last.project.to_string(),
        warm,
        last: last.time,
        expires_at: last.time + TimeDelta::seconds(i64::from(ttl_s)),
        ttl_s,
        idle_s,
        turns,
        options,
        recommendation,
        break_even_turns: break_even(st, t, prices),
        history_premium_usd: chosen - options.restart_usd,
        cold_resume_usd: premium.premium_usd,
        cold_resume_v2_usd: premium.premium_v2_usd,
        shared_prefix_tokens: premium.shared_prefix_tokens,
        keep_warm: last_break(&main, requests, caches),
        not_resumable: None,
        compact_now: None,
        claude_code: cc,
        inputs,
        explanation: String::new(),
    };
    advice.explanation = explain(&advice, chrono_tz::UTC);
    Some(advice)
}
