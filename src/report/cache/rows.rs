//! Per-session and per-miss views of the stored analysis columns: the
//! cache columns of `report session` (misses, idle and edit cost, rewinds,
//! peak prompt, stale premium), `cache --misses`, and cost by token class
//! per day and model (the dashboard's daily bars), and the server's miss
//! reasons per class.

use super::{CacheQuery, MissRow};
use crate::analyze::{cause_of, CacheClass, ServerReasons};
use crate::model::columns as c;
use crate::report::analysis_cols::LocalDays;
use crate::report::class_cost::{ClassCost, DayClassCost};
use crate::report::query::Query;
use crate::report::resume::resume_states;
use crate::report::slices::for_each_slice;
use crate::report::usage::{SessionCache, UsageReport};
use crate::report::ReportError;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use polars::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Adds the cache columns (misses, idle cost, peak prompt, stale premium)
/// to the rows of a session usage report, as of the view's clock; `user`:
/// the person the report is about (a team's `--user`), whose rows alone
/// are read.
pub fn annotate_sessions(report: &mut UsageReport, view: &StoreView, user: Option<&str>) -> Result<(), ReportError> {
    annotate_sessions_with(report, &session_caches(view, user)?);
    Ok(())
}

/// Adds `session_caches`' figures to the rows of a session usage report.
pub fn annotate_sessions_with(report: &mut UsageReport, by: &SessionCaches) {
    for row in &mut report.rows {
        row.cache = Some(by.get(row.key.as_str()).copied().unwrap_or_default());
    }
}

/// The cache columns of every session of `user` (or of everyone), by session id.
pub type SessionCaches = HashMap<String, SessionCache>;

/// The cache columns of `annotate_sessions`, by session id, read without
/// the report (a caller may read them beside it).
pub fn session_caches(view: &StoreView, user: Option<&str>) -> Result<SessionCaches, ReportError> {
    let mut q = Query::new(chrono_tz::UTC);
    q.user = user.map(str::to_owned);
    let mut by = SessionCaches::new();
    // A slice at a time, in the table's order: the sums are the same to the last bit.
    for_each_slice(&view.analysis()?, view.analysis_rows()?, &q, |slice| {
        add_session_caches(&mut by, &q.filter(slice)?.select(SESSION_CACHE_COLUMNS.map(col)).collect()?)
    })?;
    for st in resume_states(view, user)? {
        if let Some(e) = by.get_mut(st.session_id.as_str()) {
            e.stale_premium_usd = if st.warm || st.not_resumable.is_some() { 0.0 } else { st.premium_usd };
            e.not_resumable = st.not_resumable;
            e.warm = Some(st.warm);
            e.cold_resume_usd = Some(st.premium_usd);
            e.last_main = Some(st.last);
        }
    }
    Ok(by)
}

/// The analysis columns `session_caches` reads.
const SESSION_CACHE_COLUMNS: [&str; 8] = [
    c::SESSION_ID,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::CLASS,
    c::REWIND,
    c::MISS_COST_USD,
];

/// Adds a frame of analysis rows (`SESSION_CACHE_COLUMNS`) to `by`.
fn add_session_caches(by: &mut SessionCaches, df: &DataFrame) -> PolarsResult<()> {
    let k = Cols(df);
    let (sid, prompts, class, rewind) = (k.str(c::SESSION_ID)?, k.prompts()?, k.str(c::CLASS)?, k.bool(c::REWIND)?);
    let miss = k.f64(c::MISS_COST_USD)?;
    for i in 0..df.height() {
        if !by.contains_key(sid[i]) {
            by.insert(sid[i].to_owned(), SessionCache::default());
        }
        let Some(e) = by.get_mut(sid[i]) else { continue };
        e.peak_prompt = e.peak_prompt.max(prompts[i]);
        let class = CacheClass::parse(class[i]).unwrap_or(CacheClass::First);
        if class.is_miss() {
            e.misses += 1;
        }
        if class.is_idle() {
            e.idle_cost_usd += miss[i];
        }
        if class.is_edit() {
            e.edit_cost_usd += miss[i];
        }
        e.rewinds += u64::from(rewind[i]);
    }
    Ok(())
}

