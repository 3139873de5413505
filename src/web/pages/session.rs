//! `/session/{id}`: one session's cache timeline (per request of a thread:
//! prompt split read / written / uncached, idle gap against the TTLs,
//! misses with their cause, compactions and model switches), its threads,
//! totals, advisor and fallback calls with the refusal fallbacks, and the resume / compact / restart advice for now with an
//! adjustable number of turns.

use crate::analyze::{self, Advice, ClassTable};
use crate::model::{Compaction, Refusal, MAIN_THREAD};
use crate::report::cache::words::{advice_words, AdviceWords};
use crate::report::charts;
use crate::report::labels;
use crate::report::session::list::SessionRow;
use crate::report::session::timeline::{session_timeline, ThreadSummary, TimelineRow};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::Params;
use crate::web::snapshot::Snapshot;
use crate::web::state::AppState;
use crate::web::view::{Formats, Num};
use askama::Template;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use std::sync::Arc;

/// Timeline requests per page.
pub const PER_PAGE: usize = 250;

#[derive(Template)]
#[template(path = "session.html")]
pub struct SessionPage {
    pub chrome: Chrome,
    pub row: SessionRow,
    pub threads: Vec<ThreadSummary>,
    pub thread: String,
    pub rows: Vec<TimelineRow>,
    /// 1-based number of the first row shown.
    pub first_number: usize,
    pub page: usize,
    pub pages: usize,
    pub chart: String,
    pub compactions: Vec<Compaction>,
    /// `model_refusal_fallback` lines of the session, by time.
    pub refusals: Vec<Refusal>,
    pub classes: ClassTable,
    pub advice: Option<Advice>,
    pub turns: u32,
    pub now: DateTime<Utc>,
}

impl Formats for SessionPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl SessionPage {
    pub fn thread_href(&self, thread: &str) -> String {
        format!("{}?thread={}", super::session_href(&self.row.session_id), crate::web::params::encode(thread))
    }

    pub fn page_href(&self, page: impl Num) -> String {
        format!("{}&page={}", self.thread_href(&self.thread), page.value() as usize)
    }

    pub fn class_rows(&self) -> Vec<(&'static str, &'static str, analyze::ClassStats)> {
        analyze::CacheClass::ALL.iter().map(|&c| (c.as_str(), labels::class(c), *self.classes.get(c))).collect()
    }

    /// A request's cause in words (`analyze::cause_of`: the server's first).
    pub fn cause_words(&self, r: &TimelineRow) -> String {
        labels::cause(&r.cause())
    }

    /// Who named a request's cause, and cachewise's own class beside the
    /// server's when they differ.
    pub fn named_by(&self, r: &TimelineRow) -> String {
        let by = crate::report::cache::misses::named_by(r.cause_from);
        match r.cause().by_server() {
            true if r.class.is_miss() => format!("{by} (cachewise: {})", labels::class(r.class)),
            true => format!("{by} (cachewise: a hit)"),
            false => by.to_owned(),
        }
    }

    pub fn boundary(&self, c: &Compaction) -> &'static str {
        labels::boundary(c.boundary)
    }

    pub fn trigger(&self, c: &Compaction) -> String {
        labels::trigger(&c.trigger)
    }

    /// The advice in words: decision, why, the price of starting over.
    pub fn words(&self, a: &Advice) -> AdviceWords {
        advice_words(a)
    }

    pub fn turns_text(&self, a: &Advice) -> String {
        labels::plural(u64::from(a.turns), "turn", "turns")
    }

    pub fn is_compact(&self, a: &Advice) -> bool {
        a.recommendation == analyze::Recommendation::Compact
    }

    pub fn number(&self, i: impl Num) -> usize {
        self.first_number + i.value() as usize
    }

    pub fn gap(&self, r: &TimelineRow) -> String {
        r.gap_s.map_or_else(|| "–".to_owned(), crate::web::view::duration)
    }

    /// The cache lifetime in force at a request: none before a thread's first.
    pub fn lifetime(&self, r: &TimelineRow) -> String {
        match r.gap_s {
            Some(_) => crate::web::view::duration(f64::from(r.ttl_s)),
            None => "–".to_owned(),
        }
    }

    /// Seconds until (positive) or since (negative) the cache expires.
    pub fn expiry(&self, a: &Advice) -> String {
        let left = (a.expires_at - self.now).num_seconds();
        if left >= 0 {
            format!("warm for {} more", crate::web::view::duration(left as f64))
        } else {
            format!("expired {} ago", crate::web::view::duration(-left as f64))
        }
    }
}

