//! What `cachewise import` prints: the bundles it read, what was new, and
//! the message ids it keeps under several people (the first few, each
//! shortened to a few names; every name through `term`).

use crate::model::format::thousands;
use crate::report::cell::term;
use crate::report::labels::plural;
use crate::team::import::SharedMessage;
use crate::team::ImportOutcome;

/// The import's summary, a line per bundle, then its warnings.
pub(super) fn describe_import(o: &ImportOutcome, dir: &str) -> String {
    let mut out = format!(
        "imported {} into {dir}: {}, {} new, {} already present; {} stored\n",
        plural(o.bundles.len() as u64, "bundle", "bundles"),
        plural(o.received as u64, "request row", "request rows"),
        thousands(o.added as u64),
        thousands(o.already_present as u64),
        plural(o.requests_after as u64, "request", "requests")
    );
    for b in &o.bundles {
        out += &format!(
            "  {}@{}: {} ({} new), {} ({})\n",
            term(&b.user),
            term(&b.machine),
            plural(b.requests as u64, "request", "requests"),
            thousands(b.added as u64),
            plural(b.compactions as u64, "compaction", "compactions"),
            term(&b.origin)
        );
    }
    if o.shared_message_ids > 0 {
        out += &format!(
            "warning: {} under more than one user; kept for each. For example:\n",
            match o.shared_message_ids {
                1 => "1 message id appears".to_owned(),
                n => format!("{} message ids appear", thousands(n as u64)),
            },
        );
        for s in &o.shared_examples {
            out += &format!("  {}\n", shared_example(s));
        }
    }
    if !o.unknown_models.is_empty() {
        let models: Vec<_> = o.unknown_models.iter().map(|m| term(m)).collect();
        out += &format!("Unknown models (priced at $0): {}\n", models.join(", "));
    }
    out
}

/// A shared message id and the first few of its users, on one line.
fn shared_example(s: &SharedMessage) -> String {
    const NAMED: usize = 3;
    let named: Vec<_> = s.users.iter().take(NAMED).map(|u| term(u)).collect();
    let more = match s.users.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {} more", thousands(n as u64)),
    };
    format!("{} ({}{more})", term(&s.message_id), named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_message_ids_are_listed_a_line_each_with_the_first_few_users_and_no_escapes() {
        let users: Vec<String> = (0..100).map(|i| format!("u{i}")).collect();
        let shared = |id: &str| SharedMessage { message_id: id.into(), users: users.clone() };
        let o = ImportOutcome {
            bundles: Vec::new(),
            received: 0,
            requests_before: 0,
            requests_after: 0,
            added: 0,
            already_present: 0,
            shared_message_ids: 85_248,
            shared_examples: vec![shared("msg_1"), shared("msg_\u{1b}[31mred")],
            unknown_models: vec!["m\u{1b}]0;x\u{7}".into()],
        };
        let text = describe_import(&o, "team");
        assert!(text.contains("85,248 message ids appear under more than one user"), "{text}");
        assert!(text.contains("\n  msg_1 (u0, u1, u2 and 97 more)\n"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    }
}
