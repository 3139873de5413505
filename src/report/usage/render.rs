//! Output of usage reports: JSON (the documented contract), CSV (the JSON
//! rows' columns) and the terminal table (`usage::table`). Formatting
//! only; the numbers come from `report::usage`.

use super::{Totals, UsageReport, UsageRow};
use crate::model::format::{thousands, usd};
use crate::report::calls::CallTotals;
use crate::report::cell::CsvTable;
use crate::report::fit::Layout;
use crate::report::query::Grouping;
use serde_json::{json, Map, Value};

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    /// ccusage 20's JSON (`usage::ccusage_json`).
    CcusageJson,
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
    if g == Grouping::Project {
        m.insert("project_path".into(), json!(r.project_path));
    }
    if g == Grouping::Session {
        m.insert("project".into(), json!(r.project));
        m.insert("project_path".into(), json!(r.project_path));
        m.insert("title".into(), json!(r.title));
        let used = r.used.clone().unwrap_or_default();
        m.insert("model_names".into(), json!(used.names));
        m.insert("fast_requests".into(), json!(used.fast_requests));
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

/// Advisor calls, fallback calls, refused attempts and calls Claude Code
/// did not write down, as the JSON contract names them.
pub fn calls_json(c: &CallTotals) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("unlogged_calls".into(), json!(c.unlogged_calls));
    m.insert("unlogged_cost_usd".into(), json!(c.unlogged_cost_usd));
    m.insert("compaction_summary_calls".into(), json!(c.compaction_summary_calls));
    m.insert("compaction_summary_cost_usd".into(), json!(c.compaction_summary_cost_usd));
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

/// Renders a usage report in the chosen format (a table in `layout`).
pub fn usage(r: &UsageReport, format: Format, layout: Layout) -> String {
    match format {
        Format::Json => crate::report::term::json(&usage_json(r)).unwrap_or_default(),
        Format::CcusageJson => {
            super::ccusage_json::render(r).and_then(|v| crate::report::term::json(&v).ok()).unwrap_or_default()
        }
        Format::Csv => usage_csv(r),
        Format::Table => super::table::usage_table(r, layout),
    }
}

/// The CSV of a report: one row per JSON row, a column per JSON key (in
/// the JSON's order; a list's items joined by `;`, null empty). With
/// `--breakdown` (not by model) a `model` column follows the key: each
/// row, then one row per model with the key columns and that model's
/// tokens and cost, the other cells empty.
fn usage_csv(r: &UsageReport) -> String {
    let rows: Vec<Map<String, Value>> = r
        .rows
        .iter()
        .filter_map(|row| match row_json(r.grouping, row) {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .collect();
    let breakdown = r.grouping != Grouping::Model && r.rows.iter().any(|row| !row.models.is_empty());
    let mut header = csv_header(r, rows.first());
    if breakdown {
        header.insert(1, "model".to_owned());
    }
    let mut w = CsvTable::new();
    w.row(header.iter().cloned());
    let keys = [r.grouping.key_name(), "project", "project_path", "title", "model_names", "first", "last"];
    for (row, m) in r.rows.iter().zip(&rows) {
        w.row(header.iter().map(|h| m.get(h).map(csv_value).unwrap_or_default()));
        if !breakdown {
            continue;
        }
        for (model, t) in &row.models {
            let own = totals_json(t);
            w.row(header.iter().map(|h| match h.as_str() {
                "model" => model.clone(),
                k if keys.contains(&k) => m.get(k).map(csv_value).unwrap_or_default(),
                k => own.get(k).map(csv_value).unwrap_or_default(),
            }));
        }
    }
    w.finish()
}

/// The CSV's columns: the key, the session's names and times, the totals,
/// then every other key of the JSON rows in their order.
fn csv_header(r: &UsageReport, first: Option<&Map<String, Value>>) -> Vec<String> {
    let lead =
        [r.grouping.key_name(), "project", "project_path", "title", "model_names", "fast_requests", "first", "last"];
    let Some(m) = first else {
        return [r.grouping.key_name(), "first", "last"].iter().chain(&TOTAL_KEYS).map(|k| (*k).to_owned()).collect();
    };
    let mut out: Vec<String> = Vec::new();
    for k in lead.iter().chain(&TOTAL_KEYS) {
        if m.contains_key(*k) && !out.iter().any(|o| o == k) {
            out.push((*k).to_owned());
        }
    }
    let rest: Vec<String> = m.keys().filter(|k| *k != "models" && !out.contains(*k)).cloned().collect();
    out.extend(rest);
    out
}

/// The keys of `totals_json`, in the order a table shows them.
const TOTAL_KEYS: [&str; 7] = [
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "cache_read_tokens",
    "cost_usd",
];

/// A JSON value as a CSV cell: text as is, numbers as JSON writes them,
/// null empty, a list's items joined by `;`.
pub fn csv_value(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(csv_value).collect::<Vec<_>>().join(";"),
        other => other.to_string(),
    }
}

/// One line on advisor calls, refused attempts, fallbacks and calls Claude
/// Code did not write down, costs first and counts in brackets; only those
/// there were ("" when none).
pub fn calls_line(c: &CallTotals) -> String {
    let mut parts = Vec::new();
    let mut add = |n: u64, cost: f64, what: &str| {
        if n > 0 {
            parts.push(format!("{what} {} ({})", usd(cost), thousands(n)));
        }
    };
    add(c.advisor_calls, c.advisor_cost_usd, "advisor calls");
    add(c.refused_calls, c.refused_cost_usd, "refused attempts");
    add(c.fallback_calls, c.fallback_cost_usd, "fallbacks");
    add(
        c.compaction_summary_calls,
        c.compaction_summary_cost_usd,
        "compaction summaries Claude Code did not write down",
    );
    let other = c.unlogged_calls - c.compaction_summary_calls;
    add(other, c.unlogged_cost_usd - c.compaction_summary_cost_usd, "other calls Claude Code did not write down");
    match parts.is_empty() {
        true => String::new(),
        false => parts.join(", ") + "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ..CallTotals::default()
        };
        assert_eq!(calls_line(&c), "advisor calls $9.49 (6), refused attempts $0.94 (2), fallbacks $0.05 (1)\n");
        let only = CallTotals::unlogged(crate::model::UNLOGGED_COMPACTION, 0.0107)
            + CallTotals::unlogged(crate::model::UNLOGGED_OTHER, 0.02);
        assert_eq!(
            calls_line(&only),
            "compaction summaries Claude Code did not write down $0.01 (1), \
             other calls Claude Code did not write down $0.02 (1)\n",
            "only what there was, in words"
        );
    }
}
