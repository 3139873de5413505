//! Export's half of the name rule (`model::name`): every text value of a
//! bundle's rows (requests, their calls, compactions and analysis rows) is
//! written as `model::safe_name` makes it (control and bidi characters as
//! U+FFFD, cut to `MAX_NAME` bytes), so the lead's import, which refuses
//! such values, accepts a bundle made from any transcript tree. Only names
//! change, the same way on every row, so the rows still match each other
//! (a call its request, an analysis row its request) and every count and
//! dollar survives. Hands the export what changed (`Renamed`), for a note.

use super::bundle::Bundle;
use crate::model::{safe_name, Text, MAX_NAME};
use foldhash::{HashMap as FoldMap, HashSet as FoldSet};
use polars::prelude::*;
use std::borrow::Cow;

/// The values an export changed to keep the rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renamed {
    /// Distinct values changed.
    pub values: usize,
    /// The first one met: which column of which session (both as written).
    pub first: Option<(&'static str, String)>,
}

impl Renamed {
    /// One line for the person exporting, or None when nothing changed.
    pub fn describe(&self) -> Option<String> {
        let first = match &self.first {
            _ if self.values == 0 => return None,
            Some((column, session)) => format!(" (first: the {column} of session {session:?})"),
            None => String::new(),
        };
        Some(format!(
            "{} name(s) held control or bidi characters or were over {MAX_NAME} bytes{first}; \
             the bundle carries them with U+FFFD in those characters' place, cut to {MAX_NAME} bytes, \
             as import requires; every count and cost is kept",
            self.values
        ))
    }
}

/// Makes every text value of `b`'s rows a name (`safe_name`).
pub fn neutralise(b: &mut Bundle) -> PolarsResult<Renamed> {
    let mut n = Names::default();
    for r in &mut b.requests {
        let session = r.session_id.clone();
        for (column, t) in [
            ("session id", &mut r.session_id),
            ("thread", &mut r.thread),
            ("project", &mut r.project),
            ("cwd", &mut r.cwd),
            ("git branch", &mut r.git_branch),
            ("version", &mut r.version),
            ("model", &mut r.model),
            ("speed", &mut r.speed),
            ("inference geo", &mut r.inference_geo),
            ("server reason", &mut r.server_reason),
            ("query source", &mut r.client.query_source),
            ("shape hash", &mut r.client.shape_hash),
            ("TTL asked", &mut r.client.ttl_asked),
            ("source file", &mut r.source),
        ] {
            n.text(t, column, &session);
        }
        n.string(&mut r.message_id, "message id", &session);
        n.string(&mut r.request_id, "request id", &session);
    }
    for i in &mut b.calls {
        for t in [&mut i.source, &mut i.kind, &mut i.model] {
            n.text(t, "call", "");
        }
        n.string(&mut i.message_id, "call", "");
        n.string(&mut i.request_id, "call", "");
    }
    for c in &mut b.compactions {
        let session = c.session_id.clone();
        for s in [&mut c.session_id, &mut c.trigger, &mut c.source, &mut c.uuid] {
            n.string(s, "compaction", &session);
        }
    }
    if let Some(a) = &mut b.analysis {
        frame(&mut a.rows)?;
    }
    Ok(Renamed { values: n.seen.len(), first: n.first })
}

/// The values changed so far: each one's new form, shared by every row
/// that holds it.
#[derive(Default)]
struct Names {
    seen: FoldSet<String>,
    texts: FoldMap<Text, Text>,
    first: Option<(&'static str, String)>,
}

impl Names {
    /// The name of `s`, None when `s` is one; counts it.
    fn changed(&mut self, s: &str, column: &'static str, session: &str) -> Option<String> {
        let Cow::Owned(new) = safe_name(s) else { return None };
        if self.seen.insert(s.to_owned()) && self.first.is_none() && !session.is_empty() {
            self.first = Some((column, safe_name(session).into_owned()));
        }
        Some(new)
    }

    fn text(&mut self, t: &mut Text, column: &'static str, session: &str) {
        if matches!(safe_name(t), Cow::Borrowed(_)) {
            return;
        }
        if let Some(new) = self.texts.get(t.as_str()) {
            *t = new.clone();
        } else if let Some(new) = self.changed(t, column, session) {
            let new = Text::from(new);
            self.texts.insert(t.clone(), new.clone());
            *t = new;
        }
    }

    fn string(&mut self, s: &mut String, column: &'static str, session: &str) {
        if let Some(new) = self.changed(s, column, session) {
            *s = new;
        }
    }
}

/// Every text column of an analysis frame made names; its values were
/// counted on the request rows they mirror.
fn frame(df: &mut DataFrame) -> PolarsResult<()> {
    let names: Vec<PlSmallStr> =
        df.columns().iter().filter(|c| c.dtype() == &DataType::String).map(|c| c.name().clone()).collect();
    for name in names {
        let values = df.column(&name)?.str()?;
        if values.iter().flatten().all(|v| matches!(safe_name(v), Cow::Borrowed(_))) {
            continue;
        }
        let named: StringChunked = values.apply_values(safe_name);
        df.with_column(named.with_name(name).into_column())?;
    }
    Ok(())
}
