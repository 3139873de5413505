//! The compaction-window what-if (cache model v4, §17): what a history
//! would have cost had Claude Code compacted each main thread when its
//! prompt reached a smaller window than its default. Every request re-reads
//! the whole context, so a long conversation pays for its size on every
//! turn; an earlier compaction trades that for more compactions.
//!
//! The rule, per main thread in time order (`simulate`): `cut` is what the
//! simulated compactions removed from the prompt (never more than the
//! prompt past the summary, `P - S`). Claude Code compacts between turns:
//! when the previous request's prompt, less its cut, reached the window, a
//! compaction runs before this request. It costs what the history's own
//! compactions cost per token of the prompt they compacted (`Evidence`),
//! and leaves that prompt at `S` tokens, so `cut = P_prev - S`. Each
//! request then costs what it cost, less its cut tokens at its own rates
//! (taken from its cache reads first, then its writes, then its uncached
//! input). A real compaction (class `compaction`) starts again from
//! `cut = 0`. A window at or above the thread's default threshold changes
//! nothing, so the default reproduces the history.

use super::classify::CacheClass;
use super::compaction::{CompactionCost, CompactionParams, LARGE_WINDOW_ABOVE};
use super::stats::median;
use crate::model::format::{plural, tokens_rounded, usd};
use crate::model::TokenCounts;
use crate::pricing::Rates;
use serde::Serialize;

/// The windows the what-if tries, in prompt tokens.
pub const WINDOWS: [u64; 3] = [200_000, 400_000, 600_000];
/// The prompt after a compaction when the history has none to measure
/// (the median on public transcripts is 21k to 49k tokens).
pub const SUMMARY_TOKENS: u64 = 25_000;

/// One main-thread request, as the what-if reads it.
#[derive(Debug, Clone, Copy)]
pub struct WindowRow {
    pub class: CacheClass,
    pub tokens: TokenCounts,
    /// None for a model without a price (its cost stays as it was).
    pub rates: Option<Rates>,
}

/// What a compaction costs and leaves, from the history's own compactions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// Median of a compaction's cost over the prompt it compacted; None
    /// when the history has none: a compaction then costs reading the
    /// prompt from cache and writing the summary into a 5-minute cache.
    pub usd_per_token: Option<f64>,
    /// Median prompt rebuilt after a compaction (`SUMMARY_TOKENS` without one).
    pub summary_tokens: u64,
}

impl Evidence {
    /// The evidence of `compactions` (the report's selection).
    pub fn of<'c>(compactions: impl IntoIterator<Item = &'c CompactionCost>) -> Evidence {
        let (mut per_token, mut summary) = (Vec::new(), Vec::new());
        for k in compactions {
            if let Some(pre) = k.pre_tokens.filter(|&p| p > 0 && k.total_usd > 0.0) {
                per_token.push(k.total_usd / pre as f64);
            }
            if k.rebuild_tokens > 0 {
                summary.push(k.rebuild_tokens as f64);
            }
        }
        Evidence {
            usd_per_token: median(per_token),
            summary_tokens: median(summary).map_or(SUMMARY_TOKENS, |m| m.round() as u64),
        }
    }

    /// What compacting a prompt of `prompt` tokens costs.
    fn compaction_usd(&self, prompt: u64, rates: Option<&Rates>) -> f64 {
        match (self.usd_per_token, rates) {
            (Some(u), _) => u * prompt as f64,
            (None, Some(r)) => prompt as f64 * r.read() + self.summary_tokens as f64 * r.write_5m(),
            (None, None) => 0.0,
        }
    }
}

/// The history at one window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WindowWhatIf {
    pub window_tokens: u64,
    /// True for the model's default (what happened).
    pub default: bool,
    pub cost_usd: f64,
    /// Compactions in the what-if: the history's and those it adds.
    pub compactions: u64,
    pub saving_usd: f64,
}

