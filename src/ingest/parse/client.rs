//! Claude Code's own record of each call (2.1.33x): an `api-request` line
//! names the call (`id`), what made it (`querySource`) and the hash of its
//! system prompt and tools (`shapeHash`); the reply's assistant line points
//! back to it (`requestRef`) and says the TTL it asked for
//! (`promptCacheRequested`). Only these short values are kept, checked and
//! bounded: the shape itself (`api-request-shape`) is content, never read.

use super::FileParser;
use crate::ingest::line::Line;
use crate::model::{ClientRecord, Text};
use std::collections::HashMap;

/// Calls remembered while their replies are due; a file that names more
/// without replying forgets the older ones.
const MAX_PENDING: usize = 256;
/// Calls carried to the next read of the file (the manifest keeps them):
/// the last few, among which the calls still in flight.
const CARRIED: usize = 8;
/// Longest `querySource` kept (`agent:builtin:general-purpose` is 29).
const MAX_SOURCE: usize = 64;
/// A `shapeHash` is hex (SHA-256: 64 characters).
const MAX_SHAPE: usize = 64;

/// The `api-request` lines read, by id: what made the call, its shape and
/// whether a reply was read; and their ids in the order they came, to carry
/// the last ones over.
#[derive(Default)]
pub(super) struct Pending {
    calls: HashMap<String, (Text, Text, bool)>,
    order: Vec<String>,
}

/// `s` when it is a plain token of at most `max` characters (letters,
/// digits, `_:.-`), else empty: a hostile value never reaches a report.
pub(super) fn token(s: &str, max: usize) -> &str {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-');
    if s.len() <= max && s.chars().all(plain) {
        s
    } else {
        ""
    }
}

impl FileParser<'_, '_> {
    /// Remembers an `api-request` line's source and shape until its reply.
    pub(super) fn api_request(&mut self, l: &Line) {
        let Some(id) = l.id.get().filter(|id| id.len() <= 128) else { return };
        let (source, shape) = (token(l.query_source.as_str(), MAX_SOURCE), token(l.shape_hash.as_str(), MAX_SHAPE));
        self.remember_call(id, source, shape);
    }

    fn remember_call(&mut self, id: &str, source: &str, shape: &str) {
        let p = &mut self.client;
        if p.calls.len() >= MAX_PENDING {
            p.calls.clear();
            p.order.clear();
        }
        let record = (self.names.get(source), self.names.get(shape), false);
        if p.calls.insert(id.to_owned(), record).is_none() {
            p.order.push(id.to_owned());
        }
    }

    /// Takes over the calls an earlier read of the file carried.
    pub(super) fn restore_calls(&mut self) {
        for (id, source, shape) in std::mem::take(&mut self.links.calls) {
            self.remember_call(&id, token(&source, MAX_SOURCE), token(&shape, MAX_SHAPE));
        }
    }

    /// Leaves for the next read of the file those of its last `CARRIED` calls
    /// no reply was read for, and the very last (its reply may go on), so
    /// the manifest keeps next to nothing for a finished session.
    pub(super) fn carry_calls(&mut self) {
        let p = &self.client;
        let from = p.order.len().saturating_sub(CARRIED);
        self.links.calls = p.order[from..]
            .iter()
            .enumerate()
            .filter_map(|(k, id)| {
                let (source, shape, replied) = p.calls.get(id)?;
                let last = from + k + 1 == p.order.len();
                (!replied || last).then(|| (id.clone(), source.to_string(), shape.to_string()))
            })
            .collect();
    }

    /// The record of the call an assistant line replies to: the TTL it
    /// asked for, and its `api-request` line's values (read in this read,
    /// or carried from an earlier one: `restore_calls`), marked replied.
    pub(super) fn client_record(&mut self, l: &Line) -> ClientRecord {
        let ttl = match l.prompt_cache_requested.as_str() {
            t @ ("5m" | "1h") => self.names.get(t),
            _ => self.same.empty.clone(),
        };
        let (query_source, shape_hash) = match l.request_ref.get().and_then(|r| self.client.calls.get_mut(r)) {
            Some((source, shape, replied)) => {
                *replied = true;
                (source.clone(), shape.clone())
            }
            None => (self.same.empty.clone(), self.same.empty.clone()),
        };
        ClientRecord { query_source, shape_hash, ttl_asked: ttl }
    }
}

#[cfg(test)]
mod tests {
    use super::token;
    use crate::ingest::discover::SourceFile;
    use crate::ingest::parse::{parse_bytes, Start};
    use crate::ingest::sidechain::Links;

