//! Claude Code's `settings.json`: the one reader and writer of it, used by
//! `statusline --install` and `hooks --install`.
//!
//! How a write keeps the user's file what it was:
//! - a symlinked `settings.json` (the dotfiles habit) is followed: the
//!   link's target is edited and the link stays;
//! - the file keeps its mode (a 0644 file stays 0644); a read-only file
//!   (no write bit for its owner) is refused, never made writable;
//! - a blank file is an empty object; anything else that is not a JSON
//!   object is refused;
//! - the old text is copied to a backup beside the path the user gave
//!   (`settings.json.bak`, else `.bak.1`, ...), created with `O_EXCL`, so
//!   a backup name that exists in any form, a dangling symlink included, is
//!   skipped and never written through; the backup is 0600;
//! - the new text is written to a temporary file beside the target and
//!   renamed over it;
//! - Claude Code rewrites the file as it runs, without a lock: just before
//!   the rename the file is read again, and when it changed since it was
//!   read, the edits are made again on what it holds now (a few tries), so
//!   a change Claude Code made meanwhile is kept.
//!
//! The edits themselves (`edit`) keep the rest of the text as written.

mod edit;

use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why the settings file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{path}: not a JSON object; fix or move it first")]
    NotObject { path: PathBuf },
    #[error("{path}: the file is read-only (mode {mode:04o}); make it writable (chmod u+w) or add the entry by hand (--print-config)")]
    ReadOnly { path: PathBuf, mode: u32 },
    #[error("{path}: not a regular file")]
    NotRegular { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// The largest settings file read (Claude Code's are a few kB).
pub const MAX_BYTES: u64 = 4 << 20;

/// Claude Code's settings file: under the first `CLAUDE_CONFIG_DIR` entry,
/// else `~/.claude`.
pub fn settings_path(config_dir: Option<&str>, home: Option<&Path>) -> Option<PathBuf> {
    let first = config_dir.and_then(|v| v.split(',').map(str::trim).find(|s| !s.is_empty()));
    match first {
        Some(dir) => Some(Path::new(dir).join("settings.json")),
        None => home.map(|h| h.join(".claude").join("settings.json")),
    }
}

/// A settings file read for editing.
#[derive(Debug)]
pub struct SettingsFile {
    /// The path the user's tools name (maybe a symlink).
    path: PathBuf,
    /// The file written: the link's target, or `path`.
    target: PathBuf,
    /// The text read; None when there was no file.
    original: Option<String>,
    /// The text to write.
    text: String,
    /// The target's permission bits, when it exists.
    mode: Option<u32>,
    /// The edits made, to make again on a file that changed meanwhile.
    edits: Vec<Edit>,
}

/// One edit: set or append `value` at `path`.
#[derive(Debug, Clone)]
struct Edit {
    path: Vec<String>,
    value: Value,
    append: bool,
}

/// Tries of a save whose file keeps changing under it.
const SAVE_TRIES: usize = 5;

/// What `save` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    /// There was no file: one was written.
    Created,
    /// The file was rewritten; the old text is at `backup`.
    Written { backup: PathBuf },
    /// Nothing changed: nothing written.
    Unchanged,
}

