//! The prefilter: decides from a few cheap byte searches whether a line can
//! carry anything cachewise reads (usage, a compaction, a title, a sidechain
//! link). Most bytes of a transcript are `user` tool results and `progress`
//! lines, which never carry billable usage (`toolUseResult.usage` must not be
//! billed); they are recognised from the head of the line and skipped
//! without scanning their body. Assistant lines are kept unsearched.
//! Everything else is searched for `"usage"` (one SIMD pass) and for the
//! rarer markers near its ends. `cost-state` lines (Claude Code's own
//! totals) are kept by their type.

use memchr::memmem::Finder;
use std::sync::OnceLock;

/// How far into a line the envelope keys are looked for.
const HEAD: usize = 1024;
/// How far from the end `isCompactSummary` and friends are looked for.
const TAIL: usize = 1024;

struct Finders {
    type_key: Finder<'static>,
    usage: Finder<'static>,
    sidechain: Finder<'static>,
    compact_summary: Finder<'static>,
    agent_id: Finder<'static>,
    markers: [Finder<'static>; 5],
}

fn finders() -> &'static Finders {
    static F: OnceLock<Finders> = OnceLock::new();
    F.get_or_init(|| Finders {
        type_key: Finder::new(b"\"type\":\""),
        usage: Finder::new(b"\"usage\""),
        sidechain: Finder::new(b"\"isSidechain\":true"),
        compact_summary: Finder::new(b"\"isCompactSummary\":true"),
        agent_id: Finder::new(b"\"agentId\""),
        markers: [
            Finder::new(b"compact_boundary"),
            Finder::new(b"\"summary\""),
            Finder::new(b"ai-title"),
            Finder::new(b"custom-title"),
            Finder::new(b"model_refusal_fallback"),
        ],
    })
}

/// The value of the first `"type":"..."` in `head`.
fn first_type(head: &[u8]) -> Option<&[u8]> {
    let start = finders().type_key.find(head)? + b"\"type\":\"".len();
    let len = memchr::memchr(b'"', &head[start..])?;
    Some(&head[start..start + len])
}

/// True when the line may carry usage, a compaction, a title, a refusal
/// fallback or a sidechain link.
pub(super) fn needed(line: &[u8]) -> bool {
    let f = finders();
    let head = &line[..line.len().min(HEAD)];
    let tail = &line[line.len().saturating_sub(TAIL)..];
    let flagged = |w: &[u8]| f.sidechain.find(w).is_some() || f.compact_summary.find(w).is_some();
    match first_type(head) {
        // A sidechain user line links an old inline sub-agent's thread;
        // one that names its agent (a top-level key, so in the head) needs none.
        Some(b"user") => {
            let compact = |w: &[u8]| f.compact_summary.find(w).is_some();
            let side = |w: &[u8]| f.sidechain.find(w).is_some();
            let named = || f.agent_id.find(head).is_some();
            compact(head) || compact(tail) || ((side(head) || side(tail)) && !named())
        }
        Some(b"progress" | b"file-history-snapshot" | b"queue-operation") => false,
        // 2.1.33x: the system prompt and tool definitions behind a request
        // shape (tens of kilobytes), reminder blocks, the last prompt's
        // text: content, never billing, and never searched. 2.1.337: the
        // service and kind of credential that carried a call, never read.
        Some(b"api-request-shape" | b"api-request-blob" | b"api-request-route" | b"last-prompt" | b"atis-latch") => {
            false
        }
        // An assistant line (whose first `type` may be its message's):
        // parsed without searching its whole length for `"usage"`.
        Some(b"assistant" | b"message") => true,
        // Claude Code's own running totals, and its record of each call
        // (2.1.33x): short, and read whole.
        Some(b"cost-state" | b"api-request") => true,
        _ => {
            f.usage.find(line).is_some()
                || flagged(head)
                || flagged(tail)
                || f.markers.iter().any(|m| m.find(head).is_some() || m.find(tail).is_some())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_carries_usage_titles_compactions_and_sidechains() {
        let big = "x".repeat(50_000);
        assert!(needed(format!(r#"{{"type":"assistant","message":{{"content":"{big}","usage":{{}}}}}}"#).as_bytes()));
        assert!(needed(format!(r#"{{"parentUuid":null,"message":{{"type":"message","content":"{big}","usage":{{}}}},"type":"assistant"}}"#).as_bytes()));
        assert!(needed(br#"{"type":"system","subtype":"compact_boundary"}"#));
        // Assistant lines are kept without a search of their length.
        assert!(needed(br#"{"type":"assistant","message":{"content":"no usage key"}}"#));
        assert!(needed(br#"{"message":{"type":"message","content":"x"},"type":"assistant"}"#));
        assert!(needed(br#"{"type":"summary","summary":"t"}"#));
        assert!(needed(br#"{"type":"api-request","id":"r1","querySource":"sdk","shapeHash":"ab"}"#));
        assert!(!needed(br#"{"type":"api-request-shape","shapeHash":"ab","shape":{}}"#));
        assert!(!needed(
            br#"{"type":"api-request-route","provider":"customEndpoint","credential":"key","sessionId":"s"}"#
        ));
        assert!(needed(br#"{"type":"ai-title","aiTitle":"t"}"#));
        assert!(needed(br#"{"type":"system","subtype":"model_refusal_fallback","originalModel":"m"}"#));
        assert!(needed(format!(r#"{{"isSidechain":true,"type":"user","message":"{big}"}}"#).as_bytes()));
        assert!(needed(format!(r#"{{"type":"user","message":"{big}","isCompactSummary":true}}"#).as_bytes()));
    }

    #[test]
    fn skips_user_tool_results_and_progress() {
        let big = "x".repeat(50_000);
        let tool = format!(
            r#"{{"isSidechain":false,"type":"user","message":"{big}","toolUseResult":{{"usage":{{"input_tokens":9}}}}}}"#
        );
        assert!(!needed(tool.as_bytes()));
        assert!(!needed(br#"{"type":"progress","data":{"message":{"usage":{}}}}"#));
        assert!(!needed(br#"{"type":"file-history-snapshot","snapshot":{}}"#));
        // A sub-agent's own user lines name their agent: no thread link needed.
        let named = format!(r#"{{"isSidechain":true,"agentId":"a1b2","type":"user","message":"{big}"}}"#);
        assert!(!needed(named.as_bytes()));
    }
}