    /// `text` read as one file's lines with `links` carried.
    fn parse(text: &str, links: &mut Links) -> crate::ingest::parse::FileRows {
        let file = SourceFile {
            path: "/p/s.jsonl".into(),
            project: "p".into(),
            session: Some("s".into()),
            agent: None,
            size: 0,
            mtime_ns: 0,
        };
        parse_bytes(&file, text.as_bytes(), Start::default(), links, chrono::Utc::now())
    }

    /// The requests of `text`, read as one file's lines with `links` carried.
    fn read(text: &str, links: &mut Links) -> Vec<crate::model::Request> {
        parse(text, links).requests
    }

    fn lines(text: &str) -> Vec<crate::model::Request> {
        read(text, &mut Links::default())
    }

    fn reply(id: &str, reference: &str, ttl: &str) -> String {
        format!(
            r#"{{"type":"assistant","requestRef":"{reference}","promptCacheRequested":"{ttl}","timestamp":"2026-11-09T23:01:00Z","sessionId":"s","message":{{"id":"{id}","model":"claude-opus-5-5","usage":{{"input_tokens":3,"output_tokens":5}}}}}}"#
        )
    }

    #[test]
    fn a_reply_carries_its_calls_source_shape_and_ttl() {
        let call = r#"{"type":"api-request","id":"r1","querySource":"repl_main_thread","shapeHash":"ab12","params":{"model":"m"}}"#;
        let shape = r#"{"type":"api-request-shape","shapeHash":"ab12","shape":{"system":"secret"}}"#;
        let hostile = r#"{"type":"api-request","id":"r2","querySource":"[31mred","shapeHash":"not hex at all"}"#;
        let text = [call, shape, &reply("m1", "r1", "1h"), hostile, &reply("m2", "r2", "2h"), &reply("m3", "r9", "5m")]
            .join("\n")
            + "\n";
        let got: Vec<(String, String, String)> = lines(&text)
            .into_iter()
            .map(|r| {
                (r.client.query_source.to_string(), r.client.shape_hash.to_string(), r.client.ttl_asked.to_string())
            })
            .collect();
        let own = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(got, [own("repl_main_thread", "ab12", "1h"), own("", "", ""), own("", "", "5m")]);
    }

    #[test]
    fn only_calls_still_in_flight_and_the_last_are_carried_to_the_next_read() {
        let call = |n: u32| format!(r#"{{"type":"api-request","id":"r{n}","querySource":"sdk","shapeHash":"ab"}}"#);
        let mut links = Links::default();
        let text =
            [call(1), reply("m1", "r1", "5m"), call(2), reply("m2", "r2", "5m"), call(3), call(4)].join("\n") + "\n";
        read(&text, &mut links);
        let ids: Vec<&str> = links.calls.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(ids, ["r3", "r4"], "r1 and r2 were answered");
        let mut links = Links::default();
        let text = [call(1), reply("m1", "r1", "5m")].join("\n") + "\n";
        read(&text, &mut links);
        assert_eq!(links.calls.len(), 1, "the last call, whose reply may go on");
    }

    #[test]
    fn a_line_of_a_type_not_read_that_carries_usage_is_named_and_not_counted() {
        let usage = r#""message":{"id":"m9","model":"claude-opus-5-5","usage":{"input_tokens":3,"output_tokens":5}}"#;
        let text = [
            reply("m1", "r1", "5m"),
            format!(r#"{{"type":"api-response","timestamp":"2026-11-09T23:02:00Z",{usage}}}"#),
            format!(r#"{{"type":"\u001b[2Jx","timestamp":"2026-11-09T23:03:00Z",{usage}}}"#),
            r#"{"type":"api-request-route","provider":"anthropic","credential":"login","sessionId":"s"}"#.to_owned(),
        ]
        .join("\n")
            + "\n";
        let rows = parse(&text, &mut Links::default());
        assert_eq!(rows.requests.len(), 1);
        let said: Vec<String> = rows.problems.samples.iter().map(ToString::to_string).collect();
        assert_eq!(
            said,
            [
                "/p/s.jsonl:2: a line of type \"api-response\" carries token usage cachewise does not count (a newer Claude Code's format?)",
                "/p/s.jsonl:3: a line of an unreadable type carries token usage cachewise does not count (a newer Claude Code's format?)",
            ]
        );
    }

    #[test]
    fn only_plain_short_tokens_are_kept() {
        assert_eq!(token("agent:builtin:general-purpose", 64), "agent:builtin:general-purpose");
        assert_eq!(token("repl_main_thread", 64), "repl_main_thread");
        assert_eq!(token("sdk\u{1b}[31m", 64), "");
        assert_eq!(token("a b", 64), "");
        assert_eq!(token(&"f".repeat(65), 64), "");
    }
}
