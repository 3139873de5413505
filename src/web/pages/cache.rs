//! `/cache`: the cache model's report (v2): the class table with one plain
//! sentence per class, rewinds, compactions by trigger, the idle-compaction
//! what-if, idle-gap buckets, the what-if comparison of the two TTLs and the
//! 5m/1h write mix per day.

use crate::analyze::{CacheClass, CacheStats, ClassStats, GapBucket, IdleCompaction};
use crate::report::charts::{self, palette, Stacked, Unit};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::Params;
use crate::web::state::AppState;
use crate::web::view::Formats;
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono_tz::Tz;

#[derive(Template)]
#[template(path = "cache.html")]
pub struct CachePage {
    pub chrome: Chrome,
    pub empty: bool,
    pub total: CacheStats,
    pub mix_chart: String,
    pub class_chart: String,
    pub stale: usize,
    /// Compactions by trigger (`manual`, `auto`, `idle`, others).
    pub by_trigger: Vec<(String, u64)>,
    pub idle: IdleCompaction,
    /// How these figures relate to the usage pages', in words.
    pub reconcile: Option<String>,
    /// Claude Code's own miss reasons beside the classes, in words.
    pub server: Vec<String>,
}

impl Formats for CachePage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl CachePage {
    /// Name, plain sentence and figures of every class.
    pub fn classes(&self) -> Vec<(&'static str, &'static str, ClassStats)> {
        CacheClass::ALL.iter().map(|&c| (c.as_str(), c.meaning(), *self.total.classes.get(c))).collect()
    }

    pub fn buckets(&self) -> Vec<(&'static str, ClassStats)> {
        [GapBucket::Le5m, GapBucket::From5mTo1h, GapBucket::Gt1h]
            .iter()
            .map(|&b| (b.as_str(), *self.total.idle_buckets.get(b)))
            .collect()
    }
}

/// `GET /cache?user=`.
pub async fn page(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let (snap, view) = super::reports(&state, &params).await?;
    let c = &view.cache;
    let days: Vec<&crate::analyze::DayStats> = c.by_day.iter().rev().take(60).rev().collect();
    let labels: Vec<String> = days.iter().map(|d| d.day.get(5..).unwrap_or(&d.day).to_owned()).collect();
    let values: Vec<Vec<f64>> = days
        .iter()
        .map(|d| vec![d.stats.write_mix.write_5m_tokens as f64, d.stats.write_mix.write_1h_tokens as f64])
        .collect();
    let mix_chart = charts::stacked_bars(&Stacked {
        labels: &labels,
        series: &[("write 5m", palette::WRITE_5M), ("write 1h", palette::WRITE_1H)],
        values: &values,
        unit: Unit::Tokens,
        size: (1100, 300),
    });
    let misses: Vec<(String, f64)> = CacheClass::ALL
        .iter()
        .filter(|k| **k != CacheClass::Hit)
        .map(|&k| (k.as_str().to_owned(), c.total.classes.get(k).miss_cost_usd))
        .collect();
    render(&CachePage {
        chrome: Chrome::new(&state, &snap, "Cache", &params),
        empty: snap.is_empty(),
        total: c.total.clone(),
        mix_chart,
        class_chart: charts::hbars(&misses, Unit::Usd, palette::MISS, 1100),
        stale: c.stale.len(),
        by_trigger: c.compactions_by_trigger.iter().map(|(k, n)| (k.clone(), *n)).collect(),
        idle: c.idle_compaction,
        reconcile: c.usage.as_ref().map(|u| crate::report::cache_render::reconcile_line(u).trim().to_owned()),
        server: crate::report::cache_render::server_lines(c),
    })
}
