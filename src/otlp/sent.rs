//! The OTLP watermark, as `push` keeps one: per collector (its logs and
//! metrics URLs), the identity key of every response the collector
//! accepted, 8 bytes each, in `otlp-sent/<hash>.keys` (`store::files`).
//! Keys are added batch by batch, only after both the logs and the metrics
//! of the batch were answered with a 2xx, and written atomically, so a run
//! cut short keeps what was accepted and loses nothing else. Before a batch
//! is sent its keys are written to `<hash>.pending`; a run killed before the
//! collector's answer was marked leaves them there, and the next run sends
//! exactly that batch first, so the collector gets the same records and the
//! same metric points again (which it can drop as copies), whatever
//! `--otlp-batch` says now. A lock file beside it keeps two exports to one
//! collector from sending the same rows.

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
    /// The batch of a run that ended before its answer was marked.
    pending: HashSet<u64>,
    _lock: File,
}

impl Sent {
    /// Opens (and locks) the watermark of the collector at `logs` and
    /// `metrics` in the data directory `dir`.
    pub fn open(dir: &Path, logs: &Url, metrics: &Url) -> Result<Sent, OtlpError> {
        let digest = |text: String| hex(&Sha256::digest(text.as_bytes())[..8]);
        let base = files::otlp_sent(dir, &digest(format!("{}\n{}", normal(logs), normal(metrics))));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| OtlpError::Io { path, source }
        };
        // A watermark an earlier release kept under the URLs as spelled.
        let spelled = files::otlp_sent(dir, &digest(format!("{logs}\n{metrics}"))).with_extension("keys");
        if spelled.is_file() && !base.with_extension("keys").exists() {
            std::fs::rename(&spelled, base.with_extension("keys")).map_err(io(&spelled))?;
        }
        if let Some(parent) = base.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let lock_path = base.with_extension("lock");
        let lock = File::options().create(true).truncate(false).write(true).open(&lock_path).map_err(io(&lock_path))?;
        if lock.try_lock().is_err() {
            return Err(OtlpError::Busy { path: lock_path });
        }
        let path = base.with_extension("keys");
        let keys = read_keys(&path)?;
        let pending = read_keys(&path.with_extension("pending"))?;
        Ok(Sent { path, keys, pending, _lock: lock })
    }

    /// True when `key` was in the batch in flight of a run that ended before
    /// the collector's answer was marked.
    pub fn was_in_flight(&self, key: u64) -> bool {
        self.pending.contains(&key)
    }

    /// Records `keys` as the batch about to be sent, on disk before this
    /// returns.
    pub fn begin(&mut self, keys: impl IntoIterator<Item = u64>) -> Result<(), OtlpError> {
        self.pending = keys.into_iter().collect();
        write_keys(&self.path.with_extension("pending"), &self.pending)
    }

    /// True when the collector accepted the response of `key`.
    pub fn contains(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }

    /// True when nothing was accepted yet.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Records `keys` as accepted, on disk before this returns.
    /// The batch begun is no longer pending once its keys are marked.
    pub fn mark(&mut self, keys: impl IntoIterator<Item = u64>) -> Result<(), OtlpError> {
        self.keys.extend(keys);
        write_keys(&self.path, &self.keys)?;
        self.pending.clear();
        write_keys(&self.path.with_extension("pending"), &self.pending)
    }
}

/// The keys of `path` (none when it does not exist).
fn read_keys(path: &Path) -> Result<HashSet<u64>, OtlpError> {
    files::read_key_set(path).map_err(|source| OtlpError::Io { path: path.to_path_buf(), source })
}

/// Writes `keys` to `path` atomically.
fn write_keys(path: &Path, keys: &HashSet<u64>) -> Result<(), OtlpError> {
    files::write_key_set(path, keys).map_err(|e| OtlpError::Watermark(format!("{}: {e}", path.display())))
}

/// A collector's URL as the watermark knows it: the loopback names
/// (`localhost`, 127.0.0.0/8, `::1`) are one host, so the same collector
/// spelled another way is not sent everything again.
fn normal(url: &Url) -> String {
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let mut u = url.clone();
    if loopback && u.set_host(Some("loopback")).is_err() {
        return url.to_string();
    }
    u.to_string()
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

    #[test]
    fn a_batch_begun_stays_pending_until_marked() {
        let dir = tempfile::tempdir().unwrap();
        let (l, m) = (Url::parse("http://c:4318/v1/logs").unwrap(), Url::parse("http://c:4318/v1/metrics").unwrap());
        let mut s = Sent::open(dir.path(), &l, &m).unwrap();
        s.begin([3, 4]).unwrap();
        drop(s);
        let mut s = Sent::open(dir.path(), &l, &m).unwrap();
        assert!(s.was_in_flight(3) && s.was_in_flight(4) && !s.contains(3), "a killed run's batch is pending");
        s.begin([3, 4]).unwrap();
        s.mark([3, 4]).unwrap();
        drop(s);
        let s = Sent::open(dir.path(), &l, &m).unwrap();
        assert!(s.contains(3) && !s.was_in_flight(3));
    }

    #[test]
    fn one_collector_spelled_two_ways_has_one_watermark_and_an_old_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let at = |host: &str, path: &str| Url::parse(&format!("http://{host}:4318/v1/{path}")).unwrap();
        let (l, m) = (at("127.0.0.1", "logs"), at("127.0.0.1", "metrics"));
        // What an earlier release wrote: keys under the URLs as spelled.
        let d = Sha256::digest(format!("{l}\n{m}").as_bytes());
        let old = files::otlp_sent(dir.path(), &hex(&d[..8])).with_extension("keys");
        std::fs::create_dir_all(old.parent().unwrap()).unwrap();
        std::fs::write(&old, 5u64.to_le_bytes()).unwrap();
        let s = Sent::open(dir.path(), &l, &m).unwrap();
        assert!(s.contains(5), "the earlier watermark is kept");
        drop(s);
        let s = Sent::open(dir.path(), &at("localhost", "logs"), &at("localhost", "metrics")).unwrap();
        assert!(s.contains(5), "localhost is 127.0.0.1");
        drop(s);
        assert!(Sent::open(dir.path(), &at("c", "logs"), &at("c", "metrics")).unwrap().is_empty());
    }
}
