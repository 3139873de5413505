//! Configuration: defaults in code, environment variable names as consts,
//! read once into a `Plan` by the CLI.

use chrono_tz::Tz;
use std::path::{Path, PathBuf};

/// Claude Code's config directory (may hold a comma-separated list).
pub const ENV_CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// Where cachewise keeps its tables.
pub const ENV_DATA_DIR: &str = "CACHEWISE_DATA_DIR";
/// The terminal's width in characters (set by shells; tables fit it).
pub const ENV_COLUMNS: &str = "COLUMNS";

/// The width terminal tables fit: `COLUMNS` when it is a number (at least
/// 20), else the terminal's width when stdout is one, else none (a pipe
/// or file gets every column).
pub fn table_width(env: Option<&str>) -> Option<usize> {
    match env.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(w) => Some(w.max(20)),
        None => comfy_table::Table::new().width().map(usize::from),
    }
}

/// Parses a day of the week (`monday`, `mon`, ... any case).
pub fn parse_weekday(s: &str) -> Result<chrono::Weekday, String> {
    s.trim().parse::<chrono::Weekday>().map_err(|_| format!("invalid day {s:?}: use monday, tuesday, ... sunday"))
}

/// Transcript roots: `--claude-dir` flags, else `CLAUDE_CONFIG_DIR` (comma
/// separated), else `~/.config/claude` and `~/.claude`.
pub fn roots(flags: &[PathBuf], env: Option<&str>, home: Option<&Path>) -> Vec<PathBuf> {
    if !flags.is_empty() {
        return flags.to_vec();
    }
    if let Some(v) = env.filter(|v| !v.trim().is_empty()) {
        return v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(PathBuf::from).collect();
    }
    match home {
        Some(h) => vec![h.join(".config/claude"), h.join(".claude")],
        None => Vec::new(),
    }
}

/// The data directory: `--data-dir`, else `CACHEWISE_DATA_DIR`, else the
/// XDG data directory's `cachewise/`.
pub fn data_dir(flag: Option<&Path>, env: Option<&str>) -> PathBuf {
    if let Some(f) = flag {
        return f.to_path_buf();
    }
    if let Some(e) = env.filter(|e| !e.is_empty()) {
        return PathBuf::from(e);
    }
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("cachewise")
}

/// Parses an IANA zone name; `None` means the machine's local zone (UTC
/// when it cannot be determined).
pub fn time_zone(name: Option<&str>) -> Result<Tz, String> {
    let name = match name {
        Some(n) => n.to_owned(),
        None => iana_time_zone::get_timezone().unwrap_or_else(|_| "UTC".to_owned()),
    };
    name.parse::<Tz>()
        .map_err(|_| format!("unknown time zone {name:?} (use an IANA name such as Europe/Berlin or UTC)"))
}

/// Parses a day given as `YYYY-MM-DD` or `YYYYMMDD` (CLI flags and web
/// query parameters alike).
pub fn parse_date(s: &str) -> Result<chrono::NaiveDate, String> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .or_else(|_| chrono::NaiveDate::parse_from_str(s, "%Y%m%d"))
        .map_err(|_| format!("invalid date {s:?}: use YYYY-MM-DD"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_precedence() {
        let home = Path::new("/h");
        assert_eq!(roots(&[PathBuf::from("/x")], Some("/e"), Some(home)), vec![PathBuf::from("/x")]);
        assert_eq!(roots(&[], Some("/a, /b"), Some(home)), vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(roots(&[], None, Some(home)), vec![PathBuf::from("/h/.config/claude"), PathBuf::from("/h/.claude")]);
    }

    #[test]
    fn zones() {
        assert_eq!(time_zone(Some("UTC")), Ok(Tz::UTC));
        assert!(time_zone(Some("Mars/Olympus")).unwrap_err().contains("Mars/Olympus"));
    }
}
