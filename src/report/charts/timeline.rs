//! A thread's cache timeline: prompt per request stacked read / written /
//! uncached, misses and lineage starts marked; below, each idle gap on a
//! log scale against the 5-minute and 1-hour TTL lines, red when it
//! outlived the TTL in force. Every request's column and gap has a tooltip
//! with its figures; the legend is the page's, below the chart.

use super::marks::{mark_of, MARKS};
use super::{err, house_mesh, palette, text, Area, Drawn, Hover, Unit};
use crate::report::labels;
use crate::report::session::timeline::TimelineRow;
use plotters::coord::combinators::IntoLogRange;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// The timeline of `rows`, `width` wide, its times in `tz`.
pub fn timeline(rows: &[&TimelineRow], width: u32, tz: chrono_tz::Tz) -> String {
    super::svg((width, 460), |root| {
        root.fill(&WHITE).map_err(err)?;
        let (upper, lower) = root.split_vertically(300);
        let mut hovers = prompt_panel(&upper, rows, tz)?;
        hovers.extend(gap_panel(&lower, rows)?);
        root.present().map_err(err)?;
        Ok(hovers)
    })
}

/// A request's tooltip: number, time, class, the prompt's parts, cost.
fn request_title(i: usize, r: &TimelineRow, tz: chrono_tz::Tz) -> String {
    let t = |n: u64| Unit::Tokens.exact(n as f64);
    let mut s = format!(
        "request {} at {}: {}; read {}, written {}, uncached {}; cost {}",
        i + 1,
        r.time.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S %Z"),
        labels::class(r.class),
        t(r.read_tokens),
        t(r.write_tokens()),
        t(r.input_tokens),
        crate::model::format::usd(r.cost_usd)
    );
    if r.miss_cost_usd > 0.0 {
        s += &format!(", of which the miss {}", crate::model::format::usd(r.miss_cost_usd));
    }
    s
}

fn prompt_panel(area: &Area<'_>, rows: &[&TimelineRow], tz: chrono_tz::Tz) -> Result<Vec<Hover>, String> {
    let n = rows.len().max(1) as f64;
    let top = rows.iter().map(|r| r.prompt()).max().unwrap_or(0).max(1000) as f64 * 1.15;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption("prompt per request (tokens)", text(14.0))
        .x_label_area_size(26)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..n, 0f64..top)
        .map_err(err)?;
    house_mesh(&mut chart.configure_mesh(), 12.5)
        .disable_x_mesh()
        .x_label_formatter(&|x| format!("{}", x.round() as u64 + 1))
        .y_label_formatter(&|y| Unit::Tokens.label(*y))
        .draw()
        .map_err(err)?;
    let segments = [palette::READ, palette::WRITE_5M, palette::WRITE_1H, palette::INPUT];
    for (k, color) in segments.into_iter().enumerate() {
        let bars = rows.iter().enumerate().filter_map(move |(i, r)| {
            let parts = [r.read_tokens, r.write_5m_tokens, r.write_1h_tokens, r.input_tokens];
            let base: u64 = parts.iter().take(k).sum();
            let x = i as f64;
            (parts[k] > 0)
                .then(|| Rectangle::new([(x + 0.1, base as f64), (x + 0.9, (base + parts[k]) as f64)], color.filled()))
        });
        chart.draw_series(bars).map_err(err)?;
    }
    markers(&mut chart, rows, top)?;
    Ok(rows
        .iter()
        .enumerate()
        .map(|(i, r)| Hover {
            from: chart.backend_coord(&(i as f64, top)),
            to: chart.backend_coord(&(i as f64 + 1.0, 0.0)),
            title: request_title(i, r, tz),
        })
        .collect())
}

/// The prompt panel's chart.
type TokenChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Lineage starts (compaction, model switch) as vertical lines; misses as
/// triangles over their bar.
fn markers(chart: &mut TokenChart<'_, '_>, rows: &[&TimelineRow], top: f64) -> Drawn {
    let starts = rows.iter().enumerate().filter(|(_, r)| r.class.is_start() && r.gap_s.is_some());
    let lines = starts.map(|(i, r)| {
        let color =
            if r.class == crate::analyze::CacheClass::Compaction { palette::COMPACTION } else { palette::SWITCH };
        PathElement::new(vec![(i as f64, 0.0), (i as f64, top)], color.stroke_width(2))
    });
    chart.draw_series(lines).map_err(err)?;
    for mark in MARKS {
        let at = |i: usize, r: &TimelineRow| (i as f64 + 0.5, r.prompt() as f64 + top * 0.04);
        let marks = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| mark_of(r) == Some(mark))
            .map(|(i, r)| TriangleMarker::new(at(i, r), 5, mark.0.filled()));
        chart.draw_series(marks).map_err(err)?;
    }
    Ok(())
}

