//! Writing files safely: the writer (lock, re-read, version check, plan, syntax guard, atomic
//! commit, undo), the patch format, text matching for edits, and file-system helpers.

pub(crate) mod files;
pub(crate) mod patch_format;
#[cfg(test)]
mod proptests;
pub(crate) mod syntax_guard;
pub(crate) mod text_match;
pub(crate) mod undo_log;
pub(crate) mod writer;
