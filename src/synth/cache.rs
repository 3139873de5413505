//! Phase 2 of the generator: a server-side prefix cache, simulated in
//! global time order and independent of the classifier. Each thread keeps
//! entries keyed by (session, thread, model, version, compaction epoch), each
//! with an expiry that every read or write refreshes; the shared system
//! prefix is cached per (model, version) across all sessions. Also assigns
//! Claude Code versions (the CLI picks up the installed version when it
//! restarts). Hands on, per planned request, the tokens read and written and
//! the ground truth of why the cache was warm or cold.

use super::names::system_prefix;
use super::plan::{Plan, Schedule};
use super::{TrueCause, TrueEvent};
use std::collections::HashMap;

/// Sets `Plan::version`: each session runs the version installed when its
/// CLI last (re)started.
pub(super) fn assign_versions(s: &mut Schedule) {
    s.upgrades.sort_unstable();
    let mut order: Vec<usize> = (0..s.plans.len()).collect();
    order.sort_by_key(|&i| (s.plans[i].session, s.plans[i].t_ms, i));
    let mut running: HashMap<usize, u32> = HashMap::new();
    for i in order {
        let p = &mut s.plans[i];
        let installed = s.upgrades.partition_point(|u| *u <= p.t_ms) as u32;
        let v = running.entry(p.session).or_insert(installed);
        if p.restart {
            *v = installed;
        }
        p.version = *v;
    }
}

/// One cached prefix.
#[derive(Debug, Clone, Copy)]
struct Entry {
    len: u64,
    expiry: i64,
    ttl_ms: i64,
}

type ThreadKey = (usize, u32, &'static str, u32, u32);

/// What a thread's previous request left behind.
#[derive(Debug, Clone, Copy)]
struct Last {
    t_ms: i64,
    prompt: u64,
    model: &'static str,
    version: u32,
}

/// Tokens read and written by one simulated request, with the truth.
#[derive(Debug, Clone, Copy)]
pub(super) struct Outcome {
    pub read: u64,
    pub write: u64,
    pub truth: TrueEvent,
}

/// The simulated cache.
#[derive(Debug, Default)]
struct Server {
    threads: HashMap<ThreadKey, Vec<Entry>>,
    shared: HashMap<(&'static str, u32), i64>,
    last: HashMap<(usize, u32), Last>,
}

impl Server {
    /// Longest live thread entry fitting `avail`, refreshed at `t`.
    fn read_thread(&mut self, key: ThreadKey, avail: u64, t: i64) -> Option<u64> {
        let entries = self.threads.entry(key).or_default();
        entries.retain(|e| e.expiry >= t);
        let best = entries
            .iter_mut()
            .filter(|e| e.len <= avail)
            .max_by_key(|e| e.len)?;
        best.expiry = best.expiry.max(t + best.ttl_ms);
        Some(best.len)
    }

    /// Why request `p` found the cache as it did (given `warm`, whether its
    /// own thread prefix was alive).
    fn cause(&self, p: &Plan, warm: bool) -> TrueCause {
        let Some(prev) = self.last.get(&(p.session, p.thread_id)) else {
            return TrueCause::First;
        };
        if p.after_compaction {
            return TrueCause::Compaction;
        }
        if prev.model != p.model {
            return TrueCause::ModelSwitch;
        }
        if prev.version != p.version {
            let old: ThreadKey = (p.session, p.cache_thread, p.model, prev.version, p.epoch);
            let alive = self
                .threads
                .get(&old)
                .is_some_and(|v| v.iter().any(|e| e.expiry >= p.t_ms));
            return if alive { TrueCause::VersionChange } else { TrueCause::Expired };
        }
        if warm {
            TrueCause::Warm
        } else {
            TrueCause::Expired
        }
    }

    /// Simulates one request (in global time order).
    fn request(&mut self, index: usize, p: &Plan) -> Outcome {
        let t = p.t_ms;
        let ttl_ms = i64::from(p.ttl) * 1000;
        let avail = p.prompt - p.input;
        let key: ThreadKey = (p.session, p.cache_thread, p.model, p.version, p.epoch);
        let sys = system_prefix(p.model);
        let shared_warm = self.shared.get(&(p.model, p.version)).is_some_and(|e| *e >= t);
        let cause_warm = self.read_thread_peek(key, avail, t);
        let cause = self.cause(p, cause_warm);
        let thread_read = self.read_thread(key, avail, t);
        let shared_read = if shared_warm && sys <= avail { sys } else { 0 };
        let read = thread_read.unwrap_or(0).max(shared_read);
        let write = avail - read;
        if write > 0 {
            let e = Entry { len: avail, expiry: t + ttl_ms, ttl_ms };
            self.threads.entry(key).or_default().push(e);
        }
        let sh = self.shared.entry((p.model, p.version)).or_insert(t + ttl_ms);
        *sh = (*sh).max(t + ttl_ms);
        let prev = self.last.insert(
            (p.session, p.thread_id),
            Last { t_ms: t, prompt: p.prompt, model: p.model, version: p.version },
        );
        let expected = prev.map_or(0, |l| l.prompt);
        let truth = TrueEvent {
            request: index,
            cause,
            thread_warm: thread_read.is_some(),
            shared_warm,
            ttl_s: p.ttl,
            gap_s: prev.map(|l| (t - l.t_ms) as f64 / 1000.0),
            read_tokens: read,
            expected_prefix: expected,
            lost_tokens: expected.saturating_sub(read),
        };
        Outcome { read, write, truth }
    }

    /// Whether a live thread entry fits, without refreshing it.
    fn read_thread_peek(&self, key: ThreadKey, avail: u64, t: i64) -> bool {
        self.threads
            .get(&key)
            .is_some_and(|v| v.iter().any(|e| e.expiry >= t && e.len <= avail))
    }
}

/// Simulates the plans in `order` (global time order); `index` of an
/// outcome is its position in `order`.
pub(super) fn simulate(plans: &[Plan], order: &[usize]) -> Vec<Outcome> {
    let mut server = Server::default();
    order
        .iter()
        .enumerate()
        .map(|(k, &i)| server.request(k, &plans[i]))
        .collect()
}
