//! Output of usage reports: terminal table, JSON (the documented contract)
//! and CSV. Formatting only; the numbers come from `report::usage`.

use super::calls::CallTotals;
use super::query::Grouping;
use super::usage::{Totals, UsageReport, UsageRow};
use crate::pricing::Estimate;
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use serde_json::{json, Map, Value};

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// Token and cost keys of a row or total, as the JSON contract names them.
pub fn totals_json(t: &Totals) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("requests".into(), json!(t.requests));
    m.insert("input_tokens".into(), json!(t.tokens.input));
    m.insert("output_tokens".into(), json!(t.tokens.output));
    m.insert("cache_write_5m_tokens".into(), json!(t.tokens.cache_write_5m));
    m.insert("cache_write_1h_tokens".into(), json!(t.tokens.cache_write_1h));
    m.insert("cache_read_tokens".into(), json!(t.tokens.cache_read));
    m.insert("cost_usd".into(), json!(t.cost_usd));
    m
}

fn row_json(g: Grouping, r: &UsageRow) -> Value {
    let mut m = Map::new();
    m.insert(g.key_name().into(), json!(r.key));
    if g == Grouping::Session {
        m.insert("project".into(), json!(r.project));
        m.insert("title".into(), json!(r.title));
    }
    m.insert("first".into(), json!(r.first.to_rfc3339()));
    m.insert("last".into(), json!(r.last.to_rfc3339()));
    m.extend(totals_json(&r.totals));
    if let Some(c) = &r.cache {
        m.insert("misses".into(), json!(c.misses));
        m.insert("idle_cost_usd".into(), json!(c.idle_cost_usd));
        m.insert("edit_cost_usd".into(), json!(c.edit_cost_usd));
        m.insert("rewinds".into(), json!(c.rewinds));
        m.insert("peak_prompt".into(), json!(c.peak_prompt));
        m.insert("stale_premium_usd".into(), json!(c.stale_premium_usd));
        m.insert("warm".into(), json!(c.warm));
        m.insert("cold_resume_usd".into(), json!(c.cold_resume_usd));
        m.insert("last_main".into(), json!(c.last_main.map(|t| t.to_rfc3339())));
        if let Some(why) = c.not_resumable {
            m.insert("not_resumable".into(), json!(why));
        }
    }
    if let Some(c) = &r.calls {
        m.extend(calls_json(c));
    }
    if !r.models.is_empty() {
        let models: Vec<Value> = r
            .models
            .iter()
            .map(|(name, t)| {
                let mut mm = Map::new();
                mm.insert("model".into(), json!(name));
                mm.extend(totals_json(t));
                Value::Object(mm)
            })
            .collect();
        m.insert("models".into(), Value::Array(models));
    }
    Value::Object(m)
}

/// Advisor calls, fallback calls and refused attempts, as the JSON contract
/// names them.
pub fn calls_json(c: &CallTotals) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("advisor_calls".into(), json!(c.advisor_calls));
    m.insert("advisor_cost_usd".into(), json!(c.advisor_cost_usd));
    m.insert("fallback_calls".into(), json!(c.fallback_calls));
    m.insert("fallback_cost_usd".into(), json!(c.fallback_cost_usd));
    m.insert("refused_calls".into(), json!(c.refused_calls));
    m.insert("refused_cost_usd".into(), json!(c.refused_cost_usd));
    m
}

/// The report as the JSON contract: `{"rows":[...],"total":{...}}`.
pub fn usage_json(r: &UsageReport) -> Value {
    json!({
        "rows": r.rows.iter().map(|row| row_json(r.grouping, row)).collect::<Vec<_>>(),
        "total": Value::Object(totals_json(&r.total)),
        "calls": Value::Object(calls_json(&r.calls)),
        "unknown_models": r.unknown_models,
        "estimated_models": r.estimated_models,
    })
}

/// Renders a usage report in the chosen format.
pub fn usage(r: &UsageReport, format: Format) -> String {
    match format {
        Format::Json => super::term::json(&usage_json(r)).unwrap_or_default(),
        Format::Csv => usage_csv(r),
        Format::Table => usage_table(r),
    }
}

