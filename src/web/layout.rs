//! What every page shares: the `Chrome` (navigation, banner, asset paths,
//! data version and freshness) handed to `base.html`, the error page, and
//! `render`, which turns a typed askama page into an HTML response.

use super::assets::{SCRIPT, STYLESHEET};
use super::error::WebError;
use super::snapshot::Snapshot;
use super::state::AppState;
use super::view::Formats;
use askama::Template;
use axum::response::Html;
use chrono_tz::Tz;

/// The navigation: route and label.
pub const NAV: [(&str, &str); 7] = [
    ("/", "Overview"),
    ("/sessions", "Sessions"),
    ("/days", "Days"),
    ("/cache", "Cache"),
    ("/projects", "Projects"),
    ("/models", "Models"),
    ("/api/daily", "JSON"),
];

/// The page frame's data.
pub struct Chrome {
    pub css: String,
    pub js: String,
    /// Label of the active navigation entry.
    pub active: &'static str,
    pub banner: Option<String>,
    pub version: u64,
    pub updated: String,
    pub tz: Tz,
}

impl Chrome {
    /// The frame of a page built from `snap`.
    pub fn new(state: &AppState, snap: &Snapshot, active: &'static str) -> Chrome {
        Chrome {
            css: STYLESHEET.href(),
            js: SCRIPT.href(),
            active,
            banner: state.settings().banner.clone(),
            version: snap.version,
            updated: snap.updated.clone().map_or_else(|| "never".to_owned(), |u| u.chars().take(19).collect()),
            tz: snap.tz,
        }
    }

    /// A frame with no data behind it (error pages).
    pub fn plain() -> Chrome {
        Chrome {
            css: STYLESHEET.href(),
            js: SCRIPT.href(),
            active: "",
            banner: None,
            version: 0,
            updated: String::new(),
            tz: Tz::UTC,
        }
    }

    pub fn nav(&self) -> &'static [(&'static str, &'static str)] {
        &NAV
    }
}

/// The page of a failed request.
#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub chrome: Chrome,
    pub status: u16,
    pub reason: &'static str,
    pub message: String,
}

/// Renders a page.
pub fn render<T: Template + Formats>(page: &T) -> Result<Html<String>, WebError> {
    Ok(Html(page.render()?))
}
