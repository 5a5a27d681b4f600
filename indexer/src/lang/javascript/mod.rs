//! JavaScript (and, through the same [`Ecma`] type, TypeScript): functions, classes and their
//! methods, functions and constants bound at the top of a module; ES imports and re-exports and
//! CommonJS `require`, resolved between the repository's files by relative path.

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, doc_blocks_of_children, node_text,
};
use crate::meaning::{Bound, Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(super) mod es_modules;

/// A language of the ECMAScript family; its spec says which.
pub(crate) struct Ecma {
    pub(super) spec: &'static LangSpec,
}

pub(crate) static JAVASCRIPT: Ecma = Ecma { spec: &SPEC };

/// What JavaScript and TypeScript share, apart from their name, extensions, grammar and queries.
pub(super) const KEYWORDS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "let",
    "new",
    "null",
    "return",
    "static",
    "switch",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

pub(super) const RULES: Rules = Rules {
    // `a.b` may be a method or a getter.
    attribute_names_members: true,
    method_call_names_function: true,
    // `export const x = …` binds `x` as a variable too: that binding is its identity.
    defs_are_assignments: true,
    external_globs_give_candidates: false,
    bases_outside_class: true,
    class_body_closed: true,
    first_binding_scope_wins: false,
    module_scope_is_closed: false,
};

/// Methods of the built-in objects (arrays, strings, maps, sets, promises, functions): shared
/// with TypeScript.
pub(crate) const ECMA_STD_METHODS: &[&str] = &[
    "add",
    "apply",
    "bind",
    "call",
    "catch",
    "concat",
    "delete",
    "endsWith",
    "entries",
    "every",
    "exec",
    "filter",
    "finally",
    "find",
    "findIndex",
    "forEach",
    "get",
    "has",
    "includes",
    "indexOf",
    "join",
    "keys",
    "map",
    "match",
    "pop",
    "push",
    "reduce",
    "replace",
    "set",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "split",
    "startsWith",
    "test",
    "then",
    "toString",
    "trim",
    "unshift",
    "values",
];

/// The node kinds of JavaScript's grammar the shared walks read; TypeScript's adds types.
pub(super) const NODES: Nodes = Nodes {
    body: "body",
    pattern_identifiers: &["identifier"],
    pattern_shorthands: &["shorthand_property_identifier_pattern"],
    pattern_parts: &[
        ("pair_pattern", "value"),
        ("assignment_pattern", "left"),
        ("object_assignment_pattern", "left"),
    ],
    pattern_non_bindings: &["string"],
    pattern_skipped_fields: &["condition", "value", "function", "arguments", "body"],
    chain_names: &["identifier", "this", "super"],
    chain_members: &[("member_expression", "object", "property")],
    chain_calls: &[("call_expression", "function"), ("new_expression", "constructor")],
    comments: &["comment"],
    ..Nodes::NONE
};

static SPEC: LangSpec = LangSpec {
    lang: Lang::JavaScript,
    name: "javascript",
    extensions: &["js", "jsx", "mjs", "cjs"],
    interpreters: &["node", "nodejs"],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_javascript::LANGUAGE.into(),
    comments: Comments::SLASHES,
    nodes: NODES,
    tags: concat!(
        include_str!("../../../queries/ecma/tags.scm"),
        include_str!("../../../queries/javascript/tags.scm")
    ),
    names: concat!(
        include_str!("../../../queries/ecma/names.scm"),
        include_str!("../../../queries/javascript/names.scm")
    ),
    test_file_suffixes: &[".test.js", ".spec.js", ".test.jsx", ".spec.jsx", ".test.mjs", ".spec.mjs"],
    test_file_names: &[],
    surface_files: &["index.js", "index.mjs", "index.jsx"],
    separator: ".",
    noise: &[],
    std_methods: ECMA_STD_METHODS,
    keywords: KEYWORDS,
    preamble: &["@", "/**", "*", "//"],
    rules: RULES,
    family: "ecma",
    checks: npm_checks,
    runners: &["tap", "jest-json", "plain", "eslint-json"],
};

/// A `package.json` with a test script: that script through the package manager its lockfile
/// names, with a reporter the verify tool reads where the runner is known (node's test runner
/// and Mocha write TAP, Jest and Vitest their JSON report; another runner's output is read as
/// plain text). And the project's own ESLint when it is installed and configured.
fn npm_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    let Ok(Some(bytes)) = crate::beneath::read_bounded(&dir.join("package.json"), 1 << 20, Some(dir)) else {
        return Vec::new();
    };
    let Ok(manifest) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return Vec::new() };
    let mut checks = Vec::new();
    if let Some(script) = manifest["scripts"]["test"].as_str()
        // What `npm init` writes: there are no tests.
        && !script.contains("no test specified")
    {
        let manager =
            [("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lock", "bun"), ("bun.lockb", "bun")]
                .into_iter()
                .find(|(lock, _)| dir.join(lock).is_file())
                .map_or("npm", |(_, manager)| manager);
        let (args, format) = runner_args(script);
        // npm needs `--` before the script's own arguments and `--silent` to keep its banner out.
        let command = match (manager, args.is_empty()) {
            ("npm", true) => "npm test --silent".to_string(),
            ("npm", false) => format!("npm test --silent -- {args}"),
            (manager, true) => format!("{manager} test"),
            (manager, false) => format!("{manager} test {args}"),
        };
        checks.push(super::ProjectCheck {
            name: format!("{manager} test"),
            command,
            format,
            caches: caches(manager),
        });
    }
    let configs = [
        "eslint.config.js",
        "eslint.config.mjs",
        "eslint.config.cjs",
        "eslint.config.ts",
        "eslint.config.mts",
        "eslint.config.cts",
        ".eslintrc",
        ".eslintrc.js",
        ".eslintrc.cjs",
        ".eslintrc.json",
        ".eslintrc.yml",
        ".eslintrc.yaml",
    ];
    let configured = configs.iter().any(|c| dir.join(c).is_file()) || manifest.get("eslintConfig").is_some();
    if configured && dir.join("node_modules/.bin/eslint").is_file() {
        checks.push(super::ProjectCheck {
            name: "eslint".into(),
            command: "node_modules/.bin/eslint --format json .".into(),
            format: "eslint-json",
            caches: Vec::new(),
        });
    }
    checks
}

