//! Where an index is saved and how: `index.bin` (a header naming the format, the queries and
//! the root, then every entry) and `graph.bin` beside it (the resolved references, then what
//! the first unfocused map needs: the ranks without a focus and the map's tables), in the
//! user's cache, written to a temporary file and renamed so a crash never leaves half of either.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::graph::SymbolGraph;
use crate::snapshot::{FileEntry, MAX_PARSE_BYTES, Snapshot};

/// Bumped whenever the saved layout or the extractor's code changes; an index saved with another
/// version is rebuilt. Query files need no bump: their hash is part of the saved header.
pub(crate) const FORMAT_VERSION: u32 = 19;
pub(crate) const MAGIC: &[u8; 8] = b"TACKIDX\0";
/// The default place for a root's index: the user's cache directory, keyed by the root's path,
/// so opening a repository never writes into it.
pub fn default_store(root: &Path) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("root");
    let key = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
    Some(base.join("tack").join(format!("{name}-{}", &key[..16])))
}

/// A hash of every language's queries: extraction output changes when they do.
pub(crate) fn queries_fingerprint() -> [u8; 8] {
    let mut hasher = blake3::Hasher::new();
    for spec in crate::lang::specs() {
        hasher.update(spec.name.as_bytes());
        hasher.update(spec.source().as_bytes());
    }
    let mut out = [0u8; 8];
    out.copy_from_slice(&hasher.finalize().as_bytes()[..8]);
    out
}

pub(crate) fn save(dir: &Path, root: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let entries: Vec<&FileEntry> =
        snapshot.files.values().chain(snapshot.texts.values()).map(|e| e.as_ref()).collect();
    let root_bytes = root.as_os_str().as_encoded_bytes();
    let tmp = dir.join(format!("index.bin.tmp{}", std::process::id()));
    {
        // Serialized straight into the file: no second copy of the index in memory.
        let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        file.write_all(MAGIC)?;
        file.write_all(&FORMAT_VERSION.to_le_bytes())?;
        file.write_all(&queries_fingerprint())?;
        file.write_all(&(root_bytes.len() as u32).to_le_bytes())?;
        file.write_all(root_bytes)?;
        let file = postcard::to_io(&entries, file).map_err(std::io::Error::other)?;
        file.into_inner().map_err(|err| err.into_error())?.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join("index.bin"))
}

/// Where the graph's resolved references are saved, beside `index.bin`.
pub(crate) const GRAPH_FILE: &str = "graph.bin";

/// Writes the snapshot's graph (its resolved references) beside the index, then its ranks
/// without a focus and its map tables (made now unless they are), atomically: one file, so the
/// ranks are always those of the references beside them.
pub(crate) fn save_graph(dir: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    let Some(graph) = snapshot.derived.get::<SymbolGraph>() else { return Ok(()) };
    let tmp = dir.join(format!("{GRAPH_FILE}.tmp{}", std::process::id()));
    {
        let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        write_graph(&graph, snapshot, &mut file)?;
        file.into_inner().map_err(|err| err.into_error())?.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join(GRAPH_FILE))
}

/// What `graph.bin` holds: `graph`'s resolved references, then the map's saved ranks and
/// tables (a bundle's `graph` part is the same bytes).
pub(crate) fn write_graph(
    graph: &SymbolGraph,
    snapshot: &Snapshot,
    out: &mut impl Write,
) -> std::io::Result<()> {
    graph.write_to(snapshot, &mut *out)?;
    crate::map::write_saved(snapshot, out)
}

/// Reads `graph.bin` in `dir` into `snapshot` (the saved index's files): the graph when its
/// references were saved for exactly these files, and with it the saved ranks and map tables
/// when they are whole and fit it. Whatever is refused is made again when first asked for.
pub(crate) fn load_graph(dir: &Path, snapshot: &Snapshot) {
    let path = dir.join(GRAPH_FILE);
    let Ok(bytes) = std::fs::read(&path) else { return };
    match SymbolGraph::from_bytes(snapshot, &bytes) {
        Ok((graph, rest)) => {
            if let Err(why) = crate::map::load_saved(snapshot, &graph, rest) {
                tracing::info!("the ranks in {} not used ({why}): the first map makes them", path.display());
            }
            snapshot.derived.set(std::sync::Arc::new(graph));
        }
        // Said, since what follows (every reference resolved again) takes a while.
        Err(why) => {
            tracing::info!("{} not used ({why}): the first map resolves every reference", path.display())
        }
    }
}

/// Removes the temporary files of saves whose process is gone (killed mid-save); a save of a
/// live process (another server on this root) keeps its file.
pub(crate) fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| {
            n.strip_prefix("index.bin.tmp").or_else(|| n.strip_prefix(&format!("{GRAPH_FILE}.tmp")))
        }) else {
            continue;
        };
        let alive = pid.parse::<u32>().is_ok_and(|pid| Path::new("/proc").join(pid.to_string()).exists());
        if !alive {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The root a saved index at `path` was made for, read from its header alone.
pub(crate) fn saved_root(path: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut header = Vec::new();
    std::fs::File::open(path).ok()?.take(64 * 1024).read_to_end(&mut header).ok()?;
    if header.get(..8)? != MAGIC {
        return None;
    }
    let len = u32::from_le_bytes(header.get(20..24)?.try_into().ok()?) as usize;
    let bytes = header.get(24..24 + len)?;
    Some(PathBuf::from(std::str::from_utf8(bytes).ok()?))
}

/// The saved entries, `None` when there is no saved index, or why it cannot be used. Read as a
/// stream: the file is never held whole beside what it decodes to (at 30,000 files it is
/// 550 MB).
pub(crate) fn load(path: &Path, root: &Path) -> Result<Option<Vec<FileEntry>>, String> {
    use std::io::Read as _;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot read {}: {err}", path.display())),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let truncated = |_| "the saved index is truncated".to_string();
    let mut header = [0u8; 12];
    reader.read_exact(&mut header).map_err(truncated)?;
    if &header[..8] != MAGIC {
        return Err("the saved index is not a tack index".into());
    }
    let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(format!("the saved index has format {version}, this tack writes {FORMAT_VERSION}"));
    }
    let mut fingerprint = [0u8; 8];
    reader.read_exact(&mut fingerprint).map_err(truncated)?;
    if fingerprint != queries_fingerprint() {
        return Err("the saved index was made with other tags queries".into());
    }
    let mut len_bytes = [0u8; 4];
    reader.read_exact(&mut len_bytes).map_err(truncated)?;
    let root_bytes = root.as_os_str().as_encoded_bytes();
    let mut saved_root = Vec::new();
    (&mut reader)
        .take(u64::from(u32::from_le_bytes(len_bytes)))
        .read_to_end(&mut saved_root)
        .map_err(truncated)?;
    if saved_root != root_bytes {
        return Err("the saved index belongs to another root".into());
    }
    // Room for the longest string an entry holds: a line of a file no larger than the largest
    // file parsed.
    let mut scratch = vec![0u8; 2 * MAX_PARSE_BYTES as usize];
    postcard::from_io((reader, &mut scratch[..]))
        .map(|(entries, _)| Some(entries))
        .map_err(|err| format!("the saved index is corrupt: {err}"))
}
