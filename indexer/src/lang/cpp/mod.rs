//! C++: what C has (the same [`CFamily`] type), with classes and their methods (in the body or
//! out of it), namespaces, aliases, bases, `new` and `this`. A `.h` file is read as C++: the
//! C++ grammar parses C headers too, and clangd makes the same choice.

use super::c::{CFamily, KEYWORDS, NODES, RULES};
use super::{Comments, Lang, LangSpec};

pub(crate) static CPP: CFamily = CFamily { spec: &SPEC };

static SPEC: LangSpec = LangSpec {
    lang: Lang::Cpp,
    name: "cpp",
    extensions: &["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "h", "ipp", "tpp"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_cpp::LANGUAGE.into(),
    comments: Comments::SLASHES,
    nodes: NODES,
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
    std_methods: &[
        "at",
        "back",
        "begin",
        "c_str",
        "clear",
        "data",
        "emplace",
        "emplace_back",
        "empty",
        "end",
        "erase",
        "find",
        "front",
        "get",
        "insert",
        "pop_back",
        "push_back",
        "reserve",
        "reset",
        "resize",
        "size",
        "swap",
    ],
    keywords: KEYWORDS,
    preamble: &["/*", "*", "//", "template", "[["],
    rules: RULES,
    family: "c",
    checks: cmake_checks,
    runners: &["junit"],
};

/// A `CMakeLists.txt` that declares tests, with a build folder already configured (one holding
/// `CTestTestfile.cmake`): build it, then `ctest` with its JUnit report printed after the run's
/// own lines (the report of an earlier run removed first, so a failed build is not read as
/// passing tests).
fn cmake_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    let Ok(Some(bytes)) = crate::beneath::read_bounded(&dir.join("CMakeLists.txt"), 1 << 20, Some(dir))
    else {
        return Vec::new();
    };
    if !String::from_utf8_lossy(&bytes).contains("add_test") {
        return Vec::new();
    }
    let Some(build) = ["build", "cmake-build-debug", "cmake-build-release", "out/build"]
        .into_iter()
        .find(|b| dir.join(b).join("CTestTestfile.cmake").is_file())
    else {
        return Vec::new();
    };
    let command = format!(
        "rm -f {build}/junit.xml; cmake --build {build} && ctest --test-dir {build} --output-on-failure \
         --output-junit junit.xml; status=$?; cat {build}/junit.xml 2>/dev/null; exit $status"
    );
    vec![super::ProjectCheck { name: "ctest".into(), command, format: "junit", caches: Vec::new() }]
}
