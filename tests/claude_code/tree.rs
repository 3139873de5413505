//! A benchmark tree in today's transcript format: scripted sessions of the
//! real client of two people, each against a fake API of their own, kept
//! (`scripts/claude-code-tree.sh`).
//! Not a test: `#[ignore]`d, run on demand.

use super::*;
use std::path::Path;

/// How each session of the tree goes: turns with a tool call, a rest past
/// the 5-minute TTL every third session, a `/compact` every tenth, a
/// sub-agent every seventh.
fn session(h: &Harness, me: &Client, i: u64, start: DateTime<Utc>) {
    let minutes = |m: i64| start + TimeDelta::minutes(m);
    let pad = 1_000 + (i * 7_919) % 30_000;
    let s = h.begin(me, minutes(0), &["-p", &format!("task {i} [[pad:{pad}]]")]);
    let bash = format!("[[bash:echo step {i}]]");
    h.resume(me, &s, minutes(1), &["-p", &bash, "--allowedTools", "Bash"]);
    h.resume(me, &s, minutes(3), &["-p", "continue"]);
    if i.is_multiple_of(3) {
        h.resume(me, &s, minutes(25), &["-p", "after a break"]);
    }
    if i.is_multiple_of(7) {
        h.resume(
            me,
            &s,
            minutes(26),
            // Each sub-agent a task of its own, as real sessions' are: the
            // fake API knows a conversation by its first message.
            &["-p", &format!("[[agent:look around {i} {{{{bash:echo sub}}}}]]"), "--allowedTools", "Bash", "Agent"],
        );
    }
    if i.is_multiple_of(10) {
        h.resume(me, &s, minutes(27), &["-p", "/compact"]);
        h.resume(me, &s, minutes(28), &["-p", "after the compaction"]);
    }
}

/// Bytes of the transcripts under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    let mut total = 0;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            match p.is_dir() {
                true => dirs.push(p),
                false => total += e.metadata().map_or(0, |m| m.len()),
            }
        }
    }
    total
}

#[test]
#[ignore = "writes a benchmark tree: scripts/claude-code-tree.sh"]
fn claude_code_bench_tree() {
    let out = PathBuf::from(std::env::var("CACHEWISE_TREE_OUT").expect("CACHEWISE_TREE_OUT"));
    let target_mb: u64 = std::env::var("CACHEWISE_TREE_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    // Two people, each with an API of their own (its clock and its cache):
    // their sessions run side by side at different times of day, and the
    // API's cache is an organization's, not shared between people.
    let hs = [0, 1].map(|_| Harness::start().expect("Claude Code is needed"));
    let clients = [hs[0].client("a"), hs[1].client("b")];
    let written = || clients.iter().map(|c| bytes_under(&c.config().join("projects"))).sum::<u64>();
    let done = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for (k, (h, me)) in hs.iter().zip(&clients).enumerate() {
            let (done, written) = (&done, &written);
            scope.spawn(move || {
                let mut i = k as u64;
                while written() < target_mb << 20 {
                    session(h, me, i, t0() - TimeDelta::days(30) + TimeDelta::minutes(37 * i as i64));
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if n.is_multiple_of(20) {
                        eprintln!("{n} sessions");
                    }
                    i += 2;
                }
            });
        }
    });
    let projects = out.join("projects");
    std::fs::create_dir_all(&projects).unwrap();
    for me in &clients {
        for e in std::fs::read_dir(me.config().join("projects")).unwrap().flatten() {
            std::fs::rename(e.path(), projects.join(e.file_name())).unwrap();
        }
    }
    eprintln!(
        "{} sessions, {} API calls, {} MB under {}",
        done.into_inner(),
        hs.iter().map(|h| h.fake.ledger().len()).sum::<usize>(),
        bytes_under(&projects) >> 20,
        projects.display()
    );
}
