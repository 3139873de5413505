//! Charts as pure functions returning an SVG document (plotters'
//! `SVGBackend`, no fonts needed: the browser lays out the text). Stacked
//! bars (cost per day by token class or by person, write mix per day),
//! horizontal bars (projects, models, classes) and a session's cache
//! timeline; colours in `palette`. Every chart is drawn at a fixed size
//! (the page scrolls it rather than shrink it, so its text stays at least
//! 12 px), its legend sits above the plot, and every bar and point carries
//! its value in an SVG `<title>` (`hover`). Labels are escaped by the SVG
//! backend; the SVG uses presentation attributes only, so a strict
//! Content-Security-Policy never blocks it. A chart that fails to draw
//! comes back as an SVG saying so, never as an error page.

use crate::model::format::{plural, thousands};
use plotters::chart::MeshStyle;
use plotters::prelude::*;

pub mod hover;
mod marks;
pub mod palette;
mod timeline;

use hover::Hover;
pub use timeline::timeline;

/// Smallest text of a chart, in CSS pixels.
pub const MIN_TEXT_PX: f64 = 12.0;

/// What the value axis counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Usd,
    Tokens,
    /// Requests, misses: plain counts.
    Count,
}

impl Unit {
    fn label(self, v: f64) -> String {
        match self {
            // Ticks fall on round values: whole dollars read without cents.
            Unit::Usd if v >= 0.0 && (v - v.round()).abs() < 1e-9 => format!("${}", thousands(v.round() as u64)),
            Unit::Usd => format!("${v:.2}"),
            Unit::Tokens => crate::model::format::tokens_rounded(v),
            Unit::Count => thousands(v.max(0.0).round() as u64),
        }
    }

    /// A value as a tooltip says it: dollars to the cent, tokens exact.
    pub fn exact(self, v: f64) -> String {
        match self {
            Unit::Usd => crate::model::format::usd(v),
            Unit::Tokens => plural(v.max(0.0).round() as u64, "token", "tokens"),
            Unit::Count => thousands(v.max(0.0).round() as u64),
        }
    }
}

/// A stacked bar chart: one bar per label, one segment per series.
pub struct Stacked<'a> {
    /// One per bar, in full (`2026-09-07`, `2026-09`): the tooltip's and,
    /// shortened when every bar is in one year, the axis's.
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
        Stacked { labels, series, values, unit: Unit::Usd, size: (width, 340) }
    }
}

type Drawn = Result<(), String>;

/// A drawing's hover areas, or why it failed.
type Drawing = Result<Vec<Hover>, String>;

/// The drawing area of a chart.
type Area<'b> = DrawingArea<SVGBackend<'b>, plotters::coord::Shift>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs a drawing into an SVG string with its hover areas, or an SVG with
/// the error message.
fn svg(size: (u32, u32), draw: impl FnOnce(Area<'_>) -> Drawing) -> String {
    let mut buf = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        draw(root)
    };
    match result {
        Ok(hovers) => hover::append(buf, &hovers),
        Err(e) => {
            tracing::warn!("chart failed: {e}");
            let mut b = String::new();
            let root = SVGBackend::with_string(&mut b, size).into_drawing_area();
            let _ = root.draw_text("chart unavailable", &text(14.0), (10, 20));
            let _ = root.present();
            drop(root);
            b
        }
    }
}

/// The mesh every chart shares: no light lines, the grid and axis colours,
/// labels of `px` pixels.
fn house_mesh<'m, 'a, 'b, X: Ranged, Y: Ranged, DB: DrawingBackend>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    px: f64,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB> {
    mesh.max_light_lines(0).bold_line_style(palette::GRID).axis_style(palette::AXIS).label_style(text(px))
}

/// Text of `px` CSS pixels (plotters' SVG writes a font of size / 1.24).
fn text(px: f64) -> TextStyle<'static> {
    ("sans-serif", px.max(MIN_TEXT_PX) * 1.24 + 0.01).into_font().color(&palette::AXIS)
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

/// The axis's text of each bar: days without their year when every bar
/// is in one year, else in full.
fn axis_labels(labels: &[String]) -> Vec<String> {
    let is_day = |l: &String| l.len() == 10 && l.as_bytes().get(4) == Some(&b'-');
    let year = |l: &String| l.get(..4).map(str::to_owned);
    let one_year = labels.iter().all(is_day)
        && labels.iter().filter_map(year).collect::<Vec<_>>().windows(2).all(|w| w[0] == w[1]);
    if one_year {
        labels.iter().map(|l| l.get(5..).unwrap_or(l).to_owned()).collect()
    } else {
        labels.to_vec()
    }
}

