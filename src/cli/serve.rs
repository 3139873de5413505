//! `cachewise serve`: ingest (as `policy::local_ingest` allows), then serve
//! the dashboard (`web::app`, behind the Host allowlist `web::host`) while a
//! background task keeps ingesting as transcripts change. `--demo`, or no
//! transcripts and no stored data, serves the built-in demo dataset from a
//! temporary data directory, with a banner saying so. `--team` serves the
//! push endpoint alone on `--bind` (the dashboard only on its own
//! `--dashboard` listener, if asked). Ctrl-C or SIGTERM stops it at once.

use super::plan::Plan;
use super::policy::{local_ingest, Asked};
use super::progress::Bar;
use super::team::LimitArgs;
use crate::ingest::IngestError;
use crate::store::{Store, Table};
use crate::team::tokens::TokenMap;
use crate::update::{PushState as TeamState, DEFAULT_MAX_BYTES, DEFAULT_PUSH_MEMORY};
use crate::web::host::HostAllow;
use crate::web::push::router as team_router;
use crate::web::{self, AppState, Clock, Settings};
use anyhow::Context;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

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
    /// Run the team push server on --bind instead: it answers only
    /// `POST /api/v1/bundles` with a bearer token from --tokens (no
    /// dashboard there). The data dir then holds the team's rows; local
    /// transcripts are not ingested into it. Put it behind TLS.
    #[arg(long, requires = "tokens")]
    pub team: bool,
    /// TOML file mapping each push token to a user (with --team).
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<PathBuf>,
    /// With --team: also serve the team's dashboard on this address, a
    /// listener of its own (keep it on loopback: it has no login).
    #[arg(long, value_name = "ADDR", requires = "team")]
    pub dashboard: Option<SocketAddr>,
    /// Also answer to this Host name, e.g. a proxy's (repeatable). The
    /// dashboard answers only to its address, localhost, 127.0.0.1 and
    /// [::1]; other names get 421 (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    #[command(flatten)]
    pub week: super::WeekArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// With --team: the memory uploads may take at once while they are
    /// decoded and stored (about 1.4 KB a row); a push that needs more
    /// waits its turn, and one that needs more than all of it is refused.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_PUSH_MEMORY, requires = "team")]
    pub push_memory: u64,
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
    let n = web::demo::write_demo(&store, &plan.prices, plan.now)?;
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
    if a.team {
        // The push server's directory is a team directory from the start.
        crate::team::import::mark_team_dir(&plan.store.begin()?)?;
        plan.reprice_if_stale()?;
        return Ok(live(None));
    }
    if !local_ingest(plan, Asked::Implicitly)? {
        plan.reprice_if_stale()?;
        plan.warn_if_priced_elsewhere()?;
        return Ok(live(None));
    }
    // Another writer holding the lock never keeps the dashboard from
    // starting: it serves what is stored, and the refresh reads on later.
    let store = plan.store.waiting(crate::store::lock::Waiting::No);
    match crate::update::ingest(&plan.roots, &store, &plan.prices, &Bar::new(plan.quiet), plan.now) {
        Ok(_) => Ok(live(Some(plan.roots.clone()))),
        Err(IngestError::Store(crate::store::StoreError::Locked { holder, .. })) => {
            if !plan.quiet {
                eprintln!("note: the data directory's lock is taken ({holder}); serving the stored data meanwhile");
            }
            Ok(live(Some(plan.roots.clone())))
        }
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

/// Runs the dashboard (and with `--team` the push listener) until Ctrl-C
/// or SIGTERM; stops within a fraction of a second.
pub(super) fn run_serve(plan: &Plan, a: &ServeArgs) -> anyhow::Result<()> {
    let source = prepare(plan, a)?;
    let state = AppState::new(Settings {
        store: source.store.clone(),
        prices: plan.prices.clone(),
        tz: plan.tz,
        week_start: a.week.start_of_week,
        banner: source.banner.clone(),
        clock: if plan.now_fixed { Clock::Fixed(plan.now) } else { Clock::System },
        claude_roots: plan.roots.clone(),
    })?;
    super::run::warn_estimates(plan, state.snapshot().estimated_models());
    let team = match (&a.team, &a.tokens) {
        (true, Some(path)) => {
            let tokens = TokenMap::load(path)?;
            let st = TeamState::new(source.store.clone(), tokens, plan.prices.clone(), DEFAULT_MAX_BYTES);
            Some(st.with_limits(a.limits.limits()).with_push_memory(a.push_memory))
        }
        _ => None,
    };
    let rt =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let result = rt.block_on(serve(state, team, a, source.roots.clone(), plan.quiet));
    // An ingest or rebuild still running in the blocking pool is abandoned:
    // every store write is atomic, so stopping never tears a table.
    rt.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn listen(addr: SocketAddr) -> anyhow::Result<(tokio::net::TcpListener, SocketAddr)> {
    let l = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let bound = l.local_addr()?;
    Ok((l, bound))
}

/// The dashboard, Host-checked, on its own listener.
async fn dashboard(state: AppState, addr: SocketAddr, a: &ServeArgs, quiet: bool) -> anyhow::Result<Server> {
    let (listener, bound) = listen(addr).await?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "warning: listening on {bound}, not a loopback address: anyone who can reach it sees your usage data"
        );
    }
    let url = format!("http://{bound}/");
    println!("cachewise dashboard: {url}  (Ctrl-C to stop)");
    if a.open {
        if let Err(e) = open::that_detached(&url) {
            // The opener's error is a raw exit status: for the log, not the user.
            tracing::debug!("opening a browser: {e}");
            if !quiet {
                eprintln!("note: no browser could be opened here; open {url} yourself");
            }
        }
    }
    let app = web::host::guard(web::app(state), HostAllow::new(bound, &a.allow_host));
    Ok(Server { listener, app })
}