/// Where a package manager keeps what it downloaded: npm's `npm_config_cache` (else `~/.npm`),
/// yarn's `~/.cache/yarn`, pnpm's store and bun's cache.
fn caches(manager: &str) -> Vec<std::path::PathBuf> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let npm = std::env::var_os("npm_config_cache").filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
    let cache = match manager {
        "npm" => npm.or_else(|| home.map(|h| h.join(".npm"))),
        "yarn" => home.map(|h| h.join(".cache/yarn")),
        "pnpm" => home.map(|h| h.join(".local/share/pnpm/store")),
        _ => home.map(|h| h.join(".bun/install/cache")),
    };
    cache.into_iter().collect()
}

/// The arguments that make a test script's runner write what the verify tool reads, and that
/// format's name: the runner is the first word of a step of the script that names one.
fn runner_args(script: &str) -> (&'static str, &'static str) {
    for step in script.split("&&") {
        let words: Vec<&str> = step.split_whitespace().collect();
        let runs = |name: &str| words.iter().take(2).any(|w| *w == name || w.ends_with(&format!("/{name}")));
        if words.first() == Some(&"node") && words.contains(&"--test") {
            return ("--test-reporter=tap", "tap");
        }
        if runs("jest") {
            return ("--json", "jest-json");
        }
        if runs("vitest") {
            // Bare `vitest` watches when it has a terminal; `run` never does.
            return if words.contains(&"run") {
                ("--reporter=json", "jest-json")
            } else {
                ("--run --reporter=json", "jest-json")
            };
        }
        if runs("mocha") {
            return ("--reporter tap", "tap");
        }
    }
    ("", "plain")
}