/// A legend above the plot: a swatch and a name per series, in rows that
/// fit `width`. Returns the band's height.
fn legend_height(series: &[(&str, RGBColor)], width: u32) -> u32 {
    if series.is_empty() {
        return 0;
    }
    let rows = legend_layout(series, width).last().map_or(1, |(_, row)| row + 1);
    rows * 22 + 8
}

/// Where each legend entry goes: x and row.
fn legend_layout(series: &[(&str, RGBColor)], width: u32) -> Vec<(i32, u32)> {
    let (mut x, mut row) = (70i32, 0u32);
    let mut out = Vec::with_capacity(series.len());
    for (name, _) in series {
        let w = 24 + (name.chars().count() as i32) * 8;
        if x + w > width as i32 - 10 && x > 70 {
            x = 70;
            row += 1;
        }
        out.push((x, row));
        x += w + 12;
    }
    out
}

fn draw_legend(area: &Area<'_>, series: &[(&str, RGBColor)], width: u32) -> Drawn {
    for ((name, color), (x, row)) in series.iter().zip(legend_layout(series, width)) {
        let y = 8 + row as i32 * 22;
        area.draw(&Rectangle::new([(x, y + 2), (x + 14, y + 16)], color.filled())).map_err(err)?;
        area.draw(&Text::new((*name).to_owned(), (x + 20, y + 1), text(13.0))).map_err(err)?;
    }
    Ok(())
}

/// Stacked bars with a legend above them; an all-zero chart still draws
/// its axes. Each bar's tooltip gives its label, total and segments.
pub fn stacked_bars(c: &Stacked<'_>) -> String {
    svg(c.size, |root| {
        root.fill(&WHITE).map_err(err)?;
        let (band, plot) = root.split_vertically(legend_height(c.series, c.size.0));
        draw_legend(&band, c.series, c.size.0)?;
        let n = c.labels.len().max(1);
        let top = c.values.iter().map(|v| v.iter().sum::<f64>()).fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.08 } else { 1.0 };
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
            .map_err(err)?;
        let axis = axis_labels(c.labels);
        let unit = c.unit;
        let longest = axis.iter().map(|l| l.chars().count()).max().unwrap_or(5).max(5);
        let fit = (c.size.0 as usize / (longest * 9 + 16)).max(2);
        house_mesh(&mut chart.configure_mesh(), 13.0)
            .disable_x_mesh()
            .x_labels(n.clamp(2, fit))
            .x_label_formatter(&|x| bar_label(&axis, *x))
            .y_label_formatter(&|y| unit.label(*y))
            .draw()
            .map_err(err)?;
        let width = if n > 200 { 0.5 } else { 0.38 };
        for (k, (_, color)) in c.series.iter().enumerate() {
            let color = *color;
            let rects = c.values.iter().enumerate().filter_map(move |(i, v)| {
                let base: f64 = v.iter().take(k).sum();
                let h = v.get(k).copied().unwrap_or(0.0);
                let x = i as f64;
                (h > 0.0).then(|| Rectangle::new([(x - width, base), (x + width, base + h)], color.filled()))
            });
            chart.draw_series(rects).map_err(err)?;
        }
        let hovers = c
            .labels
            .iter()
            .enumerate()
            .map(|(i, label)| {
                let x = i as f64;
                Hover {
                    from: chart.backend_coord(&(x - 0.5, top)),
                    to: chart.backend_coord(&(x + 0.5, 0.0)),
                    title: bar_title(c, i, label),
                }
            })
            .collect();
        root.present().map_err(err)?;
        Ok(hovers)
    })
}

/// A stacked bar's tooltip: its label, total and, when it has several,
/// its segments.
fn bar_title(c: &Stacked<'_>, i: usize, label: &str) -> String {
    let v = c.values.get(i).map_or(&[][..], Vec::as_slice);
    let total: f64 = v.iter().sum();
    let parts: Vec<String> = c
        .series
        .iter()
        .zip(v)
        .filter(|(_, x)| **x > 0.0)
        .map(|((name, _), x)| format!("{name} {}", c.unit.exact(*x)))
        .collect();
    let detail = if parts.len() > 1 { format!(" ({})", parts.join(", ")) } else { String::new() };
    format!("{label}: {}{detail}", c.unit.exact(total))
}

