//! The cache's health per Claude Code version (cache model v4): for each
//! version the thread requests ran on, when it was first and last used,
//! how much of the prompt was read from cache, and the misses within the
//! TTL (edits of the prompt, shape and version changes: what a release that
//! breaks the cache makes) with their cost. Read from the stored analysis
//! rows the `cache` report covers (one read for this and `cache_context`);
//! nothing is classified here.

use super::ReportError;
use crate::analyze::CacheClass;
use crate::model::columns as c;
use crate::model::count::thousands;
use crate::model::money::usd;
use crate::model::TokenCounts;
use crate::store::frames::Cols;
use chrono::{DateTime, Utc};
use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{Cell, CellAlignment, Table};
use polars::prelude::DataFrame;
use serde::Serialize;
use std::collections::BTreeMap;

/// One Claude Code version's cache figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionHealth {
    /// As the transcripts wrote it (empty: not written).
    pub version: String,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    /// Thread requests (the cache model's count).
    pub requests: u64,
    /// Cache reads over the prompt tokens (None without prompt tokens).
    pub hit_ratio_tokens: Option<f64>,
    /// Misses of a cache still within its TTL (any miss but an expiry).
    pub misses_within_ttl: u64,
    /// What they cost over warm reads.
    pub misses_within_ttl_usd: f64,
    /// The requests' cost.
    pub cost_usd: f64,
}

/// The analysis columns the figures are read from (`cache_context` reads
/// its bands from the same rows).
pub const COLUMNS: [&str; 10] = [
    c::VERSION,
    c::TIME,
    c::CLASS,
    c::MISS_COST_USD,
    c::ACTUAL_USD,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::OUTPUT,
];

/// The versions of `df` (the analysis rows a report selects, with
/// `COLUMNS`), in the order they were first used.
pub fn by_version(df: &DataFrame) -> Result<Vec<VersionHealth>, ReportError> {
    if df.height() == 0 {
        return Ok(Vec::new());
    }
    let k = Cols(df);
    let (version, time, class) = (k.str(c::VERSION)?, k.time(c::TIME)?, k.str(c::CLASS)?);
    let (miss, cost) = (k.f64(c::MISS_COST_USD)?, k.f64(c::ACTUAL_USD)?);
    let tokens = k.tokens()?;
    let mut by: BTreeMap<&str, (VersionHealth, u64, u64)> = BTreeMap::new();
    for i in 0..df.height() {
        let (v, read, prompt) = by.entry(version[i]).or_insert_with(|| (empty(version[i], time[i]), 0, 0));
        v.first = v.first.min(time[i]);
        v.last = v.last.max(time[i]);
        v.requests += 1;
        v.cost_usd += cost[i];
        if CacheClass::parse(class[i]).is_some_and(|k| k.is_miss() && !k.is_idle()) {
            v.misses_within_ttl += 1;
            v.misses_within_ttl_usd += miss[i];
        }
        let t: TokenCounts = tokens[i];
        (*read, *prompt) = (*read + t.cache_read, *prompt + t.prompt());
    }
    let mut out: Vec<VersionHealth> = by
        .into_values()
        .map(|(mut v, read, prompt)| {
            v.hit_ratio_tokens = (prompt > 0).then(|| read as f64 / prompt as f64);
            v
        })
        .collect();
    out.sort_by(|a, b| a.first.cmp(&b.first).then_with(|| a.version.cmp(&b.version)));
    Ok(out)
}

fn empty(version: &str, at: DateTime<Utc>) -> VersionHealth {
    VersionHealth {
        version: version.to_owned(),
        first: at,
        last: at,
        requests: 0,
        hit_ratio_tokens: None,
        misses_within_ttl: 0,
        misses_within_ttl_usd: 0.0,
        cost_usd: 0.0,
    }
}

/// Versions a terminal table shows at most: those whose misses within the
/// TTL cost most (JSON lists every one).
const SHOWN: usize = 10;

/// The `SHOWN` versions whose misses within the TTL cost most, in the order
/// they were first used: what the terminal table and the `/cache` page show.
pub fn costliest(versions: &[VersionHealth]) -> Vec<&VersionHealth> {
    let mut by_cost: Vec<&VersionHealth> = versions.iter().collect();
    by_cost.sort_by(|a, b| b.misses_within_ttl_usd.total_cmp(&a.misses_within_ttl_usd));
    by_cost.truncate(SHOWN);
    versions.iter().filter(|v| by_cost.contains(v)).collect()
}

/// The versions as a terminal table (nothing for fewer than two: there is
/// nothing to compare), the costliest `SHOWN` in the order they were used.
pub fn render(versions: &[VersionHealth]) -> String {
    if versions.len() < 2 {
        return String::new();
    }
    let shown = costliest(versions);
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(["Version", "First used", "Requests", "Cached", "Misses in TTL", "Their cost"]);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    for v in &shown {
        let version = if v.version.is_empty() { "(not written)" } else { v.version.as_str() };
        t.add_row(vec![
            Cell::new(super::cell::shorten(&super::cell::term(version), 16)),
            Cell::new(v.first.format("%Y-%m-%d").to_string()),
            right(thousands(v.requests)),
            right(v.hit_ratio_tokens.map_or_else(|| "-".to_owned(), |r| format!("{:.1}%", r * 100.0))),
            right(thousands(v.misses_within_ttl)),
            right(usd(v.misses_within_ttl_usd)),
        ]);
    }
    let more = match versions.len() - shown.len() {
        0 => String::new(),
        n => format!("{n} other versions cost less (`cache --json` lists every one in `by_version`).\n"),
    };
    let head = "By Claude Code version (Cached: prompt tokens read from cache; a release that breaks the \
                cache shows as misses within the TTL):";
    format!("{head}\n{t}\n{more}")
}