/// The what-if for `WINDOWS` and the default, over the main threads
/// (`threads`, each in time order) of a history whose every thread request
/// cost `total_usd` and which compacted `compactions` times.
pub fn window_what_if(threads: &[Vec<WindowRow>], total_usd: f64, compactions: u64, e: &Evidence) -> Vec<WindowWhatIf> {
    let params = CompactionParams::default();
    let default = WindowWhatIf {
        window_tokens: params.window_1m_threshold,
        default: true,
        cost_usd: total_usd,
        compactions,
        saving_usd: 0.0,
    };
    let mut out: Vec<WindowWhatIf> = WINDOWS
        .iter()
        .map(|&window| {
            let (mut saving, mut added) = (0.0, 0);
            for rows in threads.iter().filter(|rows| window < threshold(rows, &params)) {
                let (s, n) = simulate(rows, window, e);
                (saving, added) = (saving + s, added + n);
            }
            WindowWhatIf {
                window_tokens: window,
                default: false,
                cost_usd: total_usd - saving,
                compactions: compactions + added,
                saving_usd: saving,
            }
        })
        .collect();
    out.push(default);
    out
}

/// The auto-compact threshold of a main thread: its window's (§10).
fn threshold(rows: &[WindowRow], p: &CompactionParams) -> u64 {
    match rows.iter().map(|r| r.tokens.prompt()).max() {
        Some(peak) if peak > LARGE_WINDOW_ABOVE => p.window_1m_threshold,
        _ => p.window_200k_threshold,
    }
}

/// What compacting `rows` at `window` saves (negative: costs more), and the
/// compactions it adds. Nothing below the thread's own threshold changes.
fn simulate(rows: &[WindowRow], window: u64, e: &Evidence) -> (f64, u64) {
    let (mut cut, mut saving, mut added) = (0u64, 0.0, 0u64);
    // The previous request's prompt, as it was and as the what-if has it.
    let mut previous: Option<(u64, u64)> = None;
    for r in rows {
        if r.class == CacheClass::Compaction {
            (cut, previous) = (0, None);
        }
        if let Some((was, kept)) = previous.filter(|&(_, kept)| kept >= window) {
            added += 1;
            saving -= e.compaction_usd(kept, r.rates.as_ref());
            cut = was.saturating_sub(e.summary_tokens);
        }
        let prompt = r.tokens.prompt();
        let removed = cut.min(prompt.saturating_sub(e.summary_tokens));
        saving += cut_usd(r, removed);
        previous = Some((prompt, prompt - removed));
    }
    (saving, added)
}

/// What `r` costs less with `cut` prompt tokens fewer: reads first, then
/// writes, then uncached input.
fn cut_usd(r: &WindowRow, cut: u64) -> f64 {
    let Some(rates) = r.rates.filter(|_| cut > 0) else {
        return 0.0;
    };
    let mut t = r.tokens;
    let mut left = cut;
    for n in [&mut t.cache_read, &mut t.cache_write_5m, &mut t.cache_write_1h, &mut t.input] {
        let take = left.min(*n);
        (*n, left) = (*n - take, left - take);
    }
    rates.cost(&r.tokens, 0) - rates.cost(&t, 0)
}

/// The advice to compact a live session now: its prompt is past the window
/// that would have saved most over the history, and below Claude Code's own
/// threshold (so it will not compact by itself soon).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompactNow {
    pub prompt_tokens: u64,
    pub window_tokens: u64,
    /// What compacting at that window would have saved over the history.
    pub saving_usd: f64,
    /// The compactions it would have added there.
    pub compactions: u64,
    /// Turns after which compacting this session first costs less than
    /// resuming it (the advice's break-even).
    pub pays_off_after_turns: u32,
    /// True when the advice is to compact (within its horizon).
    pub recommended: bool,
}

