//! Lua: `.lua` files, tree-sitter-lua, `queries/lua/`. Functions however written (`function f`,
//! `local function f`, `function M.f`, `M.f = function`, a table constructor's `add = function`)
//! and methods (`function Cart:total`) are definitions, qualified by the table they are put in
//! (`M.f`, `Cart.total`); a table the file itself makes (`local M = {}`) is a module (a class
//! when its name is capitalised), an all-capitals name a constant. `require("shop.cart")` loads
//! `shop/cart.lua` (or `shop/cart/init.lua`, under any folder); `local cart = require(…)` binds
//! `cart` to what that file returns (`return M`), so `cart.total()` is `M.total` there. Globals
//! are repository-wide, as Bash's functions are (one shared scope; a file's loads chosen first).

mod lua_checks;

use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::Node;

use super::shared_scope::{SharedScope, one_group};
use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Binder, Bound, Entry, Found, Lookup, MAX_DEPTH, Tables, Value, module_found};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind, innermost_scope};

pub(crate) struct Lua;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Lua,
    name: "lua",
    extensions: &["lua"],
    interpreters: &["lua", "luajit"],
    build_scripts: &[".rockspec"],
    manifest: None,
    grammar: || tree_sitter_lua::LANGUAGE.into(),
    comments: Comments { line: &["--"], block: Some(("--[[", "]]")), block_inner: None, not: &[] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_non_bindings: &[
            "dot_index_expression",
            "bracket_index_expression",
            "method_index_expression",
        ],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/lua/tags.scm"),
    names: include_str!("../../../queries/lua/names.scm"),
    test_file_suffixes: &["_spec.lua", "_test.lua"],
    test_file_names: &[],
    surface_files: &["init.lua"],
    separator: ".",
    // The base library's functions: calls of them are no function of the repository's, and a
    // method's receiver (`self`) names nothing to look up.
    noise: &[
        "require",
        "print",
        "pairs",
        "ipairs",
        "setmetatable",
        "getmetatable",
        "type",
        "tostring",
        "tonumber",
        "error",
        "assert",
        "pcall",
        "xpcall",
        "select",
        "rawget",
        "rawset",
        "rawequal",
        "next",
        "unpack",
        "self",
        "_G",
        "_ENV",
        "table",
        "string",
        "math",
        "io",
        "os",
        "coroutine",
        "package",
        "utf8",
    ],
    // The string, table, math, io and os libraries' functions.
    std_methods: &[
        "insert", "remove", "concat", "sort", "unpack", "pack", "format", "sub", "gsub", "gmatch", "match",
        "find", "upper", "lower", "len", "rep", "byte", "char", "reverse", "floor", "ceil", "max", "min",
        "abs", "sqrt", "random", "open", "close", "read", "write", "lines", "time", "date", "getenv", "exit",
    ],
    keywords: &[
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ],
    preamble: &["--"],
    rules: Rules {
        attribute_names_members: false,
        // `cart.total()` calls the function `total` of the module `cart`.
        method_call_names_function: true,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: false,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "lua",
    checks: lua_checks::checks,
    runners: &["tap"],
};

impl Language for Lua {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// The table a function is put in: `function M.f` and `M.f = function` are `f` in `M`,
    /// `function Cart:total` is `total` in `Cart` (`function a.b.c` is `c` in `a.b`).
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        let name = match def.kind() {
            "function_declaration" => def.child_by_field_name("name")?,
            "assignment_statement" => def.named_child(0)?.child_by_field_name("name")?,
            _ => return None,
        };
        match name.kind() {
            "dot_index_expression" | "method_index_expression" => {
                Some(node_text(name.child_by_field_name("table")?, bytes).to_string())
            }
            _ => None,
        }
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().starts_with("local ") || def.name().starts_with('_')
    }

    fn constructor(&self) -> Option<&'static str> {
        Some("new")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_declaration" => ScopeKind::Function,
            "function_definition" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// A function's signature ends after its parameters; a table's after its `{`; a
    /// constant's is its whole statement.
    fn body_start(&self, def: Node) -> Option<usize> {
        let function = match def.kind() {
            "function_declaration" => Some(def),
            "field" => def.child_by_field_name("value"),
            _ => value_of(def),
        };
        let function = function?;
        match function.kind() {
            "function_declaration" | "function_definition" => {
                function.child_by_field_name("parameters").map(|p| p.end_byte())
            }
            "table_constructor" => Some(function.start_byte() + 1),
            _ => None,
        }
    }

    fn return_type<'s>(&self, _signature: &'s str) -> Option<&'s str> {
        None
    }

    /// The first text line of the `--` (or `---`) comment lines right above the definition,
    /// annotations (`---@param`) left out.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        dash_comment_above(def.start_byte(), bytes)
    }

    /// A dotted name (`Cart`, `shop.Cart`) is a path to look up; anything else is no type.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        let ok = !text.is_empty()
            && text.split('.').all(|part| {
                part.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| text.to_string())
    }

    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// `cart.items`, `self`, `Cart.new(…)` (an instance: `Cart()`), `a:b()`: a chain the
    /// resolver follows; anything else is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// `require("shop.cart")`: the module as a path (`shop/cart`), bound to the one name
    /// `local cart = …` (or `cart = …`) assigns it to, else a glob import (a load: what it
    /// defines is global).
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(arguments) = node.child_by_field_name("arguments") else { return };
        let Some(string) = arguments.named_child(0).filter(|s| s.kind() == "string") else { return };
        let Some(content) = string.child_by_field_name("content") else { return };
        let module = node_text(content, bytes).trim();
        if module.is_empty() {
            return;
        }
        let path = module.replace('.', "/");
        match bound_name(node) {
            Some(name) => out.push(RawImport {
                module: path,
                item: None,
                bound: Some(node_text(name, bytes).to_string()),
                alias: false,
                glob: false,
                cfg: None,
                at: name,
            }),
            None => out.push(RawImport::glob(path, string)),
        }
    }

    /// What `return M` names (the file's module table).
    fn exported_names(&self, node: Node, bytes: &[u8], out: &mut Vec<String>) {
        out.push(node_text(node, bytes).to_string());
    }

    /// A function named in its scope (`function f`, `local function f`, `local f = function`,
    /// a table, a constant), not one put in a table (`function M.f`, a constructor's field):
    /// that is reached through the table.
    fn bound_by_name(&self, symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        match def.parent() {
            None => def.qualified() == def.name(),
            Some(p) => {
                let parent = symbols.defs.at(p as usize);
                matches!(parent.kind, DefKind::Function | DefKind::Method)
                    && def.qualified().len() == parent.qualified().len() + 1 + def.name().len()
            }
        }
    }

    /// A table, function or constant the file defines is what its name means (rather than the
    /// local its statement also binds), then what `require` binds; otherwise the last local
    /// before the use.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        for wanted in [0, 2] {
            let found: Vec<Entry> = entries
                .iter()
                .filter(|e| match e.bound() {
                    Bound::Def(_) => wanted == 0,
                    Bound::Import(_) => wanted == 2,
                    Bound::Binding(_) => false,
                })
                .copied()
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        super::last_local_else_items(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(LuaScope::new(files))
    }
}

