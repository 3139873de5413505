//! The API calls inside responses (`usage.iterations`) in usage reports.
//! The stored request rows already hold each response's summed tokens and
//! cost; this module adds what needs the calls themselves: a request's
//! tokens and cost split by the model of each call (so an advisor's spend
//! shows under the advisor's model), and the advisor calls, fallback calls
//! and refused attempts of any selection (count and cost). Hands
//! `report::usage` a split frame and `CallTotals`.

use crate::model::calls::calls_range;
use crate::model::columns as c;
use crate::model::Call;
use crate::pricing::WEB_SEARCH_USD;
use crate::report::query::label;
use crate::store::frames::Cols;
use polars::prelude::*;
use serde::Serialize;
use std::ops::{Add, Range};

/// Columns a report reads to find each request's calls.
pub const KEY_COLUMNS: [&str; 6] = [c::USER, c::MESSAGE_ID, c::REQUEST_ID, c::SOURCE, c::LINE, c::WEB_SEARCH];

/// Advisor calls, fallback calls, refused attempts and the calls Claude
/// Code did not write down: how many and their cost. Merges with `+`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CallTotals {
    pub advisor_calls: u64,
    pub advisor_cost_usd: f64,
    /// `fallback_message` calls: the retry on another model after a refusal.
    pub fallback_calls: u64,
    pub fallback_cost_usd: f64,
    /// Calls before a response's last fallback: the refused attempts.
    pub refused_calls: u64,
    pub refused_cost_usd: f64,
    /// Calls Claude Code paid for without writing them down
    /// (`ingest::unlogged`), of them those of compactions (their summaries).
    pub unlogged_calls: u64,
    pub unlogged_cost_usd: f64,
    pub compaction_summary_calls: u64,
    pub compaction_summary_cost_usd: f64,
}

impl Add for CallTotals {
    type Output = CallTotals;
    fn add(self, o: CallTotals) -> CallTotals {
        CallTotals {
            advisor_calls: self.advisor_calls + o.advisor_calls,
            advisor_cost_usd: self.advisor_cost_usd + o.advisor_cost_usd,
            fallback_calls: self.fallback_calls + o.fallback_calls,
            fallback_cost_usd: self.fallback_cost_usd + o.fallback_cost_usd,
            refused_calls: self.refused_calls + o.refused_calls,
            refused_cost_usd: self.refused_cost_usd + o.refused_cost_usd,
            unlogged_calls: self.unlogged_calls + o.unlogged_calls,
            unlogged_cost_usd: self.unlogged_cost_usd + o.unlogged_cost_usd,
            compaction_summary_calls: self.compaction_summary_calls + o.compaction_summary_calls,
            compaction_summary_cost_usd: self.compaction_summary_cost_usd + o.compaction_summary_cost_usd,
        }
    }
}

impl CallTotals {
    /// The figures of one response's calls, in list order.
    pub fn of(calls: &[Call]) -> CallTotals {
        let last_fallback = calls.iter().rposition(Call::is_fallback);
        let mut t = CallTotals::default();
        for (k, i) in calls.iter().enumerate() {
            if i.is_advisor() {
                (t.advisor_calls, t.advisor_cost_usd) = (t.advisor_calls + 1, t.advisor_cost_usd + i.cost_usd);
            } else if last_fallback.is_some_and(|f| k < f) {
                (t.refused_calls, t.refused_cost_usd) = (t.refused_calls + 1, t.refused_cost_usd + i.cost_usd);
            } else if i.is_fallback() {
                (t.fallback_calls, t.fallback_cost_usd) = (t.fallback_calls + 1, t.fallback_cost_usd + i.cost_usd);
            }
        }
        t
    }

    /// True when there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.advisor_calls + self.fallback_calls + self.refused_calls + self.unlogged_calls == 0
    }

    /// One unlogged row (`model::is_unlogged`) of `thread` costing `cost_usd`.
    pub fn unlogged(thread: &str, cost_usd: f64) -> CallTotals {
        let compaction = thread == crate::model::UNLOGGED_COMPACTION;
        CallTotals {
            unlogged_calls: 1,
            unlogged_cost_usd: cost_usd,
            compaction_summary_calls: u64::from(compaction),
            compaction_summary_cost_usd: if compaction { cost_usd } else { 0.0 },
            ..CallTotals::default()
        }
    }
}

/// For each row of `df` (which holds `KEY_COLUMNS`), the range of its calls
/// in `calls`; rows without calls are left out.
pub fn match_rows(df: &DataFrame, calls: &[Call]) -> PolarsResult<Vec<(usize, Range<usize>)>> {
    let k = Cols(df);
    let (user, msg, req) = (k.str(c::USER)?, k.str(c::MESSAGE_ID)?, k.str(c::REQUEST_ID)?);
    let (source, line) = (k.str(c::SOURCE)?, k.u64(c::LINE)?);
    Ok((0..df.height())
        .filter_map(|i| {
            let range = calls_range(calls, (user[i], msg[i], req[i], source[i], line[i]));
            (!range.is_empty()).then_some((i, range))
        })
        .collect())
}

