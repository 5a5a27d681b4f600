//! Zig: `.zig` files, tree-sitter-zig, `queries/zig/`. A file is a struct: its top-level
//! declarations are its members, the `pub` ones seen from other files, and fields at its top
//! make it a type (`Till.zig`). `const Cart = struct { … }` (or `enum`, `union`, `opaque`,
//! `error{…}`) is a type whose `fn`s are methods, whose declarations are constants and whose
//! fields are reached through a value (`self.items`); a function returning a `type` is a generic
//! type; `test "name" { … }` is a test function; `///` comments are docs (a file's `//!` ones
//! are no definition's). `const pricing = @import("pricing.zig")` binds `pricing` to that file
//! (a path relative to the importing one), `const Cart = @import("cart.zig").Cart` one of its
//! members, `usingnamespace @import(…)` all of them; any other import (`std`, a package) is
//! outside the repository. A constant naming another thing (`const Cart = shop.Cart`, `const
//! Self = @This()`) holds its value. A receiver's type is evident from an annotation (`self:
//! *Cart`, `var c: Cart`, a field's), a call's return type (`Cart.init()`) or a `Cart{ … }`.

mod zig_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Binder, Bound, Entry, Found, Tables, Target, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(crate) struct Zig;

/// The grammar's container declarations: the value of a type's `const`.
const CONTAINERS: &[&str] =
    &["struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration"];