/// The value an assignment or declaration gives its first name.
fn value_of(def: Node) -> Option<Node> {
    let assignment = match def.kind() {
        "variable_declaration" => def.named_child(0).filter(|a| a.kind() == "assignment_statement")?,
        "assignment_statement" => def,
        _ => return None,
    };
    let values = assignment.named_child(1)?;
    values.child_by_field_name("value")
}

/// The one name `local x = require(…)` or `x = require(…)` assigns the call to.
fn bound_name(call: Node) -> Option<Node> {
    let values = call.parent().filter(|p| p.kind() == "expression_list")?;
    let assignment = values.parent().filter(|p| p.kind() == "assignment_statement")?;
    let names = assignment.named_child(0).filter(|n| n.kind() == "variable_list")?;
    if names.named_child_count() != 1 || values.named_child_count() != 1 {
        return None;
    }
    names.named_child(0).filter(|n| n.kind() == "identifier")
}

/// The first text line of the block of `--` lines that ends on the line right above `start`,
/// read line by line upwards; annotation lines (`---@param x number`) are no text.
fn dash_comment_above(start: usize, bytes: &[u8]) -> Option<&str> {
    let start = start.min(bytes.len());
    let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
    let mut first: Option<&str> = None;
    let mut end = line_start;
    while end > 0 {
        let above_start = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        let Ok(line) = std::str::from_utf8(&bytes[above_start..end - 1]) else { break };
        let Some(comment) = line.trim().strip_prefix("--") else { break };
        if comment.starts_with("[[") || comment.ends_with("]]") {
            break;
        }
        let comment = comment.trim_start_matches('-').trim();
        if !comment.is_empty() && !comment.starts_with('@') {
            first = Some(comment);
        }
        end = above_start;
    }
    first
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "identifier" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "dot_index_expression" => {
            let (Some(table), Some(field)) =
                (node.child_by_field_name("table"), node.child_by_field_name("field"))
            else {
                return false;
            };
            if !chain(table, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(field, bytes));
            true
        }
        "function_call" => {
            let Some(name) = node.child_by_field_name("name") else { return false };
            let (table, method) = match name.kind() {
                "dot_index_expression" => {
                    (name.child_by_field_name("table"), name.child_by_field_name("field"))
                }
                "method_index_expression" => {
                    (name.child_by_field_name("table"), name.child_by_field_name("method"))
                }
                _ => (None, None),
            };
            match (table, method) {
                (Some(table), Some(method)) => {
                    if !chain(table, bytes, out) {
                        return false;
                    }
                    // `Cart.new(…)` and `Cart:new(…)` are an instance of `Cart`: a call of the
                    // class.
                    let method = node_text(method, bytes);
                    if method != "new" {
                        out.push('.');
                        out.push_str(method);
                    }
                }
                _ => {
                    if !chain(name, bytes, out) {
                        return false;
                    }
                }
            }
            out.push_str("()");
            true
        }
        "parenthesized_expression" => match (node.named_child(0), node.named_child_count()) {
            (Some(only), 1) => chain(only, bytes, out),
            _ => false,
        },
        _ => false,
    }
}

