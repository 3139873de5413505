//! Groups requests into threads (cache-model §1): one prompt-cache history
//! per `(user, session_id, thread)` (identity is whole: two people with the
//! same session id never share a thread), ordered by time then `message_id`
//! for ties. Builds, in one place (`thread_calls`), the sequence of API
//! calls the classifier walks. Also indexes the boundary lines per
//! `(user, session)`: compaction times (lineage starts) and microcompact
//! times (v2 miss cause). Hands on index slices into the caller's request
//! slice; nothing is copied.

use crate::model::{Boundary, Compaction, Request, TokenCounts, MAIN_THREAD};
use chrono::{DateTime, Utc};
use foldhash::HashMap as FoldMap;
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Range;

/// Requests grouped by thread, each thread in time order.
#[derive(Debug, Clone)]
pub(super) struct ThreadIndex {
    /// Request indices sorted by (user, session, thread, time, message_id).
    order: Vec<usize>,
    /// One range into `order` per thread.
    runs: Vec<Range<usize>>,
}

/// Order of two requests of one thread: by time, then by message id.
pub fn time_order(a: &Request, b: &Request) -> Ordering {
    a.time.cmp(&b.time).then_with(|| a.message_id.cmp(&b.message_id))
}

/// The identity of a thread: `(user, session, thread)`.
fn thread_key(r: &Request) -> (&str, &str, &str) {
    (&r.user, &r.session_id, &r.thread)
}

impl ThreadIndex {
    /// Groups `requests` (in any order) by `(user, session_id, thread)`.
    /// Each distinct thread key is replaced by its rank among the keys, so
    /// the sort compares integers where it compared three strings.
    pub(super) fn build<R: Borrow<Request>>(requests: &[R]) -> ThreadIndex {
        let rank = thread_ranks(requests);
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            rank[a]
                .cmp(&rank[b])
                .then_with(|| time_order(requests[a].borrow(), requests[b].borrow()))
                .then_with(|| a.cmp(&b))
        });
        let mut runs = Vec::new();
        let mut start = 0;
        for k in 1..=order.len() {
            if k == order.len() || rank[order[k - 1]] != rank[order[k]] {
                runs.push(start..k);
                start = k;
            }
        }
        ThreadIndex { order, runs }
    }

    /// Every thread as the time-ordered indices of its requests.
    pub(super) fn threads(&self) -> impl Iterator<Item = &[usize]> + '_ {
        self.runs.iter().map(move |r| &self.order[r.clone()])
    }
}

/// For each request, the rank of its thread key among the distinct keys
/// (equal keys, equal ranks; ranks ordered as the keys are). A request of
/// the thread of the one before it (the usual case) is not hashed.
fn thread_ranks<R: Borrow<Request>>(requests: &[R]) -> Vec<u32> {
    let mut ids: FoldMap<(&str, &str, &str), u32> = FoldMap::default();
    let mut id: Vec<u32> = Vec::with_capacity(requests.len());
    let mut last: Option<((&str, &str, &str), u32)> = None;
    for r in requests {
        let key = thread_key(r.borrow());
        let n = match last {
            Some((k, n)) if k == key => n,
            _ => {
                let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                *ids.entry(key).or_insert(next)
            }
        };
        last = Some((key, n));
        id.push(n);
    }
    let mut keys: Vec<((&str, &str, &str), u32)> = ids.into_iter().collect();
    keys.sort_unstable();
    let mut rank = vec![0u32; keys.len()];
    for (r, (_, n)) in keys.iter().enumerate() {
        rank[*n as usize] = u32::try_from(r).unwrap_or(u32::MAX);
    }
    id.iter().map(|n| rank[*n as usize]).collect()
}

/// One API call of a thread, as the classifier sees it (cache-model §1).
#[derive(Debug, Clone, Copy)]
pub struct ThreadCall<'a> {
    /// Index of the request the call belongs to.
    pub request: usize,
    pub tokens: &'a TokenCounts,
    pub model: &'a str,
}

/// The calls of one thread, in order: the one place a thread's sequence of
/// calls is built. Today one call per request; a request made of several
/// API calls (`usage.iterations`, cache-model §1 v2) becomes several calls
/// here, in list order, when the calls table is merged in (the
/// classifier already takes tokens, model and the previous prompt from the
/// calls; it still writes one `RequestCache` per `ThreadCall::request`, so calls
/// sharing a request need their own output slot then).
pub fn thread_calls<'a, R: Borrow<Request>>(
    requests: &'a [R],
    thread: &'a [usize],
) -> impl Iterator<Item = ThreadCall<'a>> + 'a {
    thread.iter().map(move |&i| {
        let r = requests[i].borrow();
        ThreadCall { request: i, tokens: &r.tokens, model: &r.model }
    })
}

/// Boundary times of one `(user, session)`, sorted.
#[derive(Debug, Clone, Default)]
struct Times {
    compactions: Vec<DateTime<Utc>>,
    microcompacts: Vec<DateTime<Utc>>,
}

/// Compaction and microcompact times per `(user, session)`.
#[derive(Debug, Clone, Default)]
pub(super) struct CompactionTimes<'a> {
    by_session: HashMap<(&'a str, &'a str), Times>,
}