fn usage_csv(r: &UsageReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let key = r.grouping.key_name();
    let _ = w.write_record([
        key,
        "model",
        "requests",
        "input_tokens",
        "output_tokens",
        "cache_write_5m_tokens",
        "cache_write_1h_tokens",
        "cache_read_tokens",
        "cost_usd",
    ]);
    let mut rec = |k: &str, model: &str, t: &Totals| {
        let _ = w.write_record([
            k.to_owned(),
            model.to_owned(),
            t.requests.to_string(),
            t.tokens.input.to_string(),
            t.tokens.output.to_string(),
            t.tokens.cache_write_5m.to_string(),
            t.tokens.cache_write_1h.to_string(),
            t.tokens.cache_read.to_string(),
            format!("{:.6}", t.cost_usd),
        ]);
    };
    for row in &r.rows {
        if row.models.is_empty() {
            rec(&row.key, "", &row.totals);
        }
        for (m, t) in &row.models {
            rec(&row.key, m, t);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `$1,234.57`, `-$1.23`: the one dollar format (`model::money::usd`).
pub use crate::model::money::usd as dollars;

fn usage_table(r: &UsageReport) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    let first = match r.grouping {
        Grouping::Session => "Session",
        Grouping::Project => "Project",
        Grouping::Model => "Model",
        _ => "Period",
    };
    let mut header = vec![first];
    if r.grouping == Grouping::Session {
        header.push("Title");
    }
    header.extend(["Requests", "Input", "Output", "Write 5m", "Write 1h", "Cache read", "Cost"]);
    let cached = r.rows.iter().any(|row| row.cache.is_some());
    if cached {
        header.extend(["Misses", "Idle cost", "Edit cost", "Rewinds", "Peak prompt", "Stale premium"]);
    }
    let with_calls = !r.calls.is_empty() && r.rows.iter().any(|row| row.calls.is_some());
    if with_calls {
        header.extend(["Advisor calls", "Advisor cost", "Fallbacks", "Refused cost"]);
    }
    t.set_header(header);
    for row in &r.rows {
        let mut cells = vec![Cell::new(&row.key)];
        if r.grouping == Grouping::Session {
            cells.push(Cell::new(row.title.chars().take(40).collect::<String>()));
        }
        let mut cells = with_numbers(cells, &row.totals);
        if let Some(c) = &row.cache {
            let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
            cells.extend([
                right(thousands(c.misses)),
                right(dollars(c.idle_cost_usd)),
                right(dollars(c.edit_cost_usd)),
                right(thousands(c.rewinds)),
                right(thousands(c.peak_prompt)),
                right(dollars(c.stale_premium_usd)),
            ]);
        }
        if with_calls {
            cells.extend(call_cells(&row.calls.unwrap_or_default()));
        }
        t.add_row(cells);
        for (m, tot) in &row.models {
            let mut cells = vec![Cell::new(format!("  └ {m}"))];
            if r.grouping == Grouping::Session {
                cells.push(Cell::new(""));
            }
            t.add_row(with_numbers(cells, tot));
        }
    }
    let mut cells = vec![Cell::new("Total")];
    if r.grouping == Grouping::Session {
        cells.push(Cell::new(""));
    }
    t.add_row(with_numbers(cells, &r.total));
    let mut out = format!("{t}\n");
    if !r.calls.is_empty() {
        out.push_str(&format!("Included in the costs: {}", calls_line(&r.calls)));
    }
    if !r.unknown_models.is_empty() {
        out.push_str(&format!("Unknown models (priced at $0, not guessed): {}\n", r.unknown_models.join(", ")));
    }
    if let Some(note) = Estimate::note(&r.estimated_models) {
        out.push_str(&format!("{note}\n"));
    }
    out
}

fn call_cells(c: &CallTotals) -> [Cell; 4] {
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    [
        right(thousands(c.advisor_calls)),
        right(dollars(c.advisor_cost_usd)),
        right(thousands(c.fallback_calls)),
        right(dollars(c.refused_cost_usd)),
    ]
}

/// One line on advisor calls and refused attempts, costs first and counts
/// in brackets ("" when there were none).
pub fn calls_line(c: &CallTotals) -> String {
    if c.is_empty() {
        return String::new();
    }
    format!(
        "advisor calls {} ({}), refused attempts {} ({}), fallbacks {} ({})\n",
        dollars(c.advisor_cost_usd),
        thousands(c.advisor_calls),
        dollars(c.refused_cost_usd),
        thousands(c.refused_calls),
        dollars(c.fallback_cost_usd),
        thousands(c.fallback_calls),
    )
}

fn with_numbers(mut cells: Vec<Cell>, t: &Totals) -> Vec<Cell> {
    let n = |x: u64| Cell::new(thousands(x)).set_alignment(CellAlignment::Right);
    cells.extend([
        n(t.requests),
        n(t.tokens.input),
        n(t.tokens.output),
        n(t.tokens.cache_write_5m),
        n(t.tokens.cache_write_1h),
        n(t.tokens.cache_read),
        Cell::new(dollars(t.cost_usd)).set_alignment(CellAlignment::Right),
    ]);
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(100), "100");
        assert_eq!(dollars(125.2349), "$125.23");
        assert_eq!(dollars(1234.5), "$1,234.50");
        assert_eq!(dollars(-2.5), "-$2.50", "a negative amount keeps its sign");
    }

    #[test]
    fn the_calls_line_gives_costs_then_counts() {
        assert_eq!(calls_line(&CallTotals::default()), "");
        let c = CallTotals {
            advisor_calls: 6,
            advisor_cost_usd: 9.49,
            fallback_calls: 1,
            fallback_cost_usd: 0.047,
            refused_calls: 2,
            refused_cost_usd: 0.9405,
        };
        assert_eq!(calls_line(&c), "advisor calls $9.49 (6), refused attempts $0.94 (2), fallbacks $0.05 (1)\n");
    }
}
