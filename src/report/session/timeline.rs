//! One session's cache timeline: per request (in time order within a
//! thread) the prompt split into read / written / uncached tokens, the idle
//! gap and the TTL in force, the cache class with its cause, and the cost;
//! plus a summary per thread (main and each sub-agent) and the session's
//! compactions and microcompacts (cache model v2: rewinds and each cause of
//! a miss within the TTL are marked distinctly). Built from the cache model's output (`analyze::analyze`), so
//! the session page shows exactly what the `cache` report counts.

use crate::analyze::{CacheClass, ClassTable, RequestCache};
use crate::model::{Compaction, Request, MAIN_THREAD};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// One request on the timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineRow {
    pub time: DateTime<Utc>,
    /// The response's `message.id` (an API id, never content).
    pub message_id: String,
    pub thread: String,
    pub model: String,
    pub version: String,
    pub read_tokens: u64,
    pub write_5m_tokens: u64,
    pub write_1h_tokens: u64,
    /// Uncached input.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub class: CacheClass,
    /// A hit after the prompt shrank (cache model v2 rewind).
    pub rewind: bool,
    /// Seconds since the thread's previous request.
    pub gap_s: Option<f64>,
    /// TTL in force at this request.
    pub ttl_s: u32,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
    pub cost_usd: f64,
    /// The server's miss reason (cache-model section 19); empty: none.
    pub server_reason: String,
    /// Its `cache_missed_input_tokens`, when given.
    pub server_missed_tokens: Option<u64>,
    /// What a person reads (`analyze::cause_of`): the server's reason when
    /// it gave a known one, else `class`; and who named it.
    pub cause: String,
    pub cause_from: crate::analyze::CauseFrom,
    /// What made the call, as Claude Code recorded it (`querySource`,
    /// 2.1.33x); empty when not recorded.
    pub query_source: String,
    /// The TTL the call asked for (`5m`, `1h`); empty when not recorded.
    pub ttl_asked: String,
}

impl TimelineRow {
    /// The cause a person reads.
    pub fn cause(&self) -> crate::analyze::Cause {
        crate::analyze::Cause { key: self.cause.clone(), from: self.cause_from }
    }

    /// Prompt size `in + w + r`.
    pub fn prompt(&self) -> u64 {
        self.read_tokens + self.write_5m_tokens + self.write_1h_tokens + self.input_tokens
    }

    /// Cache writes of either TTL.
    pub fn write_tokens(&self) -> u64 {
        self.write_5m_tokens + self.write_1h_tokens
    }

    /// True when the gap outlived the TTL in force.
    pub fn expired(&self) -> bool {
        self.gap_s.is_some_and(|g| g > f64::from(self.ttl_s))
    }
}

/// Totals of one thread of a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadSummary {
    pub thread: String,
    pub requests: u64,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    pub cost_usd: f64,
    pub peak_prompt: u64,
    pub misses: u64,
    pub miss_cost_usd: f64,
    pub rewinds: u64,
}

/// A session's timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionTimeline {
    pub session_id: String,
    /// Main thread first, then sub-agents by first request.
    pub threads: Vec<ThreadSummary>,
    /// Every request, grouped by thread (same order as `threads`), in time
    /// order within a thread.
    pub rows: Vec<TimelineRow>,
    pub compactions: Vec<Compaction>,
    pub classes: ClassTable,
}

impl SessionTimeline {
    /// The rows of one thread.
    pub fn thread_rows(&self, thread: &str) -> Vec<&TimelineRow> {
        self.rows.iter().filter(|r| r.thread == thread).collect()
    }
}

fn row(r: &Request, c: &RequestCache) -> TimelineRow {
    let cause = crate::analyze::cause_of(c.class, &r.server_reason);
    TimelineRow {
        time: r.time,
        message_id: r.message_id.clone(),
        thread: r.thread.to_string(),
        model: r.model.to_string(),
        version: r.version.to_string(),
        read_tokens: r.tokens.cache_read,
        write_5m_tokens: r.tokens.cache_write_5m,
        write_1h_tokens: r.tokens.cache_write_1h,
        input_tokens: r.tokens.input,
        output_tokens: r.tokens.output,
        class: c.class,
        rewind: c.rewind,
        gap_s: c.gap_s,
        ttl_s: c.ttl_s,
        rebuilt_tokens: c.rebuilt_tokens,
        miss_cost_usd: c.miss_cost_usd,
        cost_usd: r.cost_usd,
        server_reason: r.server_reason.to_string(),
        server_missed_tokens: r.server_missed_tokens,
        cause: cause.key,
        cause_from: cause.from,
        query_source: r.client.query_source.to_string(),
        ttl_asked: r.client.ttl_asked.to_string(),
    }
}

fn summary(rows: &[TimelineRow]) -> Option<ThreadSummary> {
    let first = rows.first()?;
    Some(ThreadSummary {
        thread: first.thread.clone(),
        requests: rows.len() as u64,
        first: first.time,
        last: rows.iter().map(|r| r.time).max().unwrap_or(first.time),
        cost_usd: rows.iter().map(|r| r.cost_usd).sum(),
        peak_prompt: rows.iter().map(TimelineRow::prompt).max().unwrap_or(0),
        misses: rows.iter().filter(|r| r.class.is_miss()).count() as u64,
        miss_cost_usd: rows.iter().map(|r| r.miss_cost_usd).sum(),
        rewinds: rows.iter().filter(|r| r.rewind).count() as u64,
    })
}

/// The timeline of the requests at `indices` (one session's) of
/// `requests`/`caches`; None when there are none.
pub fn session_timeline(
    session_id: &str,
    requests: &[Request],
    caches: &[RequestCache],
    indices: &[usize],
    compactions: &[Compaction],
) -> Option<SessionTimeline> {
    let mut idx: Vec<usize> = indices.to_vec();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&requests[a], &requests[b]);
        (x.thread != MAIN_THREAD, &x.thread, x.time, &x.message_id).cmp(&(
            y.thread != MAIN_THREAD,
            &y.thread,
            y.time,
            &y.message_id,
        ))
    });
    let rows: Vec<TimelineRow> = idx.iter().map(|&i| row(&requests[i], &caches[i])).collect();
    if rows.is_empty() {
        return None;
    }
    let mut classes = ClassTable::default();
    for &i in &idx {
        classes.add(&caches[i]);
    }
    let mut threads: Vec<ThreadSummary> = rows.chunk_by(|a, b| a.thread == b.thread).filter_map(summary).collect();
    threads.sort_by(|a, b| {
        (a.thread != MAIN_THREAD, a.first, &a.thread).cmp(&(b.thread != MAIN_THREAD, b.first, &b.thread))
    });
    let order: Vec<&str> = threads.iter().map(|t| t.thread.as_str()).collect();
    let mut sorted = rows.clone();
    sorted.sort_by_key(|r| (order.iter().position(|t| *t == r.thread).unwrap_or(usize::MAX), r.time));
    let user = &requests[idx[0]].user;
    let compactions =
        compactions.iter().filter(|c| c.session_id == session_id && c.user == user.as_str()).cloned().collect();
    Some(SessionTimeline { session_id: session_id.to_owned(), threads, rows: sorted, compactions, classes })
}
