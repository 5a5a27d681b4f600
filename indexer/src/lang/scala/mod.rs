//! Scala: classes, case classes, traits (interfaces), objects, package objects, Scala 3 enums
//! (their cases constants), `def`s (methods inside a type or an object), `given`s, type aliases,
//! top-level `val`s and an object's. A companion `object Cart` beside `class Cart` is a second
//! definition of the name, whose members `Cart.empty` finds;
//! `new Cart(owner)` and a type `Cart` mean the class. An extension method
//! (`extension (c: Cart) def discounted`) is qualified by its receiver's type. Packages come from
//! `package` clauses (chained ones, `package shop` then `package pricing`, make `shop.pricing`
//! and see `shop`'s names); `import a.b.C`, `import a.b._`, `import a.b.given`,
//! `import a.b.{C, D => E}` and `import a.b.C as D` name a package's or an object's members.
//! An sbt build (`build.sbt`) is checked by `sbt test`, a Mill build (`build.sc`) by
//! `mill __.test`, both read from their JUnit reports.

use std::sync::Arc;

use tree_sitter::Node;

use super::declared_packages::Packages;
use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, doc_blocks_of_children, node_text,
    squash,
};
use crate::meaning::{Binder, Entry, Found, Lookup, Tables, Target, Value};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind};

