//! The catalogue: every tool, in the order clients see them. Adding a tool is a file in
//! `tool/` with a type that implements [`Tool`](super::Tool), and one line here.

use std::sync::OnceLock;

use super::Entry;
use super::apply_patch::{ApplyPatch, Undo, WriteFile};
use super::call_tool::CallTool;
use super::context::Context;
use super::edit_file::EditFile;
use super::find_tools::FindTools;
use super::navigate::{Callers, Definition, Outline, References, Symbols};
use super::plan::{Done, HandoffTool, Todo};
use super::read_file::ReadFile;
use super::read_output::ReadOutput;
use super::replace_symbol::ReplaceSymbol;
use super::repo_map::RepoMap;
use super::run::Run;
use super::search::Search;
use super::verify::Verify;

/// Every tool tack has, in the order clients see them.
pub(crate) fn all() -> &'static [Entry] {
    static ALL: OnceLock<Vec<Entry>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            Entry::of::<Context>(),
            Entry::of::<RepoMap>(),
            Entry::of::<Search>(),
            Entry::of::<ReadFile>(),
            Entry::of::<EditFile>(),
            Entry::of::<Run>(),
            Entry::of::<Verify>(),
            Entry::of::<FindTools>(),
            Entry::of::<CallTool>(),
            Entry::of::<Definition>(),
            Entry::of::<References>(),
            Entry::of::<Callers>(),
            Entry::of::<Outline>(),
            Entry::of::<Symbols>(),
            Entry::of::<ApplyPatch>(),
            Entry::of::<WriteFile>(),
            Entry::of::<ReplaceSymbol>(),
            Entry::of::<Undo>(),
            Entry::of::<Todo>(),
            Entry::of::<Done>(),
            Entry::of::<HandoffTool>(),
            Entry::of::<ReadOutput>(),
        ]
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_are_unique_and_descriptions_short() {
        let mut names: Vec<&str> = all().iter().map(|t| t.spec.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all().len());
        for tool in all() {
            let tool = &tool.spec;
            assert!(tool.description.len() <= 320, "{} has {} chars", tool.name, tool.description.len());
            assert!(!tool.description.contains("  "), "{} has a double space", tool.name);
        }
    }

    /// An output schema drops `null` from its types (absent is how tack spells "none"), so a
    /// result field that may be `null` must be left out when empty, or the result breaks the
    /// schema and clients that check it (the official Python SDK) refuse it.
    #[test]
    fn results_omit_what_they_lack_rather_than_send_null() {
        let nullable: Vec<String> = all()
            .iter()
            .flat_map(|tool| {
                (tool.required_nullable)().into_iter().map(|f| format!("{}: {f}", tool.spec.name))
            })
            .collect();
        assert!(nullable.is_empty(), "results that may send null: {nullable:?}");
    }

    #[test]
    fn input_schemas_are_plain_objects() {
        for tool in all() {
            let schema = &tool.spec.input_schema;
            assert_eq!(schema.get("type"), Some(&json!("object")), "{}", tool.spec.name);
            for combinator in ["anyOf", "oneOf", "allOf", "$schema"] {
                assert!(!schema.contains_key(combinator), "{} has {combinator}", tool.spec.name);
            }
        }
    }
}
