//! Files that are not what they seem, named to `import` and `export --out`
//!: import refuses anything but a regular file
//! (after following links) before reading it, and a file over the size cap;
//! export writes through a link to its regular-file target, refuses device
//! nodes, FIFOs, directories and dangling links, writes `-` to stdout, and
//! reports a failed write. No run replaces a device node or a link.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cachewise_in as cachewise;
use common::{write, Resp};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cachewise ARGS --data-dir DATA`, killed (and the test failed)
/// after 30 s: a read that waits on a FIFO must not hang the suite.
fn bounded(data: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(common::bin())
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CACHEWISE_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("cachewise {args:?} still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A one-session tree and its data directory, ingested.
fn person(tmp: &Path) -> (PathBuf, PathBuf) {
    let (root, data) = (tmp.join("claude"), tmp.join("data"));
    write(&root, "-home-u-app/s1.jsonl", &Resp::new("s1", 1, 0).to_lines());
    assert!(cachewise(Some(&root), &data, &["ingest"]).status.success());
    (root, data)
}

fn export(root: &Path, data: &Path, out: &Path) -> Output {
    cachewise(Some(root), data, &["export", "--user", "alice", "--out", out.to_str().unwrap()])
}

fn is_char_device(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

/// Makes a character device node like /dev/full at `path`, or says why not.
fn mknod_full(path: &Path) -> Result<(), String> {
    let o = Command::new("mknod").arg(path).args(["c", "1", "7"]).output().map_err(|e| format!("no mknod: {e}"))?;
    if o.status.success() && is_char_device(path) {
        Ok(())
    } else {
        Err(format!("mknod failed: {}", String::from_utf8_lossy(&o.stderr).trim()))
    }
}

#[test]
fn import_refuses_a_link_to_dev_zero_and_a_fifo_before_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let zero = tmp.path().join("zero.parquet");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let o = bounded(&team, &["import", zero.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains(&format!("{}: a character device, not a regular file", zero.display())), "{}", err(&o));
    let fifo = tmp.path().join("pipe.parquet");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let o = bounded(&team, &["import", fifo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains(&format!("{}: a FIFO (named pipe), not a regular file", fifo.display())), "{}", err(&o));
    assert!(!team.join("requests.parquet").exists(), "nothing imported");
}

#[test]
fn import_refuses_a_file_over_the_size_cap_before_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join("team");
    let big = tmp.path().join("big.parquet");
    // Sparse: 40 MiB of nothing on disk. The cap with --max-bundle-bytes 1000
    // is 2 x 1000 + 16 MiB.
    std::fs::File::create(&big).unwrap().set_len(40 << 20).unwrap();
    let o = bounded(&team, &["import", "--max-bundle-bytes", "1000", big.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let want =
        format!("{}: 41943040 bytes, over the limit of {} bytes for a bundle file", big.display(), 2000 + (16 << 20));
    assert!(err(&o).contains(&want), "{}", err(&o));
}

#[test]
fn export_out_writes_through_a_link_and_never_replaces_a_device_or_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = person(tmp.path());
    // A link to a regular file: the target gets the bundle, the link stays.
    let target = tmp.path().join("real.parquet");
    std::fs::write(&target, b"old").unwrap();
    let link = tmp.path().join("link.parquet");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = export(&root, &data, &link);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
    assert!(std::fs::read(&target).unwrap().starts_with(b"PAR1"), "the target holds the bundle");
    assert!(String::from_utf8_lossy(&o.stdout).contains("(the target of "), "{}", String::from_utf8_lossy(&o.stdout));
    // A dangling link and a directory: refused, left as they were.
    let dangling = tmp.path().join("dangling.parquet");
    std::os::unix::fs::symlink(tmp.path().join("nowhere/x"), &dangling).unwrap();
    let o = export(&root, &data, &dangling);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("a symbolic link to a file that does not exist"), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    let o = export(&root, &data, tmp.path());
    assert!(err(&o).contains("a directory, not a regular file"), "{}", err(&o));
    // A link to /dev/full: refused, the link kept, /dev/full untouched.
    let to_full = tmp.path().join("full.parquet");
    std::os::unix::fs::symlink("/dev/full", &to_full).unwrap();
    let o = export(&root, &data, &to_full);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains(&format!("{}: a character device, not a regular file", to_full.display())), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&to_full).unwrap().file_type().is_symlink(), "the link is kept");
    assert!(is_char_device(Path::new("/dev/full")));
    // A device node: refused and kept (as root, a rename would replace it).
    let node = tmp.path().join("node");
    match mknod_full(&node) {
        Err(why) => println!("skipped the device-node checks: {why}"),
        Ok(()) => {
            let o = export(&root, &data, &node);
            assert_eq!(o.status.code(), Some(1));
            assert!(err(&o).contains("a character device, not a regular file"), "{}", err(&o));
            assert!(is_char_device(&node), "the device node is still a device node");
            // Only now that a node in a temporary directory is known to be
            // kept is the machine's own /dev/full named.
            let o = export(&root, &data, Path::new("/dev/full"));
            assert!(err(&o).contains("/dev/full: a character device, not a regular file"), "{}", err(&o));
            assert!(is_char_device(Path::new("/dev/full")), "/dev/full is still a device node");
        }
    }
}

#[test]
fn export_out_dash_writes_stdout_and_reports_a_failed_write() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = person(tmp.path());
    let o = cachewise(Some(&root), &data, &["export", "--user", "alice", "--out", "-"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(o.stdout.starts_with(b"PAR1") && o.stdout.ends_with(b"PAR1"), "the bundle alone on stdout");
    let b = cachewise::team::read_bundle(&o.stdout, "stdout").unwrap();
    assert_eq!(b.requests.len(), 1);
    assert!(err(&o).contains("wrote 1 request and 0 compactions of alice@"), "{}", err(&o));
    assert!(err(&o).contains(" to stdout"), "{}", err(&o));
    // stdout on /dev/full: ENOSPC is an error, not a success.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(common::bin())
        .args(["export", "--user", "alice", "--out", "-", "--no-ingest", "--data-dir"])
        .arg(&data)
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("cannot write the bundle to stdout: No space left on device"), "{}", err(&o));
}
