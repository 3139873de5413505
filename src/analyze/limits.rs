//! Plan limits: from the status line's samples (`model::limits::Sample`)
//! and the priced requests between them, what 1% of a window costs in
//! list-price dollars and tokens, with how many intervals it rests on and
//! their spread. Too few intervals: no figure, and a reason in words.
//! Pure: the samples and requests come in.

use crate::model::limits::{Sample, Window, WindowKind};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Intervals (consecutive samples of one window whose use grew) needed
/// before an estimate is given.
pub const MIN_INTERVALS: usize = 3;
/// Two samples name the same window when their reset times differ by less.
const SAME_RESET_S: i64 = 120;

/// A priced request, as the estimate needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Priced {
    pub time: DateTime<Utc>,
    pub cost_usd: f64,
    /// Every token of the request (prompt and output).
    pub tokens: u64,
}

/// What 1% of a window costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimitEstimate {
    /// Intervals used (pairs of consecutive samples where use grew and
    /// requests were priced in between).
    pub intervals: usize,
    /// Dollars per 1%: all intervals' dollars over all their percentage
    /// points; None with fewer than `MIN_INTERVALS` intervals.
    pub usd_per_pct: Option<f64>,
    pub tokens_per_pct: Option<f64>,
    /// Lowest and highest dollars per 1% of one interval.
    pub spread_usd_per_pct: Option<[f64; 2]>,
    /// Why there is no figure, when there is none.
    pub note: Option<String>,
}

/// What 1% of `kind` costs, from `samples` and the `requests` between them
/// (both in any order).
pub fn estimate(samples: &[Sample], requests: &[Priced], kind: WindowKind) -> LimitEstimate {
    let mut points: Vec<(DateTime<Utc>, Window)> = samples.iter().filter_map(|s| Some((s.time, kind.of(s)?))).collect();
    points.sort_by_key(|p| p.0);
    let mut reqs: Vec<&Priced> = requests.iter().collect();
    reqs.sort_by_key(|r| r.time);
    let (mut usd, mut tokens, mut pct, mut ratios) = (0.0, 0u64, 0.0, Vec::new());
    for w in points.windows(2) {
        let ((ta, a), (tb, b)) = (w[0], w[1]);
        let same = match (a.resets_at, b.resets_at) {
            (Some(x), Some(y)) => (x - y).abs() < SAME_RESET_S,
            _ => false,
        };
        let d = b.used_pct - a.used_pct;
        if !same || d <= 0.0 {
            continue;
        }
        let from = reqs.partition_point(|r| r.time <= ta);
        let to = reqs.partition_point(|r| r.time <= tb);
        let span = &reqs[from..to];
        let dollars: f64 = span.iter().map(|r| r.cost_usd).sum();
        if dollars <= 0.0 {
            continue;
        }
        usd += dollars;
        tokens += span.iter().map(|r| r.tokens).sum::<u64>();
        pct += d;
        ratios.push(dollars / d);
    }
    let n = ratios.len();
    if n < MIN_INTERVALS {
        let note =
            format!(
                "not enough plan-limit readings yet: the status line has seen your 5-hour use rise {n} of the {MIN_INTERVALS} times an estimate needs"
            );
        return LimitEstimate {
            intervals: n,
            usd_per_pct: None,
            tokens_per_pct: None,
            spread_usd_per_pct: None,
            note: Some(note),
        };
    }
    let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratios.iter().copied().fold(0.0, f64::max);
    LimitEstimate {
        intervals: n,
        usd_per_pct: Some(usd / pct),
        tokens_per_pct: Some(tokens as f64 / pct),
        spread_usd_per_pct: Some([low, high]),
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::limits::fixtures::{sample, t};

    #[test]
    fn a_synthetic_series_gives_its_dollars_per_percent() {
        // Every 10 minutes use grows 2 points; in between 5 requests of
        // $0.50 and 10,000 tokens each: $2.50 / 2 = $1.25 and 25,000 tokens per 1%.
        let reset = t(300).timestamp();
        let samples: Vec<Sample> = (0..5).map(|k| sample(10 * k, 10.0 + 2.0 * k as f64, reset + k % 2)).collect();
        let requests: Vec<Priced> = (1..=200)
            .map(|m| Priced { time: t(m * 2 - 1), cost_usd: 0.5, tokens: 10_000 })
            .filter(|p| p.time < t(40))
            .collect();
        let e = estimate(&samples, &requests, WindowKind::FiveHour);
        assert_eq!(e.intervals, 4);
        assert_eq!(e.usd_per_pct, Some(1.25));
        assert_eq!(e.tokens_per_pct, Some(25_000.0));
        assert_eq!(e.spread_usd_per_pct, Some([1.25, 1.25]));
        assert_eq!(e.note, None);
        let none = estimate(&samples, &requests, WindowKind::SevenDay);
        assert_eq!(none.usd_per_pct, None);
    }

    #[test]
    fn a_reset_a_fall_or_too_few_intervals_give_no_figure() {
        let r = t(300).timestamp();
        // 10 -> 12 counts; 12 -> 5 is a new window (other reset); 5 -> 5 did not grow.
        let samples =
            [sample(0, 10.0, r), sample(10, 12.0, r), sample(20, 5.0, r + 18_000), sample(30, 5.0, r + 18_000)];
        let requests: Vec<Priced> = (0..30).map(|m| Priced { time: t(m), cost_usd: 1.0, tokens: 1 }).collect();
        let e = estimate(&samples, &requests, WindowKind::FiveHour);
        assert_eq!(e.intervals, 1);
        assert_eq!(e.usd_per_pct, None);
        assert!(e.note.unwrap().contains("5-hour use rise 1 of the 3 times"), "words, not keys");
    }
}
