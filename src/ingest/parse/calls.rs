//! The API calls inside a response (`usage.iterations`, reference §2.4):
//! read and bounded per line, kept for the line that wins its request, and
//! handed out as call rows when the file is done.

use super::{FileParser, FileRows, LineCall};
use crate::ingest::line::Usage;
use crate::ingest::usage::counts;
use crate::model::calls::{self, Call};
use crate::model::{TokenCounts, MAX_TOKENS};

impl FileParser<'_, '_> {
    pub(super) fn keep_calls(&mut self, i: usize, calls: Vec<LineCall>) {
        match calls.is_empty() {
            true => self.calls.remove(&i),
            false => self.calls.insert(i, calls),
        };
    }

    /// The line's `usage.iterations`, each call's model defaulting to the
    /// message's; too long a list fails the line.
    pub(super) fn calls_of(&mut self, usage: &Usage, model: &str) -> Result<Vec<LineCall>, String> {
        let Some(list) = &usage.iterations else { return Ok(Vec::new()) };
        if list.len() > calls::MAX_PER_LINE {
            return Err(format!("usage.iterations has {} entries (at most {})", list.len(), calls::MAX_PER_LINE));
        }
        let mut out = Vec::with_capacity(list.len());
        for (k, it) in list.iter().enumerate() {
            let kind = self.names.get(&calls::clean(it.kind.get().unwrap_or(calls::MESSAGE)));
            let model = self.names.get(&calls::clean(it.model.get().unwrap_or(model)));
            let write = it.cache_creation_input_tokens.unwrap_or(0);
            let (input, read, output) = (it.input_tokens, it.cache_read_input_tokens, it.output_tokens);
            let tokens = counts(input, write, it.cache_creation.as_ref(), read, output);
            // The same bound as the top-level usage, per call and for their sum.
            if let Some((field, v)) = tokens.above_bound() {
                return Err(format!(
                    "usage.iterations[{k}].{field} {v} is above the bound of {MAX_TOKENS} tokens per request"
                ));
            }
            out.push((kind, model, tokens));
        }
        let sum: TokenCounts = out.iter().map(|c| c.2).sum();
        if let Some((field, v)) = sum.above_bound() {
            return Err(format!(
                "usage.iterations sum to {v} {field}, above the bound of {MAX_TOKENS} tokens per request"
            ));
        }
        Ok(out)
    }

    /// The rows, with the kept lines' calls as `Call` rows.
    pub(super) fn finish(mut self) -> FileRows {
        self.carry_calls();
        let mut calls: Vec<(usize, Vec<LineCall>)> = self.calls.drain().collect();
        calls.sort_unstable_by_key(|(i, _)| *i);
        for (i, list) in calls {
            let r = &self.rows.requests[i];
            self.rows.calls.extend(list.into_iter().enumerate().map(|(k, (kind, model, tokens))| Call {
                user: r.user.clone(),
                message_id: r.message_id.clone(),
                request_id: r.request_id.clone(),
                source: r.source.clone(),
                line: r.line,
                index: u32::try_from(k).unwrap_or(u32::MAX),
                kind,
                model,
                tokens,
                cost_usd: 0.0,
            }));
        }
        self.rows
    }
}
