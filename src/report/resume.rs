//! Every session's resume state at a view's clock, from its last
//! main-thread request (the session analysis): warm or cold, when the cache
//! expires, and the cold-resume premium, v3 (the shared prefix `Rs` still
//! warm at the clock is read, not written: cache-model §6, §8.2; a
//! conversation compacted after its last request priced on its system
//! prompt and tools, §8 v4) beside the stored v2 figure. The one place a
//! session's warm/cold verdict and premium are read; the stale lists,
//! `/sessions`, `report session` and the team report take them from here.

use super::cache::medians::MedianTable;
use super::ReportError;
use crate::analyze::{
    cold_premium, next_prompt, resumability, LastCompactions, NotResumable, StaleSession, WarmPrefixes,
    SHARED_PREFIX_WINDOW_S,
};
use crate::model::columns as c;
use crate::model::Compaction;
use crate::store::claude::ClaudeState;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use chrono::{DateTime, TimeDelta, Utc};
use polars::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// The columns `resume_states_of` reads: a session's last main-thread request.
const STALE: [&str; 16] = [
    c::USER,
    c::SESSION_ID,
    c::PROJECT,
    c::MODEL,
    c::VERSION,
    c::TIME,
    c::TTL_AFTER_S,
    c::RESUME_PREMIUM_USD,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::LINEAGE_FIRST_READ,
    c::RATE_INPUT,
    c::RATE_OUTPUT,
    c::RATE_READ_MULTIPLIER,
];

/// The (model, version) pairs whose shared prefix is warm at `now`: those
/// of the analysis rows (`rows`) made within the hour before it.
pub fn warm_prefixes_in(rows: LazyFrame, now: DateTime<Utc>) -> PolarsResult<WarmPrefixes> {
    let ms = |t: DateTime<Utc>| {
        lit(t.timestamp_millis()).cast(DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)))
    };
    let from = now - TimeDelta::seconds(SHARED_PREFIX_WINDOW_S);
    let df = rows
        .filter(col(c::TIME).gt_eq(ms(from)).and(col(c::TIME).lt(ms(now))))
        .group_by([col(c::MODEL), col(c::VERSION)])
        .agg([col(c::TIME).max()])
        .collect()?;
    let k = Cols(&df);
    let (model, version, time) = (k.str(c::MODEL)?, k.str(c::VERSION)?, k.time(c::TIME)?);
    Ok(WarmPrefixes::of((0..df.height()).map(|i| (model[i], version[i], time[i])), now))
}

impl StoreView {
    /// The (model, version) pairs whose shared prefix is warm at the
    /// view's clock (cache-model §8.2).
    pub fn warm_prefixes(&self) -> Result<WarmPrefixes, ReportError> {
        Ok(warm_prefixes_in(self.analysis()?, self.now())?)
    }
}

/// The resume state at `now` of every session of the last main-thread
/// requests (`STALE` columns, one row per session), warm or cold, with the
/// shared prefixes `warm` at `now`; with `claude`, a local session (no
/// person named) is also judged resumable or not (§8.3).
fn resume_states_of(
    df: &DataFrame,
    now: DateTime<Utc>,
    titles: &HashMap<String, String>,
    warm: &WarmPrefixes,
    claude: Option<&ClaudeState>,
    compacted: &Compacted,
) -> PolarsResult<Vec<StaleSession>> {
    let k = Cols(df);
    let (user, sid, project, model) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::PROJECT)?, k.str(c::MODEL)?);
    let (version, first_read) = (k.str(c::VERSION)?, k.u64(c::LINEAGE_FIRST_READ)?);
    let (time, ttl, premium, tokens) =
        (k.time(c::TIME)?, k.u64(c::TTL_AFTER_S)?, k.f64(c::RESUME_PREMIUM_USD)?, k.prompts()?);
    let rates = k.rates()?;
    Ok((0..df.height())
        .map(|i| {
            let ttl_s = u32::try_from(ttl[i]).unwrap_or(u32::MAX);
            let (idle_s, expires_at, is_warm) = StaleSession::at(time[i], ttl_s, now);
            let base = compacted.base(user[i], sid[i], time[i], project[i]);
            let next = next_prompt(tokens[i], first_read[i], base);
            let prefix_warm = warm.warm(model[i], version[i]);
            let p = cold_premium(rates[i].as_ref(), tokens[i], next, first_read[i], prefix_warm, ttl_s);
            let (days, deleted) =
                claude.map_or((u64::MAX, false), |k| (k.settings.cleanup_days(), k.deleted.contains(sid[i])));
            let not_resumable = resumability(user[i], time[i], now, days, deleted);
            StaleSession {
                session_id: sid[i].to_owned(),
                user: user[i].to_owned(),
                title: titles.get(sid[i]).cloned().unwrap_or_default(),
                project: project[i].to_owned(),
                model: model[i].to_owned(),
                premium_usd: p.premium_usd,
                // The stored figure, as every earlier version showed it.
                premium_v2_usd: premium[i],
                shared_prefix_tokens: p.shared_prefix_tokens,
                prompt_tokens: next,
                compacted_since: base.is_some(),
                last: time[i],
                ttl_s,
                idle_s,
                expires_at,
                warm: is_warm,
                not_resumable,
            }
        })
        .collect())
}

