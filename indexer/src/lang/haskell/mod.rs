//! Haskell: `.hs` files, tree-sitter-haskell, `queries/haskell/`. A file is a module: its
//! header (`module Shop.Cart (Cart(..), total) where`) names it, and its export list, when it
//! has one, is what other modules see. Top-level functions are their equations (several
//! equations of one name are one function, the type signature above them its signature line);
//! `data` types (with their constructors and record fields), newtypes, type synonyms and type
//! classes (their signatures are methods) are definitions, as are an instance's equations
//! (methods of the instance's type). Haddock comments (`-- |`, `{-| -}`) are docs. `where` and
//! `let` bindings are locals that their whole scope sees. `import Shop.Pricing` brings in its
//! exported names (`hiding` them all the same), `import Shop.Pricing (applyDiscount)` the names
//! listed, `import qualified Shop.Pricing as P` makes `P.applyDiscount` resolve; the module
//! `A.B.C` is the file declaring it, else `A/B/C.hs` under any folder.

mod haskell_checks;

use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Binder, Bound, Entry, Found, Lookup, MAX_DEPTH, Tables, Target, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind};

pub(crate) struct Haskell;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Haskell,
    name: "haskell",
    extensions: &["hs"],
    interpreters: &["runhaskell", "runghc"],
    build_scripts: &[".cabal", "Setup.hs", "stack.yaml"],
    manifest: None,
    grammar: || tree_sitter_haskell::LANGUAGE.into(),
    comments: Comments { line: &["--"], block: Some(("{-", "-}")), block_inner: None, not: &[] },
    nodes: Nodes {
        body: "match",
        pattern_identifiers: &["variable"],
        comments: &["comment", "haddock"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/haskell/tags.scm"),
    names: include_str!("../../../queries/haskell/names.scm"),
    test_file_suffixes: &["Spec.hs", "Test.hs", "Tests.hs"],
    test_file_names: &["Spec.hs"],
    surface_files: &[],
    separator: ".",
    // The Prelude's most used functions and constructors: no definition of the repository's.
    noise: &[
        "otherwise",
        "map",
        "filter",
        "foldr",
        "foldl",
        "sum",
        "product",
        "length",
        "null",
        "elem",
        "show",
        "read",
        "print",
        "putStrLn",
        "putStr",
        "pure",
        "return",
        "fmap",
        "mapM_",
        "mapM",
        "not",
        "fst",
        "snd",
        "id",
        "const",
        "max",
        "min",
        "fromIntegral",
        "div",
        "mod",
        "error",
        "undefined",
        "zip",
        "concat",
        "concatMap",
        "reverse",
        "head",
        "tail",
        "Just",
        "Nothing",
        "Left",
        "Right",
        "True",
        "False",
        "Int",
        "Integer",
        "Double",
        "Float",
        "String",
        "Bool",
        "Char",
        "Maybe",
        "Either",
        "IO",
        "Show",
        "Eq",
        "Ord",
        "Num",
    ],
    std_methods: &[],
    keywords: &[
        "case",
        "class",
        "data",
        "default",
        "deriving",
        "do",
        "else",
        "foreign",
        "if",
        "import",
        "in",
        "infix",
        "infixl",
        "infixr",
        "instance",
        "let",
        "module",
        "newtype",
        "of",
        "then",
        "type",
        "where",
        "qualified",
        "as",
        "hiding",
    ],
    preamble: &["--", "{-"],
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
    family: "haskell",
    checks: haskell_checks::checks,
    runners: &["hspec", "tasty"],
};

/// The type signature right above a top-level equation (`total :: Cart -> Int`): a signature
/// stands above the equations it types.
fn signature_above(def: Node) -> Option<Node> {
    if !matches!(def.kind(), "function" | "bind") || def.parent()?.kind() != "declarations" {
        return None;
    }
    def.prev_named_sibling().filter(|s| s.kind() == "signature")
}

impl Language for Haskell {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// A module path is one node (`Shop.Cart`): its name is the last part.
    fn name_in_token(&self, node: Node, bytes: &[u8]) -> Option<usize> {
        if node.kind() != "module" {
            return None;
        }
        Some(node_text(node, bytes).rfind('.')? + 1)
    }

    /// `module Shop.Cart` is `Cart` in `Shop`; an instance's equations are methods of the
    /// instance's type (`instance Priced Cart`'s `priceOf` is `Cart.priceOf`).
    fn container_name(&self, def: Node, up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if def.kind() == "header" {
            let module = def.child_by_field_name("module")?;
            let text: String = node_text(module, bytes).split_whitespace().collect();
            return text.rsplit_once('.').map(|(container, _)| container.to_string());
        }
        let instance = up.into_iter().flatten().find(|n| n.kind() == "instance")?;
        let patterns = instance.child_by_field_name("patterns")?;
        let ty = patterns.named_child(0)?;
        let text = node_text(ty, bytes);
        let name = text.trim_start_matches('(').split_whitespace().next()?;
        name.starts_with(char::is_uppercase).then(|| name.to_string())
    }

    /// The type signature above a function belongs to it.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        signature_above(def).unwrap_or(def)
    }

    /// A further equation of the function (or class method) right before it, in the same
    /// declarations, is the same definition, as the equations after a method's signature in a
    /// class are (two instances' equations of one method are two).
    fn continues(&self, previous: Node, def: Node, _bytes: &[u8]) -> bool {
        matches!(previous.kind(), "function" | "bind" | "signature")
            && matches!(def.kind(), "function" | "bind")
            && previous.parent().map(|p| p.id()) == def.parent().map(|p| p.id())
    }

    /// An equation's signature is its type signature when one is right above it, else its
    /// head (before `=` or its guards); a type's is its head (before `=`, `where`).
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(signature) = signature_above(def) {
            return Some(signature.end_byte());
        }
        match def.kind() {
            "function" | "bind" => def.child_by_field_name("match").map(|m| m.start_byte()),
            "data_type" => def
                .child_by_field_name("constructors")
                .map(|c| c.start_byte())
                .or_else(|| def.child_by_field_name("deriving").map(|d| d.start_byte())),
            "newtype" => def.child_by_field_name("constructor").map(|c| c.start_byte()),
            "class" | "instance" => def
                .child_by_field_name("patterns")
                .or_else(|| def.child_by_field_name("name"))
                .map(|p| p.end_byte()),
            "header" => def.child_by_field_name("exports").map(|e| e.start_byte()),
            _ => None,
        }
    }

    /// The `=` or `where` that ends a head.
    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches('=').trim_end().trim_end_matches("where").trim_end()
    }

    /// The result of a function's type: after its last top-level `->`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let (_, ty) = signature.split_once("::")?;
        Some(ty.rsplit_once("->")?.1.trim())
    }

    /// The Haddock comment above a definition (above its type signature for a function):
    /// `-- |` lines, or a `{-| … -}` block; its first line of text.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let start = signature_above(def).unwrap_or(def).start_byte();
        // A constructor or field after others on its line has no comment of its own.
        let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
        if !bytes[line_start..start].iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        haddock_above(start, bytes)
    }

    /// A type name (`Cart`, `Shop.Cart`); anything else is none.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        let ok = text.starts_with(char::is_uppercase)
            && text.split('.').all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
            });
        ok.then(|| text.to_string())
    }

    /// A name in an import list is qualified by the import's module.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let import = node.parent()?.parent()?.parent().filter(|n| n.kind() == "import")?;
        let module = import.child_by_field_name("module")?;
        Some(node_text(module, bytes).split_whitespace().collect())
    }

    /// A module (`P.`, `Shop.Pricing.`) as written, without its trailing dot.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let text: String = node_text(qualifier, bytes).split_whitespace().collect();
        let text = text.trim_end_matches('.');
        if text.is_empty() { "?".to_string() } else { text.to_string() }
    }

    /// `_` and names starting with it bind nothing worth a name.
    fn pattern_binds(&self, identifier: &str) -> bool {
        !identifier.starts_with('_')
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function" | "bind" => ScopeKind::Function,
            "lambda" | "alternative" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// A name the export list leaves out, where the module has one.
    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.name().starts_with('_')
    }

    /// `import M` (or `hiding (…)`): a glob import; `import M (a, B(..))`: each name listed;
    /// `import qualified M as P`: `P` bound to the module (`as P` without `qualified` also
    /// brings in its names); `import qualified M`: recorded, bound to nothing (`M.x` finds it).
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(module_node) = node.child_by_field_name("module") else { return };
        let module: String = node_text(module_node, bytes).split_whitespace().collect();
        let mut qualified = false;
        let mut hiding = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "qualified" => qualified = true,
                "hiding" => hiding = true,
                _ => {}
            }
        }
        let alias = node.child_by_field_name("alias");
        let names = node.child_by_field_name("names");
        let plain = |bound: Option<String>, at: Node<'t>| RawImport {
            module: module.clone(),
            item: None,
            alias: bound.is_some(),
            bound,
            glob: false,
            cfg: None,
            at,
        };
        match alias {
            Some(alias) => out.push(plain(Some(node_text(alias, bytes).trim().to_string()), alias)),
            None if qualified => out.push(plain(None, module_node)),
            None => {}
        }
        if qualified {
            return;
        }
        match names.filter(|_| !hiding) {
            Some(list) => {
                let mut cursor = list.walk();
                for name in list.named_children(&mut cursor).filter(|n| n.kind() == "import_name") {
                    let Some(id) =
                        name.child_by_field_name("variable").or_else(|| name.child_by_field_name("type"))
                    else {
                        continue;
                    };
                    let text = node_text(id, bytes).to_string();
                    out.push(RawImport {
                        module: module.clone(),
                        item: Some(text.clone()),
                        bound: Some(text),
                        alias: false,
                        glob: false,
                        cfg: None,
                        at: id,
                    });
                }
            }
            None => out.push(RawImport::glob(module.clone(), module_node)),
        }
    }

    /// The names an export list gives: functions, types and classes (`Cart(..)` exports the
    /// type `Cart`; its constructors and fields with it, which resolution allows by their
    /// parent).
    fn exported_names(&self, node: Node, bytes: &[u8], out: &mut Vec<String>) {
        let mut cursor = node.walk();
        for export in node.named_children(&mut cursor).filter(|n| n.kind() == "export") {
            let id = export.child_by_field_name("variable").or_else(|| export.child_by_field_name("type"));
            if let Some(id) = id {
                out.push(node_text(id, bytes).to_string());
            }
            // `module M` re-exports: everything stays visible.
            if export.child_by_field_name("module").is_some() {
                out.push("*".to_string());
            }
        }
    }

    /// Every definition but the module header is bound by its name where it stands:
    /// constructors, record fields and class methods are module-level names too.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Module
    }

    /// A `do` block's `x <- …` shadows the ones before it; `where` and `let` bindings are seen
    /// all through their scope (they may come after the use); else the module's names.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        let locals: Vec<Entry> =
            entries.iter().filter(|e| matches!(e.bound(), Bound::Binding(_))).copied().collect();
        if let Some(before) = locals.iter().rev().find(|e| e.pos(symbols) <= pos) {
            return vec![*before];
        }
        if let Some(first) = locals.first() {
            return vec![*first];
        }
        entries.to_vec()
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(HaskellModules::new(files))
    }
}

