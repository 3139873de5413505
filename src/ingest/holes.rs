//! Seeking over a sparse file's holes while the reader reads past a line
//! over the bound (`read::MAX_LINE`). A hole is a range the file system
//! never stored: it reads as zeros, so it holds no newline and belongs to
//! the line being read past. On Linux `lseek(SEEK_DATA)` finds the next
//! stored byte without reading the zeros (`truncate -s 2G` makes a file
//! that is one hole); elsewhere, and on file systems that do not know
//! holes, nothing is skipped and the reader reads through as before.

use std::fs::File;
use std::io;

/// What `skip_hole` found at the file's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Skipped {
    /// The position moved this many bytes forward, over a hole, to stored
    /// data (0: it was at data, or holes are unknown here).
    ToData(u64),
    /// Only a hole follows, this many bytes of it: the position is at the
    /// end of the file.
    ToEnd(u64),
}

/// Moves `f`'s position over the hole it is in, if any.
#[cfg(target_os = "linux")]
pub(super) fn skip_hole(f: &mut File) -> io::Result<Skipped> {
    use rustix::fs::{seek, SeekFrom};
    use std::io::Seek;
    let at = f.stream_position()?;
    match seek(&*f, SeekFrom::Data(at)) {
        Ok(data) => Ok(Skipped::ToData(data.saturating_sub(at))),
        // No stored byte after `at`: the rest of the file is a hole.
        Err(rustix::io::Errno::NXIO) => {
            let end = f.seek(io::SeekFrom::End(0))?;
            Ok(Skipped::ToEnd(end.saturating_sub(at)))
        }
        // A file system without SEEK_DATA: read through. The failed call
        // left the position where it was.
        Err(_) => Ok(Skipped::ToData(0)),
    }
}

/// Holes are not looked for here: the reader reads through them.
#[cfg(not(target_os = "linux"))]
pub fn skip_hole(_: &mut File) -> io::Result<Skipped> {
    Ok(Skipped::ToData(0))
}

/// The length of the hole at `f`'s position (0 at stored data, or where
/// holes are unknown), the position left where it was.
pub(super) fn hole_len(f: &mut File) -> io::Result<u64> {
    use std::io::Seek;
    let n = match skip_hole(f)? {
        Skipped::ToData(n) | Skipped::ToEnd(n) => n,
    };
    if n > 0 {
        f.seek(io::SeekFrom::Current(-i64::try_from(n).unwrap_or(i64::MAX)))?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom, Write};

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_hole_is_skipped_to_the_data_after_it_and_a_final_hole_to_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut f =
            File::options().read(true).write(true).create(true).truncate(true).open(dir.path().join("s")).unwrap();
        // 1 MiB of hole, a line, then a hole to 3 MiB.
        f.seek(SeekFrom::Start(MIB)).unwrap();
        f.write_all(b"{\"x\":1}\n").unwrap();
        f.set_len(3 * MIB).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        match skip_hole(&mut f).unwrap() {
            Skipped::ToData(0) => return, // holes unknown here: read through
            Skipped::ToData(n) => assert!(n <= MIB, "{n}"),
            other => panic!("{other:?}"),
        }
        let at = f.stream_position().unwrap();
        let mut block = vec![0; (MIB - at + 8) as usize];
        f.read_exact(&mut block).unwrap();
        assert!(block.ends_with(b"{\"x\":1}\n"), "the data starts where the skip stopped");
        assert_eq!(skip_hole(&mut f).unwrap(), Skipped::ToData(0), "at data, no move");
        f.seek(SeekFrom::Start(2 * MIB)).unwrap();
        assert_eq!(hole_len(&mut f).unwrap(), MIB, "the last hole's length");
        assert_eq!(f.stream_position().unwrap(), 2 * MIB, "measured without moving");
        assert_eq!(skip_hole(&mut f).unwrap(), Skipped::ToEnd(MIB), "the last hole, to the end");
        assert_eq!(f.stream_position().unwrap(), 3 * MIB);
        assert_eq!(skip_hole(&mut f).unwrap(), Skipped::ToEnd(0), "at the end");
    }
}
