//! What the dump examples write to compare two builds byte for byte: a graph's facts and a
//! resolver's answers. Shared by `map_phases` and `fold_phases` (`mod dumps;`).

/// Every edge in edge order (source, target, exact weight), then each identifier's definers:
/// what two builds of one graph must agree on.
pub fn graph_facts(graph: &tack_indexer::SymbolGraph) -> String {
    let mut out = String::new();
    for (src, dst, weight) in graph.edges() {
        out += &format!("{src} {dst} {weight:?}\n");
    }
    let mut id = 0;
    while let Some(name) = graph.ident_name(id) {
        out += &format!("{name} {:?}\n", graph.definers(id));
        id += 1;
    }
    out
}

/// What the resolver says of every reference, and of a sample of definitions' targets.
#[allow(dead_code)] // only map_phases dumps resolution
pub fn resolution_facts(resolver: &tack_indexer::Resolver) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut n_defs = 0usize;
    for file in 0..resolver.n_files() as u32 {
        let symbols = &resolver.entry(file).symbols;
        for r in &symbols.refs {
            let _ = writeln!(out, "{} {:?}: {:?}", resolver.path(file), r, resolver.resolve_ref(file, &r));
        }
        for def in &symbols.defs {
            n_defs += 1;
            if !n_defs.is_multiple_of(89) {
                continue;
            }
            for target in resolver.lookup_symbol(def.qualified()) {
                let _ = writeln!(
                    out,
                    "{} -> {} refs {:?} callers {:?} callees {:?}",
                    def.qualified(),
                    resolver.describe(target),
                    resolver.references(target),
                    resolver.callers(target),
                    resolver.callees(target)
                );
            }
        }
    }
    out
}
