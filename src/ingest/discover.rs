//! Discovery: transcript roots -> the `*.jsonl` files under `<root>/projects/`,
//! with the project and session each file belongs to. Hands `SourceFile`s to
//! the planner; reads no file content. A symbolic link to a transcript or a
//! folder is followed once: a link inside a folder reached through a link
//! is not (so no loop is walked), and says so; only regular files are ever
//! listed, never a device or a pipe.

use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// One transcript file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    /// Project directory name (first component under `projects/`).
    pub project: String,
    /// Session the file belongs to, from its path: the `<session>` directory
    /// for nested sub-agent files, the file stem for main sessions. `None` for
    /// legacy sibling `agent-*.jsonl` files, whose lines name their session.
    pub session: Option<String>,
    /// `Some(id)` when the file holds one sub-agent (`agent-<id>.jsonl`).
    pub agent: Option<String>,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
}

/// What discovery found: files, and the roots that were not there.
#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<SourceFile>,
    pub missing_roots: Vec<PathBuf>,
    /// Roots whose `projects/` directory exists.
    pub found_roots: Vec<PathBuf>,
}

/// Finds every `*.jsonl` file under `<root>/projects/` at any depth, sorted by
/// path. A root without `projects/` is listed in `missing_roots`.
pub fn discover(roots: &[PathBuf]) -> Discovery {
    let mut out = Discovery::default();
    for root in roots {
        let projects = root.join("projects");
        if !projects.is_dir() {
            out.missing_roots.push(root.clone());
            continue;
        }
        out.found_roots.push(root.clone());
        out.files.extend(walk(&projects, &projects, false));
    }
    out.files.sort_by(|a, b| path_order(&a.path, &b.path));
    out.files.dedup_by(|a, b| a.path.as_os_str() == b.path.as_os_str());
    out
}

/// `Path::cmp` for the paths the walk makes (joined names, no `.`, no
/// doubled separator), byte by byte: a separator sorts before any other
/// byte, as a shorter component before a longer one it begins. Comparing
/// components parsed each path again and was most of a warm run's sort.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (x, y) = (a.as_os_str().as_encoded_bytes(), b.as_os_str().as_encoded_bytes());
    let same = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    let rank = |c: u8| if std::path::is_separator(char::from(c)) { 0 } else { u16::from(c) + 1 };
    match (x.get(same), y.get(same)) {
        (Some(p), Some(q)) => rank(*p).cmp(&rank(*q)),
        _ => x.len().cmp(&y.len()),
    }
}

/// The transcripts under `dir`, at any depth. One directory per task, on
/// every core: a project's session directories (each holding its
/// sub-agents) are most of the directories, and one project can hold most
/// of the sessions.
fn walk(projects: &Path, dir: &Path, linked: bool) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let dirs = list(projects, dir, linked, &mut files);
    let nested: Vec<Vec<SourceFile>> = dirs.par_iter().map(|(d, link)| walk(projects, d, *link)).collect();
    files.extend(nested.into_iter().flatten());
    files
}

/// Adds the transcripts directly in `dir` to `files` and returns its
/// subdirectories, each with whether it is reached through a link (`dir`
/// is when `linked`). An entry's type comes from the listing, so only
/// `*.jsonl` files and links are stat'ed.
fn list(projects: &Path, dir: &Path, linked: bool, files: &mut Vec<SourceFile>) -> Vec<(PathBuf, bool)> {
    let Ok(entries) = fs::read_dir(dir) else {
        tracing::warn!("cannot list {}", dir.display());
        return Vec::new();
    };
    let mut dirs = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        let path = entry.path();
        let jsonl = path.extension().is_some_and(|e| e == "jsonl");
        if kind.is_dir() {
            dirs.push((path, linked));
        } else if kind.is_file() && jsonl {
            if let Some(f) = entry.metadata().ok().and_then(|meta| describe(projects, path, &meta)) {
                files.push(f);
            }
        } else if kind.is_symlink() {
            match fs::metadata(&path) {
                Ok(m) if m.is_dir() && !linked => dirs.push((path, true)),
                Ok(m) if m.is_dir() => {
                    tracing::warn!("not following {}: a link inside a folder reached through a link", path.display());
                }
                Ok(m) if m.is_file() && jsonl => files.extend(describe(projects, path, &m)),
                _ => {}
            }
        }
    }
    dirs
}

