//! The languages tack parses, in one table: a third language is a `queries/<name>/` folder and
//! one entry here.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tree_sitter::{Language, Query};

/// A language tack understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    Python,
    Rust,
}

/// Everything tack needs to know about one language.
pub(crate) struct LangSpec {
    pub lang: Lang,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub grammar: fn() -> Language,
    /// The tags query (`queries/<name>/tags.scm`): definitions and references.
    pub tags: &'static str,
    /// What name resolution needs (`queries/<name>/names.scm`): scopes, bindings, imports.
    pub names: &'static str,
}

/// The table. Order is the order of [`Lang`].
pub(crate) const LANGS: &[LangSpec] = &[
    LangSpec {
        lang: Lang::Python,
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        tags: include_str!("../queries/python/tags.scm"),
        names: include_str!("../queries/python/names.scm"),
    },
    LangSpec {
        lang: Lang::Rust,
        name: "rust",
        extensions: &["rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        tags: include_str!("../queries/rust/tags.scm"),
        names: include_str!("../queries/rust/names.scm"),
    },
];

impl LangSpec {
    /// Every query file of the language, in order: what [`Lang::query`] compiles.
    pub(crate) fn query_files(&self) -> [(&'static str, &'static str); 2] {
        [("tags.scm", self.tags), ("names.scm", self.names)]
    }

    /// The query files joined into one query source.
    pub(crate) fn source(&self) -> String {
        self.query_files().iter().map(|(_, text)| *text).collect::<Vec<_>>().join("\n")
    }
}

impl Lang {
    /// The language of a file, by extension.
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?;
        LANGS.iter().find(|spec| spec.extensions.contains(&ext)).map(|spec| spec.lang)
    }

    pub(crate) fn spec(self) -> &'static LangSpec {
        &LANGS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> Language {
        (self.spec().grammar)()
    }

    /// The extraction patterns: the tags and names queries compiled as one by tack's matcher,
    /// so one walk over the tree yields both. Compiled once per process, when the language is
    /// first met.
    pub fn patterns(self) -> &'static crate::matcher::Patterns {
        static PATTERNS: [OnceLock<crate::matcher::Patterns>; LANGS.len()] =
            [const { OnceLock::new() }; LANGS.len()];
        PATTERNS[self as usize].get_or_init(|| {
            let spec = self.spec();
            crate::matcher::Patterns::new(&(spec.grammar)(), &spec.source())
                .unwrap_or_else(|err| panic!("queries/{}/{{tags,names}}.scm: {err}", spec.name))
        })
    }

    /// The same queries compiled by tree-sitter, which checks them fully and is the reference
    /// the matcher is tested against.
    pub fn query(self) -> &'static Query {
        static QUERIES: [OnceLock<Query>; LANGS.len()] = [const { OnceLock::new() }; LANGS.len()];
        QUERIES[self as usize].get_or_init(|| {
            let spec = self.spec();
            Query::new(&(spec.grammar)(), &spec.source()).unwrap_or_else(|err| {
                panic!("queries/{}/{{tags,names}}.scm do not compile: {err}", spec.name)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        for (i, spec) in LANGS.iter().enumerate() {
            assert_eq!(spec.lang as usize, i, "LANGS is in the order of Lang");
            for (file, text) in spec.query_files() {
                let query = Query::new(&(spec.grammar)(), text);
                assert!(query.is_ok(), "queries/{}/{file}: {:?}", spec.name, query.err());
            }
            let joined = Query::new(&(spec.grammar)(), &spec.source());
            assert!(joined.is_ok(), "queries/{} joined: {:?}", spec.name, joined.err());
            let patterns = crate::matcher::Patterns::new(&(spec.grammar)(), &spec.source());
            assert!(patterns.is_ok(), "queries/{} in tack's matcher: {:?}", spec.name, patterns.err());
        }
    }

    #[test]
    fn languages_come_from_extensions() {
        assert_eq!(Lang::from_path(Path::new("a/b.py")), Some(Lang::Python));
        assert_eq!(Lang::from_path(Path::new("src/lib.rs")), Some(Lang::Rust));
        assert_eq!(Lang::from_path(Path::new("README.md")), None);
        assert_eq!(Lang::from_path(Path::new("Makefile")), None);
    }
}
