//! The cache's health per Claude Code version (cache model v4): for each
//! version the thread requests ran on, when it was first and last used,
//! how much of the prompt was read from cache, and the misses within the
//! TTL (edits of the prompt, shape and version changes: what a release that
//! breaks the cache makes) with their cost. Read from the stored analysis
//! rows the `cache` report covers (one read for this and `cache::context`);
//! nothing is classified here.

use super::splits::SplitRows;
use crate::model::format::usd;
use crate::model::format::{plural, thousands};
use crate::model::TokenCounts;
use chrono::{DateTime, Utc};
use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{Cell, CellAlignment, Table};
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
    pub hit_ratio: Option<f64>,
    /// Misses of a cache still within its TTL (any miss but an expiry):
    /// what a release that breaks the cache makes.
    pub misses_within_ttl: u64,
    /// What they cost over warm reads.
    pub misses_within_ttl_usd: f64,
    /// `misses_within_ttl` per 100 requests.
    pub misses_per_100: f64,
    /// `misses_within_ttl_usd` per 100 requests.
    pub miss_cost_per_100_usd: f64,
    /// Every miss (expiries too) per 100 requests, by class.
    pub by_cause: BTreeMap<&'static str, CauseRate>,
    /// The requests' cost.
    pub cost_usd: f64,
    /// Worse than the previous version beyond chance (`flag`).
    pub flagged: bool,
    /// Why, in words, when flagged.
    pub why: Option<String>,
}

/// One cause's misses per 100 requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CauseRate {
    pub misses: u64,
    /// Their miss cost.
    pub miss_cost_usd: f64,
    pub misses_per_100: f64,
    pub miss_cost_per_100_usd: f64,
}

/// The versions of the rows a report selects, counted a batch at a time.
#[derive(Debug, Default)]
pub struct VersionTally {
    by: BTreeMap<String, Sums>,
}

/// One version's figures while its rows are counted: with its cache reads
/// and prompt tokens, and its first and last time (UTC milliseconds).
#[derive(Debug)]
struct Sums {
    health: VersionHealth,
    read: u64,
    prompt: u64,
    first_ms: i64,
    last_ms: i64,
}

impl VersionTally {
    /// Counts a batch's `rows`. Rows come grouped by session, a session
    /// mostly on one version: a version is looked up once per run of rows.
    pub fn add(&mut self, rows: &SplitRows) {
        let mut i = 0;
        while i < rows.rows() {
            let version = rows.version[i];
            let sums = match self.by.get_mut(version) {
                Some(sums) => sums,
                None => self.by.entry(version.to_owned()).or_insert_with(|| Sums::new(version, rows.time_ms[i])),
            };
            while i < rows.rows() && rows.version[i] == version {
                sums.add(rows, i);
                i += 1;
            }
        }
    }

    /// The versions in release order, flagged.
    pub fn finish(self) -> Vec<VersionHealth> {
        let mut out: Vec<VersionHealth> = self.by.into_values().map(Sums::finish).collect();
        out.sort_by(|a, b| {
            release_order(&a.version).cmp(&release_order(&b.version)).then_with(|| a.version.cmp(&b.version))
        });
        flag(&mut out);
        out
    }
}

impl Sums {
    fn new(version: &str, at_ms: i64) -> Sums {
        Sums { health: empty(version), read: 0, prompt: 0, first_ms: at_ms, last_ms: at_ms }
    }

    /// Adds row `i` of `rows`.
    fn add(&mut self, rows: &SplitRows, i: usize) {
        let v = &mut self.health;
        self.first_ms = self.first_ms.min(rows.time_ms[i]);
        self.last_ms = self.last_ms.max(rows.time_ms[i]);
        v.requests += 1;
        v.cost_usd += rows.actual_usd[i];
        if let Some(class) = rows.class[i].filter(|k| k.is_miss()) {
            let cause = v.by_cause.entry(class.as_str()).or_default();
            cause.misses += 1;
            cause.miss_cost_usd += rows.miss_usd[i];
            if !class.is_idle() {
                v.misses_within_ttl += 1;
                v.misses_within_ttl_usd += rows.miss_usd[i];
            }
        }
        let t: TokenCounts = rows.tokens(i);
        (self.read, self.prompt) = (self.read + t.cache_read, self.prompt + t.prompt());
    }

