//! Elixir: `.ex` and `.exs` files, tree-sitter-elixir, `queries/elixir/`. Modules
//! (`defmodule Shop.Cart` is `Cart` in `Shop`: a path is one token, whose last part is the name;
//! a nested module is qualified by those around it), functions (`def`, `defp`, `defdelegate`;
//! the clauses of one name and arity are one definition), macros and guards, protocols, types
//! (`@type`) and numeric module attributes; docs from `@moduledoc`, `@doc` or the `#` lines
//! above. Modules are global by their full name: every file sees every module of the
//! repository. `alias Shop.Pricing` (also `as: P` and `Shop.{Cart, Pricing}`) binds a short
//! name, `import Shop.Pricing` makes its functions callable bare (a glob import), `require` and
//! `use` are recorded as imports that bind nothing; `__MODULE__` is the module around. A call
//! names every arity of its function (the arity is not kept with a reference).

mod elixir_checks;

use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Binder, Bound, Entry, Found, Lookup, MAX_DEPTH, Tables, Target, Value, import_found};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind, innermost_scope};

pub(crate) struct Elixir;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Elixir,
    name: "elixir",
    extensions: &["ex", "exs"],
    interpreters: &["elixir"],
    build_scripts: &["mix.exs"],
    manifest: None,
    grammar: || tree_sitter_elixir::LANGUAGE.into(),
    comments: Comments { line: &["#"], block: None, block_inner: None, not: &["#!"] },
    nodes: Nodes {
        // No node of the grammar has a body field: `body_start` finds the `do` block itself.
        body: "right",
        pattern_identifiers: &["identifier"],
        // A pinned `^x` or a module attribute, a call (in a guard or a default value) and a
        // field read bind nothing.
        pattern_non_bindings: &["unary_operator", "call", "dot"],
        import_aliases: &[("pair", "value")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/elixir/tags.scm"),
    names: include_str!("../../../queries/elixir/names.scm"),
    test_file_suffixes: &["_test.exs"],
    test_file_names: &["test_helper.exs"],
    surface_files: &[],
    separator: ".",
    // Special forms and the macros that only declare (a definition, a directive, a module
    // attribute) parse as calls: none is a function of the repository's.
    noise: &[
        "def",
        "defp",
        "defmodule",
        "defmacro",
        "defmacrop",
        "defguard",
        "defguardp",
        "defstruct",
        "defexception",
        "defdelegate",
        "defprotocol",
        "defimpl",
        "defoverridable",
        "alias",
        "import",
        "require",
        "use",
        "if",
        "unless",
        "case",
        "cond",
        "with",
        "for",
        "receive",
        "try",
        "quote",
        "unquote",
        "unquote_splicing",
        "raise",
        "reraise",
        "throw",
        "super",
        "doc",
        "moduledoc",
        "typedoc",
        "spec",
        "type",
        "typep",
        "opaque",
        "impl",
        "behaviour",
        "callback",
        "derive",
        "enforce_keys",
        "describe",
        "test",
        "setup",
        "assert",
        "refute",
        "_",
    ],
    std_methods: &[],
    keywords: &[
        "after", "and", "catch", "cond", "do", "else", "end", "false", "fn", "in", "nil", "not", "or",
        "rescue", "true", "when",
    ],
    preamble: &["#", "@doc", "@spec", "@impl", "@typedoc", "@deprecated"],
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
    family: "elixir",
    checks: elixir_checks::checks,
    runners: &["exunit"],
};

/// The macro a definition's `call` node calls (`def`, `defmodule`), if it is one.
fn definer<'t>(def: Node, bytes: &'t [u8]) -> Option<&'t str> {
    (def.kind() == "call").then(|| def.child_by_field_name("target").map(|t| node_text(t, bytes)))?
}

