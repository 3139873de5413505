//! The update step: the writes of a data directory that run the stages in
//! order. An ingest runs `ingest` (discover, parse, dedup, price, merge and
//! write the request tables) with the cache model's stage
//! (`materialize::Stage`) as what comes after the merge, so `ingest` never
//! names `materialize`; a push runs `team`'s acceptance and import, which
//! writes through the same two. Views read what these wrote through a
//! `StoreView` (`materialize::view`). The CLI's ingest and rebuild, the
//! dashboard's refresh task and demo data, a team directory's rebuild
//! (`reprice_team`), and the push server call this
//! module; `cachewise import` calls `team::import_files` itself, and the
//! status line, exports and `serve --team`'s ledger write their own files
//! (docs/architecture.md, "Who may write what").

use crate::ingest::{self, IngestError, Outcome, Progress, Rows};
use crate::materialize::Stage;
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::manifest::{Manifest, STORE_SCHEMA};
use crate::store::Store;
use chrono::{DateTime, Utc};
use std::path::PathBuf;

pub use crate::team::accept::{
    status_of, TeamState as PushState, BUNDLES_PATH, DEFAULT_MAX_BYTES, DEFAULT_PUSH_MEMORY,
};
pub use crate::team::{ImportOutcome, TeamError as PushError};

/// Brings the store up to date with the transcripts under `roots`; lines
/// stamped more than a day after `now` are bad lines.
pub fn ingest(
    roots: &[PathBuf],
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
    now: DateTime<Utc>,
) -> Result<Outcome, IngestError> {
    ingest::ingest(roots, store, prices, progress, &Stage { prices }, now)
}

/// Rebuilds every table from the transcripts under `roots` (rows of
/// deleted transcripts kept where a readable table holds them).
pub fn rebuild(
    roots: &[PathBuf],
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
    now: DateTime<Utc>,
) -> Result<Outcome, IngestError> {
    ingest::rebuild(roots, store, prices, progress, &Stage { prices }, now)
}

/// Prices a team directory's rows again with `prices`, a person at a time
/// (`team::people`): its rebuild, since it holds no transcripts.
pub fn reprice_team(
    store: &Store,
    prices: &PriceTable,
    progress: &dyn Progress,
) -> Result<crate::team::people::Written, crate::team::TeamError> {
    crate::team::people::reprice(store, prices, progress)
}

/// Writes candidate rows as the store's tables, replacing what they held
/// (the demo data), with a manifest that lists no transcript and says the
/// store was updated at `updated`; returns the requests stored and the
/// unpriced models.
pub fn store_rows(
    store: &Store,
    rows: Rows,
    prices: &PriceTable,
    updated: Option<DateTime<Utc>>,
) -> Result<(usize, UnknownModels), IngestError> {
    let commit = store.begin()?;
    let stored = ingest::store_rows(&commit, rows, prices, &Stage { prices })?;
    let manifest = Manifest {
        schema: STORE_SCHEMA,
        pricing: prices.fingerprint(),
        updated: updated.map(|t| t.to_rfc3339()),
        ..Manifest::default()
    };
    commit.finish(&manifest)?;
    Ok(stored)
}

/// Authorises, validates and imports one pushed bundle
/// (`team::accept::accept_bundle`).
pub fn accept(
    state: &PushState,
    authorization: Option<&str>,
    bytes: &[u8],
    now: DateTime<Utc>,
) -> Result<ImportOutcome, PushError> {
    crate::team::accept::accept_bundle(state, authorization, bytes, now)
}
