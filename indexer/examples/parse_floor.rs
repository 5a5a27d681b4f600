//! The parse-only floor for the indexing benchmark: walk the root with tack's filter, read each
//! source file and parse it with tree-sitter on the same thread pool the indexer uses, in the
//! indexer's order (largest first), and nothing else.
//! `cargo run --release -p tack-indexer --example parse_floor -- ROOT`

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use tack_indexer::{Filter, Lang};
use tree_sitter::Parser;

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("usage: parse_floor ROOT"));
    let root = root.canonicalize().expect("root exists");
    let started = Instant::now();
    let filter = Filter::new(&root, &[]).expect("filter");
    let mut files: Vec<(PathBuf, u64, Lang)> = filter
        .builder(&root)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| {
            let lang = Lang::from_path(e.path())?;
            let size = e.metadata().ok()?.len();
            Some((e.into_path(), size, lang))
        })
        .collect();
    // The same schedule as the indexer: largest files first, each to the next free thread.
    files.sort_unstable_by_key(|f| std::cmp::Reverse(f.1));
    thread_local! {
        static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
    }
    let bytes: usize = files
        .iter()
        .par_bridge()
        .map(|(path, _, lang)| {
            let Ok(data) = std::fs::read(path) else { return 0 };
            if data.len() as u64 > tack_indexer::MAX_PARSE_BYTES {
                return 0;
            }
            let source = String::from_utf8_lossy(&data);
            PARSER.with(|p| tack_indexer::parse_only(&mut p.borrow_mut(), *lang, &source));
            data.len()
        })
        .sum();
    println!(
        "files={} bytes={} threads={} seconds={:.3}",
        files.len(),
        bytes,
        rayon::current_num_threads(),
        started.elapsed().as_secs_f64()
    );
}