pub(crate) struct Scala;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Scala,
    name: "scala",
    extensions: &["scala", "sc"],
    interpreters: &[],
    build_scripts: &["build.sbt", "build.sc", ".mill"],
    manifest: None,
    grammar: || tree_sitter_scala::LANGUAGE.into(),
    comments: Comments { line: &["//"], block: Some(("/*", "*/")), block_inner: None, not: &[] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_skipped_fields: &["type"],
        chain_names: &["identifier"],
        chain_members: &[("field_expression", "value", "field")],
        chain_calls: &[("call_expression", "function")],
        comments: &["block_comment", "comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/scala/tags.scm"),
    names: include_str!("../../../queries/scala/names.scm"),
    test_file_suffixes: &["Test.scala", "Tests.scala", "Spec.scala", "Suite.scala"],
    test_file_names: &[],
    surface_files: &["package.scala"],
    separator: ".",
    noise: &["_"],
    std_methods: &[
        "apply",
        "contains",
        "count",
        "equals",
        "exists",
        "filter",
        "find",
        "flatMap",
        "fold",
        "foldLeft",
        "forall",
        "foreach",
        "get",
        "getOrElse",
        "hashCode",
        "head",
        "isEmpty",
        "map",
        "mkString",
        "nonEmpty",
        "size",
        "sortBy",
        "sum",
        "toList",
        "toMap",
        "toSeq",
        "toString",
    ],
    keywords: &[
        "abstract",
        "case",
        "catch",
        "class",
        "def",
        "do",
        "else",
        "enum",
        "extends",
        "false",
        "final",
        "finally",
        "for",
        "given",
        "if",
        "implicit",
        "import",
        "lazy",
        "match",
        "new",
        "null",
        "object",
        "override",
        "package",
        "private",
        "protected",
        "return",
        "sealed",
        "super",
        "then",
        "this",
        "throw",
        "trait",
        "true",
        "try",
        "type",
        "using",
        "val",
        "var",
        "while",
        "with",
        "yield",
    ],
    preamble: &["@", "/**", "*", "//"],
    rules: Rules {
        // `cart.subtotal` calls a parameterless method, `Category.Food` names an enum case,
        // `Cart.TaxRate` an object's constant: a member access can mean any member.
        attribute_names_members: true,
        // `cart.discounted` calls an extension method, a top-level definition.
        method_call_names_function: true,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: true,
        // A type's members are visible in its methods and nested types.
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "scala",
    checks: scala_checks::checks,
    runners: &["junit"],
};

/// The definitions whose body makes a `def` a method.
const TYPES: &[&str] =
    &["class_definition", "object_definition", "trait_definition", "enum_definition", "package_object"];

impl Language for Scala {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    /// A `def` in a type's or an object's body is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        let in_body = up[0].is_some_and(|p| matches!(p.kind(), "template_body" | "enum_body"));
        let in_type = up[1].is_some_and(|p| TYPES.contains(&p.kind()));
        if kind == DefKind::Function && in_body && in_type { DefKind::Method } else { kind }
    }

    /// An extension method's receiver type: `extension (c: Cart) def discounted` is
    /// `Cart.discounted`.
    fn container_name(&self, def: Node, up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if def.kind() != "function_definition" {
            return None;
        }
        let extension = up.iter().take(2).flatten().find(|n| n.kind() == "extension_definition")?;
        let parameter = extension.child_by_field_name("parameters")?.named_child(0)?;
        let ty = parameter.child_by_field_name("type")?;
        self.type_hint(node_text(ty, bytes))
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().split_whitespace().take_while(|w| !w.contains('(')).any(|w| w.starts_with("private"))
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "toString" | "equals" | "hashCode" | "compare")
    }

    /// A definition's annotations stand on the lines above it.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        def.children(&mut cursor).find(|c| c.kind() != "annotation").unwrap_or(def)
    }

    /// A definition's last line, without the comments a braceless body ends with (they are the
    /// next definition's).
    fn end_line(&self, def: Node) -> u32 {
        let mut node = def;
        for _ in 0..8 {
            // The last child, a closing brace too: a comment before a `}` stays inside.
            let Some(last) = node.child(node.child_count().saturating_sub(1)) else {
                break;
            };
            if matches!(last.kind(), "block_comment" | "comment") {
                let mut before = last.prev_sibling();
                while let Some(b) = before.filter(|b| matches!(b.kind(), "block_comment" | "comment")) {
                    before = b.prev_sibling();
                }
                return before.map_or(def.end_position().row, |b| b.end_position().row) as u32 + 1;
            }
            node = last;
        }
        def.end_position().row as u32 + 1
    }

    /// A definition's body (`{ … }`, `= …`, a template), a `val`'s value.
    fn body_start(&self, def: Node) -> Option<usize> {
        let body = def.child_by_field_name("body").or_else(|| def.child_by_field_name("value"))?;
        // `= expr`: the signature stops before the `=`.
        let mut before = body.prev_sibling();
        while let Some(node) = before {
            if node.kind() == "=" {
                return Some(node.start_byte());
            }
            if node.is_named() {
                break;
            }
            before = node.prev_sibling();
        }
        Some(body.start_byte())
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end().trim_end_matches(['{', '=', ':']).trim_end()
    }

    /// The first line of the Scaladoc comment right above the definition.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            doc_blocks_of_children(Lang::Scala, holder, bytes, &mut cache.lines);
        }
        if let Some(line) = cache.lines.get(&def.id()) {
            return Some(line);
        }
        // Scala 3's braceless syntax: the grammar ends the definition before with the comment
        // (`def f =` and an indented body, then `/** … */`), so it is that definition's last
        // descendant.
        let mut comment = def.prev_named_sibling()?;
        for _ in 0..8 {
            if comment.kind() == "block_comment" {
                break;
            }
            comment = comment.named_child(comment.named_child_count().checked_sub(1)? as u32)?;
        }
        let text = node_text(comment, bytes).strip_prefix("/**")?;
        if comment.kind() != "block_comment" || comment.end_position().row + 1 < def.start_position().row {
            return None;
        }
        text.trim_end_matches("*/")
            .lines()
            .map(|l| l.trim().trim_start_matches('*').trim())
            .find(|l| !l.is_empty())
    }

    /// Type arguments dropped: `List[Item]` → `List`; a function type is no class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        if text.contains("=>") {
            return None;
        }
        let base = text.split('[').next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| base.to_string())
    }

    /// A name in an import or a package clause is qualified by the path before it; a type in a
    /// path (`munit.FunSuite`) by the names before it.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let mut parent = node.parent()?;
        if matches!(
            parent.kind(),
            "namespace_selectors" | "arrow_renamed_identifier" | "as_renamed_identifier"
        ) {
            while parent.kind() != "import_declaration" {
                parent = parent.parent()?;
            }
        }
        let text = match parent.kind() {
            "import_declaration" => {
                let group = import_groups(parent, bytes).into_iter().find(|g| {
                    g.first().is_some_and(|f| f.start_byte() <= node.start_byte())
                        && g.last().is_some_and(|l| l.end_byte() >= node.start_byte())
                })?;
                let path: Vec<&str> = group
                    .iter()
                    .take_while(|p| p.start_byte() < node.start_byte())
                    .map(|p| node_text(*p, bytes))
                    .collect();
                path.join(".")
            }
            "package_identifier" | "stable_type_identifier" | "stable_identifier" => {
                let before = std::str::from_utf8(&bytes[parent.start_byte()..node.start_byte()]).ok()?;
                squash(before).trim_end_matches('.').to_string()
            }
            _ => return None,
        };
        (!text.is_empty()).then_some(text)
    }

    /// `a.b()`, `a.b`, `this`, `super`, and `new Cart(…)` (read as the call `Cart()`): a chain
    /// the resolver follows; anything else is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut node = qualifier;
        while node.kind() == "parenthesized_expression" {
            match node.named_child(0) {
                Some(inner) => node = inner,
                None => return "?".to_string(),
            }
        }
        if node.kind() == "instance_expression" {
            let mut cursor = node.walk();
            let ty = node
                .named_children(&mut cursor)
                .find(|c| matches!(c.kind(), "type_identifier" | "generic_type" | "stable_type_identifier"));
            return match ty.and_then(|t| self.type_hint(node_text(t, bytes))) {
                Some(path) => format!("{path}()"),
                None => "?".to_string(),
            };
        }
        super::simple_chain(Lang::Scala, node, bytes)
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_definition" | "object_definition" | "trait_definition" | "enum_definition"
            | "package_object" => ScopeKind::Class,
            "function_definition" | "function_declaration" | "given_definition" | "extension_definition" => {
                ScopeKind::Function
            }
            "lambda_expression" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// The last `package` clause of a file names its package (the clauses before it joined:
    /// `package shop` then `package pricing` is `shop.pricing`), a glob import of its own package
    /// marked `alias`; an earlier clause is a glob import of its package. `import a.b.C` binds
    /// `C`, `import a.b.{C => D}` and `import a.b.C as D` bind `D` (`C => _` hides), `import
    /// a.b._` and `import a.b.given` are globs; `import a.B, c.D` imports both.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        if node.kind() == "package_clause" {
            let Some(name) = node.child_by_field_name("name") else { return };
            let mut path = squash(node_text(name, bytes));
            let mut before = node.prev_named_sibling();
            while let Some(clause) = before {
                if clause.kind() == "package_clause"
                    && let Some(outer) = clause.child_by_field_name("name")
                {
                    path = format!("{}.{path}", squash(node_text(outer, bytes)));
                }
                before = clause.prev_named_sibling();
            }
            let mut after = node.next_named_sibling();
            while after.is_some_and(|n| matches!(n.kind(), "comment" | "block_comment")) {
                after = after.and_then(|n| n.next_named_sibling());
            }
            let last = after.is_none_or(|n| n.kind() != "package_clause");
            out.push(RawImport {
                module: path,
                item: None,
                bound: None,
                alias: last,
                glob: true,
                cfg: None,
                at: name,
            });
            return;
        }
        let groups = import_groups(node, bytes);
        let next_starts: Vec<usize> =
            groups.iter().filter_map(|g| g.first()).map(|p| p.start_byte()).collect();
        let mut cursor = node.walk();
        let extras: Vec<Node<'t>> = node
            .named_children(&mut cursor)
            .filter(|c| {
                matches!(c.kind(), "namespace_wildcard" | "namespace_selectors" | "as_renamed_identifier")
            })
            .collect();
        for (g, group) in groups.iter().enumerate() {
            let Some(&last) = group.last() else { continue };
            let last: Node<'t> = last;
            let names: Vec<&str> = group.iter().map(|p| node_text(*p, bytes)).collect();
            // What follows the group's path, before the next group: a wildcard, selectors, a rename.
            let next = next_starts.get(g + 1).copied().unwrap_or(usize::MAX);
            let tail =
                extras.iter().copied().find(|e| e.start_byte() > last.start_byte() && e.start_byte() < next);
            let module = names.join(".");
            match tail.map(|t| (t, t.kind())) {
                Some((t, "namespace_wildcard")) => out.push(RawImport::glob(module, t)),
                Some((t, "namespace_selectors")) => {
                    let mut inner = t.walk();
                    for selector in t.named_children(&mut inner) {
                        match selector.kind() {
                            "namespace_wildcard" | "wildcard" => {
                                out.push(RawImport::glob(module.clone(), selector))
                            }
                            "identifier" => {
                                let item = node_text(selector, bytes).to_string();
                                out.push(single(module.clone(), item, None, selector));
                            }
                            "arrow_renamed_identifier" | "as_renamed_identifier" => {
                                let (Some(name), Some(alias)) = (
                                    selector.child_by_field_name("name"),
                                    selector.child_by_field_name("alias"),
                                ) else {
                                    continue;
                                };
                                if alias.kind() != "identifier" {
                                    continue;
                                }
                                let item = node_text(name, bytes).to_string();
                                out.push(single(module.clone(), item, Some(node_text(alias, bytes)), alias));
                            }
                            _ => {}
                        }
                    }
                }
                Some((t, "as_renamed_identifier")) => {
                    let (Some(name), Some(alias)) =
                        (t.child_by_field_name("name"), t.child_by_field_name("alias"))
                    else {
                        continue;
                    };
                    let item = node_text(name, bytes).to_string();
                    out.push(single(module, item, Some(node_text(alias, bytes)), alias));
                }
                _ => {
                    let item = node_text(last, bytes).to_string();
                    let module = names[..names.len() - 1].join(".");
                    out.push(single(module, item, None, last));
                }
            }
        }
    }

    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A type's members are visible everywhere in its body; a local after its definition.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    /// The type after the parameters: `def empty(owner: String): Cart` → `Cart`,
    /// `def subtotal: Double` → `Double`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let mut depth = 0i32;
        let mut start = None;
        for (i, c) in signature.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ':' if depth == 0 => start = Some(i + 1),
                _ => {}
            }
        }
        let ty = signature[start?..].trim();
        (!ty.is_empty()).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(Companions(Arc::new(super::declared_packages::Packages::new(
            files,
            Lang::Scala,
            ("this", "super"),
            ".",
        ))))
    }
}

