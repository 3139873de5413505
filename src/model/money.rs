//! Dollar amounts: their sum and their display. `sum` adds from +0.0, so an
//! empty or all-zero total is `0.0`, never the `-0.0` that `Iterator::sum`
//! over `f64` gives for nothing (which JSON prints as `-0.0`). `usd` is the
//! one dollar format of every terminal table, text, Markdown report and
//! page: sign-correct (`-$1.23`), thousands separated, cents, and `<$0.01`
//! for amounts that would round to zero but are not.

use std::fmt::Write;

/// The sum of `amounts`, `0.0` (not `-0.0`) when there are none.
pub fn sum<I: IntoIterator<Item = f64>>(amounts: I) -> f64 {
    amounts.into_iter().fold(0.0, |a, b| a + b) + 0.0
}

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
    out.push_str(&super::count::thousands(cents / 100));
    let _ = write!(out, ".{:02}", cents % 100);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_dollars_keep_their_sign() {
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
    fn sums_have_no_negative_zero() {
        let none: [f64; 0] = [];
        assert!(sum(none).is_sign_positive());
        assert!(sum([-0.0, -0.0]).is_sign_positive());
        assert_eq!(sum([1.5, -0.5, 2.0]), 3.0);
        assert_eq!(serde_json::to_string(&sum(none)).unwrap(), "0.0");
    }
}
