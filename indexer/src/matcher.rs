//! Runs the query files (`queries/<lang>/*.scm`) over a tree: one cursor walk lays the visible
//! nodes out flat, then each pattern is checked top-down wherever its root kind occurs.
//!
//! tree-sitter's `QueryCursor` is general (quantifiers, anchors, many patterns in flight) and
//! pays for it on every node: on the CPython standard library it cost 0.54× the parse itself,
//! where a plain walk costs 0.17× and this matcher 0.25× (`examples/extract_phases.rs`). tack's
//! queries use a small part of the language: node kinds, fields, named children in order, `(_)`,
//! alternatives `[…]`, captures, absent fields (`!object`), and the predicates `#eq?`, `#match?`
//! and `#top-level?`. This module
//! compiles that subset (anything else is a compile error naming the construct); a test holds
//! its matches to tree-sitter's own on the fixtures and tack's sources, and the queries are
//! still compiled by tree-sitter too.

use tree_sitter::{Language, Node, Tree};

/// One captured node.
#[derive(Debug, Clone, Copy)]
pub struct Capture<'tree> {
    pub index: u32,
    pub node: Node<'tree>,
    /// Where the node sits in the [`Layout`]: ask it for ancestors.
    pub at: u32,
}

/// The visible nodes of a tree laid out flat (anonymous leaves left out), in document order.
pub struct Layout<'tree> {
    nodes: Vec<Flat<'tree>>,
}

impl<'tree> Layout<'tree> {
    /// The parent of the node at `at`, as the tree has it (hidden nodes looked through), found
    /// by index where `Node::parent` searches down from the root.
    pub fn parent(&self, at: u32) -> Option<(u32, Node<'tree>)> {
        let parent = self.nodes.get(at as usize)?.parent;
        (parent != NO_NODE).then(|| (parent, self.nodes[parent as usize].node))
    }

    /// The node at `at` and up to `N - 1` of its ancestors, nearest first.
    pub fn ancestors<const N: usize>(&self, at: u32) -> [Option<Node<'tree>>; N] {
        let mut out = [None; N];
        let mut here = Some(at);
        for slot in &mut out {
            let Some(i) = here else { break };
            *slot = self.nodes.get(i as usize).map(|f| f.node);
            here = self.parent(i).map(|(p, _)| p);
        }
        out
    }
}

/// The compiled patterns of one language.
#[derive(Debug)]
pub struct Patterns {
    capture_names: Vec<String>,
    patterns: Vec<Pattern>,
    /// By node kind id: the patterns whose root can be a node of that kind.
    by_kind: Vec<Vec<u32>>,
    /// By node kind id: whether the kind is named (one table lookup, not a call per node).
    named: Vec<bool>,
    /// By node kind id: whether some step of that kind constrains its children's fields, so
    /// the walk asks for a child's field only under such a parent.
    needs_fields: Vec<bool>,
}

#[derive(Debug)]
struct Pattern {
    root: Step,
    predicates: Vec<Predicate>,
}

#[derive(Debug)]
enum Predicate {
    /// The capture's text equals the string.
    Eq(u32, String),
    /// The capture's text matches the regular expression somewhere.
    Match(u32, regex::bytes::Regex),
    /// The captured node begins a child of the root (a statement or item of the file itself).
    TopLevel(u32),
}

#[derive(Debug)]
struct Step {
    /// The field the node must sit in, for a child step.
    field: Option<u16>,
    shape: Shape,
    captures: Vec<u32>,
}

#[derive(Debug)]
enum Shape {
    /// A named node of one of these kind ids (`None`: any named node, `(_)`), whose named
    /// children match `children` in order, and that has no child in the fields `absent`.
    Node { kinds: Option<Vec<u16>>, children: Vec<Step>, absent: Vec<u16> },
    /// Any of these; each alternative that matches yields its own matches.
    Any(Vec<Step>),
}

impl Patterns {
    /// Compiles query source for `language`; the error names the line and what is wrong.
    pub fn new(language: &Language, source: &str) -> Result<Patterns, crate::Error> {
        Self::compile(language, source).map_err(|reason| crate::Error::Query { reason })
    }

