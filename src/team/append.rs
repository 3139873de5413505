//! Import's fast path: people new to the team store. Bundle rows of one
//! person never collide with another person's (every key starts with the
//! user), so each new person's bundles are merged into a scratch store of
//! their own (`ingest::merge::merge_tables`: deduplicated, priced, with
//! session totals and calls; only that person's rows are ever `Request`s),
//! their analysis rows taken from the bundle (`own_analysis`) or computed
//! there, with the side tables of their sessions (which depend on that
//! person's sessions alone), and then every table of the scratch stores is
//! appended to the team store by the stages that own them: the request
//! tables by `ingest::union` (the requests a person at a time, never the
//! whole table as rows; the small tables whole), the analysis by
//! `materialize` (the what-if columns added once over the whole table).
//! This module writes no file of the team store itself: it makes each
//! scratch directory (`.import-*` inside the team directory) and writes the
//! scratch store's analysis through that store's own `Commit`. Hands
//! `import` the new request count and the unpriced models.

use super::bundle::Bundle;
use super::TeamError;
use crate::ingest::dedup::Chunks;
use crate::ingest::merge::{merge_tables, Base, Delta};
use crate::ingest::union;
use crate::materialize::{self, WHAT_IF};
use crate::model::columns as c;
use crate::model::{Compaction, Request};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::frames::Cols;
use crate::store::{Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::HashSet;

/// One new person's rows, merged into a scratch store beside the team's.
pub(super) struct Scratch {
    _dir: tempfile::TempDir,
    store: Store,
    /// The side tables of the person's sessions (`materialize::sides_of`).
    sides: [DataFrame; 2],
}

/// Merges one person's bundles into a scratch store inside the team
/// directory; the analysis rows come from the bundle when it carries them
/// for exactly these rows (`own_analysis`), else are computed.
pub(super) fn scratch(
    team: &Store,
    bundles: Vec<Cow<'_, Bundle>>,
    prices: &PriceTable,
) -> Result<(Scratch, UnknownModels), TeamError> {
    let clock = std::time::Instant::now();
    let io = |source| TeamError::Io { path: team.dir().to_path_buf(), source };
    let dir = tempfile::Builder::new().prefix(".import-").tempdir_in(team.dir()).map_err(io)?;
    let store = Store::open_scratch(dir.path())?;
    let own = own_analysis(&bundles, prices);
    let mut rows: Vec<Request> = Vec::new();
    let (mut compactions, mut calls) = (Vec::new(), Vec::new());
    // A bundle decoded for this merge gives its rows up; an upload's are copied.
    for b in bundles.into_iter().map(Cow::into_owned) {
        rows.extend(b.requests);
        // A bundle's compactions are its user's (cache threads are per user).
        let user = b.meta.user;
        compactions.extend(b.compactions.into_iter().map(|c| Compaction { user: user.clone(), ..c }));
        calls.extend(b.calls);
    }
    let delta = Delta { rows: Chunks(vec![rows]), compactions, calls, ..Delta::default() };
    let commit = store.begin()?;
    let (merged, _) = merge_tables(&commit, Base::Empty, delta, prices)?;
    tracing::debug!("scratch: merged after {:?}", clock.elapsed());
    let mut analysis = match own {
        Some(df) => df,
        None => materialize::rows(&store, prices)?,
    };
    let sides = materialize::sides_of(&store, &analysis, prices)?;
    tracing::debug!("scratch: side tables after {:?}", clock.elapsed());
    commit.write_analysis_base(&mut analysis, &materialize::stamp(prices), 1)?;
    drop(commit);
    tracing::debug!("scratch: analysis rows written after {:?}", clock.elapsed());
    Ok((Scratch { _dir: dir, store, sides }, merged.unknown))
}

/// The bundle's own analysis rows, when one bundle alone brings this
/// person's rows and its analysis was computed with `prices` by this build.
fn own_analysis(bundles: &[Cow<'_, Bundle>], prices: &PriceTable) -> Option<DataFrame> {
    let [b] = bundles else { return None };
    let a = b.analysis.as_ref()?;
    (a.stamp == materialize::stamp(prices)).then(|| a.rows.clone())
}

/// Appends the scratch stores' tables to the team store; returns the
/// requests it holds afterwards.
pub(super) fn append(team: &Commit<'_>, scratches: Vec<Scratch>, prices: &PriceTable) -> Result<usize, TeamError> {
    let had_rows = team.path(Table::Requests).exists();
    let old_analysis = match had_rows {
        true => materialize::current(team, prices)?,
        false => None,
    };
    // One step after the other, so the requests' and the analysis' memory
    // peaks never meet (side by side they did in some runs: 2.0 GB against
    // 1.3 GB on 100 people, for 2 s).
    let more: Vec<&Store> = scratches.iter().map(|s| &s.store).collect();
    let requests = union::append_requests(team, &more)?;
    tracing::debug!("append: requests appended (peak {})", peak());
    union::append_small_tables(team, &more)?;
    append_session_totals(team, &scratches)?;
    tracing::debug!("append: session totals written (peak {})", peak());
    match old_analysis {
        None if had_rows => {
            drop(scratches);
            materialize::refresh(team, prices, &materialize::Changed::All)?;
        }
        old => {
            // The analysis parts are the scratch stores' own files, each
            // added a part at a time.
            append_analysis(team, prices, old, &scratches)?;
            tracing::debug!("append: analysis written (peak {})", peak());
            // A person's side rows depend on their own sessions alone: the
            // new people's, derived in their scratch stores, follow the
            // stored ones.
            let sides = scratches.into_iter().map(|s| s.sides).collect();
            materialize::append_sides(team, prices, sides, had_rows)?;
        }
    }
    Ok(requests)
}

/// The session totals of the scratch stores' requests, derived again from the
/// team's requests (a session id may be several people's).
fn append_session_totals(team: &Commit<'_>, scratches: &[Scratch]) -> Result<(), TeamError> {
    // Into a new team store every session is new: none to single out.
    let changed = match team.path(Table::SessionTotals).exists() {
        true => Some(new_sessions(scratches)?),
        false => None,
    };
    union::write_session_totals(team, changed.as_ref())?;
    Ok(())
}

/// The analysis table: the stored rows (`old`, without the what-if
/// columns), then each scratch store's, with the what-if columns over all
/// (`materialize::write_parts`).
fn append_analysis(
    team: &Commit<'_>,
    prices: &PriceTable,
    old: Option<DataFrame>,
    scratches: &[Scratch],
) -> Result<usize, TeamError> {
    let old = old.map(|o| o.drop_many(WHAT_IF));
    let files: Vec<std::path::PathBuf> = scratches.iter().map(|s| s.store.path(Table::Analysis)).collect();
    let select = |df: &DataFrame, columns: Option<&[&str]>| match columns {
        Some(c) => df.select(c.iter().copied()).map_err(at_analysis(team)),
        None => Ok(df.clone()),
    };
    // The stored rows go as parts of `OLD_SLICE` rows: each gets its what-if
    // columns apart, so no copy of the whole table is made at once.
    let height = old.as_ref().map_or(0, DataFrame::height);
    let slices: Vec<(i64, usize)> = (0..height)
        .step_by(OLD_SLICE)
        .map(|at| (i64::try_from(at).unwrap_or(i64::MAX), OLD_SLICE.min(height - at)))
        .collect();
    let skip = slices.len();
    let load = |i: usize, columns: Option<&[&str]>| match (slices.get(i), &old) {
        (Some(&(at, n)), Some(o)) => select(&o.slice(at, n), columns),
        _ => read_parquet(&files[i.saturating_sub(skip)], columns.map(|c| c.iter().map(|s| (*s).to_owned()).collect())),
    };
    Ok(materialize::write_parts(team, prices, skip + files.len(), load)?)
}

/// A scratch file, only `columns` when given.
fn read_parquet(path: &std::path::Path, columns: Option<Vec<String>>) -> Result<DataFrame, StoreError> {
    let file = std::fs::File::open(path).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
    ParquetReader::new(std::io::BufReader::new(file))
        .with_columns(columns)
        .finish()
        .map_err(|e| StoreError::damaged(path.to_path_buf(), &e))
}

fn at_analysis(store: &Store) -> impl Fn(PolarsError) -> StoreError + '_ {
    move |source| StoreError::Polars { path: store.path(Table::Analysis), source }
}

fn polars(store: &Store, t: Table) -> impl Fn(PolarsError) -> TeamError + '_ {
    move |source| StoreError::Polars { path: store.path(t), source }.into()
}

/// Session ids of the scratch stores' requests.
fn new_sessions(scratches: &[Scratch]) -> Result<HashSet<String>, TeamError> {
    let mut out = HashSet::new();
    for s in scratches {
        if let Some(df) = s.store.read_file(Table::Requests, Some(&[c::SESSION_ID]))? {
            let ids = Cols(&df).str(c::SESSION_ID).map_err(polars(&s.store, Table::Requests))?;
            out.extend(ids.into_iter().map(str::to_owned));
        }
    }
    Ok(out)
}

/// Stored analysis rows given their what-if columns at a time.
const OLD_SLICE: usize = 131_072;

/// Peak resident memory so far (debug logs).
pub(super) fn peak() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_default()
}