/// The comment lines (`-- |` and the `--` lines after it) or `{-| … -}` block that end on the
/// line right above `start`: the first line of their text.
fn haddock_above(start: usize, bytes: &[u8]) -> Option<&str> {
    let start = start.min(bytes.len());
    let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
    let mut end = line_start;
    let mut doc: Option<&str> = None;
    let mut in_block = false;
    while end > 0 {
        let above_start = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        let Ok(line) = std::str::from_utf8(&bytes[above_start..end - 1]) else { break };
        let line = line.trim();
        end = above_start;
        if in_block || line.ends_with("-}") {
            in_block = true;
            if let Some(text) = line.strip_prefix("{-") {
                let text = text.strip_prefix('|')?;
                let text = text.trim_end_matches("-}").trim();
                return if text.is_empty() { doc } else { Some(text) };
            }
            let text = line.trim_end_matches("-}").trim();
            if !text.is_empty() {
                doc = Some(text);
            }
            continue;
        }
        let Some(comment) = line.strip_prefix("--") else { break };
        if let Some(text) = comment.trim_start().strip_prefix('|') {
            let text = text.trim();
            return if text.is_empty() { doc } else { Some(text) };
        }
        let text = comment.trim();
        if !text.is_empty() {
            doc = Some(text);
        }
    }
    None
}

