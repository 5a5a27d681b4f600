//! Bounded pools of workers for tool calls, taking work from the sessions in turn, with at most so
//! many of one session's jobs running at once. Quick tools (reads, searches, navigation, edits) run
//! side by side on many workers, so a cheap call never waits for a slow one, and one session's
//! burst runs on at most one worker per core at once. Maps, about 50 ms of CPU on 1,800 files,
//! queue for workers of their own, one per core at a lower CPU priority. One session's burst cannot
//! hold back another session's call (BENCHMARKS.md, issue 14). Commands, which mostly wait for a
//! child process, run outside the pools.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// Jobs by owner (a session), the owners in the order they take turns, and how many jobs
/// each owner has running.
#[derive(Default)]
struct Queues {
    by_owner: HashMap<usize, VecDeque<Job>>,
    turns: VecDeque<usize>,
    running: HashMap<usize, usize>,
    /// At most this many jobs of one owner run at once.
    per_owner: usize,
}

impl Queues {
    /// The oldest job of the first owner in line below its running limit; that owner goes to
    /// the back of the line if it has more.
    fn next(&mut self) -> Option<(usize, Job)> {
        let at =
            self.turns.iter().position(|o| self.running.get(o).copied().unwrap_or(0) < self.per_owner)?;
        let owner = self.turns.remove(at).expect("a position inside the line");
        let jobs = self.by_owner.get_mut(&owner).expect("an owner in line has jobs");
        let job = jobs.pop_front().expect("an owner in line has jobs");
        if jobs.is_empty() {
            self.by_owner.remove(&owner);
        } else {
            self.turns.push_back(owner);
        }
        *self.running.entry(owner).or_default() += 1;
        Some((owner, job))
    }

    fn finished(&mut self, owner: usize) {
        if let Some(n) = self.running.get_mut(&owner) {
            *n -= 1;
            if *n == 0 {
                self.running.remove(&owner);
            }
        }
    }
}

pub struct FairPool {
    queues: Arc<(Mutex<Queues>, Condvar)>,
}

impl FairPool {
    /// `threads` workers, each at `nice` (higher is lower priority; a thread may always lower
    /// its own priority), running at most `per_owner` jobs of one owner at once.
    pub fn new(name: &str, threads: usize, per_owner: usize, nice: i32) -> Self {
        let queues: Arc<(Mutex<Queues>, Condvar)> = Arc::new((
            Mutex::new(Queues { per_owner: per_owner.max(1), ..Queues::default() }),
            Condvar::new(),
        ));
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

/// A worker: the next job [`Queues::next`] gives, run; then, since its owner may now be below
/// its limit, another worker may take that owner's next job.
fn work(queues: &(Mutex<Queues>, Condvar)) {
    let (lock, ready) = queues;
    loop {
        let (owner, job) = {
            let mut q = lock.lock().expect("pool queues");
            loop {
                if let Some(next) = q.next() {
                    break next;
                }
                q = ready.wait(q).expect("pool queues");
            }
        };
        // A job that panics loses its answer (the caller sees `None`), not the worker.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        let mut q = lock.lock().expect("pool queues");
        q.finished(owner);
        if q.by_owner.contains_key(&owner) {
            ready.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn owners_take_turns_and_a_panic_costs_only_its_answer() {
        let pool = FairPool::new("test-pool", 1, 1, 0);
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

    #[tokio::test]
    async fn one_owner_runs_at_most_its_share_and_others_go_past_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = FairPool::new("test-pool", 4, 2, 0);
        let started = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut burst = Vec::new();
        for _ in 0..4 {
            let (started, gate) = (started.clone(), gate.clone());
            burst.push(pool.run(1, move || {
                started.fetch_add(1, Ordering::SeqCst);
                let (open, opened) = &*gate;
                let _open = opened.wait_while(open.lock().unwrap(), |open| !*open).unwrap();
            }));
        }
        // Owner 2 gets a worker while owner 1's jobs hold two and wait.
        assert_eq!(pool.run(2, || 7).await, Some(7));
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert_eq!(started.load(Ordering::SeqCst), 2, "owner 1 ran more than its two at once");
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        for job in burst {
            assert_eq!(job.await, Some(()));
        }
        assert_eq!(started.load(Ordering::SeqCst), 4);
    }
}