static SPEC: LangSpec = LangSpec {
    lang: Lang::Zig,
    name: "zig",
    extensions: &["zig"],
    interpreters: &[],
    build_scripts: &["build.zig"],
    manifest: None,
    grammar: || tree_sitter_zig::LANGUAGE.into(),
    comments: Comments { line: &["//"], block: None, block_inner: None, not: &[] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        chain_names: &["identifier"],
        chain_members: &[("field_expression", "object", "member")],
        chain_calls: &[("call_expression", "function")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/zig/tags.scm"),
    names: include_str!("../../../queries/zig/names.scm"),
    test_file_suffixes: &["_test.zig", "_tests.zig"],
    test_file_names: &["tests.zig", "test.zig"],
    // A package's root file (`src/root.zig`): what it imports is what the package offers.
    surface_files: &["root.zig"],
    separator: ".",
    // A method's receiver by custom, and the name that discards a value.
    noise: &["self", "_"],
    // Methods of the standard library's everyday types (`ArrayList`, `HashMap`, allocators,
    // writers, iterators).
    std_methods: &[
        "append",
        "appendSlice",
        "alloc",
        "contains",
        "count",
        "create",
        "deinit",
        "destroy",
        "dupe",
        "fetchPut",
        "free",
        "get",
        "getOrPut",
        "getPtr",
        "iterator",
        "next",
        "orderedRemove",
        "pop",
        "print",
        "put",
        "remove",
        "swapRemove",
        "toOwnedSlice",
        "writeAll",
        "writer",
    ],
    keywords: &[
        "addrspace",
        "align",
        "allowzero",
        "and",
        "anyframe",
        "anytype",
        "asm",
        "break",
        "callconv",
        "catch",
        "comptime",
        "const",
        "continue",
        "defer",
        "else",
        "enum",
        "errdefer",
        "error",
        "export",
        "extern",
        "false",
        "fn",
        "for",
        "if",
        "inline",
        "linksection",
        "noalias",
        "noinline",
        "nosuspend",
        "null",
        "opaque",
        "or",
        "orelse",
        "packed",
        "pub",
        "resume",
        "return",
        "struct",
        "suspend",
        "switch",
        "test",
        "threadlocal",
        "true",
        "try",
        "undefined",
        "union",
        "unreachable",
        "usingnamespace",
        "var",
        "volatile",
        "while",
    ],
    preamble: &["///"],
    rules: Rules {
        // `pricing.Discount`, `Cart.MAX`: a member of a file or a type.
        attribute_names_members: true,
        // `pricing.apply_discount(…)`: a file's function called through its import.
        method_call_names_function: true,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: false,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "zig",
    checks: zig_checks::checks,
    runners: &["zig-test"],
};

impl Language for Zig {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    /// A `fn` directly in a container's body is a method; at the top of a file (a struct too,
    /// but one reached by its import) or in a block, a function.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        if kind != DefKind::Function {
            return kind;
        }
        if up[0].is_some_and(|p| CONTAINERS.contains(&p.kind())) {
            DefKind::Method
        } else {
            DefKind::Function
        }
    }

    /// Not `pub` (nor `export`): private to its file. An enum's values are as public as it.
    fn is_private(&self, def: DefRef<'_>, parent: Option<DefRef<'_>>) -> bool {
        match parent {
            Some(enum_)
                if enum_.kind == DefKind::Enum && def.kind == DefKind::Constant && !is_declaration(def) =>
            {
                !is_pub(enum_)
            }
            _ => !is_pub(def),
        }
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "format" | "deinit" | "eql" | "hash")
    }

    fn pattern_binds(&self, identifier: &str) -> bool {
        identifier != "_"
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_declaration" | "test_declaration" => ScopeKind::Function,
            kind if CONTAINERS.contains(&kind) => ScopeKind::Class,
            _ => ScopeKind::Block,
        }
    }

    /// A function's signature ends at its body, a type's at its container's `{`, a test's at
    /// its block; a constant's is its whole declaration.
    fn body_start(&self, def: Node) -> Option<usize> {
        match def.kind() {
            "function_declaration" => def.child_by_field_name("body").map(|b| b.start_byte()),
            "test_declaration" => named_child_of_kind(def, "block").map(|b| b.start_byte()),
            "variable_declaration" => {
                let mut cursor = def.walk();
                let value = def
                    .named_children(&mut cursor)
                    .find(|c| CONTAINERS.contains(&c.kind()) || c.kind() == "error_set_declaration")?;
                let mut inner = value.walk();
                let open = value.children(&mut inner).find(|c| c.kind() == "{");
                open.map(|o| o.start_byte())
            }
            _ => None,
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(';').trim_end()
    }

    /// What follows the parameters: `fn init() Cart` → `Cart`, `fn load() !Cart` → `!Cart`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let open =
            signature.find("fn ").map(|i| i + 3).and_then(|i| signature[i..].find('(').map(|j| i + j))?;
        let mut depth = 0usize;
        for (i, c) in signature[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        let rest = signature[open + i + 1..].trim();
                        return (!rest.is_empty()).then_some(rest);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The first line of the `///` comments right above the definition.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            super::line_comment_docs(Lang::Zig, holder, bytes, "///", &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// The type an annotation names, pointers, optionals, `const` and an error set dropped:
    /// `*const Cart` → `Cart`, `!shop.Cart` → `shop.Cart`, a generic type's arguments too
    /// (`List(u32)` → `List()`, a call); a slice's or an array's element type (`[]const Item` →
    /// `Item`: what a `for` over it binds; no slice has methods of its own); a builtin's result
    /// is no type.
    fn type_hint(&self, text: &str) -> Option<String> {
        let mut text = text.trim();
        if let Some((_, ok)) = text.rsplit_once('!') {
            text = ok.trim();
        }
        loop {
            let before = text;
            text = text.trim_start_matches(['*', '?']).trim_start();
            text = text.strip_prefix("const ").unwrap_or(text).trim_start();
            // A slice's or an array's element: `[]const Item`, `[4]Item`, `[*:0]u8`.
            if text.starts_with('[') {
                text = text.split_once(']').map_or("", |(_, element)| element.trim_start());
            }
            if text == before {
                break;
            }
        }
        path_of(text)
    }

    /// A member of an `@import(…)` chain is qualified by the imported file; the name the
    /// declaration binds is not.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let mut at = node.parent()?;
        if at.kind() != "field_expression" {
            return None;
        }
        while at.kind() == "field_expression" {
            at = at.child_by_field_name("object")?;
        }
        imported_path(at, bytes)
    }

    /// `a.b`, `Cart.init()`; the grammar reads `*cart.Cart` as `(*cart).Cart`, so a pointer's or
    /// an optional's type is its qualifier's.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut node = qualifier;
        while matches!(node.kind(), "pointer_type" | "nullable_type") {
            let mut cursor = node.walk();
            let Some(inner) = node.named_children(&mut cursor).last() else { break };
            node = inner;
        }
        super::simple_chain(Lang::Zig, node, bytes)
    }

    /// `const x = @import("m")` binds `x` to the module, `const C = @import("m").C` binds
    /// `C` to its member (`.a.C` to a member's member); `usingnamespace @import("m")` brings in
    /// every public name of `m`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        if node.kind() == "using_namespace_declaration" {
            if let Some(call) = children.iter().find(|c| c.kind() == "builtin_function")
                && let Some(module) = imported_path(*call, bytes)
            {
                out.push(RawImport::glob(module, *call));
            }
            return;
        }
        let Some(at) = children.iter().position(|c| c.kind() == "identifier") else { return };
        let name = children[at];
        let Some(mut value) = children.get(at + 1).copied() else { return };
        let mut members = Vec::new();
        while value.kind() == "field_expression" {
            let Some(member) = value.child_by_field_name("member") else { return };
            members.push(node_text(member, bytes));
            let Some(object) = value.child_by_field_name("object") else { return };
            value = object;
        }
        let Some(module) = imported_path(value, bytes) else { return };
        members.reverse();
        let bound = node_text(name, bytes);
        let item = (!members.is_empty()).then(|| members.join("."));
        let alias = members.last().is_none_or(|last| *last != bound);
        out.push(RawImport {
            module,
            item,
            bound: Some(bound.to_string()),
            alias,
            glob: false,
            cfg: None,
            at: name,
        });
    }

    /// Container declarations are in scope everywhere in the container, nested functions
    /// included.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A container's declarations everywhere in it (its fields are no bare names: only
    /// `self.items` reaches them), a local from its declaration on; where a local `const x =
    /// @import(…)` both binds and imports, the import is what it means.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        // A file's or a container's bindings are its fields: its declarations are definitions.
        let in_type = entries.first().is_some_and(|e| {
            symbols
                .scopes
                .get(e.scope as usize)
                .is_some_and(|s| matches!(s.kind, ScopeKind::Class | ScopeKind::File))
        });
        if in_type {
            return entries.iter().filter(|e| !matches!(e.bound(), Bound::Binding(_))).copied().collect();
        }
        let chosen = super::last_local_else_items(entries, symbols, pos);
        if let [one] = chosen.as_slice()
            && matches!(one.bound(), Bound::Binding(_))
            && let Some(import) = entries.iter().find(|e| {
                matches!(e.bound(), Bound::Import(_)) && e.pos(symbols).line == one.pos(symbols).line
            })
        {
            return vec![*import];
        }
        chosen
    }

    fn tables(&self, _files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(ZigFiles)
    }
}

