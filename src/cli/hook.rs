//! `cachewise hook session-start` (Claude Code's `SessionStart` hook) and
//! `cachewise hooks --install | --print-config`. The hook runs before the
//! plan is resolved and always exits 0: a bad input, a missing store or an
//! unknown session prints nothing on stdout and says why on stderr. It
//! reads the store as the last ingest left it (no ingest, no lock).

use super::statusline::{self_command, settings_path};
use super::Global;
use crate::config;
use crate::hook::{self, install};
use crate::pricing::PriceTable;
use crate::report::stored_rows::{advise_rows, session_stored_rows};
use crate::store::Store;
use chrono::Utc;
use clap::{Args, Subcommand};
use std::io::{IsTerminal, Read};

#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub event: HookEvent,
}

#[derive(Debug, Subcommand)]
pub enum HookEvent {
    /// Claude Code's SessionStart hook: reads its JSON on stdin; on a resume
    /// or fork prints {"systemMessage": ...} for you (warm or cold, resume /
    /// compact first / start fresh over 10 turns, the recommendation), never
    /// for the model; prints nothing on other sources. Always exits 0.
    SessionStart,
}

#[derive(Debug, Args)]
pub struct HooksArgs {
    /// Add the SessionStart (resume, fork) and SessionEnd (quiet ingest)
    /// hooks to Claude Code's settings.json beside any hooks already there
    /// (a backup is kept; running it again changes nothing).
    #[arg(long, conflicts_with = "print_config", required_unless_present = "print_config")]
    pub install: bool,
    /// Print the settings.json snippet instead of installing it.
    #[arg(long)]
    pub print_config: bool,
}

/// Runs a hook; never fails (reasons go to stderr).
pub(super) fn run_hook(g: &Global, a: &HookArgs) -> anyhow::Result<()> {
    match a.event {
        HookEvent::SessionStart => {
            if let Err(why) = session_start(g) {
                super::note(&format!("cachewise hook session-start: {why}"));
            }
        }
    }
    Ok(())
}

fn session_start(g: &Global) -> Result<(), String> {
    let mut input = Vec::new();
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let _ = stdin.lock().take(hook::MAX_INPUT as u64 + 1).read_to_end(&mut input);
    }
    let start = hook::parse(&input).map_err(|e| e.to_string())?;
    if !start.answers() {
        return Ok(());
    }
    let env_data = std::env::var(config::ENV_DATA_DIR).ok();
    let dir = config::data_dir(g.data_dir.as_deref(), env_data.as_deref());
    let prices = PriceTable::load(g.pricing.as_deref()).map_err(|e| e.to_string())?;
    let now = g.now.unwrap_or_else(Utc::now);
    let tz = config::time_zone(g.tz.as_deref()).unwrap_or(chrono_tz::UTC);
    if !dir.join(crate::store::files::MANIFEST).is_file() {
        return Err(format!("no store at {} yet (run cachewise ingest)", dir.display()));
    }
    let store = Store::open(&dir).map_err(|e| e.to_string())?;
    let view = crate::materialize::view(&store, &prices, now).map_err(|e| e.to_string())?;
    let rows = session_stored_rows(&view, &start.session_id).map_err(|e| e.to_string())?;
    if rows.requests.is_empty() {
        return Err(format!("session {} is not in the store yet", start.session_id));
    }
    let medians = view.medians().map_err(|e| e.to_string())?;
    let advice = advise_rows(&view, &rows, &medians, &start.session_id, hook::TURNS).map_err(|e| e.to_string())?;
    println!("{}", hook::answer(&hook::message(&advice, &start, now, tz)));
    Ok(())
}

/// `hooks --install` / `--print-config`.
pub(super) fn run_hooks(a: &HooksArgs) -> anyhow::Result<()> {
    let exe = self_command("")?;
    let exe = exe.trim_end();
    if a.print_config {
        println!("{}", install::snippet(exe));
        return Ok(());
    }
    let path = settings_path()?;
    let done = install::install(&path, exe)?;
    let list = |v: &[&str]| v.join(" and ");
    if !done.added.is_empty() {
        let backup = install::backup_of(&done.saved).map(|b| format!(" (backup: {})", b.display())).unwrap_or_default();
        println!("added the {} hook(s) to {}{backup}", list(&done.added), path.display());
    }
    if !done.present.is_empty() {
        println!("{} already has the cachewise {} hook(s)", path.display(), list(&done.present));
    }
    Ok(())
}
