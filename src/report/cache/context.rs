//! What a growing context costs (cache model v4, §17): the thread requests
//! by the size of their prompt, in bands, with their count and cost and the
//! share of the spend each band takes, and what compacting earlier would
//! have cost (`analyze::window`). Every request re-reads the whole context,
//! so a conversation near its window pays for it on every turn. Read from
//! the stored analysis rows the `cache` report covers.

use super::splits::{SplitRows, COLUMNS};
use super::CacheQuery;
use crate::analyze::window::{cheapest, window_what_if, Evidence, WindowRow, WindowWhatIf};
use crate::analyze::LARGE_WINDOW_ABOVE;
use crate::analyze::{CacheClass, SessionCompaction};
use crate::model::format::{plural, thousands, tokens_rounded, usd};
use crate::model::MAIN_THREAD;
use crate::report::ReportError;
use crate::store::view::StoreView;
use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{Cell, CellAlignment, Table};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The bands' lower bounds, in prompt tokens (the last runs to the largest
/// window, 1M).
const BANDS: [u64; 4] = [0, 100_000, 200_000, 400_000];

/// The context figures of every request `q` selects, read on their own:
/// what `advise` weighs a live session against.
pub fn context_report(view: &StoreView, q: &CacheQuery) -> Result<Context, ReportError> {
    let mut tally = ContextTally::default();
    view.for_each_batch(q, &COLUMNS, |df| {
        tally.add(&SplitRows::of(df)?);
        Ok(())
    })?;
    let (ids, user) = (tally.sessions(), q.query.user.as_deref());
    let selected = |u: &str, s: &str| user.is_none_or(|x| x == u) && ids.contains(s);
    let compaction = super::view::compaction_reports(view, selected)?;
    Ok(tally.finish(&compaction))
}

/// The requests whose prompt is at least `from` tokens (and under the next
/// band's `from`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ContextBand {
    /// In words: `under 100k`, `100k-200k`, `400k-1M`.
    pub band: String,
    pub from_tokens: u64,
    /// None for the last band.
    pub to_tokens: Option<u64>,
    pub requests: u64,
    pub cost_usd: f64,
    /// Of the cost of every band (None when nothing cost anything).
    pub share: Option<f64>,
}

/// The bands and the compaction-window what-if of a selection.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Context {
    pub bands: Vec<ContextBand>,
    /// 200k, 400k, 600k and the default (`analyze::window`).
    pub windows: Vec<WindowWhatIf>,
}

/// A main thread: `(user, session)`.
type ThreadKey = (String, String);
/// A main thread's rows, with their times (UTC milliseconds).
type Rows = Vec<(i64, WindowRow)>;

/// The context figures of the rows a report selects, counted a batch at a
/// time. Only the main threads whose prompt passed 200k tokens are held
/// (time and `WindowRow`), the only ones a window changes; rows come
/// grouped by session, so a session's rows are held from the batch that
/// shows it past 200k on, with its earlier rows of the same run.
#[derive(Debug, Default)]
pub struct ContextTally {
    bands: [(u64, f64); BANDS.len()],
    /// The main-thread rows of the session being read.
    run: Option<(ThreadKey, Rows)>,
    held: HashMap<ThreadKey, Rows>,
    sessions: HashSet<String>,
}

impl ContextTally {
    /// Counts a batch's `rows`.
    pub fn add(&mut self, rows: &SplitRows) {
        for i in 0..rows.rows() {
            let prompt = rows.tokens(i).prompt();
            let band = BANDS.iter().rposition(|&from| prompt >= from).unwrap_or(0);
            self.bands[band].0 += 1;
            self.bands[band].1 += rows.actual_usd[i];
            // Rows come grouped by session: look a session up when it changes.
            if (i == 0 || rows.session[i] != rows.session[i - 1]) && !self.sessions.contains(rows.session[i]) {
                self.sessions.insert(rows.session[i].to_owned());
            }
            if rows.thread[i] != MAIN_THREAD {
                continue;
            }
            let row = WindowRow {
                class: rows.class[i].unwrap_or(CacheClass::Hit),
                tokens: rows.tokens(i),
                rates: rows.rates(i),
            };
            self.push((rows.user[i], rows.session[i]), rows.time_ms[i], row);
        }
    }

    /// Adds a main-thread row to its session's run, closing the previous run.
    fn push(&mut self, key: (&str, &str), time_ms: i64, row: WindowRow) {
        if self.run.as_ref().is_none_or(|(k, _)| (k.0.as_str(), k.1.as_str()) != key) {
            self.close_run();
            self.run = Some(((key.0.to_owned(), key.1.to_owned()), Vec::new()));
        }
        if let Some((_, rows)) = &mut self.run {
            rows.push((time_ms, row));
        }
    }

    /// Holds the run just read when its session passed 200k tokens (or is
    /// held already), else lets it go.
    fn close_run(&mut self) {
        let Some((key, rows)) = self.run.take() else { return };
        let large = rows.iter().any(|(_, r)| r.tokens.prompt() > LARGE_WINDOW_ABOVE);
        if large || self.held.contains_key(&key) {
            self.held.entry(key).or_default().extend(rows);
        }
    }

    /// The sessions read (for their compaction reports).
    pub fn sessions(&self) -> &HashSet<String> {
        &self.sessions
    }

