//! What a merge changed, and the stage that derives tables from the merged
//! rows. Ingest writes the requests and their side tables; the tables
//! derived from them (the cache model's analysis, `materialize`) belong to
//! a later stage, which ingest calls through `Derive` without knowing it:
//! beside its writes when the store is rebuilt whole (so both run at
//! once), and after them otherwise. `update` joins the two stages.

use super::IngestError;
use crate::model::{Call, Compaction, Request};
use crate::store::{Commit, Store};
use std::collections::HashSet;

/// What a merge changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Everything (a rebuilt store, new prices): every session.
    All,
    /// The rows of these session ids (any user) changed.
    Sessions(HashSet<String>),
}

/// The stage after a merge.
pub trait Derive: Sync {
    /// Derives and stores the tables of a store rebuilt from `rows` (every
    /// request, any order), with its `calls` and `boundaries`, while ingest
    /// writes the rows; false when it leaves them to `after`.
    fn whole(
        &self,
        store: &Commit<'_>,
        rows: Vec<&Request>,
        calls: &[Call],
        boundaries: &[Compaction],
    ) -> Result<bool, IngestError>;

    /// Brings the derived tables up to date after a merge that changed `scope`.
    fn after(&self, store: &Commit<'_>, scope: &Changed) -> Result<(), IngestError>;

    /// True when the derived tables are current; an ingest that read
    /// nothing new calls `after` with `Changed::All` otherwise.
    fn is_current(&self, store: &Store) -> bool;
}
