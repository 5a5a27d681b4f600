//! A graph and a resolver updated from the previous snapshot's by the files that changed are
//! what a full build makes: the same edges with the same weights, definers, referencers and
//! ranks; the same answers to every lookup, reference and resolution.

use std::fs;
use std::path::Path;

use tack_indexer::{Filter, Index, Personal, SymbolGraph};

/// The graph as a sorted list of named facts, independent of node numbering: each edge between
/// the definitions (or files) it joins, and each name's definers.
fn facts(graph: &SymbolGraph, snapshot: &tack_indexer::Snapshot) -> Vec<String> {
    let entries: Vec<_> = snapshot.files.values().collect();
    let node = |n: u32| {
        let (file, def) = graph.node_place(n);
        match def {
            Some(d) => {
                format!("{}#{}@{}", graph.files[file], entries[file].symbols.defs.at(d).qualified(), d)
            }
            None => graph.files[file].clone(),
        }
    };
    let mut out: Vec<String> =
        graph.edges().map(|(src, dst, w)| format!("edge {} -> {} {w:.6}", node(src), node(dst))).collect();
    let mut id = 0;
    while let Some(name) = graph.ident_name(id) {
        let files: Vec<&str> = graph.definers(id).iter().map(|f| graph.files[*f as usize].as_str()).collect();
        out.push(format!("name {name} defined by {}", files.join(",")));
        id += 1;
    }
    out.sort();
    out
}

fn copy(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A file and what to make of its text (empty for a file not there yet); [`REMOVE`] removes it.
type Edit<'a> = (&'a str, &'a dyn Fn(&str) -> String);

/// What an edit returns to remove its file.
const REMOVE: &str = "\0remove";

/// Applies each edit in turn through `apply_changes` and checks the updated graph against a
/// full build of the same snapshot.
fn check(fixture: &str, edits: &[Edit]) {
    let dir = tempfile::tempdir().unwrap();
    copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(fixture), dir.path());
    let root = dir.path().canonicalize().unwrap();
    let (index, _) = Index::open(&root, Filter::new(&root, &[]).unwrap(), None);
    let mut before = index.snapshot();
    let weight = |_: u32, _: u32, w: f32| w as f64;
    // PageRank under one key: each updated graph starts from the ranks its predecessor reached.
    const KEY: u64 = 7;
    before.graph().pagerank_keyed(KEY, &Personal::UNIFORM);
    let count = |s: &str| s.len() / 4;
    tack_indexer::repo_map(&before, &[], 1024, &count);
    let (mut warm_iterations, mut cold_iterations) = (0, 0);
    for (n, (rel, edit)) in edits.iter().enumerate() {
        let path = root.join(rel);
        let text = edit(&fs::read_to_string(&path).unwrap_or_default());
        if text == REMOVE {
            fs::remove_file(&path).unwrap()
        } else {
            fs::write(&path, text).unwrap()
        }
        let after = index.apply_changes(&[rel.to_string()]);
        assert!(after.generation > before.generation, "edit {n} of {rel} made a new snapshot");
        let updated = after.graph();
        assert!(updated.was_updated(), "edit {n} updated the previous graph");
        let full = SymbolGraph::build(&after);
        assert_eq!(facts(&updated, &after), facts(&full, &after), "edit {n} of {rel}");
        let ranks = updated.pagerank(&[], &weight);
        let full_ranks = full.pagerank(&[], &weight);
        for (a, b) in ranks.iter().zip(&full_ranks) {
            assert!((a - b).abs() < 1e-9, "edit {n}: rank {a} against {b}");
        }
        let warm = updated.pagerank_keyed(KEY, &Personal::UNIFORM);
        let cold = full.pagerank_keyed(KEY, &Personal::UNIFORM);
        for (a, b) in warm.rank.iter().zip(cold.rank.iter()) {
            assert!((a - b).abs() < 1e-8, "edit {n}: warm-started rank {a} against {b}");
        }
        // On a graph of a few dozen nodes a near start can still take one iteration more to
        // meet the tolerance; over the whole sequence it must take fewer (below).
        assert!(
            warm.iterations <= cold.iterations + 1,
            "edit {n}: {} iterations warm, {} cold",
            warm.iterations,
            cold.iterations
        );
        (warm_iterations, cold_iterations) =
            (warm_iterations + warm.iterations, cold_iterations + cold.iterations);
        // Asked again, one graph gives a key the ranks it reached: the same to the last bit,
        // without iterating.
        let again = updated.pagerank_keyed(KEY, &Personal::UNIFORM);
        assert_eq!((again.rank, again.iterations), (warm.rank, 0), "edit {n}");
        // The map, from tables that took the previous snapshot's unchanged parts, is the map of
        // the same files indexed afresh.
        let (fresh, _) = Index::open(&root, Filter::new(&root, &[]).unwrap(), None);
        for focus in [vec![], vec![rel.to_string()]] {
            assert_eq!(
                tack_indexer::repo_map(&after, &focus, 1024, &count).text,
                tack_indexer::repo_map(&fresh.snapshot(), &focus, 1024, &count).text,
                "edit {n} of {rel}, focus {focus:?}"
            );
        }
        let resolver = after.resolver();
        let full = tack_indexer::Resolver::new(&after);
        assert_eq!(answers(&resolver), answers(&full), "edit {n} of {rel}");
        before = after;
    }
    assert!(warm_iterations < cold_iterations, "{warm_iterations} iterations warm, {cold_iterations} cold");
}

