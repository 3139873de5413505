//! Phase 1, cache model v2 events: what Claude Code and the user do to a
//! live main-thread prompt between two requests. Each edit names a `cut`,
//! the length of an earlier, still-cached prompt of this lineage (an
//! "anchor"): the cache simulation drops every cached prefix longer than it.
//! A microcompact clears old tool results after the cut (and writes its
//! boundary line); a context edit rewrites what follows the cut; a rewind
//! (Esc Esc) goes back to the anchor; an eviction loses the whole cache
//! (a full rebuild). Idle compactions happen in `think`. Hands on `Edit`s
//! in the plans and microcompact rows in the schedule.

use super::{between, ScriptedCompaction, SessionGen, MIN, SEC};
use crate::model::Boundary;
use crate::synth::names::system_prefix;
use rand::Rng;

/// What happened to the prompt before a main-thread request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::synth) enum EditKind {
    Microcompact,
    ContextEdit,
    Rewind,
    Evict,
}

/// An edit and the length of the cached prefix that survives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::synth) struct Edit {
    pub kind: EditKind,
    pub cut: u64,
}

/// A main-thread prompt of the current lineage: (time ms, prompt, input).
pub(super) type Anchor = (i64, u64, u64);

/// Claude Code compacts an idle 1h conversation this long after its last request.
pub(super) const IDLE_COMPACT_AFTER: i64 = 3240 * SEC;
/// Prompts at least this big get idle-compacted in the generator (a
/// simplification: Claude Code's own bound is 200k, which the generator's
/// 167k auto-compact threshold rarely leaves room for).
pub(super) const IDLE_COMPACT_MIN_PROMPT: u64 = 100_000;

impl SessionGen<'_> {
    /// Draws the edit before a main request that will append `add`, if any,
    /// and applies it to the conversation.
    pub(super) fn plan_edit(&mut self, add: u64) -> Option<Edit> {
        let last_t = self.last_main_t?;
        let ttl_ms = i64::from(self.main_ttl) * 1000;
        if self.after_compaction || self.restart || self.t - last_t >= ttl_ms - MIN {
            return None;
        }
        let s = self.spec;
        let u: f64 = self.rng.random();
        let kinds = [
            (s.p_rewind, EditKind::Rewind),
            (s.p_microcompact, EditKind::Microcompact),
            (s.p_context_edit, EditKind::ContextEdit),
            (s.p_evict, EditKind::Evict),
        ];
        let mut acc = 0.0;
        let kind = kinds.iter().find(|(p, _)| {
            acc += p;
            u < acc
        })?;
        self.apply_edit(kind.1, last_t, add)
    }

    fn apply_edit(&mut self, kind: EditKind, last_t: i64, add: u64) -> Option<Edit> {
        if kind == EditKind::Evict {
            return Some(Edit { kind, cut: 0 });
        }
        // A rewind re-sends the anchor plus `add`: only a short turn stays a hit.
        if kind == EditKind::Rewind && add > 1900 {
            return None;
        }
        let e = self.last_prompt;
        let threshold = 2000u64.max(e / 20);
        let alive = i64::from(self.main_ttl) * 1000 - MIN;
        let now = self.t;
        let fits = |a: &&Anchor| now - a.0 < alive && (kind != EditKind::Rewind || a.1 + add + 12 + threshold < e);
        // A rewind goes back a little; Claude Code's edits reach further back.
        let anchor = match kind {
            EditKind::Rewind => self.anchors.iter().rev().find(fits),
            _ => self.anchors.iter().find(fits),
        };
        let &(_, prompt_k, input_k) = anchor?;
        let cut = prompt_k - input_k;
        let sys = system_prefix(self.model);
        match kind {
            EditKind::Rewind => self.conv = prompt_k - sys,
            EditKind::Microcompact => {
                let saved = (sys + self.conv).saturating_sub(cut) / 2;
                self.conv -= saved;
                self.out.compactions.push(ScriptedCompaction {
                    session: self.sid,
                    t_ms: last_t + (self.t - last_t) / 2,
                    trigger: "auto",
                    pre_tokens: self.last_prompt,
                    boundary: Boundary::Microcompact,
                    tokens_saved: Some(saved),
                    idle: false,
                });
            }
            EditKind::ContextEdit | EditKind::Evict => {}
        }
        Some(Edit { kind, cut })
    }

    /// After a rest of `gap` ms: Claude Code's idle compaction of a big 1h
    /// conversation, 3240 s after its last request (its boundary lands
    /// 3260-3360 s after it). Returns whether it happened.
    pub(super) fn idle_compaction(&mut self, gap: i64) -> bool {
        let Some(last_t) = self.last_main_t else { return false };
        let rested = self.t - last_t;
        let due = self.main_ttl == crate::synth::TTL_1H
            && self.last_prompt >= IDLE_COMPACT_MIN_PROMPT
            && rested > IDLE_COMPACT_AFTER + 130 * SEC
            && gap > 0
            && self.rng.random_bool(self.spec.p_idle_compaction);
        if due {
            let back = self.t;
            self.t = last_t + IDLE_COMPACT_AFTER;
            self.compact("auto", true);
            self.t = self.t.max(back);
        }
        due
    }

    /// Moves a threshold auto-compaction out of the idle window (its
    /// boundary 3000-3600 s after the last request would read as idle).
    pub(super) fn outside_idle_window(&mut self) {
        let Some(last_t) = self.last_main_t else { return };
        let from = self.t - last_t;
        if from + 125 * SEC >= 3000 * SEC && from <= 3600 * SEC {
            self.t = last_t + 3601 * SEC + between(self.rng, 0, 999) as i64;
        }
    }
}
