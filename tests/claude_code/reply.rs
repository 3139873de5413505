//! What the fake API answers: decided by directives in the last user
//! message, so a scenario scripts the client through its prompts.
//!
//! - a `tool_result` in the last user message: a short text (the turn ends);
//! - Claude Code's compaction instruction: an `<analysis>` and `<summary>`;
//! - `[[bash:CMD]]`: a `Bash` tool call running CMD;
//! - `[[agent:PROMPT]]`: an `Agent` tool call (a sub-agent given PROMPT,
//!   where `{{...}}` becomes `[[...]]`: a directive for the sub-agent);
//! - anything else: a short text;
//! - and `[[slow:MS]]` anywhere in the last user message: the answer
//!   waits MS milliseconds (two clients at once).
//!
//! Output tokens follow the same fixed rule as prompt blocks.

use serde_json::{json, Value};

/// The content the fake answers with, and its stop reason.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Reply {
    pub blocks: Vec<Value>,
    pub stop: &'static str,
    /// The request asked for a compaction summary.
    pub summary: bool,
    /// How long the fake waits before answering (`[[slow:MS]]`).
    pub delay_ms: Option<u64>,
}

impl Reply {
    /// The output tokens the answer costs: its blocks' JSON / 4, rounded up.
    pub(super) fn output_tokens(&self) -> u64 {
        self.blocks.iter().map(|b| super::cache::tokens_of(&b.to_string())).sum()
    }
}

/// The words that mark Claude Code's request for a compaction summary.
const SUMMARY_ASK: &str = "create a detailed summary";

/// The answer to `body`; `n` numbers it (tool call ids).
pub(super) fn reply_to(body: &Value, n: u64) -> Reply {
    let delay_ms = last_user(body)
        .map(texts_of)
        .unwrap_or_default()
        .iter()
        .find_map(|t| directive(t, "slow"))
        .and_then(|ms| ms.parse().ok());
    Reply { delay_ms, ..answer(body, n) }
}

fn answer(body: &Value, n: u64) -> Reply {
    let last = last_user(body);
    let texts = last.map(texts_of).unwrap_or_default();
    if texts.iter().any(|t| t.contains(SUMMARY_ASK)) {
        let text = format!("<analysis>Call {n}.</analysis>\n<summary>The conversation so far, call {n}.</summary>");
        return Reply {
            blocks: vec![json!({"type": "text", "text": text})],
            stop: "end_turn",
            summary: true,
            delay_ms: None,
        };
    }
    if last.is_some_and(has_tool_result) {
        return text(format!("Done (call {n})."));
    }
    let prompt = texts.join("\n");
    if let Some(task) = directive(&prompt, "agent") {
        let call = json!({"type": "tool_use", "id": format!("toolu_fake{n:04}"), "name": "Agent",
            "input": {"description": "Scripted sub-task", "prompt": task.replace("{{", "[[").replace("}}", "]]"), "subagent_type": "general-purpose"}});
        return Reply { blocks: vec![call], stop: "tool_use", summary: false, delay_ms: None };
    }
    if let Some(cmd) = directive(&prompt, "bash") {
        let call = json!({"type": "tool_use", "id": format!("toolu_fake{n:04}"), "name": "Bash",
            "input": {"command": cmd, "description": "Run the scripted command"}});
        return Reply {
            blocks: vec![json!({"type": "text", "text": "Running it."}), call],
            stop: "tool_use",
            summary: false,
            delay_ms: None,
        };
    }
    text(format!("Answer {n}."))
}

fn text(t: String) -> Reply {
    Reply { blocks: vec![json!({"type": "text", "text": t})], stop: "end_turn", summary: false, delay_ms: None }
}

/// The last message of role `user` (Claude Code also sends `system` ones).
fn last_user(body: &Value) -> Option<&Value> {
    let messages = body.get("messages")?.as_array()?;
    messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) != Some("system"))
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
}

fn texts_of(message: &Value) -> Vec<String> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn has_tool_result(message: &Value) -> bool {
    message
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")))
}

/// The argument of the last `[[name:ARG]]` in `text`.
pub(super) fn directive(text: &str, name: &str) -> Option<String> {
    let open = format!("[[{name}:");
    let start = text.rfind(&open)? + open.len();
    let len = text[start..].find("]]")?;
    Some(text[start..start + len].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(content: Value) -> Value {
        json!({"messages": [{"role": "user", "content": content}, {"role": "system", "content": "env"}]})
    }

    #[test]
    fn directives_script_the_answer() {
        let r = reply_to(&user(json!("please [[bash:echo hi]]")), 3);
        assert_eq!((r.stop, r.blocks[1]["input"]["command"].as_str()), ("tool_use", Some("echo hi")));
        let r = reply_to(&user(json!([{"type": "text", "text": "[[agent:look around]]"}])), 4);
        assert_eq!(r.blocks[0]["input"]["prompt"], "look around");
        let r = reply_to(&user(json!([{"type": "tool_result", "tool_use_id": "t", "content": "x"}])), 5);
        assert_eq!(r.stop, "end_turn");
        let r = reply_to(
            &user(json!([{"type": "text", "text": "x"}, {"type": "text", "text": "Please create a detailed summary"}])),
            6,
        );
        assert!(r.summary);
        assert!(reply_to(&user(json!("hello")), 7).output_tokens() > 0);
    }
}
