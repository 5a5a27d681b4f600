//! Dumps the ranking features of every candidate file for a list of queries, so the ranking
//! weights can be chosen offline on the localization development set (`bench/tune_search.py`).
//! Reads JSON lines `{"id", "root", "query"}` on stdin; writes `{"id", "candidates": [...]}`.
//! With `"files": [path, ...]` in a line, also writes `"functions": {path: [[symbol, score], ...]}`:
//! each file's hit symbols and their scores as `search` ranks them, every one (`""` for the lines
//! outside every definition), for function-level studies.

use std::io::BufRead;
use std::path::PathBuf;

use serde_json::{Value, json};
use tack_indexer::{
    Filter, Index, QueryNames, TermWeights, TextIndex, best_lines, candidates, query_terms, query_words,
};

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let input: Value = serde_json::from_str(&line).expect("a JSON line");
        let root = PathBuf::from(input["root"].as_str().expect("root")).canonicalize().expect("root exists");
        let (index, _) = Index::open(&root, Filter::new(&root, &[]).expect("filter"), None);
        let snapshot = index.snapshot();
        let (text, _) = TextIndex::open(None).expect("text index");
        text.sync(&root, &snapshot).expect("sync");
        let query = input["query"].as_str().expect("query");
        let (terms, named) = (query_terms(query), QueryNames::of(query));
        let words = query_words(&text, query, &terms).expect("word forms");
        let found = candidates(&snapshot, &text, &words, &named, true).expect("candidates");
        let rows: Vec<Value> = found
            .iter()
            .map(|c| {
                json!({
                    "path": c.path, "body": c.body, "defs": c.defs, "path_match": c.path_match,
                    "docs": c.docs, "pagerank": c.pagerank, "neighbors": c.neighbors, "named": c.named,
                    "qualified": c.qualified,
                    "is_test": c.is_test,
                })
            })
            .collect();
        let mut out = json!({"id": input["id"], "candidates": rows});
        if let Some(files) = input["files"].as_array() {
            let weights = TermWeights::new(&text, &words);
            let mut functions = serde_json::Map::new();
            for path in files.iter().filter_map(Value::as_str) {
                let Some(entry) = snapshot.files.get(path) else { continue };
                let mut names: Vec<(String, f64)> = Vec::new();
                for hit in best_lines(&root, entry, &weights, 1000) {
                    let name = hit.symbol.unwrap_or_default();
                    if !names.iter().any(|(n, _)| *n == name) {
                        names.push((name, hit.score));
                    }
                }
                functions.insert(path.to_string(), json!(names));
            }
            out["functions"] = Value::Object(functions);
        }
        println!("{out}");
    }
}
