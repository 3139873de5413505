//! `/cache`: the cache model's report (v3) over the page's days (what
//! `cachewise cache --since --until --json` gives): the class table in words
//! with one plain sentence per class, rewinds, compactions by trigger, the
//! idle-compaction what-if, idle-gap buckets (and how they relate to the
//! "lost" headline), the comparison of the two cache lifetimes, the
//! keep-warm what-if, how well the resume premium priced the resumes that
//! happened, and the write mix per period.

use super::periods::{chart_periods, period_heading};
use crate::analyze::{CacheClass, CacheStats, ClassStats, GapBucket, IdleCompaction};
use crate::report::cache::words::what_if_caption;
use crate::report::charts::{self, palette, Stacked, Unit};
use crate::report::labels::{self, plural};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::Params;
use crate::web::state::AppState;
use crate::web::view::Formats;
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono::NaiveDate;
use chrono_tz::Tz;

#[derive(Template)]
#[template(path = "cache.html")]
pub struct CachePage {
    pub chrome: Chrome,
    pub empty: bool,
    pub total: CacheStats,
    pub mix_chart: String,
    /// What the write-mix chart plots, in words.
    pub mix_heading: String,
    pub class_chart: String,
    pub stale: usize,
    /// Compactions by trigger, in words.
    pub by_trigger: Vec<(String, u64)>,
    pub idle: IdleCompaction,
    /// How these figures relate to the usage pages', in words.
    pub reconcile: Option<String>,
    /// Claude Code's own miss reasons beside the classes, in words.
    pub server: Vec<String>,
    pub what_if_caption: String,
    /// Sessions that cannot be resumed (transcript deleted, past cleanup,
    /// no main conversation).
    pub not_resumable: usize,
    /// What Claude Code's settings and transcripts warn about.
    pub warnings: Vec<String>,
    /// The Claude Code versions whose misses within the TTL cost most
    /// (`cache::versions::costliest`), and how many others there are.
    pub versions: Vec<crate::report::cache::versions::VersionHealth>,
    pub other_versions: usize,
    /// Misses within the TTL's cost per 100 requests of `versions`, charted.
    pub version_chart: String,
    /// Spend by prompt size and the compaction-window what-if.
    pub context: crate::report::cache::context::Context,
    pub window_sentence: Option<String>,
}

impl CachePage {
    /// The break-even gaps of the keep-warm what-if, in words.
    pub fn break_even(&self) -> Vec<(&'static str, String)> {
        let b = &self.total.keep_warm.break_even_gap_s;
        [("5-minute", b.ttl_5m), ("1-hour", b.ttl_1h)]
            .into_iter()
            .filter_map(|(name, s)| Some((name, crate::model::format::duration_words(s?))))
            .collect()
    }

    /// True when some request had a prompt (the context section shows).
    pub fn has_context(&self) -> bool {
        self.context.bands.iter().any(|b| b.requests > 0)
    }

    /// The backtest's error, v3 then v2, as percentages of what was paid.
    pub fn backtest_error(&self) -> (String, String) {
        let b = &self.total.backtest;
        let pct = |x: Option<f64>| crate::web::view::pct(x.map(|p| p / 100.0));
        (pct(b.mae_pct), pct(b.v2_mae_pct))
    }
}

impl Formats for CachePage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl CachePage {
    /// Words, plain sentence and figures of every class.
    pub fn classes(&self) -> Vec<(&'static str, &'static str, &'static str, ClassStats)> {
        CacheClass::ALL
            .iter()
            .map(|&c| (c.as_str(), labels::class(c), c.meaning(), *self.total.classes.get(c)))
            .collect()
    }

    pub fn buckets(&self) -> Vec<(&'static str, ClassStats)> {
        [GapBucket::Le5m, GapBucket::From5mTo1h, GapBucket::Gt1h]
            .iter()
            .map(|&b| (labels::bucket(b), *self.total.idle_buckets.get(b)))
            .collect()
    }

    /// How the idle-gap table's miss cost relates to the "lost to expired
    /// caches" figure, in words.
    pub fn buckets_note(&self) -> String {
        let b = &self.total.idle_buckets;
        let all = b.le_5m.miss_cost_usd + b.from_5m_to_1h.miss_cost_usd + b.gt_1h.miss_cost_usd;
        let expired = self.total.idle_cost_usd;
        format!(
            "The gaps' miss cost ({}) counts every request after a rest, whatever broke its cache: {} of it is the \
cache expiring (the \"lost to expired caches\" figure); the other {} is misses within the cache's lifetime \
(prompt edits, cleared tool results, upgrades) and fresh starts after a compaction or a model change.",
            crate::web::view::usd(all),
            crate::web::view::usd(expired),
            crate::web::view::usd((all - expired).max(0.0))
        )
    }