    fn finish(self) -> VersionHealth {
        let at = |ms: i64| DateTime::from_timestamp_millis(ms).unwrap_or_default();
        let v = VersionHealth { first: at(self.first_ms), last: at(self.last_ms), ..self.health };
        finish(v, self.read, self.prompt)
    }
}

/// The ratios of `v` once its rows are counted.
fn finish(mut v: VersionHealth, read: u64, prompt: u64) -> VersionHealth {
    let per_100 = |x: f64| x * 100.0 / v.requests.max(1) as f64;
    v.hit_ratio = (prompt > 0).then(|| read as f64 / prompt as f64);
    v.misses_per_100 = per_100(v.misses_within_ttl as f64);
    v.miss_cost_per_100_usd = per_100(v.misses_within_ttl_usd);
    for cause in v.by_cause.values_mut() {
        cause.misses_per_100 = per_100(cause.misses as f64);
        cause.miss_cost_per_100_usd = per_100(cause.miss_cost_usd);
    }
    v
}

/// `2.1.33` before `2.1.258`: the version's numbers (a part that is not a
/// number sorts as 0; a version not written sorts first).
fn release_order(version: &str) -> Vec<u64> {
    version.split(['.', '-']).map(|p| p.parse().unwrap_or(0)).collect()
}

/// Requests a version needs before it is compared (either side).
pub const FLAG_MIN_REQUESTS: u64 = 100;
/// How many standard errors worse a version's rate of misses within the
/// TTL must be than the previous version's to be flagged (one-sided, a
/// false alarm about once in 740 comparisons).
pub const FLAG_Z: f64 = 3.0;

/// Flags each version (with `FLAG_MIN_REQUESTS`) whose misses within the
/// TTL per request exceed the previous compared version's by `FLAG_Z`
/// standard errors of the difference of two proportions (pooled).
fn flag(versions: &mut [VersionHealth]) {
    let mut previous: Option<(String, u64, u64, f64)> = None;
    for v in versions.iter_mut().filter(|v| !v.version.is_empty() && v.requests >= FLAG_MIN_REQUESTS) {
        if let Some((name, n0, m0, per_100)) = &previous {
            let z = z_score(*m0, *n0, v.misses_within_ttl, v.requests);
            if z >= FLAG_Z {
                v.flagged = true;
                v.why = Some(format!(
                    "{:.1} misses while the cache was warm per 100 requests against {per_100:.1} on {name} ({} and {} requests, {z:.1} standard errors)",
                    v.misses_per_100,
                    thousands(v.requests),
                    thousands(*n0),
                ));
            }
        }
        previous = Some((v.version.clone(), v.requests, v.misses_within_ttl, v.misses_per_100));
    }
}

/// How many standard errors `m1 / n1` is above `m0 / n0` (0 when neither
/// side has a miss, or every request missed).
fn z_score(m0: u64, n0: u64, m1: u64, n1: u64) -> f64 {
    let (m0, n0, m1, n1) = (m0 as f64, n0 as f64, m1 as f64, n1 as f64);
    let pooled = (m0 + m1) / (n0 + n1);
    let se = (pooled * (1.0 - pooled) * (1.0 / n0 + 1.0 / n1)).sqrt();
    if se > 0.0 {
        (m1 / n1 - m0 / n0) / se
    } else {
        0.0
    }
}

/// A version of no rows yet (its times are set when its rows are counted).
fn empty(version: &str) -> VersionHealth {
    VersionHealth {
        version: version.to_owned(),
        first: DateTime::default(),
        last: DateTime::default(),
        requests: 0,
        hit_ratio: None,
        misses_within_ttl: 0,
        misses_within_ttl_usd: 0.0,
        misses_per_100: 0.0,
        miss_cost_per_100_usd: 0.0,
        by_cause: BTreeMap::new(),
        cost_usd: 0.0,
        flagged: false,
        why: None,
    }
}

