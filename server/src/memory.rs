//! Memory the server gives back. glibc's allocator makes an arena for each thread that allocates
//! at once (up to eight per core) and keeps the pages that calls free: under a burst of calls
//! from many sessions the server grew 3× and stayed there (BENCHMARKS.md, issue 14). tack caps
//! the arenas at one per core and, once no call has run for a second, returns free pages to the
//! system.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How long the server has no call in flight before it returns memory.
const QUIET: Duration = Duration::from_secs(1);
/// While idle, memory is returned again when the heap grew this much since, at most this often.
const REGROWTH_MB: u64 = 8;
const AGAIN_AFTER: Duration = Duration::from_secs(5);

/// Blocks this large and larger get a mapping of their own, unmapped whole when freed.
/// glibc's default raises its threshold to the largest block freed so far (up to 32 MB), so a
/// graph's edge table, made anew at every change (21 MB on CPython's standard library), came
/// from an arena and left holes there that outlived the load: idle memory after 32 sessions
/// and an editor ended up to 13% above idle before, and within 1.5% with this (BENCHMARKS.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const OWN_MAPPING: libc::c_int = 16 << 20;

/// Caps the allocator's arenas and sets where a block gets its own mapping. Call before the
/// first thread starts.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
        // SAFETY: mallopt only sets allocator parameters; no thread allocates yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, cores as libc::c_int);
            libc::mallopt(libc::M_MMAP_THRESHOLD, OWN_MAPPING);
        }
    }
}

/// Calls in flight, and whether memory went back since the last one.
#[derive(Debug, Default)]
pub struct Calls {
    in_flight: AtomicUsize,
    /// A call ran since memory was last returned.
    busy: AtomicBool,
}

/// Held while a call runs.
pub struct CallGuard(Arc<Calls>);

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Calls {
    /// Starts the thread that returns memory when calls stop, and the counter calls report to.
    pub fn start() -> Arc<Self> {
        let calls = Arc::new(Self::default());
        let watched = Arc::downgrade(&calls);
        let _ = std::thread::Builder::new().name("tack-memory".into()).spawn(move || {
            let mut quiet_since = None;
            // The heap after the last return, and when: work that goes on without a call (a
            // search index merge, the watcher's fold) may leave more to return.
            let mut returned: Option<(u64, std::time::Instant)> = None;
            while let Some(calls) = watched.upgrade() {
                if calls.in_flight.load(Ordering::Acquire) > 0 {
                    quiet_since = None;
                } else if calls.busy.load(Ordering::Acquire) {
                    let since = *quiet_since.get_or_insert_with(std::time::Instant::now);
                    if since.elapsed() >= QUIET && calls.busy.swap(false, Ordering::AcqRel) {
                        returned = Some((give_back(), std::time::Instant::now()));
                        quiet_since = None;
                    }
                } else if let Some((heap, at)) = returned
                    && at.elapsed() >= AGAIN_AFTER
                    && heap_mb() > heap + REGROWTH_MB
                {
                    returned = Some((give_back(), std::time::Instant::now()));
                }
                drop(calls);
                std::thread::sleep(QUIET / 4);
            }
        });
        calls
    }

    pub fn begin(self: &Arc<Self>) -> CallGuard {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.busy.store(true, Ordering::Release);
        CallGuard(self.clone())
    }
}

/// Returns the allocator's free pages to the system; the heap after, in MB.
fn give_back() -> u64 {
    let before = heap_mb();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
    let after = heap_mb();
    tracing::debug!("returned free memory: heap {before} -> {after} MB");
    after
}

/// The process's anonymous resident memory (its heap, stacks and the like) in MB; 0 where
/// /proc has no answer.
fn heap_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("RssAnon:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb / 1024)
}
