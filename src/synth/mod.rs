//! A generator of synthetic Claude Code sessions with known cache behaviour,
//! for tests and for the web UI's `--demo` mode. It is a generative model of
//! the server's prefix cache (TTL refreshed on every touch), independent of
//! the classifier in `analyze`: phase 1 (`plan`) decides when requests happen
//! and how big their prompts are; the version pass and phase 2 (`cache`)
//! simulate what the cache held. Hands on `SynthData`: request and compaction
//! rows (unpriced: `cost_usd` is 0), session titles, and the ground truth per
//! request. Deterministic for a seed (`ChaCha8Rng`).

mod cache;
pub mod calls;
mod names;
mod plan;

#[cfg(test)]
mod tests;

use crate::model::{Compaction, Request, Text, TokenCounts, MAIN_THREAD};
use chrono::{DateTime, TimeDelta, Utc};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub use names::{HAIKU, OPUS, SONNET};

/// TTL of 5-minute writes (s).
pub const TTL_5M: u32 = 300;
/// TTL of 1-hour writes (s).
pub const TTL_1H: u32 = 3600;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthSpec {
    /// The last possible request time; sessions are cut there.
    pub end: DateTime<Utc>,
    /// Length of the period before `end`.
    pub days: u32,
    pub projects: u32,
    pub sessions: u32,
    /// User turns per session, inclusive range.
    pub turns_min: u32,
    pub turns_max: u32,
    /// Share of sessions whose main thread writes with a 1-hour TTL.
    pub p_main_1h: f64,
    /// Share of 1h sessions whose sub-agents also write 1h (else 5m).
    pub p_subagents_1h: f64,
    /// Chance a tool step is a sub-agent run.
    pub p_subagent_per_step: f64,
    /// Share of sessions that switch the main model once.
    pub p_model_switch: f64,
    /// Chance of a 10-90 min think time before a turn.
    pub p_long_break: f64,
    /// Chance of a 1.5-16 h break before a turn.
    pub p_very_long_break: f64,
    /// Chance the user runs /compact after a long break on a big context.
    pub p_manual_compact: f64,
    /// Chance Claude Code was upgraded during a break that restarted it.
    pub p_upgrade_at_restart: f64,
    /// Chance the user quits, updates Claude Code and resumes (1-4 min).
    pub p_update_restart: f64,
    /// Upgrades spread evenly over the period, besides those.
    pub upgrades: u32,
    /// Share of sessions on a 1M window (threshold 967k).
    pub p_window_1m: f64,
    /// Cache model v2 events, per main request within the TTL: Claude Code
    /// clears old tool results (a `microcompact_boundary`), the prompt is
    /// rewritten after a cached point, the user rewinds (Esc Esc), the
    /// server loses the cache.
    pub p_microcompact: f64,
    pub p_context_edit: f64,
    pub p_rewind: f64,
    pub p_evict: f64,
    /// Chance Claude Code idle-compacts a big 1h conversation resting 54+ min.
    pub p_idle_compaction: f64,
    /// Auto-compact threshold on 200k windows.
    pub compact_threshold: u64,
}

impl SynthSpec {
    /// The web demo: ~3 weeks, ~90 sessions over 4 projects, both TTLs,
    /// idle gaps, compactions, sub-agents, model switches and upgrades.
    pub fn demo(end: DateTime<Utc>) -> SynthSpec {
        SynthSpec {
            end,
            days: 21,
            projects: 4,
            sessions: 90,
            turns_min: 3,
            turns_max: 45,
            p_main_1h: 0.5,
            p_subagents_1h: 0.4,
            p_subagent_per_step: 0.04,
            p_model_switch: 0.08,
            p_long_break: 0.1,
            p_very_long_break: 0.03,
            p_manual_compact: 0.25,
            p_upgrade_at_restart: 0.08,
            p_update_restart: 0.012,
            upgrades: 5,
            p_window_1m: 0.05,
            compact_threshold: 167_000,
            p_microcompact: 0.01,
            p_context_edit: 0.008,
            p_rewind: 0.01,
            p_evict: 0.003,
            p_idle_compaction: 0.8,
        }
    }

    /// A demo-shaped spec with `sessions` sessions over `days` days.
    pub fn scaled(end: DateTime<Utc>, days: u32, sessions: u32) -> SynthSpec {
        SynthSpec { days, sessions, ..SynthSpec::demo(end) }
    }
}

/// Why the generator's cache was warm or cold for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrueCause {
    /// The thread's own prefix was alive and read.
    Warm,
    /// The thread's first request.
    First,
    /// First main request after a compaction (new prefix).
    Compaction,
    /// The model changed (caches are per model).
    ModelSwitch,
    /// The version changed while the old prefix was still alive.
    VersionChange,
    /// The thread's prefix had expired (gap longer than its TTL).
    Expired,
    /// Claude Code cleared old tool results (a microcompact line).
    Microcompacted,
    /// The prompt was rewritten after a cached point.
    ContextEdited,
    /// The user went back to a cached point (Esc Esc).
    Rewound,
    /// The server lost the cache (nothing to read).
    Evicted,
}

