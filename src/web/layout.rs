//! What every page shares: the `Chrome` (navigation, banners, asset paths,
//! data version and freshness, the date range and its presets, and in a
//! team data directory the person selector) handed to `base.html`, the
//! error page, and `render`, which turns a typed askama page into an HTML
//! response. Every link the chrome builds keeps the page's person and days.

use super::assets::{SCRIPT, STYLESHEET};
use super::error::WebError;
use super::params::Params;
use super::range::{with_pairs, By, Range};
use super::snapshot::Snapshot;
use super::state::AppState;
use super::view::Formats;
use crate::pricing::Estimate;
use askama::Template;
use axum::response::Html;
use chrono::{NaiveDate, Weekday};
use chrono_tz::Tz;

/// The navigation: route and label.
pub const NAV: [(&str, &str); 6] = [
    ("/", "Overview"),
    ("/sessions", "Sessions"),
    ("/days", "Days"),
    ("/cache", "Cache"),
    ("/projects", "Projects"),
    ("/models", "Models"),
];

/// The Team page's entry, last when the store holds several people.
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
    /// The page's days.
    pub range: Range,
    /// Whether the page offers the range form (a session's page does not:
    /// it shows the whole session).
    pub show_range: bool,
    /// This page's JSON (its API route), with the page's filters.
    pub json: Option<String>,
    /// Project directory -> the path its transcripts ran in.
    paths: std::sync::Arc<std::collections::HashMap<String, String>>,
}

impl Chrome {
    /// The frame of a page built from `snap`, requested with `params`.
    pub fn new(state: &AppState, snap: &Snapshot, active: &'static str, params: &Params) -> Chrome {
        let users = if snap.is_team() { snap.users().to_vec() } else { Vec::new() };
        let user = Params::text(&params.user);
        let today = snap.now().with_timezone(&snap.tz).date_naive();
        let week = state.settings().week_start;
        let range = Range::of(params, today, week).unwrap_or(Range::all(today, week));
        Chrome {
            css: STYLESHEET.href(),
            js: SCRIPT.href(),
            active,
            banner: state.settings().banner.clone(),
            version: snap.version,
            updated: snap
                .updated()
                .map_or_else(|| "never".to_owned(), |u| crate::model::format::local_stamp(u, snap.tz)),
            tz: snap.tz,
            users,
            unknown_user: user.as_ref().is_some_and(|u| !snap.users().contains(u)),
            user,
            keep: params.pairs().into_iter().filter(|(k, _)| !matches!(*k, "user" | "page")).collect(),
            estimated: snap.estimated_models().to_vec(),
            range,
            show_range: true,
            json: None,
            paths: snap.project_paths(),
        }
    }

    /// The frame without the range form.
    pub fn without_range(self) -> Chrome {
        Chrome { show_range: false, ..self }
    }

    /// The frame whose JSON link is `route` (with the page's filters).
    pub fn with_json(self, route: &str) -> Chrome {
        let json = Some(self.link(route));
        Chrome { json, ..self }
    }

    /// The path a project directory's transcripts ran in (its `cwd`), or
    /// the directory name when the store has none.
    pub fn path<'a>(&'a self, project: &'a str) -> &'a str {
        self.paths.get(project).map_or(project, String::as_str)
    }

    /// A session's name in a list or heading: its title, or its project's
    /// last folder and first day with its short id
    /// (`report::labels::session_name`).
    pub fn session_name(&self, title: &str, id: &str, project: &str, first: &chrono::DateTime<chrono::Utc>) -> String {
        let day = first.with_timezone(&self.tz).date_naive();
        crate::report::labels::session_name(title, id, self.path(project), day)
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
            range: Range::all(NaiveDate::default(), Weekday::Mon),
            show_range: false,
            json: None,
            paths: Default::default(),
        }
    }

    /// The navigation links, with "Team" in a team data directory, each
    /// keeping the page's person and days.
    pub fn nav(&self) -> Vec<(String, &'static str)> {
        let mut entries = NAV.to_vec();
        if !self.users.is_empty() {
            entries.push(TEAM_NAV);
        }
        entries.into_iter().map(|(href, label)| (self.link(href), label)).collect()
    }

    /// The page's other parameters (not its days), which the range form
    /// keeps as hidden fields.
    pub fn keep_for_range(&self) -> Vec<(&'static str, String)> {
        let mut v: Vec<(&'static str, String)> = self
            .keep
            .iter()
            .filter(|(k, _)| !matches!(*k, "since" | "until" | "by" | "start_of_week"))
            .cloned()
            .collect();
        if let Some(u) = &self.user {
            v.push(("user", u.clone()));
        }
        v
    }

    /// The presets as links to this page: words, href, whether shown now.
    pub fn presets(&self) -> Vec<(&'static str, String, bool)> {
        self.range
            .presets()
            .into_iter()
            .map(|p| {
                let r = Range { since: p.since, until: p.until, ..self.range.clone() };
                let mut pairs = self.keep_for_range();
                pairs.extend(r.pairs());
                let href = if pairs.is_empty() { "?".to_owned() } else { with_pairs("", &pairs) };
                (p.words, href, self.range.is(&p))
            })
            .collect()
    }

    /// The groupings the form offers: grouping, `by` value, words.
    pub fn by_options(&self) -> Vec<(By, &'static str, String)> {
        By::ALL.iter().map(|(b, name, _)| (*b, *name, self.range.by_words(*b))).collect()
    }

    /// The days a week can start on, as the form offers them: the
    /// `start_of_week` value, the day's name, whether chosen now.
    pub fn week_options(&self) -> Vec<(String, &'static str, bool)> {
        let days = std::iter::successors(Some(Weekday::Mon), |d| Some(d.succ())).take(7);
        days.map(|d| {
            let name = crate::config::weekday_name(d);
            (name.to_lowercase(), name, d == self.range.week_start)
        })
        .collect()
    }

    /// `since`, `until` as the form shows them.
    pub fn since_text(&self) -> String {
        self.range.since.map(|d| d.to_string()).unwrap_or_default()
    }

    pub fn until_text(&self) -> String {
        self.range.until.map(|d| d.to_string()).unwrap_or_default()
    }

    /// The estimated-prices banner, when some model's prices are estimated.
    pub fn estimate_note(&self) -> Option<String> {
        Estimate::note(&self.estimated)
    }

    /// True for the navigation entry of this page.
    pub fn is_active(&self, label: &str) -> bool {
        self.active == label
    }

    /// `href` with the page's person and days added: every link between
    /// pages keeps them.
    pub fn link(&self, href: &str) -> String {
        let mut pairs: Vec<(&str, String)> = self.user.iter().map(|u| ("user", u.clone())).collect();
        pairs.extend(self.range.pairs());
        with_pairs(href, &pairs)
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