/// How many parameters a `def`'s head declares (defaults counted): `def f` has none.
fn arity(def: Node) -> Option<usize> {
    let mut cursor = def.walk();
    let arguments = def.named_children(&mut cursor).find(|c| c.kind() == "arguments")?;
    let mut head = arguments.named_child(0)?;
    if head.kind() == "binary_operator" {
        head = head.child_by_field_name("left")?;
    }
    match head.kind() {
        "identifier" => Some(0),
        "call" => {
            let mut cursor = head.walk();
            let parameters = head.named_children(&mut cursor).find(|c| c.kind() == "arguments");
            Some(parameters.map_or(0, |p| p.named_child_count()))
        }
        _ => None,
    }
}

/// The first line with text of a string literal's contents (`@doc "…"`, a heredoc).
fn first_string_line<'t>(string: Node, bytes: &'t [u8]) -> Option<&'t str> {
    let mut cursor = string.walk();
    let content = string.named_children(&mut cursor).find(|c| c.kind() == "quoted_content")?;
    node_text(content, bytes).lines().map(str::trim).find(|l| !l.is_empty())
}

/// A module attribute's name and its node's value (`@doc "…"`: `doc` and the string).
fn attribute<'t>(node: Node<'t>, bytes: &'t [u8]) -> Option<(&'t str, Option<Node<'t>>)> {
    if node.kind() != "unary_operator" || !node_text(node, bytes).starts_with('@') {
        return None;
    }
    let call = node.child_by_field_name("operand")?;
    let name = match call.kind() {
        "call" => call.child_by_field_name("target")?,
        "identifier" => call,
        _ => return None,
    };
    let value = call.named_child(1).and_then(|args| args.named_child(0));
    Some((node_text(name, bytes), value))
}

impl Language for Elixir {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// A module path is one token (`Shop.Cart`): its name is the last part.
    fn name_in_token(&self, node: Node, bytes: &[u8]) -> Option<usize> {
        if node.kind() != "alias" {
            return None;
        }
        let text = node_text(node, bytes);
        let dot = text.rfind('.')? + 1;
        Some(dot + (text.len() - dot - text[dot..].trim_start().len()))
    }