impl Language for Ecma {
    fn spec(&self) -> &'static LangSpec {
        self.spec
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.name().starts_with(['#', '_'])
            || def.signature().split_whitespace().take_while(|w| !w.contains('(')).any(|w| w == "private")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "toString" | "valueOf" | "toJSON" | "inspect")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "method_definition" => ScopeKind::Function,
            "arrow_function" => ScopeKind::Lambda,
            "class_declaration" | "abstract_class_declaration" => ScopeKind::Class,
            "internal_module" => ScopeKind::Module,
            _ => ScopeKind::Block,
        }
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// The class of a method set on its prototype: `Runner.prototype.run = …` is `Runner.run`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if def.kind() != "assignment_expression" {
            return None;
        }
        let target = def.child_by_field_name("left")?.child_by_field_name("object")?;
        if target.kind() != "member_expression"
            || target.child_by_field_name("property").map(|p| node_text(p, bytes)) != Some("prototype")
        {
            return None;
        }
        Some(node_text(target.child_by_field_name("object")?, bytes).to_string())
    }

    /// `const f = (a) => {…}`: the signature ends at the arrow function's body; a constant's at
    /// its value.
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(body) = def.child_by_field_name("body") {
            return Some(body.start_byte());
        }
        // `exports.f = function (…) {…}`, `C.prototype.m = …`.
        if def.kind() == "assignment_expression" {
            let right = def.child_by_field_name("right")?;
            return Some(right.child_by_field_name("body").unwrap_or(right).start_byte());
        }
        let value = def.child_by_field_name("value")?;
        Some(value.child_by_field_name("body").unwrap_or(value).start_byte())
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches('=').trim_end()
    }

    /// The first line of the `/** … */` comment right above the definition (above `export` and
    /// `const` when they hold it).
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let (mut key, mut holder) = (def, parent?);
        while matches!(
            holder.kind(),
            "export_statement" | "lexical_declaration" | "variable_declaration" | "expression_statement"
        ) {
            key = holder;
            holder = holder.parent()?;
        }
        if cache.parents.insert(holder.id()) {
            doc_blocks_of_children(self.spec.lang, holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&key.id()).copied()
    }

    /// Type arguments cut: `Map<K, V>` → `Map`, `ns.Cart` stays; anything else (a union, an
    /// array, an object type) is no single class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let base = text.trim().split('<').next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            });
        ok.then(|| base.to_string())
    }

    /// A name inside an import, a re-export or a `require` is qualified by the module it comes
    /// from.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let mut at = node.parent();
        for _ in 0..5 {
            let here = at?;
            match here.kind() {
                "import_statement" | "export_statement" => {
                    return here.child_by_field_name("source").map(|s| unquote(node_text(s, bytes)));
                }
                "variable_declarator" => return required_module(here, bytes),
                _ => at = here.parent(),
            }
        }
        None
    }

    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        match node.kind() {
            "import_statement" => {
                let Some(source) = node.child_by_field_name("source") else { return };
                let module = unquote(node_text(source, bytes));
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "import_clause" => import_clause(child, &module, bytes, out),
                        "import_require_clause" => {
                            let mut inner = child.walk();
                            if let Some(name) =
                                child.named_children(&mut inner).find(|c| c.kind() == "identifier")
                            {
                                out.push(whole(&module, name, bytes));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "export_statement" => {
                let Some(source) = node.child_by_field_name("source") else { return };
                let module = unquote(node_text(source, bytes));
                let mut cursor = node.walk();
                let mut listed = false;
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "export_clause" => {
                            listed = true;
                            let mut inner = child.walk();
                            for spec in
                                child.named_children(&mut inner).filter(|c| c.kind() == "export_specifier")
                            {
                                specifier(spec, &module, bytes, out);
                            }
                        }
                        "namespace_export" => {
                            listed = true;
                            let mut inner = child.walk();
                            if let Some(name) = child.named_children(&mut inner).next() {
                                out.push(whole(&module, name, bytes));
                            }
                        }
                        _ => {}
                    }
                }
                if !listed {
                    // `export * from './x'`: every name of `x` is a name of this module.
                    out.push(RawImport::glob(module, source));
                }
            }
            "variable_declarator" => {
                let (Some(module), Some(name)) =
                    (required_module(node, bytes), node.child_by_field_name("name"))
                else {
                    return;
                };
                match name.kind() {
                    "identifier" => out.push(whole(&module, name, bytes)),
                    "object_pattern" => {
                        let mut cursor = name.walk();
                        for part in name.named_children(&mut cursor) {
                            match part.kind() {
                                "shorthand_property_identifier_pattern" => {
                                    out.push(item(&module, node_text(part, bytes), part, false, bytes))
                                }
                                "pair_pattern" => {
                                    if let (Some(key), Some(value)) =
                                        (part.child_by_field_name("key"), part.child_by_field_name("value"))
                                        && value.kind() == "identifier"
                                    {
                                        out.push(item(&module, node_text(key, bytes), value, true, bytes));
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Methods are reached through their class.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Method
    }

    /// A local is visible after its declaration (the last one before the use), declarations of
    /// functions and classes everywhere; where `const x = require(…)` both binds and imports,
    /// the import is what it means.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        let chosen = super::last_local_else_items(entries, symbols, pos);
        if let [one] = chosen.as_slice()
            && matches!(one.bound(), Bound::Binding(_))
            && let Some(import) = entries
                .iter()
                .find(|e| matches!(e.bound(), Bound::Import(_)) && e.pos(symbols) == one.pos(symbols))
        {
            return vec![*import];
        }
        chosen
    }

    /// TypeScript's `(…): Cart`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let open = signature.find('(')?;
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in signature[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let rest = signature[close? + 1..].trim_start().strip_prefix(':')?;
        let ty = rest.trim().trim_end_matches(['{', '=', '>']).trim();
        (!ty.is_empty()).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(es_modules::EsModules::new(files))
    }
}

fn unquote(text: &str) -> String {
    text.trim_matches(['"', '\'', '`']).to_string()
}

/// The module of `x = require('m')`.
fn required_module(declarator: Node, bytes: &[u8]) -> Option<String> {
    let call = declarator.child_by_field_name("value")?;
    if call.kind() != "call_expression"
        || node_text(call.child_by_field_name("function")?, bytes) != "require"
    {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let first = args.named_children(&mut cursor).next()?;
    (first.kind() == "string").then(|| unquote(node_text(first, bytes)))
}

/// The module itself, bound to a name (`import * as m`, `const m = require(…)`).
fn whole<'t>(module: &str, name: Node<'t>, bytes: &[u8]) -> RawImport<'t> {
    RawImport {
        module: module.to_string(),
        item: None,
        bound: Some(node_text(name, bytes).to_string()),
        alias: true,
        glob: false,
        cfg: None,
        at: name,
    }
}

/// One name of a module, bound as `at` reads.
fn item<'t>(module: &str, item: &str, at: Node<'t>, alias: bool, bytes: &[u8]) -> RawImport<'t> {
    RawImport {
        module: module.to_string(),
        item: Some(item.to_string()),
        bound: Some(node_text(at, bytes).to_string()),
        alias,
        glob: false,
        cfg: None,
        at,
    }
}

fn import_clause<'t>(clause: Node<'t>, module: &str, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    let mut cursor = clause.walk();
    for part in clause.named_children(&mut cursor) {
        match part.kind() {
            // `import Cart from './cart'`: the default export, by the name the importer gives.
            "identifier" => out.push(item(module, "default", part, true, bytes)),
            "namespace_import" => {
                let mut inner = part.walk();
                if let Some(name) = part.named_children(&mut inner).find(|c| c.kind() == "identifier") {
                    out.push(whole(module, name, bytes));
                }
            }
            "named_imports" => {
                let mut inner = part.walk();
                for spec in part.named_children(&mut inner).filter(|c| c.kind() == "import_specifier") {
                    specifier(spec, module, bytes, out);
                }
            }
            _ => {}
        }
    }
}

/// `a` or `a as b` in an import or export list.
fn specifier<'t>(spec: Node<'t>, module: &str, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    let Some(name) = spec.child_by_field_name("name") else { return };
    let alias = spec.child_by_field_name("alias");
    out.push(item(module, &unquote(node_text(name, bytes)), alias.unwrap_or(name), alias.is_some(), bytes));
}

#[cfg(test)]
mod tests {
    use super::runner_args;

    #[test]
    fn a_test_scripts_runner_is_asked_for_what_verify_reads() {
        assert_eq!(runner_args("node --test"), ("--test-reporter=tap", "tap"));
        assert_eq!(runner_args("tsc && jest --coverage"), ("--json", "jest-json"));
        assert_eq!(runner_args("npx jest"), ("--json", "jest-json"));
        assert_eq!(runner_args("vitest"), ("--run --reporter=json", "jest-json"));
        assert_eq!(runner_args("vitest run"), ("--reporter=json", "jest-json"));
        assert_eq!(runner_args("mocha test/*.js"), ("--reporter tap", "tap"));
        assert_eq!(runner_args("ava"), ("", "plain"));
        // A word that only mentions a runner is not one.
        assert_eq!(runner_args("echo see jest docs"), ("", "plain"));
    }
}
