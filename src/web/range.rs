//! The date range every page shows and keeps: `since` and `until` (local
//! days, either may be open), the presets (today, 7 days, 30 days, this
//! month, all), `by` (day, week or month: how a page groups its days) and
//! the day weeks start on (`start_of_week`, else the server's
//! `--start-of-week`).
//! A `Range` is resolved once per request from its parameters and the
//! snapshot's clock; it says in words which days a page shows and builds
//! the links that keep it across pages.

use super::error::WebError;
use super::params::{encode, Params};
use crate::report::query::Grouping;
use chrono::{Datelike, Days, NaiveDate, Weekday};

/// How a page groups its days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum By {
    #[default]
    Day,
    /// Weeks, from the range's `week_start`.
    Week,
    Month,
}

impl By {
    /// Every grouping, with its parameter value and its words.
    pub const ALL: [(By, &'static str, &'static str); 3] =
        [(By::Day, "day", "per day"), (By::Week, "week", "per week"), (By::Month, "month", "per month")];

    /// The `by` parameter's value.
    pub fn name(self) -> &'static str {
        By::ALL.iter().find(|(b, _, _)| *b == self).map_or("day", |(_, n, _)| n)
    }

    /// The usage report's grouping.
    pub fn grouping(self) -> Grouping {
        match self {
            By::Day => Grouping::Daily,
            By::Week => Grouping::Weekly,
            By::Month => Grouping::Monthly,
        }
    }

    /// The period of a day: the day (`2026-09-07`), the first day of its
    /// week, weeks starting on `week_start` (`2026-09-07`), or its month
    /// (`2026-09`), as the usage reports key them.
    pub fn key(self, d: NaiveDate, week_start: Weekday) -> String {
        match self {
            By::Day => d.format("%Y-%m-%d").to_string(),
            By::Week => (d - chrono::TimeDelta::days(i64::from(d.weekday().days_since(week_start))))
                .format("%Y-%m-%d")
                .to_string(),
            By::Month => d.format("%Y-%m").to_string(),
        }
    }

    /// `by=` of a URL: absent is `day`.
    pub fn parse(s: Option<&str>) -> Result<By, WebError> {
        match s {
            None => Ok(By::Day),
            Some(s) => By::ALL
                .iter()
                .find(|(_, n, _)| *n == s)
                .map(|(b, _, _)| *b)
                .ok_or_else(|| WebError::bad("by", format!("{s:?} is not day, week or month"))),
        }
    }
}

/// A page's days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub by: By,
    /// The day weeks start on: the page's `start_of_week`, else the server's.
    pub week_start: Weekday,
    /// The server's week start: links name `start_of_week` only when the
    /// page's differs.
    pub week_default: Weekday,
    /// Today in the dashboard's zone, at the snapshot's clock.
    pub today: NaiveDate,
}

/// A preset: its words and its days.
pub struct Preset {
    pub words: &'static str,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
}

impl Range {
    /// The range of a request's parameters; weeks start on `week_default`
    /// unless the parameters say otherwise.
    pub fn of(p: &Params, today: NaiveDate, week_default: Weekday) -> Result<Range, WebError> {
        let (since, until) = p.range()?;
        let by = By::parse(Params::text(&p.by).as_deref())?;
        Ok(Range { since, until, by, week_start: p.week_start(week_default)?, week_default, today })
    }

    /// Every day, per day.
    pub fn all(today: NaiveDate, week_default: Weekday) -> Range {
        Range { since: None, until: None, by: By::Day, week_start: week_default, week_default, today }
    }

    /// The period of a day under this range's grouping (`By::key`).
    pub fn key(&self, d: NaiveDate) -> String {
        self.by.key(d, self.week_start)
    }

    /// A grouping in words: `per day`, `per week (from Sunday)`.
    pub fn by_words(&self, by: By) -> String {
        match by {
            By::Week => format!("per week (from {})", crate::config::weekday_name(self.week_start)),
            _ => By::ALL.iter().find(|(b, _, _)| *b == by).map_or("per day", |(_, _, w)| w).to_owned(),
        }
    }