impl CompactNow {
    /// The evidence in one sentence.
    pub fn sentence(&self) -> String {
        let offer = match self.recommended {
            true => "Compact now".to_owned(),
            false => format!(
                "If you will go on for {} or more, compact now",
                plural(u64::from(self.pays_off_after_turns), "turn", "turns")
            ),
        };
        let window = tokens_rounded(self.window_tokens as f64);
        format!(
            "{offer}: the prompt is {} tokens, past {window}, and over your history compacting at {window} would have cost {} less (with {}).",
            tokens_rounded(self.prompt_tokens as f64),
            usd(self.saving_usd),
            plural(self.compactions, "more compaction", "more compactions"),
        )
    }
}

/// `CompactNow` for a session whose last prompt is `prompt` tokens, given
/// the history's `windows` and the advice's break-even (`break_even`: None
/// when compacting this session never pays off, and then nothing is
/// offered) and recommendation.
pub fn compact_now(
    prompt: u64,
    windows: &[WindowWhatIf],
    break_even: Option<u32>,
    recommended: bool,
) -> Option<CompactNow> {
    let w = cheapest(windows)?;
    let default = windows.iter().find(|w| w.default)?;
    let past = prompt >= w.window_tokens && prompt < CompactionParams::default().window_1m_threshold;
    Some(CompactNow {
        prompt_tokens: prompt,
        window_tokens: w.window_tokens,
        saving_usd: w.saving_usd,
        compactions: w.compactions.saturating_sub(default.compactions),
        pays_off_after_turns: break_even.filter(|_| past)?,
        recommended,
    })
}

/// A what-if for tests: at 200k $3 more, at 400k $12.50 less with 3 more
/// compactions than the default's 2.
#[cfg(test)]
pub(crate) fn sample_windows() -> [WindowWhatIf; 3] {
    let w = |window_tokens, default, compactions, saving_usd| WindowWhatIf {
        window_tokens,
        default,
        cost_usd: 100.0 - saving_usd,
        compactions,
        saving_usd,
    };
    [w(200_000, false, 9, -3.0), w(400_000, false, 5, 12.5), w(967_000, true, 2, 0.0)]
}

