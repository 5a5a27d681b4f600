//! Bash: `.sh` and `.bash` files, tree-sitter-bash, `queries/bash/`. Functions (`f() { … }`,
//! `function f { … }`) and a file's read-only variables (`readonly X=1`, `declare -r X=1`) are
//! its definitions; a command named by a plain word calls the function of that name. Functions
//! are global once a file is loaded, so every file of the repository sees every other's
//! (one shared scope); `source f` and `. f` are recorded as glob imports of the file they load.

mod bash_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Bound, Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(crate) struct Bash;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Bash,
    name: "bash",
    extensions: &["sh", "bash"],
    interpreters: &["bash", "sh", "dash", "ksh"],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_bash::LANGUAGE.into(),
    comments: Comments { line: &["#"], block: None, block_inner: None, not: &["#!"] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["variable_name"],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/bash/tags.scm"),
    names: include_str!("../../../queries/bash/names.scm"),
    test_file_suffixes: &["_test.sh", "_test.bash"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    // Builtins and everyday commands: calls of them are no function of the repository's, and
    // positional parameters (`$1`) name nothing.
    noise: &[
        ".", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "[", "[[", "alias", "basename", "break",
        "builtin", "cat", "cd", "command", "continue", "cp", "declare", "dirname", "echo", "eval", "exec",
        "exit", "export", "false", "getopts", "grep", "local", "mkdir", "mv", "printf", "pwd", "read",
        "readonly", "return", "rm", "sed", "set", "shift", "source", "test", "trap", "true", "type", "unset",
    ],
    std_methods: &[],
    keywords: &[
        "case", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "local", "select",
        "then", "until", "while",
    ],
    preamble: &["#"],
    rules: Rules {
        attribute_names_members: false,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: false,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "bash",
    checks: bash_checks::checks,
    runners: &["tap"],
};

impl Language for Bash {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// A constant's signature is its whole declaration (`readonly TAX_PERCENT=20`).
    fn body_start(&self, def: Node) -> Option<usize> {
        def.child_by_field_name("body").map(|b| b.start_byte())
    }

    fn return_type<'s>(&self, _signature: &'s str) -> Option<&'s str> {
        None
    }

    /// The first line of the `#` comments right above the definition.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            super::line_comment_docs(Lang::Bash, holder, bytes, "#", &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    fn type_hint(&self, _text: &str) -> Option<String> {
        None
    }

    /// Bash has no qualified names.
    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_definition" => ScopeKind::Function,
            _ => ScopeKind::Block,
        }
    }

    /// `source lib/cart.sh` and `. "$dir/cart.sh"`: a glob import of the file, written as the
    /// path after the last expansion (`cart.sh`). A name no file binds is looked up in every
    /// file of the repository, those this one sources first (see [`Bash::tables`]).
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(argument) = node.child_by_field_name("argument") else { return };
        if let Some(path) = sourced_path(node_text(argument, bytes)) {
            out.push(RawImport::glob(path, argument));
        }
    }

    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A read-only variable's definition is what its name means, rather than the binding its
    /// declaration also makes; otherwise the last local before the use, else the functions.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        let defs: Vec<Entry> =
            entries.iter().filter(|e| matches!(e.bound(), Bound::Def(_))).copied().collect();
        let constant = defs.iter().any(|e| match e.bound() {
            Bound::Def(d) => symbols.defs.at(d as usize).kind == DefKind::Constant,
            _ => false,
        });
        if constant {
            return defs;
        }
        super::last_local_else_items(entries, symbols, pos)
    }

    /// One group, the repository: a function any file defines is callable from every file
    /// once loaded; where several files define one, a script means those it sources (directly
    /// or through others), when any does.
    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(
            super::shared_scope::SharedScope::new(files, Lang::Bash, &super::shared_scope::one_group)
                .with_loads(files),
        )
    }
}

