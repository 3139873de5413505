//! `cachewise serve`: ingest, then serve the dashboard (`web::app`) while a
//! background task keeps ingesting as transcripts change. `--demo`, or no
//! transcripts and no stored data, serves the built-in demo dataset from a
//! temporary data directory, with a banner saying so.

use super::plan::Plan;
use super::progress::Bar;
use crate::ingest::{self, IngestError};
use crate::store::{Store, Table};
use crate::team::server::{router as team_router, TeamState, DEFAULT_MAX_BYTES};
use crate::team::tokens::TokenMap;
use crate::web::{self, AppState, Clock, Settings};
use anyhow::Context;
use chrono::Utc;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Flags of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Anything but a loopback address shows your
    /// usage data to the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    pub bind: SocketAddr,
    /// Open the dashboard in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Serve a built-in demo dataset instead of your transcripts.
    #[arg(long, conflicts_with = "team")]
    pub demo: bool,
    /// Also accept team bundles: `POST /api/v1/bundles` with a bearer token
    /// from --tokens. The data dir then holds the team's rows; local
    /// transcripts are not ingested into it. Put it behind TLS.
    #[arg(long, requires = "tokens")]
    pub team: bool,
    /// TOML file mapping each push token to a user (with --team).
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,
}

/// What the server shows.
struct Source {
    store: Store,
    /// Roots to keep ingesting; None for demo data or `--no-ingest`.
    roots: Option<Vec<PathBuf>>,
    banner: Option<String>,
    /// Keeps the demo's data directory alive while serving.
    _demo_dir: Option<tempfile::TempDir>,
}

fn demo(plan: &Plan, banner: String) -> anyhow::Result<Source> {
    let dir =
        tempfile::Builder::new().prefix("cachewise-demo-").tempdir().context("cannot create a demo data directory")?;
    let store = Store::open(dir.path())?;
    let n = web::demo::write_demo(&store, &plan.prices, Utc::now())?;
    if !plan.quiet {
        eprintln!("demo data: {n} synthetic requests");
    }
    Ok(Source { store, roots: None, banner: Some(banner), _demo_dir: Some(dir) })
}

fn prepare(plan: &Plan, a: &ServeArgs) -> anyhow::Result<Source> {
    let live = |roots| Source { store: plan.store.clone(), roots, banner: None, _demo_dir: None };
    if a.demo {
        return demo(plan, "Demo data: a built-in synthetic dataset (serve --demo). Run `cachewise serve` without --demo to see your own transcripts.".into());
    }
    if !plan.ingest || a.team {
        return Ok(live(None));
    }
    match ingest::ingest(&plan.roots, &plan.store, &plan.prices, &Bar::new(plan.quiet)) {
        Ok(_) => Ok(live(Some(plan.roots.clone()))),
        Err(IngestError::NoRoots { looked }) if plan.store.path(Table::Requests).exists() => {
            if !plan.quiet {
                eprintln!("warning: {}; showing stored data", IngestError::NoRoots { looked });
            }
            Ok(live(Some(plan.roots.clone())))
        }
        Err(e @ IngestError::NoRoots { .. }) => demo(
            plan,
            format!("Demo data: {e}. This is a built-in synthetic dataset. Point cachewise at your transcripts with --claude-dir DIR or CLAUDE_CONFIG_DIR=DIR (the directory that holds projects/)."),
        ),
        Err(e) => Err(e.into()),
    }
}

/// Runs the dashboard until Ctrl-C.
pub fn run_serve(plan: &Plan, a: &ServeArgs) -> anyhow::Result<()> {
    let source = prepare(plan, a)?;
    let state = AppState::new(Settings {
        store: source.store.clone(),
        prices: plan.prices.clone(),
        tz: plan.tz,
        banner: source.banner.clone(),
        clock: Clock::System,
    })?;
    super::run::warn_estimates(plan, &state.snapshot().data.estimated_models);
    let rt =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let team = match (&a.team, &a.tokens) {
        (true, Some(path)) => {
            let tokens = TokenMap::load(path)?;
            Some(team_router(TeamState::new(source.store.clone(), tokens, plan.prices.clone(), DEFAULT_MAX_BYTES)))
        }
        _ => None,
    };
    rt.block_on(serve(state, team, a, source.roots.clone(), plan.quiet))
}

async fn serve(
    state: AppState,
    team: Option<axum::Router>,
    a: &ServeArgs,
    roots: Option<Vec<PathBuf>>,
    quiet: bool,
) -> anyhow::Result<()> {
    let listener =
        tokio::net::TcpListener::bind(a.bind).await.with_context(|| format!("cannot listen on {}", a.bind))?;
    let addr: SocketAddr = listener.local_addr()?;
    if !addr.ip().is_loopback() {
        eprintln!("warning: listening on {addr}, not a loopback address: anyone who can reach it sees your usage data");
    }
    let url = format!("http://{addr}/");
    println!("cachewise dashboard: {url}  (Ctrl-C to stop)");
    if a.open {
        if let Err(e) = open::that_detached(&url) {
            if !quiet {
                eprintln!("note: could not open a browser ({e}); open {url} yourself");
            }
        }
    }
    tokio::spawn(web::refresh::keep_fresh(state.clone(), roots));
    let app = match team {
        Some(t) => {
            println!("accepting team bundles at {url}api/v1/bundles");
            web::app(state).merge(t)
        }
        None => web::app(state),
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("server failed")
}
