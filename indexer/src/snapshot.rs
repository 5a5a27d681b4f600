//! The ground floor's data: one source file as the index holds it ([`FileEntry`], its [`Lang`]
//! and symbols) and a [`Snapshot`] of every file at one moment. Nothing here reads, resolves or
//! ranks; the floors above do, and keep what they compute from a snapshot in its [`Derived`].

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::symbols::FileSymbols;

/// A language tack understands: a name only. What each one means (its grammar, queries and
/// rules) is in `lang/`, the registry in the order of these variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    Python,
    Rust,
    Go,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    C,
    Cpp,
    CSharp,
    Php,
    Ruby,
    Kotlin,
    Swift,
    Bash,
    Lua,
    Elixir,
    Zig,
    Scala,
    Haskell,
    /// A text file no grammar reads (documentation, configuration, a language tack does not
    /// parse): searched by its words, with no symbols. Never in the registry.
    Text,
}

/// Files larger than this are listed without symbols (generated code, vendored bundles).
pub const MAX_PARSE_BYTES: u64 = 2 * 1024 * 1024;

/// One source file in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch: with `size`, the cheap change check.
    pub mtime_ns: u64,
    /// BLAKE3 of the content, first 16 bytes: the real change check.
    pub hash: [u8; 16],
    pub lines: u32,
    pub symbols: FileSymbols,
}

/// An immutable view of the whole index. Queries hold one; updates make a new one.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The files a grammar parses: what resolution, the graph and the map are made of.
    pub files: BTreeMap<String, Arc<FileEntry>>,
    /// Every other text file the walk admits (of the language `Text`): only search reads them.
    pub texts: BTreeMap<String, Arc<FileEntry>>,
    /// Increases with every update that changed something.
    pub generation: u64,
    /// What the floors above computed from these files (name resolution, the graph, what
    /// maps share), each built once.
    pub(crate) derived: Derived,
}

impl Snapshot {
    pub(crate) fn new(
        files: BTreeMap<String, Arc<FileEntry>>,
        texts: BTreeMap<String, Arc<FileEntry>>,
        generation: u64,
    ) -> Self {
        Snapshot { files, texts, generation, derived: Derived::default() }
    }

    /// The entry of `path`, parsed or text.
    pub fn entry(&self, path: &str) -> Option<&Arc<FileEntry>> {
        self.files.get(path).or_else(|| self.texts.get(path))
    }

    /// Every entry, parsed and text, by path.
    pub(crate) fn all_entries(&self) -> BTreeMap<String, Arc<FileEntry>> {
        let mut all = self.files.clone();
        all.extend(self.texts.iter().map(|(p, e)| (p.clone(), e.clone())));
        all
    }

    /// A snapshot of the given entries (tests and tools that index files they hold in memory).
    /// A snapshot of these entries: those of a parsed language its files, the others its texts.
    pub fn from_entries(entries: impl IntoIterator<Item = FileEntry>) -> Snapshot {
        let (files, texts) = entries
            .into_iter()
            .map(|e| (e.path.clone(), Arc::new(e)))
            .partition(|(_, e)| e.lang.has_grammar());
        Snapshot::new(files, texts, 0)
    }

    pub fn n_defs(&self) -> usize {
        self.files.values().map(|f| f.symbols.defs.len()).sum()
    }

    pub fn n_refs(&self) -> usize {
        self.files.values().map(|f| f.symbols.refs.len()).sum()
    }
}

/// A slot of one derived value: set once, read by everyone after.
type Cell = Arc<OnceLock<Arc<dyn Any + Send + Sync>>>;

/// Values computed from one snapshot by the floors above it, one per type, each built on first
/// use and shared by later queries. Kept by type, so the data names none of its readers: the
/// resolver's module keeps a `Resolver` here, the graph's a `SymbolGraph`.
#[derive(Default)]
pub(crate) struct Derived {
    cells: Mutex<Vec<(TypeId, Cell)>>,
}

impl Derived {
    /// The slot of values of type `T`, made when first asked for.
    fn cell<T: Any>(&self) -> Cell {
        let mut cells = self.cells.lock().expect("derived values");
        let id = TypeId::of::<T>();
        if let Some((_, cell)) = cells.iter().find(|(t, _)| *t == id) {
            return cell.clone();
        }
        let cell = Cell::default();
        cells.push((id, cell.clone()));
        cell
    }

    /// The value of type `T`, when one was built or set.
    pub(crate) fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.cell::<T>().get().map(|value| downcast(value.clone()))
    }

    /// Sets the value of type `T` unless one is there already (then `value` is dropped).
    pub(crate) fn set<T: Any + Send + Sync>(&self, value: Arc<T>) {
        let _ = self.cell::<T>().set(value);
    }

    /// The value of type `T`, built by `init` when there is none yet. One caller builds it;
    /// others asking meanwhile wait for that one (the slot's lock is not held while building,
    /// so `init` may ask for values of other types).
    pub(crate) fn get_or_init<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Arc<T> {
        let cell = self.cell::<T>();
        downcast(cell.get_or_init(|| Arc::new(init()) as Arc<dyn Any + Send + Sync>).clone())
    }
}

fn downcast<T: Any + Send + Sync>(value: Arc<dyn Any + Send + Sync>) -> Arc<T> {
    value.downcast::<T>().expect("a slot holds values of its own type")
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.cells.lock().map_or(0, |cells| cells.iter().filter(|(_, c)| c.get().is_some()).count());
        f.debug_struct("Derived").field("values", &n).finish()
    }
}

/// The positions of the files whose entries differ between two snapshots of the same files;
/// `None` when files were added or removed (what updates a graph or resolver cannot follow).
pub(crate) fn changed_between(before: &Snapshot, after: &Snapshot) -> Option<Vec<u32>> {
    if before.files.len() != after.files.len() || !before.files.keys().eq(after.files.keys()) {
        return None;
    }
    let changed = before.files.values().zip(after.files.values()).enumerate();
    Some(changed.filter(|(_, (old, new))| !Arc::ptr_eq(old, new)).map(|(i, _)| i as u32).collect())
}

/// `bytes` as text, invalid UTF-8 replaced: borrowed, after a validation that is faster than
/// `String::from_utf8_lossy`'s, when it is all valid (nearly every source file).
pub(crate) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A path as a result shows it: a control character (a newline, a tab, an escape) or a line or
/// paragraph separator written as an escape (`\n`, `\t`, `\u{1b}`), and so a backslash as `\\`,
/// so no file's name can forge a line of a result or move the terminal's cursor. Names without
/// such characters are shown as they are.
pub fn shown_path(path: &str) -> std::borrow::Cow<'_, str> {
    let special = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !path.chars().any(special) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c if special(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod shown_path_tests {
    use super::shown_path;

    #[test]
    fn control_characters_are_escaped_and_plain_names_kept() {
        assert_eq!(shown_path("src/a b.py"), "src/a b.py");
        assert_eq!(shown_path("src\\a.py"), "src\\a.py", "a backslash alone is kept");
        assert_eq!(shown_path("a\nb.py: 3 matches"), "a\\nb.py: 3 matches");
        assert_eq!(shown_path("x\t\u{1b}[2J\\.py"), "x\\t\\u{1b}[2J\\\\.py");
        assert_eq!(shown_path("p\u{2028}q"), "p\\u{2028}q");
    }
}
