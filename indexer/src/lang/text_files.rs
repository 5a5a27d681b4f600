//! Files no grammar reads ([`Lang::Text`](crate::snapshot::Lang)): documentation,
//! configuration, templates, and code in languages tack does not parse. They are searched by
//! their words. What is here tells such a file from one never worth a search (an image, an
//! archive, a lock file a tool writes), and names the heading a line of a document sits under,
//! the one structure a text file shows without a grammar.

use std::path::Path;

/// Extensions of files that are not text, or whose text is a tool's, not a person's: images,
/// fonts, media, archives, compiled objects, databases, source maps and minified bundles.
const NOT_TEXT: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "tif", "tiff", "psd", "svg", "pdf", "eps",
    "ttf", "otf", "woff", "woff2", "eot", "mp3", "mp4", "m4a", "wav", "ogg", "flac", "avi", "mov", "webm",
    "mkv", "zip", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "tar", "jar", "war", "ear", "class", "o",
    "obj", "a", "lib", "so", "dylib", "dll", "exe", "bin", "dat", "db", "sqlite", "sqlite3", "pyc", "pyo",
    "pyd", "whl", "egg", "wasm", "map", "snap", "pack", "idx", "keystore", "p12", "der", "pem", "crt",
];

/// Files a package manager writes, pinning versions: thousands of lines that match every
/// dependency's name and answer no question about the code.
const LOCK_FILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "pdm.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "Podfile.lock",
    "Package.resolved",
    "mix.lock",
    "flake.lock",
    "pubspec.lock",
    "gradle.lockfile",
    "packages.lock.json",
    "Manifest.toml",
];

/// Whether a file no grammar reads may be worth searching, by its name alone: not a known
/// binary or generated kind. Its content decides the rest ([`is_text`]).
pub(crate) fn may_be_text(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    if LOCK_FILES.contains(&name) {
        return false;
    }
    let mut parts = name.rsplit('.');
    let ext = parts.next().unwrap_or("");
    // `name.min.css`: minified. A name with no dot (`Makefile`, `Dockerfile`, a script) is kept.
    if name.contains('.')
        && (NOT_TEXT.iter().any(|e| ext.eq_ignore_ascii_case(e)) || parts.next() == Some("min"))
    {
        return false;
    }
    true
}

/// Extensions of documents: markup a person reads as prose, and manual pages.
const PROSE: &[&str] = &[
    "md", "markdown", "mdx", "rst", "txt", "adoc", "asciidoc", "org", "textile", "rdoc", "pod", "1", "2",
    "3", "4", "5", "6", "7", "8", "9", "ronn",
];

/// Names (less any extension, any case) of the files that record a project's changes or its
/// people and terms, not how its code works.
const RECORDS: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "releases",
    "release_notes",
    "authors",
    "contributors",
    "license",
    "copying",
    "notice",
];

/// How many of [`RECORDS`] record changes.
const CHANGE_RECORDS: usize = 6;

/// Whether a file is a document (a README, a guide, a manual page, a changelog): prose about the
/// project rather than its code or configuration.
pub(crate) fn is_prose(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    PROSE.iter().any(|e| ext.eq_ignore_ascii_case(e))
        || is_changelog(path)
        || (ext.is_empty() && RECORDS.iter().any(|r| stem.eq_ignore_ascii_case(r)))
        || is_manual_page(name)
        || (in_documentation(path) && crate::Lang::from_path(Path::new(path)).is_none())
}

/// Folders that hold a project's documentation: what no grammar reads there (the manual as
/// YAML, the site's HTML, its data) is documentation too.
const DOCUMENTATION: &[&str] = &["doc", "docs", "documentation", "man", "manual"];

/// Whether a file sits in a documentation folder ([`DOCUMENTATION`]).
fn in_documentation(path: &str) -> bool {
    let mut folders = path.split('/').rev().skip(1);
    folders.any(|f| DOCUMENTATION.iter().any(|d| f.eq_ignore_ascii_case(d)))
}

/// Whether a file's name marks a manual page before a further extension: `jq.1.prebuilt`,
/// `tool.8.in` (a name, then a section digit between two dots; `v1.2.3.tar` is a version).
fn is_manual_page(name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    parts.len() > 2
        && matches!(parts[1].as_bytes(), [b'1'..=b'9'])
        && parts[0].bytes().last().is_some_and(|b| b.is_ascii_alphabetic())
}

/// Whether a file records a project's changes (`CHANGELOG.md`, `HISTORY.rst`, `NEWS`).
pub(crate) fn is_changelog(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    RECORDS[..CHANGE_RECORDS].iter().any(|r| stem.eq_ignore_ascii_case(r))
}

/// How much of a file's start tells text from binary.
const SNIFF_BYTES: usize = 8 * 1024;

/// Whether a file's first bytes are text: no NUL among them (as git and ripgrep decide).
pub(crate) fn is_text(head: &[u8]) -> bool {
    !head[..head.len().min(SNIFF_BYTES)].contains(&0)
}

