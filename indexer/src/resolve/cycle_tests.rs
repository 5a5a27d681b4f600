//! Every language's resolver finishes on import graphs with cycles and self-imports: random
//! graphs (property tests), the one line that once overflowed the stack (`from a.b import b` in
//! `a.py`), and a chain of 10,000 aliases. Finishing is the property; the answers are checked
//! to be the same on a second run, so the bounds cut no resolution differently from one run to
//! the next.

use proptest::prelude::*;

use crate::snapshot::{FileEntry, Lang, Snapshot};

/// How many files a random graph joins.
const FILES: usize = 5;
/// How many names each file defines.
const NAMES: usize = 3;

/// One import of a random graph: the importing file, the imported one, and the form it takes
/// (each language has several; the form picks one).
type Edge = (usize, usize, u8);

fn entry(path: &str, text: &str) -> FileEntry {
    let lang = Lang::from_path(std::path::Path::new(path)).expect("a source path");
    FileEntry {
        path: path.to_string(),
        lang,
        size: text.len() as u64,
        mtime_ns: 0,
        hash: [0; 16],
        lines: text.lines().count() as u32,
        symbols: crate::extract::extract(lang, text),
    }
}

/// The files of one language for a graph: each file defines `n0`..`n2` (or its language's
/// form of them), imports what the edges say and uses the names it imports.
fn files(lang: &str, edges: &[Edge]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for i in 0..FILES {
        let from: Vec<(usize, u8)> = edges.iter().filter(|e| e.0 == i).map(|e| (e.1, e.2)).collect();
        let mut text = String::new();
        let path = match lang {
            "py" => {
                for &(j, form) in &from {
                    let k = form as usize % NAMES;
                    text.push_str(&match form % 5 {
                        0 => format!("from m{j} import *\n"),
                        1 => format!("from m{j} import n{k}\n"),
                        2 => format!("import m{j}\nn{k} = m{j}.n{k}\n"),
                        3 => format!("from m{j}.n{k} import n{k}\n"),
                        _ => format!("from .m{j} import n{k} as n{}\n", (k + 1) % NAMES),
                    });
                }
                for k in 0..NAMES {
                    text.push_str(&format!(
                        "class C{k}(n{k}):\n    def f(self):\n        return n{k}().f()\n"
                    ));
                }
                format!("m{i}.py")
            }
            "rs" => {
                for &(j, form) in &from {
                    let k = form as usize % NAMES;
                    text.push_str(&match form % 4 {
                        0 => format!("pub use crate::m{j}::*;\n"),
                        1 => format!("pub use crate::m{j}::n{k};\n"),
                        2 => format!("pub use super::m{j}::n{k} as n{};\n", (k + 1) % NAMES),
                        _ => format!("pub use crate::m{j} as m{i};\n"),
                    });
                }
                for k in 0..NAMES {
                    text.push_str(&format!(
                        "pub type T{k} = n{k};\npub fn f{k}() {{ n{k}(); m{i}::n{k}(); }}\n"
                    ));
                }
                format!("src/m{i}.rs")
            }
            "go" => {
                for &(j, form) in &from {
                    text.push_str(&match form % 2 {
                        0 => format!("import \"ex/m{j}\"\nvar _ = m{j}.N0\n"),
                        _ => format!("import . \"ex/m{j}\"\nvar _ = N{}\n", form as usize % NAMES),
                    });
                }
                for k in 0..NAMES {
                    text.push_str(&format!("type N{k} = N{}\nfunc F{k}() {{ N{k}() }}\n", (k + 1) % NAMES));
                }
                text.insert_str(0, &format!("package m{i}\n"));
                format!("m{i}/m.go")
            }
            "ts" | "js" => {
                for &(j, form) in &from {
                    let k = form as usize % NAMES;
                    text.push_str(&match form % 4 {
                        0 => format!("export * from './m{j}';\n"),
                        1 => format!("export {{ n{k} as n{} }} from './m{j}';\n", (k + 1) % NAMES),
                        2 => format!("import {{ n{k} }} from './m{j}';\nexport {{ n{k} }};\n"),
                        _ => format!("import * as m{j} from './m{j}';\nexport const n{k} = m{j}.n{k};\n"),
                    });
                }
                for k in 0..NAMES {
                    text.push_str(&format!(
                        "export class C{k} extends n{k} {{ f() {{ return n{k}().f(); }} }}\n"
                    ));
                }
                format!("m{i}.{lang}")
            }
            "java" => {
                text.push_str("package p;\n");
                for &(j, form) in &from {
                    text.push_str(&match form % 2 {
                        0 => format!("import p.M{j};\n"),
                        _ => format!("import static p.M{j}.*;\n"),
                    });
                }
                let base = from.first().map_or(i, |e| e.0);
                text.push_str(&format!(
                    "public class M{i} extends M{base} {{\n  static M{base} n0() {{ return M{base}.n0().n0(); }}\n}}\n"
                ));
                format!("p/M{i}.java")
            }
            _ => {
                // C and C++: includes in a cycle, and functions calling what they include.
                for &(j, _) in &from {
                    text.push_str(&format!("#include \"m{j}.h\"\n"));
                }
                for k in 0..NAMES {
                    text.push_str(&format!(
                        "typedef struct n{k} t{k};\nint f{i}_{k}(void) {{ return f{k}_{k}(); }}\n"
                    ));
                }
                format!("m{i}.{lang}")
            }
        };
        out.push((path, text));
    }
    match lang {
        "rs" => {
            let mods: String = (0..FILES).map(|i| format!("pub mod m{i};\n")).collect();
            out.push(("src/lib.rs".into(), mods));
        }
        "c" | "cpp" => {
            for i in 0..FILES {
                let next = (i + 1) % FILES;
                let header = format!("#include \"m{i}.h\"\n#include \"m{next}.h\"\nint f{i}_0(void);\n");
                out.push((format!("m{i}.h"), header));
            }
        }
        _ => {}
    }
    out
}