/// True when some `t` in sorted `times` has `after < t <= upto`.
fn any_between(times: &[DateTime<Utc>], after: DateTime<Utc>, upto: DateTime<Utc>) -> bool {
    let k = times.partition_point(|t| *t <= after);
    times.get(k).is_some_and(|t| *t <= upto)
}

impl<'a> CompactionTimes<'a> {
    /// Indexes `compactions` (both boundary kinds) by `(user, session)`.
    pub(super) fn build(compactions: &'a [Compaction]) -> CompactionTimes<'a> {
        let mut by_session: HashMap<(&str, &str), Times> = HashMap::new();
        for c in compactions {
            let e = by_session.entry((c.user.as_str(), c.session_id.as_str())).or_default();
            match c.boundary {
                Boundary::Compact => e.compactions.push(c.time),
                Boundary::Microcompact => e.microcompacts.push(c.time),
            }
        }
        for v in by_session.values_mut() {
            v.compactions.sort_unstable();
            v.microcompacts.sort_unstable();
        }
        CompactionTimes { by_session }
    }

    /// The boundary times of `r`'s session: looked up once for a thread,
    /// whose requests all share it.
    pub(super) fn of_session<'s>(&'s self, r: &'s Request) -> SessionTimes<'s> {
        let m: &'s HashMap<(&'s str, &'s str), Times> = &self.by_session;
        SessionTimes(m.get(&(r.user.as_str(), r.session_id.as_str())))
    }
}

/// The boundary times of one `(user, session)`, if it has any.
#[derive(Debug, Clone, Copy)]
pub(super) struct SessionTimes<'s>(Option<&'s Times>);

impl SessionTimes<'_> {
    /// True when a compaction of the session has `after < time <= r.time`.
    pub(super) fn between(&self, r: &Request, after: DateTime<Utc>) -> bool {
        self.0.is_some_and(|t| any_between(&t.compactions, after, r.time))
    }

    /// True when a microcompact of the session has `after < time <= r.time`.
    pub(super) fn microcompact_between(&self, r: &Request, after: DateTime<Utc>) -> bool {
        self.0.is_some_and(|t| any_between(&t.microcompacts, after, r.time))
    }
}

/// The identity of a session: `(user, session_id)`.
pub(super) type SessionKey<'a> = (&'a str, &'a str);

/// The last main-thread request of every `(user, session)` (by time, then
/// message id).
pub fn last_main<R: Borrow<Request>>(requests: &[R]) -> FoldMap<SessionKey<'_>, usize> {
    let mut last: FoldMap<SessionKey<'_>, usize> = FoldMap::default();
    for (i, r) in requests.iter().map(Borrow::borrow).enumerate() {
        if r.thread != MAIN_THREAD {
            continue;
        }
        let e = last.entry((r.user.as_str(), r.session_id.as_str())).or_insert(i);
        // On a tie (the calls of one response share its time and id) the
        // later row wins: the last call, as the classifier walks them.
        if time_order(requests[*e].borrow(), r) != Ordering::Greater {
            *e = i;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::calls::tests::request;
    use crate::model::TokenCounts;
    use chrono::TimeDelta;
    use proptest::prelude::*;

    /// A request of `session`/`thread`, `t` seconds after a fixed time.
    fn req(session: &str, thread: &str, t: u32) -> Request {
        let mut r = request("m1", TokenCounts { input: 1, output: 1, ..TokenCounts::default() });
        (r.session_id, r.thread) = (session.into(), thread.into());
        r.time += TimeDelta::seconds(i64::from(t));
        r
    }

    /// Requests of 2 users x 3 sessions x 3 threads with tied times and ids, in
    /// any order.
    fn arb_mixed() -> impl Strategy<Value = Vec<Request>> {
        let one = (0..2usize, 0..3usize, 0..3usize, 0..4u32, 0..3usize);
        prop::collection::vec(one, 0..80).prop_map(|v| {
            v.into_iter()
                .map(|(u, s, th, t, id)| {
                    let mut r = req(&format!("s{s}"), ["main", "a1", "acompact-1"][th], t);
                    r.user = ["", "u1"][u].into();
                    r.message_id = format!("msg_{id}");
                    r
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_thread_index_is_the_sort_by_thread_key_time_and_id(reqs in arb_mixed()) {
            let key = |r: &Request| (r.user.to_string(), r.session_id.to_string(), r.thread.to_string());
            let mut want: Vec<usize> = (0..reqs.len()).collect();
            want.sort_by(|&a, &b| {
                key(&reqs[a]).cmp(&key(&reqs[b])).then_with(|| time_order(&reqs[a], &reqs[b])).then_with(|| a.cmp(&b))
            });
            let index = ThreadIndex::build(&reqs);
            let got: Vec<Vec<usize>> = index.threads().map(<[usize]>::to_vec).collect();
            prop_assert_eq!(got.concat(), want.clone());
            // One run per distinct key, each run one key.
            let keys: std::collections::BTreeSet<_> = reqs.iter().map(key).collect();
            prop_assert_eq!(got.len(), keys.len());
            for run in &got {
                prop_assert!(run.iter().all(|&i| key(&reqs[i]) == key(&reqs[run[0]])));
            }
        }
    }
}
