//! Compactions counted by trigger, and the figures of the idle-compaction
//! what-if (cache-model §1 v2, §5 v2). A compaction whose trigger was
//! written as `auto` is `idle` when its boundary came 3000-3600 s after the
//! previous main-thread request of its `(user, session)`. The what-if
//! compares, for every main-thread `ttl_1h` miss after a prompt of 200k+
//! tokens, what the gap cost with what Claude Code's idle compaction would
//! have cost instead (each gap's figures stored by `materialize`). Hands on
//! labels and serialisable figures for the `cache` report.

use super::threads::{time_order, SessionKey};
use crate::model::{Boundary, Compaction, Request, MAIN_THREAD};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// An `auto` compaction this soon after the last request is idle (seconds, inclusive).
pub const IDLE_COMPACTION_MIN_GAP_S: f64 = 3000.0;
/// ... and no later than this (seconds, inclusive).
pub const IDLE_COMPACTION_MAX_GAP_S: f64 = 3600.0;
/// The what-if considers gaps after prompts of at least this many tokens.
pub const IDLE_WHAT_IF_MIN_PROMPT: u64 = 200_000;
/// The label of idle compactions in `count_by_trigger`.
pub const IDLE: &str = "idle";

/// The idle-compaction what-if (§5 v2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct IdleCompaction {
    /// Main-thread `ttl_1h` misses after a prompt of 200k+ tokens.
    pub gaps: u64,
    /// Their miss cost (what the gaps cost).
    pub rebuild_usd: f64,
    /// What an idle compaction before each would have cost instead.
    pub compact_usd: f64,
    /// Compactions already classed `idle`.
    pub idle_compactions: u64,
}

/// The label a compaction is counted under: `idle` for an idle one, else its
/// trigger (`manual`, `auto`, or as written). `gap_s` is the time since the
/// previous main-thread request of its session, if any.
pub fn trigger_label(c: &Compaction, gap_s: Option<f64>) -> &str {
    let idle = gap_s.is_some_and(|g| (IDLE_COMPACTION_MIN_GAP_S..=IDLE_COMPACTION_MAX_GAP_S).contains(&g));
    if c.written_auto() && idle {
        IDLE
    } else {
        &c.trigger
    }
}

/// Main-thread request indices per `(user, session)` of the sessions that
/// have a compaction, in time order.
fn main_threads<'a, R: Borrow<Request>>(
    requests: &'a [R],
    compactions: &'a [Compaction],
) -> HashMap<SessionKey<'a>, Vec<usize>> {
    let mut by: HashMap<SessionKey<'a>, Vec<usize>> =
        compactions.iter().map(|c| ((c.user.as_str(), c.session_id.as_str()), Vec::new())).collect();
    for (i, r) in requests.iter().map(Borrow::borrow).enumerate().filter(|(_, r)| r.thread == MAIN_THREAD) {
        if let Some(v) = by.get_mut(&(r.user.as_str(), r.session_id.as_str())) {
            v.push(i);
        }
    }
    for v in by.values_mut() {
        v.sort_by(|&a, &b| time_order(requests[a].borrow(), requests[b].borrow()));
    }
    by
}

/// One compaction boundary's label and the main-thread request it is
/// counted with: the one before it, else the one after it (None when its
/// session has no main-thread request).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionLabel<'a> {
    pub compaction: &'a Compaction,
    /// `idle`, or the trigger (`trigger_label`).
    pub label: String,
    /// Index of the anchor request.
    pub anchor: Option<usize>,
}

/// The label and anchor of every `compact` boundary, in input order.
pub fn compaction_labels<'a, R: Borrow<Request>>(
    requests: &[R],
    compactions: &'a [Compaction],
) -> Vec<CompactionLabel<'a>> {
    let mains = main_threads(requests, compactions);
    compactions
        .iter()
        .filter(|c| c.boundary == Boundary::Compact)
        .map(|c| {
            let main = mains.get(&(c.user.as_str(), c.session_id.as_str())).map_or(&[][..], |v| &v[..]);
            let k = main.partition_point(|&i| requests[i].borrow().time <= c.time);
            let prev = k.checked_sub(1).map(|p| main[p]);
            let gap_s = prev.map(|p| (c.time - requests[p].borrow().time).as_seconds_f64());
            CompactionLabel {
                compaction: c,
                label: trigger_label(c, gap_s).to_owned(),
                anchor: prev.or(main.get(k).copied()),
            }
        })
        .collect()
}

/// Counts labelled compactions by label (`manual`, `auto`, `idle` always
/// present), each boundary line once: a uuid names one boundary line
/// wherever a resumed session replays it (first seen wins); without one,
/// the session, time and trigger do. `counted(anchor)` says whether an
/// anchored compaction is in the report.
pub fn count_by_trigger<'a>(labels: impl Iterator<Item = (&'a Compaction, &'a str, bool)>) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = ["manual", "auto", IDLE].iter().map(|k| ((*k).to_owned(), 0)).collect();
    let mut seen: HashSet<(&str, &str, &str, DateTime<Utc>)> = HashSet::new();
    for (c, label, counted) in labels {
        let fresh = match c.uuid.is_empty() {
            false => seen.insert((&c.user, "", &c.uuid, DateTime::<Utc>::MIN_UTC)),
            true => seen.insert((&c.user, &c.session_id, &c.trigger, c.time)),
        };
        if fresh && counted {
            *out.entry(label.to_owned()).or_default() += 1;
        }
    }
    out
}