impl SettingsFile {
    /// Reads `path` (following symlinks); a missing file is an empty object.
    pub fn open(path: &Path) -> Result<Self, SettingsError> {
        let io = io_at;
        let target = resolve(path).map_err(io(path))?;
        let (original, mode) = match std::fs::metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
            Err(e) => return Err(io(&target)(e)),
            Ok(m) if !m.is_file() => return Err(SettingsError::NotRegular { path: target }),
            Ok(m) => {
                let text = read_bounded(&target).map_err(io(&target))?;
                (Some(text), Some(mode_of(&m)))
            }
        };
        let text = original.clone().unwrap_or_default();
        edit::parse(&text).map_err(|_| SettingsError::NotObject { path: path.to_path_buf() })?;
        Ok(SettingsFile { path: path.to_path_buf(), target, original, text, mode, edits: Vec::new() })
    }

    /// The document as it stands (with the edits made so far).
    pub fn doc(&self) -> Map<String, Value> {
        edit::parse(&self.text).unwrap_or_default()
    }

    /// Sets the value at `path` (object keys; objects created on the way).
    pub fn set(&mut self, path: &[&str], value: &Value) -> Result<(), SettingsError> {
        self.apply(Edit { path: path.iter().map(|s| (*s).to_owned()).collect(), value: value.clone(), append: false })
    }

    /// Appends `value` to the array at `path` (created when missing).
    pub fn push(&mut self, path: &[&str], value: &Value) -> Result<(), SettingsError> {
        self.apply(Edit { path: path.iter().map(|s| (*s).to_owned()).collect(), value: value.clone(), append: true })
    }

    fn apply(&mut self, e: Edit) -> Result<(), SettingsError> {
        let path: Vec<&str> = e.path.iter().map(String::as_str).collect();
        let edited =
            if e.append { edit::push(&self.text, &path, &e.value) } else { edit::set(&self.text, &path, &e.value) };
        self.text = edited.map_err(|_| self.not_object())?;
        self.edits.push(e);
        Ok(())
    }

    /// The same edits on the file as it is now.
    fn reread(self) -> Result<SettingsFile, SettingsError> {
        let mut fresh = SettingsFile::open(&self.path)?;
        for e in self.edits {
            fresh.apply(e)?;
        }
        Ok(fresh)
    }

    /// True when the target still holds the text read.
    fn unchanged(&self) -> bool {
        let now = read_bounded(&self.target).ok();
        now == self.original
    }

    fn not_object(&self) -> SettingsError {
        SettingsError::NotObject { path: self.path.clone() }
    }

    /// Writes the edits: a backup first, then the target, renamed into place
    /// unless the file changed since it was read (then the edits are made
    /// again on the new text, up to `SAVE_TRIES` times).
    pub fn save(mut self) -> Result<Saved, SettingsError> {
        for _ in 1..SAVE_TRIES {
            match self.save_once()? {
                Some(saved) => return Ok(saved),
                None => self = self.reread()?,
            }
        }
        self.save_once()?.ok_or_else(|| SettingsError::Io {
            path: self.target.clone(),
            source: std::io::Error::other("the file kept changing while it was written; run the command again"),
        })
    }

    /// One try of `save`: None when the file changed since it was read.
    fn save_once(&self) -> Result<Option<Saved>, SettingsError> {
        let io = io_at;
        let Some(original) = &self.original else {
            let written =
                write_atomic(&self.target, &self.text, 0o644, || self.unchanged()).map_err(io(&self.target))?;
            return Ok(written.then_some(Saved::Created));
        };
        if *original == self.text {
            return Ok(Some(Saved::Unchanged));
        }
        let mode = self.mode.unwrap_or(0o644);
        if mode & 0o200 == 0 {
            return Err(SettingsError::ReadOnly { path: self.target.clone(), mode });
        }
        if !self.unchanged() {
            return Ok(None);
        }
        let backup = backup(&self.path, original).map_err(io(&self.path))?;
        let written = write_atomic(&self.target, &self.text, mode, || self.unchanged()).map_err(io(&self.target))?;
        Ok(written.then_some(Saved::Written { backup }))
    }
}

/// An I/O error at `path`.
fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> SettingsError + '_ {
    move |source| SettingsError::Io { path: path.to_path_buf(), source }
}

/// The file a write of `path` should change: the end of its symlink chain
/// (relative links resolved against the link's directory), or `path`.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let mut cur = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&cur)?;
                cur = match cur.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(cur),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?.take(MAX_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_BYTES {
        return Err(std::io::Error::other(format!("larger than {MAX_BYTES} bytes")));
    }
    Ok(text)
}

#[cfg(unix)]
fn mode_of(m: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    m.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(m: &std::fs::Metadata) -> u32 {
    if m.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// Writes `text` to a new backup beside `path`: the first name free in every
/// sense (no file, no directory, no link, dangling or not).
fn backup(path: &Path, text: &str) -> std::io::Result<PathBuf> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for i in 0..1000 {
        let suffix = if i == 0 { ".bak".to_owned() } else { format!(".bak.{i}") };
        let b = path.with_file_name(format!("{name}{suffix}"));
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        match opts.open(&b) {
            Ok(mut f) => {
                f.write_all(text.as_bytes())?;
                f.sync_all()?;
                return Ok(b);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free backup name (.bak to .bak.999)"))
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path` if `still` says so just before (false: nothing written).
fn write_atomic(path: &Path, text: &str, mode: u32, still: impl FnOnce() -> bool) -> std::io::Result<bool> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    if !still() {
        return Ok(false);
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(true)
}
