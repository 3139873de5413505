//! `/`: spend today, in 7 and 30 days; cache hit ratio, money lost to
//! expired caches and the other TTL's cost; cost per day stacked by token
//! class (with a model toggle); top sessions; top stale sessions; and the
//! "Now" panel (`report::now`: active sessions with a countdown the page's
//! script ticks, the current 5-hour block, plan-limit use).

use super::periods::chart_periods;
use crate::analyze::{StaleSession, WhatIf};
use crate::report::cache::words::what_if_caption;
use crate::report::calls::CallTotals;
use crate::report::charts::{self, palette, Stacked};
use crate::report::class_cost::DayClassCost;
use crate::report::now::{now_panel, NowPanel, NowSession};
use crate::report::stored_rows::priced;
use crate::report::usage::{Totals, UsageRow};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::Params;
use crate::web::range::Range;
use crate::web::snapshot::{Reports, Snapshot};
use crate::web::state::AppState;
use crate::web::view::Formats;
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono::{Days, NaiveDate};
use chrono_tz::Tz;

/// Days in the overview's chart.
const CHART_DAYS: u64 = 30;

#[derive(Template)]
#[template(path = "overview.html")]
pub struct OverviewPage {
    pub chrome: Chrome,
    pub empty: bool,
    pub today: Totals,
    pub last_7: Totals,
    pub last_30: Totals,
    pub all_time: Totals,
    /// Advisor calls and refused attempts of the last 30 days.
    pub calls_30: CallTotals,
    pub hit_ratio: Option<f64>,
    pub idle_cost_usd: f64,
    /// Miss cost within the TTL (cache model v2: microcompact, context edit, full rebuild).
    pub edit_cost_usd: f64,
    pub what_if: WhatIf,
    /// The what-if's verdict in words.
    pub what_if_caption: String,
    pub models: Vec<String>,
    pub model: Option<String>,
    pub chart: String,
    /// What the chart plots, over which days.
    pub chart_heading: String,
    pub top_sessions: Vec<UsageRow>,
    /// Whether `top_sessions` is all-time (no range asked, nothing in the
    /// last 30 days).
    pub top_all_time: bool,
    pub stale: Vec<StaleSession>,
    pub stale_count: usize,
    /// Sessions that can no longer be resumed (what an empty list means).
    pub not_resumable: usize,
    /// What Claude Code's settings and transcripts warn about
    /// (`cleanupPeriodDays` 0, transcripts about to be deleted unread).
    pub warnings: Vec<String>,
    pub unknown_models: Vec<String>,
    pub now: NowPanel,
}

impl Formats for OverviewPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl OverviewPage {
    /// Link to a session.
    pub fn href(&self, id: &str) -> String {
        super::session_href(id)
    }

    /// The countdown as the page's script writes it: `4:59 left` while
    /// warm, `cold 12:34` after (hours as `1:02:03`).
    pub fn countdown(&self, s: &NowSession) -> String {
        let left = (s.expires_at - self.now.now).num_seconds();
        let span = |x: i64| match x {
            0..=3599 => format!("{}:{:02}", x / 60, x % 60),
            _ => format!("{}:{:02}:{:02}", x / 3600, (x % 3600) / 60, x % 60),
        };
        if left >= 0 {
            format!("{} left", span(left))
        } else {
            format!("cold {}", span(-left))
        }
    }

    /// How many rises in plan-limit use the estimate rests on.
    pub fn intervals_text(&self) -> String {
        crate::report::labels::plural(self.now.estimate.intervals as u64, "rise in use", "rises in use")
    }

    /// `3 stale sessions`.
    /// What an empty stale list means, truthfully.
    pub fn no_stale_text(&self) -> String {
        match self.not_resumable {
            0 => "No session's cache has expired.".to_owned(),
            n => format!(
                "No session that can still be resumed has an expired cache; {} can no longer be resumed \
(transcript deleted, past Claude Code's cleanup, or a team member's).",
                crate::report::labels::plural(n as u64, "session", "sessions")
            ),
        }
    }

    /// Why a compacted session's premium is small, for a cell's title.
    pub fn compacted_note(&self) -> &'static str {
        crate::analyze::COMPACTED_PREMIUM
    }

    pub fn stale_text(&self) -> String {
        crate::report::labels::plural(self.stale_count as u64, "stale session", "stale sessions")
    }

    /// Milliseconds since the epoch, for the script.
    pub fn ms(&self, t: &chrono::DateTime<chrono::Utc>) -> i64 {
        t.timestamp_millis()
    }

    /// A cold resume of `usd` as a share of the 5-hour window, when estimated.
    pub fn limit_share(&self, usd: &f64) -> Option<String> {
        let per = self.now.estimate.usd_per_pct.filter(|p| *p > 0.0)?;
        Some(format!("{:.1}%", usd / per))
    }
}

