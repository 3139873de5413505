//! Phase 1 of the generator: when each request happens and how big its
//! prompt is, independent of the cache. Users type turns after random think
//! times, each turn runs a tool loop, some steps spawn sub-agents, contexts
//! that cross the auto-compact threshold are compacted (an `acompact-*`
//! request, a compaction row, a short new prompt), and some sessions switch
//! model. Hands on a `Schedule` of planned requests for the version pass and
//! the cache simulation.

mod edits;

pub(super) use edits::{Edit, EditKind};

use super::names::{branch, hex, session_id, system_prefix, title, HAIKU, OPUS, SONNET};
use super::SynthSpec;
use crate::model::{Boundary, MAIN_THREAD};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub(super) const SEC: i64 = 1000;
pub(super) const MIN: i64 = 60 * SEC;
pub(super) const HOUR: i64 = 60 * MIN;
pub(super) const DAY: i64 = 24 * HOUR;

/// One planned request.
#[derive(Debug, Clone)]
pub(super) struct Script {
    pub t_ms: i64,
    pub session: usize,
    pub thread: String,
    /// Global thread number (one per session thread).
    pub thread_slot: usize,
    /// Thread whose prefix cache this request uses (`acompact-*` use main's).
    pub cache_slot: usize,
    /// Main-thread compaction count: part of the cache key.
    pub epoch: u32,
    pub model: &'static str,
    pub prompt: u64,
    pub input: u64,
    pub output: u64,
    pub ttl: u32,
    pub web_search: u64,
    /// First main request after a compaction.
    pub after_compaction: bool,
    /// The CLI (re)started just before: it runs the installed version.
    pub restart: bool,
    /// Version number, set by the version pass.
    pub version: u32,
    /// What happened to the prompt since the thread's previous request (v2).
    pub edit: Option<Edit>,
}

/// A planned compaction row.
#[derive(Debug, Clone)]
pub(super) struct ScriptedCompaction {
    pub session: usize,
    pub t_ms: i64,
    pub trigger: &'static str,
    pub pre_tokens: u64,
    /// A compaction, or a microcompact (cache-model v2).
    pub boundary: Boundary,
    /// Tokens a microcompact cleared.
    pub tokens_saved: Option<u64>,
    /// Claude Code's idle compaction (truth for the compactions counted by trigger).
    pub idle: bool,
}

/// What a session is, besides its requests.
#[derive(Debug, Clone)]
pub(super) struct SessionMeta {
    pub id: String,
    pub project: usize,
    pub branch: String,
    pub title: String,
}

/// Everything phase 1 plans.
#[derive(Debug, Clone, Default)]
pub(super) struct Schedule {
    pub sessions: Vec<SessionMeta>,
    pub plans: Vec<Script>,
    pub compactions: Vec<ScriptedCompaction>,
    /// Upgrade times of Claude Code (ms), unsorted.
    pub upgrades: Vec<i64>,
    /// Threads allocated so far (all sessions).
    pub threads: usize,
}

/// A uniform draw in `lo..=hi`.
pub(super) fn between(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    rng.random_range(lo..=hi)
}

/// A draw skewed towards `lo` (square of a uniform).
fn skewed(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    let u: f64 = rng.random();
    lo + ((hi - lo) as f64 * u * u) as u64
}

/// A log-uniform duration in `lo..hi` ms.
fn log_uniform(rng: &mut ChaCha8Rng, lo: i64, hi: i64) -> i64 {
    let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
    rng.random_range(a..b).exp() as i64
}

/// The session generator's running state.
struct SessionGen<'a> {
    rng: &'a mut ChaCha8Rng,
    spec: &'a SynthSpec,
    out: &'a mut Schedule,
    sid: usize,
    t: i64,
    model: &'static str,
    /// Conversation tokens after the system prefix, outputs included.
    conv: u64,
    ctx: u64,
    last_prompt: u64,
    epoch: u32,
    main_ttl: u32,
    sub_ttl: u32,
    threshold: u64,
    main_slot: usize,
    restart: bool,
    after_compaction: bool,
    switch_at: Option<u32>,
    /// Time of the last main-thread request.
    last_main_t: Option<i64>,
    /// Main-thread prompts of the current lineage, for edits to cut at.
    anchors: Vec<edits::Anchor>,
}

