//! Reading, parsing and folding on separate threads: one thread reads and
//! splits the stream, as many workers as there are CPUs parse and judge the
//! reports (the costly part), and the fold takes their results back in the
//! order the reports were read, so the outcome does not depend on scheduling.
//!
//! The queues are bounded, so a fast reader waits for the workers instead of
//! holding the stream in memory.

use std::collections::BTreeMap;
use std::sync::{Mutex, mpsc};
use std::thread;

use super::input::{Item, Raw};

/// Reports waiting for a worker, per worker: enough to keep them busy.
const QUEUED_PER_WORKER: usize = 4;

/// Runs `produce` (which hands every raw report to its sink) on this thread,
/// `prepare` on the workers, and `fold` on each result in reading order.
/// Returns what `produce` returned.
pub fn run<E: Send>(
    produce: impl FnOnce(&mut dyn FnMut(Raw)) -> Result<(), E>,
    prepare: impl Fn(Raw) -> Item + Sync,
    mut fold: impl FnMut(Item) + Send,
) -> Result<(), E> {
    let workers = thread::available_parallelism().map_or(1, usize::from);
    let (work, queue) = mpsc::sync_channel::<(u64, Raw)>(workers * QUEUED_PER_WORKER);
    let queue = Mutex::new(queue);
    let (done, results) = mpsc::sync_channel::<(u64, Item)>(workers * QUEUED_PER_WORKER);
    thread::scope(|scope| {
        for _ in 0..workers {
            let done = done.clone();
            let (queue, prepare) = (&queue, &prepare);
            scope.spawn(move || {
                loop {
                    // The lock is held only to take the next report, not to prepare it.
                    let next = queue.lock().expect("a worker panicked").recv();
                    let Ok((sequence, raw)) = next else { return };
                    if done.send((sequence, prepare(raw))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        scope.spawn(move || {
            // Results arrive out of order; each waits here until those before it are folded.
            let mut waiting: BTreeMap<u64, Item> = BTreeMap::new();
            let mut next = 0;
            for (sequence, item) in results {
                waiting.insert(sequence, item);
                while let Some(item) = waiting.remove(&next) {
                    fold(item);
                    next += 1;
                }
            }
        });
        let mut sequence = 0;
        let produced = produce(&mut |raw| {
            // A send fails only when every worker is gone, which a panic would already report.
            let _ = work.send((sequence, raw));
            sequence += 1;
        });
        drop(work);
        produced
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_folded_in_reading_order_whatever_the_workers_take() {
        let mut folded = Vec::new();
        let outcome: Result<(), ()> = run(
            |sink| {
                for number in 0..200 {
                    sink(Raw::Done(Item::NotAnswered {
                        node: format!("n{number}"),
                        problem: String::new(),
                    }));
                }
                Ok(())
            },
            |raw| {
                let Raw::Done(item) = raw else { unreachable!() };
                if let Item::NotAnswered { node, .. } = &item {
                    // Uneven work, so results finish out of order.
                    let number: u64 = node[1..].parse().unwrap();
                    thread::sleep(std::time::Duration::from_micros((number % 7) * 50));
                }
                item
            },
            |item| {
                if let Item::NotAnswered { node, .. } = item {
                    folded.push(node);
                }
            },
        );
        assert_eq!(outcome, Ok(()));
        let expected: Vec<String> = (0..200).map(|number| format!("n{number}")).collect();
        assert_eq!(folded, expected);
    }
}
