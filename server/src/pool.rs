//! Bounded pools of workers for tool calls, taking work from the sessions in turn, with at most so
//! many of one session's jobs running at once. Quick tools (reads, searches, navigation, edits) run
//! side by side on many workers, so a cheap call never waits for a slow one, and one session's
//! burst runs on at most one worker per core at once; a quick call that a worker would take at
//! once runs on its caller's thread instead, which saves it two thread wake-ups. Maps, about 50 ms of CPU on 1,800 files,
//! queue for workers of their own, one per core at a lower CPU priority. One session's burst cannot
//! hold back another session's call (BENCHMARKS.md, issue 14). Commands, which mostly wait for a
//! child process, run outside the pools. Work no call waits for (what maps share, made ahead)
//! runs on rayon threads of its own at the maps' priority ([`in_background`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};

type Job = Box<dyn FnOnce() + Send>;

/// Sets the calling thread's nice value (higher is lower priority; a thread may always lower
/// its own).
fn lower_priority(nice: i32) {
    // SAFETY: setpriority only changes this thread's nice value (Linux keeps one per thread;
    // `who` 0 is the calling thread).
    #[cfg(target_os = "linux")]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, nice);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Runs `job`, and the parallel work it hands rayon, on threads of their own (one per core,
/// gone when it returns) at `nice`: work no call waits for then takes no CPU from a call at a
/// higher priority, a map's own thread included, which rayon's shared threads (at the
/// process's priority) would.
pub fn in_background(name: &'static str, nice: i32, job: impl FnOnce() + Send) {
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| lower_priority(nice))
        .build();
    match pool {
        Ok(pool) => pool.install(job),
        Err(err) => {
            tracing::warn!("cannot start the {name} threads: {err}");
            job();
        }
    }
}

/// Jobs by owner (a session), the owners in the order they take turns, and how many jobs
/// each owner has running.
#[derive(Default)]
struct Queues {
    by_owner: HashMap<usize, VecDeque<Job>>,
    turns: VecDeque<usize>,
    running: HashMap<usize, usize>,
    /// At most this many jobs of one owner run at once.
    per_owner: usize,
    /// Jobs running now, on the workers or on the callers' threads ([`FairPool::run`]), and
    /// at most how many may.
    busy: usize,
    limit: usize,
}

impl Queues {
    /// The oldest job of the first owner in line below its running limit; that owner goes to
    /// the back of the line if it has more.
    fn next(&mut self) -> Option<(usize, Job)> {
        if self.busy >= self.limit {
            return None;
        }
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
        self.busy += 1;
        Some((owner, job))
    }

    /// A place for one of `owner`'s jobs to start at once, on the caller's thread: only when
    /// the pool has room, `owner` is below its limit and every job in line is held by its own
    /// owner's limit, so that a worker would have taken the job at once too.
    fn claim(&mut self, owner: usize) -> bool {
        let running = |o: &usize| self.running.get(o).copied().unwrap_or(0);
        if self.busy >= self.limit
            || running(&owner) >= self.per_owner
            || self.turns.iter().any(|o| running(o) < self.per_owner)
        {
            return false;
        }
        *self.running.entry(owner).or_default() += 1;
        self.busy += 1;
        true
    }

    fn finished(&mut self, owner: usize) {
        self.busy -= 1;
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
    /// Whether a job may run on the caller's thread when a worker would take it at once.
    inline: bool,
}

impl FairPool {
    /// `threads` workers, each at `nice` (higher is lower priority; a thread may always lower
    /// its own priority), running at most `threads` jobs at once and at most `per_owner` of one
    /// owner. `inline`: a job that would start at once runs on the caller's thread instead
    /// (the caller's priority, so only for pools at nice 0).
    pub fn new(name: &str, threads: usize, per_owner: usize, nice: i32, inline: bool) -> Self {
        let threads = threads.max(1);
        let queues: Arc<(Mutex<Queues>, Condvar)> = Arc::new((
            Mutex::new(Queues { per_owner: per_owner.max(1), limit: threads, ..Queues::default() }),
            Condvar::new(),
        ));
        for i in 0..threads {
            let queues = queues.clone();
            let spawned = std::thread::Builder::new().name(format!("{name}-{i}")).spawn(move || {
                lower_priority(nice);
                work(&queues);
            });
            if let Err(err) = spawned {
                tracing::warn!("cannot start a {name} worker: {err}");
            }
        }
        Self { queues, inline }
    }

