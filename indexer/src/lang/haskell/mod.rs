//! Haskell: (being written).

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

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
    nodes: Nodes { ..Nodes::NONE },
    tags: include_str!("../../../queries/haskell/tags.scm"),
    names: include_str!("../../../queries/haskell/names.scm"),
    test_file_suffixes: &[],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    noise: &[],
    std_methods: &[],
    keywords: &[],
    preamble: &[],
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
    checks: |_| Vec::new(),
    runners: &[],
};

impl Language for Haskell {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    fn doc<'t>(
        &self,
        _def: Node<'t>,
        _parent: Option<Node<'t>>,
        _bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        None
    }

    fn type_hint(&self, _text: &str) -> Option<String> {
        None
    }

    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    fn scope_kind(&self, _node_kind: &str) -> ScopeKind {
        ScopeKind::Block
    }

    fn decode_import<'t>(&self, _node: Node<'t>, _bytes: &[u8], _out: &mut Vec<RawImport<'t>>) {}

    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::last_local_else_items(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(super::shared_scope::SharedScope::new(files, Lang::Haskell, &super::shared_scope::one_group))
    }
}
