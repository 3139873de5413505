//! `cachewise hooks --install`: adds two hooks to Claude Code's settings
//! file through `settings_file` (links, modes and a backup kept): on
//! `SessionStart` with source `resume` or `fork`, `cachewise hook
//! session-start` (the advice at the moment of resume); on `SessionEnd`, a
//! quiet ingest, so a session's history is in the store before Claude
//! Code's cleanup can delete its transcript. Each goes beside the hooks
//! already there (nothing of the user's is removed or reordered); an event
//! that already runs a cachewise command of the same kind is left as it is,
//! so a second install changes nothing.

use crate::settings_file::{Saved, SettingsError, SettingsFile};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The arguments of the `SessionStart` hook's command.
pub const SESSION_START_ARGS: &str = "hook session-start";
/// The arguments of the `SessionEnd` hook's command.
pub const SESSION_END_ARGS: &str = "--quiet ingest";
/// `SessionStart` sources the hook answers.
pub const SESSION_START_MATCHER: &str = "resume|fork";
/// Seconds Claude Code gives each hook before it stops waiting.
const SESSION_START_TIMEOUT_S: u64 = 5;
const SESSION_END_TIMEOUT_S: u64 = 120;

/// The hook groups for a binary run as `exe` (already quoted for a shell).
pub fn groups(exe: &str) -> [(&'static str, Value); 2] {
    let command =
        |args: &str, timeout: u64| json!({"type": "command", "command": format!("{exe} {args}"), "timeout": timeout});
    [
        (
            "SessionStart",
            json!({"matcher": SESSION_START_MATCHER, "hooks": [command(SESSION_START_ARGS, SESSION_START_TIMEOUT_S)]}),
        ),
        ("SessionEnd", json!({"hooks": [command(SESSION_END_ARGS, SESSION_END_TIMEOUT_S)]})),
    ]
}

/// The snippet `hooks --print-config` prints.
pub fn snippet(exe: &str) -> String {
    let hooks: serde_json::Map<String, Value> =
        groups(exe).into_iter().map(|(k, g)| (k.to_owned(), json!([g]))).collect();
    serde_json::to_string_pretty(&json!({ "hooks": hooks })).unwrap_or_default()
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The events given a cachewise hook now.
    pub added: Vec<&'static str>,
    /// The events that already had one.
    pub present: Vec<&'static str>,
    /// What was written.
    pub saved: Saved,
}

/// Adds the hooks for `exe` to the settings file at `path`.
pub fn install(path: &Path, exe: &str) -> Result<Installed, SettingsError> {
    let mut file = SettingsFile::open(path)?;
    let (mut added, mut present) = (Vec::new(), Vec::new());
    for ((event, group), args) in groups(exe).into_iter().zip([SESSION_START_ARGS, SESSION_END_ARGS]) {
        let doc = Value::Object(file.doc());
        if has_command(&doc["hooks"][event], args) {
            present.push(event);
            continue;
        }
        file.push(&["hooks", event], &group)?;
        added.push(event);
    }
    let saved = file.save()?;
    Ok(Installed { added, present, saved })
}

/// True when some hook of `groups` (an event's list) runs a cachewise
/// command with `args` (any path to the binary).
fn has_command(groups: &Value, args: &str) -> bool {
    let ours = |c: &str| {
        let c = c.trim_end();
        c.strip_suffix(args)
            .and_then(|exe| exe.strip_suffix(' '))
            .is_some_and(|exe| exe.trim_end().trim_end_matches('\'').ends_with("cachewise"))
    };
    groups
        .as_array()
        .into_iter()
        .flatten()
        .any(|g| g["hooks"].as_array().into_iter().flatten().any(|h| h["command"].as_str().is_some_and(ours)))
}

/// Where a backup went, for the CLI's message.
pub fn backup_of(saved: &Saved) -> Option<&PathBuf> {
    match saved {
        Saved::Written { backup } => Some(backup),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cachewise_command_of_the_same_kind_counts_as_present() {
        let groups = json!([{"matcher": "resume", "hooks": [{"type": "command", "command": "/old/path/cachewise hook session-start"}]}]);
        assert!(has_command(&groups, SESSION_START_ARGS));
        assert!(!has_command(&groups, SESSION_END_ARGS));
        assert!(!has_command(&json!("x"), SESSION_START_ARGS));
        let quoted = json!([{"hooks": [{"command": "'/my apps/cachewise' --quiet ingest"}]}]);
        assert!(has_command(&quoted, SESSION_END_ARGS));
        let other = json!([{"hooks": [{"command": "/bin/other-tool --quiet ingest"}]}]);
        assert!(!has_command(&other, SESSION_END_ARGS));
        let v: Value = serde_json::from_str(&snippet("/bin/cachewise")).unwrap();
        assert_eq!(v["hooks"]["SessionStart"][0]["matcher"], "resume|fork");
        assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], "/bin/cachewise --quiet ingest");
    }
}