/// A listener and what it serves.
struct Server {
    listener: tokio::net::TcpListener,
    app: axum::Router,
}

async fn serve(
    state: AppState,
    team: Option<TeamState>,
    a: &ServeArgs,
    roots: Option<Vec<PathBuf>>,
    quiet: bool,
) -> anyhow::Result<()> {
    let mut servers = Vec::new();
    match team {
        Some(t) => {
            let (listener, bound) = listen(a.bind).await?;
            println!(
                "cachewise team server: http://{bound}/  (POST /api/v1/bundles only; no dashboard on this address; Ctrl-C to stop)"
            );
            servers.push(Server { listener, app: team_router(t) });
            if let Some(d) = a.dashboard {
                servers.push(dashboard(state.clone(), d, a, quiet).await?);
            }
        }
        None => servers.push(dashboard(state.clone(), a.bind, a, quiet).await?),
    }
    tokio::spawn(web::refresh::keep_fresh(state, roots));
    run_until_stopped(servers).await
}

/// Serves every listener until Ctrl-C or SIGTERM (or one fails), then
/// gives open requests `GRACE` to finish.
async fn run_until_stopped(servers: Vec<Server>) -> anyhow::Result<()> {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut running = tokio::task::JoinSet::new();
    for s in servers {
        let mut rx = stopped.clone();
        running.spawn(async move {
            axum::serve(s.listener, s.app)
                .with_graceful_shutdown(async move {
                    let _ = rx.wait_for(|v| *v).await;
                })
                .await
        });
    }
    tokio::select! {
        _ = stop_signal() => {}
        r = running.join_next() => {
            if let Some(r) = r {
                r.context("server task failed")?.context("server failed")?;
            }
        }
    }
    let _ = stop.send(true);
    // Open requests get a moment to finish; then the process goes anyway.
    let drain = async { while running.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(GRACE, drain).await;
    Ok(())
}

/// How long open requests may take to finish after a stop signal.
const GRACE: Duration = Duration::from_millis(250);

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