    /// `defmodule Shop.Cart` is `Cart` inside `Shop`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        let mut cursor = def.walk();
        let arguments = def.named_children(&mut cursor).find(|c| c.kind() == "arguments")?;
        let path = arguments.named_child(0).filter(|n| n.kind() == "alias")?;
        let text: String = node_text(path, bytes).split_whitespace().collect();
        text.rsplit_once('.').map(|(container, _)| container.to_string())
    }

    /// A further clause of a function (or macro) of the same arity, written with the same
    /// macro (`def`, `defp`), is the same definition: `def f(x)` twice is one function,
    /// `def f(x)` and `def f(x, y)` are two.
    fn continues(&self, previous: Node, def: Node, bytes: &[u8]) -> bool {
        let definer_of = |n: Node| definer(n, bytes);
        definer_of(previous).is_some_and(|d| d != "defmodule" && d != "defprotocol")
            && definer_of(previous) == definer_of(def)
            && arity(previous).is_some()
            && arity(previous) == arity(def)
    }

    /// A `def`'s or `defmodule`'s signature ends where its `do` block or `do:` keyword starts.
    fn body_start(&self, def: Node) -> Option<usize> {
        if def.kind() != "call" {
            return None;
        }
        let mut cursor = def.walk();
        let children: Vec<Node> = def.named_children(&mut cursor).collect();
        if let Some(block) = children.iter().find(|c| c.kind() == "do_block") {
            return Some(block.start_byte());
        }
        let arguments = children.iter().find(|c| c.kind() == "arguments")?;
        let mut cursor = arguments.walk();
        let keywords = arguments.named_children(&mut cursor).find(|c| c.kind() == "keywords");
        keywords.map(|k| k.start_byte())
    }

    /// The comma before a `do:` body.
    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(',').trim_end()
    }

    /// Elixir writes no return type in a definition (a `@spec` says it apart).
    fn return_type<'s>(&self, _signature: &'s str) -> Option<&'s str> {
        None
    }

    /// `@moduledoc` in a module's body; `@doc` above a function (past its `@spec` and
    /// `@impl`); else the `#` lines right above the definition. `@doc false` hides it.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        if definer(def, bytes) == Some("defmodule") {
            let mut cursor = def.walk();
            let block = def.named_children(&mut cursor).find(|c| c.kind() == "do_block");
            if let Some(block) = block {
                let mut cursor = block.walk();
                for child in block.named_children(&mut cursor) {
                    if let Some(("moduledoc", value)) = attribute(child, bytes) {
                        return value
                            .filter(|v| v.kind() == "string")
                            .and_then(|v| first_string_line(v, bytes));
                    }
                }
            }
            return hash_comment_above(def.start_byte(), bytes);
        }
        let mut sibling = def.prev_named_sibling();
        while let Some(node) = sibling {
            match attribute(node, bytes) {
                Some(("doc", value)) => {
                    return value.filter(|v| v.kind() == "string").and_then(|v| first_string_line(v, bytes));
                }
                Some(("spec" | "impl" | "deprecated" | "since" | "dialyzer", _)) => {}
                _ if node.kind() == "comment" => {}
                _ => break,
            }
            sibling = node.prev_named_sibling();
        }
        hash_comment_above(def.start_byte(), bytes)
    }

    /// A module path (`Shop.Cart`, `__MODULE__`) or a variable's name; anything else is none.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        let ok = !text.is_empty()
            && text.split('.').all(|part| {
                part.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| text.to_string())
    }

    /// A name in a directive is looked up whole (`alias Shop.Pricing`'s `Shop.Pricing`).
    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// A module (`Pricing`, `Shop.Pricing`, `__MODULE__`, `__MODULE__.Item`) or a variable
    /// before a call; anything else is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
            match node.kind() {
                "alias" | "identifier" => {
                    out.extend(node_text(node, bytes).split_whitespace());
                    true
                }
                "dot" => {
                    let (Some(left), Some(right)) =
                        (node.child_by_field_name("left"), node.child_by_field_name("right"))
                    else {
                        return false;
                    };
                    if right.kind() != "alias" || !chain(left, bytes, out) {
                        return false;
                    }
                    out.push('.');
                    out.extend(node_text(right, bytes).split_whitespace());
                    true
                }
                _ => false,
            }
        }
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// Names that start with `_` (`_`, `_unused`, `__MODULE__`) bind nothing worth a name.
    fn pattern_binds(&self, identifier: &str) -> bool {
        !identifier.starts_with('_')
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "do_block" => ScopeKind::Class,
            "call" => ScopeKind::Function,
            _ => ScopeKind::Lambda,
        }
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        let signature = def.signature();
        ["defp ", "defmacrop ", "defguardp ", "@typep "].iter().any(|p| signature.starts_with(p))
            || def.name().starts_with('_')
    }

    /// `alias Shop.Pricing` binds `Pricing`, `alias Shop.Pricing, as: P` binds `P`,
    /// `alias Shop.{Cart, Pricing}` binds both; `import Shop.Pricing` is a glob import of the
    /// module; `require Logger` and `use GenServer` bind nothing.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(directive) = node.child_by_field_name("target").map(|t| node_text(t, bytes)) else { return };
        let mut cursor = node.walk();
        let Some(arguments) = node.named_children(&mut cursor).find(|c| c.kind() == "arguments") else {
            return;
        };
        let Some(first) = arguments.named_child(0) else { return };
        let path = |n: Node| -> Option<String> {
            let text = Elixir.qualifier_text(n, bytes);
            (text != "?").then_some(text)
        };
        let last = |module: &str| module.rsplit('.').next().unwrap_or(module).to_string();
        let bound = |module: String, bound: Option<String>, at: Node<'t>| RawImport {
            bound: Some(bound.unwrap_or_else(|| last(&module))),
            module,
            item: None,
            alias: false,
            glob: false,
            cfg: None,
            at,
        };
        match directive {
            "alias" => {
                // `alias Shop.{Cart, Pricing}`
                if first.kind() == "dot"
                    && let (Some(left), Some(right)) =
                        (first.child_by_field_name("left"), first.child_by_field_name("right"))
                    && right.kind() == "tuple"
                {
                    let Some(base) = path(left) else { return };
                    let mut cursor = right.walk();
                    for part in right.named_children(&mut cursor) {
                        if let Some(tail) = path(part) {
                            out.push(bound(format!("{base}.{tail}"), None, part));
                        }
                    }
                    return;
                }
                let Some(module) = path(first) else { return };
                let renamed =
                    arguments.named_child(1).filter(|k| k.kind() == "keywords").and_then(|keywords| {
                        let mut cursor = keywords.walk();
                        let pairs: Vec<Node> = keywords.named_children(&mut cursor).collect();
                        pairs.into_iter().find_map(|pair| {
                            let key = pair.child_by_field_name("key")?;
                            let value = pair.child_by_field_name("value")?;
                            (node_text(key, bytes).trim() == "as:" && value.kind() == "alias")
                                .then(|| node_text(value, bytes).to_string())
                        })
                    });
                out.push(RawImport { alias: renamed.is_some(), ..bound(module, renamed, first) });
            }
            "import" => {
                if let Some(module) = path(first) {
                    out.push(RawImport::glob(module, first));
                }
            }
            _ => {
                if let Some(module) = path(first) {
                    out.push(RawImport { bound: None, ..bound(module, None, first) });
                }
            }
        }
    }

    /// Modules, functions, macros, types and attributes are all named in their scope.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A module's functions are visible everywhere in it; a variable from its match on.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(ElixirModules::new(files))
    }
}

