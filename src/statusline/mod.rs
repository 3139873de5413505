//! `cachewise statusline`: Claude Code's status-line JSON on stdin -> one
//! line (or one JSON object) saying whether this session's prompt cache is
//! warm, what the next message pays once it has expired, the session's and
//! today's spend, and the plan-limit use. It never fails: any problem
//! becomes a short note on the line. It reads only what the transcript
//! gained since the last call (`tail`, `session`), never ingests, never
//! takes the store's lock (`figures` reads stored tables as they are), and
//! records the plan-limit samples it sees (`store::samples::append`). When Claude Code's
//! stdin carries `prompt_cache` (2.1.251+), its `warm`, `ttl`, `expires_at`
//! and `recache_tokens_if_cold` decide the line, and each reading is
//! recorded beside cachewise's own verdict (`store::samples`). There is one
//! cold-resume premium (cache-model §6, v3): the prompt the next message
//! re-caches, less the shared prefix other sessions keep warm, at the
//! session's rates; Claude Code's `recache_tokens_if_cold` is that prompt
//! when it gives it (it counts the last reply, which the transcript's last
//! prompt does not yet hold), the transcript's last prompt otherwise. `install` writes the `statusLine` entry of Claude
//! Code's settings; `render` prints.

pub mod figures;
pub mod input;
pub mod install;
pub mod render;
pub mod seed;
pub mod session;
pub mod tail;

use crate::pricing::PriceTable;
use crate::store::manifest::Manifest;
use crate::store::Store;
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use std::path::PathBuf;

/// What a call runs with: the clock and prices come in, as in analysis.
pub struct Context {
    pub data_dir: PathBuf,
    pub tz: Tz,
    pub prices: PriceTable,
    pub now: DateTime<Utc>,
}

/// What the status line shows (`--format json` prints it as is).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Status {
    pub session_id: Option<String>,
    /// The main thread's cache is within its TTL.
    pub warm: bool,
    /// When the cache expires (warm) or expired (cold).
    pub expires_at: Option<DateTime<Utc>>,
    pub last_request_at: Option<DateTime<Utc>>,
    /// The TTL in force after the last request (300 or 3600).
    pub ttl_s: Option<u32>,
    /// The prompt the next message re-writes when the cache has expired.
    pub prompt_tokens: Option<u64>,
    /// Cold-resume premium: what the next message pays because the cache
    /// expired (due now when `warm` is false; at expiry otherwise).
    pub cold_resume_usd: Option<f64>,
    pub session_cost_usd: Option<f64>,
    pub session_requests: u64,
    /// Today's spend: the store's (as of its last ingest) plus this
    /// session's requests the store has not read yet.
    pub today_cost_usd: Option<f64>,
    pub five_hour_used_pct: Option<f64>,
    pub five_hour_resets_at: Option<DateTime<Utc>>,
    pub seven_day_used_pct: Option<f64>,
    /// `rate_limits.spend_limit` (may exceed 100%).
    pub spend_limit_used_pct: Option<f64>,
    pub spend_limit_resets_at: Option<DateTime<Utc>>,
    /// Who decided `warm`, `ttl_s`, `expires_at` and `prompt_tokens`:
    /// `claude_code` (stdin's `prompt_cache`) or `transcript`.
    pub verdict_from: Option<&'static str>,
    /// cachewise's own verdict from the transcript when Claude Code's
    /// decided the line (None: no request to judge by).
    pub transcript_warm: Option<bool>,
    /// Claude Code's `last_miss_cause`, in words.
    pub last_miss_cause: Option<String>,
    /// Estimated list-price dollars per 1% of the 5-hour window.
    pub usd_per_five_hour_pct: Option<f64>,
    /// The cold-resume premium as a share of the 5-hour window (percentage points).
    pub cold_resume_five_hour_pct: Option<f64>,
    /// Why a figure is missing, when one is.
    pub note: Option<String>,
}

