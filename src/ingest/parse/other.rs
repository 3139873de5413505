//! The lines of a transcript other than responses: compaction and
//! microcompaction boundaries, model-refusal fallbacks, session titles,
//! Claude Code's own running totals (`cost-state`), and a line of a type
//! cachewise does not read that carries token usage (named, not counted).

use super::FileParser;
use crate::ingest::line::{Line, ModelUsage};
use crate::ingest::usage::bounded;
use crate::model::calls::{self, Refusal};
use crate::model::{
    Boundary, Compaction, CostReading, SessionTitle, TitleKind, TokenCounts, DEFAULT_TRIGGER, MAX_TOKENS,
};

/// The largest running total a `cost-state` line may carry per token
/// class: a million requests at the per-request bound. Above it the line
/// is damaged or hostile.
pub(super) const MAX_TOTAL_TOKENS: u64 = MAX_TOKENS * 1_000_000;
/// Most models one `cost-state` line may name.
const MAX_MODELS: usize = 64;

impl FileParser<'_, '_> {
    /// A line of a type cachewise does not read, with token usage: a cost
    /// it would miss without a word, so the line is named as skipped (the
    /// format of a Claude Code newer than cachewise knows).
    pub(super) fn uncounted_usage(&mut self, l: &Line, line_no: u64) {
        let kind = match super::client::token(l.kind.as_str(), 40) {
            "" => "an unreadable type".to_owned(),
            kind => format!("type \"{kind}\""),
        };
        self.bad(
            line_no,
            format!("a line of {kind} carries token usage cachewise does not count (a newer Claude Code's format?)"),
        );
    }

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
        if boundary == Boundary::Compact {
            self.compacted = true;
        }
    }

    /// A `cost-state` line: one reading per model, at the last timestamp
    /// written before it (it carries none; a line with none before it in
    /// this read is passed over: it cannot be placed among the requests).
    pub(super) fn cost_state(&mut self, l: &Line, line_no: u64) {
        let Some(models) = l.model_usage.0.as_ref() else { return };
        let Some(time) = self.stamp else { return };
        if models.len() > MAX_MODELS {
            return self.bad(line_no, format!("cost-state names {} models (at most {MAX_MODELS})", models.len()));
        }
        let mut readings = Vec::with_capacity(models.len());
        for (model, usage) in models {
            let (tokens, web_search) = match totals(usage) {
                Ok(t) => t,
                Err(why) => return self.bad(line_no, format!("cost-state of {}: {why}", calls::clean(model))),
            };
            readings.push(CostReading {
                user: String::new(),
                session_id: self.session(l),
                source: self.same.source.to_string(),
                line: line_no,
                time,
                start_ms: l.start_time.0.unwrap_or(0),
                model: calls::clean(model),
                tokens,
                web_search,
                claude_cost_usd: usage.cost_usd.0.filter(|c| c.is_finite() && *c >= 0.0).unwrap_or(0.0),
                compacted: self.compacted,
            });
        }
        self.rows.readings.extend(readings);
        self.compacted = false;
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

/// A model's running totals as token counts and web searches (a missing
/// 5m/1h split counts as 5m, as on a response); a total above
/// `MAX_TOTAL_TOKENS` is refused.
fn totals(u: &ModelUsage) -> Result<(TokenCounts, u64), String> {
    let fields = [
        ("inputTokens", u.input.0),
        ("outputTokens", u.output.0),
        ("cacheReadInputTokens", u.read.0),
        ("cacheCreationInputTokens", u.write.0),
        ("cacheCreationEphemeral5mInputTokens", u.write_5m.0),
        ("cacheCreationEphemeral1hInputTokens", u.write_1h.0),
        ("webSearchRequests", u.web_search.0),
    ];
    if let Some((name, v)) = fields.iter().find_map(|(n, v)| v.filter(|&v| v > MAX_TOTAL_TOKENS).map(|v| (n, v))) {
        return Err(format!("{name} {v} is above the bound of {MAX_TOTAL_TOKENS}"));
    }
    let (w5, w1h) = match (u.write_5m.0, u.write_1h.0) {
        (None, None) => (u.write.0.unwrap_or(0), 0),
        (a, b) => (a.unwrap_or(0), b.unwrap_or(0)),
    };
    let tokens = TokenCounts {
        input: u.input.0.unwrap_or(0),
        cache_write_5m: w5,
        cache_write_1h: w1h,
        cache_read: u.read.0.unwrap_or(0),
        output: u.output.0.unwrap_or(0),
    };
    Ok((tokens, u.web_search.0.unwrap_or(0)))
}