/// The generator's ground truth for one request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TrueEvent {
    /// Index into `SynthData::requests`.
    pub request: usize,
    pub cause: TrueCause,
    /// The thread's own prefix was alive.
    pub thread_warm: bool,
    /// The shared system prefix of (model, version) was alive.
    pub shared_warm: bool,
    /// TTL the thread writes with.
    pub ttl_s: u32,
    /// Seconds since the thread's previous request.
    pub gap_s: Option<f64>,
    pub read_tokens: u64,
    /// Prompt of the thread's previous request (0 for the first).
    pub expected_prefix: u64,
    /// This request's prompt.
    pub prompt: u64,
    /// `min(expected_prefix, prompt) - read_tokens`, floored at 0.
    pub lost_tokens: u64,
}

/// The generated tables.
#[derive(Debug, Clone, Default)]
pub struct SynthData {
    /// In time order.
    pub requests: Vec<Request>,
    pub compactions: Vec<Compaction>,
    /// (session id, title).
    pub titles: Vec<(String, String)>,
    /// One entry per request, same order.
    pub truth: Vec<TrueEvent>,
    /// Per compaction row (same order): `manual`, `auto`, `idle` or
    /// `microcompact`, as the generator made it.
    pub compaction_truth: Vec<&'static str>,
}

/// A time from epoch milliseconds.
fn at(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

/// Strings shared by many rows, built once.
struct RowNames {
    /// (project dir, cwd) per project.
    projects: Vec<(String, String)>,
    versions: Vec<String>,
}

impl RowNames {
    fn new(spec: &SynthSpec, s: &plan::Schedule) -> RowNames {
        let projects =
            (0..spec.projects.max(1) as usize).map(|k| (names::project_dir(k), names::project_cwd(k))).collect();
        let versions = (0..=s.upgrades.len() as u32).map(names::version).collect();
        RowNames { projects, versions }
    }
}

/// The `Request` row of a simulated plan.
fn request_row(s: &plan::Schedule, n: &RowNames, p: &plan::Script, o: &cache::Outcome, k: usize) -> Request {
    let meta = &s.sessions[p.session];
    let (project, cwd) = &n.projects[meta.project];
    let (w5, w1h) = if p.ttl >= TTL_1H { (0, o.write) } else { (o.write, 0) };
    Request {
        time: at(p.t_ms),
        session_id: meta.id.as_str().into(),
        thread: p.thread.as_str().into(),
        project: project.as_str().into(),
        cwd: cwd.as_str().into(),
        git_branch: meta.branch.as_str().into(),
        version: n.versions[p.version as usize].as_str().into(),
        model: p.model.into(),
        tokens: TokenCounts {
            input: p.input,
            cache_write_5m: w5,
            cache_write_1h: w1h,
            cache_read: o.read,
            output: p.output,
        },
        web_search: p.web_search,
        speed: "standard".into(),
        inference_geo: Text::default(),
        server_reason: Default::default(),
        server_missed_tokens: None,
        is_sidechain: p.thread != MAIN_THREAD,
        cost_usd: 0.0,
        source: "synthetic".into(),
        line: k as u64 + 1,
        message_id: format!("msg_synth_{k:07}"),
        request_id: format!("req_synth_{k:07}"),
        user: Text::default(),
        machine: Text::default(),
        client: Default::default(),
    }
}

/// Generates sessions for `spec` from `seed`.
pub fn generate(seed: u64, spec: &SynthSpec) -> SynthData {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut s = plan::schedule(&mut rng, spec, spec.end.timestamp_millis());
    cache::assign_versions(&mut s);
    let mut order: Vec<usize> = (0..s.plans.len()).collect();
    order.sort_by_key(|&i| (s.plans[i].t_ms, i));
    let outcomes = cache::simulate(&s.plans, s.threads, &order);
    let row_names = RowNames::new(spec, &s);
    let requests = order
        .iter()
        .zip(&outcomes)
        .enumerate()
        .map(|(k, (&i, o))| request_row(&s, &row_names, &s.plans[i], o, k))
        .collect();
    let mut compactions: Vec<(Compaction, &'static str)> =
        s.compactions.iter().enumerate().map(|(k, c)| (compaction_row(&s, c, k), compaction_truth(c))).collect();
    compactions.sort_by(|a, b| a.0.time.cmp(&b.0.time).then_with(|| a.0.session_id.cmp(&b.0.session_id)));
    let (compactions, compaction_truth) = compactions.into_iter().unzip();
    let titles = s.sessions.iter().map(|m| (m.id.clone(), m.title.clone())).collect();
    let truth = outcomes.iter().map(|o| o.truth).collect();
    SynthData { requests, compactions, titles, truth, compaction_truth }
}

/// The row of a planned compaction or microcompact.
fn compaction_row(s: &plan::Schedule, c: &plan::ScriptedCompaction, k: usize) -> Compaction {
    Compaction {
        session_id: s.sessions[c.session].id.clone(),
        time: at(c.t_ms),
        trigger: c.trigger.to_string(),
        pre_tokens: Some(c.pre_tokens),
        source: "synthetic".into(),
        user: String::new(),
        uuid: format!("synth-boundary-{k:06}"),
        boundary: c.boundary,
        trigger_written: true,
        tokens_saved: c.tokens_saved,
    }
}

/// What the generator made a compaction row: its trigger, `idle`, or `microcompact`.
fn compaction_truth(c: &plan::ScriptedCompaction) -> &'static str {
    match (c.boundary, c.idle) {
        (crate::model::Boundary::Microcompact, _) => "microcompact",
        (_, true) => "idle",
        _ => c.trigger,
    }
}
