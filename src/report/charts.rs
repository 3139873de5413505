//! Charts as pure functions returning an SVG document (plotters'
//! `SVGBackend`, no fonts needed: the browser lays out the text). Stacked
//! bars (cost per day by token class or by person, write mix per day),
//! horizontal bars (projects, models, classes) and a session's cache
//! timeline; colours in `palette`. Labels are escaped by the SVG backend;
//! the SVG uses presentation attributes only, so a strict
//! Content-Security-Policy never blocks it. A chart that fails to draw comes
//! back as an SVG saying so, never as an error page.

use crate::report::timeline::TimelineRow;
use plotters::chart::MeshStyle;
use plotters::coord::combinators::IntoLogRange;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

mod marks;
pub mod palette;

use marks::{mark_of, MARKS};

/// What the value axis counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Usd,
    Tokens,
}

impl Unit {
    fn label(self, v: f64) -> String {
        match self {
            Unit::Usd if v >= 100.0 => format!("${v:.0}"),
            Unit::Usd => format!("${v:.2}"),
            Unit::Tokens if v >= 1e6 => format!("{:.1}M", v / 1e6),
            Unit::Tokens if v >= 1e3 => format!("{:.0}k", v / 1e3),
            Unit::Tokens => format!("{v:.0}"),
        }
    }
}

/// A stacked bar chart: one bar per label, one segment per series.
pub struct Stacked<'a> {
    pub labels: &'a [String],
    /// Series names and colours, bottom segment first.
    pub series: &'a [(&'a str, RGBColor)],
    /// `values[bar][series]`.
    pub values: &'a [Vec<f64>],
    pub unit: Unit,
    pub size: (u32, u32),
}

impl<'a> Stacked<'a> {
    /// Cost per day, `width` wide: one bar per day, one segment per series
    /// (token classes, people), all such charts the same height.
    pub fn cost_per_day(
        labels: &'a [String],
        series: &'a [(&'a str, RGBColor)],
        values: &'a [Vec<f64>],
        width: u32,
    ) -> Stacked<'a> {
        Stacked { labels, series, values, unit: Unit::Usd, size: (width, 320) }
    }
}

type Drawn = Result<(), String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs a drawing into an SVG string, or an SVG with the error message.
fn svg(size: (u32, u32), draw: impl FnOnce(DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Drawn) -> String {
    let mut buf = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        draw(root)
    };
    match result {
        Ok(()) => buf,
        Err(e) => {
            tracing::warn!("chart failed: {e}");
            let mut b = String::new();
            let root = SVGBackend::with_string(&mut b, size).into_drawing_area();
            let _ =
                root.draw_text("chart unavailable", &("sans-serif", 14).into_font().color(&palette::AXIS), (10, 20));
            let _ = root.present();
            drop(root);
            b
        }
    }
}

/// The mesh every chart shares: no light lines, the grid and axis colours,
/// labels of `size`.
fn house_mesh<'m, 'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    size: u32,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB> {
    mesh.max_light_lines(0).bold_line_style(palette::GRID).axis_style(palette::AXIS).label_style(text(size))
}

fn text(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&palette::AXIS)
}

