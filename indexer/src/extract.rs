//! Symbol extraction: one file's definitions, references, scopes, bindings, imports, impls and
//! exports from one walk of its tree by the language's queries, each language's rules asked
//! through [`Language`]. A file with syntax errors still yields whatever parses.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::{Node, Parser, Tree};

use crate::lang::{Language, is_alias, node_text, pattern_identifiers};
use crate::matcher::Layout;
use crate::names::{BindKind, Binding, Impl, Import, NONE, Pos, Scope, ScopeKind};
use crate::snapshot::Lang;
use crate::symbols::{Def, DefKind, DefText, Defs, FileSymbols, Names, Ref, RefKind, innermost_scope};

/// Parses and extracts with a new parser.
pub fn extract(lang: Lang, source: &str) -> FileSymbols {
    let mut parser = Parser::new();
    extract_with(&mut parser, lang, source)
}

/// Parses and extracts, reusing `parser` (one per thread is the fast path).
/// A file nested past [`crate::depth`]'s bounds yields no symbols, only the reason.
pub(crate) fn extract_with(parser: &mut Parser, lang: Lang, source: &str) -> FileSymbols {
    match crate::depth::parse_bounded(parser, lang, source) {
        Ok(Some(tree)) => extract_from_tree(lang, source, &tree),
        Ok(None) => FileSymbols { syntax_issues: 1, ..Default::default() },
        Err(too_deep) => FileSymbols { too_deep: Some(too_deep), ..Default::default() },
    }
}

/// Parses only: the floor that extraction is measured against.
pub fn parse_only(parser: &mut Parser, lang: Lang, source: &str) -> bool {
    parser.set_language(&lang.grammar()).expect("grammar version matches tree-sitter");
    parser.parse(source, None).is_some()
}

/// Names that are never worth a reference: the receiver of every method.
fn is_noise(lang: Lang, name: &str) -> bool {
    lang.spec().noise.contains(&name)
}

/// What a capture of the joined query means to the extractor.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Name,
    Def(DefKind),
    Ref(RefKind),
    Scope,
    Bind(BindKind),
    Hint,
    HintCall,
    HintAlias,
    Receiver,
    Import,
    Impl,
    Exports,
    Qualifier,
    Qualified,
    /// A keyword argument's name: its qualifier is the callee, marked with a trailing `(`.
    QualifiedArgument,
    Other,
}

impl Role {
    fn from_capture(capture: &str) -> Role {
        match capture {
            "name" => Role::Name,
            "scope" => Role::Scope,
            "local.hint" => Role::Hint,
            "local.hint.call" => Role::HintCall,
            "local.hint.alias" => Role::HintAlias,
            "local.receiver" => Role::Receiver,
            "import" => Role::Import,
            "impl" => Role::Impl,
            "exports" => Role::Exports,
            "qualifier" => Role::Qualifier,
            "qualified" => Role::Qualified,
            "qualified.argument" => Role::QualifiedArgument,
            other => {
                if let Some(kind) = DefKind::from_capture(other) {
                    Role::Def(kind)
                } else if let Some(kind) = RefKind::from_capture(other) {
                    Role::Ref(kind)
                } else if let Some(kind) = BindKind::from_capture(other) {
                    Role::Bind(kind)
                } else {
                    Role::Other
                }
            }
        }
    }
}

/// The role of each capture of a language's query, by capture index, computed once.
fn roles(lang: Lang) -> &'static [Role] {
    use std::sync::OnceLock;
    const N: usize = crate::lang::N_LANGS;
    static ROLES: [OnceLock<Vec<Role>>; N] = [const { OnceLock::new() }; N];
    ROLES[lang as usize]
        .get_or_init(|| lang.patterns().capture_names().iter().map(|c| Role::from_capture(c)).collect())
}

/// Interns strings into a file's `names`. Text that is a slice of the source is borrowed until
/// the end, so each distinct name is copied once.
#[derive(Default)]
struct Interner<'a> {
    index: FxHashMap<Cow<'a, str>, u32>,
}

impl<'a> Interner<'a> {
    /// A slice of the source.
    fn source(&mut self, text: &'a str) -> u32 {
        let next = self.index.len() as u32;
        *self.index.entry(Cow::Borrowed(text)).or_insert(next)
    }

    /// Any other text: copied only when new.
    fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.index.get(text) {
            return id;
        }
        let next = self.index.len() as u32;
        self.index.insert(Cow::Owned(text.to_string()), next);
        next
    }

    fn into_names(self) -> Names {
        let mut names: Vec<(u32, Cow<'a, str>)> =
            self.index.into_iter().map(|(text, id)| (id, text)).collect();
        names.sort_unstable_by_key(|(id, _)| *id);
        names.into_iter().map(|(_, text)| text).collect()
    }
}

/// Extracts one file's symbols from its tree, in phases: the query matches sorted by what they
/// capture, then definitions, scopes, references, bindings, imports, impls and `__all__`.
pub fn extract_from_tree(lang: Lang, source: &str, tree: &Tree) -> FileSymbols {
    let bytes = source.as_bytes();
    let (matches, layout) = collect_matches(lang, tree, bytes);
    let (defs, clauses) = make_defs(lang, source, &layout, &matches.defs);
    let scopes = make_scopes(lang.language(), &matches.scopes, &clauses);
    // Names are numbered as first met: references, then bindings, imports and impls.
    let mut interner = Interner::default();
    let refs = make_refs(lang, bytes, &matches, &defs, &mut interner);
    let bindings = make_bindings(lang, bytes, &matches.bindings, &scopes, &mut interner);
    let imports = make_imports(lang, bytes, &matches.imports, &scopes, &mut interner);
    let impls = make_impls(lang, bytes, &matches.impls, &mut interner);
    let exports = make_exports(lang, bytes, &matches.exports);
    let syntax_issues = if tree.root_node().has_error() { count_issues(tree.root_node()) } else { 0 };
    FileSymbols {
        defs,
        refs: refs.into_iter().collect(),
        names: interner.into_names(),
        syntax_issues,
        scopes,
        bindings,
        imports,
        impls,
        exports,
        too_deep: None,
    }
}