/// Whether a text file is data a tool wrote rather than prose or code a person reads: at least
/// 8 KB averaging 300 bytes a line or more (minified JSON or CSS, a serialized fixture). The same
/// rule ranks a bundle of code below the code.
pub(crate) fn is_generated(size: u64, lines: u32) -> bool {
    size >= 8 * 1024 && size / u64::from(lines.max(1)) >= 300
}

/// The heading a line of a document sits under (1-based `line`): the last Markdown `#` heading
/// above it (a heading's own line sits under the one before), or reStructuredText or AsciiDoc title (a line underlined with `=`, `-`, `~`, …),
/// outside fenced code blocks. `None` for a file that is not a document or a line above every
/// heading.
pub fn heading_at(path: &str, source: &str, line: u32) -> Option<String> {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    let markdown = matches!(ext.as_str(), "md" | "markdown" | "mdx");
    let underlined = matches!(ext.as_str(), "rst" | "adoc" | "txt");
    if !markdown && !underlined {
        return None;
    }
    let mut heading: Option<&str> = None;
    let mut fence: Option<&str> = None;
    let mut previous: Option<&str> = None;
    // Only the lines above count: a heading's own line is not under itself.
    for (i, text) in source.lines().enumerate() {
        if i as u32 + 1 >= line {
            break;
        }
        let t = text.trim_end();
        let trimmed = t.trim_start();
        if markdown {
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
                continue;
            }
            let hashes = t.bytes().take_while(|b| *b == b'#').count();
            if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
                heading = Some(t[hashes..].trim().trim_end_matches('#').trim());
            }
        } else if let Some(title) = previous
            && is_underline(t, title)
        {
            heading = Some(title.trim());
        }
        previous = Some(t);
    }
    // A heading's own line is named by itself, not by the section before it.
    let own = source.lines().nth(line.saturating_sub(1) as usize).unwrap_or("");
    if markdown && own.starts_with('#') && own.trim_start_matches('#').starts_with(' ') {
        return None;
    }
    heading.filter(|h| !h.is_empty()).map(str::to_string)
}

/// Whether `line` underlines `title`: one punctuation character repeated at least as long as
/// the title (reStructuredText's rule), under a title that is not itself blank or punctuation.
fn is_underline(line: &str, title: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else { return false };
    let title = title.trim();
    "=-~^*+#`'\":.".contains(first)
        && line.len() >= 3
        && line.len() >= title.chars().count()
        && line.chars().all(|c| c == first)
        && title.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_lock_files_and_minified_files_are_never_text_by_name() {
        for path in ["logo.PNG", "a/yarn.lock", "Cargo.lock", "site.min.css", "x.tar.gz", "app.js.map"] {
            assert!(!may_be_text(Path::new(path)), "{path}");
        }
        for path in
            ["README.md", "Makefile", "bin/rbenv", "config.yml", "a/b.swift", ".env.example", "x.lock.md"]
        {
            assert!(may_be_text(Path::new(path)), "{path}");
        }
        assert!(is_text(b"plain\ntext"));
        assert!(!is_text(b"\x89PNG\r\n\x1a\n\0\0"));
        assert!(is_generated(20_000, 10) && !is_generated(20_000, 400) && !is_generated(900, 1));
    }

    #[test]
    fn documents_are_told_by_kind_by_manual_section_and_by_documentation_folder() {
        for path in [
            "README.md",
            "CHANGELOG",
            "doc/rg.1",
            "jq.1.prebuilt",
            "docs/content/manual/v1.5/manual.yml",
            "docs/site/index.html",
            "Documentation/data/terms.json",
        ] {
            assert!(is_prose(path), "{path}");
        }
        for path in
            ["src/main.rs", "docs/conf.py", "docs/examples/demo.js", "config.yml", "v1.2.3.tar", "a.b.c"]
        {
            assert!(!is_prose(path), "{path}");
        }
    }

    #[test]
    fn a_line_of_a_document_names_the_heading_above_it_outside_code_fences() {
        let md = "intro\n# Install\n\nrun it\n```sh\n# not a heading\nmake\n```\n## Plugins ##\nenable one\n";
        assert_eq!(heading_at("README.md", md, 1), None);
        assert_eq!(heading_at("README.md", md, 2), None, "a heading is not under itself");
        assert_eq!(heading_at("README.md", md, 9), None, "nor under the heading before it");
        assert_eq!(heading_at("README.md", md, 4).as_deref(), Some("Install"));
        assert_eq!(heading_at("README.md", md, 7).as_deref(), Some("Install"));
        assert_eq!(heading_at("README.md", md, 10).as_deref(), Some("Plugins"));
        let rst = "Options\n=======\n\nA flag\n------\n\nis a switch\n";
        assert_eq!(heading_at("docs/options.rst", rst, 3).as_deref(), Some("Options"));
        assert_eq!(heading_at("docs/options.rst", rst, 7).as_deref(), Some("A flag"));
        assert_eq!(heading_at("config.yml", "# a comment\nkey: 1\n", 2), None);
    }
}
