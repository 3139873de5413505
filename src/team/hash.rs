//! `--hash-paths`: project directories, cwds, git branches and source paths
//! become stable keyed hashes (HMAC-SHA256, `h:` + 16 hex digits), so a lead
//! can still group by project without learning its name or anyone's home
//! directory. The key is `--hash-key` (a team may share one, so the same
//! project hashes alike for everyone) or a random per-user key kept in the
//! data directory, created on first use; either way the hashes are stable
//! across exports. Hands on hashed rows to `export`.

use super::bundle::hex;
use super::TeamError;
use crate::model::{Call, Compaction, Request};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::fs;
use std::io::Write;
use std::path::Path;

/// The file in the data directory that holds the per-user key.
pub use crate::store::files::HASH_KEY as KEY_FILE;

/// Prefix that marks a hashed value.
pub const HASH_PREFIX: &str = "h:";

/// A keyed hasher of path-like values.
#[derive(Clone)]
pub struct PathHasher {
    key: Vec<u8>,
}

impl std::fmt::Debug for PathHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PathHasher(..)")
    }
}

impl PathHasher {
    /// A hasher with an explicit key (`--hash-key`).
    pub fn from_key(key: &str) -> PathHasher {
        PathHasher { key: key.as_bytes().to_vec() }
    }

    /// The per-user key of a data directory, created (0600) on first use.
    pub fn from_data_dir(dir: &Path) -> Result<PathHasher, TeamError> {
        let path = dir.join(KEY_FILE);
        let io = |source| TeamError::Io { path: path.clone(), source };
        match fs::read_to_string(&path) {
            Ok(s) if s.trim().is_empty() => {
                return Err(io(std::io::Error::new(std::io::ErrorKind::InvalidData, "empty hash key file")))
            }
            Ok(s) => return Ok(PathHasher { key: s.trim().as_bytes().to_vec() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(e)),
        }
        let key = hex(&rand::random::<[u8; 32]>());
        let mut f = match new_private_file(&path) {
            Ok(f) => f,
            // Another export created it meanwhile: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return PathHasher::from_data_dir(dir),
            Err(e) => return Err(io(e)),
        };
        f.write_all(key.as_bytes()).and_then(|()| f.sync_all()).map_err(io)?;
        Ok(PathHasher { key: key.into_bytes() })
    }

    /// `h:` + the first 16 hex digits of HMAC-SHA256(key, value); empty
    /// stays empty, so "no branch" is still visible.
    pub fn hash(&self, value: &str) -> String {
        if value.is_empty() {
            return String::new();
        }
        // HMAC accepts keys of any length, so this never takes the fallback.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) else { return HASH_PREFIX.to_owned() };
        mac.update(value.as_bytes());
        let digest = mac.finalize().into_bytes();
        format!("{HASH_PREFIX}{}", hex(&digest[..8]))
    }

    /// Hashes every path-like field of the rows in place.
    pub fn apply(&self, requests: &mut [Request], compactions: &mut [Compaction]) {
        for r in requests {
            for field in [&mut r.project, &mut r.cwd, &mut r.git_branch, &mut r.source] {
                *field = self.hash(field).into();
            }
        }
        for c in compactions {
            c.source = self.hash(&c.source);
        }
    }

    /// Hashes the calls' `source` as `apply` hashes their requests', so
    /// each still names its request's line.
    pub fn apply_calls(&self, calls: &mut [Call]) {
        for i in calls {
            i.source = self.hash(&i.source).into();
        }
    }
}

#[cfg(unix)]
fn new_private_file(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn new_private_file(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_keyed_and_empty_preserving() {
        let a = PathHasher::from_key("k1");
        assert_eq!(a.hash("/home/alice/app"), a.hash("/home/alice/app"));
        assert_ne!(a.hash("/home/alice/app"), PathHasher::from_key("k2").hash("/home/alice/app"));
        assert!(a.hash("main").starts_with(HASH_PREFIX) && a.hash("main").len() == 18);
        assert_eq!(a.hash(""), "");
    }

    #[test]
    fn key_file_is_created_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = PathHasher::from_data_dir(dir.path()).unwrap().hash("x");
        let again = PathHasher::from_data_dir(dir.path()).unwrap().hash("x");
        assert_eq!(first, again);
        let other = tempfile::tempdir().unwrap();
        assert_ne!(first, PathHasher::from_data_dir(other.path()).unwrap().hash("x"));
    }
}
