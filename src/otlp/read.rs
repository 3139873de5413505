//! What an OTLP export reads: the view's requests as `report daily` counts
//! them (one row per response, the cost the view priced it at, the five
//! token columns), each with the cache model's stored verdict of its calls
//! (`analysis` rows of the same person, session and message). Nothing is
//! priced or classified here; only usage columns are read, never content.
//! Hands `Row`s in time order to the records and the metrics.

use super::OtlpError;
use crate::analyze::CacheClass;
use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::report::query::Query;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use polars::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One response as an export sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The request's identity (`identity_key`): what the watermark keeps.
    pub key: u64,
    pub time: DateTime<Utc>,
    pub session_id: String,
    pub model: String,
    pub tokens: TokenCounts,
    pub cost_usd: f64,
    /// None when the cache model has no row of it (a response of advisor
    /// calls only).
    pub cache: Option<Verdict>,
}

/// The cache model's stored verdict of a response's calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The first call's class: the one that met the cache as the gap left it.
    pub class: CacheClass,
    /// The TTL in force after the response's last call, in seconds.
    pub ttl_after_s: u64,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
    /// Miss cost per class over the calls (nonzero entries only).
    pub by_cause: Vec<(CacheClass, f64)>,
}

/// A request's identity as the watermark keys it: the first 8 bytes of
/// the SHA-256 of `(person, session, message id, request id)`. Figures are
/// not part of it, so a request is sent once.
pub fn identity_key(user: &str, session: &str, message: &str, request: &str) -> u64 {
    let mut h = Sha256::new();
    for part in [user, session, message, request] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let d = h.finalize();
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// The view's requests since `since` (a local day in `tz`), each labelled
/// as `user`'s, in time order.
pub fn rows(view: &StoreView, user: &str, since: Option<NaiveDate>, tz: Tz) -> Result<Vec<Row>, OtlpError> {
    let Some(lf) = view.requests() else { return Ok(Vec::new()) };
    let polars = |source| OtlpError::Polars { what: "reading the requests", source };
    let mut q = Query::new(tz);
    q.since = since;
    let cols = [c::USER, c::SESSION_ID, c::MESSAGE_ID, c::REQUEST_ID, c::TIME, c::MODEL, c::COST_USD];
    let select: Vec<Expr> = cols.iter().chain(&c::TOKENS).map(|n| col(*n)).collect();
    let df = q.filter(lf).and_then(|lf| lf.select(select).collect()).map_err(polars)?;
    let verdicts = verdicts(view)?;
    let mut out = build(&df, &verdicts, user).map_err(polars)?;
    out.sort_by(|a, b| a.time.cmp(&b.time).then(a.key.cmp(&b.key)));
    Ok(out)
}

fn build(df: &DataFrame, verdicts: &Verdicts, user: &str) -> PolarsResult<Vec<Row>> {
    let k = Cols(df);
    let (users, sessions, messages) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::MESSAGE_ID)?);
    let (requests, models, times) = (k.str(c::REQUEST_ID)?, k.str(c::MODEL)?, k.time(c::TIME)?);
    let (cost, tokens) = (k.f64(c::COST_USD)?, k.tokens()?);
    Ok((0..df.height())
        .map(|i| Row {
            key: identity_key(user, sessions[i], messages[i], requests[i]),
            time: times[i],
            session_id: sessions[i].to_owned(),
            model: models[i].to_owned(),
            tokens: tokens[i],
            cost_usd: cost[i],
            cache: verdicts.get(&(users[i].to_owned(), sessions[i].to_owned(), messages[i].to_owned())).cloned(),
        })
        .collect())
}

/// Verdicts by `(user, session, message id)`.
type Verdicts = HashMap<(String, String, String), Verdict>;

/// The stored analysis rows folded per response, in stored order (a
/// response's calls are consecutive there, in list order).
fn verdicts(view: &StoreView) -> Result<Verdicts, OtlpError> {
    let polars = |source| OtlpError::Polars { what: "reading the cache model's verdicts", source };
    let cols = [c::USER, c::SESSION_ID, c::MESSAGE_ID, c::CLASS, c::TTL_AFTER_S, c::REBUILT_TOKENS, c::MISS_COST_USD];
    let df = view.analysis()?.select(cols.map(col)).collect().map_err(polars)?;
    let k = Cols(&df);
    let read = || -> PolarsResult<_> {
        Ok((
            (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::MESSAGE_ID)?),
            (k.str(c::CLASS)?, k.u64(c::TTL_AFTER_S)?, k.u64(c::REBUILT_TOKENS)?, k.f64(c::MISS_COST_USD)?),
        ))
    };
    let ((users, sessions, messages), (classes, ttl, rebuilt, miss)) = read().map_err(polars)?;
    let mut out: Verdicts = HashMap::with_capacity(df.height());
    for i in 0..df.height() {
        let Some(class) = CacheClass::parse(classes[i]) else {
            let e = PolarsError::ComputeError(format!("analysis: unknown cache class {:?}", classes[i]).into());
            return Err(polars(e));
        };
        let key = (users[i].to_owned(), sessions[i].to_owned(), messages[i].to_owned());
        let v = out.entry(key).or_insert_with(|| Verdict {
            class,
            ttl_after_s: 0,
            rebuilt_tokens: 0,
            miss_cost_usd: 0.0,
            by_cause: Vec::new(),
        });
        v.ttl_after_s = ttl[i];
        v.rebuilt_tokens += rebuilt[i];
        v.miss_cost_usd += miss[i];
        if miss[i] != 0.0 {
            match v.by_cause.iter_mut().find(|(k, _)| *k == class) {
                Some(e) => e.1 += miss[i],
                None => v.by_cause.push((class, miss[i])),
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::identity_key;

    #[test]
    fn identity_keys_separate_every_part() {
        let k = identity_key("ana", "s1", "m1", "r1");
        assert_eq!(k, identity_key("ana", "s1", "m1", "r1"));
        assert_ne!(k, identity_key("bob", "s1", "m1", "r1"));
        assert_ne!(identity_key("a", "bc", "", ""), identity_key("ab", "c", "", ""));
    }
}
