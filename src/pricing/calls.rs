//! Pricing a response made of several API calls (`usage.iterations`,
//! reference transcripts-and-pricing §2.4): each call at its own model, with
//! the request's time, fast mode and data residency, and the long-context
//! test on the call's own prompt; web searches stay with the request. Hands
//! each call its cost and the request the sum; and hands the cache model its
//! rows, one per thread call (`thread_requests`).

use super::{PriceTable, UnknownModels, WEB_SEARCH_USD};
use crate::model::iterations::{cache_calls, calls_of, calls_range, request_line_key};
use crate::model::{Iteration, Request};
use std::borrow::Cow;

impl PriceTable {
    /// Sets `cost_usd` on every call of `req` and returns the request's cost:
    /// the calls' costs plus its web searches. A call whose model has no
    /// price costs 0 and is counted in `unknown`.
    pub fn price_calls(&self, req: &Request, calls: &mut [Iteration], unknown: &mut UnknownModels) -> f64 {
        let mut total = req.web_search as f64 * WEB_SEARCH_USD;
        for call in calls {
            // The call as a request of its own: its model and tokens, the
            // request's time, speed and geo, no web searches.
            let one = Request { model: call.model.clone(), tokens: call.tokens, web_search: 0, ..req.clone() };
            call.cost_usd = match self.cost(&one) {
                Some(c) => c,
                None => {
                    *unknown.entry(call.model.to_string()).or_insert(0) += 1;
                    0.0
                }
            };
            total += call.cost_usd;
        }
        total
    }

    /// Prices `r` from its calls in `sorted_calls` (sorted as the store
    /// keeps them) when its line logged any, setting each call's cost;
    /// else leaves the price `price_all` set.
    pub fn price_from_calls(&self, r: &mut Request, sorted_calls: &mut [Iteration], unknown: &mut UnknownModels) {
        let range = calls_range(sorted_calls, request_line_key(r));
        if !range.is_empty() {
            r.cost_usd = self.price_calls(r, &mut sorted_calls[range], unknown);
        }
    }

    /// The cost of one response as a report counts it: its calls at their
    /// own models when `sorted_calls` (sorted by line key, then index, as
    /// the store keeps them) holds any for its kept line, else the request
    /// at its model; unknown models cost 0.
    pub fn response_cost(&self, req: &Request, sorted_calls: &[Iteration]) -> f64 {
        let own = calls_of(sorted_calls, req);
        if own.is_empty() {
            return self.cost(req).unwrap_or(0.0);
        }
        self.price_calls(req, &mut own.to_vec(), &mut UnknownModels::new())
    }

    /// The requests as the cache model sees them (cache-model §1 v2): a
    /// response made of several API calls is one request of its thread per
    /// `message`/`fallback_message` call, at the response's time and in list
    /// order (consecutive, so the thread order keeps them), each with its own
    /// model, tokens and cost; its web searches go with the first. Advisor
    /// calls belong to no thread, so their cost is not in these rows.
    /// `calls` is the stored iterations table, sorted as stored.
    pub fn thread_requests(&self, requests: Vec<Request>, calls: &[Iteration]) -> Vec<Request> {
        match self.thread_rows(&requests, calls) {
            Cow::Borrowed(_) => requests,
            Cow::Owned(rows) => rows,
        }
    }

    /// `thread_requests` over borrowed rows: the rows themselves when none
    /// of them has calls of its own (nothing is copied), else new rows.
    pub fn thread_rows<'a>(&self, requests: &'a [Request], calls: &[Iteration]) -> Cow<'a, [Request]> {
        let Some(first) = requests.iter().position(|r| !calls_of(calls, r).is_empty()) else {
            return Cow::Borrowed(requests);
        };
        let mut out = Vec::with_capacity(requests.len() + 1);
        out.extend_from_slice(&requests[..first]);
        for r in &requests[first..] {
            let own = calls_of(calls, r);
            if own.is_empty() {
                out.push(r.clone());
                continue;
            }
            for (k, c) in cache_calls(r, own).into_iter().enumerate() {
                let web_search = if k == 0 { r.web_search } else { 0 };
                let mut row = Request { model: c.model, tokens: c.tokens, web_search, ..r.clone() };
                row.cost_usd = self.cost(&row).unwrap_or(0.0);
                out.push(row);
            }
        }
        Cow::Owned(out)
    }
}