/// Resolves every reference of every file, walks the graph, and looks up each name; returns
/// what was resolved, as text.
fn resolve_all(snapshot: &Snapshot) -> String {
    let resolver = snapshot.resolver();
    let mut out = String::new();
    for file in 0..resolver.n_files() as u32 {
        for r in resolver.entry(file).symbols.refs.iter() {
            let found = resolver.resolve_ref(file, &r);
            out.push_str(&format!("{file}:{} {:?}\n", r.line, found.resolved));
        }
    }
    let graph = snapshot.graph();
    out.push_str(&format!("{} edges\n", graph.n_edges()));
    for name in ["n0", "n1", "m0.n0", "m1::n1", "M0.n0"] {
        for target in resolver.lookup_symbol(name) {
            let (resolved, candidates) = resolver.references(target);
            out.push_str(&format!("{name}: {} {}\n", resolved.len(), candidates.len()));
        }
    }
    out
}

fn check_finishes(lang: &str, edges: &[Edge]) {
    let snapshot = || Snapshot::from_entries(files(lang, edges).iter().map(|(p, t)| entry(p, t)));
    let first = resolve_all(&snapshot());
    let second = resolve_all(&snapshot());
    assert_eq!(first, second, "{lang}: the same graph resolves the same way twice");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_import_graphs_with_cycles_and_self_imports_resolve_in_every_language(
        edges in proptest::collection::vec((0..FILES, 0..FILES, any::<u8>()), 1..12),
    ) {
        for lang in ["py", "rs", "go", "ts", "js", "java", "c", "cpp"] {
            check_finishes(lang, &edges);
        }
    }
}

#[test]
fn every_file_importing_every_file_itself_included_resolves() {
    let edges: Vec<Edge> = (0..FILES)
        .flat_map(|i| (0..FILES).flat_map(move |j| (0..5u8).map(move |form| (i, j, form))))
        .collect();
    for lang in ["py", "rs", "go", "ts", "js", "java", "c", "cpp"] {
        check_finishes(lang, &edges);
    }
}

#[test]
fn a_module_importing_a_name_through_its_own_dotted_name_resolves() {
    // `a.b` is no file: it is looked up as the name `b` of module `a`, which is this import.
    let snapshot = Snapshot::from_entries([entry("a.py", "from a.b import b\nb()\n")]);
    resolve_all(&snapshot);
}

#[test]
fn a_chain_of_ten_thousand_aliases_resolves() {
    let mut py = String::from("class A0:\n    def f(self): pass\n");
    let mut rs = String::from("pub struct A0;\nimpl A0 { pub fn f(&self) {} }\n");
    let mut ts = String::from("export class A0 { f() {} }\n");
    for i in 1..10_000 {
        py.push_str(&format!("A{i} = A{}\n", i - 1));
        rs.push_str(&format!("pub type A{i} = A{};\n", i - 1));
        ts.push_str(&format!("export const A{i} = A{};\n", i - 1));
    }
    py.push_str("A9999().f()\n");
    rs.push_str("pub fn g(a: A9999) { a.f(); }\n");
    ts.push_str("new A9999().f();\n");
    let snapshot =
        Snapshot::from_entries([entry("chain.py", &py), entry("src/lib.rs", &rs), entry("chain.ts", &ts)]);
    let resolved = resolve_all(&snapshot);
    assert!(resolved.lines().count() > 30_000, "every reference was asked: {}", resolved.lines().count());
}