    /// [`Patterns::new`], with the parser's own error: the line and what is wrong there.
    fn compile(language: &Language, source: &str) -> Result<Patterns, String> {
        let tokens = tokenize(source)?;
        let mut parser = ScmParser { tokens, at: 0, language, capture_names: Vec::new() };
        let mut patterns = Vec::new();
        while parser.at < parser.tokens.len() {
            patterns.push(parser.pattern()?);
        }
        let n_kinds = language.node_kind_count();
        let mut by_kind = vec![Vec::new(); n_kinds];
        let mut needs_fields = vec![false; n_kinds];
        for (i, pattern) in patterns.iter().enumerate() {
            let mut kinds = Vec::new();
            root_kinds(&pattern.root, &mut kinds)?;
            for kind in kinds {
                by_kind[kind as usize].push(i as u32);
            }
            mark_field_parents(&pattern.root, &mut needs_fields);
        }
        let named = (0..n_kinds as u16).map(|id| language.node_kind_is_named(id)).collect();
        Ok(Patterns { capture_names: parser.capture_names, patterns, by_kind, named, needs_fields })
    }

    pub fn capture_names(&self) -> &[String] {
        &self.capture_names
    }

    /// Calls `found(pattern index, captures)` for every match, roots in document order and, at
    /// one root, patterns in file order; returns the layout the captures point into.
    pub fn for_each_match<'tree>(
        &self,
        tree: &'tree Tree,
        source: &[u8],
        found: &mut dyn FnMut(usize, &[Capture<'tree>]),
    ) -> Layout<'tree> {
        let nodes = self.flatten(tree, source.len());
        let mut top_starts: Option<Vec<usize>> = None;
        let mut caps: Vec<Capture<'tree>> = Vec::new();
        for at in 0..nodes.len() as u32 {
            let Some(candidates) = self.by_kind.get(nodes[at as usize].kind as usize) else { continue };
            for &p in candidates {
                let pattern = &self.patterns[p as usize];
                let mut emit = |caps: &mut Vec<Capture<'tree>>| {
                    if pattern.predicates.iter().all(|p| holds(p, caps, source, tree, &mut top_starts)) {
                        found(p as usize, caps);
                    }
                };
                caps.clear();
                match_at(&pattern.root, &nodes, at, &mut caps, &mut emit);
            }
        }
        Layout { nodes }
    }

    /// The visible nodes of `tree` in one cursor walk: hidden nodes are looked through and
    /// their fields passed down, as the query language does. Anonymous leaves (punctuation,
    /// keywords: nearly half the nodes) are left out, as no pattern can name them.
    fn flatten<'tree>(&self, tree: &'tree Tree, source_len: usize) -> Vec<Flat<'tree>> {
        // About one named node per 8 bytes of source in both grammars.
        let mut nodes: Vec<Flat> = Vec::with_capacity(source_len / 8 + 16);
        // Per open ancestor: its index and the index of its last child so far.
        let mut open: Vec<(u32, u32)> = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let kind = node.kind_id();
            // ERROR nodes have an id past the table.
            let named = self.named.get(kind as usize).copied().unwrap_or_else(|| node.is_named());
            let mut field = 0;
            if named
                && let Some((parent, _)) = open.last()
                && self.needs_fields.get(nodes[*parent as usize].kind as usize).copied().unwrap_or(true)
            {
                field = cursor.field_id().map_or(0, |f| f.get());
            }
            let has_children = cursor.goto_first_child();
            if named || has_children {
                let at = nodes.len() as u32;
                if let Some((parent, last)) = open.last_mut() {
                    if *last == NO_NODE {
                        nodes[*parent as usize].first_child = at;
                    } else {
                        nodes[*last as usize].next_sibling = at;
                    }
                    *last = at;
                }
                let parent = open.last().map_or(NO_NODE, |(p, _)| *p);
                nodes.push(Flat {
                    node,
                    kind,
                    named,
                    field,
                    parent,
                    first_child: NO_NODE,
                    next_sibling: NO_NODE,
                });
                if has_children {
                    open.push((at, NO_NODE));
                    continue;
                }
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return nodes;
                }
                open.pop();
            }
        }
    }
}

/// One visible node of the tree, in document order, linked to its first child and next sibling.
struct Flat<'tree> {
    node: Node<'tree>,
    kind: u16,
    named: bool,
    /// The field the node sits in within its parent (0: none).
    field: u16,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
}

