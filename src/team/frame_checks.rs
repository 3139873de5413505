//! A schema-3 bundle's checks on its decoded columns: every row of a known
//! kind, the token bounds (`integrity::check_bounds`), the analysis rows
//! (`analysis::check`) and the owner (`check_owner`), in that order and
//! with the verdicts and messages its typed rows would get. An import's
//! validation pass so builds no `Request` (the rows become typed once,
//! when their person is merged). Hands `bundle::check_limited` the counts
//! of requests and compactions.

use super::analysis;
use super::bundle::{Bundle, KIND_CALL, KIND_COMPACTION, KIND_REQUEST};
use super::TeamError;
use crate::ingest::parse::MAX_WEB_SEARCHES;
use crate::model::columns as c;
use crate::model::{is_unsafe, MAX_TOKENS};
use crate::store::frames::Cols;
use polars::prelude::*;

/// Why a bundle's columns were refused.
#[derive(Debug)]
pub(super) enum Failed {
    /// Rows no real export makes (`TeamError::Damaged`).
    Damaged(String),
    /// Rows of someone else, or of no one (`TeamError::NotABundle`).
    NotOwned(String),
}

/// Checks a decoded schema-3 bundle of `user` (its columns already of the
/// bundle's types); its requests and compactions, counted.
pub(super) fn check(
    df: &DataFrame,
    user: &str,
    latest: chrono::DateTime<chrono::Utc>,
) -> PolarsResult<Result<(usize, usize), Failed>> {
    let kind = df.column(c::KIND)?.str()?;
    let rows_of = |k: &str, columns: &[&str]| -> PolarsResult<DataFrame> {
        df.select(columns.iter().copied())?.filter(&kind.equal(k))
    };
    let with = |more: &[&'static str]| -> Vec<&'static str> { c::TOKENS.iter().chain(more).copied().collect() };
    let calls = rows_of(KIND_CALL, &with(&[c::USER]))?;
    let requests = rows_of(KIND_REQUEST, &with(&[c::USER, c::WEB_SEARCH, c::MESSAGE_ID]))?;
    let compactions = rows_of(KIND_COMPACTION, &[c::PRE_TOKENS])?;
    let analysis = analysis::rows_of(df)?;
    let analyzed = analysis.as_ref().map_or(0, DataFrame::height);
    let unknown = df.height() - requests.height() - compactions.height() - calls.height() - analyzed;
    if unknown > 0 {
        return Ok(Err(Failed::Damaged(format!("{unknown} row(s) of unknown kind"))));
    }
    if let Err(why) = bounds(&requests, &compactions, &calls)? {
        return Ok(Err(Failed::Damaged(why)));
    }
    if let Err(why) = times(df, kind, latest)? {
        return Ok(Err(Failed::Damaged(why)));
    }
    if let Some(rows) = &analysis {
        if let Err(why) = analysis::check(rows, user) {
            return Ok(Err(Failed::Damaged(why)));
        }
    }
    let (a, b) = (Cols(&requests).str(c::USER)?, Cols(&calls).str(c::USER)?);
    if let Err(why) = owned_by(user, a.iter().chain(&b).copied()) {
        return Ok(Err(Failed::NotOwned(why)));
    }
    Ok(Ok((requests.height(), compactions.height())))
}

/// `integrity::check_bounds` over the columns of the rows of each kind:
/// calls, then requests, then compactions, the first row over a bound.
fn bounds(requests: &DataFrame, compactions: &DataFrame, calls: &DataFrame) -> PolarsResult<Result<(), String>> {
    let over = |df: &DataFrame| -> PolarsResult<Option<(usize, (&'static str, u64))>> {
        Ok(Cols(df).tokens()?.iter().enumerate().find_map(|(i, t)| t.above_bound().map(|b| (i, b))))
    };
    if let Some((i, (field, v))) = over(calls)? {
        return Ok(Err(format!(
            "call row {}: {field} {v} is above the bound of {MAX_TOKENS} tokens per request",
            i + 1
        )));
    }
    let k = Cols(requests);
    let web = k.u64(c::WEB_SEARCH)?;
    let first_web = web.iter().position(|w| *w > MAX_WEB_SEARCHES);
    match (over(requests)?, first_web) {
        (Some((i, (field, v))), w) if w.is_none_or(|w| i <= w) => {
            let id: String = k.str(c::MESSAGE_ID)?[i].chars().take(40).collect();
            return Ok(Err(format!(
                "request row {} (message {id:?}): {field} {v} is above the bound of {MAX_TOKENS} tokens per request",
                i + 1
            )));
        }
        (_, Some(i)) => {
            return Ok(Err(format!(
                "request row {}: {} web searches is above the bound of {MAX_WEB_SEARCHES}",
                i + 1,
                web[i]
            )));
        }
        _ => {}
    }
    let pre = Cols(compactions).opt_u64(c::PRE_TOKENS)?;
    Ok(match pre.iter().position(|p| p.is_some_and(|p| p > MAX_TOKENS)) {
        Some(i) => Err(format!("compaction row {}: pre_tokens is above the bound of {MAX_TOKENS} tokens", i + 1)),
        None => Ok(()),
    })
}

/// No request, then no compaction row, stamped after `latest`
/// (`integrity::check_bounds`'s order and words).
fn times(
    df: &DataFrame,
    kind: &StringChunked,
    latest: chrono::DateTime<chrono::Utc>,
) -> PolarsResult<Result<(), String>> {
    for (k, what) in [(KIND_REQUEST, "request"), (KIND_COMPACTION, "compaction")] {
        let rows = df.select([c::TIME])?.filter(&kind.equal(k))?;
        if let Some((i, t)) = Cols(&rows).time(c::TIME)?.into_iter().enumerate().find(|(_, t)| *t > latest) {
            return Ok(Err(super::integrity::after_the_clock(what, i, t)));
        }
    }
    Ok(Ok(()))
}

/// A bundle is one person's: its meta names a user, and every request and
/// call row names that user (analysis rows are checked when read).
pub(super) fn check_owner(b: &Bundle, origin: &str) -> Result<(), TeamError> {
    let rows = b.requests.iter().map(|r| r.user.as_str()).chain(b.calls.iter().map(|c| c.user.as_str()));
    owned_by(&b.meta.user, rows).map_err(|why| TeamError::NotABundle { origin: origin.to_owned(), why })
}

/// `user` names someone, and so does every one of `rows`, the same one.
fn owned_by<'a>(user: &str, rows: impl Iterator<Item = &'a str> + Clone) -> Result<(), String> {
    if user.is_empty() || rows.clone().any(str::is_empty) {
        return Err("its rows name no user (export with --user NAME)".to_owned());
    }
    match rows.into_iter().find(|u| *u != user) {
        Some(o) => {
            let o: String = o.chars().filter(|c| !is_unsafe(*c)).take(40).collect();
            Err(format!("a row names user {o:?}, but the bundle is {user:?}'s (a bundle holds one person's rows)"))
        }
        None => Ok(()),
    }
}
