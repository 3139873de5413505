//! Project names in words: a project is stored under the directory name
//! Claude Code gave it (`-home-ana-src-shop`, its starting `cwd` with every
//! character other than a letter or a digit made `-`); people know it by
//! that path. `project_paths` reads each project's `cwd`s from the requests
//! table and picks the one the directory name encodes (else the shortest,
//! the one the others are under); a project whose rows carry no cwd keeps
//! its directory name.

use super::query::Grouping;
use super::usage::UsageRow;
use super::ReportError;
use crate::store::view::StoreView;
use std::collections::HashMap;

/// Claude Code's directory name of a path.
pub fn encoded(path: &str) -> String {
    path.chars().map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' }).collect()
}

/// The path to show for a project among the `cwds` its requests ran in.
pub fn pick<'a>(project: &str, cwds: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let cwds: Vec<&str> = cwds.into_iter().filter(|p| !p.is_empty()).collect();
    cwds.iter().find(|p| encoded(p) == project).or_else(|| cwds.iter().min_by_key(|p| (p.len(), **p))).copied()
}

/// A path as one bounded line: a newline becomes a space (as every table
/// shows one), the characters no terminal or page gets raw go.
fn shown(path: &str) -> String {
    crate::model::one_line(&path.replace('\n', " "), 300)
}

/// Project directory -> the path to show, for every project with a cwd.
pub fn project_paths(view: &StoreView) -> Result<HashMap<String, String>, ReportError> {
    let cwds = view.project_cwds()?;
    Ok(cwds
        .iter()
        .filter_map(|(p, ws)| pick(p, ws.iter().map(String::as_str)).map(|w| (p.clone(), shown(w))))
        .collect())
}

/// Fills `project_path` on the rows of a project or session report (a
/// project row's key is its directory; a session row names its own).
pub fn name_rows(view: &StoreView, grouping: Grouping, rows: &mut [UsageRow]) -> Result<(), ReportError> {
    if !matches!(grouping, Grouping::Project | Grouping::Session) {
        return Ok(());
    }
    let paths = project_paths(view)?;
    for r in rows {
        let dir = if grouping == Grouping::Project { &r.key } else { &r.project };
        r.project_path = paths.get(dir).cloned();
    }
    Ok(())
}

impl UsageRow {
    /// The project as every view names it: its path, else its directory.
    pub fn project_name(&self) -> &str {
        self.project_path.as_deref().unwrap_or(&self.project)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_path_the_directory_encodes() {
        assert_eq!(encoded("/home/ana/src/my.shop"), "-home-ana-src-my-shop");
        let cwds = ["/home/ana/src/shop/web", "/home/ana/src/shop", ""];
        assert_eq!(pick("-home-ana-src-shop", cwds), Some("/home/ana/src/shop"));
        assert_eq!(pick("-elsewhere", ["/b/longer", "/a/x"]), Some("/a/x"));
        assert_eq!(pick("-p", [""]), None);
    }
}
