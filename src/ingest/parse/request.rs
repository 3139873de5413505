//! A kept assistant line as a request row: the line's fields, with the
//! values a file repeats interned (tried first against the last
//! request's, `Interner::get_after`).

use super::FileParser;
use crate::ingest::line::{Line, Usage};
use crate::model::{Request, Text, TokenCounts};
use chrono::{DateTime, Utc};
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// A file's requests by their key `(message_id, request_id)`, held as
/// indices into its rows: a lookup hashes the line's strings and compares
/// them with the row's, so no key is copied to be looked up or kept.
#[derive(Default)]
pub(super) struct ByKey {
    table: HashTable<usize>,
    hasher: RandomState,
}

impl ByKey {
    fn hash(hasher: &RandomState, message_id: &str, request_id: &str) -> u64 {
        hasher.hash_one((message_id, request_id))
    }

    /// The index of the row with this key, if any.
    pub(super) fn find(&self, rows: &[Request], message_id: &str, request_id: &str) -> Option<usize> {
        let h = Self::hash(&self.hasher, message_id, request_id);
        let same = |&i: &usize| rows[i].message_id == message_id && rows[i].request_id == request_id;
        self.table.find(h, same).copied()
    }

    /// Adds `rows[i]`, whose key no other row has.
    pub(super) fn insert(&mut self, rows: &[Request], i: usize) {
        let hasher = &self.hasher;
        let hash = |&j: &usize| Self::hash(hasher, &rows[j].message_id, &rows[j].request_id);
        self.table.insert_unique(hash(&i), i, hash);
    }
}

/// The last request's value of each field the file's requests repeat.
#[derive(Default)]
pub(super) struct Recent {
    cwd: Option<Text>,
    git_branch: Option<Text>,
    version: Option<Text>,
    model: Option<Text>,
    speed: Option<Text>,
    inference_geo: Option<Text>,
}

impl FileParser<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn request(
        &mut self,
        l: &Line,
        usage: &Usage,
        tokens: TokenCounts,
        model: &str,
        (message_id, request_id): (String, String),
        line: u64,
        time: DateTime<Utc>,
    ) -> Request {
        // A fork's copy of its parent's response names the session that
        // made it: whichever copy is kept, the request stays the parent's.
        let session_id = match (l.request_session_id.get(), &self.same.session) {
            (Some(s), _) => self.names.get(s),
            (None, Some(s)) => s.clone(),
            (None, None) => {
                let s = self.session(l);
                self.names.get(&s)
            }
        };
        let thread = self.thread(l);
        let client = self.client_record(l);
        let (n, last) = (&mut self.names, &mut self.recent);
        let server_reason = match l.reason_kind() {
            "" => self.same.empty.clone(),
            raw => n.get(&crate::model::server_reason(raw)),
        };
        Request {
            time,
            session_id,
            thread,
            project: self.same.project.clone(),
            cwd: n.get_after(&mut last.cwd, l.cwd.as_str()),
            git_branch: n.get_after(&mut last.git_branch, l.git_branch.as_str()),
            version: n.get_after(&mut last.version, l.version.as_str()),
            model: n.get_after(&mut last.model, model),
            tokens,
            web_search: usage.server_tool_use.as_ref().and_then(|s| s.web_search_requests).unwrap_or(0),
            speed: n.get_after(&mut last.speed, usage.speed.as_str()),
            inference_geo: n.get_after(&mut last.inference_geo, usage.inference_geo.as_str()),
            server_reason,
            server_missed_tokens: l.reason_tokens(),
            is_sidechain: l.is_sidechain.0,
            cost_usd: 0.0,
            source: self.same.source.clone(),
            line,
            message_id,
            request_id,
            user: self.same.empty.clone(),
            machine: self.same.empty.clone(),
            client,
        }
    }
}
