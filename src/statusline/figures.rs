//! The figures the status line takes from the store: today's spend as of
//! the last ingest and the plan-limit estimates. The store is only read,
//! never locked (its files are replaced atomically, so a reader sees one
//! version) and priced with the call's table (`Store::requests_priced`);
//! the result is kept in `statusline/figures.json` under a key naming the
//! store's version, the day, the samples table's size and the price table,
//! so most calls read one small file. The store's manifest also says how much
//! of the session's transcript the store holds.

use crate::analyze::limits::{self, LimitEstimate, Priced};
use crate::model::columns as c;
use crate::model::limits::WindowKind;
use crate::pricing::PriceTable;
use crate::store::frames::Cols;
use crate::store::manifest::Manifest;
use crate::store::Store;
use crate::store::{files, samples};
use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use polars::prelude::*;
use serde::{Deserialize, Serialize};

/// How far back requests are read for the plan-limit estimates.
const LIMIT_HISTORY_DAYS: i64 = 14;

/// Store figures, cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreFigures {
    pub key: String,
    /// Spend today (in the zone) of every request the store holds.
    pub today_usd: f64,
    pub five_hour: LimitEstimate,
    pub seven_day: LimitEstimate,
    /// Per model and Claude Code version, the latest stored request (UTC
    /// milliseconds): whether the shared prefix is still warm (the v3
    /// cold-resume premium's `Rs`, cache-model §8.2).
    #[serde(default)]
    pub prefixes: Vec<(String, String, i64)>,
}

impl StoreFigures {
    /// The latest stored request of `model` and `version`, if any.
    pub fn latest(&self, model: &str, version: &str) -> Option<DateTime<Utc>> {
        let (_, _, ms) = self.prefixes.iter().find(|(m, v, _)| m == model && v == version)?;
        DateTime::from_timestamp_millis(*ms)
    }
}

/// Errors reading the store (the status line then shows less).
#[derive(Debug, thiserror::Error)]
pub enum FiguresError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("{0}")]
    Polars(#[from] PolarsError),
}

/// Start of the day holding `now` in `tz`, in UTC.
pub fn day_start(now: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    let day = now.with_timezone(&tz).date_naive();
    tz.from_local_datetime(&day.and_time(NaiveTime::MIN)).earliest().map_or(now, |t| t.with_timezone(&Utc))
}

/// The cached figures when their key still holds, else computed and
/// cached; priced with `prices` (the key names the table).
pub fn figures(
    store: &Store,
    manifest: &Manifest,
    prices: &PriceTable,
    tz: Tz,
    now: DateTime<Utc>,
) -> Result<StoreFigures, FiguresError> {
    let samples_path = files::rate_limits(store.dir());
    let samples_len = std::fs::metadata(&samples_path).map(|m| m.len()).unwrap_or(0);
    let key = format!(
        "prefixes|{}|{}|{}|{}|{samples_len}|{:016x}",
        manifest.updated.as_deref().unwrap_or("-"),
        manifest.files.len(),
        tz.name(),
        day_start(now, tz).timestamp(),
        prices.fingerprint()
    );
    let cache = crate::store::files::statusline_figures(store.dir());
    if let Some(f) =
        crate::store::files::read_regular(&cache).ok().and_then(|b| serde_json::from_slice::<StoreFigures>(&b).ok())
    {
        if f.key == key {
            return Ok(f);
        }
    }
    let today = day_start(now, tz);
    let samples = samples::read(&samples_path);
    // Without enough samples for an estimate, only today's rows matter.
    let estimating = samples.len() > limits::MIN_INTERVALS;
    let since = if estimating { today.min(now - Duration::days(LIMIT_HISTORY_DAYS)) } else { today };
    let priced = priced_since(store, prices, since, estimating)?;
    let f = StoreFigures {
        key,
        today_usd: priced.iter().filter(|p| p.time >= today && p.time <= now).map(|p| p.cost_usd).sum(),
        five_hour: limits::estimate(&samples, &priced, WindowKind::FiveHour),
        seven_day: limits::estimate(&samples, &priced, WindowKind::SevenDay),
        prefixes: latest_prefixes(store, prices)?,
    };
    if let Ok(bytes) = serde_json::to_vec(&f) {
        let _ = crate::store::files::replace(&cache, crate::store::files::Sync::No, &bytes);
    }
    Ok(f)
}

/// The latest stored request per model and version.
fn latest_prefixes(store: &Store, prices: &PriceTable) -> Result<Vec<(String, String, i64)>, FiguresError> {
    let Some(lf) = store.requests_priced(prices)? else { return Ok(Vec::new()) };
    let df = lf.group_by([col(c::MODEL), col(c::VERSION)]).agg([col(c::TIME).max()]).collect()?;
    let k = Cols(&df);
    let (model, version, time) = (k.str(c::MODEL)?, k.str(c::VERSION)?, k.time(c::TIME)?);
    Ok((0..df.height()).map(|i| (model[i].to_owned(), version[i].to_owned(), time[i].timestamp_millis())).collect())
}

/// Time and cost at `prices` (and tokens, when asked; else 0) of every
/// stored request at or after `since`.
pub fn priced_since(
    store: &Store,
    prices: &PriceTable,
    since: DateTime<Utc>,
    tokens: bool,
) -> Result<Vec<Priced>, FiguresError> {
    let all = [c::TIME, c::COST_USD, c::INPUT, c::CACHE_WRITE_5M, c::CACHE_WRITE_1H, c::CACHE_READ, c::OUTPUT];
    let cols = if tokens { &all[..] } else { &all[..2] };
    let Some(lf) = store.requests_priced(prices)? else { return Ok(Vec::new()) };
    let df = lf.select(cols.iter().map(|s| col(*s)).collect::<Vec<_>>()).collect()?;
    let t = Cols(&df);
    let (times, costs) = (t.time(c::TIME)?, t.f64(c::COST_USD)?);
    let counts = if tokens { t.tokens()?.into_iter().map(|k| k.prompt() + k.output).collect() } else { Vec::new() };
    let rows = times.into_iter().zip(costs).enumerate().filter(|(_, (time, _))| *time >= since);
    Ok(rows
        .map(|(i, (time, cost_usd))| Priced { time, cost_usd, tokens: counts.get(i).copied().unwrap_or(0) })
        .collect())
}