impl SessionGen<'_> {
    /// A new global thread number.
    fn new_thread(&mut self) -> usize {
        self.out.threads += 1;
        self.out.threads - 1
    }

    /// Appends a planned request at the current time.
    fn push(&mut self, thread: String, ids: (usize, usize), model: &'static str, prompt: u64, ttl: u32) -> u64 {
        let output = skewed(self.rng, 50, 2000);
        let web_search = u64::from(self.rng.random_bool(0.01)) * between(self.rng, 1, 3);
        self.out.plans.push(Script {
            t_ms: self.t,
            session: self.sid,
            thread,
            thread_slot: ids.0,
            cache_slot: ids.1,
            epoch: self.epoch,
            model,
            input: between(self.rng, 1, 10).min(prompt),
            prompt,
            output,
            ttl,
            web_search,
            after_compaction: std::mem::take(&mut self.after_compaction),
            restart: std::mem::take(&mut self.restart),
            version: 0,
            edit: None,
        });
        output
    }

    /// One main-thread request that appends `add` tokens; compacts first
    /// when the prompt would cross the threshold; may carry an edit (v2).
    fn main_request(&mut self, add: u64) {
        if system_prefix(self.model) + self.conv + add > self.threshold {
            self.outside_idle_window();
            self.compact("auto", false);
        }
        if self.restart {
            self.anchors.clear(); // a restart may bring a new version: a new prefix
        }
        let edit = self.plan_edit(add);
        self.conv += add;
        let prompt = system_prefix(self.model) + self.conv;
        self.last_prompt = prompt;
        let ids = (self.main_slot, self.main_slot);
        let out = self.push(MAIN_THREAD.to_string(), ids, self.model, prompt, self.main_ttl);
        if let Some(p) = self.out.plans.last_mut() {
            p.edit = edit;
            if edit.is_some_and(|e| e.kind == EditKind::Evict) {
                self.anchors.clear();
            }
            self.anchors.retain(|a| a.1 - a.2 <= edit.map_or(u64::MAX, |e| e.cut));
            self.anchors.push((p.t_ms, p.prompt, p.input));
        }
        self.last_main_t = Some(self.t);
        self.conv += out;
    }

    /// A compaction now: the `acompact-*` summary request reading the main
    /// prefix, the boundary, and the short context the next request sends.
    fn compact(&mut self, trigger: &'static str, idle: bool) {
        let id = format!("acompact-{}", hex(self.rng, 6));
        let tid = self.new_thread();
        let prompt = system_prefix(self.model) + self.conv + 400;
        let ttl = super::TTL_5M;
        let summary = self.push(id, (tid, self.main_slot), self.model, prompt, ttl);
        self.t += between(self.rng, 20, 120) as i64 * SEC;
        self.out.compactions.push(ScriptedCompaction {
            session: self.sid,
            t_ms: self.t,
            trigger,
            pre_tokens: self.last_prompt,
            boundary: Boundary::Compact,
            tokens_saved: None,
            idle,
        });
        self.t += between(self.rng, 1, 5) as i64 * SEC;
        self.epoch += 1;
        self.anchors.clear();
        self.conv = self.ctx + summary + skewed(self.rng, 0, 12_000);
        self.after_compaction = true;
    }

    /// A sub-agent run from now; returns the size of its result.
    fn subagent(&mut self) -> u64 {
        let id = format!("a{}", hex(self.rng, 7));
        let tid = self.new_thread();
        let model = match self.rng.random_range(0..100) {
            0..60 => HAIKU,
            60..85 => SONNET,
            _ => self.model,
        };
        let n = between(self.rng, 2, 20);
        self.t += between(self.rng, 1, 3) as i64 * SEC;
        let mut conv = between(self.rng, 300, 3000);
        for k in 0..n {
            if k > 0 {
                self.t += between(self.rng, 2, 25) as i64 * SEC;
                conv += skewed(self.rng, 100, 4000);
            }
            let prompt = system_prefix(model) + conv;
            conv += self.push(id.clone(), (tid, tid), model, prompt, self.sub_ttl);
        }
        self.t += between(self.rng, 2, 10) as i64 * SEC;
        between(self.rng, 300, 3000)
    }

    /// Time for a tool call; returns the size of its result.
    fn tool_step(&mut self) -> u64 {
        if self.rng.random_bool(self.spec.p_subagent_per_step) {
            return self.subagent();
        }
        let gap = match self.rng.random_range(0..100) {
            0..80 => between(self.rng, 1, 15),
            80..97 => between(self.rng, 15, 90),
            _ => between(self.rng, 90, 420),
        };
        self.t += gap as i64 * SEC + between(self.rng, 0, 999) as i64;
        match self.rng.random_range(0..100) {
            0..90 => skewed(self.rng, 100, 4000),
            90..98 => between(self.rng, 4000, 12_000),
            _ => between(self.rng, 12_000, 30_000),
        }
    }

    /// A think time and whether the CLI restarted (and was updated) in it.
    fn break_length(&mut self) -> (i64, bool, bool) {
        let s = self.spec;
        let u: f64 = self.rng.random();
        if u < s.p_update_restart {
            // Quit, update Claude Code, resume: a short break on a new version.
            return (self.rng.random_range(MIN..4 * MIN), true, true);
        }
        let u = u - s.p_update_restart;
        if u < s.p_very_long_break {
            let restart = self.rng.random_bool(0.9);
            (
                self.rng.random_range(90 * MIN..16 * HOUR),
                restart,
                restart && self.rng.random_bool(s.p_upgrade_at_restart),
            )
        } else if u < s.p_very_long_break + s.p_long_break {
            let restart = self.rng.random_bool(0.5);
            (
                self.rng.random_range(10 * MIN..90 * MIN),
                restart,
                restart && self.rng.random_bool(s.p_upgrade_at_restart),
            )
        } else {
            (log_uniform(self.rng, 4 * SEC, 8 * MIN), false, false)
        }
    }

    /// The user's think time before turn `turn`, with its side effects:
    /// CLI restarts (and upgrades), manual compactions, model switches.
    fn think(&mut self, turn: u32) {
        let (gap, restart, upgraded) = self.break_length();
        self.t += gap;
        self.restart |= restart;
        if upgraded {
            self.out.upgrades.push(self.t - gap / 2);
        }
        let idle = self.idle_compaction(gap);
        if !idle && gap >= 10 * MIN && self.conv > 60_000 && self.rng.random_bool(self.spec.p_manual_compact) {
            self.compact("manual", false);
        }
        if self.switch_at == Some(turn) {
            self.model = if self.model == OPUS { SONNET } else { OPUS };
            self.anchors.clear();
        }
    }

    /// Runs `turns` user turns, stopping at `end_ms`.
    fn run(&mut self, turns: u32, end_ms: i64) {
        for turn in 0..turns {
            if turn > 0 {
                self.think(turn);
            }
            if self.t > end_ms {
                break;
            }
            let steps = 1 + skewed(self.rng, 0, 11);
            let mut add = between(self.rng, 20, 800);
            for step in 0..steps {
                if step > 0 {
                    add = self.tool_step();
                }
                self.main_request(add);
            }
        }
    }
}