/// The window that would have saved most, if any saves money.
pub fn cheapest(windows: &[WindowWhatIf]) -> Option<&WindowWhatIf> {
    windows.iter().filter(|w| !w.default && w.saving_usd > 0.0).max_by(|a, b| a.saving_usd.total_cmp(&b.saving_usd))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATES: Rates = Rates { input: 5e-6, output: 25e-6, read_multiplier: 0.1 };

    fn hit(read: u64) -> WindowRow {
        let tokens =
            TokenCounts { input: 10, cache_write_5m: 1_000, cache_read: read, output: 500, ..Default::default() };
        WindowRow { class: CacheClass::Hit, tokens, rates: Some(RATES) }
    }

    fn evidence() -> Evidence {
        Evidence { usd_per_token: Some(1e-6), summary_tokens: 20_000 }
    }

    #[test]
    fn a_thread_under_the_window_costs_what_it_cost() {
        let rows: Vec<WindowRow> = (1..=5).map(|k| hit(k * 50_000)).collect();
        let total: f64 = rows.iter().map(|r| RATES.cost(&r.tokens, 0)).sum();
        let w = window_what_if(&[rows], total, 0, &evidence());
        let at_400k = w.iter().find(|w| w.window_tokens == 400_000).unwrap();
        assert_eq!((at_400k.compactions, at_400k.saving_usd), (0, 0.0));
        let default = w.iter().find(|w| w.default).unwrap();
        assert_eq!((default.cost_usd, default.compactions, default.saving_usd), (total, 0, 0.0));
    }

    #[test]
    fn compacting_at_400k_cuts_every_later_read_and_pays_one_compaction() {
        // Prompts 300k, 400k, 500k, 600k, 700k on a 1M window.
        let rows: Vec<WindowRow> = (3..=7).map(|k| hit(k * 100_000 - 1_010)).collect();
        let total: f64 = rows.iter().map(|r| RATES.cost(&r.tokens, 0)).sum();
        let w = window_what_if(&[rows], total, 1, &evidence());
        let at_400k = w.iter().find(|w| w.window_tokens == 400_000).unwrap();
        // One compaction after the 400k turn (to 20k): the next prompts are
        // 120k, 220k, 320k.
        assert_eq!(at_400k.compactions, 2);
        let expected = 380_000.0 * 3.0 * RATES.read() - 400_000.0 * 1e-6;
        assert!((at_400k.saving_usd - expected).abs() < 1e-9, "{}", at_400k.saving_usd);
        assert!((at_400k.cost_usd - (total - expected)).abs() < 1e-9);
        let at_600k = w.iter().find(|w| w.window_tokens == 600_000).unwrap();
        // One after the 600k turn: 580k fewer on the last read, for a
        // compaction that costs more.
        assert_eq!(at_600k.compactions, 2);
        assert!((at_600k.saving_usd - (580_000.0 * RATES.read() - 0.6)).abs() < 1e-9);
        // Two at 200k (after 300k, then after 220k): 1.52M fewer read.
        let at_200k = w.iter().find(|w| w.window_tokens == 200_000).unwrap();
        assert_eq!(at_200k.compactions, 3);
        assert!((at_200k.saving_usd - (1_520_000.0 * RATES.read() - 0.52)).abs() < 1e-9);
        assert_eq!(cheapest(&w).map(|w| w.window_tokens), Some(200_000));
    }

    #[test]
    fn a_real_compaction_starts_the_cut_again_and_a_200k_model_never_changes() {
        let mut rows: Vec<WindowRow> = vec![hit(450_000), hit(550_000)];
        let mut after = hit(30_000);
        after.class = CacheClass::Compaction;
        rows.push(after);
        let (saving, added) = simulate(&rows, 400_000, &evidence());
        assert_eq!(added, 1);
        // Compacted after the 451,010 turn to 20k: the next reads 431,010
        // fewer; nothing after the real compaction.
        assert!((saving - (431_010.0 * RATES.read() - 451_010.0 * 1e-6)).abs() < 1e-9);
        // A thread on a 200k window compacts at 167k: larger windows change nothing.
        let small: Vec<WindowRow> = (1..=4).map(|k| hit(k * 45_000)).collect();
        let total: f64 = small.iter().map(|r| RATES.cost(&r.tokens, 0)).sum();
        let w = window_what_if(&[small], total, 0, &evidence());
        assert!(w.iter().all(|w| w.compactions == 0 && w.saving_usd == 0.0 && w.cost_usd == total));
    }

    #[test]
    fn compacting_now_is_offered_only_past_the_cheaper_window() {
        let windows = sample_windows();
        let now = compact_now(450_000, &windows, Some(3), true).unwrap();
        assert_eq!((now.window_tokens, now.compactions), (400_000, 3));
        assert_eq!(
            now.sentence(),
            "Compact now: the prompt is 450k tokens, past 400k, and over your history compacting at 400k would have cost $12.50 less (with 3 more compactions)."
        );
        let later = compact_now(450_000, &windows, Some(16), false).unwrap();
        assert!(later
            .sentence()
            .starts_with("If you will go on for 16 turns or more, compact now: the prompt is 450k"));
        assert_eq!(compact_now(450_000, &windows, None, false), None, "compacting this session never pays off");
        assert_eq!(compact_now(399_999, &windows, Some(3), true), None);
        assert_eq!(compact_now(970_000, &windows, Some(3), true), None, "Claude Code compacts it itself");
        let none_cheaper = [windows[0], windows[2]];
        assert_eq!(compact_now(450_000, &none_cheaper, Some(3), true), None);
    }

    #[test]
    fn without_compactions_in_the_history_one_costs_a_read_and_a_summary_write() {
        let e = Evidence::of([]);
        assert_eq!((e.usd_per_token, e.summary_tokens), (None, SUMMARY_TOKENS));
        let usd = e.compaction_usd(400_000, Some(&RATES));
        assert!((usd - (400_000.0 * 0.5e-6 + 25_000.0 * 6.25e-6)).abs() < 1e-12);
    }
}
