//! Per-agent state for requests that carry no session: 2026-07-28 over HTTP, where every
//! request stands alone. Following the protocol's guidance for stateful tools, the first call
//! without a handle starts an agent and its result hands back an opaque, unguessable handle;
//! later calls pass it as `agent`, and their outputs, undo log, gate, stall detector and trace
//! are that agent's. A call without a handle never sees another agent's state. A handle idle
//! past the timeout, or pushed out by newer agents beyond the bound, answers a tool error that
//! says to start afresh, never an empty state that looks like the old one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::repos::Desk;

/// The argument that carries the handle.
pub const ARGUMENT: &str = "agent";

/// The agents of one server: at most `max` live; past it, the one idle longest is ended.
pub struct Agents {
    live: Mutex<HashMap<String, Entry>>,
    idle: Duration,
    max: usize,
}

struct Entry {
    desk: Arc<Desk>,
    used: Instant,
    /// A later call named this agent: a client that keeps its handle, unlike one that never
    /// passes it back and so starts an agent on every call.
    returned: bool,
}

/// The state a call runs with.
pub struct Found {
    pub desk: Arc<Desk>,
    /// The handle just made for this call's new agent, to hand back in its result.
    pub started: Option<String>,
}

/// A handle that names no live agent.
#[derive(Debug, thiserror::Error)]
#[error(
    "agent \"{handle}\" is unknown or has ended (an agent ends after {idle_s} s without a call); call again \
     without agent to start afresh, then pass the handle that result gives"
)]
pub struct UnknownAgent {
    handle: String,
    idle_s: u64,
}

impl Agents {
    pub fn new(idle: Duration, max: usize) -> Self {
        Self { live: Mutex::default(), idle, max: max.max(1) }
    }

    /// The agent `handle` names, or a new one when there is none. An unknown or ended handle
    /// is an error the agent can act on.
    pub fn find(&self, handle: Option<&str>) -> Result<Found, UnknownAgent> {
        let now = Instant::now();
        let mut live = self.live.lock().expect("agents lock");
        live.retain(|_, entry| now.duration_since(entry.used) < self.idle);
        if let Some(handle) = handle {
            return match live.get_mut(handle.trim()) {
                Some(entry) => {
                    entry.used = now;
                    entry.returned = true;
                    Ok(Found { desk: entry.desk.clone(), started: None })
                }
                None => Err(UnknownAgent { handle: handle.to_string(), idle_s: self.idle.as_secs() }),
            };
        }
        make_room(&mut live, self.max);
        let handle = new_handle();
        let desk = Arc::new(Desk::new());
        desk.set_handle(&handle);
        live.insert(handle.clone(), Entry { desk: desk.clone(), used: now, returned: false });
        Ok(Found { desk, started: Some(handle) })
    }

    /// An agent another server started, whose state is kept elsewhere (`--state`): known here
    /// from now on under the same handle, its state read as its calls need it.
    pub fn adopt(&self, handle: &str) -> Arc<Desk> {
        let mut live = self.live.lock().expect("agents lock");
        if !live.contains_key(handle) {
            make_room(&mut live, self.max);
        }
        let entry = live.entry(handle.to_string()).or_insert_with(|| {
            let desk = Desk::new();
            desk.set_handle(handle);
            Entry { desk: Arc::new(desk), used: Instant::now(), returned: true }
        });
        entry.used = Instant::now();
        entry.desk.clone()
    }

    /// How many agents are live.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.live.lock().expect("agents lock").len()
    }

    /// The line a session's first result ends with when its state is kept elsewhere
    /// (`--state`): the handle that resumes it in another session, on any server.
    pub fn kept_line(handle: &str) -> String {
        format!(
            "agent {handle}: this agent's state is kept; if the session ends (a server restarts), pass \
             agent=\"{handle}\" in the next one to resume it"
        )
    }

    /// The line a result ends with when its call started an agent.
    pub fn started_line(&self, handle: &str) -> String {
        format!(
            "agent {handle}: pass agent=\"{handle}\" on later calls to keep this call's outputs, undo and verification \
             (it ends after {} s without a call)",
            self.idle.as_secs()
        )
    }
}