/// Horizontal bars, one per `(label, value)`, first on top; each bar's
/// tooltip gives its full label and value.
pub fn hbars(items: &[(String, f64)], unit: Unit, color: RGBColor, width: u32) -> String {
    let n = items.len().max(1);
    let height = (n as u32 * 28 + 56).min(960);
    svg((width, height), |root| {
        root.fill(&WHITE).map_err(err)?;
        let top = items.iter().map(|(_, v)| *v).fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.1 } else { 1.0 };
        let names: Vec<String> = items.iter().rev().map(|(l, _)| label(l)).collect();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(270)
            .build_cartesian_2d(0f64..top, -0.5f64..n as f64 - 0.5)
            .map_err(err)?;
        house_mesh(&mut chart.configure_mesh(), 13.0)
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
        let hovers = items
            .iter()
            .enumerate()
            .map(|(i, (label, v))| {
                let y = (n - 1 - i) as f64;
                Hover {
                    from: chart.backend_coord(&(0.0, y + 0.5)),
                    to: chart.backend_coord(&(top, y - 0.5)),
                    title: format!("{label}: {}", unit.exact(*v)),
                }
            })
            .collect();
        root.present().map_err(err)?;
        Ok(hovers)
    })
}

/// A bar's label cut to fit: a path keeps its end.
fn label(l: &str) -> String {
    match l.starts_with(['/', '~']) {
        true => super::cell::keep_end(l, 34),
        false => super::cell::shorten(l, 34),
    }
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
        assert!(s.contains("<title>&lt;script&gt;x&lt;/script&gt;: $3.00 (a $1.00, b $2.00)</title>"), "{s}");
        assert!(s.contains("<title>b: $0.50</title>"), "{s}");
    }

    #[test]
    fn chart_text_is_at_least_12_px() {
        let labels: Vec<String> = (1..=40).map(|d| format!("2026-01-{:02}", d.min(28))).collect();
        let values = vec![vec![1.0]; labels.len()];
        let s = stacked_bars(&Stacked::cost_per_day(&labels, &[("cache read", palette::READ)], &values, 900));
        let sizes: Vec<f64> =
            s.split("font-size=\"").skip(1).filter_map(|t| t.split('"').next().and_then(|v| v.parse().ok())).collect();
        assert!(!sizes.is_empty(), "{s}");
        assert!(sizes.iter().all(|px| *px >= MIN_TEXT_PX), "{sizes:?}");
        let texts: Vec<&str> = s
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split('>').nth(1))
            .map(|t| t.split('<').next().unwrap_or(""))
            .collect();
        assert!(texts.iter().any(|t| t.trim().starts_with("01-")), "the axis names the days: {texts:?}");
        assert!(!texts.iter().any(|t| t.contains("2026-")), "days of one year drop the year: {texts:?}");
    }

    #[test]
    fn days_of_several_years_keep_the_year() {
        let l = vec!["2025-12-31".to_owned(), "2026-01-01".to_owned()];
        assert_eq!(axis_labels(&l), l);
        let one = vec!["2026-12-30".to_owned(), "2026-12-31".to_owned()];
        assert_eq!(axis_labels(&one), vec!["12-30".to_owned(), "12-31".to_owned()]);
    }

    #[test]
    fn hbars_draw_one_bar_per_item() {
        let items = vec![("<b>p</b>".to_owned(), 3.0), ("q".to_owned(), 1.0)];
        let s = hbars(&items, Unit::Usd, palette::READ, 600);
        assert!(s.contains("&lt;b&gt;p&lt;/b&gt;"), "{s}");
        assert!(s.matches("<rect").count() >= 2);
        assert_eq!(s.matches("<title>").count(), 2, "{s}");
        assert!(s.contains("<title>q: $1.00</title>"));
    }

    #[test]
    fn axis_and_tooltip_numbers_read_like_the_tables() {
        assert_eq!(Unit::Usd.label(80_000.0), "$80,000");
        assert_eq!(Unit::Usd.label(90.0), "$90");
        assert_eq!(Unit::Usd.label(0.05), "$0.05");
        assert_eq!(Unit::Count.label(12_000.0), "12,000");
        assert_eq!(Unit::Tokens.exact(1.0), "1 token");
        assert_eq!(Unit::Tokens.exact(54_181.0), "54,181 tokens");
    }
}