/// Everything a resolver says about every definition name and every reference.
fn answers(resolver: &tack_indexer::Resolver) -> Vec<String> {
    let mut out = Vec::new();
    for file in 0..resolver.n_files() as u32 {
        let symbols = &resolver.entry(file).symbols;
        for def in &symbols.defs {
            for target in resolver.lookup_symbol(def.name()) {
                out.push(format!(
                    "{} -> {} refs {:?} callers {:?}",
                    def.name(),
                    resolver.describe(target),
                    resolver.references(target),
                    resolver.callers(target)
                ));
            }
        }
        for r in &symbols.refs {
            out.push(format!("{} {:?}: {:?}", resolver.path(file), r, resolver.resolve_ref(file, &r)));
        }
    }
    out
}

#[test]
fn python_edits_update_the_graph_and_resolver_as_full_builds_would() {
    check(
        "py_shop",
        &[
            // A definition comes first: every later one is numbered one more, and what binds
            // them elsewhere binds again.
            ("shop/pricing.py", &|s| format!("def first_price() -> float:\n    return 0.0\n\n\n{s}")),
            // A function's return type types its result: a call on it elsewhere binds again.
            ("shop/checkout.py", &|s| format!("{s}\n\ndef fresh_cart(name: str) -> str:\n    return name\n")),
            ("shop/receipts.py", &|s| {
                format!(
                    "from .checkout import fresh_cart\n{s}\n\ndef again():\n    return fresh_cart(\"x\").total()\n"
                )
            }),
            ("shop/checkout.py", &|s| {
                s.replace("-> str:\n    return name", "-> Cart:\n    return Cart(name)")
            }),
            // A top-level import changes, and nothing else: what imports the name from the
            // package binds again.
            ("shop/__init__.py", &|s| s.replace("from .cart import Cart", "from .item import Item as Cart")),
            ("shop/__init__.py", &|s| s.replace("from .item import Item as Cart", "from .cart import Cart")),
            // A body changes: the same names, the same numbering.
            ("shop/pricing.py", &|s| {
                s.replace(
                    "def with_tax(amount: float) -> float:",
                    "def with_tax(amount: float) -> float:\n    apply_discount(amount, None)",
                )
            }),
            // A name used before it is defined, then defined by another file: the unchanged
            // user gets its edge.
            ("shop/checkout.py", &|s| format!("{s}\n\ndef undo(cart):\n    return refund_total(cart)\n")),
            ("shop/receipts.py", &|s| format!("{s}\n\ndef refund_total(cart):\n    return cart.total()\n")),
            // A definition goes away; its users stay.
            ("shop/pricing.py", &|s| s.replace("def apply_discount", "def apply_rebate")),
            // And comes back in another file.
            ("shop/item.py", &|s| format!("{s}\n\ndef apply_discount(amount, code):\n    return amount\n")),
            // A file empties.
            ("shop/cart.py", &|_| String::new()),
            // A new file uses what others define; another file imports it; it goes away.
            ("shop/coupons.py", &|_| {
                "from .pricing import with_tax\n\n\ndef coupon(amount):\n    return with_tax(amount)\n".into()
            }),
            ("shop/checkout.py", &|s| {
                format!("from .coupons import coupon\n{s}\n\ndef redeem(a):\n    return coupon(a)\n")
            }),
            ("shop/coupons.py", &|_| REMOVE.into()),
            // An import of a module not there yet, then the module (sorted before the others,
            // so every file after it changes number).
            ("shop/receipts.py", &|s| {
                format!("from .aaa import first\n{s}\n\ndef opening():\n    return first()\n")
            }),
            ("shop/aaa.py", &|_| "def first():\n    return 1\n".into()),
        ],
    );
}

