//! The built-in demo dataset: three weeks of synthetic sessions ending now
//! (`synth::SynthSpec::demo`, fixed seed: idle gaps, both TTLs, compactions,
//! sub-agents, model switches, advisor calls and refusal fallbacks inside
//! some responses: `synth::calls`), priced and written to a data directory by
//! `update::store_rows`, the path every table takes. `serve --demo` and the
//! no-transcripts fallback serve it.

use crate::ingest::{IngestError, Rows};
use crate::model::{SessionTitle, TitleKind};
use crate::pricing::PriceTable;
use crate::store::Store;
use crate::synth::{generate, SynthSpec};
use chrono::{DateTime, Utc};

/// The seed of the demo data: the same dashboard for everyone.
pub const DEMO_SEED: u64 = 20_261_104;

/// One main-thread response in this many calls the advisor (and one in
/// three times as many is refused and retried on another model).
pub const DEMO_CALLS_EVERY: usize = 40;

/// How long before `now` the demo's last request is.
const LAST_REQUEST_AGO: chrono::Duration = chrono::Duration::minutes(3);

/// Writes the demo dataset ending at `now` into `store`; returns the number
/// of requests.
pub fn write_demo(store: &Store, prices: &PriceTable, now: DateTime<Utc>) -> Result<usize, IngestError> {
    let mut data = generate(DEMO_SEED, &SynthSpec::demo(now));
    // The last request lands a few minutes before `now`, so the Now panel
    // shows a live session with a running countdown.
    if let Some(last) = data.requests.iter().map(|r| r.time).max() {
        let shift = (now - LAST_REQUEST_AGO) - last;
        data.requests.iter_mut().for_each(|r| r.time += shift);
        data.compactions.iter_mut().for_each(|c| c.time += shift);
    }
    let titles = data
        .titles
        .into_iter()
        .map(|(session_id, title)| SessionTitle {
            session_id,
            kind: TitleKind::AiTitle,
            seq: 0,
            title,
            source: "synthetic".to_owned(),
        })
        .collect();
    let calls = crate::synth::calls::add_calls(&data.requests, DEMO_CALLS_EVERY);
    let rows = Rows { rows: data.requests, calls, compactions: data.compactions, titles };
    let (n, _) = crate::update::store_rows(store, rows, prices, Some(now))?;
    Ok(n)
}
