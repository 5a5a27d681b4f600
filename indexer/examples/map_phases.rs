//! Times the phases of one repository map on a saved index (graph, PageRank, render), to see
//! where map latency goes. `cargo run --release -p tack-indexer --example map_phases -- ROOT STORE`

use std::path::PathBuf;
use std::time::Instant;

use tack_indexer::index::Index;
use tack_indexer::walk::Filter;

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("ROOT")).canonicalize().expect("root");
    let store = std::env::args().nth(2).map(PathBuf::from);
    let t = Instant::now();
    let (index, _) = Index::open(&root, Filter::new(&root, &[]).expect("filter"), store);
    let snapshot = index.snapshot();
    eprintln!("open+refresh {:?}", t.elapsed());
    let t = Instant::now();
    let graph = snapshot.graph();
    eprintln!("graph {:?} ({} edges)", t.elapsed(), graph.n_edges());
    let t = Instant::now();
    let (rank, _) = graph.pagerank(&[], &|_, e| e.weight);
    eprintln!("pagerank {:?} ({} files)", t.elapsed(), rank.len());
    let words = |s: &str| s.len() / 4;
    for _ in 0..3 {
        let t = Instant::now();
        let map = tack_indexer::map::repo_map(&snapshot, &[], 8192, &words);
        eprintln!("repo_map {:?} ({} defs shown)", t.elapsed(), map.shown_defs);
    }
}
