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
use std::cmp::Ordering;
use std::collections::HashMap;

/// Merges candidate rows into one row per request, ordered by time. One hash
/// pass; rows are moved, never cloned.
pub fn dedup(rows: Vec<Request>) -> Vec<Request> {
    let kept = choose(&rows);
    let mut slots: Vec<Option<Request>> = rows.into_iter().map(Some).collect();
    let mut out: Vec<Request> = kept
        .into_iter()
        .filter_map(|(i, time)| {
            let mut r = slots[i].take()?;
            r.time = time;
            Some(r)
        })
        .collect();
    out.sort_by(|a, b| {
        a.time.cmp(&b.time).then_with(|| a.message_id.cmp(&b.message_id)).then_with(|| a.user.cmp(&b.user))
    });
    out
}

/// The index of the best copy of every request, with its earliest time.
fn choose(rows: &[Request]) -> Vec<(usize, DateTime<Utc>)> {
    let mut main_ids: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
    for r in rows.iter().filter(|r| !r.is_sidechain) {
        main_ids.entry((&r.user, &r.message_id)).or_default().push(&r.request_id);
    }
    let mut best: HashMap<(&str, &str, &str), (usize, DateTime<Utc>)> = HashMap::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let replay = r.is_sidechain
            && main_ids
                .get(&(r.user.as_str(), r.message_id.as_str()))
                .is_some_and(|ids| !ids.contains(&r.request_id.as_str()));
        if replay {
            continue;
        }
        best.entry((&r.user, &r.message_id, &r.request_id))
            .and_modify(|(k, t)| {
                *t = (*t).min(r.time);
                if better(r, &rows[*k]) == Ordering::Less {
                    *k = i;
                }
            })
            .or_insert((i, r.time));
    }
    best.into_values().collect()
}

/// Order of preference among copies of one request: most output first, then
/// the first by (source, line).
fn better(a: &Request, b: &Request) -> Ordering {
    b.tokens.output.cmp(&a.tokens.output).then_with(|| a.source.cmp(&b.source)).then_with(|| a.line.cmp(&b.line))
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
            cwd: String::new(),
            git_branch: String::new(),
            version: "2.1.39".into(),
            model: "claude-opus-4-6".into(),
            tokens: TokenCounts { input: 3, cache_read: 100, output: out, ..Default::default() },
            web_search: 0,
            speed: String::new(),
            inference_geo: String::new(),
            is_sidechain: sidechain,
            cost_usd: 0.0,
            source: source.into(),
            line: 1,
            message_id: msg.into(),
            request_id: req.into(),
            user: String::new(),
            machine: String::new(),
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
}