const NO_NODE: u32 = u32::MAX;

type Emit<'e, 'tree> = &'e mut dyn FnMut(&mut Vec<Capture<'tree>>);

fn holds(
    predicate: &Predicate,
    caps: &[Capture],
    source: &[u8],
    tree: &Tree,
    top_starts: &mut Option<Vec<usize>>,
) -> bool {
    match predicate {
        Predicate::Eq(capture, text) => caps
            .iter()
            .filter(|c| c.index == *capture)
            .all(|c| source.get(c.node.byte_range()) == Some(text.as_bytes())),
        Predicate::Match(capture, regex) => caps
            .iter()
            .filter(|c| c.index == *capture)
            .all(|c| source.get(c.node.byte_range()).is_some_and(|text| regex.is_match(text))),
        Predicate::TopLevel(capture) => {
            let starts = top_starts.get_or_insert_with(|| {
                let root = tree.root_node();
                let mut cursor = root.walk();
                root.children(&mut cursor).map(|c| c.start_byte()).collect()
            });
            caps.iter()
                .filter(|c| c.index == *capture)
                .all(|c| starts.binary_search(&c.node.start_byte()).is_ok())
        }
    }
}

/// Matches `step` at `nodes[at]`, calling `emit` once per way it matches.
fn match_at<'tree>(
    step: &Step,
    nodes: &[Flat<'tree>],
    at: u32,
    caps: &mut Vec<Capture<'tree>>,
    emit: Emit<'_, 'tree>,
) {
    let flat = &nodes[at as usize];
    let mark = caps.len();
    match &step.shape {
        Shape::Any(alternatives) => {
            for alternative in alternatives.iter().filter(|a| kind_matches(a, flat)) {
                caps.extend(step.captures.iter().map(|&index| Capture { index, node: flat.node, at }));
                match_at(alternative, nodes, at, caps, emit);
                caps.truncate(mark);
            }
        }
        Shape::Node { children, absent, .. } => {
            if kind_matches(step, flat) && absent.iter().all(|&f| flat.node.child_by_field_id(f).is_none()) {
                caps.extend(step.captures.iter().map(|&index| Capture { index, node: flat.node, at }));
                match_children(children, nodes, flat.first_child, caps, emit);
                caps.truncate(mark);
            }
        }
    }
}

/// Matches `steps` in order against the siblings from `from` on, each step on a later sibling
/// than the one before it.
fn match_children<'tree>(
    steps: &[Step],
    nodes: &[Flat<'tree>],
    from: u32,
    caps: &mut Vec<Capture<'tree>>,
    emit: Emit<'_, 'tree>,
) {
    let Some((step, rest)) = steps.split_first() else {
        emit(caps);
        return;
    };
    let mut at = from;
    while at != NO_NODE {
        let flat = &nodes[at as usize];
        if step.field.is_none_or(|f| f == flat.field) && kind_matches(step, flat) {
            let next_sibling = flat.next_sibling;
            let mut next =
                |caps: &mut Vec<Capture<'tree>>| match_children(rest, nodes, next_sibling, caps, emit);
            match_at(step, nodes, at, caps, &mut next);
        }
        at = flat.next_sibling;
    }
}

fn kind_matches(step: &Step, flat: &Flat) -> bool {
    match &step.shape {
        Shape::Node { kinds: None, .. } => flat.named,
        Shape::Node { kinds: Some(ids), .. } => ids.contains(&flat.kind),
        Shape::Any(alternatives) => alternatives.iter().any(|a| kind_matches(a, flat)),
    }
}

/// Marks the kinds of every step that constrains a child's field (all kinds, for `(_)`).
fn mark_field_parents(step: &Step, out: &mut [bool]) {
    match &step.shape {
        Shape::Node { kinds, children, .. } => {
            if children.iter().any(|c| c.field.is_some()) {
                match kinds {
                    Some(ids) => ids.iter().for_each(|&id| out[id as usize] = true),
                    None => out.iter_mut().for_each(|b| *b = true),
                }
            }
            children.iter().for_each(|c| mark_field_parents(c, out));
        }
        Shape::Any(alternatives) => alternatives.iter().for_each(|a| mark_field_parents(a, out)),
    }
}

