//! Index bundles: one immutable file holding what a saved index holds (every file's entry,
//! keyed by its content hash; the resolved graph with the map's saved ranks; the search index), made so that one tree gives
//! the same bytes wherever it sits on disk, and read as untrusted input.
//!
//! A bundle seeds an empty store: its parts are written where `store` keeps them, for this
//! root, and the first refresh then reads every file, reusing each whose content hash matches
//! and parsing only the others (the overlay: a dirty tree, a later commit).
//!
//! Layout: `TACKBNDL`, the bundle's version, the index format, the queries' fingerprint, tack's
//! version, the commit (empty outside git), then named parts (`entries`, `graph`,
//! `search/<file>`), each with its length, and last a BLAKE3 hash of everything before it.

use std::io::{Read, Write};
use std::path::Path;

use crate::snapshot::{FileEntry, Snapshot};

const MAGIC: &[u8; 8] = b"TACKBNDL";
/// Bumped when the layout above changes.
const BUNDLE_VERSION: u32 = 1;
/// The most parts a bundle may hold (a search index has a handful of files per segment).
const MOST_PARTS: u32 = 4096;
/// The longest part name.
const LONGEST_NAME: usize = 128;

/// What a bundle holds, as a person reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleSummary {
    /// Files with an entry (parsed and text).
    pub files: usize,
    /// The commit the tree was at, when it was a git checkout.
    pub commit: Option<String>,
    /// The bundle's size in bytes.
    pub bytes: u64,
}

/// Writes the bundle of `snapshot` (the tree at `root`) to `out`, atomically: entries without
/// their modification times, the graph, and a search index built afresh with one indexing
/// thread and no merges, its segments named by their content.
pub fn write_bundle(root: &Path, snapshot: &Snapshot, out: &Path) -> Result<BundleSummary, crate::Error> {
    let failed =
        |cause: std::io::Error| crate::Error::Bundle { path: out.to_path_buf(), cause: cause.to_string() };
    // The entries one at a time (a copy of each without its time, never of them all), as
    // postcard writes a `Vec<FileEntry>`: their count, then each.
    let count = snapshot.files.len() + snapshot.texts.len();
    let mut entries = postcard::to_allocvec(&count).map_err(|e| failed(std::io::Error::other(e)))?;
    for entry in snapshot.files.values().chain(snapshot.texts.values()) {
        let timeless = FileEntry { mtime_ns: 0, ..(**entry).clone() };
        entries = postcard::to_extend(&timeless, entries).map_err(|e| failed(std::io::Error::other(e)))?;
    }
    let graph = snapshot.graph();
    let mut graph_bytes = Vec::new();
    crate::store::write_graph(&graph, snapshot, &mut graph_bytes).map_err(failed)?;
    let mut parts =
        vec![("entries".to_string(), Part::Bytes(entries)), ("graph".to_string(), Part::Bytes(graph_bytes))];
    // The search index is built afresh beside the bundle, and removed once it is written.
    let scratch = out.with_file_name(format!(".tack-bundle-search.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let written = crate::text::TextIndex::build_reproducible(&scratch, root, snapshot).and_then(|()| {
        parts.extend(search_parts(&scratch).map_err(failed)?);
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        write_parts(root, out, &parts).map_err(failed)
    });
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(BundleSummary { files: count, commit: commit_of(root), bytes: written? })
}

/// A part's bytes, in memory or in a file of the scratch search index.
enum Part {
    Bytes(Vec<u8>),
    File(std::path::PathBuf),
}

