//! A pushed bundle's acceptance, without HTTP: bearer token -> user, size
//! limit, validate, import with the token's user on every row, and the
//! HTTP status of each refusal. The push server (`web::push`, reached
//! through `update::accept`) checks the token before a byte of the body is
//! read (401); bodies over the limit get 413, and so do bundles that would
//! expand past the `BundleLimits`; a body that ends early, or a bundle that
//! fails validation, is refused before the store is touched, so a failed
//! upload changes nothing.

use super::batch::Batcher;
use super::bundle::read_bundle_limited;
use super::import::{ImportOutcome, Incoming};
use super::limits::BundleLimits;
use super::tokens::TokenMap;
use super::TeamError;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::Store;
use chrono::{DateTime, Utc};
use polars::prelude::Column;
use std::sync::Arc;

/// Where bundles are posted.
pub const BUNDLES_PATH: &str = "/api/v1/bundles";

/// Default upload limit: 64 MiB (a year of one heavy user is a few MiB).
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

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
        }
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