fn gap_panel(area: &Area<'_>, rows: &[&TimelineRow]) -> Result<Vec<Hover>, String> {
    let n = rows.len().max(1) as f64;
    let longest = rows.iter().filter_map(|r| r.gap_s).fold(7200.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption("idle time before each request (log scale) against the cache's lifetime", text(14.0))
        .x_label_area_size(22)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..n, (1f64..longest).log_scale())
        .map_err(err)?;
    house_mesh(&mut chart.configure_mesh(), 12.5)
        .disable_x_mesh()
        .y_labels(5)
        .x_label_formatter(&|x| format!("{}", x.round() as u64 + 1))
        .y_label_formatter(&|y| crate::model::format::duration_words(*y))
        .draw()
        .map_err(err)?;
    let bars = rows.iter().enumerate().filter_map(|(i, r)| {
        let g = r.gap_s?.max(1.0);
        let color = if r.expired() { palette::MISS } else { palette::MUTED };
        Some(Rectangle::new([(i as f64 + 0.1, 1.0), (i as f64 + 0.9, g)], color.filled()))
    });
    chart.draw_series(bars).map_err(err)?;
    for (ttl, label) in [(300.0, "5-minute cache"), (3600.0, "1-hour cache")] {
        let line = PathElement::new(vec![(0.0, ttl), (n, ttl)], palette::AXIS.stroke_width(1));
        chart.draw_series(std::iter::once(line)).map_err(err)?;
        let t = Text::new(label, (0.2, ttl * 1.15), text(12.5));
        chart.draw_series(std::iter::once(t)).map_err(err)?;
    }
    Ok(rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let g = r.gap_s?;
            let verdict = if r.expired() { "the cache had expired" } else { "the cache was still warm" };
            Some(Hover {
                from: chart.backend_coord(&(i as f64, longest)),
                to: chart.backend_coord(&(i as f64 + 1.0, 1.0)),
                title: format!(
                    "request {}: idle {} before it, cache lifetime {}: {verdict}",
                    i + 1,
                    crate::model::format::duration_words(g),
                    crate::model::format::duration_words(f64::from(r.ttl_s))
                ),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_marks_misses_and_expired_gaps() {
        use crate::analyze::CacheClass;
        use chrono::{TimeZone, Utc};
        let t = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).single().unwrap_or_default();
        let row = |class, gap_s: Option<f64>, read: u64, write: u64| TimelineRow {
            time: t,
            message_id: String::new(),
            thread: "main".into(),
            model: "m".into(),
            version: "1".into(),
            read_tokens: read,
            write_5m_tokens: write,
            write_1h_tokens: 0,
            input_tokens: 3,
            output_tokens: 100,
            class,
            rewind: false,
            gap_s,
            ttl_s: 300,
            rebuilt_tokens: 0,
            miss_cost_usd: 0.0,
            cost_usd: 0.0,
            server_reason: String::new(),
            server_missed_tokens: None,
            cause: class.as_str().to_owned(),
            cause_from: crate::analyze::CauseFrom::Inferred,
            query_source: String::new(),
            ttl_asked: String::new(),
        };
        let rows = [row(CacheClass::First, None, 0, 20_000), row(CacheClass::Ttl5m, Some(900.0), 2_000, 19_000)];
        let refs: Vec<&TimelineRow> = rows.iter().collect();
        let s = timeline(&refs, 800, chrono_tz::UTC);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"), "{s}");
        assert!(s.contains("5-minute cache") && s.contains("1-hour cache"));
        assert_eq!(s.matches("<title>").count(), 3, "two requests, one gap: {s}");
        assert!(s.contains("expired after 5 minutes idle"), "{s}");
        assert!(s.contains("#D62728"), "the expired gap and the miss are red");
        let seoul = timeline(&refs, 800, chrono_tz::Asia::Seoul);
        let at = rows[0].time.with_timezone(&chrono_tz::Asia::Seoul).format("%Y-%m-%d %H:%M:%S KST").to_string();
        assert!(seoul.contains(&format!("request 1 at {at}")), "the tooltip's time is in the page's zone: {seoul}");
        assert!(s.contains("<polygon"), "the miss marker");
    }
}