/// Every session's resume state at the view's clock, by `(user, session)`.
pub fn resume_states(view: &StoreView, user: Option<&str>) -> Result<Vec<StaleSession>, ReportError> {
    let mut table = view.session_analysis()?;
    if let Some(u) = user {
        table = table.filter(col(c::USER).eq(lit(u.to_owned())));
    }
    let df = table.select(STALE.map(col)).collect()?;
    let k = Cols(&df);
    let (user, sid, time) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.time(c::TIME)?);
    let lasts = (0..df.height()).map(|i| (user[i], sid[i], time[i]));
    let compacted = Compacted::of(view, view.compactions()?, lasts)?;
    Ok(resume_states_of(&df, view.now(), view.titles()?, &view.warm_prefixes()?, Some(view.claude()), &compacted)?)
}

/// Which sessions Claude Code compacted after their last request, and the
/// project medians their premium takes `Bc` from (read only when one was):
/// what `analyze::next_prompt` is given for every view's premium.
#[derive(Debug, Clone, Default)]
pub struct Compacted {
    last: LastCompactions,
    medians: Option<MedianTable>,
}

impl Compacted {
    /// From `compactions`, for the last main-thread requests `lasts`
    /// (person, session, time).
    pub fn of<'a>(
        view: &StoreView,
        compactions: &[Compaction],
        lasts: impl IntoIterator<Item = (&'a str, &'a str, DateTime<Utc>)>,
    ) -> Result<Compacted, ReportError> {
        let last = LastCompactions::of(compactions);
        let any = lasts.into_iter().any(|(user, session, time)| last.after(user, session, time));
        Ok(Compacted { last, medians: if any { Some(view.medians()?) } else { None } })
    }

    /// `Bc` of `project` (§7) when `user`'s `session`, last requested at
    /// `time`, was compacted since.
    pub fn base(&self, user: &str, session: &str, time: DateTime<Utc>, project: &str) -> Option<f64> {
        let m = self.medians.as_ref().filter(|_| self.last.after(user, session, time))?;
        Some(m.project(project).base_context().0)
    }
}

/// A session that cannot be resumed, and why (cache-model §8.3 v3). Its
/// history keeps every figure; it is never stale and gets no resume advice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotResumableSession {
    pub session_id: String,
    pub user: String,
    pub title: String,
    pub project: String,
    /// `transcript_deleted`, `past_cleanup` or `no_main_thread`.
    pub reason: NotResumable,
    /// The reason in words (`past cleanup (30 days)`).
    pub why: String,
    /// The last main-thread request (None without a main thread).
    pub last: Option<DateTime<Utc>>,
    /// Seconds from `last` to the view's clock.
    pub idle_s: Option<f64>,
}

/// The sessions among `states` that cannot be resumed, plus the sessions
/// `without_main` names (user, session, title, project: no main thread),
/// most recently active first.
pub fn not_resumable(
    states: &[StaleSession],
    without_main: impl IntoIterator<Item = (String, String, String, String)>,
    cleanup_days: u64,
) -> Vec<NotResumableSession> {
    let mut out: Vec<NotResumableSession> = states
        .iter()
        .filter_map(|s| {
            let reason = s.not_resumable?;
            Some(NotResumableSession {
                session_id: s.session_id.clone(),
                user: s.user.clone(),
                title: s.title.clone(),
                project: s.project.clone(),
                reason,
                why: reason.words(cleanup_days),
                last: Some(s.last),
                idle_s: Some(s.idle_s),
            })
        })
        .collect();
    out.extend(without_main.into_iter().map(|(user, session_id, title, project)| NotResumableSession {
        session_id,
        user,
        title,
        project,
        reason: NotResumable::NoMainThread,
        why: NotResumable::NoMainThread.words(cleanup_days),
        last: None,
        idle_s: None,
    }));
    out.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user))));
    out
}
