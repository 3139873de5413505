//! The fake API's prompt cache: exact, deterministic, and the truth the
//! suite holds cachewise to. `docs/cache-model.md` ("The test suite's
//! prompt cache") states the same rules in words:
//!
//! - A request is a list of blocks in the API's order: each tool
//!   definition, each system block, each message's content blocks. A
//!   block's identity is its JSON without `cache_control`, its section,
//!   its role and whether it opens its message; its size is its JSON's
//!   bytes / 4, rounded up, plus every `[[pad:N]]` it contains.
//! - A block with `cache_control` is a breakpoint, with its TTL (`1h`
//!   when `ttl` says so, else 5 minutes). An entry is `(model, prefix up
//!   to a breakpoint)` with an expiry.
//! - A request reads the longest live entry that is a prefix of it and
//!   ends at or before its last breakpoint, and refreshes every live entry
//!   on that prefix. It writes each breakpoint's prefix past what it read,
//!   each segment at the TTL of the breakpoint that closes it; what follows
//!   the last breakpoint is uncached input.
//! - A thread's request meets the entry its previous request left: expired
//!   (the cause, whatever else changed), else the first difference from
//!   that request, in this order: model, tools, system, earlier messages;
//!   else a hit. Misses other than a thread's first request carry the
//!   reason the API would send.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// A breakpoint's time to live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ttl {
    FiveMinutes,
    OneHour,
}

impl Ttl {
    pub(crate) fn length(self) -> TimeDelta {
        match self {
            Ttl::FiveMinutes => TimeDelta::minutes(5),
            Ttl::OneHour => TimeDelta::hours(1),
        }
    }

    fn of(cache_control: &Value) -> Ttl {
        match cache_control.get("ttl").and_then(Value::as_str) {
            Some("1h") => Ttl::OneHour,
            _ => Ttl::FiveMinutes,
        }
    }
}

/// Where a block sits in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Section {
    Tools,
    System,
    Messages,
}

/// One block of a request, as the cache sees it.
#[derive(Debug, Clone)]
struct Block {
    /// The prefix hash through this block.
    prefix: [u8; 32],
    /// Tokens through this block.
    through: u64,
    breakpoint: Option<Ttl>,
}

/// A request as the cache sees it.
#[derive(Debug, Clone)]
pub(super) struct Prompt {
    pub model: String,
    blocks: Vec<Block>,
    tools: [u8; 32],
    system: [u8; 32],
}

/// The token classes of one response's usage (output aside).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub input: u64,
    pub write_5m: u64,
    pub write_1h: u64,
    pub read: u64,
}

impl Usage {
    pub(crate) fn prompt(&self) -> u64 {
        self.input + self.write_5m + self.write_1h + self.read
    }
}

/// Why a request read what it read (the ledger's cause).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The thread's first request.
    First,
    /// The previous request's prefix was read.
    Hit,
    ModelChanged,
    ToolsChanged,
    SystemChanged,
    MessagesChanged,
    /// The previous request's prefix was unchanged but its entry expired.
    Expired(Ttl),
}

impl Cause {
    /// The `cache_miss_reason.type` the API sends (None: no reason).
    pub(crate) fn reason(self) -> Option<&'static str> {
        match self {
            Cause::First | Cause::Hit => None,
            Cause::ModelChanged => Some("model_changed"),
            Cause::ToolsChanged => Some("tools_changed"),
            Cause::SystemChanged => Some("system_changed"),
            Cause::MessagesChanged => Some("messages_changed"),
            Cause::Expired(_) => Some("previous_message_not_found"),
        }
    }
}

/// What one request got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Served {
    pub usage: Usage,
    pub cause: Cause,
    /// `cache_missed_input_tokens`: what the previous request had cached
    /// and this one did not read (the `*_changed` reasons only).
    pub missed: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    ttl: Ttl,
    expires: DateTime<Utc>,
}

/// What a thread's previous request left to compare with.
#[derive(Debug, Clone)]
struct Last {
    model: String,
    tools: [u8; 32],
    system: [u8; 32],
    /// Its last breakpoint: position, prefix hash, tokens through it, TTL.
    cached: Option<(usize, [u8; 32], u64, Ttl)>,
}

