//! Message ids kept under more than one user (the same id in two people's
//! transcripts: copied sessions, or one machine's logs under two names),
//! which an import reports over two columns of the stored requests. Hands
//! `import` the count and the first few by name.

use super::TeamError;
use crate::model::columns as c;
use crate::model::SharedIds;
use crate::store::frames::Cols;
use crate::store::Store;
use polars::prelude::{col, IdxSize, LazyFrame};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How many shared message ids an outcome lists by name.
const SHARED_EXAMPLES: usize = 5;

/// A message id stored under more than one user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedMessage {
    pub message_id: String,
    pub users: Vec<String>,
}

/// How many message ids the stored requests hold under several users, and
/// the first few of them, reading two columns a slice of the table at a
/// time (`model::SharedIds`: the ids held as hashes; the examples are
/// checked by name).
pub(super) fn shared_message_ids_stored(store: &Store) -> Result<(usize, Vec<SharedMessage>), TeamError> {
    shared_sliced(store, SLICE_ROWS)
}

fn shared_sliced(store: &Store, rows: usize) -> Result<(usize, Vec<SharedMessage>), TeamError> {
    let Some((lf, n)) = store.scan_requests_counted()? else { return Ok((0, Vec::new())) };
    let mut shared = SharedIds::default();
    for_each_slice(&lf, n, rows, |ids, users| shared.add(users, ids))?;
    // The first few shared ids by name, with every user of each: an id among
    // them is among the first few of those seen so far whenever it is seen.
    let mut examples: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for_each_slice(&lf, n, rows, |ids, users| {
        for (m, u) in ids.iter().zip(users) {
            let later =
                examples.len() >= SHARED_EXAMPLES && examples.last_key_value().is_some_and(|l| *m > l.0.as_str());
            if later || !shared.is_shared(m) {
                continue;
            }
            examples.entry((*m).to_owned()).or_default().insert((*u).to_owned());
            if examples.len() > SHARED_EXAMPLES {
                examples.pop_last();
            }
        }
    })?;
    let examples = examples
        .into_iter()
        .filter(|(_, users)| users.len() > 1)
        .map(|(message_id, users)| SharedMessage { message_id, users: users.into_iter().collect() })
        .collect();
    Ok((shared.count(), examples))
}

/// Request rows read at a time.
const SLICE_ROWS: usize = 1 << 20;

/// `f` over the message ids and users of `lf` (the stored requests, `n`
/// rows), `rows` at a time.
fn for_each_slice(lf: &LazyFrame, n: usize, rows: usize, mut f: impl FnMut(&[&str], &[&str])) -> Result<(), TeamError> {
    let polars = |source| TeamError::Polars { what: "finding shared message ids", source };
    let size = IdxSize::try_from(rows).unwrap_or(IdxSize::MAX);
    for at in (0..n.max(1)).step_by(rows.max(1)) {
        let slice = lf.clone().slice(i64::try_from(at).unwrap_or(i64::MAX), size);
        let df = slice.select([col(c::MESSAGE_ID), col(c::USER)]).collect().map_err(polars)?;
        let k = Cols(&df);
        f(&k.str(c::MESSAGE_ID).map_err(polars)?, &k.str(c::USER).map_err(polars)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::{Column, DataFrame};

    #[test]
    fn stored_ids_under_several_users_are_counted_and_named_over_slices() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // m1 ana+bo, m2 bo twice (his own copy), m3 cy, m0 cy+ana; then ids a..g shared by dan and eve.
        let mut held: Vec<(String, String)> = [("ana", "m1"), ("bo", "m2"), ("bo", "m1"), ("bo", "m2"), ("cy", "m3")]
            .iter()
            .chain(&[("cy", "m0"), ("ana", "m0")])
            .map(|(u, m)| ((*u).to_owned(), (*m).to_owned()))
            .collect();
        for id in ["g", "f", "e", "d", "c", "b", "a"] {
            held.extend([("dan".to_owned(), id.to_owned()), ("eve".to_owned(), id.to_owned())]);
        }
        let users: Vec<&str> = held.iter().map(|h| h.0.as_str()).collect();
        let ids: Vec<&str> = held.iter().map(|h| h.1.as_str()).collect();
        let columns = vec![Column::new(c::USER.into(), users), Column::new(c::MESSAGE_ID.into(), ids)];
        let mut df = DataFrame::new(held.len(), columns).unwrap();
        store.begin().unwrap().write_requests_base(&mut df).unwrap();
        for rows in [1_000, 3, 1] {
            let (count, examples) = shared_sliced(&store, rows).unwrap();
            assert_eq!(count, 9, "m0, m1 and a..g, {rows} rows a slice");
            let named: Vec<(&str, Vec<&str>)> = examples
                .iter()
                .map(|e| (e.message_id.as_str(), e.users.iter().map(String::as_str).collect()))
                .collect();
            let de = vec!["dan", "eve"];
            assert_eq!(named, [("a", de.clone()), ("b", de.clone()), ("c", de.clone()), ("d", de.clone()), ("e", de)]);
        }
    }
}