/// Computes the status line for `stdin`. Never fails.
pub fn status(ctx: &Context, stdin: &[u8]) -> Status {
    let input = match input::parse(stdin) {
        Ok(i) => i,
        Err(e) => return Status { note: Some(e.to_string()), ..Status::default() },
    };
    let mut st = Status {
        session_id: input.session_id.clone(),
        five_hour_used_pct: input.five_hour.map(|w| w.used_pct),
        five_hour_resets_at: input.five_hour.and_then(|w| DateTime::from_timestamp(w.resets_at?, 0)),
        seven_day_used_pct: input.seven_day.map(|w| w.used_pct),
        spend_limit_used_pct: input.spend_limit.map(|w| w.used_pct),
        spend_limit_resets_at: input.spend_limit.and_then(|w| DateTime::from_timestamp(w.resets_at?, 0)),
        ..Status::default()
    };
    let sample = crate::model::limits::Sample {
        time: ctx.now,
        session_id: input.session_id.clone().unwrap_or_default(),
        five_hour: input.five_hour,
        seven_day: input.seven_day,
    };
    let _ = crate::store::samples::append(&crate::store::files::rate_limits(&ctx.data_dir), &sample);
    let state = read_session(&mut st, input.transcript_path.as_deref(), ctx);
    if let Some(state) = &state {
        fill_session(&mut st, state, ctx.now);
    }
    if let Some(pc) = &input.prompt_cache {
        believe_claude_code(&mut st, pc, state.as_ref(), input.model.as_deref(), ctx);
        let live = crate::model::limits::LiveCache {
            time: ctx.now,
            session_id: input.session_id.clone().unwrap_or_default(),
            warm: pc.warm,
            cachewise_warm: st.transcript_warm,
            ttl_s: pc.ttl_s,
            expires_at: pc.expires_at,
            recache_tokens: pc.recache_tokens_if_cold,
        };
        let _ = crate::store::samples::append_live(&crate::store::files::prompt_cache(&ctx.data_dir), &live);
    }
    if let Some(state) = &state {
        fill_store(&mut st, state, ctx);
    }
    st
}

/// The session's state after reading what its transcript gained; None
/// (with a note) when there is no transcript to read.
fn read_session(st: &mut Status, transcript: Option<&std::path::Path>, ctx: &Context) -> Option<session::SessionState> {
    let Some(transcript) = transcript else {
        st.note = Some("no transcript_path in the input".into());
        return None;
    };
    let state_path = session::state_path(&ctx.data_dir, transcript);
    let mut state = session::load(&state_path, transcript);
    match session::update(&mut state, &ctx.data_dir, transcript, &ctx.prices, ctx.now) {
        Ok(true) => {
            let _ = session::save(&state_path, &state);
        }
        Ok(false) => {}
        Err(_) => {
            st.note = Some("transcript not readable".into());
            return None;
        }
    }
    Some(state)
}

/// Claude Code's `prompt_cache` decides warm, TTL, expiry and the tokens a
/// cold message re-caches; `fill_store` prices them as any premium (less
/// the warm shared prefix, at the last main-thread request's rates), and
/// here at the model's list rates when the transcript has no request yet.
fn believe_claude_code(
    st: &mut Status,
    pc: &input::PromptCache,
    state: Option<&session::SessionState>,
    model: Option<&str>,
    ctx: &Context,
) {
    use crate::analyze::rewrite_premium;
    st.transcript_warm = st.expires_at.map(|_| st.warm);
    st.verdict_from = Some("claude_code");
    st.warm = pc.warm;
    st.expires_at = pc.expires_at.and_then(|t| DateTime::from_timestamp(t, 0));
    st.ttl_s = pc.ttl_s.or(st.ttl_s).or(Some(crate::analyze::TTL_5M_S));
    if !pc.last_miss_causes.is_empty() {
        let words: Vec<String> = pc.last_miss_causes.iter().map(|c| crate::analyze::cause_words(c)).collect();
        st.last_miss_cause = Some(words.join(" and "));
    }
    let Some(tokens) = pc.recache_tokens_if_cold else { return };
    st.prompt_tokens = Some(tokens);
    if state.and_then(|s| s.last_main.as_ref()).is_some() {
        return; // priced with the shared prefix in `fill_store`
    }
    // No request in the transcript to take rates and a prefix from: the
    // model's list rates, the whole prompt re-cached.
    let rates = model.and_then(|m| ctx.prices.base_rates(m, ctx.now));
    let ttl = st.ttl_s.unwrap_or(crate::analyze::TTL_5M_S);
    st.cold_resume_usd = rates.map(|r| rewrite_premium(Some(&r), tokens as f64, ttl));
}

