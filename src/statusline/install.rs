//! `cachewise statusline --install`: adds the `statusLine` entry to Claude
//! Code's settings file (`$CLAUDE_CONFIG_DIR/settings.json`, else
//! `~/.claude/settings.json`). The old file is copied to a backup first; a
//! different status line is never replaced without `force`; the rest of the
//! file is kept as written (the entry is inserted as text when it is new).

use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

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
    #[error("{path}: not a JSON object; fix or move it first")]
    NotObject { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Claude Code's settings file: under the first `CLAUDE_CONFIG_DIR` entry,
/// else `~/.claude`.
pub fn settings_path(config_dir: Option<&str>, home: Option<&Path>) -> Option<PathBuf> {
    let first = config_dir.and_then(|v| v.split(',').map(str::trim).find(|s| !s.is_empty()));
    match first {
        Some(dir) => Some(Path::new(dir).join("settings.json")),
        None => home.map(|h| h.join(".claude").join("settings.json")),
    }
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
    let io = |source| InstallError::Io { path: path.to_path_buf(), source };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write(path, &format!("{}\n", snippet(command))).map_err(io)?;
            return Ok(Outcome::Created);
        }
        Err(e) => return Err(io(e)),
    };
    let not_object = || InstallError::NotObject { path: path.to_path_buf() };
    let mut doc: Map<String, Value> = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => m,
        _ if text.trim().is_empty() => Map::new(),
        _ => return Err(not_object()),
    };
    let previous = doc.get("statusLine").map(|v| v["command"].as_str().unwrap_or("(not a command)").to_owned());
    let new_text = match &previous {
        Some(p) if p == command => return Ok(Outcome::Unchanged),
        Some(p) if !force && !is_ours(p) => {
            return Err(InstallError::Different { path: path.to_path_buf(), existing: p.clone() })
        }
        Some(_) => {
            doc.insert("statusLine".into(), entry(command));
            format!("{}\n", serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default())
        }
        None => insert_entry(&text, command).ok_or_else(not_object)?,
    };
    let backup = backup(path).map_err(io)?;
    write(path, &new_text).map_err(io)?;
    Ok(match previous {
        Some(previous) => Outcome::Replaced { backup, previous },
        None => Outcome::Added { backup },
    })
}

/// A status line cachewise wrote before (another path to the binary).
fn is_ours(command: &str) -> bool {
    command.trim_end().ends_with("cachewise statusline")
}

/// The file with the entry inserted after its opening brace, so the rest
/// keeps its order and formatting; None when that does not give JSON.
fn insert_entry(text: &str, command: &str) -> Option<String> {
    let open = text.find('{')?;
    let (head, rest) = text.split_at(open + 1);
    let empty = rest.trim_start().starts_with('}');
    let value = serde_json::to_string(&entry(command)).ok()?;
    let out = format!("{head}\n  \"statusLine\": {value}{}{rest}", if empty { "" } else { "," });
    serde_json::from_str::<Value>(&out).ok()?.is_object().then_some(out)
}

/// Copies `path` to the first free `settings.json.bak`, `.bak.1`, ...
fn backup(path: &Path) -> std::io::Result<PathBuf> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for i in 0..1000 {
        let suffix = if i == 0 { ".bak".to_owned() } else { format!(".bak.{i}") };
        let b = path.with_file_name(format!("{name}{suffix}"));
        if !b.exists() {
            std::fs::copy(path, &b)?;
            return Ok(b);
        }
    }
    Err(std::io::Error::other("too many backups"))
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
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

    #[test]
    fn insertion_keeps_the_rest_of_the_file() {
        let text = "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n";
        let out = insert_entry(text, "/bin/cachewise statusline").unwrap();
        assert!(out.ends_with("\"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n"), "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["statusLine"]["command"], "/bin/cachewise statusline");
        assert_eq!(v["model"], "opus");
        let v: Value = serde_json::from_str(&insert_entry("{}", "x").unwrap()).unwrap();
        assert_eq!(v["statusLine"]["type"], "command");
    }
}
