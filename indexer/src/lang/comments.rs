//! How each language writes comments ([`Comments`], part of its `LangSpec`), so that a line of
//! any language can be told to be a comment by how it starts.

/// How a language writes comments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Comments {
    /// What starts a comment that runs to the end of its line: `#`, `//`.
    pub line: &'static [&'static str],
    /// What opens and what closes a block comment: `/*` and `*/`.
    pub block: Option<(&'static str, &'static str)>,
    /// What a block comment's inner lines start with by custom, alone or before a space
    /// (` * more`), which code seldom does (`*args`, `*p = 1`).
    pub block_inner: Option<&'static str>,
    /// How lines start that look like comments but are code: a shebang (`#!`).
    pub not: &'static [&'static str],
}

impl Comments {
    /// Those of the languages of the C family: `//`, and `/*` … `*/` with ` * ` inside.
    pub(crate) const SLASHES: Comments =
        Comments { line: &["//"], block: Some(("/*", "*/")), block_inner: Some("*"), not: &[] };

    /// Whether `line`, its indentation removed, is a comment or a part of one.
    pub(crate) fn starts(&self, line: &str) -> bool {
        let text = line.trim_start();
        if self.not.iter().any(|start| text.starts_with(start)) {
            return false;
        }
        let inner = self.block_inner.is_some_and(|inner| {
            text.strip_prefix(inner).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        });
        let block = self.block.is_some_and(|(open, close)| text.starts_with(open) || text.starts_with(close));
        inner || block || self.line.iter().any(|start| text.starts_with(start))
    }
}

#[cfg(test)]
mod tests {
    use crate::snapshot::Lang;

    /// Each language by its own markers: what is a comment in one is code in another.
    #[test]
    fn a_comment_is_one_in_its_own_language() {
        let cases = [
            (Lang::Python, "    # a note", true),
            (Lang::Python, "#: an attribute's doc", true),
            (Lang::Python, "#include is a word here", true),
            (Lang::Python, "#!/usr/bin/env python", false),
            (Lang::Python, "    // 2", false),
            (Lang::Python, "    * factor", false),
            (Lang::Rust, "//! the crate", true),
            (Lang::Rust, "#[derive(Debug)]", false),
            (Lang::Go, "/* a block", true),
            (Lang::Java, " * more of it", true),
            (Lang::Java, " */", true),
            (Lang::JavaScript, "*", true),
            (Lang::JavaScript, "#count = 0;", false),
            (Lang::TypeScript, "*args", false),
            (Lang::C, "#include <stdio.h>", false),
            (Lang::Cpp, "#define N 3", false),
            (Lang::C, "*p = 1;", false),
            (Lang::Text, "# a heading", false),
        ];
        for (lang, line, comment) in cases {
            assert_eq!(lang.is_comment_line(line), comment, "{lang:?}: {line:?}");
        }
    }
}
