//! The what-if's shared-prefix flags (cache-model §5) as columns: a request
//! is warm for a TTL when some request of the same model and version (any
//! session, any person) came at most that TTL before it, strictly earlier.
//! The only analysis figure that crosses sessions, so it is recomputed over
//! the whole table, columnar, whenever rows change.

use crate::analyze::{TTL_1H_S, TTL_5M_S};

/// `(warm_5m, warm_1h)` per row, from the rows' model, version and time
/// (milliseconds).
pub fn warm_flags(models: &[&str], versions: &[&str], times_ms: &[i64]) -> (Vec<bool>, Vec<bool>) {
    let n = times_ms.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| (models[a], versions[a], times_ms[a]).cmp(&(models[b], versions[b], times_ms[b])));
    let (mut w5, mut w1) = (vec![false; n], vec![false; n]);
    let same_group = |a: usize, b: usize| models[a] == models[b] && versions[a] == versions[b];
    // `before`: the latest row of the group strictly earlier than the
    // current row.
    let mut before: Option<usize> = None;
    for (k, &i) in order.iter().enumerate() {
        if let Some(&p) = k.checked_sub(1).and_then(|k| order.get(k)) {
            if !same_group(p, i) {
                before = None;
            } else if times_ms[p] != times_ms[i] {
                before = Some(p);
            }
        }
        if let Some(b) = before {
            let gap_ms = times_ms[i] - times_ms[b];
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
        let models = ["m", "m", "m", "m", "x", "m"];
        let versions = ["1", "1", "1", "1", "1", "2"];
        // 0 s, 0 s (same instant: not earlier), 300 s, 3900 s, x at 10 s, v2 at 20 s.
        let times = [0, 0, 300_000, 3_900_000, 10_000, 20_000];
        let (w5, w1) = warm_flags(&models, &versions, &times);
        assert_eq!(w5, [false, false, true, false, false, false]);
        assert_eq!(w1, [false, false, true, true, false, false]);
    }
}
