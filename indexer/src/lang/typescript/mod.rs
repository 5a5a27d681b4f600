//! TypeScript: what JavaScript has (the same [`Ecma`] type), with interfaces, type aliases, enums,
//! namespaces, signatures, and type annotations as hints for name resolution.

use super::javascript::{Ecma, KEYWORDS, NODES, RULES};
use super::{Comments, Lang, LangSpec, Nodes};

pub(crate) static TYPESCRIPT: Ecma = Ecma { spec: &SPEC };

/// TSX: TypeScript with JSX elements, in its own grammar (it has no `<T>expr` casts); the same
/// queries hold, and a component used as `<Cart />` is a reference to `Cart`.
pub(crate) static TSX: Ecma = Ecma { spec: &TSX_SPEC };

static SPEC: LangSpec = LangSpec {
    lang: Lang::TypeScript,
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    comments: Comments::SLASHES,
    nodes: Nodes {
        pattern_skipped_fields: &["type", "condition", "value", "function", "arguments", "body"],
        chain_names: &["identifier", "this", "super", "type_identifier"],
        ..NODES
    },
    tags: concat!(
        include_str!("../../../queries/ecma/tags.scm"),
        include_str!("../../../queries/typescript/tags.scm")
    ),
    names: concat!(
        include_str!("../../../queries/ecma/names.scm"),
        include_str!("../../../queries/typescript/names.scm")
    ),
    test_file_suffixes: &[".test.ts", ".spec.ts", ".test-d.ts"],
    test_file_names: &[],
    surface_files: &["index.ts", "index.mts"],
    separator: ".",
    noise: &[],
    std_methods: super::javascript::ECMA_STD_METHODS,
    keywords: KEYWORDS,
    preamble: &["@", "/**", "*", "//"],
    rules: RULES,
    family: "ecma",
    checks: tsc_checks,
    runners: &["diagnostics"],
};

static TSX_SPEC: LangSpec = LangSpec {
    lang: Lang::Tsx,
    name: "tsx",
    extensions: &["tsx"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    test_file_suffixes: &[".test.tsx", ".spec.tsx"],
    ..SPEC
};

/// A `tsconfig.json` with the project's own TypeScript installed: `tsc --noEmit`, its
/// diagnostics one a line.
fn tsc_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if !dir.join("tsconfig.json").is_file() || !dir.join("node_modules/.bin/tsc").is_file() {
        return Vec::new();
    }
    vec![super::ProjectCheck {
        name: "tsc".into(),
        command: "node_modules/.bin/tsc --noEmit --pretty false".into(),
        format: "diagnostics",
        caches: Vec::new(),
    }]
}
