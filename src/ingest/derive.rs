//! What a merge changed, and the stage that derives tables from the merged
//! rows. Ingest writes the requests and their side tables; the tables
//! derived from them (the cache model's analysis, `materialize`) belong to
//! a later stage, which ingest calls through `Derive` without knowing it:
//! beside its writes when the store is rebuilt whole (so both run at
//! once), and after them otherwise. `update` joins the two stages.

use super::IngestError;
use crate::model::{Call, Compaction, Request};
use crate::store::Store;
use polars::prelude::DataFrame;
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
        store: &Store,
        rows: Vec<&Request>,
        calls: &[Call],
        boundaries: &[Compaction],
    ) -> Result<bool, IngestError>;

    /// Brings the derived tables up to date for the changed `sessions`
    /// from `fresh` (the rows the merge is writing), while the merge writes
    /// them; false when it leaves them to `after` (the stored derived
    /// tables are not current, so they are computed from the written ones).
    fn beside(&self, store: &Store, sessions: &HashSet<String>, fresh: Fresh) -> Result<bool, IngestError> {
        let _ = (store, sessions, fresh);
        Ok(false)
    }

    /// Reads what `beside` will need of the tables the merge does not
    /// write, while the merge chooses and builds its rows (an append's);
    /// handed back in `Fresh::ahead`. None: `beside` reads it itself.
    fn read_ahead(&self, store: &Store) -> Option<DataFrame> {
        let _ = store;
        None
    }

    /// Brings the derived tables up to date after a merge that changed `scope`.
    fn after(&self, store: &Store, scope: &Changed) -> Result<(), IngestError>;

    /// True when the derived tables are current; an ingest that read
    /// nothing new calls `after` with `Changed::All` otherwise.
    fn is_current(&self, store: &Store) -> bool;
}

/// What a merge that changed some sessions writes of them, handed to the
/// stage after it so that stage runs beside the writes instead of reading
/// the tables back after them.
pub struct Fresh<'a> {
    /// Every request of the changed sessions, as a scan of the written
    /// requests table gives them (the base's rows, then the recent part's).
    pub requests: DataFrame,
    /// Every call row the merge writes.
    pub calls: &'a [Call],
    /// The compaction boundaries the merge writes; None when it leaves the
    /// stored table as it is.
    pub compactions: Option<Vec<Compaction>>,
    /// What `Derive::read_ahead` read while the merge ran.
    pub ahead: Option<DataFrame>,
}

/// No derived tables (a scratch store whose rows a team import moves on).
pub struct Nothing;

impl Derive for Nothing {
    fn whole(&self, _: &Store, _: Vec<&Request>, _: &[Call], _: &[Compaction]) -> Result<bool, IngestError> {
        Ok(false)
    }

    fn after(&self, _: &Store, _: &Changed) -> Result<(), IngestError> {
        Ok(())
    }

    fn is_current(&self, _: &Store) -> bool {
        true
    }
}
