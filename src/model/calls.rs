//! The API calls inside one response (`usage.iterations`, reference
//! transcripts-and-pricing §2.4): one `Call` row per call, keyed by the
//! request's `(user, message id, request id)` plus the line it was read from
//! (`source`, `line`) and its index in the list. Ingest stores them beside
//! the requests (`Table::Calls`, stored as the `iterations` table, after the
//! transcript's field; its columns `iteration` and `iteration_type` too);
//! the line a request keeps selects its calls (`Call::belongs_to`).
//! `cache_calls` hands the cache model the thread requests of one response
//! (cache-model v2 §1).
//!
//! A response whose `usage.iterations` is one plain `message` call equal to
//! the top-level usage stores no rows: the request row says everything.

use super::{Request, Text, TokenCounts};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `type` of an ordinary call.
pub const MESSAGE: &str = "message";
/// `type` of a call to the advisor model (absent from the top-level usage).
pub const ADVISOR: &str = "advisor_message";
/// `type` of a server-side retry on another model after a refusal.
pub const FALLBACK: &str = "fallback_message";

/// Most calls read from one line; a longer list fails the line.
pub const MAX_PER_LINE: usize = 64;

/// One API call inside a response, priced at its own model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The request's person (empty for local transcripts).
    pub user: Text,
    pub message_id: String,
    pub request_id: String,
    /// The transcript file and 1-based line the call was read from.
    pub source: Text,
    pub line: u64,
    /// Position in the line's `usage.iterations` list, from 0.
    pub index: u32,
    /// `message`, `advisor_message`, `fallback_message`, or another type as written.
    pub kind: Text,
    /// The call's `model`, else the message's.
    pub model: Text,
    pub tokens: TokenCounts,
    /// Tokens of this call alone at its model's rates, with the request's
    /// time, speed and geo (web searches stay with the request).
    pub cost_usd: f64,
}

impl Call {
    /// True when this call is part of `r`'s kept line.
    pub fn belongs_to(&self, r: &Request) -> bool {
        self.line == r.line
            && self.message_id == r.message_id
            && self.request_id == r.request_id
            && self.user == r.user
            && self.source == r.source
    }

    /// True for an advisor call.
    pub fn is_advisor(&self) -> bool {
        self.kind == ADVISOR
    }

    /// True for a fallback call (the retry after a refusal).
    pub fn is_fallback(&self) -> bool {
        self.kind == FALLBACK
    }
}

/// A `system` line with subtype `model_refusal_fallback`: a request was
/// refused on one model and retried on another. Never a compaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub session_id: String,
    pub time: DateTime<Utc>,
    /// `originalModel`: the model that refused.
    pub original_model: String,
    /// `fallbackModel`: the model that answered.
    pub fallback_model: String,
    /// `trigger` as written (`refusal`), else `category`.
    pub trigger: String,
    pub source: String,
}

/// Longest type, model or trigger text kept from a call or refusal line.
pub const MAX_TEXT: usize = 100;

/// A name from a transcript as stored: one line of at most `MAX_TEXT`
/// characters (`model::one_line`), so it reaches no terminal or page raw.
pub fn clean(s: &str) -> String {
    super::one_line(s, MAX_TEXT)
}

/// The key that ties calls to the line they came from.
pub type LineKey<'a> = (&'a str, &'a str, &'a str, &'a str, u64);

/// `(user, message id, request id, source, line)` of a request's kept line.
pub fn request_line_key(r: &Request) -> LineKey<'_> {
    (&r.user, &r.message_id, &r.request_id, &r.source, r.line)
}

/// `(user, message id, request id, source, line)` of a call.
pub fn call_line_key(i: &Call) -> LineKey<'_> {
    (&i.user, &i.message_id, &i.request_id, &i.source, i.line)
}

/// Sorts call rows the way `calls_of` looks them up (and the store keeps
/// them): by the line they were read from, then by position.
pub fn sort_calls(calls: &mut [Call]) {
    calls.sort_by(|a, b| call_line_key(a).cmp(&call_line_key(b)).then(a.index.cmp(&b.index)));
}

/// The calls of `r`'s kept line in `sorted` (rows sorted by line key, then
/// index, as `Table::Calls` is stored): a binary search.
pub fn calls_of<'a>(sorted: &'a [Call], r: &Request) -> &'a [Call] {
    let range = calls_range(sorted, request_line_key(r));
    &sorted[range]
}

/// Where the calls of the line `key` sit in `sorted`.
pub fn calls_range(sorted: &[Call], key: LineKey<'_>) -> std::ops::Range<usize> {
    let start = sorted.partition_point(|i| call_line_key(i) < key);
    let len = sorted[start..].iter().take_while(|i| call_line_key(i) == key).count();
    start..start + len
}

/// True when `calls` say nothing the request row does not: one plain
/// `message` call on the message's model with the top-level tokens.
pub fn redundant(calls: &[(Text, Text, TokenCounts)], model: &str, top: &TokenCounts) -> bool {
    match calls {
        [(kind, m, t)] => kind == MESSAGE && (m.is_empty() || m == model) && t == top,
        _ => false,
    }
}

/// The figures of one call, as far as the cache model needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheCall {
    pub model: Text,
    pub tokens: TokenCounts,
}

/// The requests of `req`'s thread that `req` stands for (cache-model v2
/// §1): each `message` or `fallback_message` call in list order, each with
/// its own model and tokens; advisor calls (and types of unknown meaning)
/// belong to no thread. A request without stored calls is one call.
/// `calls` may hold other requests' rows; only `req`'s are used.
pub fn cache_calls(req: &Request, calls: &[Call]) -> Vec<CacheCall> {
    let mut own: Vec<&Call> = calls.iter().filter(|i| i.belongs_to(req)).collect();
    if own.is_empty() {
        return vec![CacheCall { model: req.model.clone(), tokens: req.tokens }];
    }
    own.sort_by_key(|i| i.index);
    own.into_iter()
        .filter(|i| i.kind == MESSAGE || i.kind == FALLBACK)
        .map(|i| CacheCall {
            model: if i.model.is_empty() { req.model.clone() } else { i.model.clone() },
            tokens: i.tokens,
        })
        .collect()
}

#[cfg(test)]
#[path = "calls_tests.rs"]
pub(crate) mod tests;
