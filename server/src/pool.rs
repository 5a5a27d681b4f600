//! Bounded pools of workers for tool calls, each taking work from the sessions in turn. Quick
//! tools (reads, searches, navigation, edits) run on one worker per core; maps, about 50 ms of
//! CPU on 1,800 files, on workers of their own at a lower CPU priority. A burst of calls from
//! many agents queues here instead of taking the cores, and one session's burst cannot hold
//! back another session's call (BENCHMARKS.md, issue 14). Commands, which mostly wait for a
//! child process, run outside the pools.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// Jobs by owner (a session), and the owners in the order they take turns.
#[derive(Default)]
struct Queues {
    by_owner: HashMap<usize, VecDeque<Job>>,
    turns: VecDeque<usize>,
}

pub struct FairPool {
    queues: Arc<(Mutex<Queues>, Condvar)>,
}

impl FairPool {
    /// `threads` workers, each at `nice` (higher is lower priority; a thread may always lower
    /// its own priority).
    pub fn new(name: &str, threads: usize, nice: i32) -> Self {
        let queues: Arc<(Mutex<Queues>, Condvar)> = Arc::default();
        for i in 0..threads.max(1) {
            let queues = queues.clone();
            let spawned = std::thread::Builder::new().name(format!("{name}-{i}")).spawn(move || {
                // SAFETY: setpriority only changes this thread's nice value (Linux keeps one per
                // thread; `who` 0 is the calling thread).
                #[cfg(target_os = "linux")]
                unsafe {
                    libc::setpriority(libc::PRIO_PROCESS, 0, nice);
                }
                #[cfg(not(target_os = "linux"))]
                let _ = nice;
                work(&queues);
            });
            if let Err(err) = spawned {
                tracing::warn!("cannot start a {name} worker: {err}");
            }
        }
        Self { queues }
    }

    /// Queues `job` now, to run on a worker when `owner`'s turn comes; the future gives its
    /// result, `None` if it panicked.
    pub fn run<T, F>(&self, owner: usize, job: F) -> impl std::future::Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (lock, ready) = &*self.queues;
        let mut queues = lock.lock().expect("pool queues");
        let queue = queues.by_owner.entry(owner).or_default();
        let first = queue.is_empty();
        queue.push_back(Box::new(move || {
            let _ = tx.send(job());
        }));
        if first {
            queues.turns.push_back(owner);
        }
        ready.notify_one();
        drop(queues);
        async move { rx.await.ok() }
    }
}

/// A worker: the next owner's oldest job, then that owner goes to the back of the line.
fn work(queues: &(Mutex<Queues>, Condvar)) {
    let (lock, ready) = queues;
    loop {
        let job = {
            let mut q = lock.lock().expect("pool queues");
            loop {
                if let Some(owner) = q.turns.pop_front() {
                    let jobs = q.by_owner.get_mut(&owner).expect("an owner in line has jobs");
                    let job = jobs.pop_front().expect("an owner in line has jobs");
                    if jobs.is_empty() {
                        q.by_owner.remove(&owner);
                    } else {
                        q.turns.push_back(owner);
                    }
                    break job;
                }
                q = ready.wait(q).expect("pool queues");
            }
        };
        // A job that panics loses its answer (the caller sees `None`), not the worker.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn owners_take_turns_and_a_panic_costs_only_its_answer() {
        let pool = FairPool::new("test-pool", 1, 0);
        let order = Arc::new(Mutex::new(Vec::new()));
        // Hold the one worker so that everything below queues.
        let (release, hold) = std::sync::mpsc::channel::<()>();
        let held = pool.run(0, move || hold.recv().ok());
        let mut waiting = Vec::new();
        for (owner, label) in [(1, "a1"), (1, "a2"), (1, "a3"), (2, "b1"), (3, "c1"), (2, "b2")] {
            let order = order.clone();
            waiting.push(pool.run(owner, move || order.lock().unwrap().push(label)));
        }
        let panicked = pool.run(4, || -> u32 { panic!("a map failed") });
        let after = pool.run(4, || 7);
        release.send(()).unwrap();
        assert_eq!(held.await, Some(Some(())));
        for w in waiting {
            assert_eq!(w.await, Some(()));
        }
        assert_eq!(panicked.await, None);
        assert_eq!(after.await, Some(7));
        // One job per owner per turn: owner 1's burst does not hold back owners 2 and 3.
        assert_eq!(*order.lock().unwrap(), ["a1", "b1", "c1", "a2", "b2", "a3"]);
    }
}
