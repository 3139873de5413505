//! The OTLP watermark, as `push` keeps one: per collector (its logs and
//! metrics URLs), the identity key of every response the collector
//! accepted, 8 bytes each, in `otlp-sent/<hash>.keys` (`store::files`).
//! Keys are added batch by batch, only after both the logs and the metrics
//! of the batch were answered with a 2xx, and written atomically, so a run
//! cut short keeps what was accepted and loses nothing else. A lock file
//! beside it keeps two exports to one collector from sending the same rows.

use super::OtlpError;
use crate::store::files;
use crate::team::integrity::hex;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use url::Url;

/// The keys a collector accepted, held under its lock.
pub struct Sent {
    path: PathBuf,
    keys: HashSet<u64>,
    _lock: File,
}

impl Sent {
    /// Opens (and locks) the watermark of the collector at `logs` and
    /// `metrics` in the data directory `dir`.
    pub fn open(dir: &Path, logs: &Url, metrics: &Url) -> Result<Sent, OtlpError> {
        let d = Sha256::digest(format!("{logs}\n{metrics}").as_bytes());
        let base = files::otlp_sent(dir, &hex(&d[..8]));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| OtlpError::Io { path, source }
        };
        if let Some(parent) = base.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let lock_path = base.with_extension("lock");
        let lock = File::options().create(true).truncate(false).write(true).open(&lock_path).map_err(io(&lock_path))?;
        if lock.try_lock().is_err() {
            return Err(OtlpError::Busy { path: lock_path });
        }
        let path = base.with_extension("keys");
        let keys = match std::fs::read(&path) {
            Ok(bytes) => bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => HashSet::new(),
            Err(source) => return Err(OtlpError::Io { path, source }),
        };
        Ok(Sent { path, keys, _lock: lock })
    }

    /// True when the collector accepted the response of `key`.
    pub fn contains(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }

    /// How many responses the collector accepted.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing was accepted yet.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Records `keys` as accepted, on disk before this returns.
    pub fn mark(&mut self, keys: impl IntoIterator<Item = u64>) -> Result<(), OtlpError> {
        self.keys.extend(keys);
        let mut all: Vec<u64> = self.keys.iter().copied().collect();
        all.sort_unstable();
        let bytes: Vec<u8> = all.iter().flat_map(|k| k.to_le_bytes()).collect();
        crate::team::export::write_atomic(&self.path, &bytes).map_err(|e| OtlpError::Watermark(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_survive_and_a_second_export_waits() {
        let dir = tempfile::tempdir().unwrap();
        let (l, m) = (Url::parse("http://c:4318/v1/logs").unwrap(), Url::parse("http://c:4318/v1/metrics").unwrap());
        let mut s = Sent::open(dir.path(), &l, &m).unwrap();
        assert!(matches!(Sent::open(dir.path(), &l, &m), Err(OtlpError::Busy { .. })));
        s.mark([7, 9]).unwrap();
        drop(s);
        let s = Sent::open(dir.path(), &l, &m).unwrap();
        assert!(s.contains(7) && s.contains(9) && !s.contains(8));
        let other = Url::parse("http://d:4318/v1/logs").unwrap();
        assert!(Sent::open(dir.path(), &other, &m).unwrap().is_empty());
    }
}