#[test]
fn rust_edits_update_the_graph_and_resolver_as_full_builds_would() {
    check(
        "rs_shapes",
        &[
            ("src/lib.rs", &|s| format!("{s}\npub fn half() -> f64 {{ crate::geo::midpoint(1.0, 2.0) }}\n")),
            ("src/geo.rs", &|s| {
                format!("{s}\npub fn midpoint(a: f64, b: f64) -> f64 {{ distance(a, b) / 2.0 }}\n")
            }),
            ("src/geo.rs", &|s| s.replace("midpoint", "middle")),
            // A module declared before its file exists, then the file, then the file removed.
            ("src/lib.rs", &|s| format!("{s}\npub mod extra;\npub fn e() -> f64 {{ extra::twice(1.0) }}\n")),
            ("src/extra.rs", &|_| "pub fn twice(x: f64) -> f64 { crate::geo::middle(x, x) }\n".into()),
            ("src/extra.rs", &|_| REMOVE.into()),
            // A method called before any impl block has it, then a second impl block of the
            // type gives it (the impl blocks by type name change); then an inline module.
            ("src/lib.rs", &|s| {
                format!("{s}\npub fn flipped() -> geo::Point {{ geo::Point::origin().flip() }}\n")
            }),
            ("src/geo.rs", &|s| {
                format!(
                    "{s}\nimpl Point {{\n    pub fn flip(self) -> Self {{\n        Point::new(self.y, self.x)\n    }}\n}}\n"
                )
            }),
            // A file no `mod` declares, then declared (the module tree changes).
            ("src/spare.rs", &|_| "pub fn kept() -> f64 { 2.0 }\n".into()),
            ("src/lib.rs", &|s| format!("{s}\npub mod spare;\npub fn k() -> f64 {{ spare::kept() }}\n")),
            ("src/lib.rs", &|s| {
                format!(
                    "{s}\nmod inner {{\n    pub fn deep() -> f64 {{ 1.0 }}\n}}\npub fn shallow() -> f64 {{ inner::deep() }}\n"
                )
            }),
        ],
    );
}

#[test]
fn a_reopened_index_reads_its_resolved_references_and_updates_them_by_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join("py_shop"), dir.path());
    let root = dir.path().canonicalize().unwrap();
    let store = tempfile::tempdir().unwrap();
    let open = || Index::open(&root, Filter::new(&root, &[]).unwrap(), Some(store.path().to_path_buf())).0;
    let first = open();
    let built = first.snapshot();
    assert!(!built.graph().was_loaded());
    first.save().unwrap();
    drop(first);

    let again = open();
    let snapshot = again.snapshot();
    assert!(snapshot.graph().was_loaded(), "the saved references are read, not resolved again");
    assert_eq!(facts(&snapshot.graph(), &snapshot), facts(&SymbolGraph::build(&snapshot), &snapshot));
    drop(again);

    // A file changed while no server ran: the saved graph is updated by what changed.
    let path = root.join("shop/pricing.py");
    let text = fs::read_to_string(&path).unwrap().replace("def with_tax(", "def with_vat(");
    fs::write(&path, text).unwrap();
    let changed = open();
    let snapshot = changed.snapshot();
    assert!(snapshot.graph().was_updated(), "updated from the saved graph");
    assert_eq!(facts(&snapshot.graph(), &snapshot), facts(&SymbolGraph::build(&snapshot), &snapshot));

    // Saved parts of other files are never used.
    fs::write(store.path().join("graph.bin"), b"not a graph").unwrap();
    let broken = open();
    assert!(!broken.snapshot().graph().was_loaded());
}

#[test]
fn go_edits_update_the_graph_and_resolver_as_full_builds_would() {
    check(
        "go_shop",
        &[
            // A body changes: the packages are kept.
            ("pricing/pricing.go", &|s| s.replace("amount * (1 - float64(p))", "amount - amount*float64(p)")),
            // An import comes and is used: the module path is voted again.
            ("main.go", &|s| {
                s.replace(
                    "\"example.com/shop/cart\"",
                    "\"example.com/shop/cart\"\n\t\"example.com/shop/pricing\"",
                )
                .replace("fmt.Println(c.Total())", "fmt.Println(c.Total(), pricing.Percent(0.5))")
            }),
        ],
    );
}

#[test]
fn java_edits_update_the_graph_and_resolver_as_full_builds_would() {
    check(
        "java_shop",
        &[
            // A body changes: the packages are kept.
            ("src/main/java/shop/pricing/Pricing.java", &|s| s.replace("amount * 0.9", "amount * 0.8")),
            // A class moves to another package (its file stays where it is), then its user
            // follows.
            ("src/main/java/shop/pricing/Pricing.java", &|s| {
                s.replace("package shop.pricing;", "package shop.deals;")
            }),
            ("src/main/java/shop/Cart.java", &|s| {
                s.replace("import shop.pricing.Pricing;", "import shop.deals.Pricing;")
            }),
        ],
    );
}

#[test]
fn typescript_edits_update_the_graph_and_resolver_as_full_builds_would() {
    check(
        "ts_shop",
        &[
            // A body changes.
            ("src/pricing.ts", &|s| s.replace("amount * 0.9", "amount * 0.8")),
            // The package's index re-exports one more module, and a user imports through it.
            ("src/index.ts", &|s| format!("{s}export * from './pricing';\n")),
            ("src/checkout.ts", &|s| {
                format!(
                    "import {{ applyDiscount }} from './index';\n{s}\nexport const off = (n: number) => applyDiscount(n);\n"
                )
            }),
            // The re-export goes away again: the user's import no longer binds.
            ("src/index.ts", &|s| s.replace("export * from './pricing';\n", "")),
            // An exported function is renamed.
            ("src/pricing.ts", &|s| s.replace("applyDiscount", "takeDiscount")),
        ],
    );
}