/// The cache of one fake API: entries per (model, prefix), and each
/// thread's previous request.
#[derive(Debug, Default)]
pub(super) struct Cache {
    entries: HashMap<(String, [u8; 32]), Entry>,
    threads: HashMap<String, Last>,
}

impl Cache {
    /// Serves `prompt` for `thread` at `now`, updating the cache.
    pub(super) fn serve(&mut self, thread: &str, prompt: &Prompt, now: DateTime<Utc>) -> Served {
        let before = self.threads.get(thread).map(|last| self.still_live(last, now));
        self.entries.retain(|_, e| e.expires > now);
        let last_bp = prompt.blocks.iter().rposition(|b| b.breakpoint.is_some());
        let read_at = last_bp.and_then(|end| {
            (0..=end).rev().find(|&i| self.entries.contains_key(&(prompt.model.clone(), prompt.blocks[i].prefix)))
        });
        let read = read_at.map_or(0, |i| prompt.blocks[i].through);
        self.refresh(prompt, read_at, now);
        let (write_5m, write_1h) = self.write(prompt, read, now);
        let cached_through = last_bp.map_or(0, |i| prompt.blocks[i].through);
        let total = prompt.blocks.last().map_or(0, |b| b.through);
        let input = total - cached_through.max(read);
        let usage = Usage { input, write_5m, write_1h, read };
        let (cause, missed) = self.cause(thread, prompt, before, read);
        self.threads.insert(thread.to_owned(), Last::of(prompt, last_bp));
        Served { usage, cause, missed }
    }

    fn refresh(&mut self, prompt: &Prompt, read_at: Option<usize>, now: DateTime<Utc>) {
        let Some(end) = read_at else { return };
        for b in &prompt.blocks[..=end] {
            if let Some(e) = self.entries.get_mut(&(prompt.model.clone(), b.prefix)) {
                e.expires = now + e.ttl.length();
            }
        }
    }

    /// Writes every breakpoint's prefix past `read`; returns the tokens
    /// written at 5 minutes and at 1 hour.
    fn write(&mut self, prompt: &Prompt, read: u64, now: DateTime<Utc>) -> (u64, u64) {
        let (mut w5, mut w1h, mut done) = (0, 0, read);
        for b in prompt.blocks.iter() {
            let Some(ttl) = b.breakpoint else { continue };
            if b.through > done {
                match ttl {
                    Ttl::FiveMinutes => w5 += b.through - done,
                    Ttl::OneHour => w1h += b.through - done,
                }
                done = b.through;
            }
            let entry = Entry { ttl, expires: now + ttl.length() };
            self.entries.entry((prompt.model.clone(), b.prefix)).or_insert(entry);
        }
        (w5, w1h)
    }

    /// Whether the entry `last` left is still live at `now` (None: it left none).
    fn still_live(&self, last: &Last, now: DateTime<Utc>) -> Option<bool> {
        let (_, prefix, _, _) = last.cached?;
        Some(self.entries.get(&(last.model.clone(), prefix)).is_some_and(|e| e.expires > now))
    }

    /// The cause, against the thread's previous request (`live`: whether
    /// the entry it left was live when this request came).
    fn cause(&self, thread: &str, prompt: &Prompt, live: Option<Option<bool>>, read: u64) -> (Cause, Option<u64>) {
        let Some(last) = self.threads.get(thread) else { return (Cause::First, None) };
        // An expired entry is the cause whatever else changed: nothing of
        // it was there to read.
        if let (Some(Some(false)), Some((_, _, _, ttl))) = (live, last.cached) {
            return (Cause::Expired(ttl), None);
        }
        let missed = |cause| {
            let had = last.cached.map_or(0, |c| c.2);
            (cause, Some(had.saturating_sub(read)))
        };
        if last.model != prompt.model {
            return missed(Cause::ModelChanged);
        }
        if last.tools != prompt.tools {
            return missed(Cause::ToolsChanged);
        }
        if last.system != prompt.system {
            return missed(Cause::SystemChanged);
        }
        let Some((at, prefix, _, _)) = last.cached else { return (Cause::Hit, None) };
        if prompt.blocks.get(at).map(|b| b.prefix) != Some(prefix) {
            return missed(Cause::MessagesChanged);
        }
        (Cause::Hit, None)
    }
}