fn fill_session(st: &mut Status, state: &session::SessionState, now: DateTime<Utc>) {
    st.session_cost_usd = Some(state.cost_usd());
    st.session_requests = state.requests();
    // A call reads a bounded number of bytes (`tail::READ_BUDGET`): the
    // figures then cover the part read so far.
    if state.unread_bytes > 0 {
        st.note = Some(format!("transcript partly read ({:.0} MB to go)", state.unread_bytes as f64 / 1e6));
    }
    let Some(last) = &state.last_main else {
        st.note.get_or_insert_with(|| "no requests yet".into());
        return;
    };
    let expires = last.time + Duration::seconds(i64::from(state.ttl_s));
    st.verdict_from = Some("transcript");
    st.warm = now <= expires;
    st.expires_at = Some(expires);
    st.last_request_at = Some(last.time);
    st.ttl_s = Some(state.ttl_s);
    st.prompt_tokens = state.next_prompt();
}

/// Today's spend and the plan-limit estimate from the store, read only.
fn fill_store(st: &mut Status, state: &session::SessionState, ctx: &Context) {
    let today = figures::day_start(ctx.now, ctx.tz);
    let store = ctx.data_dir.is_dir().then(|| Store::open(&ctx.data_dir).ok()).flatten();
    let manifest = store.as_ref().and_then(|s| s.manifest().ok()).unwrap_or_default();
    // `+ 0.0`: an empty sum of f64 is -0.0, which would print as "$-0.00".
    let unstored: f64 = 0.0
        + state
            .files
            .iter()
            .map(|(path, tail)| tail::unstored_cost(tail, stored_lines(&manifest, path), today))
            .sum::<f64>();
    let stored = store
        .as_ref()
        .filter(|_| !manifest.files.is_empty())
        .map(|s| figures::figures(s, &manifest, &ctx.prices, ctx.tz, ctx.now));
    let latest = match &stored {
        Some(Ok(f)) => state.last_main.as_ref().and_then(|l| f.latest(&l.model, &l.version)),
        _ => None,
    };
    // Claude Code's count of the prompt a cold message re-caches, when it
    // gave one (`believe_claude_code`), else the transcript's last prompt.
    let told = match st.verdict_from {
        Some("claude_code") => session::ClaudeCodeSays { recache_tokens: st.prompt_tokens, ttl_s: st.ttl_s },
        _ => session::ClaudeCodeSays::default(),
    };
    if state.last_main.is_some() {
        st.cold_resume_usd = Some(state.premium_at(&ctx.prices, latest, ctx.now, told));
    }
    match stored {
        Some(Ok(f)) => {
            st.today_cost_usd = Some(f.today_usd + unstored);
            st.usd_per_five_hour_pct = f.five_hour.usd_per_pct;
        }
        Some(Err(_)) => st.note = Some("stored data not readable".into()),
        None => st.today_cost_usd = Some(unstored),
    }
    if let (Some(usd), Some(per)) = (st.cold_resume_usd, st.usd_per_five_hour_pct) {
        st.cold_resume_five_hour_pct = (per > 0.0).then(|| usd / per);
    }
}

fn stored_lines(m: &Manifest, path: &str) -> u64 {
    m.files.get(path).map_or(0, |f| f.lines)
}
