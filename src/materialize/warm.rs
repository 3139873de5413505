//! The what-if's shared-prefix flags (cache-model §5) as columns: a request
//! is warm for a TTL when some request of the same model and version (any
//! session, any person) came at most that TTL before it, strictly earlier.
//! The only analysis figure that crosses sessions, so it is recomputed over
//! the whole table, columnar, whenever rows change.

use crate::analyze::{TTL_1H_S, TTL_5M_S};
use crate::model::columns as c;
use crate::store::frames::Cols;
use polars::prelude::*;
use std::collections::HashMap;

/// `(warm_5m, warm_1h)` per row of `parts` taken as one table (in order),
/// from their model, version and time columns.
pub(super) fn warm_flags(parts: &[&DataFrame]) -> PolarsResult<(Vec<bool>, Vec<bool>)> {
    let mut columns = Vec::with_capacity(parts.len());
    for df in parts {
        let k = Cols(df);
        columns.push((k.str(c::MODEL)?, k.str(c::VERSION)?, times(df)?));
    }
    let rows = columns.iter().flat_map(|(m, v, t)| m.iter().zip(v).zip(t).map(|((m, v), t)| (*m, *v, *t)));
    Ok(warm_flags_of(rows))
}

/// The times of a table's rows, in milliseconds.
pub(super) fn times(df: &DataFrame) -> PolarsResult<Vec<i64>> {
    let t = df.column(c::TIME)?.cast(&DataType::Int64)?;
    Ok(t.i64()?.iter().map(|t| t.unwrap_or(0)).collect())
}

/// `warm_flags` over rows given as (model, version, time in milliseconds).
pub(super) fn warm_flags_of<'a>(rows: impl Iterator<Item = (&'a str, &'a str, i64)>) -> (Vec<bool>, Vec<bool>) {
    let mut groups: HashMap<(&str, &str), u32> = HashMap::new();
    let mut keys: Vec<(u32, i64)> = Vec::with_capacity(rows.size_hint().0);
    // Neighbouring rows mostly share a model and version: look up only changes.
    let mut last: Option<((&str, &str), u32)> = None;
    for (m, v, t) in rows {
        let id = match last {
            Some((key, id)) if key == (m, v) => id,
            _ => {
                let next = groups.len() as u32;
                let id = *groups.entry((m, v)).or_insert(next);
                last = Some(((m, v), id));
                id
            }
        };
        keys.push((id, t));
    }
    flags(&keys)
}

/// `(warm_5m, warm_1h)` per row, from the rows' group (model and version)
/// and time (milliseconds).
fn flags(keys: &[(u32, i64)]) -> (Vec<bool>, Vec<bool>) {
    let n = keys.len();
    let mut order: Vec<(u32, i64, usize)> = keys.iter().enumerate().map(|(i, &(g, t))| (g, t, i)).collect();
    order.sort_unstable();
    let (mut w5, mut w1) = (vec![false; n], vec![false; n]);
    // `before`: the time of the latest row of the group strictly earlier
    // than the current row.
    let mut before: Option<i64> = None;
    for (k, &(group, time, i)) in order.iter().enumerate() {
        if let Some(&(g, t, _)) = k.checked_sub(1).and_then(|k| order.get(k)) {
            if g != group {
                before = None;
            } else if t != time {
                before = Some(t);
            }
        }
        if let Some(b) = before {
            let gap_ms = time - b;
            w5[i] = gap_ms <= i64::from(TTL_5M_S) * 1000;
            w1[i] = gap_ms <= i64::from(TTL_1H_S) * 1000;
        }
    }
    (w5, w1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_needs_an_earlier_request_of_the_same_model_and_version_within_the_ttl() {
        // Groups: 0 = (m, 1), 1 = (x, 1), 2 = (m, 2). 0 s, 0 s (same
        // instant: not earlier), 300 s, 3900 s, x at 10 s, v2 at 20 s.
        let keys = [(0, 0), (0, 0), (0, 300_000), (0, 3_900_000), (1, 10_000), (2, 20_000)];
        let (w5, w1) = flags(&keys);
        assert_eq!(w5, [false, false, true, false, false, false]);
        assert_eq!(w1, [false, false, true, true, false, false]);
    }
}
