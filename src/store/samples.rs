//! The status line's sample files of a data directory: the plan-limit
//! samples (`statusline/rate_limits.jsonl`, `files::rate_limits`) and
//! Claude Code's `prompt_cache` readings beside cachewise's own verdict
//! (`statusline/prompt_cache.jsonl`, `files::prompt_cache`). One JSON
//! object per line, a line appended only when a figure changed, read back
//! bounded (the last `MAX_TABLE_BYTES`, unreadable lines skipped). A file
//! grown past `MAX_FILE_BYTES` keeps its newer half (rewritten atomically).
//! The status line appends; views read them through a `StoreView`.

use crate::model::limits::{LiveCache, Sample};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Largest samples file read (the oldest samples beyond it are ignored).
const MAX_TABLE_BYTES: u64 = 8 << 20;
/// A file past this size keeps its newer half.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// Appends `s` unless the last sample holds the same figures; true when
/// written. One `write` of one line to a file opened for appending.
pub fn append(path: &Path, s: &Sample) -> std::io::Result<bool> {
    if s.five_hour.is_none() && s.seven_day.is_none() {
        return Ok(false);
    }
    append_if(path, s, |last: &Sample| last.five_hour == s.five_hour && last.seven_day == s.seven_day)
}

/// Appends a `prompt_cache` reading unless the last one of the file says
/// the same (time aside); true when written.
pub fn append_live(path: &Path, s: &LiveCache) -> std::io::Result<bool> {
    append_if(path, s, |last: &LiveCache| LiveCache { time: s.time, ..last.clone() } == *s)
}

fn append_if<T: Serialize + DeserializeOwned>(path: &Path, s: &T, same: impl Fn(&T) -> bool) -> std::io::Result<bool> {
    if last_line::<T>(path).is_some_and(|last| same(&last)) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_vec(s).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(&line)?;
    if f.metadata()?.len() > MAX_FILE_BYTES {
        keep_newer_half(path)?;
    }
    Ok(true)
}

/// Rewrites `path` with the complete lines of its newer half.
fn keep_newer_half(path: &Path) -> std::io::Result<()> {
    let mut f = super::files::open_regular(path)?;
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len / 2))?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    let start = memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1);
    super::files::replace(path, super::files::Sync::No, &buf[start..])
}

fn last_line<T: DeserializeOwned>(path: &Path) -> Option<T> {
    let mut f = super::files::open_regular(path).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf).ok()?;
    let body = buf.strip_suffix(b"\n")?;
    let start = memchr::memrchr(b'\n', body).map_or(0, |i| i + 1);
    serde_json::from_slice(&body[start..]).ok()
}

/// Every sample in the file (the last `MAX_TABLE_BYTES`), unreadable lines skipped.
pub fn read(path: &Path) -> Vec<Sample> {
    read_lines(path)
}

/// Every `prompt_cache` reading in the file (as `read`).
pub fn read_live(path: &Path) -> Vec<LiveCache> {
    read_lines(path)
}

fn read_lines<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    let Ok(mut f) = super::files::open_regular(path) else { return Vec::new() };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(len.saturating_sub(MAX_TABLE_BYTES))).is_err() || f.read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    buf.split(|b| *b == b'\n').filter_map(|l| serde_json::from_slice(l).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::limits::fixtures::{sample, t};

    #[test]
    fn the_table_appends_only_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = crate::store::files::rate_limits(dir.path());
        assert!(append(&path, &sample(0, 10.0, 5)).unwrap());
        assert!(!append(&path, &sample(1, 10.0, 5)).unwrap(), "same figures: not appended");
        assert!(append(&path, &sample(2, 11.0, 5)).unwrap());
        let empty = Sample { five_hour: None, ..sample(3, 0.0, 0) };
        assert!(!append(&path, &empty).unwrap());
        let all = read(&path);
        assert_eq!(all.len(), 2);
        assert_eq!(all[1], sample(2, 11.0, 5));
    }

    #[test]
    fn prompt_cache_readings_append_only_changes_and_stay_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = crate::store::files::prompt_cache(dir.path());
        let live = |min: i64, warm: bool| LiveCache {
            time: t(min),
            session_id: "s".into(),
            warm,
            cachewise_warm: Some(true),
            ttl_s: Some(3600),
            expires_at: Some(1_788_612_495),
            recache_tokens: Some(125_604),
        };
        assert!(append_live(&path, &live(0, true)).unwrap());
        assert!(!append_live(&path, &live(1, true)).unwrap(), "the same reading later: not appended");
        assert!(append_live(&path, &live(2, false)).unwrap());
        assert_eq!(read_live(&path), vec![live(0, true), live(2, false)]);
        let line = serde_json::to_vec(&live(0, true)).unwrap().len() as u64 + 1;
        let big = vec![b'x'; MAX_FILE_BYTES as usize];
        std::fs::write(&path, [&big[..], b"\n"].concat()).unwrap();
        assert!(append_live(&path, &live(3, true)).unwrap());
        assert!(std::fs::metadata(&path).unwrap().len() < MAX_FILE_BYTES / 2 + line, "the newer half is kept");
        assert_eq!(read_live(&path), vec![live(3, true)]);
    }
}
