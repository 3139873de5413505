//! Threads of old inline sub-agents. Claude Code before agent files wrote a
//! sub-agent's lines into the session file, flagged `isSidechain` and linked
//! by `parentUuid`; such a thread is named by the uuid of its root line (the
//! first sidechain line whose parent is not one). `Links` maps each recent
//! sidechain line to its root as the lines are read, so naming a line never
//! walks the chain. It is kept across the chunks of one read and, through
//! the manifest (`FileState::sidechains`), across appends, so where a chunk
//! or an append boundary fell never changes a thread. A window of the last
//! `WINDOW` sidechain lines bounds it; the window is the same whichever way
//! the file was split, so the result is too.

use crate::store::manifest::fingerprint;
use foldhash::HashMap;
use std::collections::VecDeque;

/// Sidechain lines remembered. In the real corpus every sidechain line's
/// parent is the sidechain line just before it (798 of 798 links), so 64 is
/// ample for interleaved sub-agents, and a hostile file cannot grow the
/// manifest: at most 64 links of ~30 bytes per file.
pub const WINDOW: usize = 64;

/// How much of a root's uuid names its thread (`sc-` + this many characters).
const ROOT_CHARS: usize = 8;

/// The recent sidechain lines of one file (by a fingerprint of their uuid,
/// to keep the manifest small) and the roots of their threads; and, carried
/// the same way, the file's last calls whose replies may still come
/// (`parse::client`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Links {
    order: VecDeque<u64>,
    root: HashMap<u64, String>,
    /// Claude Code's records of the file's last calls (2.1.33x), oldest
    /// first: (`api-request` id, `querySource`, `shapeHash`).
    pub calls: Vec<CarriedCall>,
}

/// One call's record carried from one read of a file to the next.
pub type CarriedCall = (String, String, String);

fn id(uuid: &str) -> u64 {
    fingerprint(uuid.as_bytes())
}

impl Links {
    /// Restores the links a manifest kept, oldest first.
    pub fn from_state(pairs: Vec<(u64, String)>) -> Links {
        let mut l = Links::default();
        for (uuid, root) in pairs.into_iter().rev().take(WINDOW).rev() {
            l.insert(uuid, root);
        }
        l
    }

    /// The links to keep in the manifest, oldest first.
    pub fn to_state(&self) -> Vec<(u64, String)> {
        self.order.iter().filter_map(|u| Some((*u, self.root.get(u)?.clone()))).collect()
    }

    /// Records a sidechain line: its root is its parent's, when the parent
    /// is a known sidechain line, else its own uuid.
    pub fn link(&mut self, uuid: &str, parent: Option<&str>) {
        if self.root.contains_key(&id(uuid)) {
            return; // a repeated line (a replay) keeps its first link
        }
        let root = match parent.and_then(|p| self.root.get(&id(p))) {
            Some(r) => r.clone(),
            None => uuid.chars().take(ROOT_CHARS).collect(),
        };
        self.insert(id(uuid), root);
    }

    fn insert(&mut self, uuid: u64, root: String) {
        if self.order.len() == WINDOW {
            if let Some(old) = self.order.pop_front() {
                self.root.remove(&old);
            }
        }
        self.root.insert(uuid, root);
        self.order.push_back(uuid);
    }

