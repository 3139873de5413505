//! The team report's model mix, split by call: a response made of API calls
//! on several models (`usage.iterations`: an advisor call, a refused
//! attempt and its fallback) counts each call's cost under the call's
//! model, as `report model` does; the request itself stays counted once,
//! under its own model, and its web searches stay there too. Hands the
//! adjusted `(user, ModelShare)` rows back to `team::assemble`.

use super::ModelShare;
use crate::model::iterations::calls_of;
use crate::model::{Iteration, Request};
use crate::report::query::Query;
use std::collections::HashMap;

/// `mix` (from `sql/team_model_mix.sql`) with the calls of the selected
/// requests moved to their own models. `calls` is sorted as stored.
pub(super) fn split_by_call_model(
    mut mix: Vec<(String, ModelShare)>,
    requests: &[Request],
    calls: &[Iteration],
    q: &Query,
) -> Vec<(String, ModelShare)> {
    if calls.is_empty() {
        return mix;
    }
    let mut at: HashMap<(String, String), usize> =
        mix.iter().enumerate().map(|(i, (u, m))| ((u.clone(), m.model.clone()), i)).collect();
    let mut entry = |mix: &mut Vec<(String, ModelShare)>, user: &str, model: &str| -> usize {
        *at.entry((user.to_owned(), model.to_owned())).or_insert_with(|| {
            let share = ModelShare { model: model.to_owned(), requests: 0, cost_usd: 0.0, cost_share: 0.0 };
            mix.push((user.to_owned(), share));
            mix.len() - 1
        })
    };
    for r in requests.iter().filter(|r| q.accepts(r)) {
        let own = calls_of(calls, r);
        if own.is_empty() {
            continue;
        }
        let moved: f64 = own.iter().map(|c| c.cost_usd).sum();
        let i = entry(&mut mix, &r.user, &r.model);
        mix[i].1.cost_usd -= moved;
        for c in own {
            let i = entry(&mut mix, &r.user, &c.model);
            mix[i].1.cost_usd += c.cost_usd;
        }
    }
    mix.sort_by(|a, b| (a.0.as_str(), a.1.model.as_str()).cmp(&(b.0.as_str(), b.1.model.as_str())));
    mix
}
