//! Message ids kept under more than one user (the same id in two people's
//! transcripts: copied sessions, or one machine's logs under two names),
//! which an import reports: over typed rows, or over two columns of the
//! stored requests. Hands `import` the count and the first few by name.

use super::TeamError;
use crate::model::columns as c;
use crate::model::Request;
use crate::store::frames::Cols;
use crate::store::Store;
use foldhash::{HashMap, HashMapExt};
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

/// Message ids that appear under more than one user, by id.
pub fn shared_message_ids(requests: &[Request]) -> Vec<SharedMessage> {
    let mut users: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in requests {
        users.entry(r.message_id.as_str()).or_default().insert(r.user.as_str());
    }
    users
        .into_iter()
        .filter(|(_, u)| u.len() > 1)
        .map(|(m, u)| SharedMessage { message_id: m.to_owned(), users: u.into_iter().map(str::to_owned).collect() })
        .collect()
}

/// How many message ids the stored requests hold under several users, and
/// the first few of them (two columns read, not the rows).
pub(super) fn shared_message_ids_stored(store: &Store) -> Result<(usize, Vec<SharedMessage>), TeamError> {
    let Some(df) = store.read_request_columns(&[c::MESSAGE_ID, c::USER])? else { return Ok((0, Vec::new())) };
    let polars = |source| TeamError::Polars { what: "finding shared message ids", source };
    let k = Cols(&df);
    let (ids, users) = (k.str(c::MESSAGE_ID).map_err(polars)?, k.str(c::USER).map_err(polars)?);
    // Per id, its first user and whether another one holds it too: one pass,
    // no set per id.
    let mut first: HashMap<&str, (&str, bool)> = HashMap::new();
    for (m, u) in ids.iter().zip(&users) {
        let e = first.entry(m).or_insert((u, false));
        e.1 |= e.0 != *u;
    }
    let mut shared: Vec<&str> = first.into_iter().filter(|(_, (_, many))| *many).map(|(m, _)| m).collect();
    shared.sort_unstable();
    let count = shared.len();
    let examples: BTreeMap<&str, BTreeSet<&str>> =
        shared.into_iter().take(SHARED_EXAMPLES).map(|m| (m, BTreeSet::new())).collect();
    let mut examples = examples;
    for (m, u) in ids.iter().zip(&users) {
        if let Some(set) = examples.get_mut(m) {
            set.insert(u);
        }
    }
    let examples = examples
        .into_iter()
        .map(|(m, u)| SharedMessage { message_id: m.to_owned(), users: u.into_iter().map(str::to_owned).collect() })
        .collect();
    Ok((count, examples))
}
