//! Dumps the ranking features of every candidate file for a list of queries, so the ranking
//! weights can be chosen offline on the localization development set (`bench/tune_search.py`).
//! Reads JSON lines `{"id", "root", "query"}` on stdin; writes `{"id", "candidates": [...]}`.

use std::io::BufRead;
use std::path::PathBuf;

use serde_json::{Value, json};
use tack_indexer::{Filter, Index, TextIndex, candidates, query_terms};

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let input: Value = serde_json::from_str(&line).expect("a JSON line");
        let root = PathBuf::from(input["root"].as_str().expect("root")).canonicalize().expect("root exists");
        let (index, _) = Index::open(&root, Filter::new(&root, &[]).expect("filter"), None);
        let snapshot = index.snapshot();
        let (text, _) = TextIndex::open(None).expect("text index");
        text.sync(&root, &snapshot).expect("sync");
        let terms = query_terms(input["query"].as_str().expect("query"));
        let found = candidates(&snapshot, &text, &terms, true).expect("candidates");
        let rows: Vec<Value> = found
            .iter()
            .map(|c| {
                json!({
                    "path": c.path, "body": c.body, "defs": c.defs, "path_match": c.path_match,
                    "docs": c.docs, "pagerank": c.pagerank, "neighbors": c.neighbors, "is_test": c.is_test,
                })
            })
            .collect();
        println!("{}", json!({"id": input["id"], "candidates": rows}));
    }
}
