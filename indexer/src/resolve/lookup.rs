//! Binding one reference: a bare name through the lexical scopes by the language's rules, then
//! glob imports and what the language's tables know; a qualified one by evaluating its
//! qualifier to a [`Value`] and looking its member up; candidates when the receiver's type is
//! unknown. Every chase is bounded by `MAX_DEPTH`.

use super::queries::Resolution;
use super::{Key, Resolver, dedup};
use crate::lang::Reach;
use crate::meaning::{
    Bound, Entry, Following, Found, MAX_DEPTH, Target, Value, is_marker, step, step_following,
};
use crate::names::{BindKind, NONE, Pos, ScopeKind};
use crate::symbols::{DefKind, Ref, RefKind, innermost_scope};

impl Resolver {
    /// A Python constant is a definition and a binding at once; the binding is its identity.
    pub(super) fn canonical(&self, target: Target) -> Target {
        if let Target::Def { file, def } = target {
            let d = self.def(file, def);
            if self.lang(file).spec().rules.defs_are_assignments && d.kind == DefKind::Constant {
                let symbols = self.symbols(file);
                if let Some(b) = symbols
                    .bindings
                    .iter()
                    .position(|b| b.scope == 0 && b.line == d.line && symbols.text(b.name) == d.name())
                {
                    return Target::Binding { file, binding: b as u32 };
                }
            }
        }
        target
    }

