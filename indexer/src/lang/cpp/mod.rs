//! C++: what C has (the same [`CFamily`] type), with classes and their methods (in the body or
//! out of it), namespaces, aliases, bases, `new` and `this`. A `.h` file is read as C++: the
//! C++ grammar parses C headers too, and clangd makes the same choice.

use super::c::{CFamily, KEYWORDS, RULES};
use super::{Lang, LangSpec};

pub(crate) static CPP: CFamily = CFamily { spec: &SPEC };

static SPEC: LangSpec = LangSpec {
    lang: Lang::Cpp,
    name: "cpp",
    extensions: &["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "h", "ipp", "tpp"],
    grammar: || tree_sitter_cpp::LANGUAGE.into(),
    tags: concat!(include_str!("../../../queries/c/tags.scm"), include_str!("../../../queries/cpp/tags.scm")),
    names: concat!(
        include_str!("../../../queries/c/names.scm"),
        include_str!("../../../queries/cpp/names.scm")
    ),
    test_file_suffixes: &["_test.cc", "_test.cpp", "_unittest.cc", "_unittest.cpp"],
    test_file_names: &[],
    surface_files: &[],
    separator: "::",
    noise: &[],
    keywords: KEYWORDS,
    preamble: &["/*", "*", "//", "template", "[["],
    rules: RULES,
    family: "c",
    checks: super::no_checks,
};
