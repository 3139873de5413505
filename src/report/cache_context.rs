//! What a growing context costs (cache model v4, §17): the thread requests
//! by the size of their prompt, in bands, with their count and cost and the
//! share of the spend each band takes, and what compacting earlier would
//! have cost (`analyze::window`). Every request re-reads the whole context,
//! so a conversation near its window pays for it on every turn. Read from
//! the stored analysis rows the `cache` report covers.

use super::cache::CacheQuery;
use super::ReportError;
use crate::analyze::window::{cheapest, window_what_if, Evidence, WindowRow, WindowWhatIf};
use crate::analyze::{CacheClass, SessionCompaction};
use crate::model::columns as c;
use crate::model::count::thousands;
use crate::model::money::usd;
use crate::model::MAIN_THREAD;
use crate::pricing::Rates;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{Cell, CellAlignment, Table};
use polars::prelude::DataFrame;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The bands' lower bounds, in prompt tokens (the last runs to the largest
/// window, 1M).
const BANDS: [u64; 4] = [0, 100_000, 200_000, 400_000];

/// The analysis columns the bands and the what-if read (besides the
/// version split's, `cache_versions::COLUMNS`).
pub const COLUMNS: [&str; 6] =
    [c::USER, c::SESSION_ID, c::THREAD, c::RATE_INPUT, c::RATE_OUTPUT, c::RATE_READ_MULTIPLIER];

/// The columns the version split and the context figures read.
pub fn split_columns() -> Vec<&'static str> {
    super::cache_versions::COLUMNS.iter().chain(&COLUMNS).copied().collect()
}

/// The context figures of every request `q` selects, read on their own:
/// what `advise` weighs a live session against.
pub fn context_report(view: &StoreView, q: &CacheQuery) -> Result<Context, ReportError> {
    let df = view.selected(q, &split_columns())?;
    let ids: HashSet<&str> = match df.height() {
        0 => HashSet::new(),
        _ => Cols(&df).str(c::SESSION_ID)?.into_iter().collect(),
    };
    context(&df, &super::cache_view::compaction_reports(view, &ids)?)
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

/// The context figures of `df` (the analysis rows a report selects, with
/// `COLUMNS` and the version split's), every band even when empty;
/// `compaction` is the selection's compaction report.
pub fn context(df: &DataFrame, compaction: &[SessionCompaction]) -> Result<Context, ReportError> {
    let mut bands: Vec<ContextBand> = BANDS
        .iter()
        .enumerate()
        .map(|(i, &from)| {
            let to = BANDS.get(i + 1).copied();
            ContextBand { band: band_words(from, to), from_tokens: from, to_tokens: to, ..Default::default() }
        })
        .collect();
    let rows = rows_of(df)?;
    for (_, r) in &rows {
        let i = BANDS.iter().rposition(|&from| r.tokens.prompt() >= from).unwrap_or(0);
        bands[i].requests += 1;
        bands[i].cost_usd += r.actual_usd;
    }
    let total: f64 = crate::model::money::sum(bands.iter().map(|b| b.cost_usd));
    for b in &mut bands {
        b.share = (total > 0.0).then(|| b.cost_usd / total);
    }
    let compactions = compaction.iter().flat_map(|s| &s.compactions);
    let evidence = Evidence::of(compactions.clone());
    let windows = window_what_if(&main_threads(rows), total, compactions.count() as u64, &evidence);
    Ok(Context { bands, windows })
}

/// Each row with its thread's key (`None` off the main thread).
fn rows_of(df: &DataFrame) -> Result<Vec<(Option<(&str, &str)>, WindowRow)>, ReportError> {
    if df.height() == 0 {
        return Ok(Vec::new());
    }
    let k = Cols(df);
    let (user, session, thread, class) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.str(c::CLASS)?);
    let (tokens, cost) = (k.tokens()?, k.f64(c::ACTUAL_USD)?);
    let rate = |name: &str| -> Result<Vec<Option<f64>>, ReportError> { Ok(df.column(name)?.f64()?.iter().collect()) };
    let (pin, pout, prm) = (rate(c::RATE_INPUT)?, rate(c::RATE_OUTPUT)?, rate(c::RATE_READ_MULTIPLIER)?);
    Ok((0..df.height())
        .map(|i| {
            let key = (thread[i] == MAIN_THREAD).then_some((user[i], session[i]));
            let row = WindowRow {
                class: CacheClass::parse(class[i]).unwrap_or(CacheClass::Hit),
                tokens: tokens[i],
                rates: Rates::stored(pin[i], pout[i], prm[i]),
                actual_usd: cost[i],
            };
            (key, row)
        })
        .collect())
}

/// The main threads' rows, each thread in the order the rows come (the
/// analysis table's: by session, then time).
fn main_threads(rows: Vec<(Option<(&str, &str)>, WindowRow)>) -> Vec<Vec<WindowRow>> {
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    let mut threads: Vec<Vec<WindowRow>> = Vec::new();
    for (key, row) in rows {
        if let Some(key) = key {
            let i = *index.entry(key).or_insert_with(|| {
                threads.push(Vec::new());
                threads.len() - 1
            });
            threads[i].push(row);
        }
    }
    threads
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
            let noun = if more == 1 { "compaction" } else { "compactions" };
            format!(
                "Compacting at {}k tokens would have cost {} less, with {} more {noun}.",
                w.window_tokens / 1000,
                usd(w.saving_usd),
                thousands(more)
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
            right(b.share.map_or_else(|| "-".to_owned(), |s| format!("{:.1}%", s * 100.0))),
        ]);
    }
    let sentence = window_sentence(&context.windows).map(|s| format!("{s}\n")).unwrap_or_default();
    format!("By context size (every request re-reads its whole prompt):\n{t}\n{sentence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_named_in_plain_words() {
        assert_eq!(band_words(0, Some(100_000)), "under 100k");
        assert_eq!(band_words(200_000, Some(400_000)), "200k-400k");
        assert_eq!(band_words(400_000, None), "400k-1M");
    }

    #[test]
    fn the_sentence_names_the_cheapest_window_and_the_compactions_it_adds() {
        let w = |window_tokens, default, compactions, saving_usd| WindowWhatIf {
            window_tokens,
            default,
            cost_usd: 100.0 - saving_usd,
            compactions,
            saving_usd,
        };
        let windows = [w(200_000, false, 9, -3.0), w(400_000, false, 5, 12.5), w(967_000, true, 2, 0.0)];
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
