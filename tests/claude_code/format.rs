//! The transcript format the pinned Claude Code writes, as far as cachewise
//! has decided what each part means: every line type, and every top-level
//! field of the assistant lines (the ones that carry billing). A release
//! that writes a line type or an assistant field not listed here fails the
//! scenarios, so a person reads what it is (`scripts/claude-code-release.sh`
//! lists them) before the release is pinned, rather than a user finding a
//! cost cachewise did not count.

use super::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Line types (`type`, or `type/subtype`) and what cachewise does with each.
const LINE_TYPES: &[&str] = &[
    "assistant",                    // a response: its usage, read
    "user",                         // a prompt or tool result: its links and compaction summaries
    "attachment",                   // context Claude Code added (hooks' messages among them): not billing
    "system/compact_boundary",      // a compaction, read
    "system/microcompact_boundary", // old tool results cleared, read
    "system/stop_hook_summary",     // hooks that ran: not billing
    "system/turn_duration",         // a turn's wall time: not billing
    "system/local_command",         // a slash command's echo: not billing
    "summary",                      // a title, read
    "ai-title",                     // a title, read
    "custom-title",                 // a title, read
    "cost-state",                   // Claude Code's running totals, read
    "api-request",                  // what a call asked for (querySource, shapeHash), read
    "api-request-shape",            // the system prompt and tools behind a shape: content, never read
    "api-request-blob",             // reminder blocks: content, never read
    "api-request-route",            // provider and kind of credential of a call: not read
    "last-prompt",                  // the last prompt's text: content, never read
    "atis-latch",                   // not billing
    "queue-operation",              // queued prompts: not billing
    "tools-used",                   // tool names used: not billing
    "mode",                         // the permission mode: not billing
    "permission-mode",              // the same, interactive: not billing
    "file-history-snapshot",        // file backups: not billing
    "progress",                     // a running tool's progress: not billing
];

/// Top-level fields of assistant lines, and what cachewise does with each.
const ASSISTANT_FIELDS: &[&str] = &[
    "type",
    "message",                 // the response: its id, model and usage, read
    "requestId",               // with the message id, what makes a response one (deduplication), read
    "sessionId",               // read
    "timestamp",               // read
    "version",                 // Claude Code's version, read
    "cwd",                     // the project, read
    "isSidechain",             // an old inline sub-agent's line, read
    "agentId",                 // a sub-agent's thread, read
    "uuid",                    // links of old inline sub-agents, read
    "parentUuid",              // read with uuid
    "requestRef",              // the call's api-request line, read
    "promptCacheRequested",    // the TTL the call asked for, read
    "isApiErrorMessage",       // a synthetic reply to a failed call: no usage
    "apiBlockIndex",           // which content block of one response the line holds: the response is one
    "requestedModel",          // the model asked for; the price is the answering model's (`message.model`)
    "madeBy",                  // who made the reply ("model"): not billing
    "effort",                  // the reasoning effort asked for: billing is by tokens
    "perTurnEffort",           // the same, per turn
    "userType",                // not billing
    "entrypoint",              // cli, sdk-cli...: not billing
    "gitBranch",               // not billing
    "slug",                    // a session's plan-file name: not billing
    "attributionAgent",        // the sub-agent type that made a line: not billing
    "toolInputStreamMs",       // a timing: not billing
    "toolLimits",              // the tools a turn allowed (2.1.337): not billing
    "session_id",              // the session again (interactive runs): sessionId is read
    "serverClassifierRequest", // a server-side check of the reply's tool calls: no usage of its own
];

/// Every line type and assistant field in `client`'s transcripts is one
/// cachewise has a rule for.
pub(super) fn known(client: &Client) {
    let mut new = BTreeSet::new();
    for path in client.transcripts() {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            let kind = v["type"].as_str().unwrap_or("").to_owned();
            let kind = match v["subtype"].as_str() {
                Some(sub) => format!("{kind}/{sub}"),
                None => kind,
            };
            if !LINE_TYPES.contains(&kind.as_str()) {
                new.insert(format!("line type {kind}"));
            }
            if kind == "assistant" {
                let fields = v.as_object().into_iter().flat_map(|o| o.keys());
                new.extend(
                    fields.filter(|k| !ASSISTANT_FIELDS.contains(&k.as_str())).map(|k| format!("assistant field {k}")),
                );
            }
        }
    }
    assert!(
        new.is_empty(),
        "Claude Code {} writes what cachewise has no rule for: {new:?}. Decide what each means \
         (billing: read it; not: list it in tests/claude_code/format.rs) before pinning the release.",
        client.setup.version
    );
}
