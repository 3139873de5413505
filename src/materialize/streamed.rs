//! A rebuilt store's analysis, classified and written a chunk at a time.
//! The shared-prefix flags cross sessions, so every thread row's model,
//! version and time is gathered first (`analyze::thread_keys`, no row
//! made); then each of two lanes classifies its run of chunks of whole
//! sessions, adds their what-if columns and writes each chunk as it is
//! done, and the two files are joined into the new base. The whole
//! analysis is never held at once: held beside the tables being written,
//! it would add about 30 MB to the cold ingest's peak on the 1 GiB tree.

use super::classify::{chunk_boundaries, chunk_rows, one, session_chunks};
use super::joined::encode_joined;
use super::rows::finish_with;
use super::warm::warm_flags_of;
use crate::analyze::thread_keys;
use crate::lanes::LANES;
use crate::model::{Call, Compaction, Request};
use crate::pricing::PriceTable;
use crate::store::{Commit, StoreError, Table};
use polars::prelude::*;
use rayon::prelude::*;
use std::sync::Mutex;

/// Classifies `rows` (every request, sorted by `sort_by_session`) and
/// stores their analysis as a new base; returns the rows stored and the
/// side tables, or None, with nothing written, when there are no rows or
/// the lanes' files do not join (the caller then classifies and stores
/// the analysis whole).
pub(super) fn store_streamed(
    store: &Commit<'_>,
    prices: &PriceTable,
    rows: &[&Request],
    calls: &[Call],
    compactions: &[Compaction],
) -> Result<Option<(usize, [DataFrame; 2])>, StoreError> {
    if rows.is_empty() {
        return Ok(None);
    }
    let at = |source| StoreError::Polars { path: store.path(Table::Analysis), source };
    let chunks = session_chunks(rows, chunk_rows(rows.len()));
    let boundaries = chunk_boundaries(&chunks, compactions);
    let keys: Vec<Vec<_>> = chunks.par_iter().map(|c| thread_keys(c, calls)).collect();
    let starts: Vec<usize> = keys.iter().scan(0, |n, k| Some(std::mem::replace(n, *n + k.len()))).collect();
    let all = keys.iter().flatten().map(|(m, v, t)| (m.as_str(), v.as_str(), t.timestamp_millis()));
    let (w5, w1) = warm_flags_of(all);
    drop(keys);
    let lanes = lanes_of(&chunks);
    let sides: Mutex<Vec<Option<[DataFrame; 2]>>> = Mutex::new(vec![None; chunks.len()]);
    let encode = |lane: usize, write: &mut super::joined::Piece<'_>| -> Result<usize, StoreError> {
        let mut written = 0;
        for i in lanes[lane].clone() {
            let (df, side) = one(chunks[i], calls, &boundaries[i], prices, true).map_err(at)?;
            let (from, n) = (starts[i], df.height());
            let df = finish_with(df, w5[from..from + n].to_vec(), w1[from..from + n].to_vec()).map_err(at)?;
            write(&df).map_err(at)?;
            written += n;
            if let Ok(mut s) = sides.lock() {
                s[i] = side;
            }
        }
        Ok(written)
    };
    let Some(n) = encode_joined(store, prices, lanes.len(), encode)? else { return Ok(None) };
    store.remove(Table::RecentAnalysis)?;
    let sides: Vec<[DataFrame; 2]> = sides.into_inner().unwrap_or_default().into_iter().flatten().collect();
    Ok(Some((n, super::sides::stack(sides).map_err(at)?)))
}

/// The chunks cut into at most `LANES` runs of about equal rows (each cut
/// at the chunk boundary nearest its share), in order, none empty.
fn lanes_of(chunks: &[&[&Request]]) -> Vec<std::ops::Range<usize>> {
    let mut before = vec![0usize];
    for c in chunks {
        before.push(before[before.len() - 1] + c.len());
    }
    let total = before[before.len() - 1];
    let mut cuts = vec![0];
    for k in 1..LANES {
        let share = total * k / LANES;
        let at = (0..before.len()).min_by_key(|&b| before[b].abs_diff(share)).unwrap_or(0);
        cuts.push(at.max(cuts[cuts.len() - 1]));
    }
    cuts.push(chunks.len());
    cuts.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(session: &str) -> Request {
        let r = crate::model::calls::tests::request("claude-sonnet-4-5", Default::default());
        Request { session_id: session.into(), ..r }
    }

    #[test]
    fn lanes_take_runs_of_about_half_the_rows_each_cut_between_chunks() {
        let rows: Vec<Request> = (0..10).map(|i| req(&format!("s{i}"))).collect();
        let refs: Vec<&Request> = rows.iter().collect();
        let chunks: Vec<&[&Request]> = vec![&refs[..3], &refs[3..4], &refs[4..8], &refs[8..]];
        // 3, 1, 4 and 2 rows: the cut nearest 5 rows is after 4 (or 8).
        assert_eq!(lanes_of(&chunks), vec![0..2, 2..4]);
        assert_eq!(lanes_of(&chunks[..1]), vec![0..1]);
        assert!(lanes_of(&[]).is_empty());
    }
}
