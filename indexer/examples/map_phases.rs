//! Times the phases of one repository map on a saved index (graph, PageRank, render), to see
//! where map latency goes. `cargo run --release -p tack-indexer --example map_phases -- ROOT STORE`;
//! with `DUMP=file`, writes maps of a fixed sample of focuses instead, and with `DUMP_GRAPH=file`
//! the graph (every edge in order, every identifier's definers and referencers), and with
//! `DUMP_RESOLVE=file` name resolution (every reference resolved; for a fixed sample of
//! definitions, what their qualified names find, their references, callers and callees), to
//! compare two builds byte for byte.

use std::path::PathBuf;
use std::time::Instant;

use tack_indexer::{Filter, Index};

mod dumps;
use dumps::{graph_facts, resolution_facts};

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
    let rank = graph.pagerank(&[], &|_, _, w| w as f64);
    eprintln!("pagerank {:?} ({} nodes)", t.elapsed(), rank.len());
    let words = |s: &str| s.split_whitespace().count();
    if let Ok(dump) = std::env::var("DUMP_RESOLVE") {
        std::fs::write(dump, resolution_facts(&snapshot.resolver())).expect("dump");
        return;
    }
    if let Ok(dump) = std::env::var("DUMP_GRAPH") {
        std::fs::write(dump, graph_facts(&graph)).expect("dump");
    }
    if let Ok(dump) = std::env::var("DUMP") {
        // Maps of a fixed sample of focuses, to compare two builds byte for byte.
        let files: Vec<String> = snapshot.files.keys().cloned().collect();
        let names: Vec<String> = snapshot
            .files
            .values()
            .flat_map(|e| e.symbols.defs.iter().map(|d| d.name().to_string()))
            .collect();
        let mut out = String::new();
        for budget in [1024, 8192] {
            out += &tack_indexer::repo_map(&snapshot, &[], budget, &words).text;
        }
        for i in 0..40 {
            let focus = vec![files[(i * 89) % files.len()].clone()];
            let map = tack_indexer::repo_map(&snapshot, &focus, 1024, &words);
            out += &format!("{}{:?}\n", map.text, map.files.iter().map(|f| f.rank).collect::<Vec<_>>());
            let focus = vec![names[(i * 997) % names.len()].clone()];
            out += &tack_indexer::repo_map(&snapshot, &focus, 2048, &words).text;
        }
        std::fs::write(dump, out).expect("dump");
        return;
    }
    for _ in 0..3 {
        let t = Instant::now();
        let map = tack_indexer::repo_map(&snapshot, &[], 8192, &words);
        eprintln!("repo_map {:?} ({} defs shown)", t.elapsed(), map.shown_defs);
    }
    let files: Vec<String> = snapshot.files.keys().cloned().collect();
    let t = Instant::now();
    let mut shown = 0;
    for i in 0..20 {
        let focus = vec![files[(i * 89) % files.len()].clone()];
        shown += tack_indexer::repo_map(&snapshot, &focus, 1024, &words).shown_defs;
    }
    eprintln!("20 focused maps {:?} ({} defs shown)", t.elapsed() / 20, shown);
    let t = Instant::now();
    for i in 0..20 {
        let f = graph.file_index(&files[(i * 89) % files.len()]).unwrap();
        let mut p = vec![0.0; graph.n_nodes()];
        p[graph.file_node(f) as usize] = 1.0;
        let _ = graph.pagerank(&p, &|_, _, w| w as f64);
    }
    eprintln!("20 focused pageranks {:?}", t.elapsed() / 20);
}
