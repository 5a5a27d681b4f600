//! What a language's manifest says about where its modules live: PHP's `composer.json` maps
//! namespace prefixes to folders (PSR-4), Swift's `Package.swift` names its targets and their
//! folders. A manifest is a text file: it is read when it is indexed, what it declares is kept
//! with its entry (an import per module: the module, then its folder), and the language's
//! tables are made with the declared modules of every manifest in the tree.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Lang, specs};
use crate::names::{Import, NONE};
use crate::snapshot::FileEntry;
use crate::symbols::{FileSymbols, Names};

/// The manifest a language reads.
pub(crate) struct Manifest {
    /// The file's name (`composer.json`).
    pub file_name: &'static str,
    /// The modules its text declares: each module's name (as code writes it) and its folder,
    /// relative to the manifest's own folder (`""` for that folder itself).
    pub read: fn(&str) -> Vec<(String, String)>,
}

/// One module a manifest in the tree declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleRoot {
    /// As code writes it (`App\Shop`, `Cart`).
    pub module: String,
    /// Relative to the root, `/`-separated, without a trailing `/` (`""` for the root).
    pub folder: String,
}

impl ModuleRoot {
    /// Whether `path` is inside the module's folder.
    pub(crate) fn holds(&self, path: &str) -> bool {
        self.folder.is_empty() || path.strip_prefix(&self.folder).is_some_and(|rest| rest.starts_with('/'))
    }
}

/// The language whose manifest a file at `path` is.
fn manifest_lang(path: &str) -> Option<(Lang, &'static Manifest)> {
    let name = path.rsplit('/').next().unwrap_or(path);
    specs().find_map(|spec| spec.manifest.as_ref().filter(|m| m.file_name == name).map(|m| (spec.lang, m)))
}

/// What a manifest at `path` declares, kept as its entry's symbols: an import per module, its
/// `module` the module's name and its `item` the folder (from the root). `None` for a file
/// that is no manifest.
pub(crate) fn manifest_symbols(path: &str, bytes: &[u8]) -> Option<FileSymbols> {
    let (_, manifest) = manifest_lang(path)?;
    let text = std::str::from_utf8(bytes).ok()?;
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut names = Vec::new();
    let mut imports = Vec::new();
    for (module, folder) in (manifest.read)(text) {
        let Some(folder) = beside(dir, &folder) else { continue };
        let at = names.len() as u32;
        names.push(module);
        names.push(folder);
        imports.push(Import {
            module: at,
            item: at + 1,
            bound: NONE,
            alias: false,
            glob: true,
            cfg: None,
            scope: 0,
            line: 0,
            column: 0,
        });
    }
    Some(FileSymbols { names: names.into_iter().collect::<Names>(), imports, ..FileSymbols::default() })
}

/// `folder` as written in a manifest in `dir`, from the root: `./` and `.` parts dropped, `..`
/// taken back; `None` when it leaves the root or is absolute.
pub(super) fn beside(dir: &str, folder: &str) -> Option<String> {
    if folder.starts_with('/') || folder.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in folder.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The modules every manifest of `lang` in the tree declares, in path order.
pub(crate) fn module_roots(texts: &BTreeMap<String, Arc<FileEntry>>, lang: Lang) -> Vec<ModuleRoot> {
    let Some(manifest) = lang.spec().manifest.as_ref() else { return Vec::new() };
    let mut roots = Vec::new();
    for (path, entry) in texts {
        if path.rsplit('/').next() != Some(manifest.file_name) {
            continue;
        }
        let symbols = &entry.symbols;
        for import in &symbols.imports {
            roots.push(ModuleRoot {
                module: symbols.text(import.module).to_string(),
                folder: symbols.text(import.item).to_string(),
            });
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_taken_from_the_manifests_folder_and_kept_inside_the_root() {
        assert_eq!(beside("", "src/").as_deref(), Some("src"));
        assert_eq!(beside("pkg", "./lib/./x/").as_deref(), Some("pkg/lib/x"));
        assert_eq!(beside("pkg/sub", "../src").as_deref(), Some("pkg/src"));
        assert_eq!(beside("pkg", "").as_deref(), Some("pkg"));
        assert_eq!(beside("", "../outside"), None);
        assert_eq!(beside("", "/etc"), None);
    }

    #[test]
    fn a_module_root_holds_the_files_below_its_folder_only() {
        let root = ModuleRoot { module: "App".into(), folder: "src".into() };
        assert!(root.holds("src/Cart.php"));
        assert!(!root.holds("srcs/Cart.php"));
        assert!(!root.holds("src"));
        assert!(ModuleRoot { module: "App".into(), folder: String::new() }.holds("Cart.php"));
    }
}
