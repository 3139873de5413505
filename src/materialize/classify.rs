//! The pure classification step of the stage: request rows of whole
//! sessions in, analysis rows (and the side tables) out. The rows are cut
//! into chunks of whole sessions, classified on every core (a thread never
//! crosses a session), and stacked back in order; each chunk takes the
//! compactions of its range of `(user, session)` keys, so the labels come
//! out in the compaction table's order, as one pass over all rows gives.

use super::rows::analysis_rows;
use super::side_rows;
use crate::analyze::analyze;
use crate::model::{Call, Compaction, Request, Text};
use crate::pricing::PriceTable;
use polars::prelude::*;
use rayon::prelude::*;
use std::borrow::Borrow;

/// Fewest rows in a chunk: below it a chunk's fixed costs (the calls'
/// index, the compaction times) outweigh the parallelism.
const MIN_CHUNK_ROWS: usize = 4_096;
/// Chunks per core, so that unequal sessions still share the cores.
const CHUNKS_PER_CORE: usize = 4;

/// Orders requests (or references to them) as `classify_sessions` takes them: by
/// user and session, stably.
pub fn sort_by_session<R: Borrow<Request>>(requests: &mut [R]) {
    requests.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        (&a.user, &a.session_id).cmp(&(&b.user, &b.session_id))
    });
}

/// The analysis rows (without what-if columns) of `requests`, whole
/// sessions ordered by `sort_by_session`, and (`sides`) their side tables.
/// Pure: a rebuilt store's rows are classified from memory while its tables
/// are written. Rows may be references (`&Request`): nothing is copied
/// but the rows of a response made of several calls (`thread_rows`).
pub fn classify_sessions<R: Borrow<Request> + Sync>(
    requests: &[R],
    calls: &[Call],
    compactions: &[Compaction],
    prices: &PriceTable,
    sides: bool,
) -> PolarsResult<Classified> {
    let chunks = session_chunks(requests, chunk_rows(requests.len()));
    let boundaries = chunk_boundaries(&chunks, compactions);
    if chunks.is_empty() {
        return one::<Request>(&[], calls, &boundaries[0], prices, sides);
    }
    let parts = chunks
        .into_par_iter()
        .zip(boundaries.par_iter())
        .map(|(rows, comps)| one(rows, calls, comps, prices, sides))
        .collect::<PolarsResult<Vec<_>>>()?;
    let mut parts = parts.into_iter();
    let (mut rows, mut side) = parts.next().map_or_else(|| one::<Request>(&[], calls, &[], prices, sides), Ok)?;
    for (more, more_side) in parts {
        rows.vstack_mut_owned(more)?;
        if let (Some([l, r]), Some([ml, mr])) = (&mut side, more_side) {
            l.vstack_mut_owned(ml)?;
            r.vstack_mut_owned(mr)?;
        }
    }
    Ok((rows, side))
}

/// The rows of a chunk of `n` requests: enough chunks for every core to
/// take several, none under `MIN_CHUNK_ROWS`.
pub(super) fn chunk_rows(n: usize) -> usize {
    (n / (rayon::current_num_threads() * CHUNKS_PER_CORE)).max(MIN_CHUNK_ROWS)
}

/// The compactions of each chunk's range of `(user, session)` keys (one
/// list at least, for no chunk at all).
pub(super) fn chunk_boundaries<R: Borrow<Request>>(
    chunks: &[&[R]],
    compactions: &[Compaction],
) -> Vec<Vec<Compaction>> {
    let starts: Vec<(Text, Text)> = chunks
        .iter()
        .skip(1)
        .filter_map(|c| c.first())
        .map(|r| (r.borrow().user.clone(), r.borrow().session_id.clone()))
        .collect();
    let mut boundaries: Vec<Vec<Compaction>> = vec![Vec::new(); chunks.len().max(1)];
    for k in compactions {
        let at = starts.partition_point(|(u, s)| (u.as_str(), s.as_str()) <= (k.user.as_str(), k.session_id.as_str()));
        boundaries[at].push(k.clone());
    }
    boundaries
}

/// The analysis rows and side tables of one chunk.
type Classified = (DataFrame, Option<[DataFrame; 2]>);

/// One chunk: whole sessions and their compactions.
pub(super) fn one<R: Borrow<Request>>(
    requests: &[R],
    calls: &[Call],
    compactions: &[Compaction],
    prices: &PriceTable,
    sides: bool,
) -> PolarsResult<Classified> {
    match crate::analyze::thread_rows(prices, requests, calls) {
        Some(thread) => classified(&thread, calls, compactions, prices, sides),
        None => classified(requests, calls, compactions, prices, sides),
    }
}

/// `one` over the chunk's thread rows (`thread_rows`).
fn classified<R: Borrow<Request>>(
    thread: &[R],
    calls: &[Call],
    compactions: &[Compaction],
    prices: &PriceTable,
    sides: bool,
) -> PolarsResult<Classified> {
    let caches = analyze(thread, compactions, prices);
    let rows = analysis_rows(thread, &caches, prices)?;
    let sides = match sides {
        true => Some([
            side_rows::labels_frame(thread, compactions)?,
            side_rows::session_analysis_frame(thread, &caches, compactions, calls)?,
        ]),
        false => None,
    };
    Ok((rows, sides))
}

/// `requests` (sorted by user and session) cut into chunks of at least
/// `size` rows that end where a session ends; nothing is copied.
pub(super) fn session_chunks<R: Borrow<Request>>(requests: &[R], size: usize) -> Vec<&[R]> {
    fn key<R: Borrow<Request>>(r: &R) -> (&str, &str) {
        let r = r.borrow();
        (r.user.as_str(), r.session_id.as_str())
    }
    let mut chunks = Vec::new();
    let mut rest = requests;
    while !rest.is_empty() {
        let mut end = size.clamp(1, rest.len());
        let last = key(&rest[end - 1]);
        end += rest[end..].iter().take_while(|r| key(*r) == last).count();
        let (chunk, more) = rest.split_at(end);
        chunks.push(chunk);
        rest = more;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(user: &str, session: &str) -> Request {
        let r = crate::model::calls::tests::request("claude-sonnet-4-5", Default::default());
        Request { user: user.into(), session_id: session.into(), ..r }
    }

    #[test]
    fn chunks_end_where_sessions_end() {
        let rows: Vec<Request> =
            ["a", "a", "a", "b", "c", "c"].iter().map(|s| req("u", s)).chain([req("v", "a")]).collect();
        let chunks = session_chunks(&rows, 2);
        let shape: Vec<Vec<&str>> = chunks.iter().map(|c| c.iter().map(|r| r.session_id.as_str()).collect()).collect();
        assert_eq!(shape, vec![vec!["a", "a", "a"], vec!["b", "c", "c"], vec!["a"]]);
        assert_eq!(chunks[2][0].user, "v");
    }
}