/// A path of names and calls, each call's arguments dropped (`List(u32).init` →
/// `List().init`); `None` for any other expression.
fn path_of(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                if depth == 0 {
                    out.push('(');
                }
                depth += 1;
            }
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    out.push(')');
                }
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let ok = depth == 0
        && out.split('.').all(|part| {
            let name = part.strip_suffix("()").unwrap_or(part);
            name.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
    ok.then_some(out)
}

/// Whether a definition is declared `pub` (or `export`ed).
fn is_pub(def: DefRef<'_>) -> bool {
    def.signature().starts_with("pub ") || def.signature().starts_with("export ")
}

/// Whether a definition is a declaration (`const`, `var`, `fn`) rather than an enum's value.
fn is_declaration(def: DefRef<'_>) -> bool {
    def.signature().split_whitespace().any(|w| matches!(w, "const" | "var" | "fn"))
}

fn named_child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}

/// The path of `@import("path")`, when `node` is that call.
fn imported_path(node: Node, bytes: &[u8]) -> Option<String> {
    if node.kind() != "builtin_function" {
        return None;
    }
    let builtin = named_child_of_kind(node, "builtin_identifier")?;
    if node_text(builtin, bytes) != "@import" {
        return None;
    }
    let arguments = named_child_of_kind(node, "arguments")?;
    let string = named_child_of_kind(arguments, "string")?;
    let content = named_child_of_kind(string, "string_content")?;
    Some(node_text(content, bytes).to_string())
}

/// Zig's name resolution: a module is a file, named by a path relative to the importing file
/// (`@import("pricing.zig")`); a package name (`std`, `builtin`, a build dependency) is outside
/// the repository. A file's members are its `pub` top-level declarations, then what its
/// `usingnamespace`s bring in; `@This()` is the container it stands in.
struct ZigFiles;

impl ZigFiles {
    /// The container a `const Self = @This()` stands for: the type around it, or its file.
    fn this(r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        let d = r.def(file, def);
        if d.kind != DefKind::Constant || !d.signature().ends_with("@This()") {
            return None;
        }
        // A file's own `@This()` sees its private names too.
        Some(match d.parent() {
            Some(p) => Value::Class(file, p),
            None => Value::Module(file, def),
        })
    }

    /// The value a type path (an annotation, a return type) names from `pos`: a type's
    /// instance, or a file that is a struct.
    fn type_value(&self, r: &dyn Binder, file: u32, pos: Pos, path: &str, depth: u32) -> Option<Value> {
        match self.eval_path(r, file, pos, path, depth)? {
            Value::Class(f, d) => Some(Value::Instance(f, d)),
            // A result leaves the file: it sees the file's public names only.
            Value::Module(f, _) => Some(Value::Module(f, NONE)),
            found @ (Value::Instance(..) | Value::External(_)) => Some(found),
            _ => None,
        }
    }

    /// What a path of names and calls (`shop.Cart`, `List().init()`) evaluates to from `pos`.
    fn eval_path(&self, r: &dyn Binder, file: u32, pos: Pos, path: &str, depth: u32) -> Option<Value> {
        if depth > crate::meaning::MAX_DEPTH {
            return None;
        }
        let _step = crate::meaning::step()?;
        let mut value = None;
        for part in path.split('.') {
            let (name, call) = match part.strip_suffix("()") {
                Some(name) => (name, true),
                None => (part, false),
            };
            let mut found = match value {
                None => self.eval_first(r, file, pos, name, depth + 1)?,
                Some(v) => r.member(v, name, depth + 1).iter().find_map(|f| f.value)?,
            };
            if call {
                found = self.call_value(r, found, depth + 1)?;
            }
            value = Some(found);
        }
        value
    }

    /// What calling a value gives: a function's result by its return type.
    fn call_value(&self, r: &dyn Binder, value: Value, depth: u32) -> Option<Value> {
        match value {
            Value::Function(f, d) => {
                let def = r.def(f, d);
                let ret = Zig.return_type(def.signature())?;
                self.call_result(r, f, d, ret, depth)?
            }
            Value::Class(..) | Value::Instance(..) => Some(value),
            _ => None,
        }
    }

    /// The value of a constant that names another thing: `const Self = @This()`, `const Cart =
    /// shop.Cart`, `const testing = std.testing` (outside the repository when `std` is), `const
    /// IntList = List(u32)`, looked up where the constant is declared.
    fn alias_value(&self, r: &dyn Binder, file: u32, def: u32, depth: u32) -> Option<Value> {
        if depth > crate::meaning::MAX_DEPTH {
            return None;
        }
        let _step = crate::meaning::step()?;
        if let Some(this) = ZigFiles::this(r, file, def) {
            return Some(this);
        }
        let d = r.def(file, def);
        if d.kind != DefKind::Constant {
            return None;
        }
        let (declared, value) = d.signature().split_once('=')?;
        // A typed constant (`const n: u32 = m`) holds a value of its type, not a name.
        if declared.contains(':') {
            return None;
        }
        let path = path_of(value.trim())?;
        self.eval_path(r, file, Pos::new(d.line, 1), &path, depth + 1)
    }

    /// `found`, each constant that names another thing holding that thing's value.
    fn with_alias_values(&self, r: &dyn Binder, mut found: Vec<Found>, depth: u32) -> Vec<Found> {
        for f in &mut found {
            if f.value.is_none()
                && let Target::Def { file, def } = f.target
            {
                f.value = self.alias_value(r, file, def, depth);
            }
        }
        found
    }
}