    /// The thread of a sidechain line: `sc-` and its root's first characters.
    pub fn thread(&self, uuid: &str) -> String {
        match self.root.get(&id(uuid)) {
            Some(root) => format!("sc-{root}"),
            None => format!("sc-{}", uuid.chars().take(ROOT_CHARS).collect::<String>()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_follow_parents_and_survive_a_round_trip() {
        let mut l = Links::default();
        l.link("aaaaaaaa-1", None);
        l.link("bbbbbbbb-2", Some("aaaaaaaa-1"));
        l.link("cccccccc-3", Some("main-line"));
        l.link("dddddddd-4", Some("bbbbbbbb-2"));
        assert_eq!(l.thread("dddddddd-4"), "sc-aaaaaaaa");
        assert_eq!(l.thread("cccccccc-3"), "sc-cccccccc");
        let mut back = Links::from_state(l.to_state());
        assert_eq!(back, l);
        back.link("eeeeeeee-5", Some("dddddddd-4"));
        assert_eq!(back.thread("eeeeeeee-5"), "sc-aaaaaaaa");
    }

    use crate::ingest::discover::SourceFile;
    use crate::ingest::parse::{parse_bytes, Start};
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    /// A session file with a main thread and two inline sub-agents whose
    /// lines interleave: `(uuid, parent, sidechain, message id)`.
    fn session_file() -> String {
        let lines: [(&str, Option<&str>, bool, Option<&str>); 10] = [
            ("main0001", None, false, None),
            ("main0002", Some("main0001"), false, Some("m1")),
            ("root-aaa", None, true, None),
            ("root-bbb", None, true, None),
            ("a-000001", Some("root-aaa"), true, Some("a1")),
            ("b-000001", Some("root-bbb"), true, Some("b1")),
            ("a-000002", Some("a-000001"), true, None),
            ("a-000003", Some("a-000002"), true, Some("a2")),
            ("b-000002", Some("b-000001"), true, Some("b2")),
            ("main0003", Some("main0002"), false, Some("m2")),
        ];
        let mut out = String::new();
        for (i, (uuid, parent, side, msg)) in lines.into_iter().enumerate() {
            let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
            let head = format!(
                r#"{{"parentUuid":{parent},"isSidechain":{side},"sessionId":"s","uuid":"{uuid}","timestamp":"2026-02-11T20:00:0{i}Z","#
            );
            out += &match msg {
                None => format!(r#"{head}"type":"user","message":{{"role":"user","content":"x"}}}}"#),
                Some(m) => format!(
                    r#"{head}"type":"assistant","requestId":"r{m}","message":{{"id":"{m}","model":"claude-sonnet-4-5","usage":{{"input_tokens":1,"output_tokens":2}}}}}}"#
                ),
            };
            out.push('\n');
        }
        out
    }

    fn threads(rows: &[crate::model::Request]) -> BTreeMap<String, String> {
        rows.iter().map(|r| (r.message_id.clone(), r.thread.to_string())).collect()
    }

    #[test]
    fn sidechain_thread_independent_of_chunking() {
        let file = SourceFile {
            path: PathBuf::from("/p/s.jsonl"),
            project: "p".into(),
            session: Some("s".into()),
            agent: None,
            size: 0,
            mtime_ns: 0,
        };
        let text = session_file();
        let whole = threads(
            &parse_bytes(&file, text.as_bytes(), Start::default(), &mut Links::default(), chrono::Utc::now()).requests,
        );
        assert_eq!(whole["a2"], "sc-root-aaa");
        assert_eq!(whole["b2"], "sc-root-bbb");
        assert_eq!(whole["m2"], "main");
        assert_eq!(whole.len(), 6);
        // Split at every line boundary: the first part as one read (or
        // chunk), the rest as an append that starts from the kept links.
        let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        for &cut in &ends {
            let mut links = Links::default();
            let first = parse_bytes(&file, &text.as_bytes()[..cut], Start::default(), &mut links, chrono::Utc::now());
            let mut kept = Links::from_state(links.to_state());
            let rest = parse_bytes(&file, &text.as_bytes()[cut..], first.end, &mut kept, chrono::Utc::now());
            let mut got = threads(&first.requests);
            got.extend(threads(&rest.requests));
            assert_eq!(got, whole, "split after byte {cut}");
        }
    }

    #[test]
    fn the_window_is_bounded() {
        let mut l = Links::default();
        for i in 0..WINDOW + 10 {
            l.link(&format!("u{i:08}"), None);
        }
        assert_eq!(l.to_state().len(), WINDOW);
        assert_eq!(l.to_state()[0].0, id("u00000010"));
    }
}
