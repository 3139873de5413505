//! What a growing context costs (cache model v4): the thread requests by the
//! size of their prompt, in bands, with their count and cost and the share
//! of the spend each band takes. Every request re-reads the whole context,
//! so a conversation near its window pays for it on every turn; the bands
//! show how much of the bill that is. Read from the stored analysis rows
//! the `cache` report covers.

use super::ReportError;
use crate::model::columns as c;
use crate::model::count::thousands;
use crate::model::money::usd;
use crate::store::frames::Cols;
use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{Cell, CellAlignment, Table};
use polars::prelude::DataFrame;
use serde::Serialize;

/// The bands' lower bounds, in prompt tokens.
const BANDS: [u64; 5] = [0, 50_000, 100_000, 200_000, 500_000];

/// The requests whose prompt is at least `from` tokens (and under the next
/// band's `from`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ContextBand {
    pub from_tokens: u64,
    /// None for the last band.
    pub to_tokens: Option<u64>,
    pub requests: u64,
    pub cost_usd: f64,
    /// Of the cost of every band (None when nothing cost anything).
    pub share: Option<f64>,
}

/// The bands of `df` (the analysis rows a report selects, with at least
/// the `ACTUAL_USD` and token columns), every band even when empty.
pub fn by_context(df: &DataFrame) -> Result<Vec<ContextBand>, ReportError> {
    let (tokens, cost) = match df.height() {
        0 => (Vec::new(), Vec::new()),
        _ => (Cols(df).tokens()?, Cols(df).f64(c::ACTUAL_USD)?),
    };
    let mut bands: Vec<ContextBand> = BANDS
        .iter()
        .enumerate()
        .map(|(i, &from)| ContextBand { from_tokens: from, to_tokens: BANDS.get(i + 1).copied(), ..Default::default() })
        .collect();
    for (t, cost) in tokens.iter().zip(&cost) {
        let i = BANDS.iter().rposition(|&from| t.prompt() >= from).unwrap_or(0);
        bands[i].requests += 1;
        bands[i].cost_usd += cost;
    }
    let total: f64 = bands.iter().map(|b| b.cost_usd).sum();
    for b in &mut bands {
        b.share = (total > 0.0).then(|| b.cost_usd / total);
    }
    Ok(bands)
}

/// `50k-100k`, `500k and more`.
pub fn band_words(b: &ContextBand) -> String {
    let k = |n: u64| format!("{}k", n / 1000);
    match b.to_tokens {
        Some(to) if b.from_tokens == 0 => format!("under {}", k(to)),
        Some(to) => format!("{}-{}", k(b.from_tokens), k(to)),
        None => format!("{} and more", k(b.from_tokens)),
    }
}

/// The bands as a terminal table (nothing when no request has a prompt).
pub fn render(bands: &[ContextBand]) -> String {
    if bands.iter().all(|b| b.requests == 0) {
        return String::new();
    }
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(["Prompt tokens", "Requests", "Cost", "Share of spend"]);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    for b in bands {
        t.add_row(vec![
            Cell::new(band_words(b)),
            right(thousands(b.requests)),
            right(usd(b.cost_usd)),
            right(b.share.map_or_else(|| "-".to_owned(), |s| format!("{:.1}%", s * 100.0))),
        ]);
    }
    format!("By context size (every request re-reads its whole prompt):\n{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_named_in_plain_words() {
        let b = |from, to| ContextBand { from_tokens: from, to_tokens: to, ..Default::default() };
        assert_eq!(band_words(&b(0, Some(50_000))), "under 50k");
        assert_eq!(band_words(&b(200_000, Some(500_000))), "200k-500k");
        assert_eq!(band_words(&b(500_000, None)), "500k and more");
    }
}
