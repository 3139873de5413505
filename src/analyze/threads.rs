//! Groups requests into threads (cache-model §1): one prompt-cache history
//! per `(session_id, thread)`, ordered by time then `message_id` for ties.
//! Also indexes compaction times per session, so the classifier can ask
//! whether a compaction fell between two main-thread requests. Hands on index
//! slices into the caller's request slice; nothing is copied.

use crate::model::{Compaction, Request, MAIN_THREAD};
use chrono::{DateTime, Utc};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Range;

/// Requests grouped by thread, each thread in time order.
#[derive(Debug, Clone)]
pub struct ThreadIndex {
    /// Request indices sorted by (session, thread, time, message_id).
    order: Vec<usize>,
    /// One range into `order` per thread.
    runs: Vec<Range<usize>>,
}

/// Order of two requests of one thread: by time, then by message id.
pub fn time_order(a: &Request, b: &Request) -> Ordering {
    a.time.cmp(&b.time).then_with(|| a.message_id.cmp(&b.message_id))
}

impl ThreadIndex {
    /// Groups `requests` (in any order) by `(session_id, thread)`.
    pub fn build(requests: &[Request]) -> ThreadIndex {
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            let (ra, rb) = (&requests[a], &requests[b]);
            ra.session_id
                .cmp(&rb.session_id)
                .then_with(|| ra.thread.cmp(&rb.thread))
                .then_with(|| time_order(ra, rb))
                .then_with(|| a.cmp(&b))
        });
        let mut runs = Vec::new();
        let mut start = 0;
        for k in 1..=order.len() {
            let boundary = k == order.len() || {
                let (a, b) = (&requests[order[k - 1]], &requests[order[k]]);
                a.session_id != b.session_id || a.thread != b.thread
            };
            if boundary {
                runs.push(start..k);
                start = k;
            }
        }
        ThreadIndex { order, runs }
    }

    /// Every thread as the time-ordered indices of its requests.
    pub fn threads(&self) -> impl Iterator<Item = &[usize]> + '_ {
        self.runs.iter().map(move |r| &self.order[r.clone()])
    }
}

/// Compaction times per session, sorted.
#[derive(Debug, Clone, Default)]
pub struct CompactionTimes<'a> {
    by_session: HashMap<&'a str, Vec<DateTime<Utc>>>,
}

impl<'a> CompactionTimes<'a> {
    /// Indexes `compactions` by session.
    pub fn build(compactions: &'a [Compaction]) -> CompactionTimes<'a> {
        let mut by_session: HashMap<&str, Vec<DateTime<Utc>>> = HashMap::new();
        for c in compactions {
            by_session.entry(c.session_id.as_str()).or_default().push(c.time);
        }
        for v in by_session.values_mut() {
            v.sort_unstable();
        }
        CompactionTimes { by_session }
    }

    /// True when a compaction of `session` has `after < time <= upto`.
    pub fn between(&self, session: &str, after: DateTime<Utc>, upto: DateTime<Utc>) -> bool {
        let Some(times) = self.by_session.get(session) else {
            return false;
        };
        let k = times.partition_point(|t| *t <= after);
        times.get(k).is_some_and(|t| *t <= upto)
    }
}

/// The last main-thread request of every session (by time, then message id).
pub fn last_main(requests: &[Request]) -> HashMap<&str, usize> {
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (i, r) in requests.iter().enumerate() {
        if r.thread != MAIN_THREAD {
            continue;
        }
        let e = last.entry(r.session_id.as_str()).or_insert(i);
        if time_order(&requests[*e], r) == Ordering::Less {
            *e = i;
        }
    }
    last
}