/// The captured nodes of one file, sorted by what they are, before any becomes a symbol.
struct Matches<'t> {
    /// Definition nodes with their name node, kind and place in the layout, one per node (the
    /// most specific kind any pattern gave it), by start and then outermost first.
    defs: Vec<(Node<'t>, Node<'t>, DefKind, u32)>,
    /// Reference identifiers as (start byte, node, kind), one per matching pattern, sorted by
    /// start byte and node: sorting once is cheaper than a map lookup per match.
    refs: Vec<(u32, Node<'t>, RefKind)>,
    /// Scope regions, distinct, by start and then outermost first.
    scopes: Vec<Node<'t>>,
    /// Bound patterns, one per node, with their kind and evident type.
    bindings: Vec<(Node<'t>, BindKind, Option<String>)>,
    /// Import statements, distinct, by start.
    imports: Vec<Node<'t>>,
    impls: Vec<Node<'t>>,
    /// The values assigned to `__all__`.
    exports: Vec<Node<'t>>,
    /// A qualified name's qualifier and whether it is a call's argument, by the name's node id.
    qualifier_of: FxHashMap<usize, (Node<'t>, bool)>,
}

/// Runs the language's patterns over the tree. Produces every captured node, sorted
/// into [`Matches`], and the layout the captures point into.
fn collect_matches<'t>(lang: Lang, tree: &'t Tree, bytes: &[u8]) -> (Matches<'t>, Layout<'t>) {
    let roles = roles(lang);
    let mut m = Matches {
        defs: Vec::new(),
        refs: Vec::new(),
        scopes: Vec::new(),
        bindings: Vec::new(),
        imports: Vec::new(),
        impls: Vec::new(),
        exports: Vec::new(),
        qualifier_of: FxHashMap::default(),
    };
    let mut def_seen: FxHashMap<usize, usize> = FxHashMap::default();
    let mut bind_seen: FxHashMap<usize, usize> = FxHashMap::default();
    let layout = lang.patterns().for_each_match(tree, bytes, &mut |_, captures| {
        let mut name_node = None;
        let mut def: Option<(Node, DefKind, u32)> = None;
        let mut reference: Option<RefKind> = None;
        let mut bind: Option<(Node, BindKind)> = None;
        let mut hint: Option<String> = None;
        let mut receiver_ok = true;
        let mut qualified: Option<(Node, Node)> = None;
        let mut argument = false;
        for capture in captures {
            match roles[capture.index as usize] {
                Role::Name => name_node = Some(capture.node),
                Role::Def(kind) => def = Some((capture.node, kind, capture.at)),
                Role::Ref(kind) => reference = Some(kind),
                Role::Scope => m.scopes.push(capture.node),
                Role::Bind(kind) => bind = Some((capture.node, kind)),
                Role::Hint => hint = lang.language().type_hint(node_text(capture.node, bytes)),
                Role::HintCall => {
                    hint = lang.language().type_hint(node_text(capture.node, bytes)).map(|h| h + "()")
                }
                Role::HintAlias => {
                    hint = lang.language().type_hint(node_text(capture.node, bytes)).map(|h| format!("={h}"))
                }
                Role::Receiver => receiver_ok = lang.language().is_receiver(node_text(capture.node, bytes)),
                Role::Import => m.imports.push(capture.node),
                Role::Impl => m.impls.push(capture.node),
                Role::Exports => m.exports.push(capture.node),
                Role::Qualifier => qualified = Some((capture.node, qualified.map_or(capture.node, |q| q.1))),
                Role::Qualified => qualified = Some((qualified.map_or(capture.node, |q| q.0), capture.node)),
                Role::QualifiedArgument => {
                    argument = true;
                    qualified = Some((qualified.map_or(capture.node, |q| q.0), capture.node));
                }
                Role::Other => {}
            }
        }
        if let Some((qualifier, name)) = qualified {
            m.qualifier_of.insert(name.id(), (qualifier, argument));
            return;
        }
        if let Some((node, kind)) = bind {
            if receiver_ok {
                match bind_seen.get(&node.id()) {
                    Some(&i) => {
                        if m.bindings[i].2.is_none() {
                            m.bindings[i].2 = hint;
                        }
                    }
                    None => {
                        bind_seen.insert(node.id(), m.bindings.len());
                        m.bindings.push((node, kind, hint));
                    }
                }
            }
            return;
        }
        let Some(name_node) = name_node else { return };
        if let Some((node, kind, at)) = def {
            match def_seen.get(&node.id()) {
                Some(&i) if m.defs[i].2 <= kind => {}
                Some(&i) => m.defs[i].2 = kind,
                None => {
                    def_seen.insert(node.id(), m.defs.len());
                    m.defs.push((node, name_node, kind, at));
                }
            }
        } else if let Some(kind) = reference {
            m.refs.push((name_node.start_byte() as u32, name_node, kind));
        }
    });
    m.defs.sort_by_key(|(node, _, _, _)| (node.start_byte(), std::cmp::Reverse(node.end_byte())));
    // By place and then by node: the same node captured twice is adjacent (for the dedup
    // below). A node's id is its address in the tree's memory, which varies between runs, so
    // nested names that start together are told apart by where they end and what they are,
    // and one file's references come in the same order in every process.
    m.refs.sort_by_key(|(start, node, _)| (*start, node.end_byte(), node.kind_id(), node.id()));
    m.scopes.sort_by_key(|n| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
    m.scopes.dedup_by_key(|n| n.id());
    m.imports.sort_by_key(|n| n.start_byte());
    m.imports.dedup_by_key(|n| n.id());
    (m, layout)
}

/// Each definition node's own span (from its own line) and the definition it made: a
/// definition's, and a further clause's, which the definition before it spans too.
type ClauseSpans = Vec<((u32, u32), u32)>;

/// The definitions, in source order. Parents come from a sweep over the nested spans,
/// qualified names from the parent chain, ancestors from the layout (`Node::parent` searches
/// down from the root each time). A node that only adds a clause to the definition right
/// before it (`Language::continues`) stretches that definition instead of making one.
fn make_defs(
    lang: Lang,
    source: &str,
    layout: &Layout,
    def_nodes: &[(Node, Node, DefKind, u32)],
) -> (Defs, ClauseSpans) {
    let bytes = source.as_bytes();
    let mut defs = Defs::default();
    let mut stack: Vec<usize> = Vec::new();
    // The definition each node made or stretched, by node.
    let mut made: Vec<usize> = Vec::with_capacity(def_nodes.len());
    let mut clauses: ClauseSpans = Vec::with_capacity(def_nodes.len());
    let mut last_clause: Option<(usize, Node)> = None;
    let language = lang.language();
    let mut docs = crate::lang::DocCache::default();
    for (i, (node, name_node, kind, at)) in def_nodes.iter().enumerate() {
        while let Some(&top) = stack.last() {
            if def_nodes[top].0.end_byte() >= node.end_byte()
                && def_nodes[top].0.start_byte() <= node.start_byte()
            {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().map(|&top| made[top]);
        let whole = node_text(*name_node, bytes);
        let name_at = language.name_in_token(*name_node, bytes).filter(|&at| at <= whole.len());
        let name = name_at.map_or(whole, |at| &whole[at..]).to_string();
        let [_, up @ ..] = layout.ancestors::<4>(*at);
        let parent_node = up[0];
        let container = language.container_name(*node, up, bytes);
        let kind = language.refine_kind(up, *kind);
        let own = language.own_start(*node);
        let span = (own.start_byte() as u32, node.end_byte() as u32);
        // The last definition and its last clause's node.
        if let Some((last, previous)) = last_clause
            && defs[last].parent() == parent.map(|p| p as u32)
            && defs[last].kind == kind
            && defs.at(last).name() == name
            && language.continues(previous, *node, bytes)
        {
            defs.stretch_last(language.end_line(*node), node.end_byte() as u32);
            made.push(last);
            clauses.push((span, last as u32));
            last_clause = Some((last, *node));
            stack.push(i);
            continue;
        }
        let qualified = qualify(lang, &defs, parent, container.as_deref(), &name);
        let start = own.start_position();
        let line = start.row as u32 + 1;
        let header = cut(line_at(source, own.start_byte() - start.column).trim_end(), 200);
        let signature = signature(lang, *node, bytes);
        let doc = language.doc(*node, parent_node, bytes, &mut docs).map(|line| cut(line, 200));
        defs.push(
            &name,
            kind,
            (line, language.end_line(*node)),
            span,
            parent.map(|p| p as u32),
            DefText { qualified: &qualified, header: &header, signature: &signature, doc: doc.as_deref() },
        );
        if language.provides_by_name(*node, up, bytes) {
            defs.mark_last_provides();
        }
        made.push(defs.len() - 1);
        clauses.push((span, defs.len() as u32 - 1));
        last_clause = Some((defs.len() - 1, *node));
        stack.push(i);
    }
    defs.shrink_to_fit();
    (defs, clauses)
}

/// The scopes, the file's first and then every captured region in source order, each
/// with its parent and the definition it is the body of (a clause's, the definition it adds
/// to).
fn make_scopes(language: &dyn Language, scope_nodes: &[Node], clauses: &ClauseSpans) -> Vec<Scope> {
    let mut scopes: Vec<Scope> = Vec::with_capacity(scope_nodes.len() + 1);
    scopes.push(Scope {
        kind: ScopeKind::File,
        start: Pos::new(0, 0),
        end: Pos::new(u32::MAX, 0),
        parent: NONE,
        def: NONE,
    });
    let mut open: Vec<u32> = vec![0];
    let def_by_span: FxHashMap<(u32, u32), u32> = clauses.iter().copied().collect();
    let def_ends: FxHashSet<u32> = clauses.iter().map(|((_, end), _)| *end).collect();
    for node in scope_nodes {
        let (start, end) = (Pos::of(node.start_position()), Pos::of(node.end_position()));
        while open.len() > 1 && { scopes[*open.last().expect("non-empty") as usize].end } < end {
            open.pop();
        }
        let parent = *open.last().expect("the file scope stays open");
        // A definition's span starts at its own line (after annotations its node holds); most
        // scopes (blocks, lambdas) end where no definition does, and need not look for it.
        let end_byte = node.end_byte() as u32;
        let def = if def_ends.contains(&end_byte) {
            let span = (language.own_start(*node).start_byte() as u32, end_byte);
            def_by_span.get(&span).copied().unwrap_or(NONE)
        } else {
            NONE
        };
        scopes.push(Scope { kind: language.scope_kind(node.kind()), start, end, parent, def });
        open.push(scopes.len() as u32 - 1);
    }
    scopes
}

/// The references in source order, each with its innermost enclosing definition, the
/// most specific kind any pattern gave it and its qualifier; a definition's own name is not a
/// reference, and a name in an import statement is an import.
fn make_refs<'a>(
    lang: Lang,
    bytes: &'a [u8],
    matches: &Matches,
    defs: &[Def],
    interner: &mut Interner<'a>,
) -> Vec<Ref> {
    let name_ids: FxHashSet<usize> = matches.defs.iter().map(|(_, name, _, _)| name.id()).collect();
    // Import statements by span: a name inside one is an import (a binary search, where
    // walking up the tree from every name would cost a parent lookup per level).
    let import_spans: Vec<(usize, usize)> =
        matches.imports.iter().map(|n| (n.start_byte(), n.end_byte())).collect();
    let in_import = |byte: usize| {
        let i = import_spans.partition_point(|s| s.0 <= byte);
        i > 0 && import_spans[i - 1].1 > byte
    };
    let mut ref_list: Vec<(Node, RefKind)> = Vec::with_capacity(matches.refs.len());
    let mut last_id = None;
    for &(_, node, kind) in &matches.refs {
        if last_id == Some(node.id()) {
            let merged = ref_list.last_mut().expect("a reference was kept");
            merged.1 = merged.1.max(kind);
        } else if !name_ids.contains(&node.id()) {
            last_id = Some(node.id());
            ref_list.push((node, kind));
        }
    }
    let mut refs = Vec::with_capacity(ref_list.len());
    let mut stack: Vec<usize> = Vec::new();
    let mut next_def = 0;
    for (node, kind) in ref_list {
        let start = node.start_byte() as u32;
        while next_def < defs.len() && defs[next_def].start_byte <= start {
            stack.push(next_def);
            next_def += 1;
        }
        while let Some(&top) = stack.last() {
            if defs[top].end_byte > start {
                break;
            }
            stack.pop();
        }
        // A sibling popped late can sit under a still-open one; skip spans that end before us.
        let enclosing = stack.iter().rev().find(|&&d| defs[d].end_byte > start).map(|&d| d as u32);
        let whole = node_text(node, bytes);
        // A path the grammar makes one token (Elixir's `Shop.Cart`): its last part is the name.
        let name_at = lang.language().name_in_token(node, bytes).filter(|&at| at <= whole.len());
        let text = name_at.map_or(whole, |at| &whole[at..]);
        let importing = in_import(node.start_byte());
        if text.is_empty() || is_noise(lang, text) || (importing && is_alias(lang, node)) {
            continue;
        }
        let kind = if matches!(kind, RefKind::Name | RefKind::Attribute | RefKind::Type) && importing {
            RefKind::Import
        } else {
            kind
        };
        let id = interner.source(text);
        let qualifier = if importing {
            lang.language().qualifier(node, bytes)
        } else {
            matches.qualifier_of.get(&node.id()).map(|&(q, argument)| {
                let text = lang.language().qualifier_text(q, bytes);
                if argument { text + "(" } else { text }
            })
        };
        let qualifier = qualifier.or_else(|| {
            let at = name_at?;
            let path: String = whole[..at].split_whitespace().collect();
            let path = path.strip_suffix(lang.spec().separator).unwrap_or(&path);
            (!path.is_empty()).then(|| path.to_string())
        });
        let qualifier = qualifier.map_or(NONE, |q| interner.id(&q));
        let at = node.start_position();
        let column = at.column as u32 + 1 + name_at.unwrap_or(0) as u32;
        refs.push(Ref::new(id, at.row as u32 + 1, column, kind, enclosing, qualifier));
    }
    refs
}

/// The bindings, every identifier of every captured pattern in source order, in its
/// scope. One identifier can sit in two captured patterns (a closure parameter and its
/// pattern); it binds once, with the hint if either had one.
fn make_bindings<'a>(
    lang: Lang,
    bytes: &'a [u8],
    bind_nodes: &[(Node, BindKind, Option<String>)],
    scopes: &[Scope],
    interner: &mut Interner<'a>,
) -> Vec<Binding> {
    let mut bind_idents: Vec<(Node, BindKind, Option<&str>)> = Vec::new();
    let mut idents: Vec<Node> = Vec::new();
    for (node, kind, hint) in bind_nodes {
        idents.clear();
        match kind {
            BindKind::SelfParam | BindKind::Field => idents.push(*node),
            _ => pattern_identifiers(lang, *node, bytes, &mut idents),
        }
        let hint = if idents.len() == 1 { hint.as_deref() } else { None };
        bind_idents.extend(idents.iter().map(|ident| (*ident, *kind, hint)));
    }
    bind_idents.sort_by_key(|(node, _, hint)| {
        (node.start_byte(), node.end_byte(), node.kind_id(), node.id(), hint.is_none())
    });
    bind_idents.dedup_by_key(|(node, _, _)| node.id());
    let mut bindings: Vec<Binding> = Vec::with_capacity(bind_idents.len());
    let self_parameter = lang.language().self_parameter();
    for (ident, kind, hint) in &bind_idents {
        let hint = match (kind, hint, self_parameter) {
            (BindKind::SelfParam, _, Some((_, self_type))) => interner.id(self_type),
            (_, Some(h), _) => interner.id(h),
            _ => NONE,
        };
        let mut scope = innermost_scope(scopes, Pos::of(ident.start_position()));
        if *kind == BindKind::Attribute {
            // `self.x = …` in a method binds `x` in the class body.
            let function = scopes[scope as usize];
            let class = function.parent;
            if function.kind != ScopeKind::Function
                || class == NONE
                || scopes[class as usize].kind != ScopeKind::Class
            {
                continue;
            }
            scope = class;
        }
        let name = match (kind, self_parameter) {
            (BindKind::SelfParam, Some((self_name, _))) => interner.source(self_name),
            _ => interner.source(node_text(*ident, bytes)),
        };
        let at = ident.start_position();
        bindings.push(Binding {
            name,
            scope,
            line: at.row as u32 + 1,
            column: at.column as u32 + 1,
            kind: *kind,
            hint,
        });
    }
    bindings
}

/// The imports, each name an import statement brings in, in its scope.
fn make_imports(
    lang: Lang,
    bytes: &[u8],
    import_nodes: &[Node],
    scopes: &[Scope],
    interner: &mut Interner,
) -> Vec<Import> {
    let mut imports: Vec<Import> = Vec::new();
    let mut raw = Vec::new();
    for node in import_nodes {
        raw.clear();
        lang.language().decode_import(*node, bytes, &mut raw);
        let scope = innermost_scope(scopes, Pos::of(node.start_position()));
        for r in &raw {
            let at = r.at.start_position();
            imports.push(Import {
                module: interner.id(&r.module),
                item: r.item.as_deref().map_or(NONE, |i| interner.id(i)),
                bound: r.bound.as_deref().map_or(NONE, |b| interner.id(b)),
                alias: r.alias,
                glob: r.glob,
                cfg: r.cfg,
                scope,
                line: at.row as u32 + 1,
                column: at.column as u32 + 1,
            });
        }
    }
    imports
}

/// The impl blocks (Rust's), by start, with the type and trait each is for.
fn make_impls(lang: Lang, bytes: &[u8], impl_nodes: &[Node], interner: &mut Interner) -> Vec<Impl> {
    let mut impls: Vec<Impl> = Vec::new();
    for node in impl_nodes {
        if let Some((ty, trait_path)) = lang.language().impl_paths(*node, bytes) {
            impls.push(Impl {
                self_ty: interner.id(&ty),
                trait_path: trait_path.map_or(NONE, |t| interner.id(&t)),
                start: Pos::of(node.start_position()),
                end: Pos::of(node.end_position()),
            });
        }
    }
    impls.sort_by_key(|i| i.start);
    impls
}

/// The names a module says it exports (Python's `__all__`), when it says so.
fn make_exports(lang: Lang, bytes: &[u8], export_nodes: &[Node]) -> Option<Vec<String>> {
    (!export_nodes.is_empty()).then(|| {
        let mut out = Vec::new();
        for node in export_nodes {
            lang.language().exported_names(*node, bytes, &mut out);
        }
        out
    })
}

/// The source line starting at byte `start`, without its line break.
fn line_at(source: &str, start: usize) -> &str {
    let rest = source.get(start..).unwrap_or("");
    rest.split('\n').next().unwrap_or("")
}

fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

fn qualify(lang: Lang, defs: &Defs, parent: Option<usize>, container: Option<&str>, name: &str) -> String {
    let sep = lang.spec().separator;
    let mut prefix = parent.map(|p| defs.at(p).qualified().to_string());
    if let Some(container) = container {
        prefix = Some(match prefix {
            Some(p) => format!("{p}{sep}{container}"),
            None => container.to_string(),
        });
    }
    match prefix {
        Some(p) => format!("{p}{sep}{name}"),
        None => name.to_string(),
    }
}

/// The text from the definition's start to its body, whitespace collapsed.
fn signature(lang: Lang, node: Node, bytes: &[u8]) -> String {
    let language = lang.language();
    let body_start = language.body_start(node).unwrap_or(node.end_byte());
    let text = std::str::from_utf8(&bytes[language.own_start(node).start_byte()..body_start]).unwrap_or("");
    let sig = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(language.trim_signature(&sig), 300)
}

fn count_issues(node: Node) -> u32 {
    let mut count = 0;
    crate::syntax::visit_errors(node, |node| {
        let issue = node.is_error() || node.is_missing();
        count += u32::from(issue);
        !issue
    });
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(lang: Lang, src: &str) -> Vec<String> {
        extract(lang, src)
            .defs
            .iter()
            .map(|d| {
                format!("{} {} {}-{} | {}", d.kind.as_str(), d.qualified(), d.line, d.end_line, d.signature())
            })
            .collect()
    }

    /// Each definition's qualified name and the first line of its documentation.
    fn docs(lang: Lang, src: &str) -> Vec<String> {
        extract(lang, src)
            .defs
            .iter()
            .map(|d| format!("{} {}", d.qualified(), d.doc().unwrap_or("-")))
            .collect()
    }

    fn refs(lang: Lang, src: &str) -> Vec<String> {
        let fs = extract(lang, src);
        fs.refs
            .iter()
            .map(|r| {
                let inside = r.enclosing().map(|d| fs.defs.at(d as usize).qualified()).unwrap_or("-");
                format!("{}:{} {} {} in {inside}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect()
    }

    const PY: &str = r#"import os
from .base import Base, helper as h

LIMIT = 10

class Cart(Base):
    """A shopping cart.

    More text."""

    def add(self, item: Item) -> None:
        self.items.append(item)
        h(item)

    @property
    def total(self):
        def inner(x):
            return x
        return sum(inner(i.price) for i in self.items)

def checkout(cart):
    cart.add(make_item())
"#;

    #[test]
    fn python_definitions_are_qualified_and_kinded() {
        assert_eq!(
            defs(Lang::Python, PY),
            vec![
                "constant LIMIT 4-4 | LIMIT = 10",
                "class Cart 6-19 | class Cart(Base)",
                "method Cart.add 11-13 | def add(self, item: Item) -> None",
                "method Cart.total 16-19 | def total(self)",
                "function Cart.total.inner 17-18 | def inner(x)",
                "function checkout 21-22 | def checkout(cart)",
            ]
        );
        let fs = extract(Lang::Python, PY);
        assert_eq!(fs.defs.at(1).doc(), Some("A shopping cart."));
        assert_eq!(fs.defs[2].parent(), Some(1));
        assert_eq!(fs.defs.at(2).header(), "    def add(self, item: Item) -> None:");
        assert_eq!(fs.syntax_issues, 0);
    }

    #[test]
    fn python_references_carry_kind_and_enclosing_definition() {
        let got = refs(Lang::Python, PY);
        for expected in [
            "1:8 os import in -",
            "2:19 Base import in -",
            "6:12 Base inheritance in Cart",
            "11:25 Item type use in Cart.add",
            "12:20 append method call in Cart.add",
            "13:9 h call in Cart.add",
            "19:28 price attribute in Cart.total",
            "22:10 add method call in checkout",
            "22:14 make_item call in checkout",
        ] {
            assert!(got.contains(&expected.to_string()), "missing {expected:?} in {got:#?}");
        }
        assert!(!got.iter().any(|r| r.contains(" self ")), "self is noise");
        assert!(!got.iter().any(|r| r.starts_with("11:9 add")), "a definition's own name is not a reference");
    }

    const RS: &str = r#"use crate::geo::{Point, dist as d};

/// A circle.
#[derive(Debug)]
pub struct Circle {
    center: Point,
}

mod shapes {
    pub trait Shape {
        fn area(&self) -> f64;
        fn name(&self) -> String { String::new() }
    }
}

impl<T> Circle<T> {
    pub fn new(center: Point) -> Self {
        Circle { center }
    }
}

impl shapes::Shape for Circle {
    fn area(&self) -> f64 {
        d(self.center, Point::origin()).powi(2)
    }
}

macro_rules! square { ($x:expr) => { $x * $x }; }
const PI: f64 = 3.14;
"#;

    #[test]
    fn rust_definitions_are_qualified_and_kinded() {
        assert_eq!(
            defs(Lang::Rust, RS),
            vec![
                "class Circle 5-7 | pub struct Circle",
                "module shapes 9-14 | mod shapes",
                "interface shapes::Shape 10-13 | pub trait Shape",
                "method shapes::Shape::area 11-11 | fn area(&self) -> f64;",
                "method shapes::Shape::name 12-12 | fn name(&self) -> String",
                "method Circle::new 17-19 | pub fn new(center: Point) -> Self",
                "method Circle::area 23-25 | fn area(&self) -> f64",
                "macro square 28-28 | macro_rules! square { ($x:expr) => { $x * $x }; }",
                "constant PI 29-29 | const PI: f64 = 3.14;",
            ]
        );
        let fs = extract(Lang::Rust, RS);
        assert_eq!(fs.defs.at(0).doc(), Some("A circle."));
    }

    #[test]
    fn rust_references_carry_kind_and_enclosing_definition() {
        let got = refs(Lang::Rust, RS);
        for expected in [
            "1:18 Point import in -",
            "1:25 dist import in -",
            "6:13 Point type use in Circle",
            "22:14 Shape inheritance in -",
            "24:9 d call in Circle::area",
            "24:31 origin call in Circle::area",
            "24:41 powi method call in Circle::area",
        ] {
            assert!(got.contains(&expected.to_string()), "missing {expected:?} in {got:#?}");
        }
    }

    #[test]
    fn only_assignments_of_the_file_itself_are_constants_and_exports() {
        let src = "A = 1\nif X:\n    B = 2\nclass K:\n    C = 3\ndef f():\n    D = 4\n    __all__ = ['f']\nE = F = 5\n__all__ = ['A']\n__all__ += ('E',)\n";
        let fs = extract(Lang::Python, src);
        let constants: Vec<&str> =
            fs.defs.iter().filter(|d| d.kind == DefKind::Constant).map(|d| d.qualified()).collect();
        assert_eq!(constants, ["A", "E", "__all__"]);
        assert_eq!(fs.exports, Some(vec!["A".to_string(), "E".to_string()]));
    }

    #[test]
    fn a_broken_file_still_yields_what_parses() {
        let src = "def ok():\n    pass\n\ndef broken(:\n    return 1\n\nclass Fine:\n    def m(self):\n        ok()\n";
        let fs = extract(Lang::Python, src);
        assert!(fs.syntax_issues > 0);
        let names: Vec<&str> = fs.defs.iter().map(|d| d.qualified()).collect();
        assert!(names.contains(&"ok") && names.contains(&"Fine"), "{names:?}");
    }

    /// Scopes, bindings, imports and qualified references, one per line.
    fn names_dump(lang: Lang, src: &str) -> String {
        let fs = extract(lang, src);
        let mut out = String::new();
        for (i, s) in fs.scopes.iter().enumerate() {
            let def = if s.def == NONE {
                "-".to_string()
            } else {
                fs.defs.at(s.def as usize).qualified().to_string()
            };
            let parent = if s.parent == NONE { "-".to_string() } else { { s.parent }.to_string() };
            out.push_str(&format!("scope {i} {:?} parent {parent} def {def}\n", { s.kind }));
        }
        for b in &fs.bindings {
            let hint = if b.hint == NONE { String::new() } else { format!(" : {}", fs.text(b.hint)) };
            out.push_str(&format!(
                "bind {}:{} {} {:?} in {}{hint}\n",
                { b.line },
                { b.column },
                fs.text(b.name),
                { b.kind },
                { b.scope }
            ));
        }
        for im in &fs.imports {
            out.push_str(&format!(
                "import {}:{} module={:?} item={:?} bound={:?} alias={} glob={} in {}\n",
                { im.line },
                { im.column },
                fs.text(im.module),
                fs.text(im.item),
                fs.text(im.bound),
                { im.alias },
                { im.glob },
                { im.scope }
            ));
        }
        for r in fs.refs.iter().filter(|r| r.qualifier != NONE) {
            out.push_str(&format!(
                "ref {}:{} {}.{}\n",
                r.line,
                r.column(),
                fs.text(r.qualifier),
                fs.ref_name(&r)
            ));
        }
        for im in &fs.impls {
            out.push_str(&format!("impl {} for {}\n", fs.text(im.trait_path), fs.text(im.self_ty)));
        }
        if let Some(all) = &fs.exports {
            out.push_str(&format!("__all__ {all:?}\n"));
        }
        out
    }

    #[test]
    fn python_scopes_bindings_and_imports() {
        let src = r#"import os.path
import a.b as ab
from ..pkg.mod import x, y as z
from . import sib
from m import *
__all__ = ["Cart", 'x']

class Cart(Base):
    size = 3
    def __init__(self, owner: Owner, n=1, *args, **kw):
        self.owner = owner
        self.items: list = []
        self.clock = Clock()
    def add(self, item):
        global total
        found = [i for i in self.items if i]
        for k, (v, w) in pairs:
            with open(k) as fh:
                pass
        c = Cart()
        d = c.add
        return super().add(os.path.join(ab.f))
"#;
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Class parent 0 def Cart
            scope 2 Function parent 1 def Cart.__init__
            scope 3 Function parent 1 def Cart.add
            scope 4 Comprehension parent 3 def -
            bind 6:1 __all__ Assign in 0
            bind 9:5 size Assign in 1
            bind 10:18 self Param in 2
            bind 10:24 owner Param in 2 : Owner
            bind 10:38 n Param in 2
            bind 10:44 args Param in 2
            bind 10:52 kw Param in 2
            bind 11:14 owner Attribute in 1 : =owner
            bind 12:14 items Attribute in 1 : list
            bind 13:14 clock Attribute in 1 : Clock()
            bind 14:13 self Param in 3
            bind 14:19 item Param in 3
            bind 15:16 total Global in 3
            bind 16:9 found Assign in 3
            bind 16:24 i Loop in 4
            bind 17:13 k Loop in 3
            bind 17:17 v Loop in 3
            bind 17:20 w Loop in 3
            bind 18:29 fh With in 3
            bind 20:9 c Assign in 3 : Cart()
            bind 21:9 d Assign in 3 : =c.add
            import 1:8 module="os.path" item="" bound="os" alias=false glob=false in 0
            import 2:15 module="a.b" item="" bound="ab" alias=true glob=false in 0
            import 3:23 module="..pkg.mod" item="x" bound="x" alias=false glob=false in 0
            import 3:31 module="..pkg.mod" item="y" bound="z" alias=true glob=false in 0
            import 4:15 module="." item="sib" bound="sib" alias=false glob=false in 0
            import 5:15 module="m" item="" bound="" alias=false glob=true in 0
            ref 1:11 os.path
            ref 2:10 a.b
            ref 3:8 ...pkg
            ref 3:12 ..pkg.mod
            ref 3:23 ..pkg.mod.x
            ref 3:26 ..pkg.mod.y
            ref 4:15 ..sib
            ref 11:14 self.owner
            ref 12:14 self.items
            ref 13:14 self.clock
            ref 16:34 self.items
            ref 21:15 c.add
            ref 22:24 super().add
            ref 22:31 os.path
            ref 22:36 os.path.join
            ref 22:44 ab.f
            __all__ ["Cart", "x"]
        "#]]
        .assert_eq(&names_dump(Lang::Python, src));
    }

    #[test]
    fn rust_scopes_bindings_imports_and_impls() {
        let src = r#"use crate::geo::{self, distance as dist, shapes::{Circle, Square}};
use super::*;
extern crate alloc as a;

mod inner {
    pub fn f() {}
}

impl Shape for Circle {
    fn area(&self, scale: &mut Scale) -> f64 {
        let c = Circle::new(1.0);
        let p: Point = make();
        let Point { x, y: yy } = p;
        if let Some(v) = opt { v.go(); }
        for (i, item) in items.iter().enumerate() {}
        let run = |q: u8| q;
        c.radius().powi(2) + geo::distance(p, self.center)
    }
}
"#;
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Module parent 0 def inner
            scope 2 Function parent 1 def inner::f
            scope 3 Block parent 2 def -
            scope 4 Function parent 0 def Circle::area
            scope 5 Block parent 4 def -
            scope 6 Block parent 5 def -
            scope 7 Block parent 6 def -
            scope 8 Block parent 5 def -
            scope 9 Block parent 8 def -
            scope 10 Lambda parent 5 def -
            bind 10:13 self SelfParam in 4 : Self
            bind 10:20 scale Param in 4 : Scale
            bind 11:13 c Let in 5 : Circle::new()
            bind 12:13 p Let in 5 : Point
            bind 13:21 x Let in 5
            bind 13:27 yy Let in 5
            bind 14:21 v Pattern in 6
            bind 15:14 i Loop in 8
            bind 15:17 item Loop in 8
            bind 16:13 run Let in 5
            bind 16:20 q Param in 10 : u8
            import 1:18 module="crate" item="geo" bound="geo" alias=false glob=false in 0
            import 1:36 module="crate::geo" item="distance" bound="dist" alias=true glob=false in 0
            import 1:51 module="crate::geo::shapes" item="Circle" bound="Circle" alias=false glob=false in 0
            import 1:59 module="crate::geo::shapes" item="Square" bound="Square" alias=false glob=false in 0
            import 2:5 module="super" item="" bound="" alias=false glob=true in 0
            import 3:23 module="" item="alloc" bound="a" alias=true glob=false in 0
            ref 1:12 crate.geo
            ref 1:24 crate::geo.distance
            ref 1:42 crate::geo.shapes
            ref 1:51 crate::geo::shapes.Circle
            ref 1:59 crate::geo::shapes.Square
            ref 11:25 Circle.new
            ref 14:34 v.go
            ref 15:32 items.iter
            ref 15:39 items.iter().enumerate
            ref 17:11 c.radius
            ref 17:20 c.radius().powi
            ref 17:35 geo.distance
            ref 17:52 self.center
            impl Shape for Circle
        "#]]
        .assert_eq(&names_dump(Lang::Rust, src));
    }

    const GO: &str = include_str!("../../fixtures/go_shop/cart/cart.go");

    #[test]
    fn go_definitions_methods_by_receiver_and_docs() {
        expect_test::expect![[r#"
            (
                [
                    "constant TaxRate 9-9 | TaxRate",
                    "class Cart 12-16 | Cart struct",
                    "function New 19-21 | func New(owner string) *Cart",
                    "method Cart.Add 24-26 | func (c *Cart) Add(item Item)",
                    "method Cart.Total 29-35 | func (c *Cart) Total() float64",
                ],
                [
                    "TaxRate TaxRate is added to every total.",
                    "Cart Cart is one customer's basket.",
                    "New New makes an empty cart.",
                    "Cart.Add Add puts an item in the cart.",
                    "Cart.Total Total is the price with tax, after the discount.",
                ],
            )
        "#]]
        .assert_debug_eq(&(defs(Lang::Go, GO), docs(Lang::Go, GO)));
    }

    #[test]
    fn go_references() {
        expect_test::expect![[r#"
            [
                "13:8 string type use in Cart",
                "14:10 Item type use in Cart",
                "15:8 string type use in Cart",
                "19:10 owner name in New",
                "19:16 string type use in New",
                "19:25 Cart type use in New",
                "20:10 Cart type use in New",
                "20:15 Owner name in New",
                "20:22 owner name in New",
                "24:7 c name in Cart.Add",
                "24:10 Cart type use in Cart.Add",
                "24:20 item name in Cart.Add",
                "24:25 Item type use in Cart.Add",
                "25:2 c name in Cart.Add",
                "25:4 Items attribute in Cart.Add",
                "25:12 append call in Cart.Add",
                "25:19 c name in Cart.Add",
                "25:21 Items attribute in Cart.Add",
                "25:28 item name in Cart.Add",
                "29:7 c name in Cart.Total",
                "29:10 Cart type use in Cart.Total",
                "29:24 float64 type use in Cart.Total",
                "30:2 raw name in Cart.Total",
                "31:9 item name in Cart.Total",
                "31:23 c name in Cart.Total",
                "31:25 Items attribute in Cart.Total",
                "32:3 raw name in Cart.Total",
                "32:10 item name in Cart.Total",
                "32:15 Subtotal method call in Cart.Total",
                "34:9 pricing name in Cart.Total",
                "34:17 ApplyDiscount method call in Cart.Total",
                "34:31 raw name in Cart.Total",
                "34:36 c name in Cart.Total",
                "34:38 Code attribute in Cart.Total",
                "34:51 TaxRate name in Cart.Total",
            ]
        "#]]
        .assert_debug_eq(&refs(Lang::Go, GO));
    }

    #[test]
    fn go_scopes_bindings_and_imports() {
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Class parent 0 def Cart
            scope 2 Function parent 0 def New
            scope 3 Block parent 2 def -
            scope 4 Function parent 0 def Cart.Add
            scope 5 Block parent 4 def -
            scope 6 Function parent 0 def Cart.Total
            scope 7 Block parent 6 def -
            scope 8 Block parent 7 def -
            scope 9 Block parent 8 def -
            bind 13:2 Owner Field in 1 : string
            bind 14:2 Items Field in 1
            bind 15:2 Code Field in 1 : string
            bind 19:10 owner Param in 2 : string
            bind 24:7 c Param in 4 : Cart
            bind 24:20 item Param in 4 : Item
            bind 29:7 c Param in 6 : Cart
            bind 30:2 raw Let in 7
            bind 31:9 item Loop in 8
            import 5:2 module="example.com/shop/pricing" item="" bound="pricing" alias=false glob=false in 0
            ref 25:4 c.Items
            ref 25:21 c.Items
            ref 31:25 c.Items
            ref 32:15 item.Subtotal
            ref 34:17 pricing.ApplyDiscount
            ref 34:38 c.Code
        "#]]
        .assert_eq(&names_dump(Lang::Go, GO));
    }

    const C_CART: &str = include_str!("../../fixtures/c_shop/src/cart.c");
    const C_HEADER: &str = include_str!("../../fixtures/c_shop/include/shop/cart.h");
    const CPP_HEADER: &str = include_str!("../../fixtures/cpp_shop/include/shop/cart.hpp");
    const CPP_CART: &str = include_str!("../../fixtures/cpp_shop/src/cart.cpp");

    #[test]
    fn c_and_cpp_definitions_with_docs() {
        expect_test::expect![[r#"
            (
                [
                    "macro TAX_RATE 5-5 | #define TAX_RATE",
                    "class cart 8-13 | struct cart",
                    "type cart_t 15-15 | cart_t",
                ],
                [
                    "TAX_RATE Tax added to every total.",
                    "cart A customer's basket.",
                    "cart_t -",
                ],
                [
                    "function with_tax 6-8 | static double with_tax(double amount)",
                    "function cart_new 10-14 | struct cart *cart_new(const char *owner)",
                    "function cart_add 17-19 | void cart_add(struct cart *c, double price)",
                    "function cart_total 21-27 | double cart_total(const struct cart *c)",
                ],
                [
                    "module shop 6-31 | namespace shop",
                    "class shop::Item 9-17 | class Item",
                    "method shop::Item::Item 11-11 | Item(std::string name, double price)",
                    "method shop::Item::subtotal 12-12 | double subtotal() const",
                    "class shop::Cart 20-29 | class Cart",
                    "method shop::Cart::Cart 22-22 | explicit Cart(std::string owner)",
                    "method shop::Cart::add 23-23 | Cart& add(const Item& item)",
                    "method shop::Cart::total 24-24 | virtual double total() const",
                    "method shop::Cart::~Cart 25-25 | virtual ~Cart() = default",
                ],
                [
                    "shop -",
                    "shop::Item One thing to buy.",
                    "shop::Item::Item -",
                    "shop::Item::subtotal -",
                    "shop::Cart A customer's basket.",
                    "shop::Cart::Cart -",
                    "shop::Cart::add -",
                    "shop::Cart::total -",
                    "shop::Cart::~Cart -",
                ],
                [
                    "module shop 5-27 | namespace shop",
                    "method shop::Item::Item 7-7 | Item::Item(std::string name, double price) : name_(std::move(name)), price_(price)",
                    "method shop::Item::subtotal 9-9 | double Item::subtotal() const",
                    "method shop::Cart::Cart 11-11 | Cart::Cart(std::string owner)",
                    "method shop::Cart::add 14-17 | Cart& Cart::add(const Item& item)",
                    "method shop::Cart::total 19-25 | double Cart::total() const",
                ],
            )
        "#]].assert_debug_eq(&(
            defs(Lang::Cpp, C_HEADER),
            docs(Lang::Cpp, C_HEADER),
            defs(Lang::C, C_CART),
            defs(Lang::Cpp, CPP_HEADER),
            docs(Lang::Cpp, CPP_HEADER),
            defs(Lang::Cpp, CPP_CART),
        ));
    }

    #[test]
    fn c_and_cpp_names() {
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Function parent 0 def with_tax
            scope 2 Block parent 1 def -
            scope 3 Function parent 0 def cart_new
            scope 4 Block parent 3 def -
            scope 5 Function parent 0 def cart_add
            scope 6 Block parent 5 def -
            scope 7 Function parent 0 def cart_total
            scope 8 Block parent 7 def -
            scope 9 Block parent 8 def -
            scope 10 Block parent 9 def -
            bind 6:31 amount Param in 1
            bind 10:35 owner Param in 3
            bind 11:18 c Let in 4 : cart
            bind 17:28 c Param in 5 : cart
            bind 17:38 price Param in 5
            bind 21:38 c Param in 7 : cart
            bind 22:12 raw Let in 8
            bind 23:14 i Let in 9
            import 1:10 module="stdlib.h" item="" bound="" alias=false glob=true in 0
            import 3:10 module="shop/cart.h" item="" bound="" alias=false glob=true in 0
            import 4:10 module="pricing.h" item="" bound="" alias=false glob=true in 0
            ref 12:8 c.owner
            ref 18:8 c.items
            ref 18:17 c.count
            ref 23:28 c.count
            ref 24:19 c.items
            ref 26:44 c.code
            scope 0 File parent - def -
            scope 1 Module parent 0 def shop
            scope 2 Function parent 1 def shop::Item::Item
            scope 3 Block parent 2 def -
            scope 4 Function parent 1 def shop::Item::subtotal
            scope 5 Block parent 4 def -
            scope 6 Function parent 1 def shop::Cart::Cart
            scope 7 Block parent 6 def -
            scope 8 Function parent 1 def shop::Cart::add
            scope 9 Block parent 8 def -
            scope 10 Function parent 1 def shop::Cart::total
            scope 11 Block parent 10 def -
            scope 12 Block parent 11 def -
            scope 13 Block parent 12 def -
            bind 7:24 name Param in 2 : std.string
            bind 7:37 price Param in 2
            bind 11:24 owner Param in 6 : std.string
            bind 14:29 item Param in 8 : Item
            bind 20:12 raw Let in 11
            bind 21:22 i Loop in 12 : Item
            import 1:10 module="shop/cart.hpp" item="" bound="" alias=false glob=true in 0
            import 3:10 module="pricing.hpp" item="" bound="" alias=false glob=true in 0
            ref 7:17 std.string
            ref 7:57 std.move
            ref 11:17 std.string
            ref 15:12 items_.push_back
            ref 22:18 i.subtotal
            ref 24:21 pricing.apply_discount
        "#]]
        .assert_eq(&(names_dump(Lang::C, C_CART) + &names_dump(Lang::Cpp, CPP_CART)));
    }

    const JAVA: &str = include_str!("../../fixtures/java_shop/src/main/java/shop/Cart.java");

    #[test]
    fn java_definitions_nested_types_and_docs() {
        expect_test::expect![[r#"
            (
                [
                    "class Cart 9-41 | public class Cart",
                    "constant Cart.TAX_RATE 10-10 | public static final double TAX_RATE",
                    "method Cart.Cart 15-15 | public Cart(String owner)",
                    "method Cart.add 18-21 | public Cart add(Item item)",
                    "method Cart.total 23-29 | public double total()",
                    "method Cart.withTax 31-33 | private double withTax(double amount)",
                    "class Cart.Line 36-40 | public static class Line",
                    "method Cart.Line.render 37-39 | public String render(Item item)",
                ],
                [
                    "Cart A customer's basket.",
                    "Cart.TAX_RATE -",
                    "Cart.Cart -",
                    "Cart.add Puts an item in the cart.",
                    "Cart.total -",
                    "Cart.withTax -",
                    "Cart.Line One line of a receipt.",
                    "Cart.Line.render -",
                ],
            )
        "#]]
        .assert_debug_eq(&(defs(Lang::Java, JAVA), docs(Lang::Java, JAVA)));
    }

    #[test]
    fn java_names() {
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Class parent 0 def Cart
            scope 2 Function parent 1 def Cart.Cart
            scope 3 Function parent 1 def Cart.add
            scope 4 Block parent 3 def -
            scope 5 Function parent 1 def Cart.total
            scope 6 Block parent 5 def -
            scope 7 Block parent 6 def -
            scope 8 Block parent 7 def -
            scope 9 Function parent 1 def Cart.withTax
            scope 10 Block parent 9 def -
            scope 11 Class parent 1 def Cart.Line
            scope 12 Function parent 11 def Cart.Line.render
            scope 13 Block parent 12 def -
            bind 10:32 TAX_RATE Let in 1
            bind 12:30 items Let in 1 : List
            bind 13:22 code Let in 1 : String
            bind 15:24 owner Param in 2 : String
            bind 18:26 item Param in 3 : Item
            bind 24:16 raw Let in 6
            bind 25:19 i Loop in 7 : Item
            bind 31:35 amount Param in 9
            bind 37:35 item Param in 12 : Item
            import 1:9 module="shop" item="" bound="" alias=true glob=true in 0
            import 3:18 module="java.util" item="ArrayList" bound="ArrayList" alias=false glob=false in 0
            import 4:18 module="java.util" item="List" bound="List" alias=false glob=false in 0
            import 6:21 module="shop.pricing" item="Pricing" bound="Pricing" alias=false glob=false in 0
            ref 3:13 java.util
            ref 3:18 java.util.ArrayList
            ref 4:13 java.util
            ref 4:18 java.util.List
            ref 6:13 shop.pricing
            ref 6:21 shop.pricing.Pricing
            ref 19:15 items.add
            ref 26:22 i.subtotal
            ref 28:32 Pricing.applyDiscount
            ref 38:36 item.subtotal
        "#]]
        .assert_eq(&names_dump(Lang::Java, JAVA));
    }

    const TS: &str = include_str!("../../fixtures/ts_shop/src/cart.ts");
    const JS: &str = include_str!("../../fixtures/js_shop/lib/cart.js");

    #[test]
    fn typescript_and_javascript_definitions_with_docs() {
        expect_test::expect![[r#"
            (
                [
                    "constant TAX_RATE 4-4 | TAX_RATE",
                    "class Cart 7-22 | class Cart",
                    "method Cart.constructor 11-11 | constructor(public owner: string)",
                    "method Cart.add 14-16 | add(item: Item): void",
                    "method Cart.total 18-21 | total(): number",
                ],
                [
                    "TAX_RATE -",
                    "Cart A customer's basket.",
                    "Cart.constructor -",
                    "Cart.add Puts an item in the cart.",
                    "Cart.total -",
                ],
                [
                    "class Cart 4-18 | class Cart",
                    "method Cart.constructor 5-8 | constructor(owner)",
                    "method Cart.add 10-12 | add(item)",
                    "method Cart.total 14-17 | total()",
                ],
                [
                    "Cart A customer's basket.",
                    "Cart.constructor -",
                    "Cart.add -",
                    "Cart.total -",
                ],
            )
        "#]]
        .assert_debug_eq(&(
            defs(Lang::TypeScript, TS),
            docs(Lang::TypeScript, TS),
            defs(Lang::JavaScript, JS),
            docs(Lang::JavaScript, JS),
        ));
    }

    #[test]
    fn commonjs_exports_and_prototype_methods_are_definitions() {
        let src = "/** Wraps a value. */\nexports.castArray = function castArray(v) {\n  return [v];\n};\nmodule.exports.isString = (x) => typeof x === 'string';\nfunction Runner() {}\n/** Runs it. */\nRunner.prototype.run = function (fn) {\n  return fn();\n};\nobj.prototype.x = 1;\nfoo.exports.y = function () {};\n";
        expect_test::expect![[r#"
            (
                [
                    "function castArray 2-4 | exports.castArray = function castArray(v)",
                    "function isString 5-5 | module.exports.isString = (x) =>",
                    "function Runner 6-6 | function Runner()",
                    "method Runner.run 8-10 | Runner.prototype.run = function (fn)",
                ],
                [
                    "castArray Wraps a value.",
                    "isString -",
                    "Runner -",
                    "Runner.run Runs it.",
                ],
            )
        "#]]
        .assert_debug_eq(&(defs(Lang::JavaScript, src), docs(Lang::JavaScript, src)));
    }

    #[test]
    fn typescript_and_javascript_names() {
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Class parent 0 def Cart
            scope 2 Function parent 1 def Cart.constructor
            scope 3 Block parent 2 def -
            scope 4 Function parent 1 def Cart.add
            scope 5 Block parent 4 def -
            scope 6 Function parent 1 def Cart.total
            scope 7 Block parent 6 def -
            scope 8 Lambda parent 7 def -
            bind 4:14 TAX_RATE Let in 0
            bind 8:3 items Field in 1
            bind 9:3 code Field in 1 : string
            bind 11:22 owner Param in 2 : string
            bind 14:7 item Param in 4 : Item
            bind 19:11 raw Let in 7 : this.items.reduce()
            bind 19:36 sum Param in 8
            bind 19:41 i Param in 8
            import 1:10 module="./item" item="Item" bound="Item" alias=false glob=false in 0
            import 2:10 module="./pricing" item="applyDiscount" bound="applyDiscount" alias=false glob=false in 0
            ref 1:10 ./item.Item
            ref 2:10 ./pricing.applyDiscount
            ref 15:10 this.items
            ref 15:16 this.items.push
            ref 19:22 this.items
            ref 19:28 this.items.reduce
            ref 19:55 i.subtotal
            ref 20:36 this.code
        "#]].assert_eq(&names_dump(Lang::TypeScript, TS));
        expect_test::expect![[r#"
            scope 0 File parent - def -
            scope 1 Class parent 0 def Cart
            scope 2 Function parent 1 def Cart.constructor
            scope 3 Block parent 2 def -
            scope 4 Function parent 1 def Cart.add
            scope 5 Block parent 4 def -
            scope 6 Function parent 1 def Cart.total
            scope 7 Block parent 6 def -
            scope 8 Lambda parent 7 def -
            bind 1:9 applyDiscount Let in 0
            bind 5:15 owner Param in 2
            bind 10:7 item Param in 4
            bind 15:11 raw Let in 7 : this.items.reduce()
            bind 15:36 sum Param in 8
            bind 15:41 i Param in 8
            import 1:9 module="./pricing" item="applyDiscount" bound="applyDiscount" alias=false glob=false in 0
            ref 1:27 ./pricing.require
            ref 6:10 this.owner
            ref 7:10 this.items
            ref 11:10 this.items
            ref 11:16 this.items.push
            ref 15:22 this.items
            ref 15:28 this.items.reduce
            ref 15:55 i.price
            ref 16:36 this.code
            ref 20:8 module.exports
        "#]].assert_eq(&names_dump(Lang::JavaScript, JS));
    }
}
