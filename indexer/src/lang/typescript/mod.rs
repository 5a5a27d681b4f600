//! TypeScript: what JavaScript has (the same [`Ecma`] type), with interfaces, type aliases, enums,
//! namespaces, signatures, and type annotations as hints for name resolution.

use super::javascript::{Ecma, KEYWORDS, RULES};
use super::{Lang, LangSpec};

pub(crate) static TYPESCRIPT: Ecma = Ecma { spec: &SPEC };

static SPEC: LangSpec = LangSpec {
    lang: Lang::TypeScript,
    name: "typescript",
    extensions: &["ts", "mts", "cts"],
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
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
    separator: ".",
    noise: &[],
    keywords: KEYWORDS,
    preamble: &["@", "/**", "*", "//"],
    rules: RULES,
};
