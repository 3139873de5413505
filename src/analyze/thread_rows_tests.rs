//! `thread_requests`: a response made of several API calls is one thread
//! request per `message`/`fallback_message` call, so the cache model sees
//! the prompt each call sent (cache-model v2 §1), not their sum.
#![allow(clippy::unwrap_used)]

use crate::analyze::{analyze, thread_requests, thread_rows, CacheClass};
use crate::model::calls::tests::{call, request};
use crate::model::Call;
use crate::model::{Request, TokenCounts};
use crate::pricing::PriceTable;

fn tok(input: u64, w5: u64, w1h: u64, read: u64, output: u64) -> TokenCounts {
    TokenCounts { input, cache_write_5m: w5, cache_write_1h: w1h, cache_read: read, output }
}

fn req(model: &str, time: &str, tokens: TokenCounts) -> Request {
    Request {
        time: time.parse().unwrap(),
        version: "2.1.39".into(),
        message_id: "m".into(),
        request_id: "r".into(),
        source: "test".into(),
        line: 0,
        ..request(model, tokens)
    }
}

/// Three requests of one thread; the middle one made of a message call, an
/// advisor call and a message call (the shape of reference §2.4).
fn thread() -> (Vec<Request>, Vec<Call>) {
    let opus = "claude-opus-4-8";
    let r0 = Request { line: 1, ..req(opus, "2026-05-01T12:00:00Z", tok(1, 0, 1000, 40_000, 100)) };
    let (a, adv, b) = (tok(2, 0, 3176, 41_001, 300), tok(149_112, 0, 0, 0, 14_153), tok(1, 0, 931, 44_179, 200));
    let mut r1 = req(opus, "2026-05-01T12:00:10Z", a + adv + b);
    (r1.line, r1.message_id, r1.request_id) = (2, "msg_2".into(), "req_2".into());
    let calls = vec![
        call(&r1, 0, "message", opus, a),
        call(&r1, 1, "advisor_message", "claude-fable-5", adv),
        call(&r1, 2, "message", opus, b),
    ];
    let mut r2 = req(opus, "2026-05-01T12:00:20Z", tok(1, 0, 500, 45_111, 50));
    (r2.line, r2.message_id, r2.request_id) = (3, "msg_3".into(), "req_3".into());
    (vec![r0, r1, r2], calls)
}

#[test]
fn a_response_of_calls_is_one_thread_request_per_message_call() {
    let p = PriceTable::embedded().unwrap();
    let (requests, calls) = thread();
    let rows = thread_requests(&p, requests, &calls);
    let tokens: Vec<TokenCounts> = rows.iter().map(|r| r.tokens).collect();
    assert_eq!(
        tokens,
        [
            tok(1, 0, 1000, 40_000, 100),
            tok(2, 0, 3176, 41_001, 300),
            tok(1, 0, 931, 44_179, 200),
            tok(1, 0, 500, 45_111, 50)
        ]
    );
    // Opus 4.8: $5 in, $25 out, 1h write 2x = $10, read 0.1x = $0.50 per MTok.
    // 2*5 + 3176*10 + 41001*0.5 + 300*25 = 59,770.5 per 10^6
    assert!((rows[1].cost_usd - 0.0597705).abs() < 1e-12, "{}", rows[1].cost_usd);
    // 1*5 + 931*10 + 44179*0.5 + 200*25 = 36,404.5 per 10^6
    assert!((rows[2].cost_usd - 0.0364045).abs() < 1e-12, "{}", rows[2].cost_usd);
}

#[test]
fn the_request_after_a_response_of_calls_is_a_hit() {
    let p = PriceTable::embedded().unwrap();
    let (requests, calls) = thread();
    // Unexpanded, the next request's expected prefix is the calls' sum
    // (238,402 tokens), so its prompt of 45,612 looks like a rewind.
    let flat = analyze(&requests, &[], &p);
    assert_eq!((flat[2].class, flat[2].rewind), (CacheClass::Hit, true));
    let rows = thread_requests(&p, requests, &calls);
    let caches = analyze(&rows, &[], &p);
    let classes: Vec<CacheClass> = caches.iter().map(|c| c.class).collect();
    assert_eq!(classes, [CacheClass::First, CacheClass::Hit, CacheClass::Hit, CacheClass::Hit]);
    assert!(caches.iter().all(|c| !c.rewind));
    // Each call's expected prefix is the previous call's prompt.
    let expected: Vec<u64> = caches.iter().map(|c| c.expected_prefix).collect();
    assert_eq!(expected, [0, 41_001, 44_179, 45_111]);
}

#[test]
fn requests_without_calls_are_unchanged() {
    let p = PriceTable::embedded().unwrap();
    let (requests, calls) = thread();
    assert_eq!(thread_requests(&p, requests.clone(), &[]), requests);
    // Borrowed rows without calls are not copied; with calls they become
    // the rows `thread_requests` gives.
    assert_eq!(thread_rows(&p, &requests, &[]), None);
    assert_eq!(thread_rows(&p, &requests[..1], &calls), None);
    let refs: Vec<&Request> = requests.iter().collect();
    assert_eq!(thread_rows(&p, &refs, &calls), thread_rows(&p, &requests, &calls));
    let owned = thread_rows(&p, &requests, &calls).unwrap();
    assert_eq!(owned, thread_requests(&p, requests, &calls));
    assert_eq!(owned.len(), 4);
}

#[test]
fn thread_keys_are_the_model_version_and_time_of_each_thread_row() -> Result<(), crate::pricing::PricingError> {
    let p = PriceTable::embedded()?;
    let (mut requests, calls) = thread();
    requests[0].model = "claude-sonnet-4-5".into();
    let refs: Vec<&Request> = requests.iter().collect();
    let keys = crate::analyze::thread_keys(&refs, &calls);
    let rows = thread_rows(&p, &requests, &calls).unwrap();
    let expected: Vec<(String, String, String)> =
        rows.iter().map(|r| (r.model.to_string(), r.version.to_string(), r.time.to_rfc3339())).collect();
    let got: Vec<(String, String, String)> =
        keys.iter().map(|(m, v, t)| (m.to_string(), v.to_string(), t.to_rfc3339())).collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), 4, "the response of three calls is two thread rows (its advisor call is none)");
    assert_eq!(got[0].0, "claude-sonnet-4-5");
    Ok(())
}
