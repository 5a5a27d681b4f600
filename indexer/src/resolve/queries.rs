//! What the tools ask of name resolution: the name at a position and what it means, the
//! definitions a symbol as written names, a target's definition lines, references, callers and
//! callees, and how a target is described. Answers are [`Hit`]s and [`Resolution`]s.

use std::collections::BTreeSet;

use super::{Key, Resolver, dedup};
use crate::lang::LANGUAGES;
use crate::meaning::{Found, Target, is_marker};
use crate::names::{BindKind, NONE, Pos, ScopeKind};
use crate::snapshot::shown_path;
use crate::symbols::RefKind;

/// How a line relates to the symbol asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    Definition,
    Call,
    Import,
    TypeUse,
    Inheritance,
    Reference,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Definition => "definition",
            Relation::Call => "call",
            Relation::Import => "import",
            Relation::TypeUse => "type use",
            Relation::Inheritance => "inheritance",
            Relation::Reference => "reference",
        }
    }

    fn of(kind: RefKind) -> Relation {
        match kind {
            RefKind::Call | RefKind::MethodCall => Relation::Call,
            RefKind::Import => Relation::Import,
            RefKind::Type => Relation::TypeUse,
            RefKind::Inheritance => Relation::Inheritance,
            RefKind::Name | RefKind::Attribute => Relation::Reference,
        }
    }
}

/// One line of an answer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub relation: Relation,
    /// The qualified name of the enclosing definition (for a definition, its own), or `None` at
    /// module level.
    pub symbol: Option<String>,
}

/// What a name resolves to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Bound by name resolution.
    pub resolved: Vec<Target>,
    /// Same name, but the receiver's type is unknown.
    pub candidates: Vec<Target>,
    /// Why nothing was found, when it is worth saying (a module outside the repository).
    pub note: Option<String>,
}

/// What stands at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtPosition {
    /// The name under the cursor.
    pub name: String,
    pub resolution: Resolution,
}

impl Resolver {
    /// The name at a 1-based position and what it means; `None` when no name starts or ends
    /// there.
    pub fn at(&self, file: u32, pos: Pos) -> Option<AtPosition> {
        let symbols = self.symbols(file);
        // A definition's own name.
        for (d, def) in symbols.defs.iter().enumerate() {
            if def.line == pos.line && name_spans(def.header(), def.name(), pos.column) {
                return Some(AtPosition {
                    name: def.name().to_string(),
                    resolution: Resolution {
                        resolved: vec![self.canonical(Target::Def { file, def: d as u32 })],
                        ..Default::default()
                    },
                });
            }
        }
        // A reference.
        let first = symbols.refs.first_at_or_after(pos.line);
        for r in symbols.refs.iter().skip(first).take_while(|r| r.line == pos.line) {
            let name = symbols.ref_name(&r);
            if r.column() <= pos.column && pos.column <= r.column() + name.len() as u32 {
                return Some(AtPosition { name: name.to_string(), resolution: self.resolve_ref(file, &r) });
            }
        }
        // An import before a binding at the same place (`const { f } = require('./m')`
        // binds `f` both ways): the import says where it comes from.
        for (i, import) in symbols.imports.iter().enumerate() {
            let name = symbols.text(import.bound);
            if import.bound != NONE
                && import.line == pos.line
                && import.column <= pos.column
                && pos.column <= import.column + name.len() as u32
            {
                let itself = Target::Import { file, import: i as u32 };
                let found: Vec<Found> = self
                    .follow_import(file, i as u32, 0)
                    .into_iter()
                    .filter(|f| f.target != itself)
                    .collect();
                return Some(AtPosition {
                    name: name.to_string(),
                    resolution: self.resolution(found, file, i),
                });
            }
        }
        // A binding that is not also a reference (a `self` parameter, an import alias).
        for (b, binding) in symbols.bindings.iter().enumerate() {
            let name = symbols.text(binding.name);
            if binding.line == pos.line
                && binding.column <= pos.column
                && pos.column <= binding.column + name.len() as u32
            {
                let target = Target::Binding { file, binding: b as u32 };
                return Some(AtPosition {
                    name: name.to_string(),
                    resolution: Resolution { resolved: vec![target], ..Default::default() },
                });
            }
        }
        None
    }

