//! Claude Code as the suite runs it: the pinned release (or
//! `CACHEWISE_CLAUDE_CODE_BIN`), in the test's network namespace, under
//! libfaketime at the fake API's instant, with a home of its own, a fake
//! key and no nonessential traffic.

use super::netns::Netns;
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The Claude Code release the suite pins (`.ci/run` installs it).
pub(super) const PINNED: &str = include_str!("CLAUDE_CODE_VERSION");

/// Where `.ci/run` installs the pinned release: `npm install --prefix`
/// this folder.
pub(super) fn install_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    home.join(".cache/cachewise-claude-code").join(PINNED.trim())
}

/// libfaketime, as Debian's `faketime` package installs it.
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// What the suite needs, or why it cannot run.
pub(crate) struct Setup {
    pub bin: PathBuf,
    pub version: String,
}

impl Setup {
    /// The client to run: `CACHEWISE_CLAUDE_CODE_BIN`, else the pinned
    /// install; `Err` names what is missing.
    pub(crate) fn find() -> Result<Setup, String> {
        let bin = match std::env::var_os("CACHEWISE_CLAUDE_CODE_BIN") {
            Some(b) => PathBuf::from(b),
            None => install_dir().join("node_modules/.bin/claude"),
        };
        if !Path::new(FAKETIME).exists() {
            return Err(format!("{FAKETIME} not found (Debian's faketime package)"));
        }
        let out = std::process::Command::new(&bin)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e} (install it: see .ci/run)", bin.display()))?;
        let version = String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or("").to_owned();
        if !out.status.success() || version.is_empty() {
            return Err(format!("{} --version failed", bin.display()));
        }
        Ok(Setup { bin, version })
    }
}

/// One person's Claude Code: its config directory and working directory.
pub(crate) struct Client<'a> {
    pub setup: &'a Setup,
    pub ns: &'a Netns,
    pub port: u16,
    /// `HOME`; the config directory is `HOME/.claude`.
    pub home: PathBuf,
    pub work: PathBuf,
}

impl Client<'_> {
    /// The config directory (`CLAUDE_CONFIG_DIR`), where transcripts go.
    pub(crate) fn config(&self) -> PathBuf {
        self.home.join(".claude")
    }

    /// Runs `claude ARGS` at the instant `at`, in the namespace.
    pub(crate) fn run(&self, at: DateTime<Utc>, args: &[&str]) -> Output {
        std::fs::create_dir_all(&self.work).expect("work dir");
        let mut c = self.ns.command("env");
        c.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("CLAUDE_CONFIG_DIR", self.config())
            .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{}", self.port))
            .env("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            // Where cachewise's hooks and status line (run by Claude Code) keep their store.
            .env("CACHEWISE_DATA_DIR", self.home.join("cachewise-data"))
            .current_dir(&self.work)
            // libfaketime is loaded by Claude Code alone: a parent that
            // loads it too makes the child's semaphore fail.
            .arg(format!("LD_PRELOAD={FAKETIME}"))
            .arg(format!("FAKETIME=@{}", at.format("%Y-%m-%d %H:%M:%S")))
            .arg(&self.setup.bin)
            .args(args);
        c.output().expect("run claude")
    }

    /// `run`, which must succeed; its stdout.
    pub(crate) fn ok(&self, at: DateTime<Utc>, args: &[&str]) -> String {
        let out = self.run(at, args);
        assert!(
            out.status.success(),
            "claude {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every transcript file under the config directory.
    pub(crate) fn transcripts(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut dirs = vec![self.config().join("projects")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }
}

/// Claude Code in interactive mode, in a tmux pane, resuming `session` at
/// `at`: each of `prompts` is typed and answered in turn; the screen is
/// captured once the client is up and after each answer, then it exits.
pub(super) fn interactive(
    h: &super::Harness,
    c: &Client,
    at: DateTime<Utc>,
    session: &str,
    prompts: &[&str],
) -> Vec<String> {
    seed_interactive(c);
    h.fake.set_clock(at);
    let name = format!("cw{}", std::process::id() ^ (at.timestamp() as u32));
    let env = [
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_owned()),
        ("HOME", c.home.display().to_string()),
        ("CLAUDE_CONFIG_DIR", c.config().display().to_string()),
        ("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{}", c.port)),
        ("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("CACHEWISE_DATA_DIR", c.home.join("cachewise-data").display().to_string()),
        ("TERM", "xterm-256color".to_owned()),
    ];
    let mut cmd = format!("cd '{}' && nsenter --net={} -- env -i", c.work.display(), c.ns.path().display());
    for (k, v) in env {
        cmd.push_str(&format!(" {k}='{v}'"));
    }
    cmd.push_str(&format!(
        " LD_PRELOAD={FAKETIME} 'FAKETIME=@{}' '{}' --resume {session}",
        at.format("%Y-%m-%d %H:%M:%S"),
        c.setup.bin.display()
    ));
    let tmux = |args: &[&str]| std::process::Command::new("tmux").args(args).output().expect("tmux");
    tmux(&["new-session", "-d", "-s", &name, "-x", "160", "-y", "40", &cmd]);
    let capture = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &name]).stdout).into_owned();
    let wait_for = |what: &dyn Fn(&str) -> bool| {
        for _ in 0..100 {
            let s = capture();
            if what(&s) {
                return s;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        capture()
    };
    let mut screens = vec![wait_for(&|s| s.contains("cachewise") || s.contains("warm") || s.contains("cold"))];
    for p in prompts {
        let before = h.fake.ledger().len();
        tmux(&["send-keys", "-t", &name, "-l", p]);
        tmux(&["send-keys", "-t", &name, "Enter"]);
        for _ in 0..100 {
            if h.fake.ledger().len() > before {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        std::thread::sleep(std::time::Duration::from_millis(1500));
        screens.push(capture());
    }
    tmux(&["send-keys", "-t", &name, "-l", "/exit"]);
    tmux(&["send-keys", "-t", &name, "Enter"]);
    std::thread::sleep(std::time::Duration::from_millis(1000));
    tmux(&["kill-session", "-t", &name]);
    screens
}

/// Claude Code's own state file, seeded so interactive mode starts at the
/// prompt: onboarding done, the fake key approved, the folder trusted.
fn seed_interactive(c: &Client) {
    let path = c.config().join(".claude.json");
    let mut v: serde_json::Value = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    v["hasCompletedOnboarding"] = true.into();
    v["customApiKeyResponses"] = serde_json::json!({"approved": ["sk-ant-fake-key-for-tests"], "rejected": []});
    let key = "sk-ant-fake-key-for-tests";
    v["customApiKeyResponses"]["approved"] = serde_json::json!([key, &key[key.len() - 20..]]);
    v["projects"][c.work.display().to_string()]["hasTrustDialogAccepted"] = true.into();
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}