/// Every miss (not counting thread starts) among the rows `q` selects,
/// costliest first.
pub fn misses(view: &StoreView, q: &CacheQuery) -> Result<Vec<MissRow>, ReportError> {
    let cols = [
        c::TIME,
        c::SESSION_ID,
        c::THREAD,
        c::MODEL,
        c::VERSION,
        c::CLASS,
        c::GAP_S,
        c::TTL_S,
        c::EXPECTED_PREFIX,
        c::CACHE_READ,
        c::REBUILT_TOKENS,
        c::MISS_COST_USD,
        c::SERVER_REASON,
        c::SERVER_MISSED_TOKENS,
    ];
    // Only rows that may be misses are read: a miss class, or a reason.
    let maybe = CacheClass::ALL.iter().filter(|k| k.is_miss() && !k.is_start());
    let maybe = maybe.fold(col(c::SERVER_REASON).neq(lit("")), |e, k| e.or(col(c::CLASS).eq(lit(k.as_str()))));
    let df = super::view::selected(view.analysis()?.filter(maybe), q, &cols)?;
    let k = Cols(&df);
    let (time, sid, thread, model, version) =
        (k.time(c::TIME)?, k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.str(c::MODEL)?, k.str(c::VERSION)?);
    let (class, gap, ttl) = (k.str(c::CLASS)?, df.column(c::GAP_S)?.f64()?.clone(), k.u64(c::TTL_S)?);
    let (prefix, read, rebuilt, miss) =
        (k.u64(c::EXPECTED_PREFIX)?, k.u64(c::CACHE_READ)?, k.u64(c::REBUILT_TOKENS)?, k.f64(c::MISS_COST_USD)?);
    let (reason, missed) = (k.str(c::SERVER_REASON)?, k.opt_u64(c::SERVER_MISSED_TOKENS)?);
    let mut out: Vec<MissRow> = (0..df.height())
        .filter_map(|i| {
            let class = CacheClass::parse(class[i])?;
            let cause = cause_of(class, reason[i]);
            // A miss the model found, or one the server named.
            ((class.is_miss() && !class.is_start()) || cause.by_server()).then(|| MissRow {
                time: time[i],
                session_id: sid[i].to_owned(),
                thread: thread[i].to_owned(),
                model: model[i].to_owned(),
                version: version[i].to_owned(),
                class,
                cause: cause.key,
                cause_from: cause.from,
                gap_s: gap.get(i),
                ttl_s: u32::try_from(ttl[i]).unwrap_or(u32::MAX),
                expected_prefix: prefix[i],
                cache_read: read[i],
                rebuilt_tokens: rebuilt[i],
                miss_cost_usd: miss[i],
                server_reason: reason[i].to_owned(),
                server_missed_tokens: missed[i],
            })
        })
        .collect();
    out.sort_by(|a, b| b.miss_cost_usd.total_cmp(&a.miss_cost_usd).then_with(|| a.time.cmp(&b.time)));
    Ok(out)
}

/// Adds the server's miss reasons of a batch of analysis rows (with
/// `SERVER_COLUMNS`), per class, and their agreement with the classes
/// (cache-model section 19): the cache report counts them in its pass.
pub fn add_server_reasons(out: &mut ServerReasons, df: &DataFrame) -> PolarsResult<()> {
    let k = Cols(df);
    let (class, reason, ttl) = (k.str(c::CLASS)?, k.str(c::SERVER_REASON)?, k.u64(c::TTL_S)?);
    let gap = k.opt_f64(c::GAP_S)?;
    for i in (0..df.height()).filter(|&i| !reason[i].is_empty()) {
        if let Some(class) = CacheClass::parse(class[i]) {
            out.add(class, reason[i], gap[i].is_some_and(|g| g > ttl[i] as f64));
        }
    }
    Ok(())
}

/// The analysis columns `add_server_reasons` reads.
pub const SERVER_COLUMNS: [&str; 4] = [c::CLASS, c::SERVER_REASON, c::GAP_S, c::TTL_S];

/// Cost by token class per local day and model, each row at the rates it
/// paid (the dashboard's stacked daily bars), summed a batch of analysis
/// rows at a time in the cache report's pass.
pub struct DailyClassCosts {
    days: LocalDays,
    by: BTreeMap<i32, BTreeMap<String, ClassCost>>,
}

impl DailyClassCosts {
    /// The analysis columns `add` reads.
    pub const COLUMNS: [&str; 11] = [
        c::TIME,
        c::MODEL,
        c::INPUT,
        c::CACHE_WRITE_5M,
        c::CACHE_WRITE_1H,
        c::CACHE_READ,
        c::OUTPUT,
        c::WEB_SEARCH,
        c::RATE_INPUT,
        c::RATE_OUTPUT,
        c::RATE_READ_MULTIPLIER,
    ];

    /// No rows yet; days are local days of `tz`.
    pub fn new(tz: chrono_tz::Tz) -> DailyClassCosts {
        DailyClassCosts { days: LocalDays::new(tz), by: BTreeMap::new() }
    }

    /// Adds a batch of analysis rows (with `COLUMNS`).
    pub fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let k = Cols(df);
        let (time, model, tokens, web) = (k.time(c::TIME)?, k.str(c::MODEL)?, k.tokens()?, k.u64(c::WEB_SEARCH)?);
        let rates = k.rates()?;
        for i in 0..df.height() {
            let rates = rates[i];
            let cost = crate::pricing::split(rates.as_ref(), &tokens[i], web[i]);
            let models = self.by.entry(self.days.day(time[i].timestamp_millis())).or_default();
            match models.get_mut(model[i]) {
                Some(sum) => *sum += cost,
                None => {
                    models.insert(model[i].to_owned(), cost);
                }
            }
        }
        Ok(())
    }

    /// The days, in order.
    pub fn days(self) -> Vec<DayClassCost> {
        self.by.into_iter().map(|(d, by_model)| DayClassCost { day: LocalDays::name(d), by_model }).collect()
    }
}