/// Writes the bundle's header, `parts` and the closing hash to `out`, through a temporary file
/// beside it; its size.
fn write_parts(root: &Path, out: &Path, parts: &[(String, Part)]) -> std::io::Result<u64> {
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("bundle");
    let tmp = out.with_file_name(format!("{name}.tmp{}", std::process::id()));
    let written = (|| -> std::io::Result<u64> {
        let mut hasher = blake3::Hasher::new();
        let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        let mut put = |bytes: &[u8]| -> std::io::Result<()> {
            hasher.update(bytes);
            file.write_all(bytes)
        };
        put(MAGIC)?;
        put(&BUNDLE_VERSION.to_le_bytes())?;
        put(&crate::store::FORMAT_VERSION.to_le_bytes())?;
        put(&crate::store::queries_fingerprint())?;
        for text in [env!("CARGO_PKG_VERSION"), commit_of(root).as_deref().unwrap_or("")] {
            put(&(text.len() as u16).to_le_bytes())?;
            put(text.as_bytes())?;
        }
        put(&(parts.len() as u32).to_le_bytes())?;
        for (name, part) in parts {
            put(&(name.len() as u16).to_le_bytes())?;
            put(name.as_bytes())?;
            match part {
                Part::Bytes(bytes) => {
                    put(&(bytes.len() as u64).to_le_bytes())?;
                    put(bytes)?;
                }
                Part::File(path) => {
                    let mut from = std::fs::File::open(path)?;
                    put(&from.metadata()?.len().to_le_bytes())?;
                    let mut buf = vec![0u8; 1 << 20];
                    loop {
                        let n = from.read(&mut buf)?;
                        if n == 0 {
                            break;
                        }
                        put(&buf[..n])?;
                    }
                }
            }
        }
        let hash = hasher.finalize();
        file.write_all(hash.as_bytes())?;
        let file = file.into_inner().map_err(|err| err.into_error())?;
        file.sync_all()?;
        Ok(file.metadata()?.len())
    })();
    match written {
        Ok(bytes) => std::fs::rename(&tmp, out).map(|()| bytes),
        Err(err) => {
            let _ = std::fs::remove_file(&tmp);
            Err(err)
        }
    }
}

/// The search index in `dir` as bundle parts: each segment's files named by a hash of their
/// content instead of tantivy's random id, `meta.json` saying so with its segments in that
/// order; locks and tantivy's list of its own files left out (the reader writes them).
fn search_parts(dir: &Path) -> std::io::Result<Vec<(String, Part)>> {
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json"))?)?;
    let mut files: Vec<String> = std::fs::read_dir(dir)?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| !n.starts_with('.') && n != "meta.json")
        .collect();
    files.sort();
    let mut parts = Vec::new();
    let mut segments = Vec::new();
    for segment in meta["segments"].as_array().cloned().unwrap_or_default() {
        let id = segment["segment_id"].as_str().unwrap_or_default().replace('-', "");
        let own: Vec<&String> = files.iter().filter(|f| f.split('.').next() == Some(id.as_str())).collect();
        let mut hasher = blake3::Hasher::new();
        for f in &own {
            let ext = f.split_once('.').map_or("", |(_, ext)| ext);
            hasher.update(ext.as_bytes());
            hasher.update(&std::fs::metadata(dir.join(f))?.len().to_le_bytes());
            std::io::copy(&mut std::fs::File::open(dir.join(f))?, &mut hasher)?;
        }
        let new = hasher.finalize().to_hex()[..32].to_string();
        for f in own {
            let ext = f.split_once('.').map_or("", |(_, ext)| ext);
            parts.push((format!("search/{new}.{ext}"), Part::File(dir.join(f))));
        }
        let mut segment = segment.clone();
        segment["segment_id"] = serde_json::Value::String(hyphenated(&new));
        segments.push((new, segment));
    }
    segments.sort_by(|a, b| a.0.cmp(&b.0));
    let mut meta = meta;
    meta["segments"] = serde_json::Value::Array(segments.into_iter().map(|(_, s)| s).collect());
    parts.push(("search/meta.json".into(), Part::Bytes(serde_json::to_vec_pretty(&meta)?)));
    Ok(parts)
}

/// A 32-digit hex id as a UUID's text (`8-4-4-4-12`).
fn hyphenated(hex: &str) -> String {
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// The commit `root`'s checkout is at, read from `.git` without running git: `HEAD`, the ref
/// it names as a loose file or in `packed-refs`. `None` outside git or when unreadable.
fn commit_of(root: &Path) -> Option<String> {
    let git = root.join(".git");
    let git = if git.is_file() {
        let text = std::fs::read_to_string(&git).ok()?;
        root.join(text.strip_prefix("gitdir:")?.trim())
    } else {
        git
    };
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    let is_hash = |s: &str| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let Some(name) = head.strip_prefix("ref: ") else { return is_hash(head).then(|| head.to_string()) };
    // A worktree's refs live in the common folder.
    let common = std::fs::read_to_string(git.join("commondir")).map(|c| git.join(c.trim())).unwrap_or(git);
    if let Ok(text) = std::fs::read_to_string(common.join(name)) {
        let text = text.trim();
        return is_hash(text).then(|| text.to_string());
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (hash, refname) = l.split_once(' ')?;
        (refname == name && is_hash(hash)).then(|| hash.to_string())
    })
}

