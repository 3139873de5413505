//! A pushed bundle's acceptance, without HTTP: bearer token -> user, size
//! limit, validate, import with the token's user on every row, and the
//! HTTP status of each refusal. The push server (`web::push`, reached
//! through `update::accept`) checks the token before a byte of the body is
//! read (401); bodies over the limit get 413, and so do bundles that would
//! expand past the `BundleLimits`; a body that ends early, or a bundle that
//! fails validation, is refused before the store is touched, so a failed
//! upload changes nothing. Uploads share a memory budget (`Budget`): one
//! that would not fit in it at all is refused (413), others wait their turn.

use super::batch::Batcher;
use super::bundle::read_bundle_limited;
use super::bundle_footer::decode_cost;
use super::import::{ImportOutcome, Incoming};
use super::limits::BundleLimits;
use super::tokens::TokenMap;
use super::TeamError;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::Store;
use chrono::{DateTime, Utc};
use polars::prelude::Column;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Where bundles are posted.
pub const BUNDLES_PATH: &str = "/api/v1/bundles";

/// Default upload limit: 64 MiB (a year of one heavy user is a few MiB).
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// Default memory the push server spends on uploads at once: 512 MiB, a
/// push of about 350,000 rows (`limits::ROW_BYTES` each).
pub const DEFAULT_PUSH_MEMORY: u64 = 512 << 20;

/// What the handler needs: the team store, the tokens, the prices imports
/// are priced with, the upload limit, and the group-commit queue.
#[derive(Debug, Clone)]
pub struct TeamState {
    pub store: Store,
    pub tokens: Arc<TokenMap>,
    pub prices: Arc<PriceTable>,
    pub max_bytes: usize,
    /// Caps on what one bundle may expand to (rows, decompressed bytes).
    pub limits: BundleLimits,
    batch: Arc<Batcher>,
    budget: Arc<Budget>,
}

impl TeamState {
    /// The state of a team server over `store`; uploads over `max_bytes`
    /// (e.g. `DEFAULT_MAX_BYTES`) get 413.
    pub fn new(store: Store, tokens: TokenMap, prices: PriceTable, max_bytes: usize) -> TeamState {
        TeamState {
            store,
            tokens: Arc::new(tokens),
            prices: Arc::new(prices),
            max_bytes,
            limits: BundleLimits::default(),
            batch: Arc::new(Batcher::default()),
            budget: Arc::new(Budget::new(DEFAULT_PUSH_MEMORY)),
        }
    }

    /// The same state spending at most `bytes` of memory on uploads at
    /// once (`DEFAULT_PUSH_MEMORY` unless set).
    pub fn with_push_memory(self, bytes: u64) -> TeamState {
        TeamState { budget: Arc::new(Budget::new(bytes)), ..self }
    }

    /// The same state with other bundle caps (413 past them).
    pub fn with_limits(self, limits: BundleLimits) -> TeamState {
        TeamState { limits, ..self }
    }
}

/// Authorises, validates and imports one uploaded bundle (with any others
/// that arrive meanwhile). The token's user replaces whatever user the
/// bundle names; the reply names no other member.
pub fn accept_bundle(
    state: &TeamState,
    authorization: Option<&str>,
    bytes: &[u8],
    now: DateTime<Utc>,
) -> Result<ImportOutcome, TeamError> {
    let user = state.tokens.authorize(authorization)?.to_owned();
    if bytes.len() > state.max_bytes {
        return Err(TeamError::TooLarge { size: bytes.len(), limit: state.max_bytes });
    }
    let _reserved = state.budget.reserve(decode_cost(bytes))?;
    let mut bundle = read_bundle_limited(bytes, "upload", &state.limits.at(now))?;
    for r in &mut bundle.requests {
        r.user = user.as_str().into();
    }
    for i in &mut bundle.calls {
        i.user = user.as_str().into();
    }
    for c in &mut bundle.compactions {
        c.user.clone_from(&user);
    }
    if let Some(a) = &mut bundle.analysis {
        let n = a.rows.height();
        let named = Column::new(c::USER.into(), vec![user.as_str(); n]);
        a.rows.with_column(named).map_err(|source| TeamError::Polars { what: "reading the upload", source })?;
    }
    bundle.meta.user = user;
    let mut outcome =
        state.batch.submit(&state.store, &state.prices, Incoming { origin: "upload".into(), bundle }, now)?;
    // A pusher learns nothing about other members: no names of whoever
    // shares a message id with someone (the count stays).
    outcome.shared_examples.clear();
    Ok(outcome)
}

/// The memory uploads may take at once, from decoding until their rows are
/// in the store: an upload waits until its cost (`decode_cost`, from the
/// footer's claims) fits beside the others', and one costing more than the
/// whole budget is refused (413). However many uploads arrive at once,
/// hostile or not, the server holds at most the budget in their rows.
#[derive(Debug)]
struct Budget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// A share of the budget, given back when dropped.
struct Reserved<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    fn new(total: u64) -> Budget {
        Budget { total, used: Mutex::new(0), freed: Condvar::new() }
    }

    fn reserve(&self, bytes: u64) -> Result<Reserved<'_>, TeamError> {
        if bytes > self.total {
            let what = "bytes of memory to decode (the push server's --push-memory)";
            return Err(TeamError::OverLimit { origin: "upload".into(), what, found: bytes, limit: self.total });
        }
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used + bytes > self.total {
            used = self.freed.wait(used).unwrap_or_else(PoisonError::into_inner);
        }
        *used += bytes;
        Ok(Reserved { budget: self, bytes })
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        *self.budget.used.lock().unwrap_or_else(PoisonError::into_inner) -= self.bytes;
        self.budget.freed.notify_all();
    }
}

/// The HTTP status of a team error.
pub fn status_of(e: &TeamError) -> u16 {
    match e {
        TeamError::Unauthorized => 401,
        TeamError::TooLarge { .. } | TeamError::OverLimit { .. } => 413,
        TeamError::NewerSchema { .. } => 422,
        TeamError::NotParquet { .. } | TeamError::NotABundle { .. } | TeamError::Damaged { .. } => 400,
        _ => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_over_the_budget_is_refused_and_one_that_does_not_fit_yet_waits() {
        let budget = Arc::new(Budget::new(100));
        assert!(matches!(budget.reserve(101), Err(TeamError::OverLimit { found: 101, limit: 100, .. })));
        let first = budget.reserve(70).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let b = Arc::clone(&budget);
        let waiter = std::thread::spawn(move || {
            let _second = b.reserve(60).unwrap();
            tx.send(()).unwrap();
        });
        assert!(rx.recv_timeout(std::time::Duration::from_millis(200)).is_err(), "70 + 60 > 100: it waits");
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        waiter.join().unwrap();
        assert_eq!(*budget.used.lock().unwrap(), 0);
    }
}
