//! Resident memory after each phase of opening a saved index, to see where a large workspace's
//! memory goes: the loaded snapshot, name resolution, the graph (every reference resolved).
//! `cargo run --release -p tack-indexer --example memory_phases -- ROOT STORE`; with a store
//! that has no `graph.bin`, the graph is built rather than read. Reads `VmRSS` (Linux).

use std::path::PathBuf;
use std::time::Instant;

use tack_indexer::{Filter, Index};

/// This process's resident memory in MB.
fn resident_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse::<u64>().ok())
        .unwrap_or(0);
    kb / 1024
}

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("ROOT")).canonicalize().expect("root");
    let store = PathBuf::from(std::env::args().nth(2).expect("STORE"));
    let t = Instant::now();
    let (index, outcome) = Index::open(&root, Filter::new(&root, &[]).expect("filter"), Some(store));
    eprintln!("open: {outcome:?}, {} MB, {:?}", resident_mb(), t.elapsed());
    let snapshot = index.snapshot();
    eprintln!(
        "snapshot ({} files, {} definitions, {} references): {} MB",
        snapshot.files.len(),
        snapshot.n_defs(),
        snapshot.n_refs(),
        resident_mb()
    );
    let t = Instant::now();
    let resolver = snapshot.resolver();
    eprintln!("resolver: {} MB, {:?}", resident_mb(), t.elapsed());
    let t = Instant::now();
    let graph = snapshot.graph();
    eprintln!("graph ({} edges): {} MB, {:?}", graph.n_edges(), resident_mb(), t.elapsed());
    drop((resolver, graph));
}
