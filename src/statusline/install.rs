//! `cachewise statusline --install`: adds the `statusLine` entry to Claude
//! Code's settings file through `settings_file` (which keeps links, modes
//! and a backup). A different status line is never replaced without
//! `force`; the rest of the file is kept as written.

use crate::settings_file::{Saved, SettingsError, SettingsFile};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub use crate::settings_file::settings_path;

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No settings file: one was written holding only the entry.
    Created,
    /// The entry was added; the old file is at `backup`.
    Added { backup: PathBuf },
    /// Another status line was replaced (`force`); the old file is at `backup`.
    Replaced { backup: PathBuf, previous: String },
    /// The same entry was already there: nothing written.
    Unchanged,
}

/// Why the entry was not installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{path} already has a different status line ({existing}); use --force to replace it (a backup is kept)")]
    Different { path: PathBuf, existing: String },
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// The `statusLine` value for `command`.
pub fn entry(command: &str) -> Value {
    json!({ "type": "command", "command": command, "padding": 0 })
}

/// The snippet `--print-config` prints.
pub fn snippet(command: &str) -> String {
    let v = json!({ "statusLine": entry(command) });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Installs `command` as the status line in `path`.
pub fn install(path: &Path, command: &str, force: bool) -> Result<Outcome, InstallError> {
    let mut file = SettingsFile::open(path)?;
    let previous = file
        .doc()
        .get("statusLine")
        .map(|v| v.get("command").and_then(Value::as_str).unwrap_or("(not a command)").to_owned());
    match &previous {
        Some(p) if p == command => return Ok(Outcome::Unchanged),
        Some(p) if !force && !is_ours(p) => {
            return Err(InstallError::Different { path: path.to_path_buf(), existing: p.clone() })
        }
        _ => file.set(&["statusLine"], &entry(command))?,
    }
    Ok(match (file.save()?, previous) {
        (Saved::Created, _) => Outcome::Created,
        (Saved::Unchanged, _) => Outcome::Unchanged,
        (Saved::Written { backup }, Some(previous)) => Outcome::Replaced { backup, previous },
        (Saved::Written { backup }, None) => Outcome::Added { backup },
    })
}

/// A status line cachewise wrote before (another path to the binary).
fn is_ours(command: &str) -> bool {
    command.trim_end().ends_with("cachewise statusline")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_file_follows_claude_config_dir() {
        let home = Path::new("/h");
        assert_eq!(settings_path(None, Some(home)), Some(PathBuf::from("/h/.claude/settings.json")));
        assert_eq!(settings_path(Some(" /c, /d"), Some(home)), Some(PathBuf::from("/c/settings.json")));
        assert_eq!(settings_path(None, None), None);
    }
}
