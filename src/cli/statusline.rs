//! `cachewise statusline`: runs before the plan is resolved, so nothing
//! about flags, the environment or the data directory can make it fail;
//! reads stdin (bounded), calls `statusline::status`, prints one line.
//! `--install` / `--print-config` handle Claude Code's settings file.

use super::Global;
use crate::config;
use crate::pricing::PriceTable;
use crate::statusline::{self, install, render, Context};
use chrono::Utc;
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Read};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LineFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// `text`: one line for Claude Code; `json`: one object for scripts.
    #[arg(long, value_enum, default_value = "text")]
    pub format: LineFormat,
    /// No colour (also when NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,
    /// Add the statusLine entry to Claude Code's settings.json (a backup is kept).
    #[arg(long, conflicts_with = "print_config")]
    pub install: bool,
    /// With --install: replace a different status line.
    #[arg(long, requires = "install")]
    pub force: bool,
    /// Print the settings.json snippet instead of installing it.
    #[arg(long)]
    pub print_config: bool,
}

/// Runs the status line; only `--install` can fail.
pub(super) fn run_statusline(g: &Global, a: &StatuslineArgs) -> anyhow::Result<()> {
    if a.install || a.print_config {
        return run_install(a);
    }
    let env_data = std::env::var(config::ENV_DATA_DIR).ok();
    let ctx = Context {
        data_dir: config::data_dir(g.data_dir.as_deref(), env_data.as_deref()),
        tz: config::time_zone(g.tz.as_deref()).unwrap_or(chrono_tz::UTC),
        prices: match PriceTable::load(g.pricing.as_deref()).or_else(|_| PriceTable::embedded()) {
            Ok(p) => p,
            Err(_) => {
                println!("cachewise: no price table");
                return Ok(());
            }
        },
        now: g.now.unwrap_or_else(Utc::now),
    };
    let mut input = Vec::new();
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let _ = stdin.lock().take(statusline::input::MAX_INPUT as u64 + 1).read_to_end(&mut input);
    }
    // A bug must not print a stack trace into Claude Code's status line.
    std::panic::set_hook(Box::new(|_| {}));
    let Ok(st) = std::panic::catch_unwind(|| statusline::status(&ctx, &input)) else {
        println!("cachewise: internal error");
        return Ok(());
    };
    let colour = !a.no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    match a.format {
        LineFormat::Text => println!("{}", render::line(&st, ctx.now, ctx.tz, colour)),
        LineFormat::Json => println!("{}", render::json(&st)),
    }
    Ok(())
}

/// This binary's path, quoted for a shell when it needs to be, followed by
/// `args`: the command Claude Code's settings run.
pub(super) fn self_command(args: &str) -> anyhow::Result<String> {
    let exe = std::env::current_exe()?;
    let exe = exe.to_string_lossy();
    let quoted = if exe.chars().any(|c| !(c.is_ascii_alphanumeric() || "/._-+".contains(c))) {
        format!("'{}'", exe.replace('\'', r"'\''"))
    } else {
        exe.into_owned()
    };
    Ok(format!("{quoted} {args}"))
}

/// The settings file `--install` writes (`CLAUDE_CONFIG_DIR` honoured).
pub(super) fn settings_path() -> anyhow::Result<std::path::PathBuf> {
    let env = std::env::var(config::ENV_CLAUDE_CONFIG_DIR).ok();
    install::settings_path(env.as_deref(), dirs::home_dir().as_deref())
        .ok_or_else(|| anyhow::anyhow!("no home directory; set CLAUDE_CONFIG_DIR"))
}

fn run_install(a: &StatuslineArgs) -> anyhow::Result<()> {
    let command = self_command("statusline")?;
    if a.print_config {
        println!("{}", install::snippet(&command));
        return Ok(());
    }
    let path = settings_path()?;
    match install::install(&path, &command, a.force)? {
        install::Outcome::Created => println!("wrote {} with the status line", path.display()),
        install::Outcome::Added { backup } => {
            println!("added the status line to {} (backup: {})", path.display(), backup.display())
        }
        install::Outcome::Replaced { backup, previous } => {
            println!("replaced the status line {previous:?} in {} (backup: {})", path.display(), backup.display())
        }
        install::Outcome::Unchanged => println!("{} already has this status line", path.display()),
    }
    Ok(())
}