    /// True when no day is excluded.
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// The presets, as of today.
    pub fn presets(&self) -> Vec<Preset> {
        let t = self.today;
        let back = |n: u64| t.checked_sub_days(Days::new(n));
        let month = t.with_day(1);
        vec![
            Preset { words: "today", since: Some(t), until: Some(t) },
            Preset { words: "7 days", since: back(6), until: Some(t) },
            Preset { words: "30 days", since: back(29), until: Some(t) },
            Preset { words: "this month", since: month, until: Some(t) },
            Preset { words: "all", since: None, until: None },
        ]
    }

    /// True when `p` is these days.
    pub fn is(&self, p: &Preset) -> bool {
        self.since == p.since && self.until == p.until
    }

    /// Which days the page shows, in words: `all time`, `today
    /// (2026-11-30)`, `the last 7 days (2026-11-24 to 2026-11-30)`,
    /// `2026-11-01 to 2026-11-15`, `from 2026-11-01`, `until 2026-11-15`.
    pub fn words(&self) -> String {
        let span = match (self.since, self.until) {
            (None, None) => return "all time".to_owned(),
            (Some(s), Some(u)) if s == u => s.to_string(),
            (Some(s), Some(u)) => format!("{s} to {u}"),
            (Some(s), None) => format!("from {s}"),
            (None, Some(u)) => format!("until {u}"),
        };
        match self.presets().iter().find(|p| self.is(p)).map(|p| p.words) {
            Some("today") => format!("today ({span})"),
            Some("this month") => format!("this month ({span})"),
            Some(w) if w.ends_with("days") => format!("the last {w} ({span})"),
            _ => span,
        }
    }

    /// The range's parameters (`since`, `until`, `by` when not `day`,
    /// `start_of_week` when not the server's).
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        if let Some(s) = self.since {
            v.push(("since", s.to_string()));
        }
        if let Some(u) = self.until {
            v.push(("until", u.to_string()));
        }
        if self.by != By::Day {
            v.push(("by", self.by.name().to_owned()));
        }
        if self.week_start != self.week_default {
            v.push(("start_of_week", crate::config::weekday_name(self.week_start).to_lowercase()));
        }
        v
    }

    /// The days from `since` (or `first`) to `until` (or `last`), every
    /// one, for a chart whose time axis is to scale.
    pub fn days(&self, first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
        let from = self.since.unwrap_or(first);
        let to = self.until.unwrap_or(last).max(from);
        from.iter_days().take_while(|d| *d <= to).take(MAX_CHART_DAYS).collect()
    }
}

impl Range {
    /// The periods from `since` (or `first`) to `until` (or `last`), every
    /// one, in order: a chart's bars, to scale.
    pub fn periods(&self, first: NaiveDate, last: NaiveDate) -> Vec<String> {
        let mut keys: Vec<String> = self.days(first, last).into_iter().map(|d| self.key(d)).collect();
        keys.dedup();
        keys
    }
}

/// Values per period: `rows` (day, values) summed into `periods` (the
/// range's `key`s).
pub fn by_period(
    range: &Range,
    periods: &[String],
    rows: impl IntoIterator<Item = (NaiveDate, Vec<f64>)>,
) -> Vec<Vec<f64>> {
    let at: std::collections::HashMap<&str, usize> = periods.iter().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
    let mut out: Vec<Vec<f64>> = vec![Vec::new(); periods.len()];
    for (day, v) in rows {
        let Some(&i) = at.get(range.key(day).as_str()) else { continue };
        let bar = &mut out[i];
        if bar.len() < v.len() {
            bar.resize(v.len(), 0.0);
        }
        for (b, x) in bar.iter_mut().zip(v) {
            *b += x;
        }
    }
    out
}

