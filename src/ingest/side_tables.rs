//! The small tables a merge rewrites beside the requests: compactions
//! (each boundary line once, in `compaction_order`) and titles, without the
//! rows of files read again whole, plus the sessions whose titles or
//! compactions changed (which the sessions and analysis tables refresh).

use super::merge::{at, Base};
use super::IngestError;
use crate::model::{Boundary, Compaction, SessionTitle};
use crate::store::frames;
use crate::store::{Store, Table};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use std::collections::HashSet;

/// The compactions table when it changed, and the titles with the sessions
/// whose titles changed.
pub(super) type SideTables = (Option<DataFrame>, (Vec<SessionTitle>, HashSet<String>));

pub(super) fn side_tables(
    store: &Store,
    base: Base,
    mut compactions: Vec<Compaction>,
    mut titles: Vec<SessionTitle>,
    replaced: &HashSet<String>,
) -> Result<SideTables, IngestError> {
    let mut changed: HashSet<String> = titles.iter().map(|t| t.session_id.clone()).collect();
    changed.extend(compactions.iter().map(|c| c.session_id.clone()));
    let compactions_changed = base != Base::Touched || !compactions.is_empty() || !replaced.is_empty();
    if base != Base::Empty {
        let mut old = store.load(Table::Titles, frames::titles_from)?;
        changed.extend(old.iter().filter(|t| replaced.contains(&t.source)).map(|t| t.session_id.clone()));
        old.retain(|t| !replaced.contains(&t.source));
        titles.extend(old);
        if compactions_changed {
            let mut old = store.load(Table::Compactions, frames::compactions_from)?;
            changed.extend(old.iter().filter(|r| replaced.contains(&r.source)).map(|r| r.session_id.clone()));
            old.retain(|r| !replaced.contains(&r.source));
            compactions.extend(old);
        }
    }
    titles.sort_by(|a, b| (&a.session_id, a.kind, a.seq, &a.source).cmp(&(&b.session_id, b.kind, b.seq, &b.source)));
    titles.dedup();
    let compactions = if compactions_changed {
        compactions.sort_by(|a, b| compaction_order(a).cmp(&compaction_order(b)));
        compactions.dedup_by(|a, b| same_boundary(a, b));
        Some(frames::compactions_frame(&compactions).map_err(at(store, Table::Compactions))?)
    } else {
        None
    };
    Ok((compactions, (titles, changed)))
}

/// Row order of the `compactions` table: copies of one boundary line are
/// adjacent, in an order of their own fields (whichever was read first),
/// so the copy a merge keeps is the same whether the copies came in one
/// read or in several.
pub(crate) fn compaction_order(c: &Compaction) -> impl Ord + '_ {
    let copy = (c.pre_tokens, c.tokens_saved, &c.trigger, c.trigger_written);
    (&c.user, &c.session_id, c.time, c.boundary, &c.uuid, &c.source, copy)
}

/// Two rows of one boundary line (a resumed session replays it into another
/// file): the same uuid, or with no uuid the same time and trigger.
fn same_boundary(a: &Compaction, b: &Compaction) -> bool {
    fn key(c: &Compaction) -> (&str, &str, DateTime<Utc>, Boundary) {
        (&c.user, &c.session_id, c.time, c.boundary)
    }
    let ids = match (a.uuid.is_empty(), b.uuid.is_empty()) {
        (false, false) => a.uuid == b.uuid,
        _ => a.trigger == b.trigger,
    };
    key(a) == key(b) && ids
}