/// `df` with each request that made several calls replaced by one row per
/// call: the call's model (also as `key` and/or `sub` when they name the
/// model, then labelled as `query::model_label` does, which needs the
/// `speed` column), tokens and cost. The request counts once (`counted`), on its
/// first call on its own model (else its first call), which also carries
/// its web searches; so every total over the rows is unchanged.
pub fn split_by_model(
    df: DataFrame,
    calls: &[Call],
    matched: &[(usize, Range<usize>)],
    key_is_model: bool,
    sub_is_model: bool,
) -> PolarsResult<DataFrame> {
    if matched.is_empty() {
        return Ok(df);
    }
    let (models, web) = (Cols(&df).str(c::MODEL)?, Cols(&df).u64(c::WEB_SEARCH)?);
    let mut take: Vec<IdxSize> = Vec::new();
    let mut parts: Vec<(&Call, bool, f64)> = Vec::new();
    let mut mask = vec![false; df.height()];
    for (row, range) in matched {
        mask[*row] = true;
        let own = &calls[range.clone()];
        let counted = own.iter().position(|i| i.model == models[*row]).unwrap_or(0);
        for (k, call) in own.iter().enumerate() {
            take.push(IdxSize::try_from(*row).unwrap_or(IdxSize::MAX));
            let extra = if k == counted { web[*row] as f64 * WEB_SEARCH_USD } else { 0.0 };
            parts.push((call, k == counted, extra));
        }
    }
    let mut split = df.take(&IdxCa::from_vec("take".into(), take))?;
    let model = Column::new(c::MODEL.into(), parts.iter().map(|p| p.0.model.as_str()).collect::<Vec<_>>());
    let u =
        |name: &str, f: fn(&Call) -> u64| Column::new(name.into(), parts.iter().map(|p| f(p.0)).collect::<Vec<u64>>());
    split.with_column(model)?;
    if key_is_model || sub_is_model {
        let speed = Cols(&split).str(c::SPEED)?;
        let labels: Vec<String> = parts.iter().zip(&speed).map(|(p, s)| label(p.0.model.as_str(), s)).collect();
        let labels = Column::new(c::KEY.into(), labels);
        if key_is_model {
            split.with_column(labels.clone())?;
        }
        if sub_is_model {
            split.with_column(labels.with_name(c::SUB.into()))?;
        }
    }
    split.with_column(u(c::INPUT, |i| i.tokens.input))?;
    split.with_column(u(c::CACHE_WRITE_5M, |i| i.tokens.cache_write_5m))?;
    split.with_column(u(c::CACHE_WRITE_1H, |i| i.tokens.cache_write_1h))?;
    split.with_column(u(c::CACHE_READ, |i| i.tokens.cache_read))?;
    split.with_column(u(c::OUTPUT, |i| i.tokens.output))?;
    split
        .with_column(Column::new(c::COST_USD.into(), parts.iter().map(|p| p.0.cost_usd + p.2).collect::<Vec<f64>>()))?;
    split.with_column(Column::new(c::COUNTED.into(), parts.iter().map(|p| u64::from(p.1)).collect::<Vec<u64>>()))?;
    let keep = BooleanChunked::from_iter_values("keep".into(), mask.iter().map(|m| !m));
    let mut out = df.filter(&keep)?;
    out.vstack_mut_owned(split.select(out.get_column_names_owned())?)?;
    Ok(out)
}

/// The calls Claude Code did not write down among the requests `q`
/// selects: their total, and each session's.
pub fn unlogged(
    view: &crate::store::view::StoreView,
    q: &crate::report::query::Query,
) -> PolarsResult<(CallTotals, std::collections::BTreeMap<String, CallTotals>)> {
    let mut by_session = std::collections::BTreeMap::new();
    let Some(lf) = view.unlogged() else { return Ok((CallTotals::default(), by_session)) };
    let df = q.filter(lf)?.select([col(c::SESSION_ID), col(c::THREAD), col(c::COST_USD)]).collect()?;
    let k = Cols(&df);
    let (session, thread, cost) = (k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.f64(c::COST_USD)?);
    let mut total = CallTotals::default();
    for i in 0..df.height() {
        let one = CallTotals::unlogged(thread[i], cost[i]);
        total = total + one;
        let e: &mut CallTotals = by_session.entry(session[i].to_owned()).or_default();
        *e = *e + one;
    }
    Ok((total, by_session))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(index: u32, kind: &str, cost: f64) -> Call {
        Call {
            user: Default::default(),
            message_id: "m".into(),
            request_id: "r".into(),
            source: "f".into(),
            line: 1,
            index,
            kind: kind.into(),
            model: "x".into(),
            tokens: Default::default(),
            cost_usd: cost,
        }
    }

    #[test]
    fn advisor_fallback_and_refused_calls_are_told_apart() {
        use crate::model::calls::{ADVISOR, FALLBACK, MESSAGE};
        let t = CallTotals::of(&[call(0, MESSAGE, 0.5), call(1, FALLBACK, 0.25), call(2, ADVISOR, 2.0)]);
        assert_eq!(
            t,
            CallTotals {
                advisor_calls: 1,
                advisor_cost_usd: 2.0,
                fallback_calls: 1,
                fallback_cost_usd: 0.25,
                refused_calls: 1,
                refused_cost_usd: 0.5,
                ..CallTotals::default()
            }
        );
        // Plain calls, no fallback: nothing to tell.
        assert!(CallTotals::of(&[call(0, MESSAGE, 0.5), call(1, MESSAGE, 0.25)]).is_empty());
    }
}
