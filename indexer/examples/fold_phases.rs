//! Times what one changed file costs to fold in (parse, graph, resolver, map tables, search
//! index), to see where write→visible goes. `cargo run --release -p tack-indexer --example
//! fold_phases -- ROOT FILE` (FILE relative to ROOT; it is appended to and restored). With
//! `DUMP=file`, also writes each fold's updated graph and map, to compare two builds byte for byte.

use std::path::PathBuf;
use std::time::Instant;

use tack_indexer::{Filter, Index, Personal};

mod dumps;
use dumps::graph_facts;

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("ROOT")).canonicalize().expect("root");
    let rel = std::env::args().nth(2).expect("FILE");
    let (index, _) = Index::open(&root, Filter::new(&root, &[]).expect("filter"), None);
    let snapshot = index.snapshot();
    let (text, _) = tack_indexer::TextIndex::open(None).expect("text index");
    text.sync(&root, &snapshot).expect("sync");
    tack_indexer::repo_map(&snapshot, std::slice::from_ref(&rel), 1024, &|s: &str| s.len() / 4);
    let path = root.join(&rel);
    let original = std::fs::read(&path).expect("file");
    let mut before = index.snapshot();
    let mut dump = String::new();
    for round in 0..5 {
        let mut changed = original.clone();
        changed.extend_from_slice(format!("\ndef folded_{round}():\n    return {round}\n").as_bytes());
        std::fs::write(&path, &changed).expect("write");
        let t = Instant::now();
        let snapshot = index.apply_changes(std::slice::from_ref(&rel));
        let fold = t.elapsed();
        let t = Instant::now();
        text.sync(&root, &snapshot).expect("sync");
        let search = t.elapsed();
        let t = Instant::now();
        tack_indexer::repo_map(&snapshot, std::slice::from_ref(&rel), 1024, &|s: &str| s.len() / 4);
        let map = t.elapsed();
        if std::env::var_os("DUMP").is_some() {
            let focused =
                tack_indexer::repo_map(&snapshot, std::slice::from_ref(&rel), 1024, &|s: &str| s.len() / 4);
            dump += &format!(
                "fold {round} updated {}\n{}{}",
                snapshot.graph().was_updated(),
                graph_facts(&snapshot.graph()),
                focused.text
            );
        }
        // PageRank's warm start: the unfocused ranks starting where the previous graph's call
        // under the same key ended (from the second fold on), against a cold start.
        let graph = snapshot.graph();
        let t = Instant::now();
        let cold = graph.pagerank_keyed(u64::MAX - 1 - round, &Personal::UNIFORM);
        let cold_time = t.elapsed();
        let t = Instant::now();
        let warm = graph.pagerank_keyed(u64::MAX, &Personal::UNIFORM);
        eprintln!(
            "pagerank cold {} iterations {cold_time:?}, warm {} iterations {:?}",
            cold.iterations,
            warm.iterations,
            t.elapsed()
        );
        let t = Instant::now();
        let updated = tack_indexer::SymbolGraph::update(&before.graph(), &before, &snapshot);
        let update = t.elapsed();
        eprintln!(
            "fold (parse, graph, resolver) {fold:?} (graph updated: {}; an update alone {update:?}, {:?}), search index {search:?}, first map after {map:?}",
            snapshot.graph().was_updated(),
            updated.map(|g| g.n_edges())
        );
        before = snapshot;
    }
    let snapshot = index.snapshot();
    let t = Instant::now();
    let graph = tack_indexer::SymbolGraph::build(&snapshot);
    eprintln!("graph alone {:?} ({} edges)", t.elapsed(), graph.n_edges());
    let t = Instant::now();
    let resolver = tack_indexer::Resolver::new(&snapshot);
    eprintln!("resolver alone {:?} ({resolver:?})", t.elapsed());
    std::fs::write(&path, &original).expect("restore");
    if let Some(file) = std::env::var_os("DUMP") {
        std::fs::write(file, dump + &graph_facts(&graph)).expect("dump");
    }
}
