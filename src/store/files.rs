//! Every file name of a data directory, defined once. The tables are
//! `Table::file_name`; beside them: the manifest, the writers' lock, a
//! team directory's ledger of imported bundles, the key of `--hash-paths`,
//! the push client's acknowledged rows, the OTLP export's watermark, and the status line's files (its
//! plan-limit samples, its per-transcript state and its cached store
//! figures). Functions take the directory so that callers that have no
//! `Store` open yet (the status line) name the same files.

use std::path::{Path, PathBuf};

/// The ingest manifest (`store::manifest`).
pub const MANIFEST: &str = "manifest.json";
/// The lock one writer at a time holds.
pub const LOCK: &str = ".lock";
/// A team directory's ledger of imported bundles (its presence makes the
/// directory a team directory).
pub const LEDGER: &str = "team-bundles.json";
/// The per-directory key of `export --hash-paths`.
pub const HASH_KEY: &str = "hash-key";
/// The push client's acknowledged rows, one file per server.
pub const PUSH_SENT: &str = "push-sent";
/// `export --otlp`'s accepted rows, one file per collector.
const OTLP_SENT: &str = "otlp-sent";
/// The status line's files.
const STATUSLINE: &str = "statusline";
/// Files of older layouts, removed by the next write of the tables: every
/// candidate row (store schema 2), the requests base's key hashes.
pub const OBSOLETE: [&str; 2] = ["lines.parquet", "requests-keys.bin"];
/// How the temporary files and directories of a write begin (`tempfile`'s
/// own `.tmp`, a team import's and the analysis's staging directories).
const TEMPORARY: [&str; 3] = [".tmp", ".import-", ".analysis-"];
/// A temporary file this old belongs to no running write: its run was killed.
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Whether an atomic write waits for the disk before its rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sync {
    /// fsync the file, then the directory after the rename: what a power cut
    /// must not lose (tables, the manifest, watermarks, ledgers, bundles).
    Yes,
    /// No fsync: files computed again when lost (the status line's files,
    /// where a few milliseconds per call matter; the analysis parts) and a
    /// scratch store's, thrown away after the import.
    No,
}

/// The one atomic write of the data directory and of what cachewise writes
/// elsewhere: `body` writes a temporary file beside `path` (its directory
/// made first), which replaces `path` by a rename, so a reader sees the old
/// file or the new one, never a part. `body`'s error comes back as it is.
pub fn replace_with<E: From<std::io::Error>>(
    path: &Path,
    sync: Sync,
    body: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> Result<(), E>,
) -> Result<(), E> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file());
        body(&mut w)?;
        w.flush()?;
    }
    if sync == Sync::Yes {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if let Some(d) = std::fs::File::open(dir).ok().filter(|_| sync == Sync::Yes) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// `replace_with` of `bytes`.
pub fn replace(path: &Path, sync: Sync, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    replace_with(path, sync, |w| w.write_all(bytes))
}

/// Moves what stands at `path` aside when it is there but not a regular
/// file (a directory, a pipe, a link where a table belongs), to
/// `<name>.not-a-table` (or `.not-a-table.N`): where it went.
pub fn set_aside(path: &Path) -> std::io::Result<Option<PathBuf>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => {}
        _ => return Ok(None),
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut free = (0..1000).map(|i| match i {
        0 => path.with_file_name(format!("{name}.not-a-table")),
        i => path.with_file_name(format!("{name}.not-a-table.{i}")),
    });
    let to = free.find(|p| std::fs::symlink_metadata(p).is_err());
    let to = to.ok_or_else(|| std::io::Error::other("no free name to move it aside"))?;
    std::fs::rename(path, &to)?;
    Ok(Some(to))
}

/// A set of 8-byte row keys kept as a file (the push client's and the OTLP
/// export's watermarks): little-endian, sorted; empty when there is no file.
pub fn read_key_set(path: &Path) -> std::io::Result<std::collections::HashSet<u64>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
        Err(e) => Err(e),
    }
}

/// Writes `keys` as `read_key_set` reads them, atomically and synced.
pub fn write_key_set(path: &Path, keys: &std::collections::HashSet<u64>) -> std::io::Result<()> {
    let mut all: Vec<u64> = keys.iter().copied().collect();
    all.sort_unstable();
    let bytes: Vec<u8> = all.iter().flat_map(|k| k.to_le_bytes()).collect();
    replace(path, Sync::Yes, &bytes)
}

/// Removes the temporary files and directories killed runs left in `dir`
/// (older than `LEFTOVER_AGE`); what cannot be removed stays. How many went.
pub fn sweep_leftovers(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let temporary = TEMPORARY.iter().any(|p| name.as_encoded_bytes().starts_with(p.as_bytes()));
        // symlink_metadata: a link is removed, never followed.
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|age| age > LEFTOVER_AGE);
        if !temporary || !old {
            continue;
        }
        let gone = if meta.is_dir() { std::fs::remove_dir_all(e.path()) } else { std::fs::remove_file(e.path()) };
        removed += usize::from(gone.is_ok());
    }
    removed
}

