//! Ruby: classes and modules (nested ones qualified with `::`, reopened across files), methods
//! and singleton methods (`def self.create`, a method of its class), constants; `include`,
//! `extend` and `prepend` make a module's methods members, as a superclass does. Every file sees
//! the repository's constants (one shared scope): `require` binds no name, and a constant is
//! looked up in the modules around its use (wherever they are reopened), then at the top level
//! (where several files define it, in those the file `require`s, directly or not, if any does).

mod ruby_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::shared_scope::{SharedScope, one_group};
use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Binder, Entry, Found, Lookup, MAX_DEPTH, Tables, Value, classes_around};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind};

pub(crate) struct Ruby;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Ruby,
    name: "ruby",
    extensions: &["rb", "rake"],
    interpreters: &["ruby"],
    build_scripts: &[".gemspec", "Gemfile", "Rakefile"],
    manifest: None,
    grammar: || tree_sitter_ruby::LANGUAGE.into(),
    comments: Comments { line: &["#"], block: Some(("=begin", "=end")), block_inner: None, not: &["#!"] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_non_bindings: &["call", "element_reference", "scope_resolution", "instance_variable"],
        pattern_skipped_fields: &["value", "right"],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/ruby/tags.scm"),
    names: include_str!("../../../queries/ruby/names.scm"),
    test_file_suffixes: &["_test.rb", "_spec.rb"],
    test_file_names: &["spec_helper.rb", "test_helper.rb", "rails_helper.rb"],
    surface_files: &[],
    separator: "::",
    // Calls that only declare (a mixin, an accessor, a visibility) or load a file.
    noise: &[
        "require",
        "require_relative",
        "include",
        "extend",
        "prepend",
        "attr_reader",
        "attr_writer",
        "attr_accessor",
        "private",
        "protected",
        "public",
        "module_function",
    ],
    std_methods: &[
        "<<", "each", "map", "select", "reject", "sum", "inject", "reduce", "fetch", "push", "pop", "join",
        "split", "strip", "include?", "empty?", "size", "length", "count", "first", "last", "keys", "values",
        "merge", "to_s", "to_i", "to_f", "to_a", "to_h", "freeze", "dup", "new",
    ],
    keywords: &[
        "BEGIN", "END", "alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else",
        "elsif", "end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not", "or", "redo",
        "rescue", "retry", "return", "then", "true", "undef", "unless", "until", "when", "while", "yield",
    ],
    preamble: &["#"],
    rules: Rules {
        attribute_names_members: false,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        // `class A < B`: `B` is looked up where the class statement stands.
        bases_outside_class: true,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "ruby",
    checks: ruby_checks::checks,
    runners: &["rspec-json", "minitest"],
};

impl Language for Ruby {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    /// A `def` directly in a class, module or `class << self` body is a method; elsewhere (the
    /// top level, a block) a function.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        if kind != DefKind::Method {
            return kind;
        }
        // method → body_statement → class
        let in_type = up[1].is_some_and(|c| matches!(c.kind(), "class" | "module" | "singleton_class"));
        if in_type { DefKind::Method } else { DefKind::Function }
    }

    /// `class Shop::Cart` is `Cart` inside `Shop`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        let name = def.child_by_field_name("name")?;
        if name.kind() != "scope_resolution" {
            return None;
        }
        let scope = name.child_by_field_name("scope")?;
        Some(node_text(scope, bytes).trim_start_matches("::").to_string())
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.name().starts_with('_')
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "to_s" | "inspect" | "==" | "eql?" | "hash" | "<=>" | "each" | "to_h" | "to_a")
    }

    fn constructor(&self) -> Option<&'static str> {
        Some("initialize")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class" | "module" | "singleton_class" => ScopeKind::Class,
            "method" | "singleton_method" => ScopeKind::Function,
            _ => ScopeKind::Lambda,
        }
    }

    /// A class's signature ends after its superclass, a module's after its name, a method's
    /// after its parameters (its body may start on the same line, or be an endless `= expr`).
    fn body_start(&self, def: Node) -> Option<usize> {
        let field = |name: &str| def.child_by_field_name(name).map(|n| n.end_byte());
        match def.kind() {
            "class" => field("superclass").or_else(|| field("name")),
            "module" => field("name"),
            "method" | "singleton_method" => field("parameters").or_else(|| field("name")),
            _ => def.child_by_field_name("body").map(|b| b.start_byte()),
        }
    }

    /// Ruby names no return type.
    fn return_type<'s>(&self, _signature: &'s str) -> Option<&'s str> {
        None
    }

    /// The first line of the `#` comment lines right above the definition.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        hash_comment_above(def.start_byte(), bytes)
    }

    /// A constant path as a chain (`Shop::Cart` → `Shop.Cart`), or a variable's name (what
    /// `b = a` makes `b` another name for); anything else is no type.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim().trim_start_matches("::");
        let ok = !text.is_empty()
            && text.split("::").all(|part| {
                part.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| text.replace("::", "."))
    }

    /// Ruby has no import statements tack decodes.
    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// `cart.total`, `Shop::Cart`, `Cart.new(…)` (an instance: `Cart()`), `self`: a chain the
    /// resolver follows; anything else is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// `require "shop/cart"` loads a file by a path the load path completes;
    /// `require_relative "cart"` one beside the file (kept as `./cart`). Neither binds a name:
    /// a name several files define means, from a file, the definitions of those it loads.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(method) = node.child_by_field_name("method") else { return };
        let Some(arguments) = node.child_by_field_name("arguments") else { return };
        let Some(string) = arguments.named_child(0).filter(|s| s.kind() == "string") else { return };
        let content = string.named_child(0).filter(|c| c.kind() == "string_content");
        let Some(content) = content.filter(|_| string.named_child_count() == 1) else { return };
        let path = node_text(content, bytes);
        let module = match node_text(method, bytes) {
            "require_relative" if !path.starts_with('.') && !path.starts_with('/') => format!("./{path}"),
            _ => path.to_string(),
        };
        out.push(RawImport::glob(module, string));
    }

    /// Classes, modules, methods and constants are all named in their scope.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A class or module body's methods and constants are visible everywhere in it; a local
    /// from its assignment on.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(RubyScope { shared: SharedScope::new(files, Lang::Ruby, &one_group).with_loads(files) })
    }
}

