//! The data directory's writer lock (`.lock`): one writer at a time. The
//! holder writes its process id and since when into the file, so a writer
//! that finds it taken can say who holds it (a suspended ingest, say)
//! within a second rather than wait without a word; a store opened with
//! `Waiting::No` returns `StoreError::Locked` at once instead (reports and
//! the dashboard then read the last committed store). The file is never
//! followed through a symbolic link. Whoever takes the lock sweeps the
//! temporary files killed runs left (`files::sweep_leftovers`).

use super::files::LOCK;
use super::{Store, StoreError};
use chrono::{SecondsFormat, Utc};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;

/// Whether a writer waits for the lock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Waiting {
    /// Wait (saying who holds it, once).
    #[default]
    Yes,
    /// Return `StoreError::Locked` when another writer holds it.
    No,
}

/// Who holds a lock, as the holder wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    /// RFC 3339, as written.
    pub since: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.pid, self.since.is_empty()) {
            (Some(pid), false) => write!(f, "another cachewise (pid {pid}) holds it since {}", self.since),
            (Some(pid), true) => write!(f, "another cachewise (pid {pid}) holds it"),
            (None, _) => write!(f, "another cachewise holds it"),
        }
    }
}

impl Store {
    /// Takes the directory's exclusive lock (for a `Commit`); released when the file drops.
    /// Held by another writer: waits (and says who holds it, as a warning),
    /// or, opened with `Waiting::No`, returns `StoreError::Locked`.
    pub(super) fn lock(&self) -> Result<File, StoreError> {
        let path = self.dir.join(LOCK);
        let io = |source| StoreError::Lock { path: path.clone(), source };
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io)?;
        match f.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = holder(&mut f);
                if self.waiting == Waiting::No {
                    return Err(StoreError::Locked { dir: self.dir.clone(), holder });
                }
                tracing::warn!("{}: the data directory's lock is taken: {holder}; waiting", self.dir.display());
                f.lock().map_err(io)?;
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let swept = super::files::sweep_leftovers(&self.dir);
        if swept > 0 {
            tracing::info!("{}: removed {swept} temporary file(s) of interrupted runs", self.dir.display());
        }
        let me = format!("{} {}\n", std::process::id(), Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true));
        // Who holds it is for messages only: a failure to say so is no failure.
        let _ = f.set_len(0).and_then(|()| f.rewind()).and_then(|()| f.write_all(me.as_bytes()));
        Ok(f)
    }

    /// The same store, waiting for the lock or not.
    pub fn waiting(&self, waiting: Waiting) -> Store {
        Store { waiting, ..self.clone() }
    }
}

/// What the holder wrote in the lock file (at most a line).
fn holder(f: &mut File) -> Holder {
    let mut text = String::new();
    let _ = f.rewind().and_then(|()| f.take(128).read_to_string(&mut text));
    let mut words = text.split_whitespace();
    let pid = words.next().and_then(|p| p.parse().ok());
    let since = words.next().filter(|s| s.len() <= 40 && s.bytes().all(|b| b.is_ascii_graphic())).unwrap_or("");
    Holder { pid, since: since.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_lock_names_its_holder_or_waits() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let held = store.lock().unwrap();
        let err = store.waiting(Waiting::No).lock().unwrap_err();
        match err {
            StoreError::Locked { holder, .. } => {
                assert_eq!(holder.pid, Some(std::process::id()));
                assert!(holder.to_string().contains(&format!("pid {}", std::process::id())), "{holder}");
            }
            other => panic!("{other}"),
        }
        drop(held);
        assert!(store.waiting(Waiting::No).lock().is_ok(), "free again");
    }

    #[test]
    fn a_lock_file_that_is_a_symbolic_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::os::unix::fs::symlink(&outside, data.join(LOCK)).unwrap();
        let store = Store::open(&data).unwrap();
        assert!(store.lock().is_err(), "a dangling link is refused");
        assert!(!outside.exists(), "nothing is created outside the data directory");
    }
}
