//! Deduplication: candidate rows from every file -> one row per API request.
//!
//! A request is `(user, message.id, requestId)`, global across files (local
//! transcripts all have user `""`; team imports keep each person's rows
//! apart, so the same message id under two users counts for both). Its copies
//! merge: the line with the largest `output_tokens` is kept (ties: the first
//! by file and line, so the result never depends on read order), and its time
//! is the earliest copy's. A sidechain replay of a main-thread message (same
//! user and message.id, another requestId) is dropped in favour of the main copy.

use crate::model::Request;
use chrono::{DateTime, Utc};
use foldhash::{HashMap, HashSet};
use rayon::prelude::*;
use std::cmp::Ordering;

/// The outcome of deduplicating candidate rows, as indices into them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// One entry per request: the index of its kept copy and its earliest
    /// time, ordered by time (then message id, user and request id).
    pub kept: Vec<(usize, DateTime<Utc>)>,
    /// Rows a later incremental merge needs again, ascending: every copy of a
    /// request seen more than once, and every dropped sidechain replay. A
    /// request seen once is fully described by its kept row.
    pub spare: Vec<usize>,
}

/// Merges candidate rows into one row per request, ordered by time. Rows are
/// moved, never cloned.
pub fn dedup(rows: Vec<Request>) -> Vec<Request> {
    let mut chunks = Chunks(vec![rows]);
    let kept = full_plan(&mut chunks).kept;
    let mut slots: Vec<Option<Request>> = chunks.0.into_iter().flatten().map(Some).collect();
    kept.into_iter()
        .filter_map(|(i, time)| {
            let mut r = slots[i].take()?;
            r.time = time;
            Some(r)
        })
        .collect()
}

/// Candidate rows in chunks (one per file read, say), indexed as if they
/// were one vector, so they need not be copied into one.
#[derive(Debug, Default)]
pub struct Chunks(pub Vec<Vec<Request>>);

impl Chunks {
    /// Every row, in index order.
    pub fn refs(&self) -> Vec<&Request> {
        let mut out = Vec::with_capacity(self.0.iter().map(Vec::len).sum());
        out.extend(self.0.iter().flatten());
        out
    }

    /// Every row, mutably, in index order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Request> {
        self.0.iter_mut().flatten()
    }
}

type Key<'a> = (&'a str, &'a str, &'a str);

/// The plan of `rows` after merging copies within each source, which is
/// needed only when some request has several copies in one source (then the
/// rows become one chunk).
pub fn full_plan(rows: &mut Chunks) -> Kept {
    let refs = rows.refs();
    let p = plan(&refs);
    if !copies_within_a_source(&refs, &p) {
        return p;
    }
    drop(refs);
    let mut flat: Vec<Request> = std::mem::take(&mut rows.0).into_iter().flatten().collect();
    collapse_per_source(&mut flat);
    *rows = Chunks(vec![flat]);
    plan(&rows.refs())
}

/// Merges copies of one request within one source file, as the parser does
/// within what it reads at once: the best copy, at the earliest time. Rows
/// read from one file at different times then look as if read together, so
/// the spare rows do not depend on how a file was read.
pub fn collapse_per_source(rows: &mut Vec<Request>) {
    let mut first: HashMap<(Key<'_>, &str), usize> = HashMap::with_capacity_and_hasher(rows.len(), Default::default());
    let mut merges: Vec<(usize, usize)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let key = ((r.user.as_str(), r.message_id.as_str(), r.request_id.as_str()), r.source.as_str());
        match first.get(&key) {
            Some(&k) => merges.push((k, i)),
            None => {
                first.insert(key, i);
            }
        }
    }
    drop(first);
    if merges.is_empty() {
        return;
    }
    let mut gone = vec![false; rows.len()];
    for (k, i) in merges {
        let time = rows[k].time.min(rows[i].time);
        if better(&rows[i], &rows[k]) == Ordering::Less {
            rows.swap(k, i);
        }
        rows[k].time = time;
        gone[i] = true;
    }
    let mut n = 0;
    rows.retain(|_| {
        n += 1;
        !gone[n - 1]
    });
}