/// Versions a terminal table shows at most: those whose misses within the
/// TTL cost most (JSON lists every one).
const SHOWN: usize = 10;

/// The `SHOWN` versions whose misses within the TTL cost most, and every
/// flagged one, in version order: what the terminal table and the `/cache`
/// page show.
pub fn costliest(versions: &[VersionHealth]) -> Vec<&VersionHealth> {
    let mut by_cost: Vec<&VersionHealth> = versions.iter().collect();
    by_cost.sort_by(|a, b| b.misses_within_ttl_usd.total_cmp(&a.misses_within_ttl_usd));
    by_cost.truncate(SHOWN);
    versions.iter().filter(|v| v.flagged || by_cost.contains(v)).collect()
}

/// A version as people read it.
pub fn version_words(v: &VersionHealth) -> String {
    if v.version.is_empty() {
        "(not written)".to_owned()
    } else {
        crate::report::cell::shorten(&crate::report::cell::term(&v.version), 16)
    }
}

/// The versions as a terminal table (nothing for fewer than two: there is
/// nothing to compare), the costliest `SHOWN` and the flagged ones, then a
/// line per flagged version.
pub fn render(versions: &[VersionHealth]) -> String {
    if versions.len() < 2 {
        return String::new();
    }
    let shown = costliest(versions);
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(["Version", "First used", "Requests", "Cached", "Misses/100", "Cost/100"]);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    for v in &shown {
        let mark = if v.flagged { " (worse)" } else { "" };
        t.add_row(vec![
            Cell::new(format!("{}{mark}", version_words(v))),
            Cell::new(v.first.format("%Y-%m-%d").to_string()),
            right(thousands(v.requests)),
            right(crate::model::format::percent(v.hit_ratio)),
            right(format!("{:.1}", v.misses_per_100)),
            right(usd(v.miss_cost_per_100_usd)),
        ]);
    }
    let mut notes = String::new();
    for v in shown.iter().filter(|v| v.flagged) {
        let why = v.why.as_deref().map(crate::report::cell::term).unwrap_or_default();
        notes += &format!("{} broke the cache more often: {why}.\n", version_words(v));
    }
    if let n @ 1.. = versions.len() - shown.len() {
        let others = plural(n as u64, "other version", "other versions");
        notes += &format!("{others} lost less to cache misses (`cache --json` lists every one in `versions`).\n");
    }
    let head = "By Claude Code version (Cached: prompt tokens read from cache; Misses/100 and Cost/100: misses \
                while the cache was warm, what a release that breaks the cache makes, per 100 requests):";
    format!("{head}\n{t}\n{notes}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(name: &str, requests: u64, misses: u64) -> VersionHealth {
        let mut v = empty(name);
        (v.requests, v.misses_within_ttl) = (requests, misses);
        finish(v, 0, 0)
    }

    #[test]
    fn versions_sort_by_their_numbers() {
        let mut names = ["2.1.258", "2.1.33", "", "2.1.9", "10.0.0"];
        names.sort_by_key(|v| release_order(v));
        assert_eq!(names, ["", "2.1.9", "2.1.33", "2.1.258", "10.0.0"]);
    }

    #[test]
    fn a_version_is_flagged_only_when_worse_than_the_previous_beyond_chance() {
        // 1 in 100 before; 3 in 100 is within chance (2.25 standard
        // errors), then 10 in 100 against 3 is not (3.08).
        let mut vs = vec![version("2.1.200", 1_000, 10), version("2.1.201", 200, 6), version("2.1.202", 500, 50)];
        flag(&mut vs);
        assert_eq!(vs.iter().map(|v| v.flagged).collect::<Vec<_>>(), [false, false, true]);
        assert_eq!(
            vs[2].why.as_deref(),
            Some("10.0 misses while the cache was warm per 100 requests against 3.0 on 2.1.201 (500 and 200 requests, 3.1 standard errors)")
        );
        // Too few requests to compare: not flagged, and not the baseline.
        let mut vs = vec![version("2.1.200", 1_000, 10), version("2.1.201", 50, 40), version("2.1.202", 1_000, 12)];
        flag(&mut vs);
        assert!(vs.iter().all(|v| !v.flagged));
    }
}
