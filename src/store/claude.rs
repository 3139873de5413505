//! What Claude Code's side says when a view is opened (cache-model §8.3
//! v3): its `cleanupPeriodDays`, which local sessions' main transcripts the
//! store read and that no longer exist, and how many transcripts the store
//! has not read will be deleted within 3 days. Gathered once, at the edge
//! (the CLI's plan, the dashboard's refresh), with the run's clock; a view
//! carries it and reports judge resumability from it without a file.

use super::manifest::Manifest;
use crate::config::ClaudeSettings;
use chrono::{DateTime, TimeDelta, Utc};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Transcripts due for deletion within this long are warned about.
pub const DELETION_WARNING_DAYS: i64 = 3;
/// Transcript files looked at per run at most (a bound on the walk).
const MAX_TRANSCRIPTS: usize = 200_000;

/// Claude Code's settings and transcripts as of a view's opening.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeState {
    pub settings: ClaudeSettings,
    /// Local sessions whose main transcript the store read and that no
    /// longer exists.
    pub deleted: HashSet<String>,
    /// Transcripts under the config directories not fully read by the
    /// store whose cleanup comes within `DELETION_WARNING_DAYS`.
    pub unread_expiring: u64,
}

/// The session a main transcript path names (`<project>/<session>.jsonl`;
/// sub-agent files name none).
fn main_session(path: &Path) -> Option<&str> {
    let stem = path.file_stem()?.to_str()?;
    let parent = path.parent()?.file_name()?.to_str()?;
    (path.extension()? == "jsonl" && !stem.starts_with("agent-") && parent != "subagents").then_some(stem)
}

impl ClaudeState {
    /// Gathers the state at `now`: the settings, whether each main
    /// transcript the manifest names is still there, and a walk of
    /// `roots/projects/*/` for transcripts not yet read. `just_read`: the
    /// transcripts this run's ingest just found and read (every one there
    /// is), so none is unread and the walk (a second listing of the tree)
    /// is skipped, and only a transcript it did not find is `stat`ed.
    pub fn gather(
        manifest: &Manifest,
        roots: &[PathBuf],
        settings: ClaudeSettings,
        now: DateTime<Utc>,
        just_read: Option<&HashSet<String>>,
    ) -> Self {
        let deleted = Self::deleted(manifest, just_read);
        let days = i64::try_from(settings.cleanup_days()).unwrap_or(i64::MAX);
        let keep = TimeDelta::try_days(days).unwrap_or(TimeDelta::MAX);
        let soon = now + TimeDelta::days(DELETION_WARNING_DAYS);
        let mut unread_expiring = 0;
        let unread = if just_read.is_some() { Vec::new() } else { transcripts(roots) };
        for path in unread {
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            let read = path.to_str().and_then(|p| manifest.files.get(p)).is_some_and(|f| f.offset >= meta.len());
            let modified: Option<DateTime<Utc>> = meta.modified().ok().map(DateTime::from);
            let due = modified.and_then(|m| m.checked_add_signed(keep));
            if !read && due.is_some_and(|d| d <= soon) {
                unread_expiring += 1;
            }
        }
        ClaudeState { settings, deleted, unread_expiring }
    }

    /// The local sessions whose main transcript the store read and that no
    /// longer exists (`just_read`: the transcripts an ingest just found,
    /// which are not `stat`ed again). A `stat` per transcript the manifest
    /// names: cheap enough for a dashboard to ask at every refresh.
    pub fn deleted(manifest: &Manifest, just_read: Option<&HashSet<String>>) -> HashSet<String> {
        let mut present: HashSet<String> = HashSet::new();
        let mut gone: HashSet<String> = HashSet::new();
        for path in manifest.files.keys() {
            let p = super::files::key_path(path);
            if let Some(s) = main_session(&p) {
                if just_read.is_some_and(|found| found.contains(path)) || p.is_file() {
                    present.insert(s.to_owned());
                } else {
                    gone.insert(s.to_owned());
                }
            }
        }
        // A session copied under two roots is deleted only when every copy is.
        gone.difference(&present).cloned().collect()
    }

    /// The warnings a summary shows: no transcripts at all, transcripts
    /// about to be deleted unread, a settings file that could not be used.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.settings.cleanup_period_days == Some(0) {
            out.push(
                "Claude Code's cleanupPeriodDays is 0: it writes no transcripts, so there is nothing new to read \
and no session can be resumed."
                    .to_owned(),
            );
        }
        if self.unread_expiring > 0 {
            out.push(format!(
                "{} transcript(s) not yet read will be deleted by Claude Code within {DELETION_WARNING_DAYS} days \
(cleanupPeriodDays {}): run `cachewise ingest` to keep their history.",
                self.unread_expiring,
                self.settings.cleanup_days()
            ));
        }
        if let Some(w) = &self.settings.warning {
            out.push(format!("Claude Code's settings could not be used ({w}); assuming cleanupPeriodDays 30."));
        }
        out
    }
}

/// `<root>/projects/<project>/<session>.jsonl` under each root, bounded.
fn transcripts(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        let Ok(projects) = std::fs::read_dir(root.join("projects")) else { continue };
        for project in projects.flatten() {
            let Ok(files) = std::fs::read_dir(project.path()) else { continue };
            for f in files.flatten() {
                let p = f.path();
                if main_session(&p).is_some() {
                    out.push(p);
                }
                if out.len() >= MAX_TRANSCRIPTS {
                    return out;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::manifest::FileState;

    #[test]
    fn a_transcript_the_ingest_found_is_present_and_one_it_did_not_is_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects").join("p");
        std::fs::create_dir_all(&project).unwrap();
        let on_disk = project.join("s-disk.jsonl");
        std::fs::write(&on_disk, "{}\n").unwrap();
        let path = |s: &str| project.join(format!("{s}.jsonl")).to_string_lossy().into_owned();
        let mut manifest = Manifest::default();
        for s in ["s-found", "s-disk", "s-gone"] {
            manifest.files.insert(path(s), FileState::default());
        }
        let now = Utc::now();
        // The ingest found s-found (believed without a stat, so it need not
        // be on disk here) but not s-disk, which a stat then finds.
        let found: HashSet<String> = [path("s-found")].into_iter().collect();
        let roots = [dir.path().to_path_buf()];
        let state = ClaudeState::gather(&manifest, &roots, ClaudeSettings::default(), now, Some(&found));
        assert_eq!(state.deleted, ["s-gone".to_owned()].into_iter().collect::<HashSet<_>>());
        assert_eq!(state.unread_expiring, 0, "no walk after an ingest that read everything");
        // Without an ingest, every transcript is looked for on disk.
        let state = ClaudeState::gather(&manifest, &roots, ClaudeSettings::default(), now, None);
        let gone: HashSet<String> = ["s-found".to_owned(), "s-gone".to_owned()].into_iter().collect();
        assert_eq!(state.deleted, gone);
    }
}
