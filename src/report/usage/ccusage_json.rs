//! `--json-format ccusage`: the daily, monthly and session reports in the
//! shape ccusage 20 prints with `--json`, so scripts and widgets written
//! for it keep working: `{"daily"|"monthly"|"session": [rows], "totals"}`,
//! a row's tokens camelCased (`cacheCreationTokens` is both write TTLs),
//! `totalTokens`, `totalCost`, `modelsUsed` and `modelBreakdowns` (costliest
//! first; fast mode folded into its model, which ccusage does not tell
//! apart). The figures are cachewise's own (`docs/ccusage.md` says where
//! they differ from ccusage's). Formatting only.

use super::{Totals, UsageReport, UsageRow};
use crate::report::query::{Grouping, FAST_SUFFIX};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The reports ccusage has a JSON shape for.
pub fn supported(g: Grouping) -> bool {
    matches!(g, Grouping::Daily | Grouping::Monthly | Grouping::Session)
}

/// The report in ccusage's shape (None: a grouping ccusage has no report of).
pub fn render(r: &UsageReport) -> Option<Value> {
    let key = match r.grouping {
        Grouping::Daily => "daily",
        Grouping::Monthly => "monthly",
        Grouping::Session => "session",
        _ => return None,
    };
    let rows: Vec<Value> = r.rows.iter().map(|row| row_json(r.grouping, row)).collect();
    Some(json!({ key: rows, "totals": tokens(&r.total) }))
}

/// The token and cost keys every row, breakdown and total carries.
fn tokens(t: &Totals) -> Value {
    let k = &t.tokens;
    let creation = k.cache_write_5m + k.cache_write_1h;
    json!({
        "inputTokens": k.input,
        "outputTokens": k.output,
        "cacheCreationTokens": creation,
        "cacheReadTokens": k.cache_read,
        "totalCost": t.cost_usd,
        "totalTokens": k.input + k.output + creation + k.cache_read,
    })
}

fn row_json(g: Grouping, row: &UsageRow) -> Value {
    let models = by_model(row);
    let mut v = tokens(&row.totals);
    let mut used: Vec<&str> = models.iter().map(|(m, _)| m.as_str()).collect();
    if g != Grouping::Session {
        used.sort_unstable();
    }
    let (agent, metadata) = match g {
        Grouping::Session => {
            ("claude", json!({ "lastActivity": row.last.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string() }))
        }
        _ => ("all", json!({ "agents": ["claude"] })),
    };
    let breakdowns: Vec<Value> = models.iter().map(|(m, t)| breakdown(m, t)).collect();
    if let Value::Object(o) = &mut v {
        o.insert("period".into(), json!(row.key));
        o.insert("agent".into(), json!(agent));
        o.insert("metadata".into(), metadata);
        o.insert("modelsUsed".into(), json!(used));
        o.insert("modelBreakdowns".into(), json!(breakdowns));
    }
    v
}

/// One model's part: ccusage names its cost `cost`, not `totalCost`, and
/// gives no `totalTokens`.
fn breakdown(model: &str, t: &Totals) -> Value {
    let mut v = tokens(t);
    if let Value::Object(o) = &mut v {
        o.remove("totalTokens");
        if let Some(cost) = o.remove("totalCost") {
            o.insert("cost".into(), cost);
        }
        o.insert("modelName".into(), json!(model));
    }
    v
}

/// The row's models, fast mode folded in, costliest first (ties by name).
fn by_model(row: &UsageRow) -> Vec<(String, Totals)> {
    let mut sum: BTreeMap<String, Totals> = BTreeMap::new();
    for (m, t) in &row.models {
        let e = sum.entry(m.strip_suffix(FAST_SUFFIX).unwrap_or(m).to_owned()).or_default();
        *e = *e + *t;
    }
    let mut out: Vec<(String, Totals)> = sum.into_iter().collect();
    out.sort_by(|a, b| b.1.cost_usd.total_cmp(&a.1.cost_usd).then_with(|| a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenCounts;
    use chrono::TimeZone;

    fn totals(input: u64, cost: f64) -> Totals {
        let tokens = TokenCounts { input, output: 10, cache_write_5m: 100, cache_write_1h: 50, cache_read: 1000 };
        Totals { requests: 1, tokens, cost_usd: cost }
    }

    #[test]
    fn a_day_in_ccusages_shape() {
        let t = chrono::Utc.with_ymd_and_hms(2026, 2, 11, 20, 0, 0).unwrap();
        let row = UsageRow {
            key: "2026-02-11".into(),
            first: t,
            last: t,
            totals: totals(3, 1.5) + totals(2, 0.5) + totals(1, 0.25),
            models: vec![
                ("claude-sonnet-4-5".into(), totals(2, 0.5)),
                ("claude-opus-4-6".into(), totals(3, 1.5)),
                ("claude-opus-4-6 (fast)".into(), totals(1, 0.25)),
            ],
            project: String::new(),
            title: String::new(),
            cache: None,
            calls: None,
            used: None,
            project_path: None,
        };
        let r = UsageReport { rows: vec![row], ..UsageReport::empty(Grouping::Daily) };
        let v = render(&r).unwrap();
        let day = &v["daily"][0];
        assert_eq!(day["period"], "2026-02-11");
        assert_eq!(day["cacheCreationTokens"], 450);
        assert_eq!(day["totalTokens"], 6 + 30 + 450 + 3000);
        assert_eq!(day["modelsUsed"], json!(["claude-opus-4-6", "claude-sonnet-4-5"]));
        assert_eq!(day["modelBreakdowns"][0]["modelName"], "claude-opus-4-6", "fast mode folded in");
        assert_eq!(day["modelBreakdowns"][0]["cost"], 1.75);
        assert_eq!(day["modelBreakdowns"][0].get("totalTokens"), None);
        assert_eq!(day["metadata"], json!({"agents": ["claude"]}));
        assert_eq!(v["totals"].as_object().map(|o| o.len()), Some(6));
    }
}