fn root_kinds(step: &Step, out: &mut Vec<u16>) -> Result<(), String> {
    match &step.shape {
        Shape::Node { kinds: Some(ids), .. } => out.extend(ids),
        Shape::Node { kinds: None, .. } => return Err("a pattern cannot start with (_)".into()),
        Shape::Any(alternatives) => {
            for alternative in alternatives {
                root_kinds(alternative, out)?;
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    OpenAlt,
    CloseAlt,
    Capture(String),
    Text(String),
    Field(String),
    Predicate(String),
    /// `!field`: the node has no child in this field.
    Absent(String),
    Word(String),
}

fn tokenize(source: &str) -> Result<Vec<(Token, usize)>, String> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    let line_of = |at: usize| source[..at].matches('\n').count() + 1;
    let word = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        let mut w = String::new();
        while let Some(&(_, c)) = chars.peek() {
            if c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '?' | '!') {
                w.push(c);
                chars.next();
            } else {
                break;
            }
        }
        w
    };
    while let Some(&(at, c)) = chars.peek() {
        let line = line_of(at);
        match c {
            ';' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' | '[' | ']' => {
                chars.next();
                let token = match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    '[' => Token::OpenAlt,
                    _ => Token::CloseAlt,
                };
                tokens.push((token, line));
            }
            '@' => {
                chars.next();
                tokens.push((Token::Capture(word(&mut chars)), line));
            }
            '#' => {
                chars.next();
                tokens.push((Token::Predicate(word(&mut chars)), line));
            }
            '!' => {
                chars.next();
                tokens.push((Token::Absent(word(&mut chars)), line));
            }
            '"' => {
                chars.next();
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => text.extend(chars.next().map(|(_, c)| c)),
                        Some((_, c)) => text.push(c),
                        None => return Err(format!("line {line}: unterminated string")),
                    }
                }
                tokens.push((Token::Text(text), line));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let w = word(&mut chars);
                if chars.next_if(|&(_, c)| c == ':').is_some() {
                    tokens.push((Token::Field(w), line));
                } else {
                    tokens.push((Token::Word(w), line));
                }
            }
            other => return Err(format!("line {line}: `{other}` is not supported by tack's matcher")),
        }
    }
    Ok(tokens)
}

struct ScmParser<'a> {
    tokens: Vec<(Token, usize)>,
    at: usize,
    language: &'a Language,
    capture_names: Vec<String>,
}

