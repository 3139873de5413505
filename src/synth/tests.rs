//! Tests of the generator: determinism, the demo's shape and speed, and the
//! check that the classifier in `analyze` recovers what the generator's
//! cache did. The one documented exception: a cold request whose lost tokens
//! stay within the miss tolerance (`max(2000, 5% of E)`) is a hit by rule.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::analyze::{analyze, compaction_labels, count_by_trigger, CacheClass, RateSource};
use crate::pricing::Rates;
use chrono::TimeZone;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

/// Round prices for every model.
struct Flat;

impl RateSource for Flat {
    fn request_rates(&self, _r: &Request) -> Option<Rates> {
        Some(Rates { input: 1e-6, output: 5e-6, read_multiplier: 0.1 })
    }
    fn base_rates(&self, _m: &str, _at: DateTime<Utc>) -> Option<Rates> {
        Some(Rates { input: 1e-6, output: 5e-6, read_multiplier: 0.1 })
    }
}

fn end() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 18, 0, 0).single().unwrap()
}

/// The class the reference rules must give a request with this truth.
fn expected_class(t: &TrueEvent) -> CacheClass {
    let tolerated = (t.lost_tokens as f64) <= f64::max(2000.0, 0.05 * t.expected_prefix as f64);
    match t.cause {
        TrueCause::First => CacheClass::First,
        TrueCause::Compaction => CacheClass::Compaction,
        TrueCause::ModelSwitch => CacheClass::ModelSwitch,
        TrueCause::Warm | TrueCause::Rewound => CacheClass::Hit,
        _ if tolerated => CacheClass::Hit,
        TrueCause::Expired if t.ttl_s == TTL_1H => CacheClass::Ttl1h,
        TrueCause::Expired => CacheClass::Ttl5m,
        TrueCause::VersionChange => CacheClass::VersionChange,
        TrueCause::Microcompacted => CacheClass::Microcompact,
        TrueCause::ContextEdited => CacheClass::ContextEdit,
        TrueCause::Evicted => CacheClass::FullRebuild,
    }
}

/// The compactions the generator made, by the label it gave them.
fn true_triggers(data: &SynthData) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = ["manual", "auto", "idle"].iter().map(|k| ((*k).to_owned(), 0)).collect();
    for label in data.compaction_truth.iter().filter(|l| **l != "microcompact") {
        *out.entry((*label).to_owned()).or_default() += 1;
    }
    out
}

fn check_recovery(data: &SynthData) -> HashMap<(TrueCause, CacheClass), usize> {
    let caches = analyze(&data.requests, &data.compactions, &Flat);
    let mut seen = HashMap::new();
    for t in &data.truth {
        let c = &caches[t.request];
        let r = &data.requests[t.request];
        assert_eq!(c.class, expected_class(t), "request {} {:?} {:?} {:?}", t.request, t, c, r);
        if t.cause == TrueCause::Rewound {
            assert!(c.rewind, "a rewind the generator made, request {}", t.request);
        }
        // Nothing else shrinks a prompt past the threshold except a tolerated edit.
        if c.rewind && t.cause != TrueCause::Rewound {
            assert!(matches!(t.cause, TrueCause::Microcompacted | TrueCause::ContextEdited), "{t:?}");
        }
        if !c.class.is_start() {
            assert_eq!(c.ttl_s, t.ttl_s, "TTL in force, request {}", t.request);
            assert_eq!(c.expected_prefix, t.expected_prefix);
        }
        let same_gap = match (c.gap_s, t.gap_s) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-6,
            (a, b) => a.is_none() && b.is_none(),
        };
        assert!(same_gap, "gap of request {}: {:?} vs {:?}", t.request, c.gap_s, t.gap_s);
        *seen.entry((t.cause, c.class)).or_insert(0) += 1;
    }
    seen
}

#[test]
fn classifier_recovers_the_demo() {
    let data = generate(7, &SynthSpec::demo(end()));
    let seen = check_recovery(&data);
    for cause in [TrueCause::Warm, TrueCause::First, TrueCause::Compaction, TrueCause::Expired] {
        assert!(seen.keys().any(|(c, _)| *c == cause), "no {cause:?} in {seen:?}");
    }
    for class in [CacheClass::Ttl5m, CacheClass::Ttl1h, CacheClass::ModelSwitch, CacheClass::VersionChange] {
        assert!(seen.keys().any(|(_, k)| *k == class), "no {class:?} in {seen:?}");
    }
}

