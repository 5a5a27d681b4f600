//! The repository map on the hand-checked fixtures: ranking with and without focus, and budgets.

use std::path::{Path, PathBuf};

use tack_indexer::{Filter, Index, repo_map};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name).canonicalize().unwrap()
}

fn index(name: &str) -> Index {
    let root = fixture(name);
    Index::open(&root, Filter::new(&root, &[]).unwrap(), None).0
}

/// A stand-in token count for budget mechanics (the real tokenizer is tested in `tools`).
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn file_order(map: &tack_indexer::RepoMap) -> Vec<&str> {
    map.files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn without_focus_the_most_referenced_file_comes_first() {
    let idx = index("py_shop");
    let map = repo_map(&idx.snapshot(), &[], 4096, &words);
    assert_eq!(file_order(&map)[0], "shop/cart.py", "{}", map.text);
    let idx = index("rs_shapes");
    let map = repo_map(&idx.snapshot(), &[], 4096, &words);
    assert_eq!(file_order(&map)[0], "src/geo.rs", "{}", map.text);
}

#[test]
fn a_focus_symbol_ranks_its_definition_and_its_users_first() {
    let idx = index("py_shop");
    let map = repo_map(&idx.snapshot(), &["apply_discount".to_string()], 4096, &words);
    let order = file_order(&map);
    assert_eq!(order[0], "shop/pricing.py", "{}", map.text);
    let users: Vec<&str> = order[1..3].to_vec();
    assert!(users.contains(&"shop/cart.py") && users.contains(&"shop/checkout.py"), "{}", map.text);

    let idx = index("rs_shapes");
    let map = repo_map(&idx.snapshot(), &["geo::distance".to_string()], 4096, &words);
    let order = file_order(&map);
    assert_eq!(order[0], "src/geo.rs", "{}", map.text);
    let users: Vec<&str> = order[1..3].to_vec();
    assert!(
        users.contains(&"src/shapes/circle.rs") && users.contains(&"src/shapes/square.rs"),
        "{}",
        map.text
    );
}

#[test]
fn a_focus_file_pulls_in_what_it_uses() {
    let idx = index("py_shop");
    let map = repo_map(&idx.snapshot(), &["shop/checkout.py".to_string()], 4096, &words);
    let order = file_order(&map);
    assert_eq!(order[0], "shop/checkout.py", "{}", map.text);
    let at = |p: &str| order.iter().position(|x| *x == p).unwrap();
    assert!(at("shop/cart.py") <= 3 && at("shop/pricing.py") <= 3, "{}", map.text);
    // receipts.py matters only to checkout.py: the focus lifts it above unrelated files.
    assert!(at("shop/receipts.py") < at("shop/__init__.py"), "{}", map.text);
    assert!(at("shop/receipts.py") < at("tests/test_cart.py"), "{}", map.text);
}

#[test]
fn the_map_fills_the_budget_or_holds_everything() {
    let idx = index("rs_shapes");
    let snapshot = idx.snapshot();
    let everything = repo_map(&snapshot, &[], 100_000, &words);
    assert_eq!(everything.shown_defs, everything.total_defs);
    for budget in [40, 60, 90] {
        let map = repo_map(&snapshot, &[], budget, &words);
        assert!(map.tokens <= budget, "{} > {budget}", map.tokens);
        assert!(map.shown_defs < everything.total_defs);
        assert!(
            map.tokens as f64 >= 0.85 * budget as f64 || map.shown_defs + 1 >= everything.total_defs,
            "{} for {budget}",
            map.tokens
        );
    }
}

#[test]
fn the_map_is_byte_stable() {
    let a = repo_map(&index("py_shop").snapshot(), &["Cart".to_string()], 500, &words);
    let b = repo_map(&index("py_shop").snapshot(), &["Cart".to_string()], 500, &words);
    assert_eq!(a, b);
}

#[test]
fn a_map_asked_again_on_the_same_snapshot_comes_from_memory() {
    use tack_indexer::repo_map_cached;
    let idx = index("py_shop");
    let snapshot = idx.snapshot();
    let focus = ["Cart".to_string()];
    let first = repo_map_cached(&snapshot, &focus, 500, words);
    assert_eq!(*first, repo_map(&snapshot, &focus, 500, &words), "the same map as uncached");
    assert!(std::sync::Arc::ptr_eq(&first, &repo_map_cached(&snapshot, &focus, 500, words)));
    // Another budget, focus or snapshot is another map.
    assert!(!std::sync::Arc::ptr_eq(&first, &repo_map_cached(&snapshot, &focus, 400, words)));
    assert!(!std::sync::Arc::ptr_eq(&first, &repo_map_cached(&snapshot, &[], 500, words)));
    let other = index("py_shop").snapshot();
    assert!(!std::sync::Arc::ptr_eq(&first, &repo_map_cached(&other, &focus, 500, words)));
    // Memory is bounded: after many other maps the first is computed again, equal.
    for budget in 200..240 {
        repo_map_cached(&snapshot, &focus, budget, words);
    }
    let again = repo_map_cached(&snapshot, &focus, 500, words);
    assert!(!std::sync::Arc::ptr_eq(&first, &again));
    assert_eq!(first, again);
}

/// PageRank as defined, one edge at a time: damping 0.85, rank through an edge in proportion to
/// its weight among its source's edges, a node with none spreading its rank as the
/// personalization does (`p` sums to 1).
fn reference_pagerank(
    graph: &tack_indexer::SymbolGraph,
    p: &[f64],
    weight: &dyn Fn(u32, u32, f32) -> f64,
) -> Vec<f64> {
    let n = graph.n_nodes();
    let edges: Vec<(usize, usize, f64)> =
        graph.edges().map(|(s, d, w)| (s as usize, d as usize, weight(s, d, w))).collect();
    let mut flow = vec![0.0; n];
    for &(s, _, w) in &edges {
        flow[s] += w;
    }
    let mut rank = p.to_vec();
    // The same stopping rule: at most 100 steps, or once a step moves the ranks under 1e-9.
    for _ in 0..100 {
        let dangling: f64 = (0..n).filter(|&i| flow[i] == 0.0).map(|i| rank[i]).sum();
        let mut next: Vec<f64> = p.iter().map(|pi| (0.15 + 0.85 * dangling) * pi).collect();
        for &(s, d, w) in &edges {
            next[d] += 0.85 * rank[s] * w / flow[s];
        }
        let delta: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if delta < 1e-9 {
            break;
        }
    }
    rank
}

#[test]
fn pagerank_over_rows_is_pagerank_over_edges() {
    for name in ["py_shop", "rs_shapes", "ts_shop", "java_shop"] {
        let idx = index(name);
        let snapshot = idx.snapshot();
        let graph = snapshot.graph();
        let n = graph.n_nodes();
        assert!(graph.n_edges() > n / 2, "{name}: the fixture's references bind");
        let uniform = vec![1.0 / n as f64; n];
        let mut focused = vec![0.0; n];
        focused[0] = 1.0;
        let weight = |src: u32, _: u32, w: f32| if src == 0 { w as f64 * 50.0 } else { w as f64 };
        let plain = |_: u32, _: u32, w: f32| w as f64;
        for (p, w) in [(&uniform, &plain as &dyn Fn(u32, u32, f32) -> f64), (&focused, &weight)] {
            let ranks = graph.pagerank(p, w);
            let expected = reference_pagerank(&graph, p, w);
            for (node, (a, b)) in ranks.iter().zip(&expected).enumerate() {
                assert!((a - b).abs() < 1e-12, "{name}: node {node} rank {a} against {b}");
            }
        }
    }
}

/// An index of files written to a fresh folder.
fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let root = dir.path().canonicalize().unwrap();
    let index = Index::open(&root, Filter::new(&root, &[]).unwrap(), None).0;
    (dir, index)
}