/// The first text line of the block of `#` lines that ends on the line right above `start`,
/// read line by line upwards (the file is not decoded whole for each definition).
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

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "identifier" | "constant" | "self" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "scope_resolution" => match Ruby.type_hint(node_text(node, bytes)) {
            Some(path) => {
                out.push_str(&path);
                true
            }
            None => false,
        },
        "call" => {
            let Some(method) = node.child_by_field_name("method") else { return false };
            let method = node_text(method, bytes);
            let Some(receiver) = node.child_by_field_name("receiver") else {
                out.push_str(method);
                out.push_str("()");
                return true;
            };
            if !chain(receiver, bytes, out) {
                return false;
            }
            // `Cart.new(…)` is an instance of `Cart`: a call of the class.
            if method != "new" {
                out.push('.');
                out.push_str(method);
            }
            out.push_str("()");
            true
        }
        "parenthesized_statements" => {
            let mut cursor = node.walk();
            let mut inner = node.named_children(&mut cursor);
            match (inner.next(), inner.next()) {
                (Some(only), None) => chain(only, bytes, out),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The shared scope with Ruby's constant lookup: a module is a namespace whose members are
/// reached as a class's are (so `include`d modules are bases), `self` is the instance of the
/// class around, and a name the file does not bind is looked up in the modules around its use
/// (every definition of each, wherever reopened), then in the innermost class's bases, then at
/// the top level.
struct RubyScope {
    shared: SharedScope,
}

impl RubyScope {
    /// The members named `name` of a class or module, in every file that (re)opens it, its
    /// bases left out.
    fn own_members(&self, r: &dyn Binder, file: u32, def: u32, name: &str, depth: u32) -> Vec<Found> {
        let own = r.children_named(file, def, name);
        if !own.is_empty() {
            return own;
        }
        // The shared scope's member lookup, without the bases: no base of a class is asked
        // while its own constants are being found.
        let ty = r.def(file, def);
        let mut found = Vec::new();
        if depth > MAX_DEPTH {
            return found;
        }
        for &(f, d) in r.defs_named(ty.name()).iter() {
            if (f, d) == (file, def) || r.lang(f) != Lang::Ruby {
                continue;
            }
            let other = r.def(f, d);
            if matches!(other.kind, DefKind::Class | DefKind::Module) && other.qualified() == ty.qualified() {
                found.extend(r.children_named(f, d, name));
            }
        }
        found
    }

    /// A bare name at `pos`: what the file binds around it (a local, a method or constant of
    /// the class it is in), else the members of the modules around it, else (when `bases`) the
    /// innermost class's inherited or mixed-in members, else a top-level definition anywhere.
    fn lookup(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32, bases: bool) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let lexical = r.lookup_lexical(file, pos, name, depth + 1);
        if lexical.iter().any(|f| f.target.file() == file) {
            return lexical;
        }
        for class in classes_around(r, file, pos) {
            let found = self.own_members(r, file, class, name, depth + 1);
            if !found.is_empty() {
                return found;
            }
        }
        if bases && let Some(class) = classes_around(r, file, pos).next() {
            let found = self.shared.type_member(r, file, class, name, depth + 1, true);
            if !found.is_empty() {
                return found;
            }
        }
        lexical
    }
}

impl Tables for RubyScope {
    /// Kept while no changed file's `require`s changed.
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        if self.shared.loads_kept(Lang::Ruby, before, files, changed) { Some(self) } else { None }
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.shared.module_named(name)
    }

    fn module_file(&self, r: &dyn Binder, file: u32, module: &str) -> Option<u32> {
        self.shared.module_file(r, file, module)
    }

    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        self.shared.unbound(r, file, name, depth)
    }

    /// A module is a namespace and a mixin: its members are found as a class's are, so that
    /// `include Taxable` makes `Taxable` a base.
    fn module_of_def(&self, _r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        Some(Value::Class(file, def))
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
        self.shared.module_member(r, file, def, name, depth, public)
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
        self.shared.type_member(r, file, def, name, depth, skip_own)
    }

    /// `self`: the instance of the class or module around.
    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        if name != "self" {
            return None;
        }
        classes_around(r, file, pos).next().map(|class| Value::Instance(file, class))
    }

    /// A chain's first name: `self`, else a constant or local as [`RubyScope::lookup`] finds
    /// it (bases left out: a base's own name is evaluated this way).
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if let Some(value) = self.receiver(r, file, pos, name) {
            return Some(value);
        }
        self.lookup(r, file, pos, name, depth, false).iter().find_map(|f| f.value)
    }

    /// A bare name or call: [`RubyScope::lookup`], the class's bases included (a method a
    /// superclass or a mixin defines is called bare).
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        let bases = !matches!(kind, RefKind::Inheritance);
        Some(Ok(self.lookup(r, file, pos, name, 0, bases)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    fn defs(src: &str) -> Vec<String> {
        crate::test_support::def_lines(Lang::Ruby, src)
    }

    const SHOP: &str = r#"# frozen_string_literal: true

module Shop
  # A customer's basket.
  #
  # Holds items.
  class Cart < Base
    include Taxable
    TAX = 0.2

    # A new cart.
    def self.create(owner)
      new(owner)
    end

    def total(code = nil)
      raw = @items.sum(&:subtotal)
      with_tax(Pricing.apply_discount(raw, code))
    end

    class << self
      def blank; end
    end
  end
end

class Shop::VipCart < Shop::Cart
  def total = super * 0.9
end

def helper(x)
  x
end
"#;

    #[test]
    fn definitions_are_qualified_kinded_and_documented() {
        assert_eq!(
            defs(SHOP),
            vec![
                "module Shop 3-25 | module Shop | -",
                "class Shop::Cart 7-24 | class Cart < Base | A customer's basket.",
                "constant Shop::Cart::TAX 9-9 | TAX = 0.2 | -",
                "method Shop::Cart::create 12-14 | def self.create(owner) | A new cart.",
                "method Shop::Cart::total 16-19 | def total(code = nil) | -",
                "method Shop::Cart::blank 22-22 | def blank | -",
                "class Shop::VipCart 27-29 | class Shop::VipCart < Shop::Cart | -",
                "method Shop::VipCart::total 28-28 | def total | -",
                "function helper 31-33 | def helper(x) | -",
            ]
        );
    }

    #[test]
    fn references_name_bases_mixins_and_calls() {
        let fs = extract(Lang::Ruby, SHOP);
        let refs: Vec<String> = fs
            .refs
            .iter()
            .map(|r| {
                let q = if r.qualifier == crate::names::NONE { "" } else { fs.text(r.qualifier) };
                format!("{}:{} {} {} {q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect();
        for expected in [
            "7:16 Base inheritance ",
            "8:13 Taxable inheritance ",
            "18:7 with_tax call ",
            "18:24 apply_discount method call Pricing",
            "18:16 Pricing name ",
            "27:29 Cart inheritance Shop",
        ] {
            assert!(refs.contains(&expected.to_string()), "missing {expected:?} in {refs:#?}");
        }
        assert!(!refs.iter().any(|r| r.contains(" include ")), "a mixin's call is noise");
    }

    #[test]
    fn new_hints_an_instance_and_chains_read_as_calls() {
        let src =
            "cart = Shop::Cart.new(\"ann\")\nother = Cart.new.add(1)\ncart.total\nCart.new(\"x\").total\n";
        let fs = extract(Lang::Ruby, src);
        let hints: Vec<String> = fs
            .bindings
            .iter()
            .map(|b| {
                let hint = if b.hint == crate::names::NONE { "-" } else { fs.text(b.hint) };
                format!("{} {hint}", fs.text(b.name))
            })
            .collect();
        assert_eq!(hints, vec!["cart Shop.Cart()", "other -"]);
        let qualifiers: Vec<&str> = fs
            .refs
            .iter()
            .filter(|r| r.qualifier != crate::names::NONE && fs.ref_name(r) == "total")
            .map(|r| fs.text(r.qualifier))
            .collect();
        assert_eq!(qualifiers, vec!["cart", "Cart()"]);
    }

    #[test]
    fn type_hints_are_constant_paths() {
        assert_eq!(Ruby.type_hint("Shop::Cart").as_deref(), Some("Shop.Cart"));
        assert_eq!(Ruby.type_hint("::Cart").as_deref(), Some("Cart"));
        assert_eq!(Ruby.type_hint("cart").as_deref(), Some("cart"));
        assert_eq!(Ruby.type_hint("cart.total"), None);
        assert_eq!(Ruby.type_hint("@items"), None);
        assert_eq!(Ruby.return_type("def total -> x"), None);
    }

    #[test]
    fn deep_nesting_finishes() {
        let mut src = String::new();
        for i in 0..300 {
            src.push_str(&format!("module M{i}\n"));
        }
        src.push_str("def f; end\n");
        for _ in 0..300 {
            src.push_str("end\n");
        }
        let fs = extract(Lang::Ruby, &src);
        // Either extracted or refused as too deep, but finished.
        assert!(fs.defs.len() == 301 || fs.too_deep.is_some());
    }

    fn snapshot(files: &[(&str, &str)]) -> crate::snapshot::Snapshot {
        crate::snapshot::Snapshot::from_entries(files.iter().map(|(path, text)| FileEntry {
            path: path.to_string(),
            lang: Lang::Ruby,
            size: text.len() as u64,
            mtime_ns: 0,
            hash: [0; 16],
            lines: text.lines().count() as u32,
            symbols: extract(Lang::Ruby, text),
        }))
    }

    /// Each reference named `name` in `path`, with what it resolves to (as qualified names) and
    /// how many candidates it has.
    fn resolved(snapshot: &crate::snapshot::Snapshot, path: &str, name: &str) -> Vec<String> {
        let resolver = snapshot.resolver();
        let file = resolver.file_index(path).expect("a fixture path");
        let symbols = &resolver.entry(file).symbols;
        symbols
            .refs
            .iter()
            .filter(|r| symbols.ref_name(r) == name)
            .map(|r| {
                let found = resolver.resolve_ref(file, &r);
                let targets: Vec<String> = found
                    .resolved
                    .iter()
                    .map(|t| match *t {
                        crate::meaning::Target::Def { file, def } => {
                            resolver.entry(file).symbols.defs.at(def as usize).qualified().to_string()
                        }
                        other => format!("{other:?}"),
                    })
                    .collect();
                format!("{}: {} +{}", r.line, targets.join(", "), found.candidates.len())
            })
            .collect()
    }

    #[test]
    fn constants_resolve_through_reopened_modules_mixins_and_aliases() {
        let snapshot = snapshot(&[
            (
                "lib/shop/cart.rb",
                "module Shop\n  class Cart\n    include Taxable\n    def total\n      with_tax(1)\n    end\n  end\nend\n",
            ),
            ("lib/shop/taxable.rb", "module Shop\n  module Taxable\n    def with_tax(x) = x\n  end\nend\n"),
            (
                "lib/shop/use.rb",
                "module Shop\n  class Use\n    def run\n      a = Cart.new\n      b = a\n      c = b\n      c.total\n      Shop::Cart.new.with_tax(2)\n    end\n  end\nend\n",
            ),
        ]);
        assert_eq!(
            resolved(&snapshot, "lib/shop/cart.rb", "with_tax"),
            vec!["5: Shop::Taxable::with_tax +0"]
        );
        assert_eq!(resolved(&snapshot, "lib/shop/cart.rb", "Taxable"), vec!["3: Shop::Taxable +0"]);
        assert_eq!(resolved(&snapshot, "lib/shop/use.rb", "total"), vec!["7: Shop::Cart::total +0"]);
        assert_eq!(resolved(&snapshot, "lib/shop/use.rb", "with_tax"), vec!["8: Shop::Taxable::with_tax +0"]);
    }

    /// Classes that inherit from each other and modules that include each other, across files
    /// (Ruby's `require`s may form the same cycle): every lookup finishes.
    #[test]
    fn cyclic_bases_and_mixins_finish() {
        let snapshot = snapshot(&[
            (
                "a.rb",
                "require_relative \"b\"\nclass A < B\n  include M\n  def f = g + missing\nend\nmodule M\n  include N\nend\n",
            ),
            (
                "b.rb",
                "require_relative \"a\"\nclass B < A\n  def g = f + missing\nend\nmodule N\n  include M\n  def n = absent\nend\n",
            ),
        ]);
        assert_eq!(resolved(&snapshot, "a.rb", "g"), vec!["4: B::g +0"]);
        assert_eq!(resolved(&snapshot, "a.rb", "missing"), vec!["4:  +0"]);
        assert_eq!(resolved(&snapshot, "b.rb", "absent"), vec!["7:  +0"]);
    }

    /// Two classes of one name: a file that `require`s one (or `require_relative`s it, or loads
    /// a file that does) means that one; a file that loads neither, both.
    #[test]
    fn a_name_two_files_define_means_the_one_the_file_requires() {
        let cart = "class Cart\n  def total = 1\nend\n";
        let fake = "class Cart\n  def total = 0\nend\n";
        let files = [
            ("lib/shop/cart.rb", cart),
            ("spec/support/cart.rb", fake),
            ("lib/shop.rb", "require \"shop/cart\"\n"),
            ("lib/checkout.rb", "require \"shop\"\nCart.new\n"),
            ("spec/cart_spec.rb", "require_relative \"support/cart\"\nCart.new\n"),
            ("bin/loose.rb", "Cart.new\n"),
        ];
        let at = |path| crate::test_support::resolve_at(&files, path, 2, 1);
        assert_eq!(at("lib/checkout.rb"), "Cart: class Cart (lib/shop/cart.rb:1)");
        assert_eq!(at("spec/cart_spec.rb"), "Cart: class Cart (spec/support/cart.rb:1)");
        assert_eq!(
            crate::test_support::resolve_at(&files, "bin/loose.rb", 1, 1),
            "Cart: class Cart (lib/shop/cart.rb:1) class Cart (spec/support/cart.rb:1)"
        );
    }
}