/// The label of the bar centred on `x` (bar `i` is centred on `i`).
fn bar_label(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-9 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// Stacked bars with a legend; an all-zero chart still draws its axes.
pub fn stacked_bars(c: &Stacked<'_>) -> String {
    svg(c.size, |root| {
        root.fill(&WHITE).map_err(err)?;
        let n = c.labels.len().max(1);
        let top = c.values.iter().map(|v| v.iter().sum::<f64>()).fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.12 } else { 1.0 };
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
            .map_err(err)?;
        let labels = c.labels;
        let unit = c.unit;
        house_mesh(&mut chart.configure_mesh(), 12)
            .disable_x_mesh()
            .x_labels(n.clamp(2, 10))
            .x_label_formatter(&|x| bar_label(labels, *x))
            .y_label_formatter(&|y| unit.label(*y))
            .draw()
            .map_err(err)?;
        for (k, (name, color)) in c.series.iter().enumerate() {
            let color = *color;
            let rects = c.values.iter().enumerate().filter_map(move |(i, v)| {
                let base: f64 = v.iter().take(k).sum();
                let h = v.get(k).copied().unwrap_or(0.0);
                let x = i as f64;
                (h > 0.0).then(|| Rectangle::new([(x - 0.38, base), (x + 0.38, base + h)], color.filled()))
            });
            chart
                .draw_series(rects)
                .map_err(err)?
                .label(*name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(palette::GRID)
            .label_font(text(12))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)
    })
}

/// Horizontal bars, one per `(label, value)`, first on top.
pub fn hbars(items: &[(String, f64)], unit: Unit, color: RGBColor, width: u32) -> String {
    let n = items.len().max(1);
    let height = (n as u32 * 26 + 50).min(900);
    svg((width, height), |root| {
        root.fill(&WHITE).map_err(err)?;
        let top = items.iter().map(|(_, v)| *v).fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.1 } else { 1.0 };
        let names: Vec<String> = items.iter().rev().map(|(l, _)| shorten(l, 34)).collect();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(28)
            .y_label_area_size(230)
            .build_cartesian_2d(0f64..top, -0.5f64..n as f64 - 0.5)
            .map_err(err)?;
        house_mesh(&mut chart.configure_mesh(), 12)
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|y| bar_label(&names, *y))
            .x_label_formatter(&|x| unit.label(*x))
            .draw()
            .map_err(err)?;
        let bars = items.iter().enumerate().map(|(i, (_, v))| {
            let y = (n - 1 - i) as f64;
            Rectangle::new([(0.0, y - 0.35), (*v, y + 0.35)], color.filled())
        });
        chart.draw_series(bars).map_err(err)?;
        root.present().map_err(err)
    })
}

/// `s` cut to `max` characters with an ellipsis.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let head: String = s.chars().take(max - 1).collect();
        format!("{head}…")
    }
}

/// A thread's cache timeline: prompt per request stacked read / written /
/// uncached, misses and lineage starts marked; below, each idle gap on a log
/// scale against the 5-minute and 1-hour TTL lines, red when it outlived
/// the TTL in force.
pub fn timeline(rows: &[&TimelineRow], width: u32) -> String {
    svg((width, 440), |root| {
        root.fill(&WHITE).map_err(err)?;
        let (upper, lower) = root.split_vertically(290);
        prompt_panel(&upper, rows)?;
        gap_panel(&lower, rows)?;
        root.present().map_err(err)
    })
}