/// The shared scope (globals are repository-wide) with Lua's modules: `require("shop.cart")`
/// names a file by its path's tail, a table's members are the functions put in it (in its
/// file, or anywhere for a global table), and `self` is the instance of the table a method is
/// put in.
struct LuaScope {
    shared: SharedScope,
    /// The Lua files by every tail of their path without `.lua` (`lua/shop/cart.lua` under
    /// `lua/shop/cart`, `shop/cart` and `cart`; `shop/init.lua` under `shop` too).
    by_module: HashMap<String, Vec<u32>>,
}

impl LuaScope {
    fn new(files: &[Arc<FileEntry>]) -> LuaScope {
        let mut by_module: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate().filter(|(_, f)| f.lang == Lang::Lua) {
            let Some(stem) = file.path.strip_suffix(".lua") else { continue };
            let mut forms = vec![stem];
            if let Some(folder) = stem.strip_suffix("/init") {
                forms.push(folder);
            }
            for form in forms {
                let tails = std::iter::once(0).chain(form.match_indices('/').map(|(at, _)| at + 1));
                for at in tails {
                    by_module.entry(form[at..].to_string()).or_default().push(i as u32);
                }
            }
        }
        LuaScope { shared: SharedScope::new(files, Lang::Lua, &one_group).with_loads(files), by_module }
    }

    /// The table a file returns (`return M`), as a definition of the file, when it is one.
    fn returned_table(&self, r: &dyn Binder, file: u32) -> Option<u32> {
        let symbols = r.symbols(file);
        let name = symbols.exports.as_ref()?.last()?;
        let defs = &symbols.defs;
        (0..defs.len() as u32).rev().find(|&d| {
            let def = defs.at(d as usize);
            def.parent().is_none()
                && def.name() == name
                && def.qualified() == name
                && matches!(def.kind, DefKind::Class | DefKind::Module)
        })
    }

    /// The functions put in table `table` (a qualified name) in `file`, named `name`.
    fn put_in(&self, r: &dyn Binder, file: u32, table: &str, name: &str) -> Vec<Found> {
        let defs = &r.symbols(file).defs;
        (0..defs.len() as u32)
            .filter(|&d| {
                let def = defs.at(d as usize);
                def.name() == name
                    && def.parent().is_none()
                    && def.qualified().len() == table.len() + 1 + name.len()
                    && def.qualified().starts_with(table)
                    && def.qualified()[table.len()..].starts_with('.')
            })
            .map(|d| r.def_found(file, d))
            .collect()
    }
}

