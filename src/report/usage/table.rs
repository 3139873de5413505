//! The terminal table of a usage report: its columns ranked for a narrow
//! terminal (`report::fit`), a sub-row per model with `--breakdown`, and a
//! total row; then the notes on calls, unknown and estimated models.

use super::render::calls_line;
use super::{Totals, UsageReport, UsageRow};
use crate::model::format::{thousands, usd};
use crate::pricing::Estimate;
use crate::report::calls::CallTotals;
use crate::report::fit::{self, Col, Layout};
use crate::report::query::Grouping;

/// Characters of a session id shown when the table has a width limit
/// (`advise` and the dashboard take any unique prefix).
const SHORT_ID: usize = 8;
/// Characters of a title shown.
const TITLE: usize = 32;
/// Characters of a project shown: its end, where the name is.
const PROJECT: usize = 30;

/// The token and cost columns, as `numbers` fills them.
const NUMBERS: [Col; 7] = [
    Col::num("Requests", 2),
    Col::num("Input", 5),
    Col::num("Output", 4),
    Col::num("Write 5m", 6),
    Col::num("Write 1h", 6),
    Col::num("Cache read", 4),
    Col::num("Cost", 0),
];

/// The cache columns of a session row, as `cache_cells` fills them.
const CACHE: [Col; 6] = [
    Col::num("Misses", 5),
    Col::num("Lost to expiry", 3),
    Col::num("Edit cost", 6),
    Col::num("Rewinds", 7),
    Col::num("Peak prompt", 6),
    Col::num("Stale premium", 1),
];

/// The call columns, as `call_cells` fills them.
const CALLS: [Col; 4] =
    [Col::num("Advisor calls", 7), Col::num("Advisor cost", 7), Col::num("Fallbacks", 7), Col::num("Refused cost", 7)];

/// Which optional columns a report has.
struct Shape {
    session: bool,
    fast: bool,
    cached: bool,
    calls: bool,
}

impl Shape {
    fn of(r: &UsageReport) -> Shape {
        let session = r.grouping == Grouping::Session;
        Shape {
            session,
            fast: session && r.rows.iter().any(|row| row.used.as_ref().is_some_and(|u| u.fast_requests > 0)),
            cached: r.rows.iter().any(|row| row.cache.is_some()),
            calls: !r.calls.is_empty() && r.rows.iter().any(|row| row.calls.is_some()),
        }
    }

    fn columns(&self, g: Grouping) -> Vec<Col> {
        let first = match g {
            Grouping::Session => "Session",
            Grouping::Project => "Project",
            Grouping::Model => "Model",
            Grouping::Source => "Made by",
            _ => "Period",
        };
        let mut cols = vec![Col::text(first, 0)];
        if self.session {
            cols.extend([Col::text("Title", 1), Col::text("Project", 3), Col::text("Models", 3)]);
            if self.fast {
                cols.push(Col::num("Fast mode", 4));
            }
            cols.push(Col::text("Last active", 2));
        }
        cols.extend(NUMBERS);
        if self.cached {
            cols.extend(CACHE);
        }
        if self.calls {
            cols.extend(CALLS);
        }
        cols
    }
}

/// The report as a terminal table in `layout`, with its notes.
pub fn usage_table(r: &UsageReport, layout: Layout) -> String {
    let shape = Shape::of(r);
    let cols = shape.columns(r.grouping);
    let mut rows: Vec<Vec<String>> = Vec::new();
    for row in &r.rows {
        rows.push(row_cells(&shape, row, layout));
        for (m, t) in &row.models {
            rows.push(padded(format!("  └ {m}"), &shape, t, cols.len()));
        }
    }
    rows.push(padded("Total".to_owned(), &shape, &r.total, cols.len()));
    let mut out = format!("{}\n", fit::table(&cols, &rows, layout));
    if !r.calls.is_empty() {
        out.push_str(&format!("Included in the costs: {}", calls_line(&r.calls)));
    }
    if !r.unknown_models.is_empty() {
        let names = crate::report::cell::term(&r.unknown_models.join(", ")).into_owned();
        out.push_str(&format!("Unknown models (priced at $0, not guessed): {names}\n"));
    }
    if let Some(note) = Estimate::note(&r.estimated_models) {
        out.push_str(&format!("{}\n", crate::report::cell::term(&note)));
    }
    out
}

/// The session's title, or what an untitled session is called.
fn title(row: &UsageRow, tz: chrono_tz::Tz) -> String {
    if row.title.is_empty() {
        crate::report::labels::untitled(row.project_name(), row.first.with_timezone(&tz).date_naive())
    } else {
        row.title.clone()
    }
}

fn row_cells(shape: &Shape, row: &UsageRow, layout: Layout) -> Vec<String> {
    let key = match (shape.session, layout.width) {
        (true, Some(_)) => row.key.chars().take(SHORT_ID).collect(),
        (true, None) => row.key.clone(),
        // A project row's key is its directory: shown as its path.
        (false, _) => row.project_path.clone().unwrap_or_else(|| row.key.clone()),
    };
    let mut cells = vec![key];
    if shape.session {
        let used = row.used.clone().unwrap_or_default();
        cells.extend([
            crate::report::cell::shorten(&title(row, layout.tz), TITLE),
            crate::report::cell::keep_end(row.project_name(), PROJECT),
            used.names.join(", "),
        ]);
        if shape.fast {
            cells.push(if used.fast_requests > 0 { thousands(used.fast_requests) } else { String::new() });
        }
        cells.push(row.last.with_timezone(&layout.tz).format("%Y-%m-%d %H:%M").to_string());
    }
    cells.extend(numbers(&row.totals));
    if shape.cached {
        cells.extend(cache_cells(row));
    }
    if shape.calls {
        cells.extend(call_cells(&row.calls.unwrap_or_default()));
    }
    cells
}

/// A sub-row or the total row: a label, blank text columns, the numbers,
/// blank figures after them.
fn padded(label: String, shape: &Shape, t: &Totals, len: usize) -> Vec<String> {
    let text = if shape.session { 4 + usize::from(shape.fast) } else { 0 };
    let mut cells = vec![label];
    cells.extend(std::iter::repeat_n(String::new(), text));
    cells.extend(numbers(t));
    cells.resize(len, String::new());
    cells
}

fn numbers(t: &Totals) -> [String; 7] {
    [
        thousands(t.requests),
        thousands(t.tokens.input),
        thousands(t.tokens.output),
        thousands(t.tokens.cache_write_5m),
        thousands(t.tokens.cache_write_1h),
        thousands(t.tokens.cache_read),
        usd(t.cost_usd),
    ]
}

fn cache_cells(row: &UsageRow) -> [String; 6] {
    let c = row.cache.unwrap_or_default();
    [
        thousands(c.misses),
        usd(c.idle_cost_usd),
        usd(c.edit_cost_usd),
        thousands(c.rewinds),
        thousands(c.peak_prompt),
        usd(c.stale_premium_usd),
    ]
}

fn call_cells(c: &CallTotals) -> [String; 4] {
    [thousands(c.advisor_calls), usd(c.advisor_cost_usd), thousands(c.fallback_calls), usd(c.refused_cost_usd)]
}
