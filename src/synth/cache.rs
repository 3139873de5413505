//! Phase 2 of the generator: a server-side prefix cache, simulated in
//! global time order and independent of the classifier. Each thread keeps
//! entries keyed by (session, thread, model, version, compaction epoch), each
//! with an expiry that every read or write refreshes; the shared system
//! prefix is cached per (model, version) across all sessions. Also assigns
//! Claude Code versions (the CLI picks up the installed version when it
//! restarts) and applies the v2 edits (microcompacts, context edits,
//! rewinds, evictions) to the cached prefixes. Hands on, per planned request, the tokens read and written and
//! the ground truth of why the cache was warm or cold.

use super::names::{model_index, system_prefix};
use super::plan::{Edit, EditKind, Schedule, Script};
use super::{TrueCause, TrueEvent};

/// Sets `Script::version`: each session runs the version installed when its
/// CLI last (re)started.
pub(super) fn assign_versions(s: &mut Schedule) {
    s.upgrades.sort_unstable();
    let mut order: Vec<usize> = (0..s.plans.len()).collect();
    order.sort_by_key(|&i| (s.plans[i].session, s.plans[i].t_ms, i));
    let mut running: Vec<Option<u32>> = vec![None; s.sessions.len()];
    for i in order {
        let p = &mut s.plans[i];
        let installed = s.upgrades.partition_point(|u| *u <= p.t_ms) as u32;
        let v = running[p.session].get_or_insert(installed);
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

/// The prefixes one thread cached under one (model, version, epoch) key.
#[derive(Debug, Clone)]
struct Slot {
    model: &'static str,
    version: u32,
    epoch: u32,
    entries: Vec<Entry>,
}

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
    /// Per cache slot (thread), its keys and cached prefixes.
    threads: Vec<Vec<Slot>>,
    /// Expiry of the shared system prefix per [model index][version].
    shared: Vec<Vec<Option<i64>>>,
    /// Per thread slot, its previous request.
    last: Vec<Option<Last>>,
}

impl Server {
    /// The entries of a thread under a key, if the key was ever used.
    fn entries(&self, p: &Script, version: u32) -> Option<&Vec<Entry>> {
        self.threads[p.cache_slot]
            .iter()
            .find(|s| s.model == p.model && s.version == version && s.epoch == p.epoch)
            .map(|s| &s.entries)
    }

    /// The entries of `p`'s own key, created when missing.
    fn entries_mut(&mut self, p: &Script) -> &mut Vec<Entry> {
        let slots = &mut self.threads[p.cache_slot];
        let k = match slots.iter().position(|s| s.model == p.model && s.version == p.version && s.epoch == p.epoch) {
            Some(k) => k,
            None => {
                slots.push(Slot { model: p.model, version: p.version, epoch: p.epoch, entries: Vec::new() });
                slots.len() - 1
            }
        };
        &mut slots[k].entries
    }

    /// Longest live entry of `p`'s key fitting `avail`, refreshed at `t`.
    fn read_thread(&mut self, p: &Script, avail: u64, t: i64) -> Option<u64> {
        let entries = self.entries_mut(p);
        entries.retain(|e| e.expiry >= t);
        let best = entries.iter_mut().filter(|e| e.len <= avail).max_by_key(|e| e.len)?;
        best.expiry = best.expiry.max(t + best.ttl_ms);
        Some(best.len)
    }

    /// The shared prefix's expiry cell of (model, version).
    fn shared_mut(&mut self, model: &str, version: u32) -> &mut Option<i64> {
        let m = model_index(model);
        if self.shared.len() <= m {
            self.shared.resize(m + 1, Vec::new());
        }
        let row = &mut self.shared[m];
        if row.len() <= version as usize {
            row.resize(version as usize + 1, None);
        }
        &mut row[version as usize]
    }

    /// Why request `p` found the cache as it did (given `warm`, whether its
    /// own thread prefix was alive).
    fn cause(&self, p: &Script, warm: bool) -> TrueCause {
        let Some(prev) = self.last[p.thread_slot] else {
            return TrueCause::First;
        };
        if p.after_compaction {
            return TrueCause::Compaction;
        }
        if prev.model != p.model {
            return TrueCause::ModelSwitch;
        }
        if prev.version != p.version {
            let alive = self.entries(p, prev.version).is_some_and(|v| v.iter().any(|e| e.expiry >= p.t_ms));
            return if alive { TrueCause::VersionChange } else { TrueCause::Expired };
        }
        if let Some(e) = p.edit {
            return match e.kind {
                EditKind::Microcompact => TrueCause::Microcompacted,
                EditKind::ContextEdit => TrueCause::ContextEdited,
                EditKind::Rewind => TrueCause::Rewound,
                EditKind::Evict => TrueCause::Evicted,
            };
        }
        if warm {
            TrueCause::Warm
        } else {
            TrueCause::Expired
        }
    }

    /// Applies an edit (v2): cached prefixes longer than its cut no longer
    /// match the prompt; an eviction loses the thread's cache and the
    /// shared system prefix of its model and version.
    fn edit(&mut self, p: &Script, e: Edit) {
        if e.kind == EditKind::Evict {
            self.entries_mut(p).clear();
            *self.shared_mut(p.model, p.version) = None;
        } else {
            self.entries_mut(p).retain(|x| x.len <= e.cut);
        }
    }

    /// Simulates one request (in global time order).
    fn request(&mut self, index: usize, p: &Script) -> Outcome {
        if let Some(e) = p.edit {
            self.edit(p, e);
        }
        let t = p.t_ms;
        let ttl_ms = i64::from(p.ttl) * 1000;
        let avail = p.prompt - p.input;
        let sys = system_prefix(p.model);
        let shared_warm = self.shared_mut(p.model, p.version).is_some_and(|e| e >= t);
        let thread_read = self.read_thread(p, avail, t);
        let cause = self.cause(p, thread_read.is_some());
        let shared_read = if shared_warm && sys <= avail { sys } else { 0 };
        let read = thread_read.unwrap_or(0).max(shared_read);
        let write = avail - read;
        if write > 0 {
            self.entries_mut(p).push(Entry { len: avail, expiry: t + ttl_ms, ttl_ms });
        }
        let sh = self.shared_mut(p.model, p.version);
        *sh = Some(sh.map_or(t + ttl_ms, |e| e.max(t + ttl_ms)));
        let last = Last { t_ms: t, prompt: p.prompt, model: p.model, version: p.version };
        let prev = self.last[p.thread_slot].replace(last);
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
            prompt: p.prompt,
            lost_tokens: expected.min(p.prompt).saturating_sub(read),
        };
        Outcome { read, write, truth }
    }
}

/// Simulates the plans in `order` (global time order); `index` of an
/// outcome is its position in `order`.
pub(super) fn simulate(plans: &[Script], threads: usize, order: &[usize]) -> Vec<Outcome> {
    let mut server = Server { threads: vec![Vec::new(); threads], shared: Vec::new(), last: vec![None; threads] };
    order.iter().enumerate().map(|(k, &i)| server.request(k, &plans[i])).collect()
}