impl LuaScope {
    /// A table's own member: a function of its constructor, else one put in it in its file
    /// (in any file, for a global table).
    fn own_member(&self, r: &dyn Binder, file: u32, def: u32, name: &str) -> Vec<Found> {
        let own = r.children_named(file, def, name);
        if !own.is_empty() {
            return own;
        }
        let table = r.def(file, def);
        let qualified = table.qualified().to_string();
        let mut found = self.put_in(r, file, &qualified, name);
        if found.is_empty() && !table.signature().starts_with("local ") {
            for &(f, d) in r.defs_named(name).iter() {
                let other = r.def(f, d);
                if f != file
                    && r.lang(f) == Lang::Lua
                    && other.parent().is_none()
                    && other.qualified().len() == qualified.len() + 1 + name.len()
                    && other.qualified().starts_with(&qualified)
                {
                    found.push(r.def_found(f, d));
                }
            }
        }
        found
    }
}

impl Tables for LuaScope {
    /// Kept while no changed file's loads changed (modules follow paths, which a change of
    /// contents keeps).
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        if self.shared.loads_kept(Lang::Lua, before, files, changed) { Some(self) } else { None }
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        let path = name.replace('.', "/");
        self.by_module.get(&path).cloned().unwrap_or_default()
    }

    /// `shop/cart` (as `require("shop.cart")` is kept): the shortest path whose tail it is
    /// (`shop/cart.lua`, `lua/shop/cart.lua`, `shop/cart/init.lua`).
    fn module_file(&self, r: &dyn Binder, _file: u32, module: &str) -> Option<u32> {
        let files = self.by_module.get(module.trim_start_matches("./"))?;
        files.iter().copied().min_by_key(|&f| (r.path(f).len(), f))
    }

    /// What `local cart = require("shop.cart")` binds: the table the file returns, else the
    /// file.
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, _depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = &symbols.imports[import as usize];
        let Some(m) = self.module_file(r, file, symbols.text(i.module)) else {
            return vec![crate::meaning::import_found(file, import)];
        };
        match self.returned_table(r, m) {
            Some(table) => vec![r.def_found(m, table)],
            None => vec![module_found(m)],
        }
    }

    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        self.shared.unbound(r, file, name, depth)
    }

    /// A table constructor's key (`{ name = name }`'s first) names a field: nothing to look up.
    fn bare_ref(
        &self,
        _r: &dyn Binder,
        _file: u32,
        _pos: Pos,
        _name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        (kind == RefKind::Attribute).then(|| Ok(Vec::new()))
    }

    /// A module file's name: a function put in the table it returns (or in any table, when it
    /// returns none the index knows), else a function the file names at its top.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        if def != NONE {
            return self.type_member(r, file, def, name, depth, false);
        }
        let symbols = r.symbols(file);
        let returned = symbols.exports.as_ref().and_then(|e| e.last());
        let found = match returned {
            Some(table) => self.put_in(r, file, table, name),
            None => {
                let defs = &symbols.defs;
                (0..defs.len() as u32)
                    .filter(|&d| {
                        let def = defs.at(d as usize);
                        def.name() == name && def.parent().is_none() && def.qualified() != name
                    })
                    .map(|d| r.def_found(file, d))
                    .collect()
            }
        };
        if !found.is_empty() {
            return found;
        }
        r.top_level_defs(&[file], None, name, depth + 1)
    }

    /// A table's member: its own (see [`LuaScope::own_member`]), else its base's (the table
    /// its metatable's `__index` names).
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        r.member_through_bases(file, def, depth, skip_own, &|file, def, _| {
            self.own_member(r, file, def, name)
        })
    }

    /// A table the file makes is a class: its members are what is put in it.
    fn module_of_def(&self, _r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        Some(Value::Class(file, def))
    }

    /// `self` in a function put in a table (`function Cart:total`): an instance of that table,
    /// as its name means where the function is.
    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        if name != "self" {
            return None;
        }
        let symbols = r.symbols(file);
        let mut scope = innermost_scope(&symbols.scopes, pos);
        while scope != NONE {
            let s = symbols.scopes[scope as usize];
            scope = s.parent;
            if s.def == NONE {
                continue;
            }
            let def = symbols.defs.at(s.def as usize);
            let table = match def.parent().map(|p| symbols.defs.at(p as usize)) {
                Some(parent) if matches!(parent.kind, DefKind::Class | DefKind::Module) => {
                    parent.qualified().to_string()
                }
                Some(_) => continue,
                None if def.qualified() == def.name() => continue,
                None => def.qualified().strip_suffix(def.name())?.strip_suffix('.')?.to_string(),
            };
            let first = table.split('.').next()?;
            let found = r.lookup_lexical(file, pos, first, 1);
            let mut value = found.iter().find_map(|f| f.value)?;
            for part in table.split('.').skip(1) {
                value = r.member(value, part, 1).iter().find_map(|f| f.value)?;
            }
            return match value {
                Value::Class(f, d) | Value::Instance(f, d) => Some(Value::Instance(f, d)),
                _ => None,
            };
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    fn defs(src: &str) -> Vec<String> {
        crate::test_support::def_lines(Lang::Lua, src)
    }

    fn refs(src: &str) -> Vec<String> {
        let fs = extract(Lang::Lua, src);
        fs.refs
            .iter()
            .map(|r| {
                let q =
                    if r.qualifier == NONE { String::new() } else { format!(" {}", fs.text(r.qualifier)) };
                format!("{}:{} {} {}{q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect()
    }

    const CART: &str = r#"--- Shopping carts.
local pricing = require("shop.pricing")

local TAX = 20

-- A customer's basket.
---@class Cart
local Cart = {}
Cart.__index = Cart

--- A new, empty cart.
---@return Cart
function Cart.new(owner)
  local self = setmetatable({}, Cart)
  self.items = {}
  return self
end

-- Adds an item.
function Cart:add(name, price)
  table.insert(self.items, { name = name, price = price })
end

function Cart:total(code)
  local sum = 0
  for _, item in ipairs(self.items) do
    sum = sum + item.price
  end
  return pricing.apply_discount(sum, code) * (100 + TAX) / 100
end

local function helper(x)
  return x
end

Cart.count = function(self)
  return #self.items
end

function describe(cart)
  return helper(cart:total())
end

local M = { version = "1", twice = function(x) return 2 * x end }

return Cart
"#;

    #[test]
    fn definitions_are_kinded_qualified_by_their_table_and_documented() {
        assert_eq!(
            defs(CART),
            [
                "constant TAX 4-4 | local TAX = 20 | -",
                "class Cart 8-8 | local Cart = { | A customer's basket.",
                "function Cart.new 13-17 | function Cart.new(owner) | A new, empty cart.",
                "method Cart.add 20-22 | function Cart:add(name, price) | Adds an item.",
                "method Cart.total 24-30 | function Cart:total(code) | -",
                "function helper 32-34 | local function helper(x) | -",
                "function Cart.count 36-38 | Cart.count = function(self) | -",
                "function describe 40-42 | function describe(cart) | -",
                "module M 44-44 | local M = { | -",
                "function M.twice 44-44 | twice = function(x) | -",
            ]
        );
        assert_eq!(extract(Lang::Lua, CART).exports, Some(vec!["Cart".to_string()]));
    }

    #[test]
    fn calls_through_tables_are_method_calls_with_their_qualifier() {
        let refs = refs(CART);
        for expected in [
            "2:7 pricing name",
            "15:8 items attribute self",
            "29:18 apply_discount method call pricing",
            "29:53 TAX name",
            "41:10 helper call",
            "41:22 total method call cart",
        ] {
            assert!(refs.contains(&expected.to_string()), "missing {expected:?} in {refs:#?}");
        }
        // The base library and `self` are noise; `table.insert` calls outside the repository.
        assert!(
            !refs.iter().any(|r| r.contains(" require ") || r.contains(" ipairs ") || r.contains("21:3 "))
        );
    }

    #[test]
    fn requires_bind_a_name_or_load_and_new_hints_an_instance() {
        let src = "local cart = require(\"shop.cart\")\nlocal p = require 'shop.pricing'\nrequire(\"shop.util\")\nlocal c = cart.Cart.new(1)\nlocal d = Cart:new()\nlocal e = setmetatable({}, Cart)\nlocal f = e\nlocal a, b = require(\"x\"), 2\n";
        let fs = extract(Lang::Lua, src);
        let imports: Vec<String> = fs
            .imports
            .iter()
            .map(|i| {
                let bound = if i.bound == NONE { "-" } else { fs.text(i.bound) };
                format!("{} as {bound} glob={}", fs.text(i.module), { i.glob })
            })
            .collect();
        assert_eq!(
            imports,
            [
                "shop/cart as cart glob=false",
                "shop/pricing as p glob=false",
                "shop/util as - glob=true",
                "x as - glob=true"
            ]
        );
        let hints: Vec<String> = fs
            .bindings
            .iter()
            .map(|b| {
                let hint = if b.hint == NONE { "-" } else { fs.text(b.hint) };
                format!("{} {hint}", fs.text(b.name))
            })
            .collect();
        assert_eq!(hints, ["cart -", "p -", "c cart.Cart()", "d Cart()", "e Cart()", "f =e", "a -", "b -"]);
    }

    const PRICING: &str = "local M = {}\n\nM.RATE = 10\n\nfunction M.apply_discount(amount, code)\n  if code == nil then return amount end\n  return amount * (100 - M.RATE) / 100\nend\n\nfunction log_total(t)\n  print(t)\nend\n\nreturn M\n";

    const MAIN: &str = "local Cart = require(\"shop.cart\")\nlocal pricing = require \"shop.pricing\"\nrequire(\"shop.util\")\n\nlocal cart = Cart.new(\"ann\")\ncart:add(\"tea\", 3)\nlocal c2 = cart\nlog_total(c2:total())\nprint(pricing.apply_discount(10, \"x\"))\nshout(describe(cart))\n";

    /// Every reference of a small repository with what it resolves to: modules a `require`
    /// finds by their dotted path (under `lua/`, as a folder's `init.lua`), what the module
    /// returns bound to the local, methods through `:` on an instance `new` made, `self`, and
    /// globals across files.
    #[test]
    fn names_resolve_through_requires_tables_methods_and_globals() {
        let files = [
            ("lua/shop/cart.lua", CART),
            ("lua/shop/pricing.lua", PRICING),
            ("main.lua", MAIN),
            ("src/shop/util/init.lua", "function shout(s)\n  return s\nend\n"),
        ];
        let resolved = super::super::bash::tests::resolve(&files);
        let interesting: Vec<&str> = resolved
            .iter()
            .map(String::as_str)
            .filter(|line| !line.contains(" -> lua/shop/cart.lua:8 Cart") && !line.contains('$'))
            .collect();
        assert_eq!(
            interesting,
            [
                "lua/shop/cart.lua:2 pricing name -> lua/shop/pricing.lua:1 M",
                "lua/shop/cart.lua:29 pricing name -> lua/shop/pricing.lua:1 M",
                "lua/shop/cart.lua:29 apply_discount method call -> lua/shop/pricing.lua:5 M.apply_discount",
                "lua/shop/cart.lua:29 TAX name -> lua/shop/cart.lua:4 TAX",
                "lua/shop/cart.lua:41 helper call -> lua/shop/cart.lua:32 helper",
                "lua/shop/cart.lua:41 total method call -> ?lua/shop/cart.lua:24 Cart.total",
                "lua/shop/pricing.lua:3 M name -> lua/shop/pricing.lua:1 M",
                "lua/shop/pricing.lua:5 M name -> lua/shop/pricing.lua:1 M",
                "lua/shop/pricing.lua:7 M name -> lua/shop/pricing.lua:1 M",
                "lua/shop/pricing.lua:14 M name -> lua/shop/pricing.lua:1 M",
                "main.lua:2 pricing name -> lua/shop/pricing.lua:1 M",
                "main.lua:5 new method call -> lua/shop/cart.lua:13 Cart.new",
                "main.lua:6 add method call -> lua/shop/cart.lua:20 Cart.add",
                "main.lua:8 log_total call -> lua/shop/pricing.lua:10 log_total",
                "main.lua:8 total method call -> lua/shop/cart.lua:24 Cart.total",
                "main.lua:9 pricing name -> lua/shop/pricing.lua:1 M",
                "main.lua:9 apply_discount method call -> lua/shop/pricing.lua:5 M.apply_discount",
                "main.lua:10 shout call -> src/shop/util/init.lua:1 shout",
                "main.lua:10 describe call -> lua/shop/cart.lua:40 describe",
            ]
        );
        let names_cart = resolved.iter().filter(|l| l.ends_with(" -> lua/shop/cart.lua:8 Cart")).count();
        assert_eq!(names_cart, 10, "the table's own uses and main.lua's `Cart` import: {resolved:#?}");
        assert!(resolved.contains(&"main.lua:7 cart name -> main.lua:5 $cart".to_string()));
    }

    /// `self` in a method is an instance of its table: its other methods resolve.
    #[test]
    fn self_is_the_table_a_method_is_put_in() {
        let src = "local Cart = {}\nfunction Cart:add(x) self:log(x) end\nfunction Cart:log(x) end\nfunction Cart.size(self) return self:add(1) end\n";
        let files = [("cart.lua", src)];
        let at = |line, column| crate::test_support::resolve_at(&files, "cart.lua", line, column);
        assert_eq!(at(2, 27), "log: method Cart.log (cart.lua:3)");
        assert_eq!(at(4, 38), "add: method Cart.add (cart.lua:2)");
    }

    /// A table made with `setmetatable({}, { __index = Cart })` has Cart's methods too, through
    /// `self` and an instance; a constructor's keys name nothing.
    #[test]
    fn a_metatables_index_is_a_base() {
        let files = [
            (
                "shop/cart.lua",
                "local Cart = {}\nCart.__index = Cart\nfunction Cart:total() return 1 end\nreturn Cart\n",
            ),
            (
                "shop/vip_cart.lua",
                "local Cart = require(\"shop.cart\")\nlocal VipCart = setmetatable({}, { __index = Cart })\nfunction VipCart:saved() return self:total() end\nlocal v = VipCart.new()\nlocal t = { total = v:total() }\nreturn VipCart\n",
            ),
        ];
        let at = |line, column| crate::test_support::resolve_at(&files, "shop/vip_cart.lua", line, column);
        assert_eq!(at(2, 7), "VipCart: class VipCart (shop/vip_cart.lua:2)");
        assert_eq!(at(2, 46), "Cart: class Cart (shop/cart.lua:1)");
        assert_eq!(at(3, 38), "total: method Cart.total (shop/cart.lua:3)");
        assert_eq!(at(5, 23), "total: method Cart.total (shop/cart.lua:3)");
        assert_eq!(at(5, 13), "total:");
    }

    /// 300 nested blocks, a chain of aliases, and two modules requiring each other: every lookup
    /// finishes.
    #[test]
    fn deep_nesting_an_alias_chain_and_a_require_cycle_finish() {
        let mut src = String::from("function f()\n");
        for _ in 0..300 {
            src.push_str("if x then\n");
        }
        src.push_str("g()\n");
        for _ in 0..300 {
            src.push_str("end\n");
        }
        src.push_str("end\n");
        let fs = extract(Lang::Lua, &src);
        assert!(fs.too_deep.is_some() || fs.defs.iter().any(|d| d.name() == "f"));
        let mut aliases = String::from("local Cart = {}\nfunction Cart:total() end\nlocal a0 = Cart.new()\n");
        for i in 1..40 {
            aliases.push_str(&format!("local a{i} = a{}\n", i - 1));
        }
        aliases.push_str("a39:total()\nlocal z = y\nlocal y = z\ny:total()\n");
        let files = [("alias.lua", aliases.as_str())];
        let total = crate::test_support::resolve_at(&files, "alias.lua", 43, 5);
        assert!(total.starts_with("total:"), "{total}");
        let cycle = [
            (
                "a.lua",
                "local b = require(\"b\")\nlocal M = {}\nfunction M.f() return b.g() + b.h() end\nreturn M\n",
            ),
            ("b.lua", "local a = require(\"a\")\nlocal M = {}\nfunction M.g() return a.f() end\nreturn M\n"),
        ];
        assert_eq!(
            super::super::bash::tests::resolve(&cycle)
                .into_iter()
                .filter(|l| l.contains("call"))
                .collect::<Vec<_>>(),
            ["a.lua:3 g method call -> b.lua:3 M.g", "b.lua:3 f method call -> a.lua:3 M.f"]
        );
        let bases = [
            (
                "a.lua",
                "local B = require(\"b\")\nlocal A = setmetatable({}, { __index = B })\nfunction A:f() return self:missing() end\nreturn A\n",
            ),
            (
                "b.lua",
                "local A = require(\"a\")\nlocal B = setmetatable({}, { __index = A })\nfunction B:g() return self:f() end\nreturn B\n",
            ),
        ];
        let at = |path, line, column| crate::test_support::resolve_at(&bases, path, line, column);
        assert_eq!(at("a.lua", 3, 28), "missing:");
        assert_eq!(at("b.lua", 3, 28), "f: method A.f (a.lua:3)");
    }
}
