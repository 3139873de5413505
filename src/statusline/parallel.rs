//! A long read (a first call on a transcript the store does not hold)
//! parsed on every core: the bytes are cut at line ends, each part goes
//! through the ingest's parser, and the parts' requests are merged by
//! `(message id, request id)` the way the parser merges them within one
//! part (the line with the most output wins, the first line's time stays).

use crate::ingest::discover::SourceFile;
use crate::ingest::parse::{parse_bytes, FileRows, Start};
use crate::ingest::sidechain::Links;
use chrono::{DateTime, Utc};
use foldhash::HashMap;
use rayon::prelude::*;

/// Reads shorter than this are parsed on one core.
pub const PARALLEL_ABOVE: usize = 4 << 20;

/// `parse_bytes` over `data` (complete lines) at the clock `now`, in
/// parallel when long.
pub fn parse(file: &SourceFile, data: &[u8], start: Start, now: DateTime<Utc>) -> FileRows {
    let parts = rayon::current_num_threads().max(1);
    if data.len() < PARALLEL_ABOVE || parts == 1 {
        return parse_bytes(file, data, start, &mut Links::default(), now);
    }
    let mut cuts = vec![0usize];
    for k in 1..parts {
        let at = data.len() * k / parts;
        if let Some(i) = memchr::memchr(b'\n', &data[at..]) {
            let cut = at + i + 1;
            if cut > cuts[cuts.len() - 1] && cut < data.len() {
                cuts.push(cut);
            }
        }
    }
    cuts.push(data.len());
    let mut starts = Vec::with_capacity(cuts.len());
    let mut line = start.line;
    for w in cuts.windows(2) {
        starts.push(Start { offset: start.offset + w[0] as u64, line });
        line += memchr::memchr_iter(b'\n', &data[w[0]..w[1]]).count() as u64;
    }
    let rows: Vec<FileRows> = cuts
        .par_windows(2)
        .zip(starts)
        .map(|(w, s)| parse_bytes(file, &data[w[0]..w[1]], s, &mut Links::default(), now))
        .collect();
    merge(rows)
}

fn merge(parts: Vec<FileRows>) -> FileRows {
    let mut out = FileRows::default();
    let mut by_key: HashMap<(String, String), usize> = HashMap::default();
    for part in parts {
        out.end = part.end;
        out.compactions.extend(part.compactions);
        out.titles.extend(part.titles);
        // Each part's calls are keyed by the line they were read from, so
        // the kept request's line finds its own.
        out.calls.extend(part.calls);
        out.problems += part.problems;
        for r in part.requests {
            let key = (r.message_id.clone(), r.request_id.clone());
            match by_key.get(&key) {
                Some(&i) => {
                    let first = out.requests[i].time.min(r.time);
                    if r.tokens.output > out.requests[i].tokens.output {
                        out.requests[i] = r;
                    }
                    out.requests[i].time = first;
                }
                None => {
                    by_key.insert(key, out.requests.len());
                    out.requests.push(r);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_merge_to_what_one_pass_gives() {
        let mut text = String::new();
        for n in 0..40_000u32 {
            // Two lines per response, the second with the real output; a
            // response every 10 straddles its neighbour's lines.
            let msg = if n % 10 == 0 { n.saturating_sub(1) / 2 } else { n / 2 };
            text.push_str(&format!(
                r#"{{"type":"assistant","sessionId":"s","timestamp":"2026-11-30T10:00:{:02}.000Z","requestId":"r{msg}","message":{{"id":"m{msg}","model":"claude-opus-4-6","content":[{{"type":"text","text":"{}"}}],"usage":{{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":{}}}}}}}"#,
                n % 60,
                "x".repeat(80),
                n % 7 + 1
            ));
            text.push('\n');
        }
        let file = SourceFile {
            path: "s.jsonl".into(),
            project: "p".into(),
            session: Some("s".into()),
            agent: None,
            size: 0,
            mtime_ns: 0,
        };
        let start = Start { offset: 7, line: 3 };
        let now = Utc::now();
        let one = parse_bytes(&file, text.as_bytes(), start, &mut Links::default(), now);
        let many = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap()
            .install(|| parse(&file, text.as_bytes(), start, now));
        assert!(text.len() > PARALLEL_ABOVE);
        assert_eq!(many.requests, one.requests);
        assert_eq!((many.end.offset, many.end.line), (one.end.offset, one.end.line));
    }
}
