//! Generated transcript histories for property tests: events (responses,
//! replays into another file, sidechain replays, titles, compactions,
//! microcompacts, responses made of several API calls) spread over three
//! files, and the steps that grow, rewrite, cut short or delete them. The
//! clock advances by a few minutes or past an hour between events, over two
//! models and two versions, so sessions share cache prefixes within 5 min
//! and 1 h, and miss them.

use super::{compact_line, t0, title_line, Resp};
use chrono::Duration;
use proptest::prelude::*;
use std::path::Path;

/// One event: (file, kind, response number, output, shape). Kinds: 0 a new
/// response, 1 a replay of a response of another file, 2 a sidechain replay
/// (same message, another request id), 3 a title, 4 a compaction, 5 a
/// response of two API calls (`usage.iterations`), 6 a microcompact, 7 a
/// new response. `shape` picks the gap before it, the model and version,
/// 1h writes, and a cache miss.
pub(crate) type Event = (usize, u8, u64, u64, u8);

pub(crate) fn events() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec((0usize..3, 0u8..8, 0u64..6, 1u64..900, any::<u8>()), 1..24)
}

/// One step: (file, lines to add, rewrite the file, leave half a line at
/// the end, delete the file).
pub(crate) type Step = (usize, usize, bool, bool, bool);

pub(crate) fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = (0usize..3, 0usize..6, prop::bool::weighted(0.15), any::<bool>(), prop::bool::weighted(0.1));
    prop::collection::vec(step, 1..10)
}

const MODELS: [&str; 2] = ["claude-sonnet-4-5-20250929", "claude-opus-4-6"];
const VERSIONS: [&str; 2] = ["2.1.39", "2.1.40"];
/// Minutes before an event, by `shape % 8`.
const GAPS: [i64; 8] = [0, 1, 3, 3, 4, 7, 61, 70];

/// The lines of each of the three files, as the events make them.
pub(crate) fn files(events: &[Event]) -> Vec<(String, Vec<String>)> {
    let mut files: Vec<(String, Vec<String>)> =
        (0..3).map(|f| (format!("-p{}/s{f}.jsonl", f % 2), Vec::new())).collect();
    let mut minutes = 0i64;
    for (i, &(f, kind, n, out, shape)) in events.iter().enumerate() {
        minutes += GAPS[usize::from(shape % 8)];
        let session = format!("s{f}");
        let mut r = Resp::new(&session, n, minutes);
        r.out = out;
        r.lines = 1 + (out % 3) as usize;
        r.model = MODELS[usize::from(shape >> 3 & 1)].into();
        r.version = VERSIONS[usize::from(shape >> 4 & 1)].into();
        if shape >> 5 & 1 == 1 {
            (r.w1h, r.w5) = (r.w5 + 700, 0);
        }
        if shape >> 6 & 1 == 1 {
            r.read = 0;
        }
        match kind {
            1 => {
                let other = format!("s{}", (f + 1) % 3);
                (r.msg, r.req) = (format!("msg_{other}_{n}"), format!("req_{other}_{n}"));
            }
            2 => {
                r.sidechain = true;
                r.req = format!("req_side_{i}");
                r.msg = format!("msg_s{}_{n}", (f + 2) % 3);
            }
            7 => (r.msg, r.req) = (format!("msg_{session}_late_{i}"), format!("req_{session}_late_{i}")),
            _ => {}
        }
        // A boundary line may be logged up to 6 minutes after its time, so
        // it can fall before responses already read.
        let back = minutes - (out % 7) as i64;
        let lines = match kind {
            3 => vec![title_line(&session, &format!("title {i}"))],
            4 => vec![compact_line(&session, back, 1000 + out)],
            5 => vec![two_calls(&r, shape)],
            6 => vec![microcompact_line(&session, back, i, out)],
            _ => r.to_lines(),
        };
        files[f].1.extend(lines);
    }
    files
}

/// The last line of `r` with its usage split into two `message` calls (the
/// second on the other model when `shape` says so).
fn two_calls(r: &Resp, shape: u8) -> String {
    let Some(last) = r.to_lines().pop() else { return String::new() };
    let mut v: serde_json::Value = serde_json::from_str(&last).unwrap_or_default();
    let call = |model: &str, input: u64, w5: u64, w1h: u64, read: u64, out: u64| {
        serde_json::json!({"type": "message", "model": model, "input_tokens": input,
            "cache_creation_input_tokens": w5 + w1h, "cache_read_input_tokens": read, "output_tokens": out,
            "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1h}})
    };
    let second = if shape & 0x80 != 0 { MODELS[usize::from(shape >> 3 & 1 != 1)] } else { r.model.as_str() };
    let calls = vec![
        call(&r.model, r.input, r.w5, r.w1h, r.read, r.out / 2),
        call(second, 1, 300, 0, r.read + r.w5 + r.w1h, r.out - r.out / 2),
    ];
    v["message"]["usage"]["iterations"] = serde_json::Value::Array(calls);
    v.to_string()
}

fn microcompact_line(session: &str, minutes: i64, i: usize, out: u64) -> String {
    let ts = (t0() + Duration::minutes(minutes)).format("%Y-%m-%dT%H:%M:%S%.3fZ");
    format!(
        r#"{{"parentUuid":"x","type":"system","subtype":"microcompact_boundary","content":"c","sessionId":"{session}","timestamp":"{ts}","uuid":"mc-{i}","microcompactMetadata":{{"trigger":"auto","preTokens":{pre},"tokensSaved":{out}}}}}"#,
        pre = 20_000 + out
    )
}

/// Writes the first `n` lines of a file (without its first line when
/// rewritten), optionally followed by half of the next line.
pub(crate) fn write_prefix(root: &Path, file: &(String, Vec<String>), n: usize, rewritten: bool, partial: bool) {
    let lines = &file.1[usize::from(rewritten).min(n)..n];
    let mut body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    if let Some(next) = file.1.get(n).filter(|_| partial) {
        body.push_str(&next[..next.len() / 2]);
    }
    let path = root.join("projects").join(&file.0);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

/// Plays `steps` on the tree under `root`, calling `after` once per step;
/// returns which files ended up rewritten.
pub(crate) fn play(
    root: &Path,
    files: &[(String, Vec<String>)],
    steps: &[Step],
    mut after: impl FnMut(usize),
) -> Vec<bool> {
    let mut shown = vec![0usize; files.len()];
    let mut rewritten = vec![false; files.len()];
    for (k, &(f, grow, rewrite, partial, delete)) in steps.iter().enumerate() {
        let f = f % files.len();
        let path = root.join("projects").join(&files[f].0);
        if delete && path.exists() {
            std::fs::remove_file(&path).unwrap();
        } else {
            shown[f] = (shown[f] + grow).min(files[f].1.len());
            rewritten[f] |= rewrite && shown[f] > 1;
            write_prefix(root, &files[f], shown[f], rewritten[f], partial);
        }
        after(k);
    }
    rewritten
}

/// Writes every file complete, as last rewritten.
pub(crate) fn finish(root: &Path, files: &[(String, Vec<String>)], rewritten: &[bool]) {
    for (file, &r) in files.iter().zip(rewritten) {
        write_prefix(root, file, file.1.len(), r, false);
    }
}
