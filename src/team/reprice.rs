//! A team directory priced again with this release's table, a person at a
//! time: what `cachewise ingest --rebuild` does to a team directory. A team
//! directory is never ingested into, so once its costs come from another
//! price table (an earlier release, `--pricing`) every report prices all
//! its rows again in memory (`store::priced_by`). Here each person's stored
//! rows (their requests with the spare copies, compactions and calls) go
//! through the import of a new person (`append::scratch`) into a fresh
//! store beside the team's, the people are appended there (`append`), and
//! its tables then replace the team's, the manifest last; the ledger stays.
//! Only one person's rows are ever held as rows.

use super::append;
use super::bundle::{Bundle, BundleMeta, BUNDLE_SCHEMA};
use super::import::stored_people;
use super::TeamError;
use crate::ingest::Progress;
use crate::lanes;
use crate::model::columns as c;
use crate::model::{Call, Compaction, Request};
use crate::pricing::PriceTable;
use crate::store::manifest::STORE_SCHEMA;
use crate::store::{frames, Commit, Store, StoreError, Table};
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::HashSet;

/// What pricing a team directory again did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repriced {
    pub people: usize,
    pub requests: usize,
}

/// True when `store` is a team directory holding requests whose costs its
/// readers would price again in memory (`store::priced_by`: another price
/// table, or an earlier layout).
pub fn stale(store: &Store, prices: &PriceTable) -> Result<bool, StoreError> {
    let other = store.holds_bundles() && !crate::store::priced_by(&store.manifest()?, prices);
    Ok(other && store.scan_requests_counted()?.is_some_and(|(_, n)| n > 0))
}

/// Prices every stored row of the team directory again with `prices`
/// (see the module's header), under the directory's lock.
pub fn reprice(store: &Store, prices: &PriceTable, progress: &dyn Progress) -> Result<Repriced, TeamError> {
    let commit = store.begin()?;
    let repriced = reprice_locked(&commit, prices, progress)?;
    let mut m = commit.manifest()?;
    m.schema = STORE_SCHEMA;
    m.pricing = prices.fingerprint();
    commit.finish(&m)?;
    progress.finish();
    Ok(repriced)
}

/// `reprice` inside a commit the caller holds, which writes the manifest.
pub(super) fn reprice_locked(
    commit: &Commit<'_>,
    prices: &PriceTable,
    progress: &dyn Progress,
) -> Result<Repriced, TeamError> {
    let people: Vec<String> = stored_people(commit)?.into_keys().collect();
    let io = |source| TeamError::Io { path: commit.dir().to_path_buf(), source };
    let dir = tempfile::Builder::new().prefix(".import-reprice-").tempdir_in(commit.dir()).map_err(io)?;
    let fresh = Store::open(dir.path())?;
    let fresh_commit = fresh.begin()?;
    fresh_commit.write_ledger(b"{}")?;
    let shared = SmallTables::read(commit)?;
    progress.step("pricing each person's rows again");
    progress.start(people.len() as u64);
    let built = lanes::run(&people, lanes::LANES, |user| {
        let bundle = person(commit, user, &shared)?;
        let (scratch, _) = append::scratch(&fresh, vec![Cow::Owned(bundle)], prices)?;
        progress.advance(1);
        Ok::<_, TeamError>(scratch)
    });
    let scratches = built.into_iter().collect::<Result<Vec<_>, _>>()?;
    progress.step("writing the team store");
    let requests = if scratches.is_empty() { 0 } else { append::append(&fresh_commit, scratches, prices)? };
    drop(fresh_commit);
    Table::ALL.iter().try_for_each(|&t| commit.adopt(t, &fresh))?;
    tracing::debug!("reprice: {} people, {requests} requests", people.len());
    Ok(Repriced { people: people.len(), requests })
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