fn prompt_panel(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, rows: &[&TimelineRow]) -> Drawn {
    let n = rows.len().max(1) as f64;
    let top = rows.iter().map(|r| r.prompt()).max().unwrap_or(0).max(1000) as f64 * 1.15;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption("prompt per request (tokens)", text(13))
        .x_label_area_size(24)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..n, 0f64..top)
        .map_err(err)?;
    house_mesh(&mut chart.configure_mesh(), 11)
        .disable_x_mesh()
        .x_label_formatter(&|x| format!("{}", x.round() as u64 + 1))
        .y_label_formatter(&|y| Unit::Tokens.label(*y))
        .draw()
        .map_err(err)?;
    let segments = [
        ("cache read", palette::READ),
        ("write 5m", palette::WRITE_5M),
        ("write 1h", palette::WRITE_1H),
        ("uncached", palette::INPUT),
    ];
    for (k, (name, color)) in segments.into_iter().enumerate() {
        let bars = rows.iter().enumerate().filter_map(move |(i, r)| {
            let parts = [r.read_tokens, r.write_5m_tokens, r.write_1h_tokens, r.input_tokens];
            let base: u64 = parts.iter().take(k).sum();
            let x = i as f64;
            (parts[k] > 0)
                .then(|| Rectangle::new([(x + 0.1, base as f64), (x + 0.9, (base + parts[k]) as f64)], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    markers(&mut chart, rows, top)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(palette::GRID)
        .label_font(text(11))
        .draw()
        .map_err(err)
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
    for (color, label) in MARKS {
        let mine: Vec<(usize, &&TimelineRow)> =
            rows.iter().enumerate().filter(|(_, r)| mark_of(r) == Some((color, label))).collect();
        if mine.is_empty() {
            continue;
        }
        let at = |i: usize, r: &TimelineRow| (i as f64 + 0.5, r.prompt() as f64 + top * 0.04);
        let marks = mine.iter().map(|(i, r)| TriangleMarker::new(at(*i, r), 5, color.filled()));
        chart
            .draw_series(marks)
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| TriangleMarker::new((x + 5, y), 5, color.filled()));
    }
    Ok(())
}

fn gap_panel(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, rows: &[&TimelineRow]) -> Drawn {
    let n = rows.len().max(1) as f64;
    let longest = rows.iter().filter_map(|r| r.gap_s).fold(7200.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption("idle gap before each request (log scale) vs TTL", text(13))
        .x_label_area_size(20)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..n, (1f64..longest).log_scale())
        .map_err(err)?;
    house_mesh(&mut chart.configure_mesh(), 11)
        .disable_x_mesh()
        .y_labels(5)
        .x_label_formatter(&|x| format!("{}", x.round() as u64 + 1))
        .y_label_formatter(&|y| crate::analyze::fmt_duration(*y))
        .draw()
        .map_err(err)?;
    let bars = rows.iter().enumerate().filter_map(|(i, r)| {
        let g = r.gap_s?.max(1.0);
        let color = if r.expired() { palette::MISS } else { palette::MUTED };
        Some(Rectangle::new([(i as f64 + 0.1, 1.0), (i as f64 + 0.9, g)], color.filled()))
    });
    chart.draw_series(bars).map_err(err)?;
    for (ttl, label) in [(300.0, "5m TTL"), (3600.0, "1h TTL")] {
        let line = PathElement::new(vec![(0.0, ttl), (n, ttl)], palette::AXIS.stroke_width(1));
        chart.draw_series(std::iter::once(line)).map_err(err)?;
        let t = Text::new(label, (0.2, ttl * 1.15), text(11));
        chart.draw_series(std::iter::once(t)).map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacked_bars_escape_labels_and_use_no_style_attributes() {
        let labels = vec!["<script>x</script>".to_owned(), "b".to_owned()];
        let values = vec![vec![1.0, 2.0], vec![0.5, 0.0]];
        let s = stacked_bars(&Stacked {
            labels: &labels,
            series: &[("a", palette::READ), ("b", palette::OUTPUT)],
            values: &values,
            unit: Unit::Usd,
            size: (600, 300),
        });
        assert!(s.starts_with("<svg"), "{s}");
        assert!(s.contains("<rect"));
        assert!(!s.contains("<script>"));
        assert!(!s.contains("style="));
    }

    #[test]
    fn timeline_marks_misses_and_expired_gaps() {
        use crate::analyze::CacheClass;
        use chrono::{TimeZone, Utc};
        let t = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).single().unwrap_or_default();
        let row = |class, gap_s: Option<f64>, read: u64, write: u64| TimelineRow {
            time: t,
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
        };
        let rows = [row(CacheClass::First, None, 0, 20_000), row(CacheClass::Ttl5m, Some(900.0), 2_000, 19_000)];
        let refs: Vec<&TimelineRow> = rows.iter().collect();
        let s = timeline(&refs, 800);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"), "{s}");
        assert!(s.contains("5m TTL") && s.contains("1h TTL"));
        assert!(s.contains("#D62728"), "the expired gap and the miss are red");
        assert!(s.contains("<polygon"), "the miss marker");
    }

    #[test]
    fn hbars_draw_one_bar_per_item() {
        let items = vec![("<b>p</b>".to_owned(), 3.0), ("q".to_owned(), 1.0)];
        let s = hbars(&items, Unit::Usd, palette::READ, 600);
        assert!(s.contains("&lt;b&gt;p&lt;/b&gt;"), "{s}");
        assert!(s.matches("<rect").count() >= 2);
    }
}