impl Last {
    fn of(prompt: &Prompt, last_bp: Option<usize>) -> Last {
        let cached = last_bp.map(|i| {
            let b = &prompt.blocks[i];
            (i, b.prefix, b.through, b.breakpoint.unwrap_or(Ttl::FiveMinutes))
        });
        Last { model: prompt.model.clone(), tools: prompt.tools, system: prompt.system, cached }
    }
}

impl Prompt {
    /// The request body as the cache sees it.
    pub(super) fn of(body: &Value) -> Prompt {
        let model = body.get("model").and_then(Value::as_str).unwrap_or("").to_owned();
        let mut p = Builder::default();
        for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
            p.push(Section::Tools, "", true, tool);
        }
        match body.get("system") {
            Some(Value::String(s)) => {
                p.push(Section::System, "", true, &serde_json::json!({"type": "text", "text": s}))
            }
            Some(Value::Array(blocks)) => blocks.iter().for_each(|b| p.push(Section::System, "", true, b)),
            _ => {}
        }
        for m in body.get("messages").and_then(Value::as_array).into_iter().flatten() {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("");
            match m.get("content") {
                Some(Value::String(s)) => {
                    p.push(Section::Messages, role, true, &serde_json::json!({"type": "text", "text": s}))
                }
                Some(Value::Array(blocks)) => {
                    blocks.iter().enumerate().for_each(|(k, b)| p.push(Section::Messages, role, k == 0, b))
                }
                _ => {}
            }
        }
        // Automatic caching: a top-level `cache_control` marks the last block.
        if let (Some(cc), Some(last)) = (body.get("cache_control"), p.blocks.last_mut()) {
            last.breakpoint = Some(Ttl::of(cc));
        }
        let (tools, system) = (p.section_hash(Section::Tools), p.section_hash(Section::System));
        Prompt { model, blocks: p.blocks, tools, system }
    }

    /// Every token of the request.
    pub(super) fn tokens(&self) -> u64 {
        self.blocks.last().map_or(0, |b| b.through)
    }
}

#[derive(Default)]
struct Builder {
    blocks: Vec<Block>,
    hash: [u8; 32],
    through: u64,
    sections: HashMap<Section, Sha256>,
}

impl Builder {
    fn push(&mut self, section: Section, role: &str, opens: bool, block: &Value) {
        let breakpoint = block.get("cache_control").filter(|c| !c.is_null()).map(Ttl::of);
        let mut plain = block.clone();
        if let Some(o) = plain.as_object_mut() {
            o.remove("cache_control");
        }
        let text = serde_json::to_string(&plain).unwrap_or_default();
        let identity = format!("{section:?}\u{0}{role}\u{0}{opens}\u{0}{text}");
        self.hash = Sha256::new().chain_update(self.hash).chain_update(identity.as_bytes()).finalize().into();
        self.sections.entry(section).or_default().update(identity.as_bytes());
        self.through += tokens_of(&text);
        self.blocks.push(Block { prefix: self.hash, through: self.through, breakpoint });
    }

    fn section_hash(&self, section: Section) -> [u8; 32] {
        self.sections.get(&section).map(|h| h.clone().finalize().into()).unwrap_or_default()
    }
}

/// A block's size: its JSON's bytes / 4, rounded up, plus its pads.
pub(super) fn tokens_of(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4) + pads(text)
}

