//! A fixed number of lanes for work on large items (an import's bundles
//! and people, the analysis table's parts):
//! each lane is a thread taking the next item until none is left, so at
//! most `lanes` items are in memory at once. (A rayon iterator does not
//! bound that: a worker waiting on polars' pool steals further items of
//! its own.) Hands back the results in the items' order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Lanes an import runs: two (each item's decoder and writer already use
/// the cores; two lanes keep both busy between their serial steps, and
/// hold two items' memory, not all).
pub(crate) const LANES: usize = 2;

/// `f` over `items`, `lanes` at a time; the results in `items` order.
pub(crate) fn run<T: Sync, R: Send>(items: &[T], lanes: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..lanes.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                if let Ok(mut o) = out.lock() {
                    o[i] = Some(r);
                }
            });
        }
    });
    out.into_inner().unwrap_or_default().into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_keep_the_order_and_at_most_lanes_run_at_once() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<u64> = (0..40).collect();
        let out = run(&items, 2, |&i| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(40 - i));
            running.fetch_sub(1, Ordering::SeqCst);
            i * 10
        });
        assert_eq!(out, items.iter().map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert!(run(&Vec::<u64>::new(), 2, |&i| i).is_empty());
    }
}
