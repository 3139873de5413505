//! Bundle files on disk, as a user names them: what `import` reads and
//! where `export --out` writes. A named path may be anything (a symbolic
//! link to `/dev/zero`, a FIFO, a device node, a directory), so:
//! - reading, the path must be a regular file once links are followed, and
//!   no larger than `file_limit` of the bundle caps, both checked before a
//!   byte is read (and again on the opened file, which is opened without
//!   blocking so a FIFO swapped in meanwhile cannot hang the import);
//! - writing, `-` is stdout; a path that does not exist is created; a
//!   regular file is replaced atomically; a symbolic link is followed and
//!   its regular-file target replaced, the link kept (a dangling link is
//!   refused); anything else (a device node, a FIFO, a directory) is
//!   refused, so no run replaces a device node or a link it was pointed at.
//!   A failed write (ENOSPC) is an error naming the path.

use super::export::write_atomic;
use super::limits::BundleLimits;
use super::TeamError;
use std::fs::{self, File, Metadata};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Room for a bundle file's page headers and footer beyond its pages.
const FILE_OVERHEAD: u64 = 16 << 20;

/// The largest bundle file read: pages never compress to more than twice
/// what they hold, plus the headers and footer. A larger file is refused
/// before it is read.
pub fn file_limit(limits: &BundleLimits) -> u64 {
    limits.decompressed.saturating_mul(2).saturating_add(FILE_OVERHEAD)
}

/// What a path that is not a regular file is, in words.
fn kind(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn not_a_file(path: &Path, meta: &Metadata) -> TeamError {
    TeamError::NotAFile { path: path.to_path_buf(), kind: kind(meta) }
}

/// Opens `path` for reading without waiting for a writer (a FIFO).
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The bytes of the bundle file `path`: a regular file (after following
/// links) of at most `file_limit(limits)` bytes.
pub fn read(path: &Path, limits: &BundleLimits) -> Result<Vec<u8>, TeamError> {
    let io = |source| TeamError::Io { path: path.to_path_buf(), source };
    let limit = file_limit(limits);
    let checked = |meta: &Metadata| {
        if !meta.is_file() {
            return Err(not_a_file(path, meta));
        }
        if meta.len() > limit {
            return Err(TeamError::FileTooLarge { path: path.to_path_buf(), size: meta.len(), limit });
        }
        Ok(meta.len())
    };
    checked(&fs::metadata(path).map_err(io)?)?;
    let file = open_nonblocking(path).map_err(io)?;
    let size = checked(&file.metadata().map_err(io)?)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(TeamError::FileTooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// Where `export --out` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Stdout,
    /// The regular file written (a link's target when `--out` was a link).
    File(PathBuf),
}

/// The path `--out` stands for, `-` for stdout.
pub const STDOUT: &str = "-";

/// The regular file that writing `path` replaces or creates.
fn target(path: &Path) -> Result<PathBuf, TeamError> {
    let io = |source| TeamError::Io { path: path.to_path_buf(), source };
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(io(e)),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if !meta.file_type().is_symlink() {
        return Err(not_a_file(path, &meta));
    }
    let resolved = fs::canonicalize(path).map_err(|_| TeamError::DanglingLink { path: path.to_path_buf() })?;
    let meta = fs::metadata(&resolved).map_err(io)?;
    if !meta.is_file() {
        return Err(not_a_file(path, &meta));
    }
    Ok(resolved)
}

/// Writes `bytes` to `path` (`-`: stdout), as the module says.
pub fn write(path: &Path, bytes: &[u8]) -> Result<Written, TeamError> {
    if path.as_os_str() == STDOUT {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush()).map_err(|source| TeamError::Stdout { source })?;
        return Ok(Written::Stdout);
    }
    let target = target(path)?;
    write_atomic(&target, bytes)?;
    Ok(Written::File(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_limit_leaves_room_for_headers() {
        let limits = BundleLimits { rows: 1, decompressed: 1000, ..BundleLimits::default() };
        assert_eq!(file_limit(&limits), 2000 + FILE_OVERHEAD);
        assert_eq!(file_limit(&BundleLimits { rows: 1, decompressed: u64::MAX, ..BundleLimits::default() }), u64::MAX);
    }

    #[test]
    fn a_new_path_and_a_regular_file_are_their_own_target() {
        let tmp = tempfile::tempdir().unwrap();
        let new = tmp.path().join("new.parquet");
        assert_eq!(target(&new).unwrap(), new);
        fs::write(&new, b"x").unwrap();
        assert_eq!(target(&new).unwrap(), new);
        assert!(matches!(target(tmp.path()), Err(TeamError::NotAFile { kind: "a directory", .. })));
    }
}