/// The plan-limit samples the status line records (`store::samples`).
pub fn rate_limits(dir: &Path) -> PathBuf {
    dir.join(STATUSLINE).join("rate_limits.jsonl")
}

/// Claude Code's `prompt_cache` readings the status line records beside
/// its own verdict (`store::samples`).
pub fn prompt_cache(dir: &Path) -> PathBuf {
    dir.join(STATUSLINE).join("prompt_cache.jsonl")
}

/// The status line's state of one transcript, named by `key` (a hash of
/// the transcript's path).
pub fn statusline_state(dir: &Path, key: u64) -> PathBuf {
    dir.join(STATUSLINE).join("sessions").join(format!("{key:016x}.json"))
}

/// The status line's cached figures of the store.
pub fn statusline_figures(dir: &Path) -> PathBuf {
    dir.join(STATUSLINE).join("figures.json")
}

/// The watermark of one collector of `export --otlp`, named by `key` (a
/// hash of its URLs), without extension: `.keys` holds the accepted rows,
/// `.lock` the lock of a running export.
pub fn otlp_sent(dir: &Path, key: &str) -> PathBuf {
    dir.join(OTLP_SENT).join(key)
}

/// The manifest of a data directory.
pub fn manifest(dir: &Path) -> PathBuf {
    dir.join(MANIFEST)
}

/// Opens `path` for reading only when it is a regular file: a pipe, a
/// device or a socket where a table, the manifest, a transcript or a
/// settings file is expected would block a read forever or never end
/// (`/dev/zero`). The open itself never waits (`O_NONBLOCK`, which changes
/// nothing for a regular file); anything else is `InvalidInput`.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    match f.metadata()?.is_file() {
        true => Ok(f),
        false => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file")),
    }
}

/// `std::fs::read` of a regular file only (`open_regular`).
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    open_regular(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Marks a path key that is not the path's text (`path_key`).
const ESCAPED: char = '%';

/// A transcript's path as the store names it (the manifest's key, the
/// rows' `source`): its text when it is UTF-8 and does not begin with `%`,
/// else `%` and its bytes, percent-encoded. Two paths never share a key
/// (a lossy text would give two paths that differ in non-UTF-8 bytes one,
/// and each ingest would drop the other's rows); `key_path` is the inverse.
pub fn path_key(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    match path.to_str() {
        Some(text) if !text.starts_with(ESCAPED) => text.to_owned(),
        _ => {
            let bytes = path.as_os_str().as_bytes();
            format!("{ESCAPED}{}", percent_encoding::percent_encode(bytes, percent_encoding::NON_ALPHANUMERIC))
        }
    }
}

/// The path a key names (`path_key`'s inverse).
pub fn key_path(key: &str) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    match key.strip_prefix(ESCAPED) {
        Some(encoded) => {
            let bytes: Vec<u8> = percent_encoding::percent_decode_str(encoded).collect();
            PathBuf::from(std::ffi::OsStr::from_bytes(&bytes))
        }
        None => PathBuf::from(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_runs_old_temporary_files_are_swept_and_a_running_writes_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        let aged = |p: &Path| std::fs::File::open(p).unwrap().set_modified(old).unwrap();
        for name in [".tmpAbC123", "requests.parquet"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
            aged(&dir.path().join(name));
        }
        std::fs::create_dir(dir.path().join(".import-xyz")).unwrap();
        std::fs::write(dir.path().join(".import-xyz/part.parquet"), b"x").unwrap();
        aged(&dir.path().join(".import-xyz"));
        std::fs::write(dir.path().join(".tmpNew456"), b"x").unwrap();
        assert_eq!(sweep_leftovers(dir.path()), 2);
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(left.contains(&"requests.parquet".to_owned()) && left.contains(&".tmpNew456".to_owned()));
    }
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn only_regular_files_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert_eq!(open_regular(&fifo).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
        assert!(read_regular(Path::new("/dev/zero")).is_err());
        assert!(open_regular(dir.path()).is_err(), "a directory");
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read_regular(&dir.path().join("f")).unwrap(), b"x");
    }

    #[test]
    fn paths_that_differ_in_non_utf8_bytes_have_keys_of_their_own() {
        let a = PathBuf::from(std::ffi::OsStr::from_bytes(b"/p/s\xff.jsonl"));
        let b = PathBuf::from(std::ffi::OsStr::from_bytes(b"/p/s\xfe.jsonl"));
        let plain = PathBuf::from("/p/s.jsonl");
        let marked = PathBuf::from("%2Fp.jsonl");
        let keys: Vec<String> = [&a, &b, &plain, &marked].iter().map(|p| path_key(p)).collect();
        assert_eq!(keys[2], "/p/s.jsonl", "a UTF-8 path is its text");
        assert_ne!(keys[0], keys[1]);
        assert_ne!(keys[3], "%2Fp.jsonl", "a text that looks encoded is encoded");
        for (p, k) in [&a, &b, &plain, &marked].iter().zip(&keys) {
            assert_eq!(&key_path(k), *p);
        }
    }
}
