//! Pricing a response made of several API calls (`usage.iterations`,
//! reference transcripts-and-pricing §2.4): each call at its own model, with
//! the request's time, fast mode and data residency, and the long-context
//! test on the call's own prompt; web searches stay with the request. Hands
//! each call its cost and the request the sum. (The cache model's rows, one
//! per thread call, are `analyze::thread_requests`.)

use super::{PriceTable, UnknownModels, WEB_SEARCH_USD};
use crate::model::calls::{calls_of, calls_range, request_line_key};
use crate::model::{Call, Request};

impl PriceTable {
    /// Sets `cost_usd` on every call of `req` and returns the request's cost:
    /// the calls' costs plus its web searches. A call whose model has no
    /// price costs 0 and is counted in `unknown`.
    pub fn price_calls(&self, req: &Request, calls: &mut [Call], unknown: &mut UnknownModels) -> f64 {
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
    pub fn price_from_calls(&self, r: &mut Request, sorted_calls: &mut [Call], unknown: &mut UnknownModels) {
        let range = calls_range(sorted_calls, request_line_key(r));
        if !range.is_empty() {
            r.cost_usd = self.price_calls(r, &mut sorted_calls[range], unknown);
        }
    }

    /// The cost of one response as a report counts it: its calls at their
    /// own models when `sorted_calls` (sorted by line key, then index, as
    /// the store keeps them) holds any for its kept line, else the request
    /// at its model; unknown models cost 0.
    pub fn response_cost(&self, req: &Request, sorted_calls: &[Call]) -> f64 {
        let own = calls_of(sorted_calls, req);
        if own.is_empty() {
            return self.cost(req).unwrap_or(0.0);
        }
        self.price_calls(req, &mut own.to_vec(), &mut UnknownModels::new())
    }
}