/// Why a bundle is not used.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Writes the parts of the bundle at `bundle` into `store` for `root`: `index.bin` with this
/// root in its header, `graph.bin`, and `search/`. The whole file's hash is checked before
/// anything is written, every length against what is left of the file, every name against the
/// few a bundle holds; a bundle of another format, queries or tack version, or damaged, is
/// refused, and `store` is left as it was.
pub fn unpack_bundle(bundle: &Path, root: &Path, store: &Path) -> Result<BundleSummary, Refused> {
    let refuse = |why: String| Refused(format!("{}: {why}", bundle.display()));
    let io = |err: std::io::Error| refuse(format!("cannot read it ({err})"));
    let size = std::fs::metadata(bundle).map_err(io)?.len();
    if size < 8 + 4 + 32 {
        return Err(refuse("it is not a tack bundle (too short)".into()));
    }
    // The hash first, streaming: nothing of a damaged file is decoded.
    {
        let mut file = std::fs::File::open(bundle).map_err(io)?;
        let mut hasher = blake3::Hasher::new();
        let mut left = size - 32;
        let mut buf = vec![0u8; 1 << 20];
        while left > 0 {
            let n = buf.len().min(left as usize);
            file.read_exact(&mut buf[..n]).map_err(io)?;
            hasher.update(&buf[..n]);
            left -= n as u64;
        }
        let mut stored = [0u8; 32];
        file.read_exact(&mut stored).map_err(io)?;
        if hasher.finalize().as_bytes() != &stored {
            return Err(refuse("it is damaged (its checksum does not match)".into()));
        }
    }
    let file = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(bundle).map_err(io)?);
    let mut reader = Reader { file, left: size - 32, bundle };
    if reader.take(8)? != MAGIC {
        return Err(refuse("it is not a tack bundle".into()));
    }
    let version = reader.word()?;
    if version != BUNDLE_VERSION {
        return Err(refuse(format!("it has bundle layout {version}, this tack reads {BUNDLE_VERSION}")));
    }
    let format = reader.word()?;
    if format != crate::store::FORMAT_VERSION {
        return Err(refuse(format!(
            "it holds index format {format}, this tack writes {}",
            crate::store::FORMAT_VERSION
        )));
    }
    if reader.take(8)? != crate::store::queries_fingerprint() {
        return Err(refuse("it was made with other tags queries".into()));
    }
    let tack = reader.text()?;
    if tack != env!("CARGO_PKG_VERSION") {
        return Err(refuse(format!("tack {tack} made it; this is tack {}", env!("CARGO_PKG_VERSION"))));
    }
    let commit = Some(reader.text()?).filter(|c| !c.is_empty());
    let n_parts = reader.word()?;
    if n_parts > MOST_PARTS {
        return Err(refuse(format!("it names {n_parts} parts, more than a bundle holds")));
    }
    // The search index's files go straight to a folder beside the store's, which replaces its
    // `search/` only once the whole bundle was read.
    let staging = store.join(format!("search.tmp{}", std::process::id()));
    let staged = |why: Refused| {
        let _ = std::fs::remove_dir_all(&staging);
        why
    };
    let write_err =
        |err: std::io::Error| Refused(format!("cannot write the bundle into {}: {err}", store.display()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(write_err)?;
    let (mut entries, mut graph, mut search) = (None, None, Vec::new());
    for _ in 0..n_parts {
        let name = reader.text().map_err(staged)?;
        let len = u64::from_le_bytes(reader.take(8).map_err(staged)?.try_into().unwrap_or([0; 8]));
        match name.as_str() {
            "entries" => entries = Some(reader.take(len).map_err(staged)?),
            "graph" => graph = Some(reader.take(len).map_err(staged)?),
            _ => match name.strip_prefix("search/").filter(|n| is_search_file(n)) {
                Some(file_name) => {
                    let mut file =
                        std::fs::File::create(staging.join(file_name)).map_err(|e| staged(write_err(e)))?;
                    reader.copy_to(len, &mut file).map_err(staged)?;
                    search.push(file_name.to_string());
                }
                None => {
                    return Err(staged(refuse(format!("it holds a part this tack does not know: {name:?}"))));
                }
            },
        }
    }
    let entries = entries.ok_or_else(|| staged(refuse("it holds no entries".into())))?;
    // Decoded within their part's length; then each file of this checkout whose content is the
    // entry's takes its own times, so the first refresh trusts them as a reopen does and reads
    // only the files that differ (the overlay).
    let mut decoded: Vec<FileEntry> = postcard::from_bytes(&entries)
        .map_err(|err| staged(refuse(format!("its entries do not decode ({err})"))))?;
    drop(entries);
    // Paths as a walk of a root makes them: relative, `/`-separated, no `.` or `..` parts.
    if let Some(bad) = decoded.iter().find(|e| !is_clean_path(&e.path)) {
        return Err(staged(refuse(format!("it holds an entry whose path leaves the root: {:?}", bad.path))));
    }
    if let Ok(dir) = crate::beneath::RootDir::open(root) {
        use rayon::prelude::*;
        decoded.par_iter_mut().for_each(|entry| {
            if let Some((size, mtime_ns)) = crate::index::times_if_same(&dir, entry) {
                entry.size = size;
                entry.mtime_ns = mtime_ns;
            }
        });
    }
    let entries = postcard::to_allocvec(&decoded)
        .map_err(|err| refuse(format!("its entries do not encode ({err})")))?;
    let mut write = || -> std::io::Result<()> {
        std::fs::create_dir_all(store)?;
        let search_dir = store.join("search");
        if search_dir.exists() {
            std::fs::remove_dir_all(&search_dir)?;
        }
        search.sort();
        std::fs::write(staging.join(".managed.json"), serde_json::to_vec(&search)?)?;
        std::fs::rename(&staging, &search_dir)?;
        if let Some(graph) = &graph {
            write_atomically(&store.join(crate::store::GRAPH_FILE), graph)?;
        }
        // Last: a store with an `index.bin` is a store with an index.
        let root_bytes = root.as_os_str().as_encoded_bytes();
        let mut index = Vec::with_capacity(entries.len() + 64);
        index.extend_from_slice(crate::store::MAGIC);
        index.extend_from_slice(&crate::store::FORMAT_VERSION.to_le_bytes());
        index.extend_from_slice(&crate::store::queries_fingerprint());
        index.extend_from_slice(&(root_bytes.len() as u32).to_le_bytes());
        index.extend_from_slice(root_bytes);
        index.extend_from_slice(&entries);
        write_atomically(&store.join("index.bin"), &index)
    };
    write().map_err(|err| staged(write_err(err)))?;
    Ok(BundleSummary { files: decoded.len(), commit, bytes: size })
}

/// A bundle read from its start, every length checked against what is left of it before its
/// bytes are taken.
struct Reader<'a> {
    file: std::io::BufReader<std::fs::File>,
    /// Bytes left before the closing hash.
    left: u64,
    bundle: &'a Path,
}