    /// The idle-compaction sentence.
    pub fn idle_text(&self) -> String {
        let i = &self.idle;
        if i.gaps == 0 {
            return "No conversation of 200k+ tokens rested over an hour in this period, so idle compaction had nothing to save."
                .to_owned();
        }
        format!(
            "{} idle over an hour after a prompt of 200k+ tokens cost {} in rebuilt caches. Compacting before the cache expired, \
as Claude Code's idle compaction does, would have cost {}.",
            plural(i.gaps, "time a conversation sat", "times conversations sat"),
            crate::web::view::usd(i.rebuild_usd),
            crate::web::view::usd(i.compact_usd)
        )
    }

    pub fn idle_ran(&self) -> String {
        plural(self.idle.idle_compactions, "idle compaction", "idle compactions")
    }

    /// The share of cache writes that used the 1-hour lifetime, in words.
    pub fn share_text(&self) -> String {
        let m = &self.total.write_mix;
        let all = m.write_5m_tokens + m.write_1h_tokens;
        if all == 0 {
            return "no cache writes".to_owned();
        }
        format!("{} of writes 1-hour", crate::web::view::pct(Some(m.write_1h_tokens as f64 / all as f64)))
    }
}

/// `GET /cache?since=&until=&by=&user=&project=`.
pub async fn page(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let (snap, view) = super::reports(&state, &params).await?;
    let range = super::range(&state, &snap, &params)?;
    let c = &view.cache;
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
    let rows: Vec<(NaiveDate, Vec<f64>)> = c
        .by_day
        .iter()
        .filter_map(|d| {
            let m = d.stats.write_mix;
            Some((day(&d.day)?, vec![m.write_5m_tokens as f64, m.write_1h_tokens as f64]))
        })
        .collect();
    let (labels, values) = chart_periods(&range, rows);
    let mix_chart = charts::stacked_bars(&Stacked {
        labels: &labels,
        series: &[("5-minute cache writes", palette::WRITE_5M), ("1-hour cache writes", palette::WRITE_1H)],
        values: &values,
        unit: Unit::Tokens,
        size: (1100, 320),
    });
    let misses: Vec<(String, f64)> = CacheClass::ALL
        .iter()
        .filter(|k| **k != CacheClass::Hit)
        .map(|&k| (labels::class(k).to_owned(), c.total.classes.get(k).miss_cost_usd))
        .collect();
    let versions: Vec<_> = crate::report::cache::versions::costliest(&c.versions).into_iter().cloned().collect();
    render(&CachePage {
        chrome: Chrome::new(&state, &snap, "Cache", &params).with_json("/api/cache"),
        empty: snap.is_empty(),
        total: c.total.clone(),
        mix_heading: period_heading("Cache writes", &range, &labels),
        mix_chart,
        class_chart: charts::hbars(&misses, Unit::Usd, palette::MISS, 1100),
        stale: c.stale.len(),
        by_trigger: c.compactions_by_trigger.iter().map(|(k, n)| (labels::trigger(k), *n)).collect(),
        idle: c.idle_compaction,
        reconcile: c.usage.as_ref().map(|u| crate::report::cache::render::reconcile_line(u).trim().to_owned()),
        what_if_caption: what_if_caption(&c.total.what_if, &c.total.write_mix),
        not_resumable: c.not_resumable.len(),
        warnings: c.warnings.clone(),
        server: crate::report::cache::render::server_lines(c),
        other_versions: c.versions.len() - versions.len(),
        version_chart: version_chart(&versions),
        context: c.context.clone(),
        window_sentence: crate::report::cache::context::window_sentence(&c.context.windows),
        versions,
    })
}

/// What misses within the TTL cost per 100 requests, per version shown.
fn version_chart(versions: &[crate::report::cache::versions::VersionHealth]) -> String {
    let bars: Vec<(String, f64)> =
        versions.iter().map(|v| (crate::report::cache::versions::version_words(v), v.miss_cost_per_100_usd)).collect();
    charts::hbars(&bars, Unit::Usd, palette::MISS, 1100)
}
