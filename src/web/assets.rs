//! Static assets compiled into the binary (`include_str!` of `web/static/`),
//! served under a path carrying a hash of their content with a one-year,
//! immutable cache lifetime: a new build changes the path, so browsers never
//! keep a stale stylesheet and never re-ask for a current one.

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::LazyLock;

use super::error::WebError;

const CSS: &str = include_str!("../../web/static/app.css");
const JS: &str = include_str!("../../web/static/app.js");

/// One compiled-in asset.
pub struct Asset {
    /// `app.<hash>.css`: the file name under `/static/`.
    pub name: String,
    pub body: &'static str,
    pub content_type: &'static str,
}

impl Asset {
    fn new(stem: &str, ext: &str, body: &'static str, content_type: &'static str) -> Asset {
        Asset { name: format!("{stem}.{:016x}.{ext}", fnv1a(body.as_bytes())), body, content_type }
    }

    /// The URL path of the asset.
    pub fn href(&self) -> String {
        format!("/static/{}", self.name)
    }
}

/// 64-bit FNV-1a: stable across builds and platforms, enough to tell
/// versions of a file apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The stylesheet.
pub static STYLESHEET: LazyLock<Asset> = LazyLock::new(|| Asset::new("app", "css", CSS, "text/css; charset=utf-8"));
/// The script (sorting, filtering, tooltips).
pub static SCRIPT: LazyLock<Asset> = LazyLock::new(|| Asset::new("app", "js", JS, "text/javascript; charset=utf-8"));

/// `GET /static/{name}`: an asset by its hashed name, else 404.
pub async fn serve(Path(name): Path<String>) -> Result<Response, WebError> {
    let asset = [&*STYLESHEET, &*SCRIPT]
        .into_iter()
        .find(|a| a.name == name)
        .ok_or_else(|| WebError::NotFound(format!("asset {name}")))?;
    Ok((
        [(header::CONTENT_TYPE, asset.content_type), (header::CACHE_CONTROL, "public, max-age=31536000, immutable")],
        asset.body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_content_hash() {
        assert!(STYLESHEET.name.starts_with("app.") && STYLESHEET.name.ends_with(".css"));
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
        assert_eq!(STYLESHEET.href(), format!("/static/{}", STYLESHEET.name));
    }
}
