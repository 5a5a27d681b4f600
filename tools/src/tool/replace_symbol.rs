//! `replace_symbol`: replace one definition, found by its qualified name in the file's current
//! text, with new text. The blank lines around it and its indentation are kept; decorators,
//! attributes and doc comments above it are kept unless the new text brings its own.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_indexer::{Def, DefRef, Defs, Lang, extract};

use crate::observe::observation::Observation;
use crate::session::Session;
use crate::tool::{Call, Group, REWRITES, Reply, Spec, Tool};
use crate::workspace::Workspace;
use crate::write::text_match;
use crate::write::writer::{self, Change};

/// Definitions listed at most when the name matches none.
const MAX_LISTED: usize = 40;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceSymbolParams {
    /// File that defines the symbol, relative to the repository root.
    #[serde(alias = "file_path")]
    pub path: String,
    /// Qualified name of the definition: `Parser.parse` (Python), `Parser::parse` or
    /// `parser::Parser::parse` (Rust); a bare name works when it is unique in the file.
    #[serde(alias = "name")]
    pub symbol: String,
    /// The whole new definition, from its first line (`def`, `fn`, `class`, …) to its end.
    #[serde(alias = "new_text", alias = "content")]
    pub new: String,
    /// The version read_file returned: refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReplaceSymbolOutput {
    /// The path, relative to the root.
    pub path: String,
    /// The definition's qualified name in the file.
    pub symbol: String,
    /// The file's new version.
    pub version: String,
    /// 1-based first and last line of the definition after the edit.
    pub start_line: u64,
    pub end_line: u64,
}

pub(crate) struct ReplaceSymbol;

impl Tool for ReplaceSymbol {
    type Params = ReplaceSymbolParams;
    type Output = ReplaceSymbolOutput;
    const SPEC: Spec = Spec::editor(
        "replace_symbol",
        "Replace a definition",
        Group::Patch,
        "Replace one definition (function, method, class, struct…) found by qualified name, \
             such as Parser.parse (Python) or parser::Parser::parse (Rust), with new text; keeps its \
             indentation and the blank lines around it. Refuses syntax errors; version= guards against \
             changes.",
        REWRITES,
    );

    fn run(call: &Call<'_>, params: ReplaceSymbolParams) -> Reply {
        replace_symbol(call.ws, call.session, params).into()
    }
}

fn replace_symbol(ws: &Workspace, session: &Session, params: ReplaceSymbolParams) -> Observation {
    match run(ws, session, params) {
        Ok(obs) | Err(obs) => obs,
    }
}