/// Chooses the kept copy of every request and the spare rows in one hash
/// pass over `rows` (plus one over the sidechain rows' messages, if any).
/// The pass is cut by message id into one shard per core: every copy of a
/// request falls in one shard, which sees its rows in index order, so the
/// plan is the one a single pass gives.
pub fn plan(rows: &[&Request]) -> Kept {
    let replays = sidechain_replays(rows);
    let shards = rayon::current_num_threads().max(1);
    let shard_of = |r: &Request| r.message_id.as_bytes().last().map_or(0, |&b| usize::from(b) % shards);
    let parts: Vec<Kept> = (0..shards)
        .into_par_iter()
        .map(|s| {
            // Per request: kept index, earliest time, first index, copies seen.
            let mut best: HashMap<Key<'_>, (usize, DateTime<Utc>, usize, u32)> =
                HashMap::with_capacity_and_hasher(rows.len() / shards + 1, Default::default());
            let mut spare = Vec::new();
            for (i, r) in rows.iter().enumerate().filter(|(_, r)| shard_of(r) == s) {
                if replays.as_ref().is_some_and(|f| f(r)) {
                    spare.push(i);
                    continue;
                }
                best.entry((&r.user, &r.message_id, &r.request_id))
                    .and_modify(|(k, t, first, n)| {
                        *t = (*t).min(r.time);
                        *n += 1;
                        if *n == 2 {
                            spare.push(*first);
                        }
                        spare.push(i);
                        if better(r, rows[*k]) == Ordering::Less {
                            *k = i;
                        }
                    })
                    .or_insert((i, r.time, i, 1));
            }
            Kept { kept: best.into_values().map(|(i, t, _, _)| (i, t)).collect(), spare }
        })
        .collect();
    let mut spare: Vec<usize> = parts.iter().flat_map(|p| p.spare.iter().copied()).collect();
    spare.par_sort_unstable();
    let mut kept: Vec<(usize, DateTime<Utc>)> = Vec::with_capacity(parts.iter().map(|p| p.kept.len()).sum());
    kept.extend(parts.into_iter().flat_map(|p| p.kept));
    // On every core: nothing else runs while a cold ingest deduplicates.
    kept.par_sort_by(|a, b| {
        let (x, y) = (&rows[a.0], &rows[b.0]);
        a.1.cmp(&b.1)
            .then_with(|| x.message_id.cmp(&y.message_id))
            .then_with(|| x.user.cmp(&y.user))
            .then_with(|| x.request_id.cmp(&y.request_id))
    });
    Kept { kept, spare }
}

/// The sidechain replay test, when there are sidechain rows: a sidechain row
/// is a replay when its user's main thread has the same message under
/// other request ids only.
fn sidechain_replays<'a>(rows: &[&'a Request]) -> Option<impl Fn(&Request) -> bool + 'a> {
    let side: HashSet<(&str, &str)> =
        rows.iter().filter(|r| r.is_sidechain).map(|r| (r.user.as_str(), r.message_id.as_str())).collect();
    if side.is_empty() {
        return None;
    }
    let mut main_ids: HashMap<(&str, &str), Vec<&str>> = HashMap::default();
    for r in rows.iter().filter(|r| !r.is_sidechain) {
        let m = (r.user.as_str(), r.message_id.as_str());
        if side.contains(&m) {
            let ids = main_ids.entry(m).or_default();
            if !ids.contains(&r.request_id.as_str()) {
                ids.push(&r.request_id);
            }
        }
    }
    Some(move |r: &Request| {
        r.is_sidechain
            && main_ids
                .get(&(r.user.as_str(), r.message_id.as_str()))
                .is_some_and(|ids| !ids.contains(&r.request_id.as_str()))
    })
}

