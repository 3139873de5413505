//! API calls inside synthetic responses (`usage.iterations`), for the demo:
//! some main-thread responses become an ordinary call plus an advisor call
//! on `claude-fable-5`, others a refused attempt on Fable followed by the
//! fallback on the response's own model. The calls split the response's
//! token counts (every token class sums to the request's), so the request
//! rows, and everything the cache model derives from them, stay as
//! generated; only prices move. Deterministic. Hands on call rows for
//! `ingest::store_rows`.

use crate::model::calls::{ADVISOR, FALLBACK, MESSAGE};
use crate::model::{Call, Request, Text, TokenCounts, MAIN_THREAD};

/// The advisor model, and the model that refuses, in the demo.
pub const ADVISOR_MODEL: &str = "claude-fable-5";

/// Call rows for every `every`-th main-thread request (an advisor
/// call) and every `3 * every`-th one offset by half a period (a refusal
/// and its fallback). `every` of 0 adds none.
pub fn add_calls(requests: &[Request], every: usize) -> Vec<Call> {
    let mut out = Vec::new();
    if every == 0 {
        return out;
    }
    let main = requests.iter().filter(|r| r.thread == MAIN_THREAD);
    for (k, r) in main.enumerate() {
        let t = r.tokens;
        let calls: Vec<(&str, Text, TokenCounts)> = if k % every == every - 1 {
            let advisor = TokenCounts { cache_read: t.cache_read / 4, output: t.output / 3, ..TokenCounts::default() };
            vec![(MESSAGE, r.model.clone(), minus(t, advisor)), (ADVISOR, ADVISOR_MODEL.into(), advisor)]
        } else if k % (3 * every) == every / 2 {
            let refused = TokenCounts {
                input: t.input / 2,
                cache_write_5m: t.cache_write_5m / 2,
                cache_write_1h: t.cache_write_1h / 2,
                cache_read: t.cache_read / 2,
                output: t.output / 10,
            };
            vec![(MESSAGE, ADVISOR_MODEL.into(), refused), (FALLBACK, r.model.clone(), minus(t, refused))]
        } else {
            continue;
        };
        out.extend(calls.into_iter().enumerate().map(|(index, (kind, model, tokens))| Call {
            user: r.user.clone(),
            message_id: r.message_id.clone(),
            request_id: r.request_id.clone(),
            source: r.source.clone(),
            line: r.line,
            index: index as u32,
            kind: kind.into(),
            model,
            tokens,
            cost_usd: 0.0,
        }));
    }
    out
}

/// `a - b` per token class (`b` is a share of `a`).
fn minus(a: TokenCounts, b: TokenCounts) -> TokenCounts {
    TokenCounts {
        input: a.input - b.input,
        cache_write_5m: a.cache_write_5m - b.cache_write_5m,
        cache_write_1h: a.cache_write_1h - b.cache_write_1h,
        cache_read: a.cache_read - b.cache_read,
        output: a.output - b.output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::calls::calls_of;
    use crate::synth::{generate, SynthSpec};
    use chrono::{TimeZone, Utc};

    #[test]
    fn calls_split_the_requests_tokens_and_only_some_requests_get_them() {
        let end = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).single().unwrap_or_default();
        let data = generate(7, &SynthSpec::scaled(end, 10, 24));
        let calls = add_calls(&data.requests, 10);
        let with: Vec<&Request> = data.requests.iter().filter(|r| !calls_of(&calls, r).is_empty()).collect();
        let main = data.requests.iter().filter(|r| r.thread == MAIN_THREAD).count();
        assert_eq!(with.len(), main / 10 + (main + 24) / 30, "k % 10 == 9: advisor; k % 30 == 5: refusal");
        for r in with {
            let own = calls_of(&calls, r);
            assert_eq!(own.iter().map(|c| c.tokens).sum::<TokenCounts>(), r.tokens, "{}", r.message_id);
            assert_eq!(own.len(), 2);
        }
        assert!(calls.iter().any(|c| c.kind == ADVISOR) && calls.iter().any(|c| c.kind == FALLBACK));
    }
}