    /// A bare name the index kept no reference for (`self`, a name inside an f-string), read by
    /// the caller from the source at a position: what it means there.
    pub fn resolve_name(&self, file: u32, pos: Pos, name: &str) -> Resolution {
        let found = self.lookup_lexical(file, pos, name, 0);
        Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() }
    }

    fn resolution(&self, found: Vec<Found>, file: u32, import: usize) -> Resolution {
        let mut resolution =
            Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() };
        if resolution.resolved.is_empty() {
            let symbols = self.symbols(file);
            let import = &symbols.imports[import];
            resolution.note = Some(format!(
                "{} is imported from {}, which is outside the repository",
                symbols.text(import.bound),
                self.import_source(file, import)
            ));
        }
        resolution
    }

    fn import_source(&self, file: u32, import: &crate::names::Import) -> String {
        self.tables(file).import_source(self.symbols(file), import)
    }

    /// Definitions whose name matches a symbol as written: a qualified name (`Cart.add`,
    /// `shapes::Circle::new`, `shop.cart.Cart`), or a bare name.
    pub fn lookup_symbol(&self, query: &str) -> Vec<Target> {
        let query = query.trim().trim_end_matches("()");
        if query.is_empty() {
            return Vec::new();
        }
        let last = query.rsplit(['.', ':', '\\']).next().unwrap_or(query);
        // Separators as one, so that a name written in another language's way still names it
        // (`App\Shop\Cart::total`, `Cart.total` for PHP's `Cart::total`).
        let unified = |q: &str| q.replace("::", ".").replace('\\', ".");
        let want = unified(query);
        let mut exact = Vec::new();
        let mut suffix = Vec::new();
        for &(file, d) in self.defs_by_name.get(last).iter() {
            let def = self.def(file, d);
            let sep = self.lang(file).spec().separator;
            let qualified = def.qualified();
            // Qualified names with the file's module path too: `shapes::circle::Circle::new`.
            let with_module = self.tables(file).module_path(file).map(|m| join(&m, def.qualified(), sep));
            let forms: Vec<String> = [Some(qualified.to_string()), with_module]
                .into_iter()
                .flatten()
                .map(|q| unified(&q))
                .collect();
            if forms.contains(&want) {
                exact.push(self.canonical(Target::Def { file, def: d }));
            } else if forms.iter().any(|q| q.ends_with(&format!(".{want}"))) {
                suffix.push(self.canonical(Target::Def { file, def: d }));
            }
        }
        if !exact.is_empty() {
            return dedup(exact);
        }
        // A path through re-exports (`shapes::Circle::new` where `shapes` re-exports `Circle`),
        // in each language whose separator the query uses.
        let through: Vec<Target> = LANGUAGES
            .iter()
            .zip(&self.tables)
            .filter(|(language, _)| query.contains(language.spec().separator))
            .flat_map(|(_, tables)| tables.lookup_path(self, query))
            .collect();
        if !through.is_empty() {
            return dedup(through.into_iter().map(|t| self.canonical(t)));
        }
        if !suffix.is_empty() {
            return dedup(suffix);
        }
        // A module by its name or path.
        dedup(self.tables.iter().flat_map(|t| t.module_named(query)).map(|file| Target::Module { file }))
    }

    /// The lines that define a target: a definition's header, every binding of a variable.
    pub fn definition_hits(&self, target: Target) -> Vec<Hit> {
        match target {
            Target::Def { file, def } => {
                let d = self.def(file, def);
                vec![Hit {
                    file,
                    line: d.line,
                    column: 1,
                    relation: Relation::Definition,
                    symbol: Some(d.qualified().to_string()),
                }]
            }
            Target::Module { file } => vec![Hit {
                file,
                line: 1,
                column: 1,
                relation: Relation::Definition,
                symbol: self.module_label(file),
            }],
            Target::Binding { file, binding } => {
                let b = self.symbols(file).bindings[binding as usize];
                vec![Hit {
                    file,
                    line: b.line,
                    column: b.column,
                    relation: Relation::Definition,
                    symbol: self.scope_symbol(file, b.scope),
                }]
            }
            Target::Import { file, import } => {
                let i = self.symbols(file).imports[import as usize];
                vec![Hit {
                    file,
                    line: i.line,
                    column: i.column,
                    relation: Relation::Import,
                    symbol: self.scope_symbol(file, i.scope),
                }]
            }
        }
    }

    fn module_label(&self, file: u32) -> Option<String> {
        self.tables(file).module_path(file).filter(|p| !p.is_empty())
    }

    /// The qualified name of the definition a scope belongs to (the nearest one up).
    fn scope_symbol(&self, file: u32, mut scope: u32) -> Option<String> {
        let symbols = self.symbols(file);
        while scope != NONE {
            let s = symbols.scopes[scope as usize];
            if s.def != NONE {
                return Some(symbols.defs.at(s.def as usize).qualified().to_string());
            }
            scope = s.parent;
        }
        None
    }

    /// A short description: `class Cart (shop/cart.py:7)`.
    pub fn describe(&self, target: Target) -> String {
        match target {
            Target::Def { file, def } => {
                let d = self.def(file, def);
                format!("{} {} ({}:{})", d.kind.as_str(), d.qualified(), shown_path(self.path(file)), d.line)
            }
            Target::Module { file } => format!("module {}", shown_path(self.path(file))),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                let b = symbols.bindings[binding as usize];
                let what = match b.kind {
                    BindKind::Param | BindKind::SelfParam => "parameter",
                    BindKind::Attribute => "attribute",
                    BindKind::Field => "field",
                    _ if symbols.scopes[b.scope as usize].kind == ScopeKind::Class => "attribute",
                    _ if b.scope == 0 => "variable",
                    _ => "local variable",
                };
                format!("{what} {} ({}:{})", symbols.text(b.name), shown_path(self.path(file)), { b.line })
            }
            Target::Import { file, import } => {
                let symbols = self.symbols(file);
                let i = symbols.imports[import as usize];
                format!(
                    "{} imported from {} ({}:{})",
                    symbols.text(i.bound),
                    self.import_source(file, &i),
                    self.path(file),
                    { i.line }
                )
            }
        }
    }

    /// The name a target is referred to by.
    pub fn target_name(&self, target: Target) -> String {
        match target {
            Target::Def { file, def } => self.def(file, def).name().to_string(),
            Target::Module { file } => crate::lang::module_name(self.path(file)).to_string(),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                symbols.text(symbols.bindings[binding as usize].name).to_string()
            }
            Target::Import { file, import } => {
                let symbols = self.symbols(file);
                symbols.text(symbols.imports[import as usize].bound).to_string()
            }
        }
    }

    /// Every reference to `target`: resolved ones, and candidates (same name, receiver unknown).
    /// The definition lines come first among the resolved.
    pub fn references(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let target = self.canonical(target);
        let key = self.key(target);
        let name = self.target_name(target);
        let mut resolved: BTreeSet<Hit> = BTreeSet::new();
        let mut candidates: BTreeSet<Hit> = BTreeSet::new();
        let definitions = self.definition_lines(target);
        let def_positions: BTreeSet<(u32, u32)> = definitions.iter().map(|h| (h.file, h.line)).collect();
        for &file in self.files_by_ref().get(&name).iter() {
            let symbols = self.symbols(file);
            let Some(id) = self.name_id(file, &name) else { continue };
            for r in symbols.refs.iter().filter(|r| r.name == id) {
                let resolution = self.resolve_ref(file, &r);
                let hit = || Hit {
                    file,
                    line: r.line,
                    column: r.column(),
                    relation: Relation::of(r.kind()),
                    symbol: r.enclosing().map(|d| symbols.defs.at(d as usize).qualified().to_string()),
                };
                if resolution.resolved.iter().any(|t| self.key(*t) == key) {
                    if !def_positions.contains(&(file, r.line)) {
                        resolved.insert(hit());
                    }
                } else if resolution.candidates.iter().any(|t| self.key(*t) == key) {
                    candidates.insert(hit());
                }
            }
        }
        let mut out = definitions;
        out.extend(resolved);
        (out, candidates.into_iter().collect())
    }

    /// The definition lines of a target; every binding of a variable.
    fn definition_lines(&self, target: Target) -> Vec<Hit> {
        match self.key(target) {
            Key::Var(file, scope, name) => {
                let symbols = self.symbols(file);
                let ctx = self.ctx(file);
                let mut hits: Vec<Hit> = symbols
                    .bindings
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.scope == scope && symbols.text(b.name) == name && !is_marker(b.kind))
                    .flat_map(|(i, _)| self.definition_hits(Target::Binding { file, binding: i as u32 }))
                    .chain(
                        symbols
                            .defs
                            .iter()
                            .enumerate()
                            .filter(|(i, d)| ctx.def_scope.at(*i) == scope && d.name() == name)
                            .flat_map(|(i, _)| self.definition_hits(Target::Def { file, def: i as u32 })),
                    )
                    .collect();
                hits.sort_by_key(|h| (h.line, h.column));
                hits.dedup_by_key(|h| h.line);
                hits
            }
            _ => self.definition_hits(target),
        }
    }

    /// Where a function is called from (resolved and candidates).
    pub fn callers(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let (resolved, candidates) = self.references(target);
        let calls = |hits: Vec<Hit>| hits.into_iter().filter(|h| h.relation == Relation::Call).collect();
        (calls(resolved), calls(candidates))
    }

    /// What a function calls: the definitions its calls resolve to (resolved and candidates).
    pub fn callees(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let Target::Def { file, def } = target else { return (Vec::new(), Vec::new()) };
        let symbols = self.symbols(file);
        let inside = |mut d: Option<u32>| {
            while let Some(x) = d {
                if x == def {
                    return true;
                }
                d = symbols.defs[x as usize].parent();
            }
            false
        };
        let mut resolved: Vec<Target> = Vec::new();
        let mut candidates: Vec<Target> = Vec::new();
        for r in symbols.refs.iter().filter(|r| matches!(r.kind(), RefKind::Call | RefKind::MethodCall)) {
            if !inside(r.enclosing()) {
                continue;
            }
            let resolution = self.resolve_ref(file, &r);
            resolved.extend(resolution.resolved);
            candidates.extend(resolution.candidates);
        }
        // What is called is a function, a class or a name imported from outside; a call of a
        // parameter or a variable (a callback) says nothing about which code runs.
        let callable = |t: &Target| matches!(t, Target::Def { .. } | Target::Import { .. });
        let resolved: Vec<Target> = dedup(resolved).into_iter().filter(callable).collect();
        let candidates: Vec<Target> =
            dedup(candidates).into_iter().filter(|t| callable(t) && !resolved.contains(t)).collect();
        let hits = |targets: Vec<Target>| {
            let mut hits: Vec<Hit> = targets
                .into_iter()
                .flat_map(|t| self.definition_hits(t))
                .map(|h| Hit { relation: Relation::Call, ..h })
                .collect();
            hits.sort();
            hits.dedup();
            hits
        };
        (hits(resolved), hits(candidates))
    }
}

/// Whether the first whole-word `name` in `header` (the definition's own name: `def name`,
/// `pub fn name`) lies over the 1-based byte column `column`.
fn name_spans(header: &str, name: &str, column: u32) -> bool {
    let column = column as usize;
    header
        .match_indices(name)
        .find(|(i, _)| {
            let before_ok = !header[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let after_ok = !header[i + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            before_ok && after_ok
        })
        .is_some_and(|(i, _)| i < column && column <= i + name.len() + 1)
}

fn join(prefix: &str, rest: &str, sep: &str) -> String {
    if prefix.is_empty() { rest.to_string() } else { format!("{prefix}{sep}{rest}") }
}