/// Plans session `sid` of project `project` starting at `t0`.
fn plan_session(rng: &mut ChaCha8Rng, spec: &SynthSpec, out: &mut Schedule, t0: i64, end_ms: i64) {
    let sid = out.sessions.len();
    out.sessions.push(SessionMeta {
        id: session_id(rng),
        project: rng.random_range(0..spec.projects.max(1) as usize),
        branch: branch(rng),
        title: title(rng),
    });
    let main_1h = rng.random_bool(spec.p_main_1h);
    let main_ttl = if main_1h { super::TTL_1H } else { super::TTL_5M };
    let sub_1h = main_1h && rng.random_bool(spec.p_subagents_1h);
    let turns = rng.random_range(spec.turns_min..=spec.turns_max.max(spec.turns_min));
    let switch = rng.random_bool(spec.p_model_switch) && turns > 2;
    let ctx = between(rng, 2500, 9000);
    let main_slot = out.threads;
    out.threads += 1;
    let mut g = SessionGen {
        spec,
        sid,
        t: t0,
        model: if rng.random_bool(0.8) { OPUS } else { SONNET },
        conv: ctx,
        ctx,
        last_prompt: 0,
        epoch: 0,
        main_ttl,
        sub_ttl: if sub_1h { super::TTL_1H } else { super::TTL_5M },
        threshold: if rng.random_bool(spec.p_window_1m) { 967_000 } else { spec.compact_threshold },
        main_slot,
        restart: true,
        after_compaction: false,
        switch_at: if switch { Some(rng.random_range(2..turns)) } else { None },
        last_main_t: None,
        anchors: Vec::new(),
        out,
        rng,
    };
    g.run(turns, end_ms);
}

/// Plans every session of `spec` in the `days` before `end_ms`.
pub(super) fn schedule(rng: &mut ChaCha8Rng, spec: &SynthSpec, end_ms: i64) -> Schedule {
    let mut out = Schedule::default();
    let days = i64::from(spec.days.max(1));
    let start = (end_ms - days * DAY).div_euclid(DAY) * DAY;
    for _ in 0..spec.sessions {
        let day = rng.random_range(0..days);
        let tod = rng.random_range(8 * HOUR..19 * HOUR);
        let mut t0 = start + day * DAY + tod;
        if t0 > end_ms - HOUR {
            t0 = end_ms - rng.random_range(HOUR..6 * HOUR);
        }
        plan_session(rng, spec, &mut out, t0, end_ms);
    }
    for k in 1..=i64::from(spec.upgrades) {
        let at = start + k * days * DAY / (i64::from(spec.upgrades) + 1);
        out.upgrades.push(at + rng.random_range(-6 * HOUR..6 * HOUR));
    }
    out.plans.retain(|p| p.t_ms <= end_ms);
    out.compactions.retain(|c| c.t_ms <= end_ms);
    out
}