impl Reader<'_> {
    fn refused(&self, why: &str) -> Refused {
        Refused(format!("{}: {why}", self.bundle.display()))
    }

    fn take(&mut self, n: u64) -> Result<Vec<u8>, Refused> {
        if n > self.left {
            return Err(self.refused("it is damaged (a length runs past its end)"));
        }
        self.left -= n;
        let mut out = vec![0u8; n as usize];
        self.file.read_exact(&mut out).map_err(|err| self.refused(&format!("cannot read it ({err})")))?;
        Ok(out)
    }

    /// Copies the next `n` bytes to `to`, a buffer at a time.
    fn copy_to(&mut self, n: u64, to: &mut impl Write) -> Result<(), Refused> {
        if n > self.left {
            return Err(self.refused("it is damaged (a length runs past its end)"));
        }
        self.left -= n;
        let copied = std::io::copy(&mut (&mut self.file).take(n), to)
            .map_err(|err| self.refused(&format!("cannot copy a part ({err})")))?;
        if copied != n {
            return Err(self.refused("it is damaged (cut short)"));
        }
        Ok(())
    }

    fn word(&mut self) -> Result<u32, Refused> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap_or([0; 4])))
    }

    /// A length of two bytes, then that much UTF-8.
    fn text(&mut self) -> Result<String, Refused> {
        let len = u16::from_le_bytes(self.take(2)?.try_into().unwrap_or([0; 2]));
        String::from_utf8(self.take(u64::from(len))?)
            .map_err(|_| self.refused("it is damaged (a name is not UTF-8)"))
    }
}

/// Whether `path` is one a walk of a root gives: relative, `/`-separated, each part a name.
fn is_clean_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(['\\', '\0'])
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
}