/// The tables of the Java family's packages, but a call or a type naming a class and its
/// companion object (`new Cart(owner)`, `x: Cart`) means the class.
struct Companions(Arc<Packages>);

/// Whether a definition is an object (`object Cart`, `case object Empty`).
fn is_object(def: DefRef<'_>) -> bool {
    def.kind == DefKind::Class
        && def.signature().split_whitespace().take_while(|w| *w != def.name()).any(|w| w == "object")
}

impl Tables for Companions {
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let kept = Arc::clone(&self.0).updated(before, files, changed);
        kept.map(|_| self as Arc<dyn Tables>)
    }

    fn module_path(&self, file: u32) -> Option<String> {
        self.0.module_path(file)
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.0.module_named(name)
    }

    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        self.0.lookup_path(r, query)
    }

    fn import_base(
        &self,
        r: &dyn Binder,
        file: u32,
        qualifier: &str,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Value>> {
        self.0.import_base(r, file, qualifier, name, kind)
    }

    /// A call or a type that finds a class and objects of its name means the class.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        if !matches!(kind, RefKind::Call | RefKind::Type) {
            return self.0.bare_ref(r, file, pos, name, kind);
        }
        let found = match self.0.bare_ref(r, file, pos, name, kind) {
            Some(Ok(found)) => found,
            Some(Err(why)) => return Some(Err(why)),
            None => r.lookup_lexical(file, pos, name, 1),
        };
        let object = |f: &Found| matches!(f.target, Target::Def { file, def } if is_object(r.def(file, def)));
        let classes = found.iter().filter(|f| matches!(f.target, Target::Def { .. }) && !object(f)).count();
        if classes == 0 || classes == found.len() {
            return Some(Ok(found));
        }
        Some(Ok(found.into_iter().filter(|f| !object(f)).collect()))
    }

    fn glob_base(&self, r: &dyn Binder, file: u32, scope: u32, module: &str, depth: u32) -> Option<Value> {
        self.0.glob_base(r, file, scope, module, depth)
    }

    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        self.0.follow_import(r, file, import, depth)
    }

    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        self.0.eval_first(r, file, pos, name, depth)
    }

    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        self.0.receiver(r, file, pos, name)
    }

    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        public: bool,
    ) -> Vec<Found> {
        self.0.module_member(r, file, def, name, depth, public)
    }

    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        self.0.type_member(r, file, def, name, depth, skip_own)
    }
}

/// A single import of `item` from `module`, renamed to `alias` if one is given.
fn single<'t>(module: String, item: String, alias: Option<&str>, at: Node<'t>) -> RawImport<'t> {
    RawImport {
        module,
        bound: Some(alias.map_or(item.clone(), str::to_string)),
        item: Some(item),
        alias: alias.is_some(),
        glob: false,
        cfg: None,
        at,
    }
}

/// An import's paths (`import a.B, c.D` has two), each as its names in order.
fn import_groups<'t>(node: Node<'t>, bytes: &[u8]) -> Vec<Vec<Node<'t>>> {
    let mut groups: Vec<Vec<Node<'t>>> = Vec::new();
    let mut cursor = node.walk();
    let mut previous: Option<Node<'t>> = None;
    for (i, child) in node.children(&mut cursor).enumerate() {
        if !child.is_named() || node.field_name_for_child(i as u32) != Some("path") {
            continue;
        }
        let comma = previous.is_some_and(|p| bytes[p.end_byte()..child.start_byte()].contains(&b','));
        match groups.last_mut() {
            Some(group) if !comma => group.push(child),
            _ => groups.push(vec![child]),
        }
        previous = Some(child);
    }
    groups
}

mod scala_checks;

#[cfg(test)]
mod tests;
