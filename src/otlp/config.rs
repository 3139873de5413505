//! Where and how to send: the flags of `export --otlp` and the standard
//! OpenTelemetry variables resolved once into a `Config`. The endpoint is
//! `--otlp URL` or `OTEL_EXPORTER_OTLP_ENDPOINT`, a base URL to which
//! `/v1/logs` and `/v1/metrics` are appended (the spec's rule; the
//! per-signal `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` and `..._METRICS_ENDPOINT`
//! are used as they are). Headers come from `OTEL_EXPORTER_OTLP_HEADERS`
//! and then `--otlp-header K=V` (a flag overrides the variable's header of
//! the same name); resource attributes from `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_SERVICE_NAME`, and `user.name` / `host.name` as export labels the
//! rows. The environment comes in as a function, so this is pure.

use super::OtlpError;
use percent_encoding::percent_decode_str;
use url::Url;

pub const ENV_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub const ENV_LOGS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
pub const ENV_METRICS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
pub const ENV_HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
pub const ENV_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub const ENV_RESOURCE: &str = "OTEL_RESOURCE_ATTRIBUTES";
pub const ENV_SERVICE_NAME: &str = "OTEL_SERVICE_NAME";

/// Requests per batch unless `--otlp-batch` says otherwise: about 0.5 MB
/// of protobuf, far below a collector's default body limit.
pub const DEFAULT_BATCH: usize = 1000;

/// How bodies are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `application/x-protobuf` (OTLP/HTTP's default).
    Protobuf,
    /// `application/json` (OTLP/JSON).
    Json,
}

impl Encoding {
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }
    }
}

/// The flags, as given.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--otlp URL` (None: `--otlp` without a URL).
    pub endpoint: Option<String>,
    /// `--otlp-header K=V`, in order.
    pub headers: Vec<String>,
    pub json: bool,
    pub batch: usize,
    /// `--user` and `--machine` as export resolved them.
    pub user: String,
    pub machine: String,
    /// `--machine` was given (else the host name is a default that
    /// `OTEL_RESOURCE_ATTRIBUTES` may override).
    pub machine_given: bool,
}

/// Everything a send needs, resolved.
#[derive(Clone)]
pub struct Config {
    pub logs_url: Url,
    pub metrics_url: Url,
    /// Names and values; values are never printed.
    pub headers: Vec<(String, String)>,
    pub encoding: Encoding,
    pub resource: Vec<(String, String)>,
    /// Requests per batch (at least 1).
    pub batch: usize,
    /// The person the rows are labelled with (`user.name`).
    pub user: String,
}

impl Config {
    /// Resolves `flags` against the environment `env`.
    pub fn resolve(flags: &Flags, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, OtlpError> {
        let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        let base = flags.endpoint.clone().filter(|e| !e.trim().is_empty()).or_else(|| env(ENV_ENDPOINT));
        let signal = |var: &str, path: &str| -> Result<Url, OtlpError> {
            match (&flags.endpoint, env(var), &base) {
                // A flag's URL is the base of both signals.
                (Some(e), _, _) if !e.trim().is_empty() => signal_url(e, path),
                (_, Some(own), _) => parse(&own, var),
                (_, None, Some(b)) => signal_url(b, path),
                (_, None, None) => Err(OtlpError::Config(format!(
                    "no collector: give `--otlp URL` (e.g. http://localhost:4318) or set {ENV_ENDPOINT}"
                ))),
            }
        };
        let logs_url = signal(ENV_LOGS_ENDPOINT, "v1/logs")?;
        let metrics_url = signal(ENV_METRICS_ENDPOINT, "v1/metrics")?;
        let encoding = match (flags.json, env(ENV_PROTOCOL).as_deref().map(str::trim)) {
            (true, _) | (false, Some("http/json")) => Encoding::Json,
            (false, None | Some("http/protobuf")) => Encoding::Protobuf,
            (false, Some(other)) => {
                return Err(OtlpError::Config(format!(
                    "{ENV_PROTOCOL}={other:?}: cachewise sends OTLP over HTTP only (http/protobuf or http/json)"
                )))
            }
        };
        let mut headers = match env(ENV_HEADERS) {
            Some(v) => pairs(&v, ENV_HEADERS)?,
            None => Vec::new(),
        };
        for h in &flags.headers {
            let (k, v) = pair(h, "--otlp-header")?;
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case(&k));
            headers.push((k, v));
        }
        Ok(Config {
            logs_url,
            metrics_url,
            headers,
            encoding,
            resource: resource(flags, &env)?,
            batch: flags.batch.max(1),
            user: flags.user.clone(),
        })
    }
}