#[test]
fn classifier_recovers_other_seeds() {
    for seed in [1, 2, 3, 99] {
        check_recovery(&generate(seed, &SynthSpec::scaled(end(), 10, 40)));
    }
}

#[test]
fn classifier_recovers_every_v2_event_on_five_seeds() {
    let mut all: HashMap<(TrueCause, CacheClass), usize> = HashMap::new();
    let mut triggers: BTreeMap<String, u64> = BTreeMap::new();
    for seed in [11, 12, 13, 14, 15] {
        let data = generate(seed, &SynthSpec::demo(end()));
        for (k, n) in check_recovery(&data) {
            *all.entry(k).or_default() += n;
        }
        let labels = compaction_labels(&data.requests, &data.compactions);
        let got = count_by_trigger(labels.iter().map(|l| (l.compaction, l.label.as_str(), l.anchor.is_some())));
        assert_eq!(got, true_triggers(&data), "compactions by trigger, seed {seed}");
        for (k, n) in got {
            *triggers.entry(k).or_default() += n;
        }
        let micro = data.compactions.iter().filter(|c| c.boundary == crate::model::Boundary::Microcompact).count();
        assert_eq!(micro, data.compaction_truth.iter().filter(|l| **l == "microcompact").count());
    }
    let pairs = [
        (TrueCause::Microcompacted, CacheClass::Microcompact),
        (TrueCause::ContextEdited, CacheClass::ContextEdit),
        (TrueCause::Evicted, CacheClass::FullRebuild),
        (TrueCause::Rewound, CacheClass::Hit),
    ];
    for p in pairs {
        assert!(all.get(&p).is_some_and(|n| *n > 0), "no {p:?} in {all:?}");
    }
    assert!(triggers["idle"] > 0 && triggers["manual"] > 0 && triggers["auto"] > 0, "{triggers:?}");
    eprintln!("v2 events over 5 seeds: {all:?}, compactions {triggers:?}");
}

#[test]
fn deterministic_for_a_seed() {
    let spec = SynthSpec::scaled(end(), 5, 10);
    let (a, b) = (generate(42, &spec), generate(42, &spec));
    assert_eq!(a.requests, b.requests);
    assert_eq!(a.compactions, b.compactions);
    assert_eq!(a.titles, b.titles);
    assert_ne!(generate(43, &spec).requests, a.requests);
}

#[test]
fn demo_shape() {
    let started = Instant::now();
    let data = generate(2026, &SynthSpec::demo(end()));
    let took = started.elapsed();
    eprintln!("demo: {} requests in {took:?}", data.requests.len());
    assert!(took.as_secs_f64() < 2.0, "demo generation took {took:?}");
    let sessions: HashSet<&str> = data.requests.iter().map(|r| r.session_id.as_str()).collect();
    assert!((60..=120).contains(&sessions.len()), "{} sessions", sessions.len());
    let projects: HashSet<&str> = data.requests.iter().map(|r| r.project.as_str()).collect();
    assert_eq!(projects.len(), 4);
    let first = data.requests.first().unwrap().time;
    let last = data.requests.last().unwrap().time;
    assert!(last <= end() && (last - first).num_days() >= 14);
    assert!(data.requests.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(data.requests.iter().any(|r| r.tokens.cache_write_1h > 0));
    assert!(data.requests.iter().any(|r| r.tokens.cache_write_5m > 0));
    assert!(data.requests.iter().any(|r| r.thread.starts_with("acompact-")));
    assert!(data.requests.iter().any(|r| r.thread.len() == 8 && r.thread.starts_with('a')));
    assert!(data.compactions.iter().any(|c| c.trigger == "auto"));
    assert!(data.compactions.iter().any(|c| c.trigger == "manual"));
    let versions: HashSet<&str> = data.requests.iter().map(|r| r.version.as_str()).collect();
    assert!(versions.len() >= 3);
    let models: HashSet<&str> = data.requests.iter().map(|r| r.model.as_str()).collect();
    assert!(models.contains(OPUS) && models.contains(SONNET) && models.contains(HAIKU));
    assert_eq!(data.titles.len(), sessions.len().max(data.titles.len()));
    assert!(data.requests.iter().all(|r| r.source == "synthetic" && r.cost_usd == 0.0));
    assert!(data.requests.iter().all(|r| r.message_id.starts_with("msg_synth_")));
}
