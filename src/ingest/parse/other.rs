//! The lines of a transcript other than responses: compaction and
//! microcompaction boundaries, model-refusal fallbacks and session titles.

use super::FileParser;
use crate::ingest::line::Line;
use crate::ingest::usage::bounded;
use crate::model::calls::{self, Refusal};
use crate::model::{Boundary, Compaction, SessionTitle, TitleKind, DEFAULT_TRIGGER, MAX_TOKENS};

impl FileParser<'_, '_> {
    /// A compaction or microcompaction: its time, trigger (written, or
    /// defaulted to `auto`), sizes and uuid; never its content.
    pub(super) fn compaction(&mut self, l: &Line, boundary: Boundary, line_no: u64) {
        let Some(time) = self.time(l, line_no) else { return };
        let meta = match boundary {
            Boundary::Compact => l.compact.as_ref(),
            Boundary::Microcompact => l.microcompact.as_ref(),
        };
        let sizes =
            [("preTokens", meta.and_then(|m| m.pre_tokens.0)), ("tokensSaved", meta.and_then(|m| m.tokens_saved.0))];
        if let Some((name, v)) = sizes.into_iter().find_map(|(n, v)| v.filter(|&v| v > MAX_TOKENS).map(|v| (n, v))) {
            self.bad(line_no, format!("{name} {v} is above the bound of {MAX_TOKENS} tokens"));
            return;
        }
        let written = meta.and_then(|m| m.trigger.get()).map(bounded);
        let session_id = self.session(l);
        let source = self.same.source.to_string();
        self.rows.compactions.push(Compaction {
            session_id,
            time,
            trigger_written: written.is_some(),
            trigger: written.unwrap_or_else(|| DEFAULT_TRIGGER.to_owned()),
            pre_tokens: meta.and_then(|m| m.pre_tokens.0),
            source,
            user: String::new(),
            uuid: bounded(l.uuid.as_str()),
            boundary,
            tokens_saved: meta.and_then(|m| m.tokens_saved.0),
        });
    }

    pub(super) fn refusal(&mut self, l: &Line, line_no: u64) {
        let Some(time) = self.time(l, line_no) else { return };
        let text = |t: &crate::ingest::line::Text| calls::clean(t.as_str());
        let trigger = if l.trigger.get().is_some() { text(&l.trigger) } else { text(&l.category) };
        self.rows.refusals.push(Refusal {
            session_id: self.session(l),
            time,
            original_model: text(&l.original_model),
            fallback_model: text(&l.fallback_model),
            trigger,
            source: self.same.source.to_string(),
        });
    }

    pub(super) fn title(&mut self, l: &Line, kind: TitleKind, title: Option<&str>, line_no: u64) {
        let Some(title) = title else { return };
        let session_id = self.session(l);
        let source = self.same.source.to_string();
        let title = title.chars().take(200).collect();
        self.rows.titles.push(SessionTitle { session_id, kind, seq: line_no, title, source });
    }
}