/// Past the bound, ends one agent to make room for another: one never named again first, so
/// calls that never pass their handle back cannot push out the agents that do.
fn make_room(live: &mut HashMap<String, Entry>, max: usize) {
    if live.len() >= max
        && let Some(oldest) =
            live.iter().min_by_key(|(_, entry)| (entry.returned, entry.used)).map(|(id, _)| id.clone())
    {
        live.remove(&oldest);
    }
}

/// `a` and 20 hex digits (80 bits) from the kernel's random source.
pub fn new_handle() -> String {
    let mut bytes = [0u8; 10];
    let mut filled = 0;
    while filled < bytes.len() {
        match rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(err) => panic!("the kernel's random source failed: {err}"),
        }
    }
    let mut handle = String::from("a");
    for byte in bytes {
        handle.push_str(&format!("{byte:02x}"));
    }
    handle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_call_without_a_handle_starts_its_own_agent_and_a_handle_finds_it_again() {
        let agents = Agents::new(Duration::from_secs(60), 4);
        let a = agents.find(None).unwrap();
        let b = agents.find(None).unwrap();
        let (ha, hb) = (a.started.clone().unwrap(), b.started.clone().unwrap());
        assert_ne!(ha, hb);
        assert!(!Arc::ptr_eq(&a.desk, &b.desk), "two agents never share a state");
        assert_eq!(ha.len(), 21);
        assert!(ha.starts_with('a') && ha[1..].chars().all(|c| c.is_ascii_hexdigit()));
        let again = agents.find(Some(&ha)).unwrap();
        assert!(Arc::ptr_eq(&again.desk, &a.desk) && again.started.is_none());
        // What the model reads, word for word.
        let err = agents.find(Some("a00000000000000000000")).err().unwrap().to_string();
        expect_test::expect![[r#"agent "a00000000000000000000" is unknown or has ended (an agent ends after 60 s without a call); call again without agent to start afresh, then pass the handle that result gives"#]].assert_eq(&err);
        expect_test::expect![[r#"agent a0123: pass agent="a0123" on later calls to keep this call's outputs, undo and verification (it ends after 60 s without a call)"#]]
            .assert_eq(&agents.started_line("a0123"));
        expect_test::expect![[r#"agent a0123: this agent's state is kept; if the session ends (a server restarts), pass agent="a0123" in the next one to resume it"#]]
            .assert_eq(&Agents::kept_line("a0123"));
    }

    #[test]
    fn agents_end_when_idle_and_the_longest_idle_goes_past_the_bound() {
        let agents = Agents::new(Duration::from_millis(200), 3);
        let first = agents.find(None).unwrap().started.unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(agents.find(Some(&first)).is_err(), "idle past the timeout");
        assert_eq!(agents.len(), 0);

        let agents = Agents::new(Duration::from_secs(60), 3);
        let handles: Vec<String> = (0..3).map(|_| agents.find(None).unwrap().started.unwrap()).collect();
        agents.find(Some(&handles[0])).unwrap();
        agents.find(None).unwrap();
        assert_eq!(agents.len(), 3);
        assert!(agents.find(Some(&handles[1])).is_err(), "the one idle longest was ended");
        assert!(agents.find(Some(&handles[0])).is_ok() && agents.find(Some(&handles[2])).is_ok());

        // A thousand calls that never pass their handle back push out none that do.
        let agents = Agents::new(Duration::from_secs(60), 3);
        let kept = agents.find(None).unwrap().started.unwrap();
        agents.find(Some(&kept)).unwrap();
        for _ in 0..1_000 {
            agents.find(None).unwrap();
        }
        assert!(agents.find(Some(&kept)).is_ok(), "an agent that came back is kept");

        // Agents another server started, taken in from the state database, count to the bound.
        let agents = Agents::new(Duration::from_secs(60), 2);
        let first = agents.adopt("a01");
        assert!(Arc::ptr_eq(&first, &agents.adopt("a01")), "one agent, one desk");
        assert_eq!(first.handle().as_deref(), Some("a01"));
        agents.adopt("a02");
        agents.adopt("a03");
        assert_eq!(agents.len(), 2);
    }
}
