//! `cachewise export --otlp`: its flags, and one thin run that resolves
//! them (`otlp::Config`), opens the view and calls `otlp::export`.

use super::plan::Plan;
use super::run::refresh;
use super::team::ExportArgs;
use super::UsageError;
use crate::otlp::{self, config::DEFAULT_BATCH, Config, Flags, OtlpError};
use crate::team::export::default_machine;
use crate::team::push::plain_http_warning;
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The OTLP flags of `export`.
#[derive(Debug, Args, Clone)]
pub struct OtlpArgs {
    /// Send to an OpenTelemetry collector over OTLP/HTTP instead of writing
    /// a bundle: its base URL (e.g. http://localhost:4318; /v1/logs and
    /// /v1/metrics are appended). Without a URL, OTEL_EXPORTER_OTLP_ENDPOINT.
    /// One log record per response (Claude Code's `api_request` event plus
    /// the cache model's class, TTL, rebuilt tokens and miss cost) and per
    /// day the cost, token and miss-cost sums as delta metrics. Only what
    /// this collector has not accepted yet is sent; the last 10 minutes
    /// wait for the next run. Never message content.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub otlp: Option<String>,
    /// A header for the collector, e.g. authorization=Bearer%20TOKEN
    /// (repeatable; added to OTEL_EXPORTER_OTLP_HEADERS, overriding a
    /// header of the same name). Values are never printed.
    #[arg(long = "otlp-header", value_name = "K=V", requires = "otlp")]
    pub headers: Vec<String>,
    /// Encode as OTLP/JSON instead of protobuf (also
    /// OTEL_EXPORTER_OTLP_PROTOCOL=http/json).
    #[arg(long = "otlp-json", requires = "otlp")]
    pub json: bool,
    /// Responses per request to the collector.
    #[arg(long = "otlp-batch", value_name = "N", default_value_t = DEFAULT_BATCH, requires = "otlp")]
    pub batch: usize,
}

/// `cachewise export --otlp`.
pub(super) fn run_otlp(plan: &Plan, a: &ExportArgs, endpoint: &str) -> anyhow::Result<()> {
    let flags = Flags {
        endpoint: Some(endpoint.to_owned()).filter(|e| !e.is_empty()),
        headers: a.otlp.headers.clone(),
        json: a.otlp.json,
        batch: a.otlp.batch,
        user: super::team::login_name(a.user.as_deref())?,
        machine: a.machine.clone().unwrap_or_else(default_machine),
        machine_given: a.machine.is_some(),
    };
    let config = match Config::resolve(&flags, &|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(OtlpError::Config(why)) => return Err(UsageError(why).into()),
        Err(e) => return Err(e.into()),
    };
    refresh(plan)?;
    if !config.headers.is_empty() && !plan.quiet {
        if let Some(w) = plain_http_warning(&otlp::send::shown(&config.logs_url)) {
            super::note(&format!("warning: {}", w.replace("the token travels", "the headers travel")));
        }
    }
    let stop = stop_on_interrupt(plan.quiet)?;
    let o = otlp::export(&plan.view()?, &config, a.since, plan.tz, &stop)?;
    for d in &o.dropped {
        super::note(&format!("warning: {d}"));
    }
    let waiting = match o.waiting {
        0 => String::new(),
        n => format!("; {n} of the last 10 minutes wait for the next run"),
    };
    super::out(&match o.sent {
        0 => format!("nothing new to send to {} ({} already sent{waiting})\n", o.logs_url, o.already_sent),
        n => format!(
            "sent {} of {} ({} bytes in {}, {} data points, {}) to {} and {}; {} sent before{waiting}\n",
            crate::report::labels::plural(n as u64, "request", "requests"),
            config.user,
            o.bytes,
            crate::report::labels::plural(o.batches as u64, "batch", "batches"),
            o.data_points,
            crate::report::labels::plural(o.retries as u64, "retry", "retries"),
            o.logs_url,
            o.metrics_url,
            o.already_sent
        ),
    });
    Ok(())
}

/// A flag the first Ctrl-C (or SIGTERM) sets, so the export stops once the
/// batch in flight is answered and marked sent; a second one ends the
/// process at once.
fn stop_on_interrupt(quiet: bool) -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let seen = Arc::clone(&stop);
    std::thread::spawn(move || {
        while !seen.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        if !quiet {
            super::note("stopping once the collector has answered the batch in flight (Ctrl-C again stops now)");
        }
    });
    Ok(stop)
}