/// The first text line of the block of `#` lines that ends on the line right above `start`.
fn hash_comment_above(start: usize, bytes: &[u8]) -> Option<&str> {
    let start = start.min(bytes.len());
    let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
    let mut first: Option<&str> = None;
    let mut end = line_start;
    while end > 0 {
        let above_start = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        let Ok(line) = std::str::from_utf8(&bytes[above_start..end - 1]) else { break };
        let Some(comment) = line.trim().strip_prefix('#') else { break };
        if comment.starts_with('!') {
            break;
        }
        let comment = comment.trim();
        if !comment.is_empty() {
            first = Some(comment);
        }
        end = above_start;
    }
    first
}

/// Every module of the repository's Elixir files by its full name (`Shop.Cart`): Elixir's
/// modules are global, so a name resolves the same from every file.
struct ElixirModules {
    modules: HashMap<String, Vec<(u32, u32)>>,
}

fn is_module(kind: DefKind) -> bool {
    matches!(kind, DefKind::Module | DefKind::Interface)
}

fn module_found(file: u32, def: u32) -> Found {
    Found { target: Target::Def { file, def }, value: Some(Value::Module(file, def)) }
}

/// Whether `name` is written as a module is (`Cart`, `Shop.Cart`).
fn is_module_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

impl ElixirModules {
    fn new(files: &[Arc<FileEntry>]) -> ElixirModules {
        let mut modules: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != Lang::Elixir {
                continue;
            }
            for (d, def) in file.symbols.defs.iter().enumerate() {
                if is_module(def.kind) {
                    modules.entry(def.qualified().to_string()).or_default().push((i as u32, d as u32));
                }
            }
        }
        ElixirModules { modules }
    }

    /// The modules of a full name.
    fn named(&self, full: &str) -> Vec<Found> {
        self.modules
            .get(full)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&(f, d)| module_found(f, d))
            .collect()
    }

    /// The modules of `file` whose span holds `pos`, innermost first.
    fn modules_around(r: &dyn Binder, file: u32, pos: Pos) -> Vec<u32> {
        let symbols = r.symbols(file);
        let mut around: Vec<u32> = symbols
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| is_module(d.kind) && d.line <= pos.line && pos.line <= d.end_line)
            .map(|(i, _)| i as u32)
            .collect();
        around.reverse();
        around
    }

    /// A module as written at `pos` (`Pricing`, `Shop.Pricing`, `P.Rules`, `__MODULE__.Item`):
    /// its first part as an alias binds it, as `__MODULE__`, or as a module nested in one
    /// around (`defmodule Shop do defmodule Cart` makes `Cart` mean `Shop.Cart` inside
    /// `Shop`); else the whole path as a full name.
    fn module_at(&self, r: &dyn Binder, file: u32, pos: Option<Pos>, path: &str, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let (first, rest) = match path.split_once('.') {
            Some((first, rest)) => (first, Some(rest)),
            None => (path, None),
        };
        let extend = |found: Vec<Found>| -> Vec<Found> {
            let Some(rest) = rest else { return found };
            found
                .iter()
                .filter_map(|f| match f.value {
                    Some(Value::Module(mf, md)) if md != NONE => Some(r.def(mf, md).qualified().to_string()),
                    _ => None,
                })
                .flat_map(|base| self.named(&format!("{base}.{rest}")))
                .collect()
        };
        if first == "__MODULE__" {
            let Some(pos) = pos else { return Vec::new() };
            let around = Self::modules_around(r, file, pos);
            return extend(around.first().map(|&d| module_found(file, d)).into_iter().collect());
        }
        // An alias bound around `pos` (anywhere in the file when no position is known).
        let aliased: Vec<Found> = match pos {
            Some(pos) => r
                .lookup_lexical(file, pos, first, depth + 1)
                .into_iter()
                .filter(|f| matches!(f.value, Some(Value::Module(..))))
                .collect(),
            None => {
                let symbols = r.symbols(file);
                let mut found = Vec::new();
                for (i, import) in symbols.imports.iter().enumerate() {
                    if import.bound != NONE && symbols.text(import.bound) == first {
                        let entry = Entry::new(import.scope, import.bound, Bound::Import(i as u32));
                        found.extend(
                            r.entry_found(file, entry, depth + 1)
                                .into_iter()
                                .filter(|f| matches!(f.value, Some(Value::Module(..)))),
                        );
                        break;
                    }
                }
                found
            }
        };
        if !aliased.is_empty() {
            return extend(aliased);
        }
        let whole = self.named(path);
        if !whole.is_empty() {
            return whole;
        }
        // A module nested in one of this file's: its short name inside the module around it.
        let symbols = r.symbols(file);
        let nested: Vec<u32> = match pos {
            Some(pos) => Self::modules_around(r, file, pos),
            None => {
                (0..symbols.defs.len() as u32).filter(|&d| is_module(symbols.defs[d as usize].kind)).collect()
            }
        };
        for outer in nested {
            let found = self.named(&format!("{}.{path}", symbols.defs.at(outer as usize).qualified()));
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The functions named `name` that `import`s in scope at `pos` bring in.
    fn imported(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let inner = innermost_scope(&symbols.scopes, pos);
        let encloses = |scope: u32| {
            let mut at = inner;
            while at != NONE {
                if at == scope {
                    return true;
                }
                at = symbols.scopes[at as usize].parent;
            }
            false
        };
        for import in symbols.imports.iter().filter(|i| i.glob && encloses(i.scope)) {
            let at = Pos::new(import.line, import.column);
            for module in self.module_at(r, file, Some(at), symbols.text(import.module), depth + 1) {
                if let Some(value) = module.value {
                    let found = r.member(value, name, depth + 1);
                    if !found.is_empty() {
                        return found;
                    }
                }
            }
        }
        Vec::new()
    }
}

impl Tables for ElixirModules {
    fn module_named(&self, name: &str) -> Vec<u32> {
        let mut files: Vec<u32> =
            self.modules.get(name).map_or(&[][..], Vec::as_slice).iter().map(|&(f, _)| f).collect();
        files.dedup();
        files
    }

    /// `Shop.Cart` (a module by its full name) and `Shop.Cart.add` (a function of it).
    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        let mut out: Vec<Target> = self.named(query).iter().map(|f| f.target).collect();
        if out.is_empty()
            && let Some((module, name)) = query.rsplit_once('.')
        {
            for found in self.named(module) {
                if let Target::Def { file, def } = found.target {
                    out.extend(r.children_named(file, def, name).iter().map(|f| f.target));
                }
            }
        }
        out
    }

    /// The module an alias or a full name names; outside the repository when none.
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = &symbols.imports[import as usize];
        let module = symbols.text(i.module);
        let mut found = self.named(module);
        if found.is_empty() && (module.contains('.') || module == "__MODULE__") {
            // `alias Shop.Pricing; alias Pricing.Rules`, `alias __MODULE__.Item`.
            let (first, _) = module.split_once('.').unwrap_or((module, ""));
            if first != symbols.text(i.bound) || module.starts_with("__MODULE__") {
                found = self.module_at(r, file, Some(Pos::new(i.line, i.column)), module, depth + 1);
            }
        }
        if found.is_empty() { vec![import_found(file, import)] } else { found }
    }

    /// A qualified name's module (`Pricing` of `Pricing.apply_discount`), through the file's
    /// aliases, as a full name, or nested in one of the file's modules; a module the repository
    /// does not define is outside it. A variable or `__MODULE__` is evaluated where it stands.
    fn import_base(
        &self,
        r: &dyn Binder,
        file: u32,
        qualifier: &str,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Value>> {
        if !is_module_name(qualifier) {
            return None;
        }
        // A module named by its path (`Shop.Cart`, cut to `Cart` after `Shop`): the module
        // itself, which `member` gives for its own name (`Shop` need be no module).
        let found = if is_module_name(name) {
            self.module_at(r, file, None, &format!("{qualifier}.{name}"), 0)
        } else {
            self.module_at(r, file, None, qualifier, 0)
        };
        match found.iter().find_map(|f| f.value) {
            Some(value) => Some(Ok(value)),
            None if kind == RefKind::Import => {
                Some(Err(format!("{name} is imported from {qualifier}, which is outside the repository")))
            }
            None => Some(Err(format!("{qualifier} is outside the repository"))),
        }
    }

    /// A module name (`Cart`, `Shop.Cart`, `__MODULE__`) is a module; another name is bound
    /// around it (a variable, a function of the module, an alias), else a function an
    /// `import` in scope brings in.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        _kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        if is_module_name(name) || name == "__MODULE__" {
            return Some(Ok(self.module_at(r, file, Some(pos), name, 0)));
        }
        let lexical = r.lookup_lexical(file, pos, name, 1);
        if !lexical.is_empty() {
            return Some(Ok(lexical));
        }
        Some(Ok(self.imported(r, file, pos, name, 1)))
    }

    /// A chain's first name: a module as [`ElixirModules::module_at`] finds it, else what is
    /// bound around it.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if is_module_name(name) || name == "__MODULE__" {
            return self.module_at(r, file, Some(pos), name, depth + 1).iter().find_map(|f| f.value);
        }
        r.lookup_lexical(file, pos, name, depth + 1).iter().find_map(|f| f.value)
    }

    fn module_of_def(&self, _r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        Some(Value::Module(file, def))
    }

    /// A module's function (every clause, in every file that defines a module of that name),
    /// or a module nested in it by name (`Shop` then `Cart`); a module's own name, where none
    /// is nested so, is the module (what a path's `import_base` asks).
    fn member(&self, r: &dyn Binder, value: Value, name: &str, depth: u32, _public: bool) -> Vec<Found> {
        let Value::Module(file, def) = value else { return Vec::new() };
        if def == NONE || depth > MAX_DEPTH {
            return Vec::new();
        }
        let qualified = r.def(file, def).qualified().to_string();
        if is_module_name(name) {
            let nested = self.named(&format!("{qualified}.{name}"));
            let itself = qualified == name || qualified.ends_with(&format!(".{name}"));
            return if nested.is_empty() && itself { vec![module_found(file, def)] } else { nested };
        }
        let mut found = r.children_named(file, def, name);
        for &(f, d) in self.modules.get(&qualified).map_or(&[][..], Vec::as_slice) {
            if (f, d) != (file, def) {
                found.extend(r.children_named(f, d, name));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