/// The token classes of the cost chart, bottom first.
pub const CLASS_SERIES: [(&str, plotters::style::RGBColor); 6] = [
    ("cache read", palette::READ),
    ("write 5m", palette::WRITE_5M),
    ("write 1h", palette::WRITE_1H),
    ("input", palette::INPUT),
    ("output", palette::OUTPUT),
    ("web search", palette::WEB),
];

/// Cost per period of `range` by token class (every period drawn, missing
/// ones zero), over `model` or every model: the chart and its bar labels.
pub fn class_chart(costs: &[DayClassCost], range: &Range, model: Option<&str>, width: u32) -> (String, Vec<String>) {
    let rows: Vec<(NaiveDate, Vec<f64>)> = costs
        .iter()
        .filter_map(|x| {
            let day = NaiveDate::parse_from_str(&x.day, "%Y-%m-%d").ok()?;
            let c = x.sum(|m| model.is_none_or(|want| want == m));
            Some((day, vec![c.read, c.write_5m, c.write_1h, c.input, c.output, c.web_search]))
        })
        .collect();
    let (labels, values) = chart_periods(range, rows);
    (charts::stacked_bars(&Stacked::cost_per_day(&labels, &CLASS_SERIES, &values, width)), labels)
}

/// The chart's days: the page's range, or without one the last 30 days
/// (or the 30 up to the last day with data, when nothing happened in them).
fn chart_range(range: &Range, view: &Reports) -> Range {
    if !range.is_all() {
        return range.clone();
    }
    let last_data = view.daily.rows.last().and_then(|r| NaiveDate::parse_from_str(&r.key, "%Y-%m-%d").ok());
    let from = range.today.checked_sub_days(Days::new(CHART_DAYS - 1));
    let end = match (last_data, from) {
        (Some(last), Some(from)) if last < from => last,
        _ => range.today,
    };
    Range { since: end.checked_sub_days(Days::new(CHART_DAYS - 1)), until: Some(end), ..range.clone() }
}

fn build(state: &AppState, snap: &Snapshot, view: &Reports, params: &Params) -> Result<OverviewPage, WebError> {
    let all = super::everyone(snap)?;
    if let Some(m) = Params::text(&params.model) {
        if !all.models.model_ids().contains(&m) {
            return Err(WebError::bad("model", format!("no requests used model {m:?}")));
        }
    }
    let priced = priced(&snap.view)?;
    let model = Params::text(&params.model);
    let s = &view.summary;
    let range = super::range(state, snap, params)?;
    let chart_range = chart_range(&range, view);
    let (chart, labels) = class_chart(&view.class_costs, &chart_range, model.as_deref(), 1100);
    let mut chart_heading = super::periods::period_heading("Cost", &chart_range, &labels);
    if let Some(m) = &model {
        chart_heading += &format!(", model {m}");
    }
    let top_all_time = range.is_all() && s.top_sessions.is_empty();
    let top_sessions = if range.is_all() && !top_all_time {
        s.top_sessions.clone()
    } else {
        view.sessions.rows.iter().take(5).cloned().collect()
    };
    let total = &view.cache.total;
    Ok(OverviewPage {
        chrome: Chrome::new(state, snap, "Overview", params).with_json("/api/daily"),
        empty: snap.is_empty(),
        today: s.today,
        last_7: s.last_7,
        last_30: s.last_30,
        all_time: s.all_time,
        calls_30: s.calls_30,
        hit_ratio: total.hit_ratio_tokens,
        idle_cost_usd: total.idle_cost_usd,
        edit_cost_usd: total.classes.edit_cost_usd(),
        what_if_caption: what_if_caption(&total.what_if, &total.write_mix),
        what_if: total.what_if,
        models: all.models.model_ids(),
        chart,
        chart_heading,
        model,
        top_sessions,
        top_all_time,
        // Now, whatever days the page shows: a session is stale or not at
        // the clock, not in a date range.
        stale: all.cache.stale.iter().take(10).cloned().collect(),
        stale_count: all.cache.stale.len(),
        not_resumable: all.cache.not_resumable.len(),
        warnings: view.cache.warnings.clone(),
        unknown_models: s.unknown_models.clone(),
        now: now_panel(&*snap.recent()?, &priced, snap.view.samples(), snap.view.live_cache(), snap.now()),
    })
}

/// `GET /?model=&user=`.
pub async fn page(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let (snap, view) = super::reports(&state, &params).await?;
    let page = super::blocking(move || build(&state, &snap, &view, &params)).await?;
    render(&page)
}
