//! What every page shares: the `Chrome` (navigation, banners, asset paths,
//! data version and freshness, and in a team data directory the person
//! selector) handed to `base.html`, the error page, and `render`, which
//! turns a typed askama page into an HTML response.

use super::assets::{SCRIPT, STYLESHEET};
use super::error::WebError;
use super::params::{encode, Params};
use super::snapshot::Snapshot;
use super::state::AppState;
use super::view::Formats;
use crate::pricing::Estimate;
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

/// The Team page's entry, before "JSON" when the store holds several people.
pub const TEAM_NAV: (&str, &str) = ("/team", "Team");

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
    /// The people to choose from: empty unless the store holds several.
    pub users: Vec<String>,
    /// The page's `user` filter.
    pub user: Option<String>,
    /// True when `user` names nobody in the store (the page shows no rows).
    pub unknown_user: bool,
    /// The page's other query parameters, which the person selector keeps.
    pub keep: Vec<(&'static str, String)>,
    /// Models in the store priced as their family's newest version.
    pub estimated: Vec<Estimate>,
}

impl Chrome {
    /// The frame of a page built from `snap`, requested with `params`.
    pub fn new(state: &AppState, snap: &Snapshot, active: &'static str, params: &Params) -> Chrome {
        let users = if snap.is_team() { snap.users().to_vec() } else { Vec::new() };
        let user = Params::text(&params.user);
        Chrome {
            css: STYLESHEET.href(),
            js: SCRIPT.href(),
            active,
            banner: state.settings().banner.clone(),
            version: snap.version,
            updated: snap.updated().map_or_else(|| "never".to_owned(), |u| u.chars().take(19).collect()),
            tz: snap.tz,
            users,
            unknown_user: user.as_ref().is_some_and(|u| !snap.users().contains(u)),
            user,
            keep: params.pairs().into_iter().filter(|(k, _)| !matches!(*k, "user" | "page")).collect(),
            estimated: snap.estimated_models().to_vec(),
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
            users: Vec::new(),
            user: None,
            unknown_user: false,
            keep: Vec::new(),
            estimated: Vec::new(),
        }
    }

    /// The navigation links, with "Team" in a team data directory, each
    /// keeping the page's person filter.
    pub fn nav(&self) -> Vec<(String, &'static str)> {
        let mut entries = NAV.to_vec();
        if !self.users.is_empty() {
            entries.insert(NAV.len() - 1, TEAM_NAV);
        }
        entries.into_iter().map(|(href, label)| (self.with_user(href), label)).collect()
    }

    /// The estimated-prices banner, when some model's prices are estimated.
    pub fn estimate_note(&self) -> Option<String> {
        Estimate::note(&self.estimated)
    }

    /// True for the navigation entry of this page.
    pub fn is_active(&self, label: &str) -> bool {
        self.active == label
    }

    /// `href` with the page's `user` filter added.
    pub fn with_user(&self, href: &str) -> String {
        match &self.user {
            None => href.to_owned(),
            Some(u) => {
                let sep = if href.contains('?') { '&' } else { '?' };
                format!("{href}{sep}user={}", encode(u))
            }
        }
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
