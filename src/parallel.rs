//! A parallel map over a slice, for reading many session files at once.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `f` over `items` on every core, keeping the order; `tick` after each item.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync, tick: impl Fn() + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len())
        .max(1);
    // Small chunks handed out in turn: session files differ in size by orders of magnitude.
    const CHUNK: usize = 4;
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if start >= items.len() {
                            break;
                        }
                        for (i, item) in items.iter().enumerate().skip(start).take(CHUNK) {
                            done.push((i, f(item)));
                            tick();
                        }
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker thread panicked"))
            .collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().map(|r| r.expect("every item mapped")).collect()
}