impl ScmParser<'_> {
    fn peek(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.at + ahead).map(|(t, _)| t)
    }

    fn line(&self) -> usize {
        self.tokens.get(self.at).or(self.tokens.last()).map_or(0, |(_, line)| *line)
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("line {}: {what}", self.line()))
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).map(|(t, _)| t.clone());
        self.at += 1;
        token
    }

    fn expect(&mut self, token: Token) -> Result<(), String> {
        match self.next() {
            Some(t) if t == token => Ok(()),
            other => {
                self.at -= 1;
                self.error(&format!("expected {token:?}, found {other:?}"))
            }
        }
    }

    /// One top-level pattern: a node or alternatives with captures, or a group of one such
    /// pattern and its predicates.
    fn pattern(&mut self) -> Result<Pattern, String> {
        let mut predicates = Vec::new();
        let grouped =
            self.peek(0) == Some(&Token::Open) && matches!(self.peek(1), Some(Token::Open | Token::OpenAlt));
        if grouped {
            self.next();
        }
        let root = self.step(None, &mut predicates)?;
        if grouped {
            while self.peek(0) == Some(&Token::Open) {
                match self.peek(1) {
                    Some(Token::Predicate(_)) => predicates.push(self.predicate()?),
                    _ => return self.error("a group holds one pattern and its predicates"),
                }
            }
            self.expect(Token::Close)?;
        }
        Ok(Pattern { root, predicates })
    }

    fn step(&mut self, field: Option<u16>, predicates: &mut Vec<Predicate>) -> Result<Step, String> {
        let shape = match self.next() {
            Some(Token::OpenAlt) => {
                let mut alternatives = Vec::new();
                while self.peek(0) != Some(&Token::CloseAlt) {
                    if self.peek(0).is_none() {
                        return self.error("unclosed [");
                    }
                    alternatives.push(self.step(None, predicates)?);
                }
                self.next();
                Shape::Any(alternatives)
            }
            Some(Token::Open) => {
                let kinds = match self.next() {
                    Some(Token::Word(w)) if w == "_" => None,
                    Some(Token::Word(w)) => Some(self.kind_ids(&w)?),
                    _ => return self.error("expected a node kind after ("),
                };
                let mut children = Vec::new();
                let mut absent = Vec::new();
                loop {
                    match self.peek(0) {
                        Some(Token::Close) => {
                            self.next();
                            break;
                        }
                        Some(Token::Open) if matches!(self.peek(1), Some(Token::Predicate(_))) => {
                            predicates.push(self.predicate()?);
                        }
                        Some(Token::Field(name)) => {
                            let name = name.clone();
                            self.next();
                            let Some(id) = self.language.field_id_for_name(&name) else {
                                return self.error(&format!("no field `{name}` in this grammar"));
                            };
                            children.push(self.step(Some(id.get()), predicates)?);
                        }
                        Some(Token::Absent(name)) => {
                            let name = name.clone();
                            self.next();
                            let Some(id) = self.language.field_id_for_name(&name) else {
                                return self.error(&format!("no field `{name}` in this grammar"));
                            };
                            absent.push(id.get());
                        }
                        Some(Token::Open | Token::OpenAlt) => children.push(self.step(None, predicates)?),
                        None => return self.error("unclosed ("),
                        Some(other) => {
                            return self.error(&format!("{other:?} is not supported by tack's matcher"));
                        }
                    }
                }
                Shape::Node { kinds, children, absent }
            }
            other => {
                self.at -= 1;
                return self.error(&format!("expected ( or [, found {other:?}"));
            }
        };
        let mut captures = Vec::new();
        while let Some(Token::Capture(name)) = self.peek(0) {
            let name = name.clone();
            self.next();
            captures.push(self.capture_index(&name));
        }
        Ok(Step { field, shape, captures })
    }

    fn predicate(&mut self) -> Result<Predicate, String> {
        self.expect(Token::Open)?;
        let Some(Token::Predicate(name)) = self.next() else { return self.error("expected a predicate") };
        let capture = match self.next() {
            Some(Token::Capture(c)) => self.capture_index(&c),
            _ => return self.error(&format!("#{name} takes a capture first")),
        };
        let predicate = match (name.as_str(), self.next()) {
            ("eq?", Some(Token::Text(text))) => Predicate::Eq(capture, text),
            ("match?", Some(Token::Text(pattern))) => match regex::bytes::Regex::new(&pattern) {
                Ok(regex) => Predicate::Match(capture, regex),
                Err(err) => return self.error(&format!("#match? pattern: {err}")),
            },
            ("top-level?", Some(Token::Close)) => {
                self.at -= 1;
                Predicate::TopLevel(capture)
            }
            _ => {
                return self.error(&format!(
                    "#{name} is not supported (tack knows #eq? @c \"text\", #match? @c \"regex\" and #top-level? @c)"
                ));
            }
        };
        self.expect(Token::Close)?;
        Ok(predicate)
    }

    fn capture_index(&mut self, name: &str) -> u32 {
        match self.capture_names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.capture_names.push(name.to_string());
                self.capture_names.len() as u32 - 1
            }
        }
    }

    /// Every id of a named, visible node kind of this name (aliases can give one name several).
    fn kind_ids(&self, name: &str) -> Result<Vec<u16>, String> {
        let ids: Vec<u16> = (0..self.language.node_kind_count() as u16)
            .filter(|&id| {
                self.language.node_kind_is_named(id)
                    && self.language.node_kind_is_visible(id)
                    && self.language.node_kind_for_id(id) == Some(name)
            })
            .collect();
        if ids.is_empty() {
            return self.error(&format!(
                "no visible named node `{name}` in this grammar (supertypes are not supported)"
            ));
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use tree_sitter::{Parser, QueryCursor, QueryPredicateArg, StreamingIterator};

    use super::*;
    use crate::lang::specs;
    use crate::snapshot::Lang;

    /// One match as (pattern index, sorted (capture name, byte range)).
    type Found = (usize, Vec<(String, usize, usize)>);

    fn captured(name: &str, node: Node) -> (String, usize, usize) {
        (name.to_string(), node.start_byte(), node.end_byte())
    }

    fn ours(lang: Lang, tree: &Tree, source: &str) -> Vec<Found> {
        let patterns = lang.patterns();
        let mut out = Vec::new();
        patterns.for_each_match(tree, source.as_bytes(), &mut |p, caps| {
            let mut caps: Vec<_> =
                caps.iter().map(|c| captured(&patterns.capture_names()[c.index as usize], c.node)).collect();
            caps.sort();
            out.push((p, caps));
        });
        out.sort();
        out
    }

    /// tree-sitter's own matches, with `#top-level?` (a predicate it leaves to the caller) applied.
    fn reference(lang: Lang, tree: &Tree, source: &str) -> Vec<Found> {
        let query = lang.query();
        let root = tree.root_node();
        let mut walk = root.walk();
        let top: Vec<usize> = root.children(&mut walk).map(|c| c.start_byte()).collect();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, root, source.as_bytes());
        let mut out = Vec::new();
        while let Some(m) = matches.next() {
            let top_level = query.general_predicates(m.pattern_index).iter().all(|p| match &*p.args {
                [QueryPredicateArg::Capture(c)] if &*p.operator == "top-level?" => m
                    .captures()
                    .iter()
                    .filter(|cap| cap.index == *c)
                    .all(|cap| top.binary_search(&cap.node.start_byte()).is_ok()),
                _ => panic!("unexpected predicate {p:?}"),
            });
            if !top_level {
                continue;
            }
            let mut caps: Vec<_> = m
                .captures()
                .iter()
                .map(|c| captured(query.capture_names()[c.index as usize], c.node))
                .collect();
            caps.sort();
            out.push((m.pattern_index, caps));
        }
        out.sort();
        out
    }

    fn sources(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, ext, out);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }

    /// Every match tree-sitter's query engine finds, and no other: on the fixtures, on tack's
    /// own Python and Rust sources, and on broken files.
    #[test]
    fn matches_what_tree_sitter_matches() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace");
        let broken = [
            (Lang::Python, "def f(:\n    x = g(a=1\nclass C(B):\n    y: int = h()\n__all__ = ['f']\n"),
            (Lang::Rust, "fn f( { let x: T = g::h(; }\nimpl A for B { fn m(&self) -> u8 { self.x.y() } }\n"),
            (Lang::Go, "package p\nfunc f( {\n\tx := T{}\n\tx.m(\n}\nfunc (r *R) g() int { return r.h() }\n"),
            (
                Lang::JavaScript,
                r#"import def, { a as b, c } from "./m";
import * as ns from "./n";
export * from "./o";
export { p, q as r } from "./p";
export * as all from "./q";
const { x, y: z } = require("./r");
const w = require("./w");
export default class K extends ns.Base {
  static s = 1;
  #h = 2;
  constructor(a, { b }, ...rest) { super(a); this.a = a; }
  get g() { return this.#h; }
  *gen() { yield* [1]; }
  async m(f = () => 1) { for (const [i, j] of Object.entries(this)) { try { f(i, j); } catch (e) { throw new Error(e.message); } } }
}
function* gf() {}
export const arrow = async (u) => u?.v?.(w);
let v1 = new K(), v2 = v1;
label: for (var i = 0; i < 2; i++) { if (i) continue label; }
const el = <div className="x">{arrow(1)}</div>;
exports.f = function f() {}; module.exports.g = () => 1; K.prototype.m = function () { return this; };
"#,
            ),
            (
                Lang::JavaScript,
                "function f( {\n  const x = new ;\n  x.m(\n}\nclass C extends { m() { this.n() } }\n",
            ),
            (
                Lang::TypeScript,
                r#"import type { T } from "./t";
import fs = require("fs");
export abstract class A<T> implements I, J<T> {
  abstract m(x: T): void;
  private readonly f: Map<string, T> = new Map();
  constructor(public p: string, protected q?: number) { super(); }
  g<U>(this: A<T>, u: U): U { return u as U; }
}
export interface I extends J<number> { n(): string; readonly k?: number; [key: string]: unknown }
export type U = string | number;
export enum E { One = 1, Two }
namespace NS { export const c = 1; }
declare function d(a: number): string;
export function h(a: A<string>, ...b: number[]): A<string> { const c: A<string> = a; return c!; }
const o = { m() { return 1; }, n: (x: number): number => x };
for (const k in o) { console.log(k satisfies string); }
"#,
            ),
            (
                Lang::TypeScript,
                "function f(a: {\n  const x: = new C<;\n}\nclass D implements { m(): { return this.n() } }\n",
            ),
            (
                Lang::Tsx,
                r#"import * as UI from "./ui";
export const Id = <T,>(x: T): T => x;
export function Row({ a, b }: { a: string; b?: number }) {
  const [s, set] = useState<number>(0);
  return <>
    <UI.Button onClick={() => set(s + 1)} disabled>{a}</UI.Button>
    <Cell {...{ b }} />
    {b && <span key={b}>{Id(b)}</span>}
  </>;
}
class Panel extends React.Component<Props> { render() { return <div>{this.props.x}</div>; } }
const broken = <Row a="x" ;
"#,
            ),
            (
                Lang::Java,
                r#"package a.b;
import static a.b.C.*;
import a.b.c.*;
@interface Note { String value() default ""; }
public sealed interface Shape permits Sq {}
record Sq(double side) implements Shape { Sq { assert side > 0; } }
enum Kind { ONE(1) { int f() { return 2; } }, TWO(2); Kind(int n) {} int f() { return 1; } }
@SuppressWarnings("x") final class K<T extends Comparable<T>> extends B<T> implements I, J<T> {
  private static final int MAX = 3, MIN = 1;
  int[] xs = {1, 2};
  K() { this(1); }
  K(int n) { super(n); }
  <U> U m(T t, U... us) throws E {
    var r = new java.util.ArrayList<U>();
    for (U u : us) { r.add(u); }
    try (var in = open()) { in.read(); } catch (IOException | RuntimeException e) { throw e; } finally {}
    Runnable run = () -> this.m(t);
    java.util.function.Function<T, U> g = x -> us[0];
    Object o = new Object() { public String toString() { return super.toString(); } };
    if (o instanceof String s && !s.isEmpty()) { s.length(); }
    switch (MAX) { case 1 -> r.clear(); default -> { } }
    return K.<U>id(us[0]);
  }
  static <V> V id(V v) { return Outer.Inner.make(String::valueOf, v); }
}
class Broken { void f( { int x = ; } void g() { h(; } }
"#,
            ),
            (
                Lang::C,
                r#"#include "a/b.h"
#include <stdio.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define N 3
typedef int (*cmp_fn)(const void *, const void *);
typedef struct { int x; } point_t;
typedef union u { int i; float f; } u_t;
enum kind { ONE = 1, TWO };
static const char *names[N] = {"a", "b"};
int counter = 0;
static char **split(char *s, int *n) { return NULL; }
int main(int argc, char **argv) {
    struct point p = {.x = 1};
    point_t *q = &p;
    for (int i = 0; i < argc; i++) { q->x += MAX(i, N); }
    cmp_fn f = compare;
    return f(&p, q) + sizeof(struct point) + ONE;
}
void broken(int a { int b = ; }
"#,
            ),
            (
                Lang::Cpp,
                r#"#include "shop/cart.hpp"
namespace a::b { inline namespace v1 { int f(); } }
template <typename T> class Box : public Base<T>, private Other {
public:
    Box() = default;
    explicit Box(T t) : t_(t) {}
    ~Box() override;
    T& get() { return t_; }
    static Box* make();
    template <typename U> U as() const;
    Box& operator=(const Box&) = delete;
private:
    T t_;
};
template <typename T> Box<T>::~Box() {}
template <typename T> Box<T>* Box<T>::make() { return new Box<T>(); }
using IntBox = Box<int>;
struct S { int x; void m() const noexcept; };
void S::m() const noexcept { auto g = [this](int y) { return x + y; }; g(1); }
int main() {
    std::vector<int> v{1, 2};
    for (auto& e : v) { std::cout << e; }
    a::b::f();
    auto* b = new Box<int>(3);
    return b->get() + Box<int>::make()->template as<int>();
}
class Broken { void f( { } };
"#,
            ),
            // Not broken: the constructs the Go fixture lacks.
            (
                Lang::Go,
                "package p\nimport (\n\t. \"a/b\"\n\t_ \"c\"\n\td \"e/f\"\n)\ntype (\n\tL[T any] struct{ x T }\n\tA = L[int]\n\tI interface{ io.Reader; M() }\n)\nvar (\n\tv1, v2 = 1, 2\n)\nconst c1 = iota\nfunc G[T any](t T) (n int, err error) {\n\tswitch y := any(t).(type) {\n\tcase int:\n\t\tn = y\n\t}\n\tselect {\n\tcase m := <-ch:\n\t\t_ = m\n\tdefault:\n\t}\n\tf := func(a ...int) {}\n\tvar w d.W\n\tw.Go(f)\n\tfor i, k := range []int{} {\n\t\tif z := &L[int]{}; z != nil {\n\t\t\tz.x = i + k\n\t\t}\n\t}\n\treturn\n}\n",
            ),
        ];
        for spec in specs() {
            let mut files = Vec::new();
            // A language's family's files too: TSX has few fixtures of its own, and the
            // comparison holds on any input, parsed cleanly or not.
            let exts = specs().filter(|s| s.family == spec.family).flat_map(|s| s.extensions.iter());
            for ext in exts {
                for dir in ["fixtures", "bench", "indexer/src", "tools/src", "server/src"] {
                    sources(&workspace.join(dir), ext, &mut files);
                }
            }
            assert!(files.len() >= 5, "{}: only {} files to compare on", spec.name, files.len());
            let mut texts: Vec<(String, String)> = files
                .iter()
                .map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("utf-8 source")))
                .collect();
            texts.extend(
                broken.iter().filter(|(l, _)| *l == spec.lang).map(|(_, t)| ("broken".into(), t.to_string())),
            );
            let mut parser = Parser::new();
            parser.set_language(&(spec.grammar)()).expect("grammar");
            let mut total = 0;
            for (name, text) in &texts {
                let tree = parser.parse(text, None).expect("a tree");
                let expected = reference(spec.lang, &tree, text);
                total += expected.len();
                assert_eq!(ours(spec.lang, &tree, text), expected, "{name}");
            }
            // tack's own sources hold Python and Rust; the other languages have their fixtures.
            let floor = if files.len() > 20 { 1000 } else { 200 };
            assert!(total > floor, "{}: only {total} matches compared", spec.name);
        }
    }

    fn compile_error(source: &str) -> String {
        match Patterns::new(&Lang::Python.grammar(), source) {
            Err(crate::Error::Query { reason }) => reason,
            other => panic!("should not compile: {other:?}"),
        }
    }

    #[test]
    fn what_it_cannot_run_is_a_compile_error() {
        assert_eq!(compile_error("(call)*"), "line 1: `*` is not supported by tack's matcher");
        assert_eq!(
            compile_error("(call\n  \"(\")"),
            "line 2: Text(\"(\") is not supported by tack's matcher"
        );
        assert_eq!(
            compile_error("(no_such_node)"),
            "line 1: no visible named node `no_such_node` in this grammar (supertypes are not supported)"
        );
        assert_eq!(
            compile_error("(call nothing: (identifier))"),
            "line 1: no field `nothing` in this grammar"
        );
        assert!(compile_error("((call) @c (#any-of? @c \"x\" \"y\"))").contains("#any-of? is not supported"));
        assert!(compile_error("((call) @c (#match? @c \"(\"))").contains("#match? pattern"));
        assert_eq!(compile_error("(call !nothing)"), "line 1: no field `nothing` in this grammar");
        assert_eq!(compile_error("(_) @any"), "a pattern cannot start with (_)");
        assert!(compile_error("(call").contains("unclosed ("));
    }

    #[test]
    fn children_match_in_order_once_per_combination() {
        let patterns =
            Patterns::new(&Lang::Python.grammar(), "(argument_list (identifier) @a (identifier) @b)")
                .expect("compiles");
        let source = "f(x, y, z)\n";
        let mut parser = Parser::new();
        parser.set_language(&Lang::Python.grammar()).expect("grammar");
        let tree = parser.parse(source, None).expect("a tree");
        let mut pairs = Vec::new();
        patterns.for_each_match(&tree, source.as_bytes(), &mut |_, caps| {
            pairs.push(caps.iter().map(|c| &source[c.node.byte_range()]).collect::<Vec<_>>().join(""));
        });
        assert_eq!(pairs, ["xy", "xz", "yz"]);
    }
}