    /// Runs `job` when `owner`'s turn comes; the future gives its result, `None` if it panicked.
    /// The job is queued now for a worker; or, in an inline pool on a multi-threaded runtime
    /// when a worker would take it at once, it runs on the calling runtime thread
    /// (`block_in_place` hands that thread's other tasks to another thread first). A quick
    /// call then skips the two thread wake-ups of a hand-off, which under load cost it as much
    /// as its own work (BENCHMARKS.md, issue 14); it still counts against the pool's limits.
    pub fn run<T, F>(&self, owner: usize, job: F) -> impl std::future::Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (lock, ready) = &*self.queues;
        let mut queues = lock.lock().expect("pool queues");
        let inline = self.inline
            && tokio::runtime::Handle::try_current()
                .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
            && queues.claim(owner);
        let path = if inline {
            Path::Inline(Claim { queues: self.queues.clone(), owner }, job)
        } else {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let queue = queues.by_owner.entry(owner).or_default();
            let first = queue.is_empty();
            queue.push_back(Box::new(move || {
                let _ = tx.send(job());
            }));
            if first {
                queues.turns.push_back(owner);
            }
            ready.notify_one();
            Path::Queued(rx)
        };
        drop(queues);
        async move {
            match path {
                Path::Inline(claim, job) => {
                    let out = tokio::task::block_in_place(|| {
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).ok()
                    });
                    drop(claim);
                    out
                }
                Path::Queued(rx) => rx.await.ok(),
            }
        }
    }
}

/// Where a job runs: on the caller's thread, or queued for a worker.
enum Path<T, F> {
    Inline(Claim, F),
    Queued(tokio::sync::oneshot::Receiver<T>),
}

/// A job's place in the pool while it runs on its caller's thread; given back on drop (also
/// when the call is dropped before it ran).
struct Claim {
    queues: Arc<(Mutex<Queues>, Condvar)>,
    owner: usize,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let (lock, ready) = &*self.queues;
        let mut q = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        q.finished(self.owner);
        if !q.turns.is_empty() {
            ready.notify_one();
        }
    }
}

/// A worker: the next job [`Queues::next`] gives, run; then, since the pool and the job's owner
/// may now be below their limits, another worker may take the next job.
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
        if !q.turns.is_empty() {
            ready.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work handed to rayon inside [`in_background`] runs on its threads, at its priority (19,
    /// the lowest, which any thread may take), not on rayon's shared threads at the process's.
    #[cfg(target_os = "linux")]
    #[test]
    fn background_work_runs_on_threads_of_its_own_at_the_given_priority() {
        use rayon::prelude::*;
        let seen = Mutex::new(Vec::new());
        in_background("test-background", 19, || {
            (0..64).into_par_iter().for_each(|_| {
                let name = std::thread::current().name().unwrap_or("").to_string();
                // SAFETY: getpriority only reads the calling thread's nice value.
                let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
                seen.lock().unwrap().push((name, nice));
            })
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 64);
        assert!(
            seen.iter().all(|(name, nice)| name.starts_with("test-background-") && *nice == 19),
            "{seen:?}"
        );
    }

    #[tokio::test]
    async fn owners_take_turns_and_a_panic_costs_only_its_answer() {
        let pool = FairPool::new("test-pool", 1, 1, 0, false);
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
        let pool = FairPool::new("test-pool", 4, 2, 0, false);
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

    #[test]
    fn a_job_a_worker_would_take_at_once_runs_on_the_callers_thread_within_the_limits() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().unwrap();
        let on_worker = || std::thread::current().name().is_some_and(|n| n.starts_with("test-pool"));
        let outcome = runtime.block_on(runtime.spawn(async move {
            let pool = Arc::new(FairPool::new("test-pool", 2, 1, 0, true));
            // Nothing waits and the pool is free: the job runs here.
            assert_eq!(pool.run(1, on_worker).await, Some(false));
            // A running inline job counts against its owner's limit: owner 1's second job
            // queues until the first is done, and then runs on a worker.
            let started = Arc::new(AtomicUsize::new(0));
            let (release, hold) = std::sync::mpsc::channel::<()>();
            let first = {
                let (pool, started) = (pool.clone(), started.clone());
                tokio::spawn(async move {
                    pool.run(1, move || {
                        started.fetch_add(1, Ordering::SeqCst);
                        hold.recv().ok()
                    })
                    .await
                })
            };
            while started.load(Ordering::SeqCst) == 0 {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            let second = {
                let started = started.clone();
                pool.run(1, move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    on_worker()
                })
            };
            // Another owner is not held back by it: a worker would take its job at once (the
            // job in line waits for its own owner), so it runs here too.
            assert_eq!(pool.run(2, on_worker).await, Some(false));
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            assert_eq!(started.load(Ordering::SeqCst), 1, "owner 1 ran two jobs at once");
            release.send(()).unwrap();
            assert_eq!(first.await.unwrap(), Some(Some(())));
            let second = second.await;
            // A panic on the caller's thread costs its answer and gives its place back.
            let panicked = pool.run(3, || -> u32 { panic!("a read failed") }).await;
            (second, panicked, pool.run(3, || 8).await)
        }));
        assert_eq!(outcome.unwrap(), (Some(true), None, Some(8)));
    }
}