/// The sum of every `[[pad:N]]` in `text`.
pub(super) fn pads(text: &str) -> u64 {
    let mut sum = 0u64;
    let mut rest = text;
    while let Some(i) = rest.find("[[pad:") {
        rest = &rest[i + 6..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if rest[digits.len()..].starts_with("]]") {
            sum += digits.parse::<u64>().unwrap_or(0);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    fn body(model: &str, tools: &[&str], turns: &[&str], ttl: Option<&str>) -> Value {
        let cc = match ttl {
            Some(ttl) => json!({"type": "ephemeral", "ttl": ttl}),
            None => json!({"type": "ephemeral"}),
        };
        let tools: Vec<Value> = tools.iter().map(|n| json!({"name": n, "input_schema": {}})).collect();
        let mut messages: Vec<Value> = turns
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                json!({"role": role, "content": [{"type": "text", "text": text}]})
            })
            .collect();
        if let Some(last) = messages.last_mut() {
            last["content"][0]["cache_control"] = cc.clone();
        }
        json!({"model": model, "tools": tools, "system": [{"type": "text", "text": "You are a test.", "cache_control": cc}], "messages": messages})
    }

    #[test]
    fn a_conversation_reads_what_the_last_turn_wrote_and_writes_the_rest() {
        let mut c = Cache::default();
        let a = Prompt::of(&body("m", &["Bash"], &["hello [[pad:1000]]"], None));
        let s1 = c.serve("s", &a, t(0));
        assert_eq!(s1.cause, Cause::First);
        assert_eq!((s1.usage.read, s1.usage.input, s1.usage.write_1h), (0, 0, 0));
        assert_eq!(s1.usage.write_5m, a.tokens());
        let b = Prompt::of(&body("m", &["Bash"], &["hello [[pad:1000]]", "hi", "more"], None));
        let s2 = c.serve("s", &b, t(1));
        assert_eq!(s2.cause, Cause::Hit);
        assert!(s2.usage.read > 1000, "{s2:?}");
        assert_eq!(s2.usage.prompt(), b.tokens());
        // Past the TTL: the same prefix, expired.
        let s3 = c.serve(
            "s",
            &Prompt::of(&body("m", &["Bash"], &["hello [[pad:1000]]", "hi", "more", "x", "y"], None)),
            t(7),
        );
        assert_eq!((s3.cause, s3.usage.read), (Cause::Expired(Ttl::FiveMinutes), 0));
        assert_eq!(s3.cause.reason(), Some("previous_message_not_found"));
    }

    #[test]
    fn an_hour_ttl_survives_thirty_minutes_and_not_two_hours() {
        let mut c = Cache::default();
        let turns = ["a [[pad:500]]", "b", "c"];
        let s1 = c.serve("s", &Prompt::of(&body("m", &[], &turns[..1], Some("1h"))), t(0));
        assert_eq!((s1.usage.write_5m, s1.usage.write_1h > 500), (0, true));
        assert_eq!(c.serve("s", &Prompt::of(&body("m", &[], &turns, Some("1h"))), t(30)).cause, Cause::Hit);
        let late =
            c.serve("s", &Prompt::of(&body("m", &[], &["a [[pad:500]]", "b", "c", "d", "e"], Some("1h"))), t(150));
        assert_eq!(late.cause, Cause::Expired(Ttl::OneHour));
    }

    #[test]
    fn the_first_difference_names_the_cause() {
        let base = body("m", &["Bash"], &["a [[pad:100]]"], None);
        let cases = [
            (body("n", &["Bash"], &["a [[pad:100]]", "b", "c"], None), Cause::ModelChanged),
            (body("m", &["Bash", "Read"], &["a [[pad:100]]", "b", "c"], None), Cause::ToolsChanged),
            (body("m", &["Bash"], &["edited [[pad:100]]", "b", "c"], None), Cause::MessagesChanged),
        ];
        for (next, cause) in cases {
            let mut c = Cache::default();
            c.serve("s", &Prompt::of(&base), t(0));
            let s = c.serve("s", &Prompt::of(&next), t(1));
            assert_eq!(s.cause, cause);
            assert!(s.missed.is_some_and(|m| m > 0), "{s:?}");
        }
        let mut c = Cache::default();
        c.serve("s", &Prompt::of(&base), t(0));
        let mut other = body("m", &["Bash"], &["a [[pad:100]]", "b", "c"], None);
        other["system"][0]["text"] = json!("You are another test.");
        assert_eq!(c.serve("s", &Prompt::of(&other), t(1)).cause, Cause::SystemChanged);
    }

    #[test]
    fn threads_share_entries_but_not_causes() {
        let mut c = Cache::default();
        c.serve("main", &Prompt::of(&body("m", &["Bash"], &["a [[pad:100]]"], None)), t(0));
        let sub = c.serve("agent", &Prompt::of(&body("m", &["Bash"], &["task"], None)), t(1));
        // The sub-agent reads the tools and system the main thread wrote.
        assert_eq!(sub.cause, Cause::First);
        assert!(sub.usage.read > 0);
    }

    #[test]
    fn pads_are_summed_and_odd_ones_ignored() {
        assert_eq!(pads("x [[pad:10]] y [[pad:5]] [[pad:]] [[pad:7"), 15);
        assert_eq!(tokens_of("abcde"), 2);
    }
}