fn describe(projects: &Path, path: PathBuf, meta: &fs::Metadata) -> Option<SourceFile> {
    let rel = path.strip_prefix(projects).ok()?;
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let agent = stem.strip_prefix("agent-").map(str::to_owned);
    let (project, session) = match parts.as_slice() {
        [file] => (String::new(), session_of_top_level(file, &stem)),
        [project, file] => (project.clone(), session_of_top_level(file, &stem)),
        [project, session, ..] => (project.clone(), Some(session.clone())),
        [] => return None,
    };
    let mtime_ns =
        meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i128);
    Some(SourceFile { path, project, session, agent, size: meta.len(), mtime_ns })
}

fn session_of_top_level(_file: &str, stem: &str) -> Option<String> {
    if stem.starts_with("agent-") {
        None
    } else {
        Some(stem.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The byte order is `Path::cmp`'s for joined names.
        #[test]
        fn path_order_is_paths_order(
            a in proptest::collection::vec("[a-c./_-]{1,3}", 1..4),
            b in proptest::collection::vec("[a-c./_-]{1,3}", 1..4),
        ) {
            let join = |parts: &[String]| {
                parts.iter().filter(|p| !p.contains('/') && *p != "." && *p != "..")
                    .fold(PathBuf::from("/r/projects"), |acc, p| acc.join(p))
            };
            let (a, b) = (join(&a), join(&b));
            prop_assert_eq!(path_order(&a, &b), a.cmp(&b), "{:?} {:?}", a, b);
        }
    }

    #[test]
    fn finds_all_layouts_and_reports_missing_roots() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("projects");
        let proj = p.join("-home-a-app");
        fs::create_dir_all(proj.join("s1/subagents/workflows/run1")).unwrap();
        fs::write(proj.join("s1.jsonl"), "{}\n").unwrap();
        fs::write(proj.join("s1/subagents/agent-a1.jsonl"), "").unwrap();
        fs::write(proj.join("s1/subagents/agent-acompact-ff.jsonl"), "").unwrap();
        fs::write(proj.join("s1/subagents/workflows/run1/agent-w.jsonl"), "").unwrap();
        fs::write(proj.join("agent-6e067db7.jsonl"), "").unwrap();
        fs::write(proj.join("notes.txt"), "").unwrap();
        fs::create_dir_all(proj.join("dir.jsonl")).unwrap();
        let missing = dir.path().join("nope");
        let d = discover(&[dir.path().to_path_buf(), missing.clone()]);
        assert_eq!(d.missing_roots, vec![missing]);
        let got: Vec<(String, Option<String>, Option<String>)> = d
            .files
            .iter()
            .map(|f| (f.path.file_name().unwrap().to_string_lossy().into_owned(), f.session.clone(), f.agent.clone()))
            .collect();
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(got.contains(&("s1.jsonl".into(), Some("s1".into()), None)));
        assert!(got.contains(&("agent-a1.jsonl".into(), Some("s1".into()), Some("a1".into()))));
        assert!(got.contains(&("agent-acompact-ff.jsonl".into(), Some("s1".into()), Some("acompact-ff".into()))));
        assert!(got.contains(&("agent-w.jsonl".into(), Some("s1".into()), Some("w".into()))));
        assert!(got.contains(&("agent-6e067db7.jsonl".into(), None, Some("6e067db7".into()))));
        assert!(d.files.iter().all(|f| f.project == "-home-a-app"));
    }

    #[test]
    fn links_are_followed_once_and_pipes_never_listed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(elsewhere.join("inner")).unwrap();
        fs::write(elsewhere.join("s2.jsonl"), "{}\n").unwrap();
        fs::write(elsewhere.join("one.jsonl"), "{}\n").unwrap();
        let p = dir.path().join("projects");
        let proj = p.join("-home-a-app");
        fs::create_dir_all(&proj).unwrap();
        // A linked project folder, a linked transcript, a link that loops.
        symlink(&elsewhere, p.join("-linked")).unwrap();
        symlink(elsewhere.join("one.jsonl"), proj.join("s1.jsonl")).unwrap();
        symlink(&p, elsewhere.join("inner/loop")).unwrap();
        let fifo = proj.join("pipe.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let d = discover(&[dir.path().to_path_buf()]);
        let mut got: Vec<String> =
            d.files.iter().map(|f| f.path.strip_prefix(&p).unwrap().display().to_string()).collect();
        got.sort();
        assert_eq!(got, ["-home-a-app/s1.jsonl", "-linked/one.jsonl", "-linked/s2.jsonl"]);
    }
}
