//! The team report's per-person cache figures: one cache model per person
//! over *all* of that person's requests (so a thread that began before
//! `--since` is whole, and a warm request just inside the window stays a
//! hit), then the requests the query selects are summed: tokens, hit/miss
//! classes, idle cost, machines, stale sessions, shared message ids,
//! unpriced and estimated models. Hands `Cache` to `team::assemble`.

use crate::analyze::{analyze, stale_sessions, ClassTable, StaleSession};
use crate::model::{Compaction, Iteration, Request, TokenCounts};
use crate::pricing::{Estimate, PriceTable};
use crate::report::query::Query;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Per-user figures from the cache model and the selected rows.
#[derive(Debug, Default)]
pub(super) struct Cache {
    pub by_user: BTreeMap<String, UserCache>,
    /// Message ids under several users among the selected rows.
    pub shared_ids: usize,
    /// Models of the selected rows the price table does not know.
    pub unknown_models: Vec<String>,
    /// Models of the selected rows priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
}

/// One person's selected requests, summed.
#[derive(Debug, Default)]
pub(super) struct UserCache {
    pub tokens: TokenCounts,
    pub classes: ClassTable,
    pub machines: BTreeSet<String>,
    pub stale: Vec<StaleSession>,
}

/// What the cache model needs besides the rows.
pub(super) struct Context<'a> {
    pub compactions: &'a [Compaction],
    /// The stored API calls inside responses (sorted as stored): the cache
    /// model walks a response's calls (`PriceTable::thread_requests`).
    pub calls: &'a [Iteration],
    pub prices: &'a PriceTable,
    pub now: DateTime<Utc>,
    pub titles: &'a HashMap<String, String>,
}

impl Cache {
    /// Classifies every row of each person `q` can select (`all` is the
    /// whole requests table), then sums the rows `q` selects.
    pub fn of(all: Vec<Request>, q: &Query, cx: &Context<'_>) -> Cache {
        let selected: Vec<Request> = all.iter().filter(|r| q.accepts(r)).cloned().collect();
        // One cache model per person: their threads never mix with another's,
        // even when two people hold copies of one session.
        let mut mine: BTreeMap<String, Vec<Request>> = BTreeMap::new();
        for r in all.into_iter().filter(|r| q.user.as_ref().is_none_or(|u| r.user == *u)) {
            mine.entry(r.user.to_string()).or_default().push(r);
        }
        let by_user = mine.into_iter().filter_map(|(user, rows)| Some((user, UserCache::of(&rows, q, cx)?))).collect();
        let models: BTreeSet<&str> = selected.iter().map(|r| r.model.as_str()).collect();
        Cache {
            by_user,
            shared_ids: crate::team::import::shared_message_ids(&selected).len(),
            unknown_models: models.iter().filter(|m| cx.prices.resolve(m).is_none()).map(|m| (*m).to_owned()).collect(),
            estimated_models: cx.prices.estimated_models(models),
        }
    }
}

impl UserCache {
    /// One person's figures; None when `q` selects none of `rows`.
    fn of(rows: &[Request], q: &Query, cx: &Context<'_>) -> Option<UserCache> {
        // The cache model's rows (one per thread call of a response); the
        // tokens stay the requests' own, as in every usage report.
        let expanded;
        let thread: &[Request] = match cx.calls.is_empty() {
            true => rows,
            false => {
                expanded = cx.prices.thread_requests(rows.to_vec(), cx.calls);
                &expanded
            }
        };
        let caches = analyze(thread, cx.compactions, cx.prices);
        let mut u = UserCache::default();
        let mut sessions: HashSet<&str> = HashSet::new();
        for r in rows.iter().filter(|r| q.accepts(r)) {
            u.tokens += r.tokens;
            if !r.machine.is_empty() {
                u.machines.insert(r.machine.to_string());
            }
            sessions.insert(r.session_id.as_str());
        }
        if sessions.is_empty() {
            return None;
        }
        for (_, c) in thread.iter().zip(&caches).filter(|(r, _)| q.accepts(r)) {
            u.classes.add(c);
        }
        u.stale = stale_sessions(thread, &caches, cx.now, cx.titles)
            .into_iter()
            .filter(|s| sessions.contains(s.session_id.as_str()))
            .collect();
        Some(u)
    }
}
