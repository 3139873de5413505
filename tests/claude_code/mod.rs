//! Claude Code itself in the test suite: the real client, in a network
//! namespace of the test's own, against a fake Messages API whose prompt
//! cache is exact (`cache`, documented in `docs/cache-model.md`). Every
//! scenario scripts the client through its prompts (`reply`), then holds
//! cachewise's figures to the fake's ledger and to Claude Code's own
//! `cost-state` lines.
//!
//! The client is the release `CLAUDE_CODE_VERSION` names, installed by
//! `.ci/run`, or any build `CACHEWISE_CLAUDE_CODE_BIN` points at. With
//! `CACHEWISE_CLAUDE_CODE=required` (CI) a missing client fails every
//! test; otherwise each test says why it did not run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api;
mod cache;
mod checks;
mod client;
mod format;
mod netns;
mod reply;
mod scenarios;
mod tree;

use api::Fake;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use client::{Client, Setup};
use netns::Netns;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Everything one scenario runs against: the client, the namespace, the
/// fake API and a folder of its own.
pub(crate) struct Harness {
    pub setup: Setup,
    pub ns: Netns,
    pub fake: Fake,
    port: u16,
    pub dir: tempfile::TempDir,
}

/// The instant every scenario starts at.
pub(crate) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap()
}

/// `t0` plus `minutes`.
pub(crate) fn at(minutes: i64) -> DateTime<Utc> {
    t0() + TimeDelta::minutes(minutes)
}

impl Harness {
    /// A new harness, or None (said on stderr) when the client or the
    /// namespace is missing and the suite is not required.
    pub(crate) fn start() -> Option<Harness> {
        let required = std::env::var("CACHEWISE_CLAUDE_CODE").is_ok_and(|v| v == "required");
        let ready = Setup::find().and_then(|setup| Ok((setup, Netns::new()?)));
        let (setup, ns) = match ready {
            Ok(r) => r,
            Err(why) if required => panic!("CACHEWISE_CLAUDE_CODE=required, but {why}"),
            Err(why) => {
                eprintln!("skipped (set CACHEWISE_CLAUDE_CODE=required to fail instead): {why}");
                return None;
            }
        };
        eprintln!("Claude Code {} ({})", setup.version, setup.bin.display());
        let fake = Fake::new(t0());
        let listener = ns.listen();
        let port = listener.local_addr().unwrap().port();
        fake.serve(listener);
        Some(Harness { setup, ns, fake, port, dir: tempfile::tempdir().unwrap() })
    }

    /// A person's Claude Code, with a home of its own under the harness.
    pub(crate) fn client(&self, name: &str) -> Client<'_> {
        let home = self.dir.path().join(name);
        Client { setup: &self.setup, ns: &self.ns, port: self.port, work: home.join("work"), home }
    }

    /// Runs `client` with `args` at `when`, with the fake's clock set to it.
    pub(crate) fn run(&self, client: &Client, when: DateTime<Utc>, args: &[&str]) -> String {
        self.fake.set_clock(when);
        client.ok(when, args)
    }

    /// Starts a session (`claude ARGS --output-format json` at `when`);
    /// its id.
    pub(crate) fn begin(&self, client: &Client, when: DateTime<Utc>, args: &[&str]) -> String {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--output-format", "json"]);
        let out = self.run(client, when, &all);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
        v["session_id"].as_str().expect("session_id").to_owned()
    }

    /// Resumes `session` with `args` at `when`.
    pub(crate) fn resume(&self, client: &Client, session: &str, when: DateTime<Utc>, args: &[&str]) -> String {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--resume", session]);
        self.run(client, when, &all)
    }

    /// The data directory cachewise uses for `client`.
    pub(crate) fn data_dir(&self, client: &Client) -> PathBuf {
        client.home.join("cachewise-data")
    }
}

/// Runs cachewise over `client`'s transcripts at the clock `now`.
pub(crate) fn cachewise(h: &Harness, client: &Client, now: DateTime<Utc>, args: &[&str]) -> Output {
    cachewise_at(&client.config(), &h.data_dir(client), now, args)
}

/// Runs cachewise over the transcripts under `claude_dir`.
pub(crate) fn cachewise_at(claude_dir: &Path, data: &Path, now: DateTime<Utc>, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(args)
        .arg("--claude-dir")
        .arg(claude_dir)
        .arg("--data-dir")
        .arg(data)
        .arg("--now")
        .arg(now.to_rfc3339())
        .arg("--tz")
        .arg("UTC")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CACHEWISE_DATA_DIR")
        .output()
        .expect("run cachewise")
}

/// `cachewise ... --json` parsed; it must succeed.
pub(crate) fn cachewise_json(h: &Harness, client: &Client, now: DateTime<Utc>, args: &[&str]) -> serde_json::Value {
    let out = cachewise(h, client, now, args);
    assert!(out.status.success(), "cachewise {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("cachewise {args:?} JSON: {e}"))
}