/// True when two spare rows are copies of one request from one source: the
/// rows need `collapse_per_source` before the plan holds.
pub fn copies_within_a_source(rows: &[&Request], plan: &Kept) -> bool {
    let mut seen: HashSet<(Key<'_>, &str)> = HashSet::default();
    plan.spare
        .iter()
        .map(|&i| &rows[i])
        .any(|r| !seen.insert(((r.user.as_str(), r.message_id.as_str(), r.request_id.as_str()), r.source.as_str())))
}

/// Order of preference among copies of one request: most output first, then
/// the copy that found Claude Code's record of the call (a fork's copy of
/// its parent's reply has no `api-request` line beside it), then the first
/// by (source, line).
fn better(a: &Request, b: &Request) -> Ordering {
    let recorded = |r: &Request| !r.client.query_source.is_empty();
    b.tokens
        .output
        .cmp(&a.tokens.output)
        .then_with(|| recorded(b).cmp(&recorded(a)))
        .then_with(|| a.source.cmp(&b.source))
        .then_with(|| a.line.cmp(&b.line))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenCounts;
    use chrono::{TimeZone, Utc};

    fn row(msg: &str, req: &str, out: u64, secs: i64, source: &str, sidechain: bool) -> Request {
        Request {
            time: Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap(),
            session_id: "s".into(),
            thread: "main".into(),
            project: "p".into(),
            cwd: Default::default(),
            git_branch: Default::default(),
            version: "2.1.39".into(),
            model: "claude-opus-4-6".into(),
            tokens: TokenCounts { input: 3, cache_read: 100, output: out, ..Default::default() },
            web_search: 0,
            speed: Default::default(),
            inference_geo: Default::default(),
            server_reason: Default::default(),
            server_missed_tokens: None,
            is_sidechain: sidechain,
            cost_usd: 0.0,
            source: source.into(),
            line: 1,
            message_id: msg.into(),
            request_id: req.into(),
            user: Default::default(),
            machine: Default::default(),
            client: Default::default(),
        }
    }

    #[test]
    fn keeps_max_output_and_first_time() {
        let rows = vec![row("m1", "r1", 10, 5, "b", false), row("m1", "r1", 441, 9, "a", false)];
        let d = dedup(rows);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].tokens.output, 441);
        assert_eq!(d[0].time, Utc.timestamp_opt(1_700_000_005, 0).unwrap());
    }

    #[test]
    fn replay_in_another_file_counts_once_whatever_the_order() {
        let a = vec![row("m1", "r1", 50, 0, "x.jsonl", false), row("m1", "r1", 50, 0, "y.jsonl", false)];
        let mut b = a.clone();
        b.reverse();
        assert_eq!(dedup(a.clone()), dedup(b));
        assert_eq!(dedup(a)[0].source, "x.jsonl");
    }

    #[test]
    fn sidechain_replay_with_other_request_id_loses_to_main_copy() {
        let rows = vec![row("m1", "r1", 50, 0, "a", false), row("m1", "r9", 50, 60, "a", true)];
        let d = dedup(rows);
        assert_eq!(d.len(), 1);
        assert!(!d[0].is_sidechain);
        // A sidechain-only message is a real sub-agent request and stays.
        let d = dedup(vec![row("m2", "r2", 5, 0, "a", true)]);
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn same_ids_under_two_users_stay_apart() {
        let mut bob = row("m1", "r1", 7, 0, "b", false);
        bob.user = "bob".into();
        let mut alice = row("m1", "r1", 50, 0, "a", false);
        alice.user = "alice".into();
        let d = dedup(vec![bob.clone(), alice.clone(), bob.clone(), alice.clone()]);
        assert_eq!(d.len(), 2);
        assert_eq!(
            d.iter().map(|r| (r.user.as_str(), r.tokens.output)).collect::<Vec<_>>(),
            [("alice", 50), ("bob", 7)]
        );
        // The sidechain rule applies within one user only.
        let mut replay = row("m1", "r9", 50, 60, "b", true);
        replay.user = "carol".into();
        assert_eq!(dedup(vec![alice, replay]).len(), 2);
    }

    #[test]
    fn distinct_requests_stay_and_sort_by_time() {
        let d = dedup(vec![row("m2", "r2", 5, 10, "a", false), row("m1", "r1", 5, 20, "a", false)]);
        assert_eq!(d.iter().map(|r| r.message_id.as_str()).collect::<Vec<_>>(), ["m2", "m1"]);
    }

    #[test]
    fn spare_rows_are_the_copies_of_repeated_requests_and_the_replays() {
        let rows = [
            row("m1", "r1", 10, 5, "b", false),
            row("m2", "r2", 5, 6, "a", false),
            row("m1", "r1", 441, 9, "a", false),
            row("m1", "r9", 50, 60, "a", true),
        ];
        let p = plan(&rows.iter().collect::<Vec<_>>());
        assert_eq!(p.kept.len(), 2);
        assert_eq!(p.kept[0].0, 2, "the copy with most output");
        assert_eq!(p.kept[0].1, Utc.timestamp_opt(1_700_000_005, 0).unwrap(), "the earliest time");
        assert_eq!(p.spare, [0, 2, 3], "both copies of m1/r1 and the replay; m2 was seen once");
    }

    #[test]
    fn copies_within_one_source_collapse_to_the_best_at_the_first_time() {
        let mut rows = vec![
            row("m1", "r1", 1, 5, "a", false),
            row("m1", "r1", 1, 5, "b", false),
            row("m1", "r1", 90, 9, "a", false),
            row("m1", "r1", 7, 2, "a", false),
        ];
        collapse_per_source(&mut rows);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].source.as_str(), rows[0].tokens.output), ("a", 90));
        assert_eq!(rows[0].time, Utc.timestamp_opt(1_700_000_002, 0).unwrap());
        assert_eq!(rows[1].source, "b");
    }

    #[test]
    fn the_plan_cut_in_shards_is_the_plan_of_one_pass() -> Result<(), rayon::ThreadPoolBuildError> {
        // 300 requests with up to three copies each, scattered over two
        // sources, some of them replayed in a sidechain under another id.
        let mut rows = Vec::new();
        for k in 0..900u64 {
            let (m, copy) = (k * 7 % 300, k % 3);
            let (msg, source) = (format!("msg_{m:03}"), if k % 2 == 0 { "a" } else { "b" });
            match copy == 2 && m % 5 == 0 {
                true => rows.push(row(&msg, "r_side", k % 11, (k % 13) as i64, source, true)),
                false => rows.push(row(&msg, &format!("r{m}"), k % 11, (k % 13) as i64, source, false)),
            }
        }
        let refs: Vec<&Request> = rows.iter().collect();
        let on = |threads: usize| -> Result<Kept, rayon::ThreadPoolBuildError> {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            Ok(pool.install(|| plan(&refs)))
        };
        let one = on(1)?;
        assert_eq!(one.kept.len(), 300);
        assert!(one.spare.len() > 300, "copies and replays are spare: {}", one.spare.len());
        assert_eq!(on(2)?, one);
        assert_eq!(on(5)?, one);
        Ok(())
    }
}