/// The order an unfocused map takes definitions in: each `name:line` as it first appears while
/// the budget grows one word at a time.
fn map_order(index: &Index) -> Vec<String> {
    let snapshot = index.snapshot();
    let mut order: Vec<String> = Vec::new();
    for budget in 1..400 {
        for file in repo_map(&snapshot, &[], budget, &words).files {
            for symbol in file.symbols {
                let key = format!("{}:{}", symbol.name, symbol.line);
                if !order.contains(&key) {
                    order.push(key);
                }
            }
        }
    }
    order
}

fn position(order: &[String], key: &str) -> usize {
    order.iter().position(|k| k == key).unwrap_or_else(|| panic!("{key} is not in {order:?}"))
}

/// What the package's own `index.ts` offers is its surface; an inner folder's `index.ts` is
/// how that folder is imported inside the package, not what the package offers.
#[test]
fn only_the_outermost_index_file_makes_a_surface() {
    let (_dir, index) = index_of(&[
        ("pkg/index.ts", "export { open } from './open'\n"),
        ("pkg/open.ts", "export function open(): number {\n  return 1\n}\n"),
        ("pkg/inner/index.ts", "export { helper } from './helper'\n"),
        ("pkg/inner/helper.ts", "export function helper(): number {\n  return 2\n}\n"),
        (
            "pkg/work.ts",
            "import { helper } from './inner'\nexport function work(): number {\n  return helper()\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "open:1") < position(&order, "helper:1"), "{order:?}");
}

/// An overload's signatures are one definition: the map shows the first with the rank of all
/// of them before it spends lines on the others.
#[test]
fn an_overloads_later_signatures_come_after_every_other_definition() {
    let (_dir, index) = index_of(&[
        (
            "src/parse.ts",
            "export function parse(s: string): number\nexport function parse(s: number): number\nexport function parse(s: any): number {\n  return 0\n}\n",
        ),
        ("src/size.ts", "export function size(): number {\n  return 1\n}\n"),
        (
            "src/main.ts",
            "import { parse } from './parse'\nimport { size } from './size'\nexport function main(): number {\n  return parse('1') + parse(2) + size()\n}\n",
        ),
    ]);
    let order = map_order(&index);
    let later = position(&order, "parse:2").min(position(&order, "parse:3"));
    assert!(position(&order, "parse:1") < later, "{order:?}");
    assert!(position(&order, "size:1") < later && position(&order, "main:3") < later, "{order:?}");
}

/// Go's `internal/` packages cannot be imported from outside the module: however much the
/// module's own code uses them, a newcomer reads the API they serve first.
#[test]
fn go_internal_packages_come_after_the_api_they_serve() {
    let (_dir, index) = index_of(&[
        ("go.mod", "module example.com/kv\n\ngo 1.21\n"),
        (
            "kv.go",
            "package kv\n\nimport \"example.com/kv/internal/page\"\n\ntype DB struct {\n\tfirst page.Page\n\tlast  page.Page\n}\n\nfunc Open() *DB {\n\tpage.Read()\n\tpage.Read()\n\treturn &DB{}\n}\n",
        ),
        (
            "internal/page/page.go",
            "package page\n\ntype Page struct{}\n\nfunc Read() Page {\n\treturn Page{}\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "DB:5") < position(&order, "Page:3"), "{order:?}");
    assert!(position(&order, "Open:10") < position(&order, "Read:5"), "{order:?}");
}

/// Rust: what `pub(crate)` keeps inside the crate is read after what the crate offers, and
/// `mod api;` is no entry of its own (the map names `api.rs` by its path).
#[test]
fn rust_crate_private_items_and_module_declarations_come_last() {
    let (_dir, index) = index_of(&[
        ("Cargo.toml", "[package]\nname = \"net\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "pub mod api;\nmod inner;\n\npub use api::Client;\n"),
        (
            "src/api.rs",
            "pub struct Client;\n\nimpl Client {\n    pub fn send(&self) -> crate::inner::Frame {\n        crate::inner::frame()\n    }\n}\n",
        ),
        ("src/inner.rs", "pub(crate) struct Frame;\n\npub(crate) fn frame() -> Frame {\n    Frame\n}\n"),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "Client:1") < position(&order, "Frame:1"), "{order:?}");
    let declaration = position(&order, "api:1");
    for entry in ["Client:1", "Frame:1", "frame:3"] {
        assert!(position(&order, entry) < declaration, "{entry} before `mod api;`: {order:?}");
    }
}

/// A member named like a method of the standard library's everyday types (a mapping's `get`)
/// fills in that protocol: the map spends its lines on what the type does of its own first.
#[test]
fn a_member_named_like_an_everyday_method_comes_after_the_types_own_methods() {
    let (_dir, index) = index_of(&[(
        "headers.py",
        "class Headers:\n    def get(self, key):\n        return None\n\n    def add_header(self, key, value):\n        pass\n\n\ndef use(h: Headers):\n    h.get(\"a\")\n    h.get(\"b\")\n    h.get(\"c\")\n    h.add_header(\"a\", 1)\n",
    )]);
    let order = map_order(&index);
    assert!(position(&order, "Headers.add_header:5") < position(&order, "Headers.get:2"), "{order:?}");
}

/// The same in Rust, whose methods sit in an `impl` block that is no definition around them:
/// `Queue::len` is called through a typed receiver as often as `Queue::drain_ready`, and comes
/// after it.
#[test]
fn a_rust_method_named_like_an_everyday_method_comes_after_the_types_own_methods() {
    let (_dir, index) = index_of(&[
        ("Cargo.toml", "[package]\nname = \"jobs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub struct Queue;\n\nimpl Queue {\n    pub fn len(&self) -> usize {\n        0\n    }\n\n    pub fn drain_ready(&self) {}\n}\n\npub fn run(q: &Queue) -> usize {\n    q.drain_ready();\n    q.drain_ready();\n    q.len() + q.len() + q.len()\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "Queue::drain_ready:8") < position(&order, "Queue::len:4"), "{order:?}");
}

/// A function the package offers is called from outside the repository, which the graph does
/// not see; a type it offers is named by the package's own signatures. The function is not
/// ranked below the type for that.
#[test]
fn a_surface_function_is_not_outranked_by_the_types_its_own_code_names() {
    let (_dir, index) = index_of(&[
        ("src/index.ts", "export { loadEnv } from './env'\nexport type { Config } from './config'\n"),
        ("src/config.ts", "export interface Config {\n  root: string\n}\n"),
        (
            "src/env.ts",
            "import type { Config } from './config'\nexport function loadEnv(c: Config): Config {\n  return c\n}\n",
        ),
        (
            "src/other.ts",
            "import type { Config } from './config'\nexport function a(c: Config): Config {\n  return c\n}\nexport function b(c: Config): Config {\n  return c\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "loadEnv:2") < position(&order, "Config:1"), "{order:?}");
}

/// A constant the package's index re-exports is its surface as a function or a type is (the
/// import binds the constant's variable, which is the definition).
#[test]
fn a_constant_the_package_offers_is_its_surface() {
    let (_dir, index) = index_of(&[
        ("src/index.ts", "export { VERSION } from './version'\n"),
        ("src/version.ts", "export const VERSION = '1.0'\n"),
        ("src/util.ts", "export const LIMIT = 2\n"),
        ("src/a.ts", "import { LIMIT } from './util'\nexport function a(): number {\n  return LIMIT\n}\n"),
        ("src/b.ts", "import { LIMIT } from './util'\nexport function b(): number {\n  return LIMIT\n}\n"),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "VERSION:1") < position(&order, "LIMIT:1"), "{order:?}");
}

/// A one-line type that names nothing of the repository (an index newtype, an alias of a
/// number) is named by every signature that carries one, which makes it PageRank's sink; a
/// newcomer reads the types the code is built of first. A one-line type that wraps one of
/// the repository's own types is not vocabulary.
#[test]
fn a_one_line_type_naming_nothing_of_the_repository_comes_after_the_types_built_of_it() {
    let (_dir, index) = index_of(&[
        ("Cargo.toml", "[package]\nname = \"g\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "pub mod graph;\npub mod walk;\n"),
        (
            "src/graph.rs",
            "pub struct NodeId(u32);\n\npub struct Graph {\n    nodes: Vec<NodeId>,\n    edges: Vec<(NodeId, NodeId)>,\n}\n\npub struct Shared(Graph);\n",
        ),
        (
            "src/walk.rs",
            "use crate::graph::{Graph, NodeId, Shared};\n\npub fn first(g: &Graph) -> NodeId {\n    todo!()\n}\n\npub fn next(g: &Graph, n: NodeId) -> NodeId {\n    todo!()\n}\n\npub fn share(s: Shared) -> Shared {\n    s\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "Graph:3") < position(&order, "NodeId:1"), "{order:?}");
    assert!(position(&order, "Shared:8") < position(&order, "NodeId:1"), "{order:?}");
}

/// PageRank ranks a definition one busy type names above one that many places name; a
/// newcomer meets the second more often. Breadth counts beside depth.
#[test]
fn a_definition_many_places_name_is_not_outranked_by_one_a_single_busy_type_names() {
    let core_users: String = (0..8).map(|i| format!("def f{i}(c: Core) -> None:\n    pass\n\n\n")).collect();
    let hub_users: String = (0..6).map(|i| format!("def g{i}(h: Hub) -> None:\n    pass\n\n\n")).collect();
    let (_dir, index) = index_of(&[
        ("core.py", "class Deep:\n    pass\n\n\nclass Core:\n    part: Deep\n"),
        ("hub.py", "class Hub:\n    pass\n"),
        ("app.py", &format!("from core import Core\n\n\n{core_users}")),
        ("other.py", &format!("from hub import Hub\n\n\n{hub_users}")),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "Hub:1") < position(&order, "Deep:1"), "{order:?}");
}

/// A playground (Vite's end-to-end apps, a demo site) serves the code as examples do: however
/// much its own files use it, the library comes first.
#[test]
fn a_playgrounds_code_comes_after_the_library_it_exercises() {
    let users: String = (0..4)
        .map(|i| format!("import {{ setup }} from './setup'\nexport const app{i} = setup()\n"))
        .collect();
    let (_dir, index) = index_of(&[
        ("src/core.ts", "export function core(): number {\n  return 1\n}\n"),
        (
            "src/main.ts",
            "import { core } from './core'\nexport function main(): number {\n  return core()\n}\n",
        ),
        ("playground/css/setup.ts", "export function setup(): number {\n  return 2\n}\n"),
        ("playground/css/apps.ts", &users),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "core:1") < position(&order, "setup:1"), "{order:?}");
}

/// A value the package's index names is there for callers outside the repository, which the
/// graph does not see; a glob re-export brings whatever a module makes public, so what it
/// brings weighs as the types the package offers do.
#[test]
fn a_value_the_surface_names_outranks_what_a_glob_brings_along() {
    let (_dir, index) = index_of(&[
        (
            "src/index.ts",
            "export { VERSION } from './version'\nexport type { Options } from './options'\nexport * from './util'\nexport { tool } from './tools'\nexport * from './tools'\n",
        ),
        ("src/version.ts", "export const VERSION = '1.0'\n"),
        ("src/options.ts", "export interface Options {\n  root: string\n}\n"),
        (
            "src/util.ts",
            "export const DEFAULT_PORT = 80\nexport function helper(): number {\n  return 1\n}\n",
        ),
        ("src/tools.ts", "export function tool(): number {\n  return 2\n}\n"),
        (
            "src/serve.ts",
            "import type { Options } from './options'\nimport { helper, DEFAULT_PORT } from './util'\nexport function serve(o: Options): number {\n  return helper() + DEFAULT_PORT\n}\nexport function build(o: Options): Options {\n  return o\n}\n",
        ),
    ]);
    let order = map_order(&index);
    assert!(position(&order, "VERSION:1") < position(&order, "Options:1"), "{order:?}");
    assert!(position(&order, "Options:1") < position(&order, "helper:2"), "{order:?}");
    assert!(position(&order, "Options:1") < position(&order, "DEFAULT_PORT:1"), "{order:?}");
    // Named and brought by a glob too: named.
    assert!(position(&order, "tool:1") < position(&order, "Options:1"), "{order:?}");
}

/// A one-line type whose member names one of the repository's types (a Go interface's method
/// signature) is built of that type: not vocabulary.
#[test]
fn a_one_line_interface_whose_member_names_a_repository_type_is_not_vocabulary() {
    let users: String = (0..3).map(|i| format!("func Use{i}(h Handler) {{}}\n\n")).collect();
    let ids: String = (0..6).map(|i| format!("func Id{i}(i ID) ID {{\n\treturn i\n}}\n\n")).collect();
    let (_dir, index) = index_of(&[
        ("go.mod", "module example.com/srv\n\ngo 1.21\n"),
        ("context.go", "package srv\n\ntype Context struct {\n\tPath string\n}\n"),
        ("handler.go", "package srv\n\ntype Handler interface{ Serve(c *Context) }\n"),
        ("id.go", "package srv\n\ntype ID uint64\n"),
        ("uses.go", &format!("package srv\n\n{users}{ids}")),
    ]);
    let order = map_order(&index);
    // Three functions take a Handler, one method a Context: undiscounted, Handler leads.
    assert!(position(&order, "Handler:3") < position(&order, "Context:3"), "{order:?}");
    assert!(position(&order, "Handler:3") < position(&order, "ID:3"), "{order:?}");
}