/// The resource attributes: the variable's, `service.name` (the variable,
/// else `cachewise`), `service.version`, and `user.name` / `host.name`.
fn resource(flags: &Flags, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<(String, String)>, OtlpError> {
    let mut out = match env(ENV_RESOURCE) {
        Some(v) => pairs(&v, ENV_RESOURCE)?,
        None => Vec::new(),
    };
    let mut set = |k: &str, v: String, replace: bool| {
        match out.iter_mut().find(|(name, _)| name == k) {
            Some(e) if replace => e.1 = v,
            Some(_) => {}
            None => out.push((k.to_owned(), v)),
        };
    };
    let service = env(ENV_SERVICE_NAME);
    set("service.name", service.clone().unwrap_or_else(|| "cachewise".to_owned()), service.is_some());
    set("service.version", env!("CARGO_PKG_VERSION").to_owned(), false);
    set("user.name", flags.user.clone(), true);
    set("host.name", flags.machine.clone(), flags.machine_given);
    Ok(out)
}

/// `base` with `path` appended, as the spec appends `v1/logs` to
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (a base given with a signal path already,
/// `.../v1/logs`, is taken as its base).
fn signal_url(base: &str, path: &str) -> Result<Url, OtlpError> {
    let mut b = base.trim().trim_end_matches('/');
    for known in ["/v1/logs", "/v1/metrics"] {
        b = b.strip_suffix(known).unwrap_or(b);
    }
    parse(&format!("{b}/{path}"), "--otlp")
}

fn parse(s: &str, what: &str) -> Result<Url, OtlpError> {
    let url = Url::parse(s.trim()).map_err(|e| OtlpError::Config(format!("{what}: not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(OtlpError::Config(format!("{what}: an http:// or https:// URL with a host is needed")));
    }
    Ok(url)
}

/// `k1=v1,k2=v2` (the W3C baggage form the OTel variables use; values
/// percent-decoded). Errors name the key, never the value.
fn pairs(s: &str, what: &str) -> Result<Vec<(String, String)>, OtlpError> {
    s.split(',').filter(|p| !p.trim().is_empty()).map(|p| pair(p, what)).collect()
}

fn pair(p: &str, what: &str) -> Result<(String, String), OtlpError> {
    let Some((k, v)) = p.split_once('=') else {
        return Err(OtlpError::Config(format!("{what}: expected KEY=VALUE, got an entry without `=`")));
    };
    let key = percent_decode_str(k.trim()).decode_utf8_lossy().into_owned();
    let value = percent_decode_str(v.trim()).decode_utf8_lossy().into_owned();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if key.is_empty() || !key.chars().all(token) {
        return Err(OtlpError::Config(format!("{what}: {:?} is not a valid name", crate::report::term::clean(&key))));
    }
    if value.chars().any(|c| c.is_control()) {
        return Err(OtlpError::Config(format!("{what}: the value of {key} holds control characters")));
    }
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn flags() -> Flags {
        Flags { user: "ana".into(), machine: "box".into(), batch: 10, ..Flags::default() }
    }

    fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn a_base_endpoint_gets_the_signal_paths() {
        let mut f = flags();
        f.endpoint = Some("http://collector:4318/".into());
        let c = Config::resolve(&f, &with(&[])).unwrap();
        assert_eq!(c.logs_url.as_str(), "http://collector:4318/v1/logs");
        assert_eq!(c.metrics_url.as_str(), "http://collector:4318/v1/metrics");
        f.endpoint = Some("https://otel.example/prefix/v1/logs".into());
        let c = Config::resolve(&f, &with(&[])).unwrap();
        assert_eq!(c.metrics_url.as_str(), "https://otel.example/prefix/v1/metrics");
        f.endpoint = None;
        let env = with(&[(ENV_ENDPOINT, "http://a:1"), (ENV_METRICS_ENDPOINT, "http://b:2/m")]);
        let c = Config::resolve(&f, &env).unwrap();
        assert_eq!((c.logs_url.as_str(), c.metrics_url.as_str()), ("http://a:1/v1/logs", "http://b:2/m"));
        assert!(Config::resolve(&f, &with(&[])).is_err());
        f.endpoint = Some("ftp://x".into());
        assert!(Config::resolve(&f, &with(&[])).is_err());
    }

    #[test]
    fn headers_come_from_the_variable_and_the_flags_override_them() {
        let mut f = flags();
        f.endpoint = Some("http://c:4318".into());
        f.headers = vec!["X-Team=platform".into(), "authorization=Bearer flag".into()];
        let env = with(&[(ENV_HEADERS, "Authorization=Bearer%20env, api-key=k%3D1")]);
        let c = Config::resolve(&f, &env).unwrap();
        let h: Vec<(&str, &str)> = c.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(h, [("api-key", "k=1"), ("X-Team", "platform"), ("authorization", "Bearer flag")]);
        f.headers = vec!["nokey".into()];
        let e = Config::resolve(&f, &with(&[])).err().unwrap().to_string();
        assert!(e.contains("--otlp-header"), "{e}");
        f.headers = vec!["bad name=secret-value".into()];
        let e = Config::resolve(&f, &with(&[])).err().unwrap().to_string();
        assert!(!e.contains("secret-value"), "{e}");
    }

    #[test]
    fn resource_attributes_and_protocol() {
        let mut f = flags();
        f.endpoint = Some("http://c:4318".into());
        let env = with(&[(ENV_RESOURCE, "team=infra,host.name=ci-7,user.name=someone"), (ENV_PROTOCOL, "http/json")]);
        let c = Config::resolve(&f, &env).unwrap();
        let get = |k: &str| c.resource.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("team"), Some("infra"));
        assert_eq!(get("service.name"), Some("cachewise"));
        // --user names the rows; the default host name yields to the variable.
        assert_eq!((get("user.name"), get("host.name")), (Some("ana"), Some("ci-7")));
        assert_eq!(c.encoding, Encoding::Json);
        f.machine_given = true;
        let c = Config::resolve(&f, &env).unwrap();
        assert_eq!(c.resource.iter().find(|(n, _)| n == "host.name").map(|(_, v)| v.as_str()), Some("box"));
        assert!(Config::resolve(&f, &with(&[(ENV_PROTOCOL, "grpc")])).is_err());
    }
}
