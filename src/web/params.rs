//! Query parameters: the raw strings of a URL become typed filters once, or
//! a 400 naming the parameter. The same names as the CLI flags (`since`,
//! `until`, `project`, `user`, `breakdown`, `turns`), plus the table's `q`, `model`,
//! `sort`, `order`, `page`, the timeline's `thread`, the cache report's
//! `session`, the pages' `by` (day, week, month) and `start_of_week` (the
//! CLI's `--start-of-week`: monday ... sunday).

use super::error::{ApiError, WebError};
use crate::report::query::Query;
use crate::report::session::list::{SessionFilter, SessionSort};
use axum::extract::{FromRequestParts, Query as UrlQuery};
use axum::http::request::Parts;
use chrono::{NaiveDate, Weekday};
use chrono_tz::Tz;
use serde::Deserialize;

/// Largest page size a table accepts.
pub const MAX_PER_PAGE: usize = 500;
/// Rows per page of `/api/cache`'s per-session lists unless asked.
pub const CACHE_PER_PAGE: usize = 500;
/// Largest page `/api/cache` accepts.
pub const MAX_CACHE_PER_PAGE: usize = 5_000;
/// Default future turns of the advice panel.
pub const DEFAULT_TURNS: u32 = 10;
/// Largest number of future turns accepted.
pub const MAX_TURNS: u32 = 1000;

/// Every query parameter any route reads; empty values count as absent.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Params {
    pub q: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub project: Option<String>,
    pub model: Option<String>,
    pub sort: Option<String>,
    pub order: Option<String>,
    pub page: Option<String>,
    pub per_page: Option<String>,
    pub breakdown: Option<String>,
    pub turns: Option<String>,
    pub thread: Option<String>,
    pub session: Option<String>,
    /// A person of a team data directory (exact match).
    pub user: Option<String>,
    /// How a page groups its days: `day`, `week` or `month`.
    pub by: Option<String>,
    /// The day weeks start on (`monday` ... `sunday`), else the server's.
    pub start_of_week: Option<String>,
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Parses `YYYY-MM-DD` or `YYYYMMDD`, like the CLI's `--since`.
pub fn parse_date(name: &'static str, s: &str) -> Result<NaiveDate, WebError> {
    crate::config::parse_date(s).map_err(|_| WebError::bad(name, format!("{s:?} is not a date; use YYYY-MM-DD")))
}

fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display>(
    name: &'static str,
    v: &Option<String>,
    default: T,
    min: T,
    max: T,
) -> Result<T, WebError> {
    let Some(s) = given(v) else { return Ok(default) };
    match s.parse::<T>() {
        Ok(n) if n >= min && n <= max => Ok(n),
        _ => Err(WebError::bad(name, format!("{s:?} is not a whole number from {min} to {max}"))),
    }
}

impl Params {
    /// A text parameter, trimmed, if given.
    pub fn text(v: &Option<String>) -> Option<String> {
        given(v).map(str::to_owned)
    }

    fn date(&self, name: &'static str) -> Result<Option<NaiveDate>, WebError> {
        let v = if name == "since" { &self.since } else { &self.until };
        given(v).map(|s| parse_date(name, s)).transpose()
    }

    /// `since` and `until`, checked.
    pub fn range(&self) -> Result<(Option<NaiveDate>, Option<NaiveDate>), WebError> {
        let (since, until) = (self.date("since")?, self.date("until")?);
        if let (Some(s), Some(u)) = (since, until) {
            if s > u {
                return Err(WebError::bad("since", format!("{s} is after until ({u})")));
            }
        }
        Ok((since, until))
    }

    fn flag(&self) -> Result<bool, WebError> {
        match given(&self.breakdown) {
            None | Some("0" | "false" | "no") => Ok(false),
            Some("1" | "true" | "yes" | "on") => Ok(true),
            Some(s) => Err(WebError::bad("breakdown", format!("{s:?} is not true or false"))),
        }
    }

    /// The day weeks start on: `start_of_week` when given (the CLI flag's
    /// words), else `default` (the server's).
    pub fn week_start(&self, default: Weekday) -> Result<Weekday, WebError> {
        match given(&self.start_of_week) {
            None => Ok(default),
            Some(s) => crate::config::parse_weekday(s).map_err(|e| WebError::bad("start_of_week", e)),
        }
    }

    /// The CLI's report query: `since`, `until`, `project`, `breakdown`,
    /// `user`, `start_of_week` (else `week_start`, the server's).
    pub fn usage_query(&self, tz: Tz, week_start: Weekday) -> Result<Query, WebError> {
        let (since, until) = self.range()?;
        Ok(Query {
            since,
            until,
            tz,
            project: Params::text(&self.project),
            breakdown: self.flag()?,
            user: Params::text(&self.user),
            week_start: self.week_start(week_start)?,
        })
    }

    /// The session list's filter.
    pub fn session_filter(&self) -> Result<SessionFilter, WebError> {
        let (since, until) = self.range()?;
        Ok(SessionFilter {
            q: Params::text(&self.q),
            project: Params::text(&self.project),
            model: Params::text(&self.model),
            since,
            until,
        })
    }

