//! The `cachewise` binary: parse the command line, set up logging, run, and
//! map errors to exit codes (0 ok, 1 error, 2 usage).

use cachewise::cli::{self, Cli, EXIT_USAGE};
use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;

/// jemalloc returns freed memory to the system (glibc's per-thread arenas
/// kept a long-running dashboard near its peak after every large query);
/// for the dashboard, from a background thread (`main`): without it, pages
/// freed after the server's last report stay with the process until it
/// allocates again, which at rest is never (a 100-person store's server
/// held 1.1-2.3 GB between refreshes; 0.3 GB with it). One-shot commands
/// end before it would matter. `--features system-alloc` uses the system's
/// allocator instead, for heap profilers that watch malloc (heaptrack).
#[cfg(not(any(target_env = "msvc", feature = "system-alloc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let args = Cli::parse();
    let filter = if args.global.quiet { "error" } else { "warn" };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| filter.into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    #[cfg(not(any(target_env = "msvc", feature = "system-alloc")))]
    if matches!(args.command, Some(cli::Command::Serve(_))) {
        if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
            // Memory is still returned, only later: never a reason to stop.
            tracing::debug!("jemalloc's background thread: {e}");
        }
    }
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", cachewise::report::term::clean(&message(&e)));
            if e.downcast_ref::<cli::UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE as u8)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// The error and its causes, each said once: most errors name their cause
/// in their own words already, and the chain would repeat it.
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out += ": ";
        }
        out += &text;
    }
    out
}
