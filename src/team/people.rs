//! A team import's people, each merged into a scratch store of their own
//! (`append::scratch`: deduplicated, priced and analysed), two at a time;
//! then one of two writes. People new to a store priced with this table are
//! appended to it (`append_people`; the stored rows stay as they are).
//! Otherwise every person is written again (`rewrite_people`): each
//! person's stored rows (their requests with the spare copies, compactions
//! and calls) with their new bundles, if any, go into a fresh store beside
//! the team's, the people are appended there, and its tables then replace
//! the team's, the manifest last; the ledger stays. That is what an import
//! does when it brings people the store already holds, and what `cachewise
//! ingest --rebuild` (and the first report that may write) does to a team
//! directory whose costs came from another price table (an earlier
//! release, `--pricing`), where every report would otherwise price all its
//! rows again in memory (`store::priced_by`). Only two people's rows are
//! ever held as rows.

use super::append;
use super::append::Scratch;
use super::bundle::{Bundle, BundleMeta, BUNDLE_SCHEMA};
use super::import::{mark_team_dir, stored_people};
use super::TeamError;
use crate::ingest::Progress;
use crate::lanes;
use crate::model::columns as c;
use crate::model::{Call, Compaction, Request};
use crate::pricing::{PriceTable, UnknownModels};
use crate::store::manifest::STORE_SCHEMA;
use crate::store::{frames, Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

/// What writing people into a team directory did.
#[derive(Debug, Default)]
pub struct Written {
    pub people: usize,
    /// The requests the store holds afterwards.
    pub requests: usize,
    pub unknown: UnknownModels,
}

/// A person's bundles new to the store (none for a person it holds whom
/// the import does not concern).
pub(super) type NewBundles<'a, 'b> = dyn Fn(&str) -> Result<Vec<Cow<'b, Bundle>>, TeamError> + Sync + 'a;

/// True when `store` is a team directory holding requests whose costs its
/// readers would price again in memory (`store::priced_by`: another price
/// table, or an earlier layout).
pub fn stale(store: &Store, prices: &PriceTable) -> Result<bool, StoreError> {
    let other = store.holds_bundles() && !crate::store::priced_by(&store.manifest()?, prices);
    Ok(other && store.scan_requests_counted()?.is_some_and(|(_, n)| n > 0))
}

/// Prices every stored row of the team directory again with `prices`
/// (see the module's header), under the directory's lock.
pub fn reprice(store: &Store, prices: &PriceTable, progress: &dyn Progress) -> Result<Written, TeamError> {
    let commit = store.begin()?;
    let repriced = rewrite_people(&commit, prices, progress, &[], &|_| Ok(Vec::new()))?;
    let mut m = commit.manifest()?;
    m.schema = STORE_SCHEMA;
    m.pricing = prices.fingerprint();
    commit.finish(&m)?;
    progress.finish();
    Ok(repriced)
}

/// Appends `people`, new to the store, each with their bundles
/// (`bundles_of`), inside a commit the caller holds, which writes the
/// manifest; None when there is nobody.
pub(super) fn append_people(
    commit: &Commit<'_>,
    prices: &PriceTable,
    progress: &dyn Progress,
    people: &[&str],
    bundles_of: &NewBundles<'_, '_>,
) -> Result<Option<Written>, TeamError> {
    let people: Vec<String> = people.iter().map(|&u| u.to_owned()).collect();
    progress.step("merging bundles");
    let (scratches, unknown) = scratches(commit, &people, None, bundles_of, prices, progress)?;
    if scratches.is_empty() {
        return Ok(None);
    }
    // Every bundle is read and checked by now: the first write.
    mark_team_dir(commit)?;
    progress.step("writing the team store");
    let requests = append::append(commit, scratches, prices)?;
    Ok(Some(Written { people: people.len(), requests, unknown }))
}

/// Writes every person the store holds, and `new_people`, again, each with
/// their new bundles (`bundles_of`), inside a commit the caller holds,
/// which writes the manifest.
pub(super) fn rewrite_people(
    commit: &Commit<'_>,
    prices: &PriceTable,
    progress: &dyn Progress,
    new_people: &[&str],
    bundles_of: &NewBundles<'_, '_>,
) -> Result<Written, TeamError> {
    let mut people: BTreeSet<String> = stored_people(commit)?.into_keys().collect();
    people.extend(new_people.iter().map(|&u| u.to_owned()));
    let people: Vec<String> = people.into_iter().collect();
    let io = |source| TeamError::Io { path: commit.dir().to_path_buf(), source };
    let dir = tempfile::Builder::new().prefix(".import-people-").tempdir_in(commit.dir()).map_err(io)?;
    let fresh = Store::open(dir.path())?;
    let fresh_commit = fresh.begin()?;
    fresh_commit.write_ledger(b"{}")?;
    let stored = SmallTables::read(commit)?;
    progress.step("writing each person's rows again");
    let (scratches, unknown) = scratches(&fresh, &people, Some((commit, &stored)), bundles_of, prices, progress)?;
    mark_team_dir(commit)?;
    progress.step("writing the team store");
    let requests = if scratches.is_empty() { 0 } else { append::append(&fresh_commit, scratches, prices)? };
    drop(fresh_commit);
    Table::ALL.iter().try_for_each(|&t| commit.adopt(t, &fresh))?;
    tracing::debug!("people written again: {}, {requests} requests", people.len());
    Ok(Written { people: people.len(), requests, unknown })
}

/// A scratch store inside `into`'s directory for each of `people`, two at
/// a time: their new bundles (`bundles_of`) and, with `stored`, their rows
/// in that store; with the models no price covers.
fn scratches(
    into: &Store,
    people: &[String],
    stored: Option<(&Store, &SmallTables)>,
    bundles_of: &NewBundles<'_, '_>,
    prices: &PriceTable,
    progress: &dyn Progress,
) -> Result<(Vec<Scratch>, UnknownModels), TeamError> {
    progress.start(people.len() as u64);
    let built = lanes::run(people, lanes::LANES, |user| {
        tracing::debug!("import: {user} (peak {})", append::peak());
        let mut bundles = bundles_of(user)?;
        if let Some((store, small)) = stored {
            bundles.push(Cow::Owned(person(store, user, small)?));
        }
        let scratch = append::scratch(into, bundles, prices)?;
        progress.advance(1);
        Ok::<_, TeamError>(scratch)
    });
    let (mut scratches, mut unknown) = (Vec::new(), UnknownModels::new());
    for b in built {
        let (s, u) = b?;
        scratches.push(s);
        u.into_iter().for_each(|(m, n)| *unknown.entry(m).or_default() += n);
    }
    Ok((scratches, unknown))
}

/// The tables read whole (a few rows per person): compactions, calls and
/// the spare copies of requests.
struct SmallTables {
    compactions: Vec<Compaction>,
    calls: Vec<Call>,
    spares: Vec<Request>,
    unlogged: Vec<Request>,
}

impl SmallTables {
    fn read(store: &Store) -> Result<SmallTables, StoreError> {
        Ok(SmallTables {
            compactions: store.load(Table::Compactions, frames::compactions_from)?,
            calls: store.load(Table::Calls, frames::calls_from)?,
            spares: store.load(Table::Spares, frames::requests_from)?,
            unlogged: store.load(Table::Unlogged, frames::requests_from)?,
        })
    }
}

/// One person's stored rows as a bundle without analysis rows: every
/// spare copy of a request, plus the requests stored once (as a merge
/// reads them), the unlogged calls among them as request rows.
fn person(store: &Store, user: &str, small: &SmallTables) -> Result<Bundle, TeamError> {
    let mine = |rows: &[Request]| rows.iter().filter(|r| r.user.as_str() == user).cloned().collect::<Vec<_>>();
    let mut requests = requests_of(store, user)?;
    requests.extend(mine(&small.unlogged));
    let spares = mine(&small.spares);
    let key = |r: &Request| (r.message_id.clone(), r.request_id.clone());
    let repeated: HashSet<_> = spares.iter().map(key).collect();
    requests.retain(|r| !repeated.contains(&key(r)));
    requests.extend(spares);
    let meta = BundleMeta {
        schema: BUNDLE_SCHEMA,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        user: user.to_owned(),
        machine: String::new(),
        created: String::new(),
        hashed_paths: false,
    };
    Ok(Bundle {
        meta,
        requests,
        compactions: small.compactions.iter().filter(|c| c.user == user).cloned().collect(),
        calls: small.calls.iter().filter(|i| i.user.as_str() == user).cloned().collect(),
        analysis: None,
    })
}

/// The stored requests of `user` (base and recent part), read through a
/// filter the Parquet reader sees.
fn requests_of(store: &Store, user: &str) -> Result<Vec<Request>, StoreError> {
    let Some(scan) = store.scan_requests()? else { return Ok(Vec::new()) };
    let damaged = |e: PolarsError| StoreError::damaged(store.path(Table::Requests), &e);
    let df = scan.filter(col(c::USER).eq(lit(user))).collect().map_err(damaged)?;
    frames::requests_from(&df).map_err(damaged)
}
