//! Where extraction time goes beyond the parse, on one thread with each tree still in cache:
//! parse, a bare tree walk, the extraction queries run by tree-sitter's `QueryCursor` (for
//! reference) and by tack's matcher, the whole extraction (matcher + processing) and dropping
//! the tree.
//! `cargo run --release -p tack-indexer --example extract_phases -- ROOT`; with `DUMP=file`,
//! writes every file's extraction instead, to compare two builds byte for byte.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tack_indexer::{Filter, Lang};
use tree_sitter::{Parser, QueryCursor, StreamingIterator};

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("usage: extract_phases ROOT"));
    let root = root.canonicalize().expect("root exists");
    let filter = Filter::new(&root, &[]).expect("filter");
    let files: Vec<(PathBuf, String, Lang)> = filter
        .builder(&root)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| Lang::from_path(e.path()).map(|lang| (e.into_path(), lang)))
        .filter_map(|(path, lang)| {
            let data = std::fs::read(&path).ok()?;
            (data.len() as u64 <= tack_indexer::MAX_PARSE_BYTES)
                .then(|| (path, String::from_utf8_lossy(&data).into_owned(), lang))
        })
        .collect();
    if let Ok(dump) = std::env::var("DUMP") {
        let mut out = String::new();
        for (path, source, lang) in &files {
            let symbols = tack_indexer::extract(*lang, source);
            out += &format!("{}\n{symbols:?}\n", path.strip_prefix(&root).expect("under the root").display());
        }
        std::fs::write(dump, out).expect("dump");
        return;
    }
    let mut parser = Parser::new();
    let mut time = [Duration::ZERO; 6];
    let (mut nodes, mut captures) = (0usize, 0usize);
    for (_, source, lang) in &files {
        parser.set_language(&lang.grammar()).expect("grammar");
        let t = Instant::now();
        let tree = parser.parse(source, None).expect("a tree");
        time[0] += t.elapsed();

        let t = Instant::now();
        let mut cursor = tree.walk();
        'walk: loop {
            nodes += 1;
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        drop(cursor);
        time[1] += t.elapsed();

        let t = Instant::now();
        let mut query = QueryCursor::new();
        let mut matches = query.matches(lang.query(), tree.root_node(), source.as_bytes());
        while let Some(m) = matches.next() {
            captures += m.captures().len();
        }
        time[2] += t.elapsed();

        let t = Instant::now();
        let mut ours = 0;
        lang.patterns().for_each_match(&tree, source.as_bytes(), &mut |_, caps| ours += caps.len());
        time[3] += t.elapsed();
        std::hint::black_box(ours);

        let t = Instant::now();
        std::hint::black_box(tack_indexer::extract_from_tree(*lang, source, &tree));
        time[4] += t.elapsed();

        let t = Instant::now();
        drop(tree);
        time[5] += t.elapsed();
    }
    let [parse, walk, query, matcher, extract, drop_tree] = time.map(|d| d.as_secs_f64());
    println!(
        "files={} nodes={nodes} captures={captures} parse={parse:.3}s walk={walk:.3}s \
         tree-sitter-query={query:.3}s matcher={matcher:.3}s extract={extract:.3}s (matcher + processing) \
         drop={drop_tree:.3}s",
        files.len()
    );
}
