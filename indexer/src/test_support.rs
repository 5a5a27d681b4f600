//! What the languages' tests share: a file entry made from a source text, its definitions as
//! lines, and what the name at a position of a set of such files resolves to, as one line.

use crate::names::Pos;
use crate::snapshot::{FileEntry, Lang, Snapshot};

/// The entry of a file at `path`, in the language its name gives, extracted from `text`; a
/// text file (a manifest, whose declarations it keeps) where its name gives none.
pub(crate) fn entry(path: &str, text: &str) -> FileEntry {
    let lang = Lang::of_file(std::path::Path::new(path)).expect("a path of a searched file");
    let symbols = match lang.has_grammar() {
        true => crate::extract::extract(lang, text),
        false => crate::lang::manifest_symbols(path, text.as_bytes()).unwrap_or_default(),
    };
    FileEntry {
        path: path.to_string(),
        lang,
        size: text.len() as u64,
        mtime_ns: 0,
        hash: [0; 16],
        lines: text.lines().count() as u32,
        symbols,
    }
}

/// Each definition `text` holds in `lang`, one line each: kind, qualified name, lines, signature
/// and doc (`-` for none).
pub(crate) fn def_lines(lang: Lang, text: &str) -> Vec<String> {
    crate::extract::extract(lang, text)
        .defs
        .iter()
        .map(|d| {
            let doc = d.doc().unwrap_or("-");
            format!(
                "{} {} {}-{} | {} | {doc}",
                d.kind.as_str(),
                d.qualified(),
                d.line,
                d.end_line,
                d.signature()
            )
        })
        .collect()
}

/// The definitions of a clean source (no parse errors) in `lang`, a line each: kind, qualified
/// name, lines and signature, then `  // ` and the doc's first line when there is one.
pub(crate) fn def_listing(lang: Lang, text: &str) -> String {
    let symbols = crate::extract::extract(lang, text);
    assert_eq!(symbols.syntax_issues, 0, "the source parses cleanly");
    symbols
        .defs
        .iter()
        .map(|d| {
            let doc = d.doc().map(|doc| format!("  // {doc}")).unwrap_or_default();
            format!(
                "{} {} {}-{} | {}{doc}\n",
                d.kind.as_str(),
                d.qualified(),
                d.line,
                d.end_line,
                d.signature()
            )
        })
        .collect()
}

/// The imports of a source in `lang`, a line each: line, module, item, bound name, alias, glob
/// (`-` for a part it has not).
pub(crate) fn import_listing(lang: Lang, text: &str) -> String {
    let fs = crate::extract::extract(lang, text);
    let part = |id: u32| if id == crate::names::NONE { "-" } else { fs.text(id) };
    fs.imports
        .iter()
        .map(|i| {
            format!(
                "{}: module={} item={} bound={} alias={} glob={}\n",
                { i.line },
                fs.text(i.module),
                part(i.item),
                part(i.bound),
                { i.alias },
                { i.glob }
            )
        })
        .collect()
}

/// What the name at `line:column` of `path` resolves to among `files`: `name: what it means…`,
/// then the count of candidates when there are any; `no name` where none is.
pub(crate) fn resolve_at(files: &[(&str, &str)], path: &str, line: u32, column: u32) -> String {
    let snapshot = Snapshot::from_entries(files.iter().map(|(p, t)| entry(p, t)));
    let resolver = snapshot.resolver();
    let file = resolver.file_index(path).expect("a file of the snapshot");
    let Some(at) = resolver.at(file, Pos::new(line, column)) else { return "no name".into() };
    let mut out = format!("{}:", at.name);
    for t in &at.resolution.resolved {
        out.push_str(&format!(" {}", resolver.describe(*t)));
    }
    if !at.resolution.candidates.is_empty() {
        out.push_str(&format!(" candidates: {}", at.resolution.candidates.len()));
    }
    out
}