/// A name a bundle's search index may hold: `meta.json`, or a segment's file
/// (`<32 hex digits>.<letters>`).
fn is_search_file(name: &str) -> bool {
    if name == "meta.json" {
        return true;
    }
    let Some((id, ext)) = name.split_once('.') else { return false };
    name.len() <= LONGEST_NAME
        && id.len() == 32
        && id.bytes().all(|b| b.is_ascii_hexdigit())
        && !ext.is_empty()
        && ext.bytes().all(|b| b.is_ascii_lowercase())
}

/// Writes `path` through a temporary file beside it (`index.bin.tmp<pid>`, which a later open
/// removes if this process died mid-write).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("part");
    let tmp = path.with_file_name(format!("{name}.tmp{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::{Filter, Index, LoadOutcome, TextIndex};

    /// A small tree of two languages and a document.
    fn tree(dir: &Path) {
        fs::create_dir_all(dir.join("shop")).unwrap();
        fs::write(
            dir.join("shop/cart.py"),
            "from shop.price import tax\n\ndef total(xs):\n    return sum(xs) + tax(xs)\n",
        )
        .unwrap();
        fs::write(dir.join("shop/price.py"), "def tax(xs):\n    return len(xs)\n").unwrap();
        fs::write(dir.join("tool.rs"), "pub fn run() -> u32 {\n    helper()\n}\nfn helper() -> u32 { 1 }\n")
            .unwrap();
        fs::write(dir.join("README.md"), "# Shop\n\nCarts and their totals.\n").unwrap();
    }

    /// The root's index, refreshed and saved into `store`, and its bundle at `out`.
    fn bundle_of(root: &Path, store: &Path, out: &Path) -> BundleSummary {
        let root = root.canonicalize().unwrap();
        let (index, _) = Index::open(&root, Filter::new(&root, &[]).unwrap(), Some(store.to_path_buf()));
        index.refresh(&|_, _| {});
        index.save().unwrap();
        write_bundle(&root, &index.snapshot(), out).unwrap()
    }

    /// A tree, its bundle (in the third folder) and a second checkout of the same tree.
    fn bundled() -> (tempfile::TempDir, tempfile::TempDir, tempfile::TempDir, std::path::PathBuf) {
        let (a, c, stores) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        tree(a.path());
        let bundle = stores.path().join("a.bundle");
        bundle_of(a.path(), &stores.path().join("a"), &bundle);
        tree(c.path());
        (a, c, stores, bundle)
    }

    #[test]
    fn one_tree_at_two_paths_gives_the_same_bytes() {
        let (a, b, stores) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        tree(a.path());
        // Written later: other modification times, which the bundle leaves out.
        std::thread::sleep(std::time::Duration::from_millis(20));
        tree(b.path());
        let summary = bundle_of(a.path(), &stores.path().join("a"), &stores.path().join("a.bundle"));
        bundle_of(b.path(), &stores.path().join("b"), &stores.path().join("b.bundle"));
        assert_eq!(summary.files, 4);
        let (first, second) = (
            fs::read(stores.path().join("a.bundle")).unwrap(),
            fs::read(stores.path().join("b.bundle")).unwrap(),
        );
        assert!(first == second, "two bundles of one tree differ");
        // A different tree gives different bytes.
        fs::write(b.path().join("shop/price.py"), "def tax(xs):\n    return 2 * len(xs)\n").unwrap();
        bundle_of(b.path(), &stores.path().join("b"), &stores.path().join("b.bundle"));
        assert_ne!(first, fs::read(stores.path().join("b.bundle")).unwrap());
    }

    #[test]
    fn a_checkout_started_from_a_bundle_parses_only_what_differs_and_searches() {
        let (_a, c, stores, bundle) = bundled();
        fs::write(
            c.path().join("shop/price.py"),
            "def tax(xs):\n    return 0\n\ndef discount():\n    return 1\n",
        )
        .unwrap();
        let root = c.path().canonicalize().unwrap();
        let store = stores.path().join("c");
        let summary = unpack_bundle(&bundle, &root, &store).unwrap();
        assert_eq!(summary.files, 4);
        let (index, outcome) = Index::open(&root, Filter::new(&root, &[]).unwrap(), Some(store.clone()));
        assert_eq!(outcome, LoadOutcome::Loaded { files: 3 });
        let stats = index.refresh(&|_, _| {});
        assert_eq!((stats.files, stats.parsed, stats.reused), (3, 1, 2), "{stats:?}");
        let snapshot = index.snapshot();
        assert!(
            snapshot.graph().was_loaded() || snapshot.graph().was_updated(),
            "the bundle's graph is used"
        );
        let (text, dropped) = TextIndex::open(Some(&store.join("search"))).unwrap();
        assert_eq!(dropped, None, "the bundle's search index opens");
        let synced = text.sync(&root, &snapshot).unwrap();
        assert_eq!(synced.added, 1, "only the changed file is indexed again: {synced:?}");
        let found = text.terms_per_file(&["discount".to_string()]).unwrap();
        assert_eq!(found.keys().collect::<Vec<_>>(), ["shop/price.py"]);
        let found = text.terms_per_file(&["totals".to_string()]).unwrap();
        assert_eq!(found.keys().collect::<Vec<_>>(), ["README.md"], "unchanged files come from the bundle");
    }

    #[test]
    fn an_identical_checkout_reads_its_files_once_and_keeps_the_bundles_graph() {
        let (_a, c, stores, bundle) = bundled();
        let root = c.path().canonicalize().unwrap();
        let store = stores.path().join("c");
        unpack_bundle(&bundle, &root, &store).unwrap();
        let (index, _) = Index::open(&root, Filter::new(&root, &[]).unwrap(), Some(store));
        let before = index.snapshot().generation;
        let stats = index.refresh(&|_, _| {});
        assert_eq!((stats.parsed, stats.reused), (0, 3), "{stats:?}");
        let snapshot = index.snapshot();
        assert_eq!(snapshot.generation, before, "nothing changed: the unpacked snapshot stays");
        assert!(snapshot.graph().was_loaded(), "the bundle's graph is the graph, not resolved again");
    }

    #[test]
    fn a_damaged_or_foreign_bundle_is_refused_and_leaves_the_store_empty() {
        let (a, stores) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        tree(a.path());
        let bundle = stores.path().join("a.bundle");
        bundle_of(a.path(), &stores.path().join("a"), &bundle);
        let good = fs::read(&bundle).unwrap();
        let root = a.path().canonicalize().unwrap();
        let refused = |bytes: &[u8]| -> String {
            let path = stores.path().join("x.bundle");
            fs::write(&path, bytes).unwrap();
            let store = stores.path().join("x");
            let _ = fs::remove_dir_all(&store);
            let err = unpack_bundle(&path, &root, &store).unwrap_err().to_string();
            assert!(!store.join("index.bin").exists(), "a refused bundle wrote an index");
            let left: Vec<_> =
                fs::read_dir(&store).into_iter().flatten().flatten().map(|e| e.file_name()).collect();
            assert!(left.is_empty(), "a refused bundle left {left:?}");
            err
        };
        // Any flipped byte, anywhere, and any cut.
        for at in [0, 9, 30, good.len() / 2, good.len() - 40, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            let why = refused(&bad);
            assert!(why.contains("damaged") || why.contains("not a tack bundle"), "{why}");
        }
        for len in [0, 7, 40, good.len() / 3, good.len() - 1] {
            refused(&good[..len]);
        }
        // Well formed, but of another layout, or with a part this tack does not know (the
        // hash made anew, as someone crafting it would).
        let resealed = |mut bytes: Vec<u8>| {
            bytes.truncate(bytes.len() - 32);
            let hash = blake3::hash(&bytes);
            bytes.extend_from_slice(hash.as_bytes());
            bytes
        };
        let mut other = good.clone();
        other[8..12].copy_from_slice(&99u32.to_le_bytes());
        assert!(refused(&resealed(other)).contains("bundle layout 99"));
        let mut other = good.clone();
        other[12..16].copy_from_slice(&(crate::store::FORMAT_VERSION + 1).to_le_bytes());
        assert!(refused(&resealed(other)).contains("index format"));
        let at = good.windows(16).position(|w| w == b"search/meta.json").unwrap_or(0);
        assert!(at > 0);
        let mut other = good.clone();
        other[at..at + 16].copy_from_slice(b"search/../x.json");
        assert!(refused(&resealed(other)).contains("does not know"));
        // An entry whose path would leave the root.
        let at = good.windows(12).position(|w| w == b"shop/cart.py").unwrap();
        let mut other = good.clone();
        other[at..at + 12].copy_from_slice(b"../x/cart.py");
        assert!(refused(&resealed(other)).contains("leaves the root"));
        // The good one still unpacks.
        unpack_bundle(&bundle, &root, &stores.path().join("ok")).unwrap();
    }
}