fn run(ws: &Workspace, session: &Session, params: ReplaceSymbolParams) -> Result<Observation, Observation> {
    let resolved = writer::resolve_for_write(ws, &params.path, "edit")?;
    let rel = resolved.rel.clone();
    let Some(lang) = Lang::from_path(Path::new(&rel)) else {
        return Err(Observation::error(format!(
            "replace_symbol knows Python and Rust definitions, and {rel} is neither; use edit_file"
        )));
    };
    if params.new.trim().is_empty() {
        return Err(Observation::error(
            "new is empty; give the whole new definition (to delete it, use edit_file with its lines as old)",
        ));
    }
    let locked = writer::lock(ws, vec![resolved], "edit")?;
    let Some(content) = locked.text(&rel, "edit")? else {
        return Err(Observation::error(format!("cannot edit {rel}: no such file")));
    };
    locked.check_version(&rel, params.version.as_deref(), "edit")?;

    let defs = extract(lang, content).defs;
    let def = find(&defs, &params.symbol)
        .map_err(|candidates| not_found(&rel, &params.symbol, &defs, &candidates))?;
    let (start, end, first_indent, indent) = span(lang, content, &def, &params.new);
    let mut body = reindent_block(&params.new, first_indent, indent);
    // Speak the file's line endings, as edit_file does.
    if text_match::LineIndex::new(content).crlf {
        body = body.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    let mut after = String::with_capacity(content.len() + body.len());
    after.push_str(&content[..start]);
    after.push_str(&body);
    after.push_str(&content[end..]);

    let start_line = content[..start].matches('\n').count() + 1;
    let end_line = start_line + body.matches('\n').count();
    let (qualified, was) = (def.qualified().to_string(), (def.line, def.end_line));
    let retry = "Fix new and call replace_symbol again; the definition is unchanged.";
    let change = Change { rel: rel.clone(), after: Some(after.clone().into_bytes()), mode: None };
    let written = locked.commit(session, vec![change], true, true, retry)?;
    let version = written[0].version.clone().unwrap_or_default();

    let text = format!(
        "replaced {qualified} in {rel} (was lines {}-{}, now {start_line}-{end_line}); version {version}\n{}",
        was.0,
        was.1,
        writer::echo_spans(&after, std::slice::from_ref(&(start..start + body.len())))
    );
    let out = ReplaceSymbolOutput {
        path: rel,
        symbol: qualified,
        version,
        start_line: start_line as u64,
        end_line: end_line as u64,
    };
    Ok(Observation::ok(text, json!(out)))
}

/// The definition `symbol` names. `.` and `::` are interchangeable; a name with a leading module
/// path (`crate::parser::Parser::parse`) matches the file's `Parser::parse`; a bare or partial
/// name matches the definitions it ends. More than one at the best level is an error listing
/// them.
fn find<'a>(defs: &'a Defs, symbol: &str) -> Result<DefRef<'a>, Vec<DefRef<'a>>> {
    let wanted = normalize(symbol);
    let levels: [&dyn Fn(&str) -> bool; 3] =
        [&|q: &str| q == wanted, &|q: &str| wanted.ends_with(&format!(".{q}")), &|q: &str| {
            q.ends_with(&format!(".{wanted}"))
        }];
    for level in levels {
        let found: Vec<DefRef> = defs.iter().filter(|d| level(&normalize(d.qualified()))).collect();
        match found.len() {
            0 => continue,
            1 => return Ok(found[0]),
            _ => return Err(found),
        }
    }
    Err(Vec::new())
}

fn normalize(name: &str) -> String {
    name.trim().trim_start_matches("crate::").replace("::", ".").replace(['(', ')'], "")
}

fn not_found(rel: &str, symbol: &str, defs: &Defs, ambiguous: &[DefRef]) -> Observation {
    let listing = |defs: &mut dyn Iterator<Item = DefRef>| -> String {
        defs.take(MAX_LISTED)
            .map(|d| format!("  {} ({}, lines {}-{})\n", d.qualified(), d.kind.as_str(), d.line, d.end_line))
            .collect()
    };
    if !ambiguous.is_empty() {
        return Observation::error(format!(
            "{symbol:?} names {} definitions in {rel}; pass the qualified name of one:\n{}",
            ambiguous.len(),
            listing(&mut ambiguous.iter().copied())
        ));
    }
    if defs.is_empty() {
        return Observation::error(format!(
            "{rel} has no definitions tack can find; use edit_file to change it"
        ));
    }
    let mut text = format!("no definition named {symbol:?} in {rel}; its definitions are:\n");
    text.push_str(&listing(&mut defs.iter()));
    if defs.len() > MAX_LISTED {
        text.push_str(&format!("  … {} more\n", defs.len() - MAX_LISTED));
    }
    text.push_str("Pass one of these names as symbol.\n");
    Observation::error(text)
}