/// Whether a name is a module's (`Shop.Pricing`, `P`): capitalised parts.
fn is_module_name(name: &str) -> bool {
    name.split('.').all(|part| part.starts_with(char::is_uppercase))
}

/// Haskell's modules: each file by the module its header names, else by its path.
struct HaskellModules {
    /// Declared module name (`Shop.Cart`) → its files.
    declared: HashMap<String, Vec<u32>>,
    /// Each Haskell file's path without `.hs`, for `A/B/C` lookups.
    stems: Vec<(String, u32)>,
    /// Each file's declared module name.
    names: HashMap<u32, String>,
}

impl HaskellModules {
    fn new(files: &[Arc<FileEntry>]) -> HaskellModules {
        let mut declared: HashMap<String, Vec<u32>> = HashMap::new();
        let mut stems = Vec::new();
        let mut names = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != Lang::Haskell {
                continue;
            }
            let i = i as u32;
            if let Some(stem) = file.path.strip_suffix(".hs") {
                stems.push((stem.to_string(), i));
            }
            let symbols = &file.symbols;
            if let Some(header) = symbols.defs.iter().find(|d| d.kind == DefKind::Module) {
                let name = header.qualified().to_string();
                declared.entry(name.clone()).or_default().push(i);
                names.insert(i, name);
            }
        }
        HaskellModules { declared, stems, names }
    }

    /// The file of module `A.B.C`: the one declaring it, else `A/B/C.hs` under any folder
    /// (the shortest path).
    fn file_of(&self, module: &str) -> Option<u32> {
        if let Some(&f) = self.declared.get(module).and_then(|f| f.first()) {
            return Some(f);
        }
        let tail = module.replace('.', "/");
        self.stems
            .iter()
            .filter(|(stem, _)| stem == &tail || stem.ends_with(&format!("/{tail}")))
            .min_by_key(|(stem, _)| stem.len())
            .map(|&(_, f)| f)
    }
}