/// Everything the page shows, computed off the async threads.
fn build(state: &AppState, snap: &Arc<Snapshot>, id: &str, p: &Params, turns: u32) -> Result<SessionPage, WebError> {
    let not_found = || WebError::NotFound(format!("session {id:?}"));
    let row = super::everyone(snap)?.session_row(id).cloned().ok_or_else(not_found)?;
    let d = snap.session(id)?;
    let indices: Vec<usize> = (0..d.requests.len()).collect();
    let tl = session_timeline(id, &d.requests, &d.caches, &indices, &d.compactions).ok_or_else(not_found)?;
    let thread = Params::text(&p.thread).unwrap_or_else(|| {
        tl.threads
            .iter()
            .find(|t| t.thread == MAIN_THREAD)
            .or(tl.threads.first())
            .map_or_else(String::new, |t| t.thread.clone())
    });
    let rows: Vec<&TimelineRow> = tl.thread_rows(&thread);
    if rows.is_empty() {
        return Err(WebError::bad("thread", format!("session has no thread {thread:?}")));
    }
    let pages = rows.len().div_ceil(PER_PAGE).max(1);
    let page = p.page()?.min(pages);
    let shown: Vec<&TimelineRow> = rows.iter().skip((page - 1) * PER_PAGE).take(PER_PAGE).copied().collect();
    let now = snap.now();
    // The id is exact (it has requests), so this is `cachewise advise`
    // without its text -> id resolution. None: no main thread, nothing to
    // resume; the page says so.
    let advice = match snap.advise(id, turns) {
        Ok(a) => Some(a),
        Err(crate::report::ReportError::NoMainThread(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let refusals: Vec<Refusal> = snap
        .view
        .refusals()
        .map_err(crate::report::ReportError::from)?
        .iter()
        .filter(|r| r.session_id == id)
        .cloned()
        .collect();
    Ok(SessionPage {
        chrome: Chrome::new(state, snap, "Sessions", p)
            .without_range()
            .with_json(&format!("/api/session/{}", crate::web::params::encode(id))),
        chart: charts::timeline(&shown, 1100, snap.tz),
        rows: shown.into_iter().cloned().collect(),
        first_number: (page - 1) * PER_PAGE + 1,
        page,
        pages,
        row,
        threads: tl.threads,
        thread,
        compactions: tl.compactions,
        refusals,
        classes: tl.classes,
        advice,
        turns,
        now,
    })
}

/// `GET /session/{id}?thread=&page=&turns=`; an id's unique prefix (the
/// 8 characters reports print) or a title redirects to the session's page.
pub async fn page(State(state): State<AppState>, Path(id): Path<String>, params: Params) -> Result<Response, WebError> {
    let turns = params.turns()?;
    let snap = state.snapshot();
    let st = state.clone();
    let built = super::blocking(move || match super::everyone(&snap)?.session_row(&id) {
        Some(_) => build(&st, &snap, &id, &params, turns).map(Ok),
        None => Ok(Err(snap.view.resolve_session(&id).map_err(|_| WebError::NotFound(format!("session {id:?}")))?)),
    })
    .await?;
    match built {
        Ok(page) => Ok(render(&page)?.into_response()),
        Err(full) => Ok(Redirect::to(&super::session_href(&full)).into_response()),
    }
}
