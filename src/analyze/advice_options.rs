//! The arithmetic of the advice's three options (cache-model §7): each
//! starts from a context `C0` with a one-off cost `F` (v3: the shared
//! prefix `Rs` warm at `now` is read, not written), then runs `N` turns that
//! read the growing context, write the growth and produce output. Hands
//! `advice` the totals and the break-even.

use super::advice::{AdviceOptions, MAX_BREAK_EVEN_TURNS};
use crate::pricing::Rates;
use crate::pricing::{projected, rewrite_premium};

/// The rates of the advice (§7 v3: list prices at `now` times the
/// session's fast-mode and data-residency multipliers; None: unpriced) and
/// the TTL its writes use, `T_last`. Every dollar below is a
/// `pricing::money` function of these.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prices {
    pub rates: Option<Rates>,
    pub ttl_s: u32,
}

/// The per-turn shape shared by the three options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turns {
    pub g: f64,
    pub o: f64,
}

/// `F + sum over k=1..n of [(c0 + (k-1) G) rm pin + G m pin + O pout]`:
/// the `n` turns read `n c0 + G n (n-1) / 2` tokens, write `n G` and
/// produce `n O`.
pub(crate) fn option_total(c0: f64, f: f64, n: u32, t: Turns, p: Prices) -> f64 {
    let n = f64::from(n);
    let reads = n * c0 + t.g * n * (n - 1.0) / 2.0;
    f + projected(p.rates.as_ref(), reads, n * t.g, p.ttl_s, n * t.o)
}

/// The context and one-off cost of the three options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Starts {
    pub resume: (f64, f64),
    pub compact: (f64, f64),
    pub restart: (f64, f64),
}

/// `C0` and `F` of each option (§7), with `rs` the shared prefix warm at
/// `now` (§8.2 v3; 0 gives v2's figures).
pub(crate) fn option_starts(p_last: f64, bc: f64, s: f64, warm: bool, rs: f64, p: Prices) -> Starts {
    let rs = rs.min(p_last);
    let r = p.rates.as_ref();
    let resume_f = if warm { 0.0 } else { rewrite_premium(r, p_last - rs, p.ttl_s) };
    // The compaction request reads the prompt (cold: writes it but the warm
    // prefix) and produces the summary; the summary is then written.
    let (read, write) = if warm { (p_last, 0.0) } else { (rs, p_last - rs) };
    let compact_f = projected(r, read, write, p.ttl_s, s) + rewrite_premium(r, s, p.ttl_s);
    // A new session writes its base context but the part that is warm.
    let restart_f = rewrite_premium(r, bc - bc.min(rs), p.ttl_s);
    Starts { resume: (p_last, resume_f), compact: (bc + s, compact_f), restart: (bc, restart_f) }
}

/// The starts of a conversation Claude Code compacted after its last
/// request: the next message starts from the summary, so resuming and
/// compacting first are one option, continuing from it (`C0 = B + S`, with
/// `(b, held)` its base context `B = min(Bc, P)` and the part of it a warm
/// cache holds, `H`: written is `C0 - H` while warm, `C0 - min(H, Rs)`
/// once the cache has expired); starting over stays what it was.
pub(crate) fn after_compaction(st: Starts, (b, held): (f64, f64), s: f64, warm: bool, rs: f64, p: Prices) -> Starts {
    let kept = if warm { held } else { held.min(rs) };
    let from_summary = (b + s, rewrite_premium(p.rates.as_ref(), b + s - kept, p.ttl_s));
    Starts { resume: from_summary, compact: from_summary, ..st }
}

/// Totals of the three options over `n` turns.
pub(crate) fn totals(st: Starts, n: u32, t: Turns, p: Prices) -> AdviceOptions {
    AdviceOptions {
        resume_usd: option_total(st.resume.0, st.resume.1, n, t, p),
        compact_usd: option_total(st.compact.0, st.compact.1, n, t, p),
        restart_usd: option_total(st.restart.0, st.restart.1, n, t, p),
    }
}

/// Smallest `N` in 1..=200 where compact < resume.
pub(crate) fn break_even(st: Starts, t: Turns, p: Prices) -> Option<u32> {
    (1..=MAX_BREAK_EVEN_TURNS).find(|&n| {
        let o = totals(st, n, t, p);
        o.compact_usd < o.resume_usd
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round rates: input $1 per token, output $2, reads 0.1x.
    const RATES: Rates = Rates { input: 1.0, output: 2.0, read_multiplier: 0.1 };

    #[track_caller]
    fn assert_close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())), "{a} != {b}");
    }

    #[test]
    fn a_restart_whose_warm_prefix_exceeds_its_base_context_writes_nothing() {
        let p = Prices { rates: Some(RATES), ttl_s: 300 };
        let over = option_starts(100_000.0, 15_000.0, 5_000.0, false, 20_000.0, p);
        assert_eq!(over.restart, (15_000.0, 0.0));
        let under = option_starts(100_000.0, 15_000.0, 5_000.0, false, 10_000.0, p);
        assert_close(under.restart.1, 5_000.0 * 1.15);
        // Cold, the compaction request writes the prompt but the warm prefix.
        assert_close(over.compact.1, 80_000.0 * 1.25 + 20_000.0 * 0.1 + 5_000.0 * 2.0 + 5_000.0 * 1.15);
        assert_close(over.resume.1, 80_000.0 * 1.15);
        // Rs = 0 is v2: restart free of a one-off cost.
        assert_close(option_starts(100_000.0, 15_000.0, 5_000.0, false, 0.0, p).restart.1, 15_000.0 * 1.15);
    }
}