    pub(super) fn key(&self, target: Target) -> Key {
        match self.canonical(target) {
            // Where definitions are assignments, a function or class is a variable of its scope
            // too: every `def f` of one scope (in the branches of an `if`, redefined later) is
            // the same name.
            Target::Def { file, def } => match self.ctx(file).def_scope.at(def as usize) {
                scope if scope != NONE && self.lang(file).spec().rules.defs_are_assignments => {
                    Key::Var(file, scope, self.def(file, def).name().to_string())
                }
                _ => Key::Def(file, def),
            },
            Target::Module { file } => Key::Module(file),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                let b = symbols.bindings[binding as usize];
                Key::Var(file, b.scope, symbols.text(b.name).to_string())
            }
            Target::Import { file, import } => Key::Import(file, import),
        }
    }

    /// What one reference means.
    pub fn resolve_ref(&self, file: u32, r: &Ref) -> Resolution {
        self.resolve_ref_within(file, r, usize::MAX)
    }

    /// What one reference means, with at most `most + 1` candidates: enough to tell that there
    /// are more than `most` without listing every definer of a name such as `new` (on a large
    /// workspace, thousands, for each of its references).
    pub fn resolve_ref_within(&self, file: u32, r: &Ref, most: usize) -> Resolution {
        let symbols = self.symbols(file);
        let name = symbols.ref_name(r);
        let pos = Pos::new(r.line, r.column());
        let lang = self.lang(file);
        if r.qualifier == NONE {
            let found = match self.tables(file).bare_ref(self, file, pos, name, r.kind()) {
                Some(Ok(found)) => found,
                Some(Err(note)) => return Resolution { note: Some(note), ..Default::default() },
                None => self.lookup_lexical(file, pos, name, 0),
            };
            let resolved: Vec<Target> = dedup(found.iter().map(|f| f.target));
            if let [Target::Binding { file: f, binding }] = resolved[..]
                && let Some(provided) = self.provided(f, binding, name, most)
            {
                return provided;
            }
            if resolved.is_empty()
                && lang.spec().rules.external_globs_give_candidates
                && self.has_external_glob(file)
            {
                return Resolution { candidates: self.candidates(file, r, most), ..Default::default() };
            }
            return Resolution { resolved, ..Default::default() };
        }
        // `f(name=…)`: the parameter of the function called.
        if let Some(callee) = symbols.text(r.qualifier).strip_suffix('(') {
            return Resolution { resolved: self.parameter_of(file, pos, callee, name), ..Default::default() };
        }
        let qualifier = symbols.text(r.qualifier);
        // Where an attribute is a field it is never a method: it is the field its receiver's
        // type declares in its body (a Rust struct's, a Java class's), when that type is known.
        if !lang.spec().rules.attribute_names_members && r.kind() == RefKind::Attribute {
            let Some(Value::Instance(f, d) | Value::Class(f, d)) = self.eval_chain(file, pos, qualifier, 0)
            else {
                return Resolution::default();
            };
            return Resolution { resolved: self.fields_named(f, d, name), ..Default::default() };
        }
        let base = match self.tables(file).import_base(self, file, qualifier, name, r.kind()) {
            Some(Ok(base)) => Some(base),
            Some(Err(note)) => return Resolution { note: Some(note), ..Default::default() },
            None => self.eval_chain(file, pos, qualifier, 0),
        };
        let Some(base) = base else {
            return Resolution { candidates: self.candidates(file, r, most), ..Default::default() };
        };
        if let Value::External(_) = base {
            return Resolution {
                note: Some(format!("{qualifier} is outside the repository")),
                ..Default::default()
            };
        }
        let found = self.member(base, name, 0);
        if !found.is_empty() {
            return Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() };
        }
        match base {
            // A module's missing name is outside what the index can see, not a guess.
            Value::Module(..) => Resolution::default(),
            _ => Resolution { candidates: self.candidates(file, r, most), ..Default::default() },
        }
    }

    /// The fields named `name` that type `def` of `file` declares in its body, as targets: any
    /// binding of the type's own scope, since Java's fields are its class's variables where
    /// Rust's, Go's and TypeScript's are `@local.field` bindings
    /// ([`crate::meaning::declared_fields`] finds those with their values, for a member).
    fn fields_named(&self, file: u32, def: u32, name: &str) -> Vec<Target> {
        let scope = self.ctx(file).own_scope.at(def as usize);
        let symbols = self.symbols(file);
        let Some(id) = self.name_id(file, name).filter(|_| scope != NONE) else { return Vec::new() };
        if symbols.scopes[scope as usize].kind != ScopeKind::Class {
            return Vec::new();
        }
        let fields = self.ctx(file).entries_of(scope, id).iter().filter_map(|e| match e.bound() {
            Bound::Binding(binding) => Some(Target::Binding { file, binding }),
            _ => None,
        });
        dedup(fields)
    }

    /// What a parameter means when a test framework fills it by name (a pytest test's or
    /// fixture's `tmp_path`): the definitions of its name that provide one and that it can
    /// see, the nearest as the framework looks them up. In its own file, those of a class
    /// around the function, then those at the top; else those of the files that provide to
    /// their folder ([`Reach::Folder`], a `conftest.py`) in the nearest folder holding its
    /// file; else those of the files that provide anywhere (a plugin's), resolved when there
    /// is one and candidates when more. `None` for any other binding, or when nothing it can
    /// see of the name provides.
    fn provided(&self, file: u32, binding: u32, name: &str, most: usize) -> Option<Resolution> {
        let symbols = self.symbols(file);
        let b = symbols.bindings.get(binding as usize)?;
        if b.kind != BindKind::Param {
            return None;
        }
        let providers = self.providers_by_name.get(name);
        if providers.is_empty() {
            return None;
        }
        let function = symbols.scopes.get(b.scope as usize).map(|s| s.def).filter(|&d| d != NONE)?;
        if !self.lang(file).language().fills_parameters(self.path(file), self.def(file, function)) {
            return None;
        }
        let family = self.lang(file).spec().family;
        // The definitions around the function, innermost first: a class's providers serve the
        // tests inside it.
        let mut around: Vec<u32> = Vec::new();
        let mut at = self.def(file, function).parent();
        while let Some(p) = at {
            around.push(p);
            at = self.def(file, p).parent();
        }
        let folder = |f: u32| self.path(f).rsplit_once('/').map_or("", |(dir, _)| dir);
        let own = folder(file);
        let holds_own = |dir: &str| {
            dir.is_empty() || own == dir || own.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
        };
        // How near a provider is; 0 for one the parameter cannot see.
        let nearness = |f: u32, d: u32| -> usize {
            let parent = self.def(f, d).parent();
            if f == file {
                match parent {
                    None => usize::MAX - around.len() - 1,
                    Some(p) => around.iter().position(|&a| a == p).map_or(0, |i| usize::MAX - i),
                }
            } else if parent.is_some() {
                0
            } else {
                let path = self.path(f);
                let name = path.rsplit('/').next().unwrap_or(path);
                match self.lang(f).language().provider_reach(name) {
                    Reach::Folder if holds_own(folder(f)) => 2 + folder(f).len(),
                    Reach::Anywhere => 1,
                    _ => 0,
                }
            }
        };
        let providers: Vec<(u32, u32, usize)> = providers
            .iter()
            .copied()
            .filter(|&(f, d)| (f, d) != (file, function) && self.lang(f).spec().family == family)
            .map(|(f, d)| (f, d, nearness(f, d)))
            .filter(|p| p.2 > 0)
            .collect();
        let nearest = providers.iter().map(|p| p.2).max()?;
        let targets: Vec<Target> = providers
            .iter()
            .filter(|p| p.2 == nearest)
            .map(|&(f, d, _)| Target::Def { file: f, def: d })
            .take(most.saturating_add(1))
            .collect();
        Some(if nearest > 1 || targets.len() == 1 {
            Resolution { resolved: targets, ..Default::default() }
        } else {
            Resolution { candidates: targets, ..Default::default() }
        })
    }

    /// The parameter `name` of the function (or the class's `__init__`) a callee names.
    fn parameter_of(&self, file: u32, pos: Pos, callee: &str, name: &str) -> Vec<Target> {
        let function = match self.eval_chain(file, pos, callee, 0) {
            Some(Value::Function(f, d)) => Some((f, d)),
            Some(Value::Class(f, d)) => self.lang(f).language().constructor().and_then(|constructor| {
                self.member(Value::Class(f, d), constructor, 1).iter().find_map(|found| match found.value {
                    Some(Value::Function(f, d)) => Some((f, d)),
                    _ => None,
                })
            }),
            _ => None,
        };
        let Some((f, d)) = function else { return Vec::new() };
        let scope = self.ctx(f).own_scope.at(d as usize);
        let symbols = self.symbols(f);
        symbols
            .bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| b.scope == scope && b.kind == BindKind::Param && symbols.text(b.name) == name)
            .map(|(i, _)| Target::Binding { file: f, binding: i as u32 })
            .take(1)
            .collect()
    }

    /// Definitions (and Python class attributes) with the reference's name that its kind can mean,
    /// the first `most + 1` of them.
    fn candidates(&self, file: u32, r: &Ref, most: usize) -> Vec<Target> {
        let lang = self.lang(file);
        let name = self.symbols(file).ref_name(r);
        let defs = self.defs_by_name.get(name);
        let members = lang.spec().rules.attribute_names_members
            && matches!(r.kind(), RefKind::Attribute | RefKind::MethodCall);
        let attrs = if members { self.attrs_by_name.get(name) } else { std::borrow::Cow::Borrowed(&[][..]) };
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<Target> = defs
            .iter()
            .filter(|&&(f, d)| {
                self.lang(f).spec().family == lang.spec().family
                    && r.kind().can_mean(lang, self.def(f, d).kind)
            })
            .map(|&(f, d)| self.canonical(Target::Def { file: f, def: d }))
            .chain(attrs.iter().map(|&(f, b)| Target::Binding { file: f, binding: b }))
            .filter(|t| seen.insert(self.key(*t)))
            .take(most.saturating_add(1))
            .collect();
        out.sort();
        out
    }

    fn has_external_glob(&self, file: u32) -> bool {
        let symbols = self.symbols(file);
        symbols.imports.iter().any(|i| {
            i.glob
                && i.scope == 0
                && self.tables(file).glob_base(self, file, 0, symbols.text(i.module), 0).is_none()
        })
    }

    /// A bare name at a position: the innermost binding that is visible there.
    pub(crate) fn lookup_lexical(&self, file: u32, pos: Pos, name: &str, depth: u32) -> Vec<Found> {
        let Some(_step) = step() else {
            return Vec::new();
        };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let lang = self.lang(file);
        let symbols = self.symbols(file);
        let Some(id) = self.name_id(file, name) else {
            return self.lookup_beyond(file, 0, name, depth);
        };
        let mut start = innermost_scope(&symbols.scopes, pos);
        // A class's bases may be looked up where the class statement stands, not in its body.
        let header = symbols.scopes[start as usize];
        let rules = lang.spec().rules;
        if rules.bases_outside_class && header.kind == ScopeKind::Class && header.start.line == pos.line {
            start = header.parent;
        }
        let mut scope = start;
        loop {
            let s = symbols.scopes[scope as usize];
            // A class body may be invisible from the functions nested in it.
            let visible = !(rules.class_body_closed && s.kind == ScopeKind::Class && scope != start);
            if visible {
                let mut entries = std::borrow::Cow::Borrowed(self.ctx(file).entries_of(scope, id));
                // A field is reached through its type, never by its bare name (Go's `Owner Owner`
                // names the type `Owner` in the struct's body).
                let field = |e: &Entry| matches!(e.bound(), Bound::Binding(b) if symbols.bindings[b as usize].kind == BindKind::Field);
                if entries.iter().any(field) {
                    entries =
                        std::borrow::Cow::Owned(entries.iter().filter(|e| !field(e)).copied().collect());
                }
                if !entries.is_empty() {
                    let marker = entries.iter().find_map(|e| match e.bound() {
                        Bound::Binding(b) if is_marker(symbols.bindings[b as usize].kind) => {
                            Some(symbols.bindings[b as usize].kind)
                        }
                        _ => None,
                    });
                    if let Some(marker) = marker {
                        if marker == BindKind::Global {
                            return self.module_scope_lookup(file, id, name, depth);
                        }
                        // `nonlocal`: keep looking outward.
                        if s.parent == NONE {
                            break;
                        }
                        scope = s.parent;
                        continue;
                    }
                    let chosen = lang.language().visible(&entries, symbols, pos, scope == start);
                    let found: Vec<Found> =
                        chosen.iter().flat_map(|e| self.entry_found(file, *e, depth)).collect();
                    if !found.is_empty() || rules.first_binding_scope_wins {
                        return found;
                    }
                }
            }
            if rules.module_scope_is_closed && s.kind == ScopeKind::Module {
                return self.lookup_beyond(file, scope, name, depth);
            }
            if s.parent == NONE {
                break;
            }
            scope = s.parent;
        }
        self.lookup_beyond(file, 0, name, depth)
    }

    fn module_scope_lookup(&self, file: u32, id: u32, name: &str, depth: u32) -> Vec<Found> {
        let entries = self.ctx(file).entries_of(0, id);
        let found: Vec<Found> = entries
            .iter()
            .filter(|e| !matches!(e.bound(), Bound::Binding(b) if is_marker(self.symbols(file).bindings[b as usize].kind)))
            .flat_map(|e| self.entry_found(file, *e, depth))
            .collect();
        if found.is_empty() { self.lookup_beyond(file, 0, name, depth) } else { found }
    }

    /// After the lexical scopes: glob imports of the module scope, then (Rust) crate names.
    fn lookup_beyond(&self, file: u32, scope: u32, name: &str, depth: u32) -> Vec<Found> {
        let symbols = self.symbols(file);
        for import in symbols.imports.iter().filter(|i| i.glob && i.scope == scope) {
            let module = symbols.text(import.module);
            if let Some(base) = self.tables(file).glob_base(self, file, scope, module, depth + 1) {
                let found = self.member_public(base, name, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        self.tables(file).unbound(self, file, name, depth)
    }

    /// What one scope entry means, imports followed.
    pub(crate) fn entry_found(&self, file: u32, entry: Entry, depth: u32) -> Vec<Found> {
        let Some(_step) = step() else {
            return Vec::new();
        };
        match entry.bound() {
            Bound::Def(d) => vec![self.def_found(file, d)],
            Bound::Binding(b) => {
                let target = Target::Binding { file, binding: b };
                vec![Found { target, value: self.binding_value(file, b, depth + 1) }]
            }
            Bound::Import(i) => self.follow_import(file, i, depth + 1),
        }
    }

    pub(crate) fn def_found(&self, file: u32, d: u32) -> Found {
        let def = self.def(file, d);
        let value = match def.kind {
            DefKind::Class | DefKind::Enum | DefKind::Interface | DefKind::Type => {
                Some(Value::Class(file, d))
            }
            DefKind::Function | DefKind::Method | DefKind::Macro => Some(Value::Function(file, d)),
            DefKind::Module => self.tables(file).module_of_def(self, file, d),
            DefKind::Constant => None,
        };
        Found { target: self.canonical(Target::Def { file, def: d }), value }
    }

    /// Where an import leads.
    pub(super) fn follow_import(&self, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let Some(_step) = step_following(Following::Import(file, import)) else {
            return Vec::new();
        };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(file).follow_import(self, file, import, depth)
    }

    /// The value a binding holds, from its hint.
    fn binding_value(&self, file: u32, binding: u32, depth: u32) -> Option<Value> {
        let _step = step_following(Following::Binding(file, binding))?;
        if depth > MAX_DEPTH {
            return None;
        }
        let symbols = self.symbols(file);
        let b = symbols.bindings[binding as usize];
        if b.hint == NONE {
            return None;
        }
        let hint = symbols.text(b.hint);
        let pos = Pos::new(b.line, b.column);
        if b.kind == BindKind::SelfParam {
            return self.tables(file).self_type(self, file, pos, depth).map(|(f, d)| Value::Instance(f, d));
        }
        if let Some(alias) = hint.strip_prefix('=') {
            // `x = other`: the same value, looked up where `other` stands.
            return self.eval_chain(file, pos, alias, depth + 1);
        }
        if hint.ends_with("()") {
            return self.eval_chain(file, pos, hint, depth + 1);
        }
        // An annotation: an instance of the type.
        match self.eval_chain(file, pos, hint, depth + 1)? {
            Value::Class(f, d) => Some(Value::Instance(f, d)),
            _ => None,
        }
    }

    /// Evaluates a qualifier such as `self.items`, `os.path`, `Cart()`, `geo::Point`,
    /// `Circle::new()` at a position.
    pub(crate) fn eval_chain(&self, file: u32, pos: Pos, chain: &str, depth: u32) -> Option<Value> {
        let _step = step()?;
        if depth > MAX_DEPTH || chain.is_empty() || chain.contains('?') {
            return None;
        }
        let mut parts = chain.split('.');
        let first = parts.next()?;
        let (first_name, first_call) = split_call(first);
        let mut value = self.tables(file).eval_first(self, file, pos, first_name, depth)?;
        if first_call {
            value = self.call_result(value, depth)?;
        }
        for part in parts {
            let (name, call) = split_call(part);
            let found = self.member(value, name, depth + 1);
            value = found.iter().find_map(|f| f.value)?;
            if call {
                value = self.call_result(value, depth)?;
            }
        }
        Some(value)
    }

    /// The value of calling a class (an instance) or a function with an evident return type.
    fn call_result(&self, value: Value, depth: u32) -> Option<Value> {
        let _step = step()?;
        match value {
            Value::Class(f, d) => Some(Value::Instance(f, d)),
            Value::Super(..) => Some(value),
            Value::Function(f, d) => {
                let def = self.def(f, d);
                let ret = self.lang(f).language().return_type(def.signature())?;
                if let Some(value) = self.tables(f).call_result(self, f, d, ret, depth) {
                    return value;
                }
                let ret = self.lang(f).language().type_hint(ret)?;
                let pos = Pos::new(def.line, 1);
                match self.eval_chain(f, pos, &ret, depth + 1)? {
                    Value::Class(tf, td) => Some(Value::Instance(tf, td)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A member of a value: a module's name, a class's method or attribute (through its bases),
    /// a Rust type's associated item.
    pub(crate) fn member(&self, value: Value, name: &str, depth: u32) -> Vec<Found> {
        let Some(_step) = step() else {
            return Vec::new();
        };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(value_file(value)).member(self, value, name, depth, false)
    }

    /// The classes a class's bases (its inheritance references, in order) evaluate to, the
    /// class itself left out; evaluated as the caller walks them.
    pub(crate) fn bases(&self, file: u32, class: u32, depth: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let symbols = self.symbols(file);
        self.ctx(file).bases_of(class).filter_map(move |base| {
            let name = symbols.ref_name(base);
            let chain = if base.qualifier == NONE {
                name.to_string()
            } else {
                format!("{}.{name}", symbols.text(base.qualifier))
            };
            match self.eval_chain(file, Pos::new(base.line, base.column()), &chain, depth + 1) {
                Some(Value::Class(bf, bd)) if (bf, bd) != (file, class) => Some((bf, bd)),
                _ => None,
            }
        })
    }

    /// A member as a glob import sees it: Python's `__all__` or public names.
    pub(crate) fn member_public(&self, value: Value, name: &str, depth: u32) -> Vec<Found> {
        let Some(_step) = step() else {
            return Vec::new();
        };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(value_file(value)).member(self, value, name, depth, true)
    }
}

fn split_call(part: &str) -> (&str, bool) {
    match part.strip_suffix("()") {
        Some(name) => (name, true),
        None => (part, false),
    }
}

fn value_file(value: Value) -> u32 {
    match value {
        Value::Module(f, _)
        | Value::Class(f, _)
        | Value::Instance(f, _)
        | Value::Super(f, _)
        | Value::Function(f, _)
        | Value::External(f) => f,
    }
}
