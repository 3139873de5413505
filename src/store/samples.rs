//! The plan-limit samples file of a data directory
//! (`statusline/rate_limits.jsonl`, `files::rate_limits`): one JSON object
//! per line, a line appended only when a figure changed, read back
//! bounded (the last `MAX_TABLE_BYTES`, unreadable lines skipped). The
//! status line appends; views read it through a `StoreView`.

use crate::model::limits::Sample;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Largest samples file read (the oldest samples beyond it are ignored).
const MAX_TABLE_BYTES: u64 = 8 << 20;

/// Appends `s` unless the last sample holds the same figures; true when
/// written. One `write` of one line to a file opened for appending.
pub fn append(path: &Path, s: &Sample) -> std::io::Result<bool> {
    if s.five_hour.is_none() && s.seven_day.is_none() {
        return Ok(false);
    }
    if let Some(last) = last_sample(path) {
        if last.five_hour == s.five_hour && last.seven_day == s.seven_day {
            return Ok(false);
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_vec(s).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(&line)?;
    Ok(true)
}

fn last_sample(path: &Path) -> Option<Sample> {
    let mut f = std::fs::File::open(path).ok()?;
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
    let Ok(mut f) = std::fs::File::open(path) else { return Vec::new() };
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
    use crate::model::limits::Window;
    use chrono::{DateTime, Duration, TimeZone, Utc};

    fn t(min: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap() + Duration::minutes(min)
    }

    fn sample(min: i64, pct: f64, reset: i64) -> Sample {
        let w = Window { used_pct: pct, resets_at: Some(reset) };
        Sample { time: t(min), session_id: "s".into(), five_hour: Some(w), seven_day: None }
    }

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
}