    /// Sort column and direction (`order=asc`; descending by default).
    pub fn sort(&self) -> Result<(SessionSort, bool), WebError> {
        let sort = match given(&self.sort) {
            None => SessionSort::default(),
            Some(s) => SessionSort::parse(s).ok_or_else(|| {
                let names: Vec<&str> = SessionSort::ALL.iter().map(|(_, n)| *n).collect();
                WebError::bad("sort", format!("{s:?} is not one of {}", names.join(", ")))
            })?,
        };
        let ascending = match given(&self.order) {
            None | Some("desc") => false,
            Some("asc") => true,
            Some(s) => return Err(WebError::bad("order", format!("{s:?} is not asc or desc"))),
        };
        Ok((sort, ascending))
    }

    /// The 1-based page number.
    pub fn page(&self) -> Result<usize, WebError> {
        number("page", &self.page, 1, 1, 1_000_000)
    }

    /// Rows per page.
    pub fn per_page(&self, default: usize) -> Result<usize, WebError> {
        number("per_page", &self.per_page, default, 1, MAX_PER_PAGE)
    }

    /// Rows per page of `/api/cache`'s per-session lists.
    pub fn cache_per_page(&self) -> Result<usize, WebError> {
        number("per_page", &self.per_page, CACHE_PER_PAGE, 1, MAX_CACHE_PER_PAGE)
    }

    /// Future turns for the advice.
    pub fn turns(&self) -> Result<u32, WebError> {
        number("turns", &self.turns, DEFAULT_TURNS, 1, MAX_TURNS)
    }

    /// The parameters given (non-empty), by name, in a fixed order.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let fields = [
            ("q", &self.q),
            ("since", &self.since),
            ("until", &self.until),
            ("project", &self.project),
            ("model", &self.model),
            ("sort", &self.sort),
            ("order", &self.order),
            ("page", &self.page),
            ("per_page", &self.per_page),
            ("breakdown", &self.breakdown),
            ("turns", &self.turns),
            ("thread", &self.thread),
            ("session", &self.session),
            ("user", &self.user),
            ("by", &self.by),
            ("start_of_week", &self.start_of_week),
        ];
        fields.into_iter().filter_map(|(k, v)| given(v).map(|v| (k, v.to_owned()))).collect()
    }

    /// The query string of these parameters with `key` set to `value`
    /// (removed when empty), for pagination and sort links.
    pub fn with(&self, key: &str, value: &str) -> String {
        let mut parts: Vec<String> = self
            .pairs()
            .into_iter()
            .filter(|(k, _)| *k != key && !(key != "page" && *k == "page"))
            .map(|(k, v)| format!("{k}={}", encode(&v)))
            .collect();
        if !value.is_empty() {
            parts.push(format!("{key}={}", encode(value)));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }
}

/// Percent-encodes a query value.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

async fn extract<S: Send + Sync>(parts: &mut Parts, state: &S) -> Result<Params, WebError> {
    let UrlQuery(p) = UrlQuery::<Params>::from_request_parts(parts, state)
        .await
        .map_err(|e| WebError::bad("query", e.body_text()))?;
    Ok(p)
}

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Params, WebError> {
        extract(parts, state).await
    }
}

/// `Params` for the JSON API: a bad query string is answered in JSON.
pub struct ApiParams(pub Params);

impl<S: Send + Sync> FromRequestParts<S> for ApiParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiParams, ApiError> {
        Ok(ApiParams(extract(parts, state).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_numbers() {
        let p = Params { since: Some("2026-13-01".into()), ..Params::default() };
        assert!(matches!(p.usage_query(Tz::UTC, Weekday::Mon), Err(WebError::BadParam { name: "since", .. })));
        let p = Params { since: Some("20260102".into()), until: Some("".into()), ..Params::default() };
        let q = p.usage_query(Tz::UTC, Weekday::Sun);
        assert_eq!(q.as_ref().map(|q| q.since).ok().flatten(), NaiveDate::from_ymd_opt(2026, 1, 2));
        assert_eq!(q.map(|q| q.week_start).ok(), Some(Weekday::Sun), "the server's week start");
        let p = Params { start_of_week: Some("Sunday".into()), ..Params::default() };
        assert_eq!(p.week_start(Weekday::Mon).ok(), Some(Weekday::Sun));
        let p = Params { start_of_week: Some("someday".into()), ..Params::default() };
        assert!(matches!(p.week_start(Weekday::Mon), Err(WebError::BadParam { name: "start_of_week", .. })));
        let p = Params { page: Some("0".into()), ..Params::default() };
        assert!(p.page().is_err());
        let p = Params { q: Some("a b&c".into()), page: Some("3".into()), ..Params::default() };
        assert_eq!(p.with("page", "4"), "?q=a%20b%26c&page=4");
        assert_eq!(p.with("sort", "cost"), "?q=a%20b%26c&sort=cost");
    }
}