impl Tables for HaskellModules {
    fn module_path(&self, file: u32) -> Option<String> {
        self.names.get(&file).cloned()
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.file_of(name).into_iter().collect()
    }

    fn module_file(&self, _r: &dyn Binder, _file: u32, module: &str) -> Option<u32> {
        self.file_of(module)
    }

    /// `P.applyDiscount` and `Shop.Pricing.applyDiscount`: the module an import of the file
    /// names so (by its alias or its own name), else a module of the repository by that name.
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
        let symbols = r.symbols(file);
        let mut imported = false;
        for import in symbols.imports.iter() {
            let module = symbols.text(import.module);
            let alias = if import.bound == NONE || !import.alias { "" } else { symbols.text(import.bound) };
            if module == qualifier || alias == qualifier {
                imported = true;
                if let Some(f) = self.file_of(module) {
                    return Some(Ok(Value::Module(f, NONE)));
                }
            }
        }
        if !imported && let Some(f) = self.file_of(qualifier) {
            return Some(Ok(Value::Module(f, NONE)));
        }
        if kind == RefKind::Import {
            return Some(Err(format!(
                "{name} is imported from {qualifier}, which is outside the repository"
            )));
        }
        Some(Err(format!("{qualifier} is outside the repository")))
    }

    /// A module's names as an importer sees them: its top-level definitions (constructors,
    /// fields and class methods among them) that its export list names, or whose type or
    /// class it names; all of them without an export list.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        _def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let symbols = r.symbols(file);
        let is_type = |k: DefKind| matches!(k, DefKind::Class | DefKind::Type | DefKind::Interface);
        let mut found = Vec::new();
        for (d, def) in symbols.defs.iter().enumerate() {
            if def.name() != name || def.kind == DefKind::Module {
                continue;
            }
            // The owners a name is exported with (`Cart(..)`): its type, its constructor's type.
            let mut owners = Vec::new();
            let mut up = def.parent();
            while let Some(p) = up {
                let parent = symbols.defs.at(p as usize);
                owners.push(parent);
                up = parent.parent();
            }
            let module_level = match owners.as_slice() {
                // An instance's method (`Cart.priceOf`) is reached through its class's.
                [] => def.qualified() == def.name(),
                [ty] => is_type(ty.kind),
                [_, ty] => is_type(ty.kind),
                _ => false,
            };
            let exported = match &symbols.exports {
                None => true,
                Some(exports) => exports
                    .iter()
                    .any(|e| e == "*" || e == name || owners.iter().any(|o| o.name() == e.as_str())),
            };
            if module_level && exported {
                found.push(r.def_found(file, d as u32));
            }
        }
        found
    }

    /// Types and constructors have names of their own: a name in a type (`Cart` in a signature)
    /// means a type or class, a constructor in an expression or pattern its constructor.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        let found = r.lookup_lexical(file, pos, name, 0);
        if found.len() < 2 || !name.starts_with(char::is_uppercase) {
            return Some(Ok(found));
        }
        let is_type = |f: &Found| match f.target {
            Target::Def { file, def } => {
                matches!(r.def(file, def).kind, DefKind::Class | DefKind::Type | DefKind::Interface)
            }
            _ => false,
        };
        let wanted: Vec<Found> =
            found.iter().filter(|f| is_type(f) == (kind == RefKind::Type)).copied().collect();
        Some(Ok(if wanted.is_empty() { found } else { wanted }))
    }

    fn module_of_def(&self, _r: &dyn Binder, file: u32, _def: u32) -> Option<Value> {
        Some(Value::Module(file, NONE))
    }
}

#[cfg(test)]
mod tests;
