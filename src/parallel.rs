//! Parallel maps: over a slice, for reading many session files at once, and over a
//! range whose results are used in order as they come (pieces of one large file).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

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

/// Computes `f(k, spare)` for every `k` in `0..n` on every core and hands each result to
/// `consume` in order of `k`, as soon as those before it are consumed. Only a few results are
/// held at once: an item is started only when fewer than two per thread are waiting to be
/// consumed, so memory stays bounded however large `n` is. `consume` may hand its value back
/// (`Ok(Some(v))`) to be passed as `spare` to a later `f`, so that buffers are reused rather
/// than allocated again. The first error of `consume` stops the work and is returned; a
/// panic in `f` or `consume` stops the others and is passed on.
pub fn map_in_order<R: Send, E>(
    n: usize,
    f: impl Fn(usize, Option<R>) -> R + Sync,
    consume: impl FnMut(R) -> Result<Option<R>, E>,
) -> Result<(), E> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    map_in_order_on(threads, n, f, consume)
}

/// [`map_in_order`] on `threads` threads (for callers that choose how many).
pub fn map_in_order_on<R: Send, E>(
    threads: usize,
    n: usize,
    f: impl Fn(usize, Option<R>) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<Option<R>, E>,
) -> Result<(), E> {
    let threads = threads.min(n);
    if threads <= 1 {
        let mut spare = None;
        for k in 0..n {
            spare = consume(f(k, spare.take()))?;
        }
        return Ok(());
    }
    let window = 2 * threads;
    struct State<R> {
        next: usize,
        consumed: usize,
        stop: bool,
        spare: Vec<R>,
    }
    let state = Mutex::new(State {
        next: 0,
        consumed: 0,
        stop: false,
        spare: Vec::new(),
    });
    let turn = Condvar::new();
    // A thread that panics stops the others, so that none waits for an item never
    // finished or consumed; the scope then passes the panic on.
    struct StopOnPanic<'s, R>(&'s Mutex<State<R>>, &'s Condvar);
    impl<R> Drop for StopOnPanic<'_, R> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                if let Ok(mut st) = self.0.lock() {
                    st.stop = true;
                }
                self.1.notify_all();
            }
        }
    }
    let (done_tx, done_rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let (state, turn, f) = (&state, &turn, &f);
            scope.spawn(move || {
                let _guard = StopOnPanic(state, turn);
                loop {
                    let (k, spare) = {
                        let mut st = state.lock().expect("work state");
                        while !st.stop && st.next < n && st.next >= st.consumed + window {
                            st = turn.wait(st).expect("work state");
                        }
                        if st.stop || st.next >= n {
                            return;
                        }
                        st.next += 1;
                        (st.next - 1, st.spare.pop())
                    };
                    if done_tx.send((k, f(k, spare))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let _guard = StopOnPanic(&state, &turn);
        let mut waiting: BTreeMap<usize, R> = BTreeMap::new();
        let mut consumed = 0;
        while consumed < n {
            let Ok((k, r)) = done_rx.recv() else {
                break; // a worker panicked; the scope reports it
            };
            waiting.insert(k, r);
            while let Some(r) = waiting.remove(&consumed) {
                let spare = match consume(r) {
                    Ok(spare) => spare,
                    Err(e) => {
                        state.lock().expect("work state").stop = true;
                        turn.notify_all();
                        return Err(e);
                    }
                };
                consumed += 1;
                let mut st = state.lock().expect("work state");
                st.consumed = consumed;
                st.spare.extend(spare);
                drop(st);
                turn.notify_all();
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_and_spares_are_reused() {
        for n in [0, 1, 2, 3, 17, 1000] {
            let made = AtomicUsize::new(0);
            let mut got = Vec::new();
            let r: Result<(), ()> = map_in_order(
                n,
                |k, spare: Option<Vec<usize>>| {
                    let mut v = spare.unwrap_or_else(|| {
                        made.fetch_add(1, Ordering::Relaxed);
                        Vec::new()
                    });
                    v.clear();
                    v.push(k);
                    v
                },
                |v| {
                    got.push(v[0]);
                    Ok(Some(v))
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(got, (0..n).collect::<Vec<_>>());
            // No more values are made than can be in flight at once: a window of two per
            // thread waiting, and one being made on each thread.
            let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
            assert!(made.into_inner() <= n.min(3 * threads + 1));
        }
    }
}
