//! How a figure reads, in one place: dollars, counts and their nouns,
//! tokens, shares and durations. The terminal, the pages (through
//! `web::view`'s template helpers), the charts, the advice, the status line
//! and the hook all call these, so one figure reads the same everywhere.
//! It sits at the bottom of the pipeline so the cache model's own sentences
//! (`analyze`, which must not import `report`) use it too. Formatting only;
//! nothing is computed here.

use std::fmt::Write;

/// `$1,234.57`, `-$1.23`, `$0.00`, `<$0.01` (and `-<$0.01`) for a nonzero
/// amount under half a cent; `n/a` for a value that is not a number.
pub fn usd(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    if a > 0.0 && a < 0.005 {
        return format!("{sign}<$0.01");
    }
    let cents = (a * 100.0).round();
    if cents == 0.0 {
        return "$0.00".to_owned();
    }
    // Below 2^53 cents every whole number of cents is exact.
    let cents = cents.min(9_007_199_254_740_992.0) as u64;
    let mut out = format!("{sign}$");
    out.push_str(&thousands(cents / 100));
    let _ = write!(out, ".{:02}", cents % 100);
    out
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

/// `1 person`, `2 people`, `0 turns`: a count and its noun, with
/// thousands separators.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    let count = thousands(n);
    if n == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Tokens in a table cell: `1.2M`, `34k`, `1.2k`, `512`.
pub fn tokens(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Tokens in a sentence or on a chart's axis: `1.2M`, `182k`, `512`.
pub fn tokens_rounded(n: f64) -> String {
    if n.abs() >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if n.abs() >= 1e3 {
        format!("{:.0}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// A share: `93.4%`, or `–` when there is nothing to divide.
pub fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "–".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

/// A duration in a table cell: `45s`, `4m 10s`, `2h 05m`, `3d 4h`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        3600..86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
    }
}

/// A duration in a sentence, in the largest sensible unit: `45 s`,
/// `12 min`, `1.5 h`, `2.0 days`.
pub fn duration_words(secs: f64) -> String {
    let s = secs.abs();
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 90.0 * 60.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 48.0 * 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86400.0)
    }
}

/// Time left on the status line, as short as it gets: `3:12` under ten
/// minutes, `25m` / `2h05m` for longer spans, `3d` past two days.
pub fn clock_span(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..=599 => format!("{}:{:02}", s / 60, s % 60),
        600..=3599 => format!("{}m", s / 60),
        3600..=172_799 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d", s / 86_400),
    }
}

/// A stored RFC 3339 time in `tz`: `2026-12-07 15:09:20 UTC`; "unknown"
/// when it does not read.
pub fn local_stamp(stored: &str, tz: chrono_tz::Tz) -> String {
    chrono::DateTime::parse_from_rfc3339(stored)
        .map_or_else(|_| "unknown".to_owned(), |t| t.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S %Z").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_reads_in_the_zone_it_names() {
        let at = "2026-12-07T15:09:20.123+00:00";
        assert_eq!(local_stamp(at, chrono_tz::UTC), "2026-12-07 15:09:20 UTC");
        assert_eq!(local_stamp(at, chrono_tz::Asia::Seoul), "2026-12-08 00:09:20 KST");
        assert_eq!(local_stamp("\u{1b}[31mnot a time", chrono_tz::UTC), "unknown");
    }

    #[test]
    fn dollars_keep_their_sign_and_cents() {
        assert_eq!(usd(-1.234), "-$1.23");
        assert_eq!(usd(-1234.5), "-$1,234.50");
        assert_eq!(usd(-0.004), "-<$0.01");
        assert_eq!(usd(-0.0), "$0.00");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.001), "<$0.01");
        assert_eq!(usd(0.005), "$0.01");
        assert_eq!(usd(125.2349), "$125.23");
        assert_eq!(usd(1_234_567.891), "$1,234,567.89");
        assert_eq!(usd(f64::NAN), "n/a");
    }

    #[test]
    fn counts_and_nouns() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(plural(1, "turn", "turns"), "1 turn");
        assert_eq!(plural(0, "turn", "turns"), "0 turns");
        assert_eq!(plural(1200, "person", "people"), "1,200 people");
    }

    #[test]
    fn tokens_shares_and_durations() {
        assert_eq!(
            (tokens(512.0), tokens(1234.0), tokens(34_000.0), tokens(1_234_567.0)),
            ("512".into(), "1.2k".into(), "34k".into(), "1.2M".into())
        );
        assert_eq!(
            (tokens_rounded(512.0), tokens_rounded(182_400.0), tokens_rounded(1_250_000.0)),
            ("512".into(), "182k".into(), "1.2M".into())
        );
        assert_eq!((percent(Some(0.934)), percent(None)), ("93.4%".into(), "–".into()));
        assert_eq!(
            (duration(45.0), duration(250.0), duration(7500.0), duration(280_000.0)),
            ("45s".into(), "4m 10s".into(), "2h 05m".into(), "3d 5h".into())
        );
        assert_eq!(
            (duration_words(45.0), duration_words(720.0), duration_words(5400.0), duration_words(172_800.0)),
            ("45 s".into(), "12 min".into(), "1.5 h".into(), "2.0 days".into())
        );
        assert_eq!(
            (clock_span(192), clock_span(1500), clock_span(7500), clock_span(300_000)),
            ("3:12".into(), "25m".into(), "2h05m".into(), "3d".into())
        );
    }
}