/// The byte span to replace, the indentation to put before the new text's first line, and the
/// one for its other lines. The span starts at the beginning of the definition's line (when
/// only indentation precedes it) and reaches back over decorators, attributes and doc comments
/// directly above it only when `new` starts with one of its own.
fn span<'a>(lang: Lang, content: &'a str, def: &Def, new: &str) -> (usize, usize, &'a str, &'a str) {
    let def_start = (def.start_byte as usize).min(content.len());
    let end = (def.end_byte as usize).clamp(def_start, content.len());
    let line_start = content[..def_start].rfind('\n').map_or(0, |i| i + 1);
    let before_on_line = &content[line_start..def_start];
    let indent = &before_on_line[..before_on_line.len() - before_on_line.trim_start().len()];
    if !before_on_line.trim().is_empty() {
        // Something else starts the line (`x = 1; def f(): …`): replace from the definition on.
        return (def_start, end, "", indent);
    }
    let mut start = line_start;
    let first_new = new.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim_start();
    if lang.is_preamble(first_new) {
        while start > 0 {
            let prev_start = content[..start - 1].rfind('\n').map_or(0, |i| i + 1);
            let prev = content[prev_start..start - 1].trim_start();
            if prev.is_empty() || !lang.is_preamble(prev) {
                break;
            }
            start = prev_start;
        }
    }
    (start, end, indent, indent)
}

/// `new` moved to the definition's indentation: its common indentation removed, `first` put
/// before its first line and `rest` before every other non-blank line, and blank lines around
/// it trimmed so the file's spacing stays.
fn reindent_block(new: &str, first: &str, rest: &str) -> String {
    let lines: Vec<&str> = new.trim_matches('\n').lines().collect();
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::with_capacity(new.len() + lines.len() * rest.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let body = if line.len() >= common && line.is_char_boundary(common) {
            &line[common..]
        } else {
            line.trim_start()
        };
        out.push_str(if i == 0 { first } else { rest });
        out.push_str(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str =
        "class A:\n    @property\n    def x(self):\n        return 1\n\n    def y(self):\n        pass\n";

    fn replace(source: &str, lang: Lang, symbol: &str, new: &str) -> String {
        let defs = extract(lang, source).defs;
        let def = find(&defs, symbol).unwrap();
        let (start, end, first, rest) = span(lang, source, &def, new);
        format!("{}{}{}", &source[..start], reindent_block(new, first, rest), &source[end..])
    }

    #[test]
    fn a_method_is_replaced_at_its_indentation_keeping_its_decorator() {
        let got = replace(PY, Lang::Python, "A.x", "def x(self):\n    return 2\n");
        assert_eq!(got, PY.replace("return 1", "return 2"));
        let got = replace(PY, Lang::Python, "A.x", "    def x(self):\n        return 3");
        assert_eq!(got, PY.replace("return 1", "return 3"));
        let got = replace(PY, Lang::Python, "x", "@cached\ndef x(self):\n    return 4\n");
        assert_eq!(got, PY.replace("@property", "@cached").replace("return 1", "return 4"));
    }

    #[test]
    fn rust_names_with_module_paths_and_separators_resolve() {
        let rs = "pub struct Parser;\n\nimpl Parser {\n    /// Parses.\n    pub fn parse(&self) -> u8 {\n        1\n    }\n}\n";
        let defs = extract(Lang::Rust, rs).defs;
        for name in [
            "Parser::parse",
            "parser::Parser::parse",
            "crate::parser::Parser::parse",
            "Parser.parse",
            "parse",
        ] {
            assert_eq!(find(&defs, name).unwrap().qualified(), "Parser::parse", "{name}");
        }
        assert!(find(&defs, "Lexer::next").unwrap_err().is_empty());
        let got = replace(rs, Lang::Rust, "Parser::parse", "pub fn parse(&self) -> u8 {\n    2\n}");
        assert_eq!(got, rs.replace("        1\n", "        2\n"));
    }

    #[test]
    fn ambiguous_bare_names_list_the_candidates() {
        let defs =
            extract(Lang::Python, "class A:\n    def f(self): pass\nclass B:\n    def f(self): pass\n").defs;
        let err = find(&defs, "f").unwrap_err();
        assert_eq!(err.iter().map(|d| d.qualified()).collect::<Vec<_>>(), ["A.f", "B.f"]);
    }
}
