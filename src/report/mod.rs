//! Reports over the store: typed rows from polars queries, and their output
//! as terminal tables, JSON and CSV. The CLI and the web UI call the same
//! functions here.

mod analysis_cols;
pub mod blocks;
pub mod cache;
pub mod calls;
pub mod cell;
pub mod charts;
pub mod class_cost;
pub mod fit;
pub mod labels;
pub mod now;
pub mod order;
pub mod prices;
pub mod project_paths;
pub mod query;
pub mod resume;
pub mod session;
pub mod slices;
pub mod stored_rows;
pub mod summary;
pub mod team;
pub mod term;
pub mod usage;

use crate::store::StoreError;

/// Errors of a report; each says what it was reading.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("query failed: {0}")]
    Polars(#[from] polars::prelude::PolarsError),
    #[error("no session matches {0:?}; `cachewise report session` lists them")]
    UnknownSession(String),
    /// A session with sub-agent requests only: no conversation to resume.
    #[error(
        "session {0} has only sub-agent requests (no main conversation), so there is nothing to resume: \
start a new session instead"
    )]
    NoMainThread(String),
    #[error("{text:?} matches several sessions: {}; give more of the id", candidates.join(", "))]
    AmbiguousSession { text: String, candidates: Vec<String> },
}