/// Most days a chart draws (a little over five years).
pub const MAX_CHART_DAYS: usize = 2000;

/// `href` with `pairs` appended as its query.
pub fn with_pairs(href: &str, pairs: &[(&str, String)]) -> String {
    if pairs.is_empty() {
        return href.to_owned();
    }
    let q: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
    let sep = if href.contains('?') { '&' } else { '?' };
    format!("{href}{sep}{}", q.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default()
    }

    #[test]
    fn presets_and_words() {
        let today = day("2026-11-30");
        let p = Params { since: Some("2026-11-24".into()), until: Some("2026-11-30".into()), ..Params::default() };
        let r = Range::of(&p, today, Weekday::Mon).map_err(|e| e.to_string());
        assert_eq!(r.as_ref().map(Range::words), Ok("the last 7 days (2026-11-24 to 2026-11-30)".to_owned()));
        let all = Range::of(&Params::default(), today, Weekday::Mon).map_err(|e| e.to_string());
        assert_eq!(all.as_ref().map(Range::words), Ok("all time".to_owned()));
        let t20 = day("2026-11-20");
        let month = Range { since: Some(day("2026-11-01")), until: Some(t20), ..Range::all(t20, Weekday::Mon) };
        assert_eq!(month.words(), "this month (2026-11-01 to 2026-11-20)");
        let week = Params { by: Some("week".into()), ..Params::default() };
        assert_eq!(Range::of(&week, today, Weekday::Mon).map(|r| r.by).ok(), Some(By::Week));
        assert!(Range::of(&Params { by: Some("year".into()), ..Params::default() }, today, Weekday::Mon).is_err());
        assert_eq!(with_pairs("/days", &month.pairs()), "/days?since=2026-11-01&until=2026-11-20");
        assert_eq!(month.days(day("2020-01-01"), day("2030-01-01")).len(), 20);
        let weeks = Range { by: By::Week, ..month.clone() };
        let periods = weeks.periods(day("2020-01-01"), day("2030-01-01"));
        assert_eq!(periods.first().map(String::as_str), Some("2026-10-26"), "the Monday of 2026-11-01");
        assert_eq!(periods.len(), 4, "{periods:?}");
        let v = by_period(&weeks, &periods, [(day("2026-11-03"), vec![1.0, 2.0]), (day("2026-11-04"), vec![1.0])]);
        assert_eq!(v[1], vec![2.0, 2.0]);
        assert_eq!(By::Month.key(day("2026-11-04"), Weekday::Mon), "2026-11");
        // Weeks from Sunday: 2026-11-01 is a Sunday, so its week starts on
        // it; links keep the page's week start only when not the server's.
        let sundays = Range { week_start: Weekday::Sun, ..weeks.clone() };
        let periods = sundays.periods(day("2020-01-01"), day("2030-01-01"));
        assert_eq!(periods.first().map(String::as_str), Some("2026-11-01"));
        assert_eq!(periods.get(1).map(String::as_str), Some("2026-11-08"));
        assert_eq!(sundays.key(day("2026-11-07")), "2026-11-01", "a Saturday is in the week from the Sunday before");
        assert!(sundays.pairs().contains(&("start_of_week", "sunday".to_owned())));
        assert!(!weeks.pairs().iter().any(|(k, _)| *k == "start_of_week"));
        assert_eq!(sundays.by_words(By::Week), "per week (from Sunday)");
        let p = Params { start_of_week: Some("sun".into()), by: Some("week".into()), ..Params::default() };
        assert_eq!(Range::of(&p, today, Weekday::Mon).map(|r| r.week_start).ok(), Some(Weekday::Sun));
        let server_sunday = Range::of(&Params::default(), today, Weekday::Sun).map_err(|e| e.to_string());
        assert_eq!(server_sunday.map(|r| (r.week_start, r.pairs().len())), Ok((Weekday::Sun, 0)));
    }
}
