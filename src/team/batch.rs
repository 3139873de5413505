//! Group commit for the push server: uploads that arrive while an import
//! runs queue up and are merged together by the next one, so N concurrent
//! pushers cost about two store rewrites instead of N. Whichever waiting
//! thread finds no import running becomes the writer; every uploader gets
//! the outcome of its own bundle. A failed import fails every bundle of its
//! batch, and none of them lands.

use super::import::{import, ImportOutcome, Incoming};
use super::TeamError;
use crate::pricing::PriceTable;
use crate::store::Store;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

type Outcome = Result<ImportOutcome, String>;

/// The queue of validated bundles waiting for the store.
#[derive(Default)]
pub struct Batcher {
    state: Mutex<State>,
    done: Condvar,
}

#[derive(Default)]
struct State {
    next: u64,
    pending: Vec<(u64, Incoming)>,
    writing: bool,
    results: HashMap<u64, Outcome>,
}

impl std::fmt::Debug for Batcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Batcher")
    }
}

impl Batcher {
    /// Imports `incoming` with whatever else is queued; blocks until its
    /// outcome is known.
    pub fn submit(
        &self,
        store: &Store,
        prices: &PriceTable,
        incoming: Incoming,
        now: DateTime<Utc>,
    ) -> Result<ImportOutcome, TeamError> {
        let mut st = self.lock();
        let ticket = st.next;
        st.next += 1;
        st.pending.push((ticket, incoming));
        loop {
            if let Some(r) = st.results.remove(&ticket) {
                return r.map_err(TeamError::ImportFailed);
            }
            if st.writing {
                st = self.done.wait(st).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            st.writing = true;
            let batch = std::mem::take(&mut st.pending);
            drop(st);
            let results = run(store, prices, batch, now);
            st = self.lock();
            st.results.extend(results);
            st.writing = false;
            self.done.notify_all();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One import of the whole batch, split back into one outcome per upload.
fn run(store: &Store, prices: &PriceTable, batch: Vec<(u64, Incoming)>, now: DateTime<Utc>) -> Vec<(u64, Outcome)> {
    let (tickets, incoming): (Vec<u64>, Vec<Incoming>) = batch.into_iter().unzip();
    let result = catch_unwind(AssertUnwindSafe(|| import(store, &incoming, prices, now)));
    let failed = |why: String| tickets.iter().map(|&t| (t, Err(why.clone()))).collect();
    match result {
        Err(_) => failed("the import panicked".into()),
        Ok(Err(e)) => failed(e.to_string()),
        Ok(Ok(o)) => tickets
            .iter()
            .zip(&o.bundles)
            .map(|(&t, b)| {
                let mine = ImportOutcome {
                    bundles: vec![b.clone()],
                    received: b.requests,
                    added: b.added,
                    already_present: b.requests.saturating_sub(b.added),
                    ..o.clone()
                };
                (t, Ok(mine))
            })
            .collect(),
    }
}
