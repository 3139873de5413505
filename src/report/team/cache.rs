//! The team report's per-person cache figures, read from stored columns:
//! the analysis table (`materialize`: each thread request's class and miss
//! cost, classified over the person's whole history, so a thread that began
//! before `--since` is whole and a warm request just inside the window stays
//! a hit) and the requests table. Tokens, hit ratio, idle and edit cost come
//! from `sql/team_person_cache.sql`, shared message ids counted a slice at
//! a time (`sums::shared_message_ids`, the count
//! `sql/team_shared_message_ids.sql` makes); machines and unpriced models from
//! small lazy queries. Nothing is classified here. No stale session is
//! listed: a team store holds other people's sessions, which only they can
//! resume (`analyze::resumability`). Hands `Cache` to `team::assemble`.

use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::pricing::{Estimate, PriceTable};
use crate::store::frames::Cols;
use polars::prelude::*;
use polars::sql::SQLContext;
use std::collections::{BTreeMap, BTreeSet};

const PERSON_CACHE_SQL: &str = include_str!("../../../sql/team_person_cache.sql");

/// Per-user figures from the stored columns.
#[derive(Debug, Default)]
pub(super) struct Cache {
    pub by_user: BTreeMap<String, UserCache>,
    /// Message ids under several users among the selected rows.
    pub shared_ids: usize,
    /// Models of the selected rows the price table does not know.
    pub unknown_models: Vec<String>,
    /// Models of the selected rows priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
}

/// One person's selected requests, summed.
#[derive(Debug, Default)]
pub(super) struct UserCache {
    pub tokens: TokenCounts,
    /// Miss cost after an expiry, and within the TTL.
    pub idle_cost_usd: f64,
    pub edit_cost_usd: f64,
    pub machines: BTreeSet<String>,
}

/// The frames the figures are read from.
pub(super) struct Sources<'a> {
    /// The requests the query selects (not split), summed per person,
    /// day, model and machine (`team::sums`).
    pub requests: LazyFrame,
    /// Message ids stored under several people among them
    /// (`sums::shared_message_ids`).
    pub shared_ids: usize,
    /// The analysis rows the query selects, their miss cost summed per
    /// person and class (`team::sums`).
    pub analysis: LazyFrame,
    pub prices: &'a PriceTable,
}

impl Cache {
    /// The cache figures of every person with selected requests.
    pub(super) fn of(s: Sources<'_>) -> PolarsResult<Cache> {
        let mut ctx = SQLContext::new();
        ctx.register("requests", s.requests.clone());
        ctx.register("analysis", s.analysis.clone());
        let people = ctx.execute(PERSON_CACHE_SQL)?.collect()?;
        let mut by_user = person_figures(&people)?;
        for (user, machine) in machines(s.requests.clone())? {
            if let Some(u) = by_user.get_mut(&user) {
                u.machines.insert(machine);
            }
        }
        let models = s.requests.select([col(c::MODEL)]).unique(None, UniqueKeepStrategy::Any).collect()?;
        let models: BTreeSet<&str> = Cols(&models).str(c::MODEL)?.into_iter().collect();
        Ok(Cache {
            by_user,
            shared_ids: s.shared_ids,
            unknown_models: models.iter().filter(|m| s.prices.resolve(m).is_none()).map(|m| (*m).to_owned()).collect(),
            estimated_models: s.prices.estimated_models(models),
        })
    }
}

/// Tokens, idle and edit cost per person (`sql/team_person_cache.sql`).
fn person_figures(df: &DataFrame) -> PolarsResult<BTreeMap<String, UserCache>> {
    let k = Cols(df);
    let user = k.str(c::USER)?;
    let (input, output) = (k.u64("input_tokens")?, k.u64("output_tokens")?);
    let (w5, w1, read) =
        (k.u64("cache_write_5m_tokens")?, k.u64("cache_write_1h_tokens")?, k.u64("cache_read_tokens")?);
    let (idle, edit) = (k.f64("idle_cost_usd")?, k.f64("edit_cost_usd")?);
    Ok((0..df.height())
        .map(|i| {
            let tokens = TokenCounts {
                input: input[i],
                output: output[i],
                cache_write_5m: w5[i],
                cache_write_1h: w1[i],
                cache_read: read[i],
            };
            let u = UserCache { tokens, idle_cost_usd: idle[i], edit_cost_usd: edit[i], ..UserCache::default() };
            (user[i].to_owned(), u)
        })
        .collect())
}

/// The machines each person's selected requests came from.
fn machines(requests: LazyFrame) -> PolarsResult<Vec<(String, String)>> {
    let df = requests
        .filter(col(c::MACHINE).neq(lit("")))
        .select([col(c::USER), col(c::MACHINE)])
        .unique(None, UniqueKeepStrategy::Any)
        .collect()?;
    let k = Cols(&df);
    Ok(k.str(c::USER)?.into_iter().zip(k.str(c::MACHINE)?).map(|(u, m)| (u.to_owned(), m.to_owned())).collect())
}