impl ZigFiles {
    /// The container scope a type's declaration holds (`const Cart = struct { … }`: the
    /// `struct`'s body starts after the definition does, so it is no scope of the definition's
    /// own): the first one that starts within the definition's lines.
    fn body(r: &dyn Binder, file: u32, def: u32) -> Option<u32> {
        let d = r.def(file, def);
        if !matches!(d.kind, DefKind::Class | DefKind::Enum) {
            return None;
        }
        let scopes = &r.symbols(file).scopes;
        let first = scopes.partition_point(|s| s.start.line < d.line);
        scopes[first..]
            .iter()
            .take_while(|s| s.start.line <= d.end_line)
            .position(|s| s.kind == ScopeKind::Class)
            .map(|i| (first + i) as u32)
    }
}

impl Tables for ZigFiles {
    /// Nothing is kept between snapshots.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        _files: &[Arc<FileEntry>],
        _changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        Some(self)
    }

    /// `pricing.zig`, `../shop/cart.zig`: beside the importing file; a name without `.zig`
    /// is a package outside the repository.
    fn module_file(&self, r: &dyn Binder, file: u32, spec: &str) -> Option<u32> {
        if !spec.ends_with(".zig") {
            return None;
        }
        let dir = r.path(file).rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for part in spec.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                other => parts.push(other),
            }
        }
        r.file_index(&parts.join("/"))
    }

    /// `@import("m").a.C`: the member's member.
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = &symbols.imports[import as usize];
        let Some(m) = self.module_file(r, file, symbols.text(i.module)) else {
            return vec![crate::meaning::import_found(file, import)];
        };
        if i.item == NONE {
            return vec![crate::meaning::module_found(m)];
        }
        let mut parts = symbols.text(i.item).split('.');
        let first = parts.next().unwrap_or("");
        let mut found = self.module_member(r, m, NONE, first, depth + 1, false);
        for part in parts {
            let Some(value) = found.iter().find_map(|f| f.value) else {
                found = Vec::new();
                break;
            };
            found = r.member(value, part, depth + 1);
        }
        if found.is_empty() { vec![crate::meaning::import_found(file, import)] } else { found }
    }

    /// A chain's first name as in scope, a constant naming another thing as that thing
    /// (`Self = @This()`, `Cart = shop.Cart`).
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        let found = r.lookup_lexical(file, pos, name, depth + 1);
        self.with_alias_values(r, found, depth).iter().find_map(|f| f.value)
    }

    /// A function's result by its return type, as a type's instance or a file that is a struct
    /// (`fn init() Thread` in `Thread.zig`); a function that returns a `type` makes one.
    fn call_result(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        ret: &str,
        depth: u32,
    ) -> Option<Option<Value>> {
        // A generic type (`fn List(comptime T: type) type { return struct { … }; }`): its
        // result's members are the function's own definitions.
        if ret == "type" {
            return Some(Some(Value::Class(file, def)));
        }
        let path = Zig.type_hint(ret)?;
        let pos = Pos::new(r.def(file, def).line, 1);
        Some(self.type_value(r, file, pos, &path, depth))
    }

    /// A field's name where it is declared means the field (no bare name reaches it
    /// elsewhere); any other bare name is looked up in scope.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        _name: &str,
        _kind: crate::symbols::RefKind,
    ) -> Option<crate::meaning::Lookup<Vec<Found>>> {
        let symbols = r.symbols(file);
        let i = symbols.bindings.partition_point(|b| Pos::new(b.line, b.column) < pos);
        let b = symbols.bindings.get(i)?;
        let in_type = symbols
            .scopes
            .get(b.scope as usize)
            .is_some_and(|s| matches!(s.kind, ScopeKind::Class | ScopeKind::File));
        if Pos::new(b.line, b.column) != pos || !in_type {
            return None;
        }
        Some(Ok(vec![Found { target: Target::Binding { file, binding: i as u32 }, value: None }]))
    }

    /// A type's declarations, else its field of that name (`self.items`), with the value its
    /// annotation gives.
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        let own = r.children_named(file, def, name);
        if !own.is_empty() || skip_own {
            return self.with_alias_values(r, own, depth);
        }
        let (Some(scope), Some(id)) = (ZigFiles::body(r, file, def), r.name_id(file, name)) else {
            return Vec::new();
        };
        let fields: Vec<Entry> = r
            .entries_of(file, scope, id)
            .iter()
            .filter(|e| matches!(e.bound(), Bound::Binding(_)))
            .copied()
            .collect();
        fields.into_iter().flat_map(|e| r.entry_found(file, e, depth + 1)).collect()
    }

    /// A file's `pub` top-level names (its private ones are not seen through an import, but
    /// are through its own `@This()`, marked by that definition), then those of its
    /// `usingnamespace @import(…)`s.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        this: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        let following = crate::meaning::Following::member(file, 0, name);
        let Some(_step) = crate::meaning::step_following(following) else { return Vec::new() };
        let found = r.top_level_then_globs(file, name, depth, &|from, spec| self.module_file(r, from, spec));
        let public = found
            .into_iter()
            .filter(|f| match f.target {
                Target::Def { file: f, def } => this != NONE && f == file || is_pub(r.def(f, def)),
                _ => true,
            })
            .collect();
        self.with_alias_values(r, public, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    fn defs(src: &str) -> Vec<String> {
        crate::test_support::def_lines(Lang::Zig, src)
    }

    fn refs(src: &str) -> Vec<String> {
        let fs = extract(Lang::Zig, src);
        fs.refs
            .iter()
            .map(|r| {
                let q = if r.qualifier == NONE { "" } else { fs.text(r.qualifier) };
                format!("{}:{} {} {} {q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect()
    }

    fn bindings(src: &str) -> Vec<String> {
        let fs = extract(Lang::Zig, src);
        fs.bindings
            .iter()
            .map(|b| {
                let hint = if b.hint == NONE { "-" } else { fs.text(b.hint) };
                format!("{}:{} {} {hint}", { b.line }, { b.column }, fs.text(b.name))
            })
            .collect()
    }

    fn imports(src: &str) -> Vec<String> {
        let fs = extract(Lang::Zig, src);
        fs.imports
            .iter()
            .map(|i| {
                let text = |id| if id == NONE { "-" } else { fs.text(id) };
                format!("{} {} {} glob={}", text(i.module), text(i.item), text(i.bound), i.glob)
            })
            .collect()
    }

    const CART: &str = r#"//! The shopping cart.
const std = @import("std");
const pricing = @import("pricing.zig");
const Item = @import("item.zig").Item;

/// Maximum items.
pub const MAX_ITEMS: usize = 16;

/// A customer's basket.
///
/// Holds items.
pub const Cart = struct {
    const Self = @This();
    items: [MAX_ITEMS]Item = undefined,
    count: usize = 0,

    /// An empty cart.
    pub fn init() Cart {
        return Cart{};
    }

    pub fn add(self: *Self, item: Item) void {
        self.items[self.count] = item;
        self.count += 1;
    }

    pub fn total(self: Cart) u32 {
        var sum: u32 = 0;
        for (self.items[0..self.count]) |it| {
            sum += it.price;
        }
        return pricing.apply_discount(sum, 10);
    }
};

const Color = enum { red, green };
const Shape = union(enum) { circle: f32, square: f32 };

fn helper(x: u32) !u32 {
    const c = Cart.init();
    var d: Cart = c;
    d.add(.{ .price = x });
    return d.total();
}

test "cart totals" {
    var cart = Cart.init();
    try std.testing.expectEqual(@as(u32, 0), cart.total());
}
"#;

    #[test]
    fn definitions_are_qualified_kinded_and_documented() {
        assert_eq!(
            defs(CART),
            vec![
                "constant MAX_ITEMS 7-7 | pub const MAX_ITEMS: usize = 16 | Maximum items.",
                "class Cart 12-34 | pub const Cart = struct | A customer's basket.",
                "constant Cart.Self 13-13 | const Self = @This() | -",
                "method Cart.init 18-20 | pub fn init() Cart | An empty cart.",
                "method Cart.add 22-25 | pub fn add(self: *Self, item: Item) void | -",
                "method Cart.total 27-33 | pub fn total(self: Cart) u32 | -",
                "enum Color 36-36 | const Color = enum | -",
                "constant Color.red 36-36 | red | -",
                "constant Color.green 36-36 | green | -",
                "class Shape 37-37 | const Shape = union(enum) | -",
                "function helper 39-44 | fn helper(x: u32) !u32 | -",
                "function cart totals 46-49 | test \"cart totals\" | -",
            ]
        );
    }

    #[test]
    fn references_name_calls_members_and_types_with_their_qualifiers() {
        let got = refs(CART);
        for expected in [
            "4:34 Item import item.zig",
            "18:19 Cart type use ",
            "22:23 Self type use ",
            "32:16 pricing name ",
            "32:24 apply_discount method call pricing",
            "40:20 init method call Cart",
            "41:12 Cart type use ",
            "43:14 total method call d",
            "48:21 expectEqual method call std.testing",
        ] {
            assert!(got.contains(&expected.to_string()), "missing {expected:?} in {got:#?}");
        }
        assert!(!got.iter().any(|r| r.contains(" self ")), "a receiver is noise");
        assert!(!got.iter().any(|r| r.contains(" init name")), "a definition's name is no reference");
    }

    #[test]
    fn bindings_carry_evident_types_and_imports_bind_files_or_members() {
        assert_eq!(
            bindings(CART),
            vec![
                "14:5 items =Item",
                "15:5 count =usize",
                "22:16 self =Self",
                "22:29 item =Item",
                "27:18 self =Cart",
                "28:13 sum =u32",
                "29:42 it =self.items",
                "30:13 sum -",
                "37:29 circle -",
                "37:42 square -",
                "39:11 x =u32",
                "40:11 c Cart.init()",
                "41:9 d =Cart",
                "47:9 cart Cart.init()",
            ]
        );
        assert_eq!(
            imports(CART),
            vec!["std - std glob=false", "pricing.zig - pricing glob=false", "item.zig Item Item glob=false"]
        );
        assert_eq!(
            imports("pub usingnamespace @import(\"x.zig\");\nconst C = @import(\"a/b.zig\").inner.C;\n"),
            vec!["x.zig - - glob=true", "a/b.zig inner.C C glob=false"]
        );
    }

    #[test]
    fn only_pub_declarations_and_the_values_of_pub_enums_are_public() {
        let fs = extract(
            Lang::Zig,
            "pub const Color = enum { red, const default = 1; };\nconst Hidden = enum { gone };\nfn f() void {}\nexport fn g() void {}\n",
        );
        let private: Vec<String> = fs
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let def = fs.defs.at(i);
                let parent = d.parent().map(|p| fs.defs.at(p as usize));
                format!("{} {}", def.qualified(), Zig.is_private(def, parent))
            })
            .collect();
        assert_eq!(
            private,
            vec![
                "Color false",
                "Color.red false",
                "Color.default true",
                "Hidden true",
                "Hidden.gone true",
                "f true",
                "g false"
            ]
        );
    }

    #[test]
    fn type_hints_drop_pointers_optionals_and_error_sets() {
        assert_eq!(Zig.type_hint("*const Cart").as_deref(), Some("Cart"));
        assert_eq!(Zig.type_hint("?*shop.Cart").as_deref(), Some("shop.Cart"));
        assert_eq!(Zig.type_hint("anyerror!Cart").as_deref(), Some("Cart"));
        assert_eq!(Zig.type_hint("[]const Item").as_deref(), Some("Item"));
        assert_eq!(Zig.type_hint("[capacity]shop.Item").as_deref(), Some("shop.Item"));
        assert_eq!(Zig.type_hint("[*:0]const u8").as_deref(), Some("u8"));
        assert_eq!(Zig.type_hint("[]"), None);
        assert_eq!(Zig.type_hint("@This()"), None);
        assert_eq!(Zig.type_hint("*std.ArrayList(Item)").as_deref(), Some("std.ArrayList()"));
        assert_eq!(Zig.type_hint("List(Pair(u8, u8)).Node").as_deref(), Some("List().Node"));
        assert_eq!(Zig.type_hint("List(u8"), None);
        assert_eq!(Zig.return_type("pub fn init(a: fn () void) !Cart"), Some("!Cart"));
        assert_eq!(Zig.return_type("fn f()"), None);
    }

    /// Each reference of `path` as `line:column name -> what it resolves to +candidates`.
    fn resolved(files: &[(&str, &str)], path: &str) -> Vec<String> {
        let snapshot = crate::snapshot::Snapshot::from_entries(
            files.iter().map(|(p, t)| crate::test_support::entry(p, t)),
        );
        let resolver = snapshot.resolver();
        let file = resolver.file_index(path).expect("a file of the snapshot");
        let symbols = &resolver.entry(file).symbols;
        symbols
            .refs
            .iter()
            .map(|r| {
                let found = resolver.resolve_ref(file, &r);
                let targets: Vec<String> = found.resolved.iter().map(|t| resolver.describe(*t)).collect();
                format!(
                    "{}:{} {} -> {} +{}",
                    r.line,
                    r.column(),
                    symbols.ref_name(&r),
                    targets.join(", "),
                    found.candidates.len()
                )
            })
            .collect()
    }

    const PRICING: &str = "//! Prices.\n\
        /// Takes `percent` off.\n\
        pub fn apply_discount(amount: u32, percent: u32) u32 {\n\
        \x20   return amount - amount * percent / 100 + rounding();\n\
        }\n\
        fn rounding() u32 {\n\
        \x20   return 0;\n\
        }\n";

    const ITEM: &str = "pub const Item = struct {\n    price: u32,\n    pub fn cost(self: Item) u32 {\n        return self.price;\n    }\n};\n";

    const SHOP: &str = "const cart = @import(\"cart/cart.zig\");\n\
        const Item = @import(\"item.zig\").Item;\n\
        const pricing = @import(\"pricing.zig\");\n\
        pub fn checkout(c: *cart.Cart) u32 {\n\
        \x20   const first = Item{ .price = 1 };\n\
        \x20   c.add(first);\n\
        \x20   var fresh = cart.Cart.init();\n\
        \x20   _ = first.cost() + fresh.total();\n\
        \x20   return pricing.apply_discount(c.total(), 5) + pricing.rounding();\n\
        }\n\
        pub const Till = struct {\n\
        \x20   cart: cart.Cart,\n\
        \x20   fn ring(self: Till) u32 {\n\
        \x20       return self.cart.total();\n\
        \x20   }\n\
        };\n";

    const SHOP_CART: &str = "const Item = @import(\"../item.zig\").Item;\n\
        pub const Cart = struct {\n\
        \x20   const Self = @This();\n\
        \x20   total_cents: u32 = 0,\n\
        \x20   pub fn init() Self {\n\
        \x20       return .{};\n\
        \x20   }\n\
        \x20   pub fn add(self: *Self, item: Item) void {\n\
        \x20       self.total_cents += item.cost();\n\
        \x20   }\n\
        \x20   pub fn total(self: Self) u32 {\n\
        \x20       return self.total_cents;\n\
        \x20   }\n\
        \x20   pub fn twice(self: *Self, item: Item) void {\n\
        \x20       self.add(item);\n\
        \x20       add(self, item);\n\
        \x20   }\n\
        };\n";

    #[test]
    fn names_resolve_across_imported_files_and_evident_receivers() {
        let files = [
            ("src/pricing.zig", PRICING),
            ("src/item.zig", ITEM),
            ("src/shop.zig", SHOP),
            ("src/cart/cart.zig", SHOP_CART),
        ];
        // `rounding` is private to pricing.zig; a field (`.price`) is no definition.
        assert_eq!(
            resolved(&files, "src/shop.zig"),
            vec![
                "1:7 cart -> module src/cart/cart.zig +0",
                "2:7 Item -> class Item (src/item.zig:1) +0",
                "2:34 Item -> class Item (src/item.zig:1) +0",
                "3:7 pricing -> module src/pricing.zig +0",
                "4:17 c -> parameter c (src/shop.zig:4) +0",
                "4:21 cart -> module src/cart/cart.zig +0",
                "4:26 Cart -> class Cart (src/cart/cart.zig:2) +0",
                "5:11 first -> local variable first (src/shop.zig:5) +0",
                "5:19 Item -> class Item (src/item.zig:1) +0",
                "5:26 price ->  +0",
                "6:5 c -> parameter c (src/shop.zig:4) +0",
                "6:7 add -> method Cart.add (src/cart/cart.zig:8) +0",
                "6:11 first -> local variable first (src/shop.zig:5) +0",
                "7:9 fresh -> local variable fresh (src/shop.zig:7) +0",
                "7:17 cart -> module src/cart/cart.zig +0",
                "7:22 Cart -> class Cart (src/cart/cart.zig:2) +0",
                "7:27 init -> method Cart.init (src/cart/cart.zig:5) +0",
                "8:9 first -> local variable first (src/shop.zig:5) +0",
                "8:15 cost -> method Item.cost (src/item.zig:3) +0",
                "8:24 fresh -> local variable fresh (src/shop.zig:7) +0",
                "8:30 total -> method Cart.total (src/cart/cart.zig:11) +0",
                "9:12 pricing -> module src/pricing.zig +0",
                "9:20 apply_discount -> function apply_discount (src/pricing.zig:3) +0",
                "9:35 c -> parameter c (src/shop.zig:4) +0",
                "9:37 total -> method Cart.total (src/cart/cart.zig:11) +0",
                "9:51 pricing -> module src/pricing.zig +0",
                "9:59 rounding ->  +0",
                // A field's declaration; the field reached through `self`, typed by it.
                "12:5 cart -> attribute cart (src/shop.zig:12) +0",
                "12:11 cart -> module src/cart/cart.zig +0",
                "12:16 Cart -> class Cart (src/cart/cart.zig:2) +0",
                "13:19 Till -> class Till (src/shop.zig:11) +0",
                "14:21 cart -> attribute cart (src/shop.zig:12) +0",
                "14:26 total -> method Cart.total (src/cart/cart.zig:11) +0",
            ]
        );
        // `../item.zig` from `cart/`; `self: *Self` is a `Cart` (`Self = @This()`), and a method
        // calls another bare or through `self`.
        assert_eq!(
            resolved(&files, "src/cart/cart.zig"),
            vec![
                "1:7 Item -> class Item (src/item.zig:1) +0",
                "1:37 Item -> class Item (src/item.zig:1) +0",
                "4:5 total_cents -> attribute total_cents (src/cart/cart.zig:4) +0",
                "5:19 Self -> constant Cart.Self (src/cart/cart.zig:3) +0",
                "8:23 Self -> constant Cart.Self (src/cart/cart.zig:3) +0",
                "8:29 item -> parameter item (src/cart/cart.zig:8) +0",
                "8:35 Item -> class Item (src/item.zig:1) +0",
                "9:14 total_cents -> attribute total_cents (src/cart/cart.zig:4) +0",
                "9:29 item -> parameter item (src/cart/cart.zig:8) +0",
                "9:34 cost -> method Item.cost (src/item.zig:3) +0",
                "11:24 Self -> constant Cart.Self (src/cart/cart.zig:3) +0",
                "12:21 total_cents -> attribute total_cents (src/cart/cart.zig:4) +0",
                "14:25 Self -> constant Cart.Self (src/cart/cart.zig:3) +0",
                "14:31 item -> parameter item (src/cart/cart.zig:14) +0",
                "14:37 Item -> class Item (src/item.zig:1) +0",
                "15:14 add -> method Cart.add (src/cart/cart.zig:8) +0",
                "15:18 item -> parameter item (src/cart/cart.zig:14) +0",
                "16:9 add -> method Cart.add (src/cart/cart.zig:8) +0",
                "16:19 item -> parameter item (src/cart/cart.zig:14) +0",
            ]
        );
        // A private function is seen in its own file.
        assert_eq!(
            resolved(&files, "src/pricing.zig"),
            vec![
                "3:23 amount -> parameter amount (src/pricing.zig:3) +0",
                "3:36 percent -> parameter percent (src/pricing.zig:3) +0",
                "4:12 amount -> parameter amount (src/pricing.zig:3) +0",
                "4:21 amount -> parameter amount (src/pricing.zig:3) +0",
                "4:30 percent -> parameter percent (src/pricing.zig:3) +0",
                "4:46 rounding -> function rounding (src/pricing.zig:6) +0",
            ]
        );
    }

    /// A file that is a struct (`Till.zig`: fields at its top, `const Till = @This()`): its
    /// instances reach its functions, private ones only from inside it.
    #[test]
    fn a_file_that_is_a_struct_types_its_instances() {
        let till = "//! A till.\n\
            const Till = @This();\n\
            const Cart = @import(\"cart.zig\").Cart;\n\
            cart: Cart,\n\
            pub fn open() Till {\n\
            \x20   return .{ .cart = Cart.init() };\n\
            }\n\
            pub fn ring(self: *Till) u32 {\n\
            \x20   return self.sum() + self.cart.total();\n\
            }\n\
            fn sum(self: Till) u32 {\n\
            \x20   return self.cart.total();\n\
            }\n";
        let cart = "pub const Cart = struct {\n    pub fn init() Cart {\n        return .{};\n    }\n    pub fn total(self: Cart) u32 {\n        return 0;\n    }\n};\n";
        let shop = "const Till = @import(\"Till.zig\");\npub fn main() void {\n    var t = Till.open();\n    _ = t.ring() + t.sum();\n}\n";
        let files = [("Till.zig", till), ("cart.zig", cart), ("shop.zig", shop)];
        assert_eq!(
            resolved(&files, "Till.zig"),
            vec![
                "3:7 Cart -> class Cart (cart.zig:1) +0",
                "3:34 Cart -> class Cart (cart.zig:1) +0",
                "4:1 cart -> variable cart (Till.zig:4) +0",
                "4:7 Cart -> class Cart (cart.zig:1) +0",
                "5:15 Till -> constant Till (Till.zig:2) +0",
                "6:16 cart ->  +0",
                "6:23 Cart -> class Cart (cart.zig:1) +0",
                "6:28 init -> method Cart.init (cart.zig:2) +0",
                "8:20 Till -> constant Till (Till.zig:2) +0",
                "9:17 sum -> function sum (Till.zig:11) +0",
                "9:30 cart -> variable cart (Till.zig:4) +0",
                "9:35 total -> method Cart.total (cart.zig:5) +0",
                "11:14 Till -> constant Till (Till.zig:2) +0",
                "12:17 cart -> variable cart (Till.zig:4) +0",
                "12:22 total -> method Cart.total (cart.zig:5) +0",
            ]
        );
        // `sum` is private to Till.zig.
        assert_eq!(
            resolved(&files, "shop.zig"),
            vec![
                "1:7 Till -> module Till.zig +0",
                "3:9 t -> local variable t (shop.zig:3) +0",
                "3:13 Till -> module Till.zig +0",
                "3:18 open -> function open (Till.zig:5) +0",
                "4:9 t -> local variable t (shop.zig:3) +0",
                "4:11 ring -> function ring (Till.zig:8) +0",
                "4:20 t -> local variable t (shop.zig:3) +0",
                "4:22 sum ->  +0",
            ]
        );
    }

    /// A function returning a `type` is a generic type: its struct's functions are reached
    /// through the call (`List(u32).init()`), an alias of it (`IntList`), and `Self`.
    #[test]
    fn a_generic_types_methods_are_reached_through_its_instances() {
        let list = "pub fn List(comptime T: type) type {\n\
            \x20   return struct {\n\
            \x20       const Self = @This();\n\
            \x20       first: ?T = null,\n\
            \x20       pub fn init() Self {\n\
            \x20           return .{};\n\
            \x20       }\n\
            \x20       pub fn push(self: *Self, x: T) void {\n\
            \x20           self.first = x;\n\
            \x20       }\n\
            \x20   };\n\
            }\n";
        let user = "const list = @import(\"list.zig\");\n\
            const IntList = list.List(u32);\n\
            pub fn main() void {\n\
            \x20   var a = IntList.init();\n\
            \x20   a.push(1);\n\
            \x20   var b = list.List(u8).init();\n\
            \x20   b.push(2);\n\
            \x20   var c: IntList = a;\n\
            \x20   c.push(3);\n\
            }\n";
        let files = [("list.zig", list), ("user.zig", user)];
        let pushes: Vec<String> = resolved(&files, "user.zig")
            .into_iter()
            .filter(|r| r.contains(" push ") || r.contains(" init "))
            .collect();
        assert_eq!(
            pushes,
            vec![
                "4:21 init -> method List.init (list.zig:5) +0",
                "5:7 push -> method List.push (list.zig:8) +0",
                "6:27 init -> method List.init (list.zig:5) +0",
                "7:7 push -> method List.push (list.zig:8) +0",
                "9:7 push -> method List.push (list.zig:8) +0",
            ]
        );
    }

    #[test]
    fn deep_nesting_finishes() {
        let mut src = String::new();
        for i in 0..300 {
            src.push_str(&format!("const S{i} = struct {{\n"));
        }
        src.push_str("fn f() void {}\n");
        for _ in 0..300 {
            src.push_str("};\n");
        }
        let fs = extract(Lang::Zig, &src);
        // Either extracted or refused as too deep, but finished.
        assert!(fs.defs.len() == 301 || fs.too_deep.is_some());
        let files = [("deep.zig", src.as_str())];
        let _ = crate::test_support::resolve_at(&files, "deep.zig", 301, 4);
    }

    /// Files that import each other, names that alias each other, members of each other's
    /// modules: every lookup finishes.
    #[test]
    fn import_cycles_and_alias_chains_finish() {
        let files = [
            (
                "a.zig",
                "const b = @import(\"b.zig\");\npub const A = b.B;\npub fn f() void {\n    const x = b.A;\n    const y = x;\n    const z = y;\n    z.g();\n    b.missing();\n    b.f();\n}\n",
            ),
            (
                "b.zig",
                "const a = @import(\"a.zig\");\npub const B = a.A;\npub const A = a.A;\npub usingnamespace @import(\"b.zig\");\npub usingnamespace @import(\"a.zig\");\n",
            ),
        ];
        assert_eq!(
            resolved(&files, "a.zig"),
            vec![
                "1:7 b -> module b.zig +0",
                "2:15 b -> module b.zig +0",
                "2:17 B -> constant B (b.zig:2) +0",
                "4:11 x -> local variable x (a.zig:4) +0",
                "4:15 b -> module b.zig +0",
                "4:17 A -> constant A (b.zig:3) +0",
                "5:11 y -> local variable y (a.zig:5) +0",
                "5:15 x -> local variable x (a.zig:4) +0",
                "6:11 z -> local variable z (a.zig:6) +0",
                "6:15 y -> local variable y (a.zig:5) +0",
                "7:5 z -> local variable z (a.zig:6) +0",
                "7:7 g ->  +0",
                "8:5 b -> module b.zig +0",
                "8:7 missing ->  +0",
                "9:5 b -> module b.zig +0",
                // Through b.zig's `usingnamespace @import("a.zig")`.
                "9:7 f -> function f (a.zig:3) +0",
            ]
        );
        assert_eq!(
            resolved(&files, "b.zig"),
            vec![
                "1:7 a -> module a.zig +0",
                "2:15 a -> module a.zig +0",
                "2:17 A -> constant A (a.zig:2) +0",
                "3:15 a -> module a.zig +0",
                "3:17 A -> constant A (a.zig:2) +0",
            ]
        );
    }
}
