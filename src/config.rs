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

/// A day of the week in words (`Sunday`), as pages say it.
pub fn weekday_name(d: chrono::Weekday) -> &'static str {
    use chrono::Weekday::*;
    match d {
        Mon => "Monday",
        Tue => "Tuesday",
        Wed => "Wednesday",
        Thu => "Thursday",
        Fri => "Friday",
        Sat => "Saturday",
        Sun => "Sunday",
    }
}

/// Transcript roots: `--claude-dir` flags, else `CLAUDE_CONFIG_DIR` (comma
/// separated), else `~/.config/claude` and `~/.claude`; each absolute.
pub fn roots(flags: &[PathBuf], env: Option<&str>, home: Option<&Path>) -> Vec<PathBuf> {
    // Absolute, so `./claude` and `claude` name the store's files alike and
    // a relative root spelled another way reads nothing again.
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    if !flags.is_empty() {
        return flags.iter().cloned().map(absolute).collect();
    }
    if let Some(v) = env.filter(|v| !v.trim().is_empty()) {
        return v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(PathBuf::from).map(absolute).collect();
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
    use chrono::format::ParseErrorKind::OutOfRange;
    let format = if s.contains('-') { "%Y-%m-%d" } else { "%Y%m%d" };
    let parsed = chrono::NaiveDate::parse_from_str(s, format);
    parsed.map_err(|e| match e.kind() {
        OutOfRange => format!("{s:?} is no day of the calendar (a month 1-12, a day the month has)"),
        _ => format!("invalid date {s:?}: use YYYY-MM-DD or YYYYMMDD, e.g. 2026-11-30"),
    })
}

/// Claude Code's settings file in its config directory.
pub const CLAUDE_SETTINGS_FILE: &str = "settings.json";
/// A settings file larger than this is not read.
pub const MAX_SETTINGS_BYTES: u64 = 1 << 20;
/// `cleanupPeriodDays` when unset: Claude Code deletes transcripts older
/// than this many days.
pub const DEFAULT_CLEANUP_DAYS: u64 = 30;

/// What cachewise reads of Claude Code's `settings.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudeSettings {
    /// `cleanupPeriodDays` as written (None: unset, or unreadable).
    pub cleanup_period_days: Option<u64>,
    /// Why the file could not be used, for a warning (never a failure).
    pub warning: Option<String>,
}

impl ClaudeSettings {
    /// The days Claude Code keeps transcripts (30 when unset).
    pub fn cleanup_days(&self) -> u64 {
        self.cleanup_period_days.unwrap_or(DEFAULT_CLEANUP_DAYS)
    }
}

/// Reads `settings.json` of the first of `roots` (Claude Code's config
/// directories, `CLAUDE_CONFIG_DIR` honoured by `roots`) that has one: at
/// most `MAX_SETTINGS_BYTES`; bad JSON or a bad value is a warning.
pub fn claude_settings(roots: &[PathBuf]) -> ClaudeSettings {
    use std::io::Read;
    let Some(path) = roots.iter().map(|r| r.join(CLAUDE_SETTINGS_FILE)).find(|p| p.is_file()) else {
        return ClaudeSettings::default();
    };
    let shown: String = path.display().to_string().chars().filter(|c| !crate::model::is_unsafe(*c)).collect();
    let warn = |why: &str| ClaudeSettings { cleanup_period_days: None, warning: Some(format!("{shown}: {why}")) };
    let mut bytes = Vec::new();
    let read =
        crate::store::files::open_regular(&path).and_then(|f| f.take(MAX_SETTINGS_BYTES + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return warn(&format!("cannot be read ({e})"));
    }
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return warn("larger than 1 MiB, not read");
    }
    parse_settings(&bytes).unwrap_or_else(|why| warn(&why))
}

/// `cleanupPeriodDays` of a settings file's bytes.
fn parse_settings(bytes: &[u8]) -> Result<ClaudeSettings, String> {
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON ({e})"))?;
    let days = match v.get("cleanupPeriodDays") {
        None | Some(serde_json::Value::Null) => None,
        Some(d) => Some(
            d.as_f64()
                .filter(|d| d.is_finite() && *d >= 0.0)
                .map(|d| d.floor().min(1e9) as u64)
                .ok_or("cleanupPeriodDays is not a number of days")?,
        ),
    };
    Ok(ClaudeSettings { cleanup_period_days: days, warning: None })
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
    fn cleanup_period_days_read_unset_zero_seven_and_bad() {
        let dir = tempfile::tempdir().unwrap();
        let roots = vec![dir.path().join("none"), dir.path().to_path_buf()];
        assert_eq!(claude_settings(&roots), ClaudeSettings::default());
        assert_eq!(claude_settings(&roots).cleanup_days(), 30);
        let write = |s: &str| std::fs::write(dir.path().join(CLAUDE_SETTINGS_FILE), s).unwrap();
        write(r#"{"model": "opus"}"#);
        assert_eq!(claude_settings(&roots).cleanup_days(), 30);
        write(r#"{"cleanupPeriodDays": 0}"#);
        assert_eq!(claude_settings(&roots).cleanup_period_days, Some(0));
        write(r#"{"cleanupPeriodDays": 7, "hooks": {}}"#);
        assert_eq!(claude_settings(&roots).cleanup_days(), 7);
        write("{not json");
        let bad = claude_settings(&roots);
        assert_eq!(bad.cleanup_days(), 30);
        assert!(bad.warning.unwrap().contains("not valid JSON"));
        write(r#"{"cleanupPeriodDays": "soon"}"#);
        assert!(claude_settings(&roots).warning.unwrap().contains("not a number"));
        write(&" ".repeat(2 << 20));
        assert!(claude_settings(&roots).warning.unwrap().contains("larger than 1 MiB"));
    }

    #[test]
    fn zones() {
        assert_eq!(time_zone(Some("UTC")), Ok(Tz::UTC));
        assert!(time_zone(Some("Mars/Olympus")).unwrap_err().contains("Mars/Olympus"));
    }
}
