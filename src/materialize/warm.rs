//! The what-if's shared-prefix flags (cache-model §5) as columns: a request
//! is warm for a TTL when some request of the same model and version (any
//! session, any person) came at most that TTL before it, strictly earlier.
//! The only analysis figure that crosses sessions, so whenever rows change
//! it is recomputed, columnar, beyond the changed sessions: over the whole
//! table when it is written whole, else from the earliest row that came or
//! went on, reading the rows a TTL before (`incremental`).

use crate::analyze::{TTL_1H_S, TTL_5M_S};
use crate::model::columns as c;
use crate::store::frames::Cols;
use polars::prelude::*;
use std::collections::HashMap;

/// `(warm_5m, warm_1h)` per row of `parts` taken as one table (in order),
/// from their model, version and time columns.
pub(super) fn warm_flags(parts: &[&DataFrame]) -> PolarsResult<(Vec<bool>, Vec<bool>)> {
    let mut keys = WarmKeys::default();
    for df in parts {
        keys.add(df)?;
    }
    Ok(keys.flags())
}

/// The times of a table's rows, in milliseconds.
pub(super) fn times(df: &DataFrame) -> PolarsResult<Vec<i64>> {
    let t = df.column(c::TIME)?.cast(&DataType::Int64)?;
    Ok(t.i64()?.iter().map(|t| t.unwrap_or(0)).collect())
}

/// `warm_flags` over rows given as (model, version, time in milliseconds).
pub(super) fn warm_flags_of<'a>(rows: impl Iterator<Item = (&'a str, &'a str, i64)>) -> (Vec<bool>, Vec<bool>) {
    let mut keys = WarmKeys::default();
    rows.for_each(|(m, v, t)| keys.push(m, v, t));
    keys.flags()
}

/// Each row's group (model and version, numbered) and time, gathered a
/// frame at a time: a large table's text columns are never held whole.
#[derive(Default)]
pub(super) struct WarmKeys {
    groups: HashMap<(String, String), u32>,
    /// The previous row's group: neighbouring rows mostly share one.
    last: Option<(String, String, u32)>,
    keys: Vec<(u32, i64)>,
}

impl WarmKeys {
    /// Adds the rows of `df` (model, version and time columns).
    pub(super) fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let k = Cols(df);
        let (model, version, time) = (k.str(c::MODEL)?, k.str(c::VERSION)?, times(df)?);
        self.keys.reserve(time.len());
        for ((m, v), t) in model.into_iter().zip(version).zip(time) {
            self.push(m, v, t);
        }
        Ok(())
    }

    fn push(&mut self, model: &str, version: &str, time: i64) {
        let id = match &self.last {
            Some((m, v, id)) if m == model && v == version => *id,
            _ => {
                let next = u32::try_from(self.groups.len()).unwrap_or(u32::MAX);
                let id = *self.groups.entry((model.to_owned(), version.to_owned())).or_insert(next);
                self.last = Some((model.to_owned(), version.to_owned(), id));
                id
            }
        };
        self.keys.push((id, time));
    }

    /// `(warm_5m, warm_1h)` per row added, in order.
    pub(super) fn flags(self) -> (Vec<bool>, Vec<bool>) {
        flags(&self.keys)
    }
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
    fn frames_added_one_at_a_time_give_the_flags_of_their_rows_at_once() {
        let rows =
            [("m", "1", 0), ("m", "1", 200_000), ("x", "1", 250_000), ("m", "2", 260_000), ("m", "1", 4_000_000)];
        let frame = |rows: &[(&str, &str, i64)]| {
            let (m, v): (Vec<&str>, Vec<&str>) = rows.iter().map(|r| (r.0, r.1)).unzip();
            let t = Column::new(c::TIME.into(), rows.iter().map(|r| r.2).collect::<Vec<_>>());
            let t = t.cast(&DataType::Datetime(TimeUnit::Milliseconds, None)).unwrap();
            DataFrame::new_infer_height(vec![Column::new(c::MODEL.into(), m), Column::new(c::VERSION.into(), v), t])
                .unwrap()
        };
        let (a, b) = (frame(&rows[..2]), frame(&rows[2..]));
        let at_once = warm_flags_of(rows.iter().map(|r| (r.0, r.1, r.2)));
        assert_eq!(warm_flags(&[&a, &b]).unwrap(), at_once);
        assert_eq!(at_once.0, [false, true, false, false, false]);
        assert_eq!(at_once.1, [false, true, false, false, false], "m 1 at 4000 s: 3800 s after its last");
    }

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
