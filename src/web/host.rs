//! The dashboard's Host allowlist, against DNS rebinding: a web page whose
//! name an attacker re-points at 127.0.0.1 reaches the dashboard with its
//! own name in `Host`, so only the names the server is known by are
//! answered: the bound address, `localhost`, `127.0.0.1` and `[::1]` (with
//! the bound port, or without it on port 80), and each `--allow-host NAME`
//! (a proxy's public name, any port). Bound to an unspecified address
//! (`0.0.0.0`, `::`), any IP literal with the port is answered too: a
//! rebinding needs a name. Anything else gets 421 with a plain message.
//! `guard(router, allow)` wraps a router; `serve` wraps `web::app` with it.

use super::security::CSP;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The Host values a server answers to.
#[derive(Debug, Clone)]
pub struct HostAllow {
    port: u16,
    /// Lower-case hosts (IPv6 in brackets) answered with the bound port.
    local: Vec<String>,
    /// Any IP literal with the bound port (bound to an unspecified address).
    any_ip: bool,
    /// Lower-case names answered on any port (`--allow-host`).
    extra: Vec<String>,
}

fn bracketed(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

impl HostAllow {
    /// The hosts of a server bound to `bound`, plus `extra` names.
    pub fn new(bound: SocketAddr, extra: &[String]) -> HostAllow {
        let mut local = vec![bracketed(bound.ip()), "localhost".into(), "127.0.0.1".into(), "[::1]".into()];
        local.dedup();
        HostAllow {
            port: bound.port(),
            local,
            any_ip: bound.ip().is_unspecified(),
            extra: extra.iter().map(|n| n.trim().to_ascii_lowercase()).filter(|n| !n.is_empty()).collect(),
        }
    }

    /// True when a request with this `Host` value is answered.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = split_port(&host);
        if self.extra.iter().any(|e| *e == host || *e == name) {
            return true;
        }
        let port_ok = match port {
            Some(p) => p.parse::<u16>().ok() == Some(self.port),
            None => self.port == 80,
        };
        port_ok && (self.local.iter().any(|l| *l == name) || (self.any_ip && is_ip_literal(name)))
    }
}

/// `host[:port]` -> (host, port); IPv6 literals keep their brackets.
fn split_port(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(i) => (&host[..=i], host[i + 1..].strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (host, None),
    }
}

fn is_ip_literal(name: &str) -> bool {
    let inner = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    inner.parse::<IpAddr>().is_ok()
}

/// `router` answering only requests whose Host `allow` allows.
pub fn guard(router: Router, allow: HostAllow) -> Router {
    router.layer(middleware::from_fn_with_state(Arc::new(allow), check))
}

async fn check(State(allow): State<Arc<HostAllow>>, req: Request, next: Next) -> Response {
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_owned);
    let host = host.or_else(|| req.uri().authority().map(|a| a.as_str().to_owned()));
    match host {
        Some(h) if allow.allows(&h) => next.run(req).await,
        _ => refuse(),
    }
}

fn refuse() -> Response {
    let body = "421 Misdirected Request: this cachewise dashboard does not answer to that Host name. \
Open it as http://127.0.0.1:PORT/ or http://localhost:PORT/, or start `cachewise serve --allow-host NAME` \
to serve it under another name (behind a proxy).\n";
    let mut res = (StatusCode::MISDIRECTED_REQUEST, body).into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_server_is_known_by_and_nothing_else() {
        let a = HostAllow::new("127.0.0.1:7878".parse().unwrap(), &["Dash.Example.com".into()]);
        for ok in ["127.0.0.1:7878", "LOCALHOST:7878", "[::1]:7878", "dash.example.com", "dash.example.com:443"] {
            assert!(a.allows(ok), "{ok}");
        }
        for no in ["evil.example", "evil.example:7878", "127.0.0.1:80", "localhost", "127.0.0.1.nip.io:7878", ""] {
            assert!(!a.allows(no), "{no}");
        }
        assert!(!a.allows("10.0.0.5:7878"), "another IP of a loopback-bound server");
        let any = HostAllow::new("0.0.0.0:80".parse().unwrap(), &[]);
        assert!(any.allows("10.0.0.5") && any.allows("[fe80::1]:80") && any.allows("localhost"));
        assert!(!any.allows("evil.example") && !any.allows("10.0.0.5:81"));
        let v6 = HostAllow::new("[::1]:9000".parse().unwrap(), &[]);
        assert!(v6.allows("[::1]:9000") && !v6.allows("[::1]:9001") && !v6.allows("[::1"));
    }
}
