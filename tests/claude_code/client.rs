//! Claude Code as the suite runs it: the pinned release (or
//! `CACHEWISE_CLAUDE_CODE_BIN`), in the test's network namespace, under
//! libfaketime at the fake API's instant, with a home of its own, a fake
//! key and no nonessential traffic.

use super::netns::Netns;
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The Claude Code release the suite pins (`.ci/run` installs it).
pub const PINNED: &str = include_str!("CLAUDE_CODE_VERSION");

/// Where `.ci/run` installs the pinned release: `npm install --prefix`
/// this folder.
pub fn install_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    home.join(".cache/cachewise-claude-code").join(PINNED.trim())
}

/// libfaketime, as Debian's `faketime` package installs it.
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// What the suite needs, or why it cannot run.
pub struct Setup {
    pub bin: PathBuf,
    pub version: String,
}

impl Setup {
    /// The client to run: `CACHEWISE_CLAUDE_CODE_BIN`, else the pinned
    /// install; `Err` names what is missing.
    pub fn find() -> Result<Setup, String> {
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
pub struct Client<'a> {
    pub setup: &'a Setup,
    pub ns: &'a Netns,
    pub port: u16,
    /// `HOME`; the config directory is `HOME/.claude`.
    pub home: PathBuf,
    pub work: PathBuf,
}

impl Client<'_> {
    /// The config directory (`CLAUDE_CONFIG_DIR`), where transcripts go.
    pub fn config(&self) -> PathBuf {
        self.home.join(".claude")
    }

    /// Runs `claude ARGS` at the instant `at`, in the namespace.
    pub fn run(&self, at: DateTime<Utc>, args: &[&str]) -> Output {
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
    pub fn ok(&self, at: DateTime<Utc>, args: &[&str]) -> String {
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
    pub fn transcripts(&self) -> Vec<PathBuf> {
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
