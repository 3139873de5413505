//! The in-memory reference of the cache report: the cache model
//! (`analyze::analyze`) run over a whole store's rows, summed as the
//! reference model does. Tests hold the shipped report, which reads the
//! stored verdicts (`report::cache::view`), equal to it. Not in the shipped
//! library: nothing there classifies at view time.

#![allow(dead_code)]

use crate::common::summary::{compactions_by_trigger, idle_gaps, idle_sum, summarize_where, IdleGap, SummaryOptions};
use cachewise::analyze::{
    analyze, compaction_report, last_main, resumability, thread_requests, CompactionParams, RequestCache, IDLE,
    MODEL_VERSION,
};
use cachewise::config::DEFAULT_CLEANUP_DAYS;
use cachewise::model::{Compaction, Request};
use cachewise::pricing::{Estimate, PriceTable};
use cachewise::report::cache::{find_session, CacheQuery, CacheReport};
use cachewise::report::resume::not_resumable;
use cachewise::store::{frames, Store, Table};
use chrono::{DateTime, Utc};
use std::collections::{BTreeSet, HashMap};

/// Requests with their cache classification, compactions and titles.
#[derive(Debug, Clone, Default)]
pub(crate) struct CacheData {
    pub requests: Vec<Request>,
    /// `caches[i]` classifies `requests[i]`.
    pub caches: Vec<RequestCache>,
    pub compactions: Vec<Compaction>,
    pub titles: HashMap<String, String>,
    /// Models among `requests` priced as their family's newest version.
    pub estimated_models: Vec<Estimate>,
    /// The gaps of the idle-compaction what-if, priced once at load.
    pub idle_gaps: Vec<IdleGap>,
}

impl CacheData {
    /// Loads the store's tables and runs the cache model over all of them.
    pub(crate) fn load(store: &Store, prices: &PriceTable) -> CacheData {
        let requests = match store.read(Table::Requests).unwrap() {
            Some(df) => frames::requests_from(&df).unwrap(),
            None => Vec::new(),
        };
        let calls = store.load(Table::Calls, frames::calls_from).unwrap();
        let requests = thread_requests(prices, requests, &calls);
        let compactions = store.load(Table::Compactions, frames::compactions_from).unwrap();
        let titles = match store.read(Table::SessionTotals).unwrap() {
            Some(df) => {
                let k = frames::Cols(&df);
                let (ids, titles) = (k.str("session_id").unwrap(), k.str("title").unwrap());
                ids.iter()
                    .zip(&titles)
                    .filter(|(_, t)| !t.is_empty())
                    .map(|(i, t)| (i.to_string(), t.to_string()))
                    .collect()
            }
            None => HashMap::new(),
        };
        CacheData::new(requests, compactions, titles, prices)
    }

    /// Classifies in-memory rows (each request one call).
    pub(crate) fn new(
        requests: Vec<Request>,
        compactions: Vec<Compaction>,
        titles: HashMap<String, String>,
        prices: &PriceTable,
    ) -> CacheData {
        let caches = analyze(&requests, &compactions, prices);
        let models: BTreeSet<&str> = requests.iter().map(|r| r.model.as_str()).collect();
        let estimated_models = prices.estimated_models(models);
        let idle_gaps = idle_gaps(&requests, &caches, prices);
        CacheData { requests, caches, compactions, titles, estimated_models, idle_gaps }
    }

    /// Finds a session by full id, unique id prefix, or title.
    pub(crate) fn resolve_session(&self, text: &str) -> String {
        let mut ids: Vec<&str> = self.requests.iter().map(|r| r.session_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        find_session(&ids, &self.titles, text).unwrap()
    }
}

/// The cache report of the requests `q` selects, as of `now`.
pub(crate) fn cache_report(data: &CacheData, q: &CacheQuery, now: DateTime<Utc>) -> CacheReport {
    let tz = q.query.tz;
    let day_of = move |t: DateTime<Utc>| t.with_timezone(&tz).format("%Y-%m-%d").to_string();
    let include = |r: &Request| {
        q.session.as_ref().is_none_or(|s| r.session_id == *s)
            && q.query.accepts_parts(&r.user, &r.project, &r.cwd, r.time)
    };
    let opts = SummaryOptions { now, titles: &data.titles, day_of: &day_of };
    let s = summarize_where(&data.requests, &data.caches, &opts, &include);
    // A person's copy of a session is theirs: another person's copy of the
    // same session id is not among the selected sessions.
    let sessions: std::collections::HashSet<(&str, &str)> =
        s.by_session.iter().map(|x| (x.user.as_str(), x.session_id.as_str())).collect();
    let compaction = compaction_report(&data.requests, &data.caches, &data.compactions, &CompactionParams::default())
        .into_iter()
        .filter(|c| sessions.contains(&(c.user.as_str(), c.session_id.as_str())))
        .collect();
    let models: BTreeSet<&str> = data.requests.iter().filter(|r| include(r)).map(|r| r.model.as_str()).collect();
    let estimated_models =
        data.estimated_models.iter().filter(|e| models.contains(e.model.as_str())).cloned().collect();
    let by_trigger = compactions_by_trigger(&data.requests, &data.compactions, &include);
    let idle = by_trigger.get(IDLE).copied().unwrap_or(0);
    let idle_compaction = idle_sum(&data.idle_gaps, &data.requests, &include, idle);
    // Resumable (cache-model §8.3) at the default cleanup period, no
    // transcript known deleted: what a view without Claude Code's state
    // says; a person's session in a team store is theirs to resume.
    let mut states = s.stale;
    for st in states.iter_mut() {
        st.not_resumable = resumability(&st.user, st.last, now, DEFAULT_CLEANUP_DAYS, false);
    }
    let with_main = last_main(&data.requests);
    let without_main = s
        .by_session
        .iter()
        .filter(|x| !with_main.contains_key(&(x.user.as_str(), x.session_id.as_str())))
        .map(|x| (x.user.clone(), x.session_id.clone(), x.title.clone(), x.project.clone()));
    let not_resumable = not_resumable(&states, without_main, DEFAULT_CLEANUP_DAYS);
    let stale = states.into_iter().filter(|st| st.not_resumable.is_none()).collect();
    let mut server = cachewise::analyze::ServerReasons::default();
    for (r, k) in data.requests.iter().zip(&data.caches).filter(|(r, _)| include(r)) {
        server.add(k.class, &r.server_reason, k.gap_s.is_some_and(|g| g > f64::from(k.ttl_s)));
    }
    CacheReport {
        model: MODEL_VERSION,
        total: s.total,
        compactions_by_trigger: by_trigger,
        idle_compaction,
        stale,
        not_resumable,
        warnings: Vec::new(),
        server,
        live_agreement: Default::default(),
        by_day: s.by_day,
        // Per version: held to the totals by `materialized`, not recomputed here.
        versions: Vec::new(),
        context: Default::default(),
        by_session: s.by_session,
        compaction,
        now,
        estimated_models,
        usage: None,
        lists: None,
    }
}
