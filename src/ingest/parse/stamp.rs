//! A transcript line's `timestamp`: RFC 3339, as chrono reads it. Claude
//! Code writes one form, `2026-02-01T10:00:00.123Z`; that form is read here
//! from its bytes (chrono's general parser was a few percent of a cold
//! ingest), and anything else goes to chrono, which also names the error.

use chrono::{DateTime, NaiveDate, ParseError, Utc};

/// The instant `ts` names, or chrono's error.
pub(super) fn parse(ts: &str) -> Result<DateTime<Utc>, ParseError> {
    match utc_z(ts.as_bytes()) {
        Some(t) => Ok(t),
        None => DateTime::parse_from_rfc3339(ts).map(|t| t.with_timezone(&Utc)),
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` with a valid date and a second below
/// 60 (a leap second, an offset or any other form: `None`).
fn utc_z(b: &[u8]) -> Option<DateTime<Utc>> {
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        b.get(r)?.iter().try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':') && b.last() == Some(&b'Z')) {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    let nanos = match b.len() {
        20 => 0,
        n if (22..=30).contains(&n) && at(19, b'.') => digits(20..n - 1)? * 10u32.pow(30 - n as u32),
        _ => return None,
    };
    if second > 59 {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    Some(date.and_hms_nano_opt(hour, minute, second, nanos)?.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono(ts: &str) -> Result<DateTime<Utc>, ParseError> {
        DateTime::parse_from_rfc3339(ts).map(|t| t.with_timezone(&Utc))
    }

    #[test]
    fn the_usual_form_reads_as_chrono_reads_it() -> Result<(), ParseError> {
        for ts in [
            "2026-02-01T10:00:00.123Z",
            "2025-03-10T12:36:26.585Z",
            "2024-02-29T23:59:59.999Z",
            "2026-02-01T10:00:00Z",
            "2026-02-01T10:00:00.1Z",
            "2026-02-01T10:00:00.123456789Z",
            "0001-01-01T00:00:00.000Z",
        ] {
            assert_eq!(utc_z(ts.as_bytes()), Some(chrono(ts)?), "{ts}");
            assert_eq!(parse(ts)?.timestamp_millis(), chrono(ts)?.timestamp_millis());
        }
        Ok(())
    }

    #[test]
    fn other_forms_and_bad_stamps_go_to_chrono() {
        for ts in [
            "2026-02-01T10:00:00+02:00",
            "2026-02-01t10:00:00Z",
            "2026-02-01 10:00:00Z",
            "2016-12-31T23:59:60.000Z",
            "2026-02-01T10:00:00.Z",
            "2026-02-01T10:00:00.1234567890Z",
        ] {
            assert_eq!(utc_z(ts.as_bytes()), None, "{ts}");
            assert_eq!(parse(ts), chrono(ts), "{ts}");
        }
        for bad in [
            "2026-02-30T10:00:00.000Z",
            "2026-13-01T10:00:00Z",
            "2026-02-01T24:00:00Z",
            "2026-0a-01T10:00:00Z",
            "",
            "Z",
        ] {
            assert_eq!(utc_z(bad.as_bytes()), None, "{bad}");
            assert!(parse(bad).is_err(), "{bad}");
            assert_eq!(parse(bad), chrono(bad), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_stamp_reads_as_chrono_reads_it(
            y in 0u32..10_000, mo in 0u32..14, d in 0u32..33, h in 0u32..25, mi in 0u32..61, sec in 0u32..61,
            frac in proptest::option::of("[0-9]{1,10}"),
        ) {
            let frac = frac.map(|f| format!(".{f}")).unwrap_or_default();
            let ts = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}{frac}Z");
            proptest::prop_assert_eq!(parse(&ts), chrono(&ts), "{}", ts);
        }
    }
}
