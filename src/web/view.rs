//! Number and time formatting for the pages: every template calls these
//! through the `Formats` trait its page implements, so a dollar or a token
//! count looks the same everywhere. Formatting only; no figure is computed
//! here.

use crate::model::format;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// A number a template can format, whether askama hands it by value or by
/// reference.
pub trait Num {
    fn value(&self) -> f64;
}

impl Num for f64 {
    fn value(&self) -> f64 {
        *self
    }
}

impl Num for u64 {
    fn value(&self) -> f64 {
        *self as f64
    }
}

impl Num for u32 {
    fn value(&self) -> f64 {
        f64::from(*self)
    }
}

impl Num for i32 {
    fn value(&self) -> f64 {
        f64::from(*self)
    }
}

impl Num for usize {
    fn value(&self) -> f64 {
        *self as f64
    }
}

impl<T: Num + ?Sized> Num for &T {
    fn value(&self) -> f64 {
        (**self).value()
    }
}

/// `$1,234.57`, `-$1.23`, `<$0.01` (`model::format::usd`).
pub fn usd(x: impl Num) -> String {
    format::usd(x.value())
}

/// `1,234,567`.
pub fn num(x: impl Num) -> String {
    format::thousands(x.value().max(0.0).round() as u64)
}

/// `1.2M`, `34k`, `512` (`model::format::tokens`).
pub fn tokens(x: impl Num) -> String {
    format::tokens(x.value())
}

/// `93.4%`, or `–` when there is nothing to divide.
pub fn pct(x: Option<f64>) -> String {
    format::percent(x)
}

/// `4m 10s`, `2h 05m`, `3d 4h` (`model::format::duration`).
pub fn duration(seconds: impl Num) -> String {
    format::duration(seconds.value())
}

/// A time in the dashboard's zone: `2026-11-03 14:05`.
pub fn local(t: &DateTime<Utc>, tz: Tz) -> String {
    t.with_timezone(&tz).format("%Y-%m-%d %H:%M").to_string()
}

/// A time of day in the dashboard's zone: `14:05:09`.
pub fn clock(t: &DateTime<Utc>, tz: Tz) -> String {
    t.with_timezone(&tz).format("%H:%M:%S").to_string()
}

/// The formatting helpers as methods, so templates can call `usd(x)`.
pub trait Formats {
    /// The zone times are shown in.
    fn tz(&self) -> Tz;
    fn usd(&self, x: impl Num) -> String {
        usd(x)
    }
    fn num(&self, x: impl Num) -> String {
        num(x)
    }
    fn tokens(&self, x: impl Num) -> String {
        tokens(x)
    }
    /// `1 call`, `2 calls`: a count and its noun (`report::labels::plural`).
    fn count(&self, x: impl Num, one: &str, many: &str) -> String {
        crate::report::labels::plural(x.value().max(0.0).round() as u64, one, many)
    }
    fn pct(&self, x: &Option<f64>) -> String {
        pct(*x)
    }
    fn duration(&self, x: impl Num) -> String {
        duration(x)
    }
    fn local(&self, t: &DateTime<Utc>) -> String {
        local(t, self.tz())
    }
    fn clock(&self, t: &DateTime<Utc>) -> String {
        clock(t, self.tz())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(usd(1234.567), "$1,234.57");
        assert_eq!(usd(0.001), "<$0.01");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(-2.5), "-$2.50");
        assert_eq!(num(1_234_567u64), "1,234,567");
        assert_eq!(tokens(1_500_000u64), "1.5M");
        assert_eq!(tokens(45_000u64), "45k");
        assert_eq!(pct(Some(0.934)), "93.4%");
        assert_eq!(pct(None), "–");
        assert_eq!(duration(250.0), "4m 10s");
        assert_eq!(duration(7500.0), "2h 05m");
    }
}