/// The path a `source` argument names, quotes dropped and what an expansion before it gives
/// left out: `"$(dirname "$0")/lib/cart.sh"` → `lib/cart.sh`; `None` for a path that is only
/// an expansion.
fn sourced_path(argument: &str) -> Option<String> {
    let text = argument.trim().trim_matches(|c| c == '"' || c == '\'');
    let path = match text.rfind('$') {
        Some(dollar) => &text[dollar + text[dollar..].find('/')? + 1..],
        None => text,
    };
    let path = path.trim_matches(|c| c == '"' || c == '\'');
    (!path.is_empty() && !path.contains(['$', '"', '\'', '`'])).then(|| path.to_string())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::extract::extract;

    fn defs(src: &str) -> Vec<String> {
        let fs = extract(Lang::Bash, src);
        fs.defs
            .iter()
            .map(|d| {
                let doc = d.doc().unwrap_or("-");
                format!(
                    "{} {} {}-{} | {} | {doc}",
                    d.kind.as_str(),
                    d.qualified(),
                    d.line,
                    d.end_line,
                    d.signature()
                )
            })
            .collect()
    }

    fn refs(src: &str) -> Vec<String> {
        let fs = extract(Lang::Bash, src);
        fs.refs
            .iter()
            .map(|r| {
                let inside = r.enclosing().map(|d| fs.defs.at(d as usize).qualified()).unwrap_or("-");
                format!("{}:{} {} {} in {inside}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect()
    }

    const SRC: &str = r#"#!/usr/bin/env bash
# A header that a blank line parts from what follows.

readonly TAX=20
declare -r LIMIT=5
declare -x LOUD=1
COUNT=0

# Sums two numbers.
# More about it.
add() {
    local a="$1" b
    b=$2
    echo $((a + b + TAX))
}

function twice {
    add "$1" "$1"
}
"#;

    #[test]
    fn functions_both_ways_and_read_only_constants_with_docs() {
        assert_eq!(
            defs(SRC),
            [
                "constant TAX 4-4 | readonly TAX=20 | -",
                "constant LIMIT 5-5 | declare -r LIMIT=5 | -",
                "function add 11-15 | add() | Sums two numbers.",
                "function twice 17-19 | function twice | -",
            ]
        );
    }

    #[test]
    fn calls_of_functions_and_names_of_variables_are_references() {
        assert_eq!(
            refs(SRC),
            [
                "6:12 LOUD name in -",
                "7:1 COUNT name in -",
                "12:11 a name in add",
                "12:18 b name in add",
                "13:5 b name in add",
                "14:13 a name in add",
                "14:17 b name in add",
                "14:21 TAX name in add",
                "18:5 add call in twice",
            ]
        );
    }

    #[test]
    fn locals_bind_in_their_function_and_sourcing_is_a_glob_import() {
        let src = "source \"$(dirname \"$0\")/lib/cart.sh\"\n. ./item.sh\nsource \"$x\"\nX=1\nf() {\n  local y=1\n  for i in 1 2; do :; done\n}\n";
        let fs = extract(Lang::Bash, src);
        let imports: Vec<String> = fs
            .imports
            .iter()
            .map(|i| format!("{} glob={} in {}", fs.text(i.module), { i.glob }, { i.scope }))
            .collect();
        assert_eq!(imports, ["lib/cart.sh glob=true in 0", "./item.sh glob=true in 0"]);
        let bindings: Vec<String> = fs
            .bindings
            .iter()
            .map(|b| format!("{} {:?} in {}", fs.text(b.name), { b.kind }, { b.scope }))
            .collect();
        assert_eq!(bindings, ["X Assign in 0", "y Let in 1", "i Loop in 1"]);
        assert_eq!(fs.scopes.len(), 2);
    }

    #[test]
    fn sourced_paths_drop_quotes_and_expansions() {
        assert_eq!(sourced_path("lib/cart.sh").as_deref(), Some("lib/cart.sh"));
        assert_eq!(sourced_path("\"$here/lib/vip_cart.sh\"").as_deref(), Some("lib/vip_cart.sh"));
        assert_eq!(sourced_path("\"$(dirname \"${BASH_SOURCE[0]}\")/item.sh\"").as_deref(), Some("item.sh"));
        assert_eq!(sourced_path("\"$plugin\""), None);
    }

    #[test]
    fn names_resolve_to_locals_constants_and_other_files_functions() {
        let lib = "readonly RATE=20\nGREETING=hi\n\nrate() {\n    local n=$1\n    echo $((n * RATE)) $GREETING\n}\n";
        let main = "source lib.sh\nmain() {\n    rate 3\n    echo $RATE\n}\nmain\n";
        assert_eq!(
            resolve(&[("lib.sh", lib), ("main.sh", main)]),
            [
                "lib.sh:2 GREETING name -> lib.sh:2 $GREETING",
                "lib.sh:5 n name -> lib.sh:5 $n",
                "lib.sh:6 n name -> lib.sh:5 $n",
                "lib.sh:6 RATE name -> lib.sh:1 RATE",
                "lib.sh:6 GREETING name -> lib.sh:2 $GREETING",
                "main.sh:3 rate call -> lib.sh:4 rate",
                "main.sh:4 RATE name -> lib.sh:1 RATE",
                "main.sh:6 main call -> main.sh:2 main",
            ]
        );
    }

    /// Deeply nested blocks, and two files sourcing each other, extract without trouble.
    #[test]
    fn deep_nesting_and_a_source_cycle_finish() {
        let mut src = String::from("f() {\n");
        for _ in 0..300 {
            src.push_str("if true; then\n");
        }
        src.push_str("g\n");
        for _ in 0..300 {
            src.push_str("fi\n");
        }
        src.push_str("}\n");
        let fs = extract(Lang::Bash, &src);
        assert!(fs.too_deep.is_some() || fs.defs.iter().any(|d| d.name() == "f"));
        let resolved =
            resolve(&[("a.sh", "source b.sh\na() { b; }\n"), ("b.sh", "source a.sh\nb() { a; }\n")]);
        assert_eq!(resolved, ["a.sh:2 b call -> b.sh:2 b", "b.sh:2 a call -> a.sh:2 a"]);
    }

    /// Every reference of a small repository with what it resolves to.
    pub(crate) fn resolve(files: &[(&str, &str)]) -> Vec<String> {
        use crate::meaning::Target;
        use crate::snapshot::Snapshot;
        let entries = files.iter().map(|(path, text)| crate::test_support::entry(path, text));
        let snapshot = Snapshot::from_entries(entries);
        let resolver = snapshot.resolver();
        let mut out = Vec::new();
        for file in 0..resolver.n_files() as u32 {
            let entry = resolver.entry(file);
            for r in entry.symbols.refs.iter() {
                let found = resolver.resolve_ref(file, &r);
                let show = |t: &Target| match *t {
                    Target::Def { file, def } => {
                        let e = resolver.entry(file);
                        let d = e.symbols.defs.at(def as usize);
                        format!("{}:{} {}", e.path, d.line, d.qualified())
                    }
                    Target::Binding { file, binding } => {
                        let e = resolver.entry(file);
                        let b = e.symbols.bindings[binding as usize];
                        format!("{}:{} ${}", e.path, { b.line }, e.symbols.text(b.name))
                    }
                    Target::Module { file } => format!("module {}", resolver.entry(file).path),
                    Target::Import { file, import } => {
                        format!("import {}#{import}", resolver.entry(file).path)
                    }
                };
                let mut to: Vec<String> = found.resolved.iter().map(show).collect();
                to.extend(found.candidates.iter().map(|t| format!("?{}", show(t))));
                if !to.is_empty() {
                    out.push(format!(
                        "{}:{} {} {} -> {}",
                        entry.path,
                        r.line,
                        entry.symbols.ref_name(&r),
                        r.kind().as_str(),
                        to.join(", ")
                    ));
                }
            }
        }
        out
    }

    /// Two files define `rate`: a script that sources one (through a folder variable) calls
    /// that one.
    #[test]
    fn a_function_two_files_define_is_the_one_the_script_sources() {
        let files = [
            ("lib/flat.sh", "rate() {\n    echo 1\n}\n"),
            ("lib/tiered.sh", "rate() {\n    echo 2\n}\n"),
            ("bin/quote.sh", "source \"$here/../lib/tiered.sh\"\nrate 3\n"),
            ("bin/plain.sh", "rate 3\n"),
        ];
        let at = |path, line| crate::test_support::resolve_at(&files, path, line, 1);
        assert_eq!(at("bin/quote.sh", 2), "rate: function rate (lib/tiered.sh:1)");
        assert_eq!(
            at("bin/plain.sh", 1),
            "rate: function rate (lib/flat.sh:1) function rate (lib/tiered.sh:1)"
        );
    }
}
