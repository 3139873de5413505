//! The requests as the cache model sees them (cache-model §1 v2): a
//! response made of several API calls (`usage.iterations`) is one request
//! of its thread per `message`/`fallback_message` call, priced at its own
//! model. Calls Claude Code did not write down (`model::is_unlogged`: real
//! spend, but no response a thread shows) are no thread's. Hands
//! `materialize` the rows it classifies.

use crate::model::calls::{cache_calls, calls_of};
use crate::model::{is_unlogged, Call, Request, Text};
use crate::pricing::PriceTable;
use chrono::{DateTime, Utc};
use std::borrow::Borrow;

/// The requests as the cache model sees them (cache-model §1 v2): a
/// response made of several API calls is one request of its thread per
/// `message`/`fallback_message` call, at the response's time and in list
/// order (consecutive, so the thread order keeps them), each with its own
/// model, tokens and cost; its web searches go with the first. Advisor
/// calls belong to no thread, so their cost is not in these rows.
/// `calls` is the stored calls table, sorted as stored.
pub fn thread_requests(prices: &PriceTable, requests: Vec<Request>, calls: &[Call]) -> Vec<Request> {
    thread_rows(prices, &requests, calls).unwrap_or(requests)
}

/// The model, version and time of each row `thread_rows` makes of
/// `requests`, in its order, without making the rows: the what-if's
/// shared-prefix flags cross sessions, so a store classified a chunk at a
/// time needs every row's key before the first chunk.
pub fn thread_keys<R: Borrow<Request>>(requests: &[R], calls: &[Call]) -> Vec<(Text, Text, DateTime<Utc>)> {
    let mut out = Vec::with_capacity(requests.len());
    for r in requests.iter().map(Borrow::borrow).filter(|r| !is_unlogged(&r.thread)) {
        let own = calls_of(calls, r);
        if own.is_empty() {
            out.push((r.model.clone(), r.version.clone(), r.time));
            continue;
        }
        out.extend(cache_calls(r, own).into_iter().map(|c| (c.model, r.version.clone(), r.time)));
    }
    out
}

/// `thread_requests` over borrowed rows (or references to them): None
/// when none of them has calls of its own (the rows themselves are the
/// thread rows, and nothing is copied), else the new rows.
pub fn thread_rows<R: Borrow<Request>>(prices: &PriceTable, requests: &[R], calls: &[Call]) -> Option<Vec<Request>> {
    let first =
        requests.iter().map(Borrow::borrow).position(|r| !calls_of(calls, r).is_empty() || is_unlogged(&r.thread))?;
    let mut out = Vec::with_capacity(requests.len() + 1);
    out.extend(requests[..first].iter().map(|r| r.borrow().clone()));
    for r in requests[first..].iter().map(Borrow::borrow).filter(|r| !is_unlogged(&r.thread)) {
        let own = calls_of(calls, r);
        if own.is_empty() {
            out.push(r.clone());
            continue;
        }
        for (k, c) in cache_calls(r, own).into_iter().enumerate() {
            let web_search = if k == 0 { r.web_search } else { 0 };
            let mut row = Request { model: c.model, tokens: c.tokens, web_search, ..r.clone() };
            row.cost_usd = prices.cost(&row).unwrap_or(0.0);
            out.push(row);
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "thread_rows_tests.rs"]
mod tests;