    /// The bands, every one even when empty, and the what-if, with
    /// `compaction`, the selection's compaction reports, as its evidence.
    pub fn finish(mut self, compaction: &[SessionCompaction]) -> Context {
        self.close_run();
        let total = crate::model::money::sum(self.bands.iter().map(|b| b.1));
        let bands = BANDS
            .iter()
            .zip(self.bands)
            .enumerate()
            .map(|(i, (&from, (requests, cost_usd)))| {
                let to = BANDS.get(i + 1).copied();
                let share = (total > 0.0).then(|| cost_usd / total);
                ContextBand { band: band_words(from, to), from_tokens: from, to_tokens: to, requests, cost_usd, share }
            })
            .collect();
        // In session order, so the what-if sums the same way every run.
        let mut held: Vec<(ThreadKey, Rows)> = self.held.into_iter().collect();
        held.sort_by(|a, b| a.0.cmp(&b.0));
        let threads: Vec<Vec<WindowRow>> = held
            .into_iter()
            .map(|(_, mut rows)| {
                rows.sort_by_key(|(time, _)| *time);
                rows.into_iter().map(|(_, r)| r).collect()
            })
            .collect();
        let compactions = compaction.iter().flat_map(|s| &s.compactions);
        let evidence = Evidence::of(compactions.clone());
        let windows = window_what_if(&threads, total, compactions.count() as u64, &evidence);
        Context { bands, windows }
    }
}

/// `100k-200k`, `under 100k`, `400k-1M`.
fn band_words(from: u64, to: Option<u64>) -> String {
    let k = |n: u64| format!("{}k", n / 1000);
    match to {
        Some(to) if from == 0 => format!("under {}", k(to)),
        Some(to) => format!("{}-{}", k(from), k(to)),
        None => format!("{}-1M", k(from)),
    }
}

/// The one sentence on the what-if: the window that would have saved most,
/// or that none would have.
pub fn window_sentence(windows: &[WindowWhatIf]) -> Option<String> {
    let default = windows.iter().find(|w| w.default)?;
    Some(match cheapest(windows) {
        Some(w) => {
            let more = w.compactions.saturating_sub(default.compactions);
            format!(
                "Compacting at {} tokens would have cost {} less, with {}.",
                tokens_rounded(w.window_tokens as f64),
                usd(w.saving_usd),
                plural(more, "more compaction", "more compactions")
            )
        }
        None => "Compacting earlier than Claude Code's default window would not have cost less.".to_owned(),
    })
}

/// The bands and the what-if as a terminal table and a sentence (nothing
/// when no request has a prompt).
pub fn render(context: &Context) -> String {
    if context.bands.iter().all(|b| b.requests == 0) {
        return String::new();
    }
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(["Prompt tokens", "Requests", "Cost", "Share of spend"]);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    for b in &context.bands {
        t.add_row(vec![
            Cell::new(&b.band),
            right(thousands(b.requests)),
            right(usd(b.cost_usd)),
            right(crate::model::format::percent(b.share)),
        ]);
    }
    let sentence = window_sentence(&context.windows).map(|s| format!("{s}\n")).unwrap_or_default();
    format!("By context size (every request re-reads its whole prompt):\n{t}\n{sentence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_session_is_held_across_runs_and_replayed_in_time_order() {
        use crate::model::TokenCounts;
        use crate::pricing::Rates;
        let rates = Rates { input: 5e-6, output: 25e-6, read_multiplier: 0.1 };
        let row = |read: u64| {
            let tokens = TokenCounts { cache_read: read, ..Default::default() };
            WindowRow { class: CacheClass::Hit, tokens, rates: Some(rates) }
        };
        let at = |minute: i64| minute * 60_000;
        let one = |tally: &mut ContextTally, session: &str, minute: i64, read: u64| {
            tally.push(("", session), at(minute), row(read));
        };
        // The long session's rows come in two runs, out of time order,
        // around a short session, which is let go.
        let mut tally = ContextTally::default();
        one(&mut tally, "long", 2, 500_000);
        one(&mut tally, "long", 1, 400_000);
        one(&mut tally, "short", 0, 90_000);
        one(&mut tally, "long", 3, 600_000);
        tally.close_run();
        assert_eq!(tally.held.len(), 1);
        assert_eq!(tally.held[&(String::new(), "long".to_owned())].len(), 3);
        let context = tally.finish(&[]);
        // At 400k: a compaction after the 400k turn (to 25k), then two reads
        // 375k smaller; compacting costs reading 400k and writing 25k.
        let at_400k = context.windows.iter().find(|w| w.window_tokens == 400_000).unwrap();
        let saving = 2.0 * 375_000.0 * rates.read() - 400_000.0 * rates.read() - 25_000.0 * rates.write_5m();
        assert_eq!(at_400k.compactions, 1);
        assert!((at_400k.saving_usd - saving).abs() < 1e-12, "{at_400k:?}");
    }

    #[test]
    fn bands_are_named_in_plain_words() {
        assert_eq!(band_words(0, Some(100_000)), "under 100k");
        assert_eq!(band_words(200_000, Some(400_000)), "200k-400k");
        assert_eq!(band_words(400_000, None), "400k-1M");
    }

    #[test]
    fn the_sentence_names_the_cheapest_window_and_the_compactions_it_adds() {
        let windows = crate::analyze::window::sample_windows();
        assert_eq!(
            window_sentence(&windows).as_deref(),
            Some("Compacting at 400k tokens would have cost $12.50 less, with 3 more compactions.")
        );
        assert_eq!(
            window_sentence(&windows[..1].iter().chain(&windows[2..]).copied().collect::<Vec<_>>()).as_deref(),
            Some("Compacting earlier than Claude Code's default window would not have cost less.")
        );
    }
}
