//! What the first map without a focus needs, saved with the index after the graph's parts in
//! `graph.bin`: each node's rank without a focus and what the map's tables say of it. A new
//! process reads them with the graph and answers that map without resolving a name, making the
//! tables or iterating PageRank; graphs updated from that first one start from those ranks.
//! Focused maps asked before the tables are made read the copy too, with the focus's users read
//! from the resolved references, so they wait neither for name resolution nor for the tables.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::{NodeFacts, Tables};
use crate::graph::{SymbolGraph, UniformRanks};
use crate::snapshot::Snapshot;

/// Bumped whenever what the map's tables hold, or how PageRank ranks, changes in a way the
/// constants in [`constants`] do not show: a copy saved by another version is not read.
const SAVED_VERSION: u32 = 3;

/// The constants the tables are made with: a copy made with other values is not read, so
/// tuning one needs no bump of [`SAVED_VERSION`].
fn constants() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    let cares = [
        super::AUX_CARE,
        super::PRIVATE_CARE,
        super::MEMBER_CARE,
        super::SURFACE_CARE,
        super::SURFACE_VALUE_CARE,
    ];
    for value in cares.into_iter().chain([super::VOCABULARY_CARE, super::USERS_EXPONENT]) {
        value.to_bits().hash(&mut hasher);
    }
    (super::FEW_USERS, crate::graph::BOOST.to_bits()).hash(&mut hasher);
    hasher.finish()
}

/// What the map's tables say of each node, as saved: the maps of a snapshot whose tables are
/// not made yet read these instead.
#[derive(Debug)]
pub(super) struct SavedMap {
    care: Vec<f32>,
    entry: Vec<bool>,
    parent: Vec<u32>,
    first_twin: Vec<u32>,
    breadth: Vec<f32>,
    max_per_line: usize,
}

impl SavedMap {
    pub(super) fn facts(&self) -> NodeFacts<'_> {
        NodeFacts {
            care: &self.care,
            entry: &self.entry,
            parent: &self.parent,
            first_twin: &self.first_twin,
            breadth: &self.breadth,
            max_per_line: self.max_per_line,
            users: super::UsersOf::None,
        }
    }
}

/// The copy read with a snapshot's graph, until its tables are made (then it is dropped: the
/// tables hold the same).
#[derive(Debug, Default)]
struct LoadedCopy(Mutex<Option<Arc<SavedMap>>>);

/// The saved copy of `snapshot`'s tables, while they are not made.
pub(super) fn unused_copy(snapshot: &Snapshot) -> Option<Arc<SavedMap>> {
    if snapshot.derived.get::<Tables>().is_some() {
        return None;
    }
    snapshot.derived.get::<LoadedCopy>()?.0.lock().expect("saved map").clone()
}

/// Drops the saved copy of `snapshot`'s tables (they are made now).
pub(super) fn forget(snapshot: &Snapshot) {
    if let Some(copy) = snapshot.derived.get::<LoadedCopy>() {
        copy.0.lock().expect("saved map").take();
    }
}

/// The section as it is written, borrowed from the tables and the ranks. A definition's parent
/// and first twin come before it in its file, so each is written as how far back it is (0: none),
/// a byte or two; who uses a node, as how many do.
#[derive(Serialize)]
struct Written<'a> {
    version: u32,
    constants: u64,
    nodes: u32,
    scale: f64,
    residual: f64,
    rank: &'a [f64],
    care: &'a [f32],
    entry: &'a [bool],
    parent: Back<'a>,
    first_twin: Back<'a>,
    users: Counts<'a>,
    max_per_line: u32,
}

impl<'a> Written<'a> {
    /// What is saved of a graph of `nodes` nodes: its ranks without a focus and its map's tables.
    fn of(nodes: usize, ranks: &'a UniformRanks, tables: &'a Tables) -> Self {
        Written {
            version: SAVED_VERSION,
            constants: constants(),
            nodes: nodes as u32,
            scale: ranks.scale,
            residual: ranks.residual,
            rank: &ranks.rank,
            care: &tables.care,
            entry: &tables.entry,
            parent: Back(&tables.parent),
            first_twin: Back(&tables.first_twin),
            users: Counts(&tables.users.start),
            max_per_line: tables.max_per_line as u32,
        }
    }
}

/// [`Written`] as it is read.
#[derive(Deserialize)]
struct Read {
    version: u32,
    constants: u64,
    nodes: u32,
    scale: f64,
    residual: f64,
    rank: Vec<f64>,
    care: Vec<f32>,
    entry: Vec<bool>,
    parent: Vec<u32>,
    first_twin: Vec<u32>,
    users: Vec<u32>,
    max_per_line: u32,
}

/// Per node, an earlier node (`u32::MAX`: none), written as how far back it is.
struct Back<'a>(&'a [u32]);

impl Serialize for Back<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Wrapping: an earlier node after this one (never made) is written as a distance no
        // node has, refused when read.
        let back = |(node, &earlier): (usize, &u32)| {
            if earlier == u32::MAX { 0 } else { (node as u32).wrapping_sub(earlier) }
        };
        serializer.collect_seq(self.0.iter().enumerate().map(back))
    }
}

/// Where each node's users start (the last entry: where the last one's end), written as how
/// many users each node has.
struct Counts<'a>(&'a [u32]);

impl Serialize for Counts<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.windows(2).map(|w| w[1] - w[0]))
    }
}

/// The section's trailer: its length (8 bytes) and a hash of it (16), so a damaged copy is never
/// read as another map.
const TRAILER: usize = 24;

/// Passes what is written on to `out`, hashing and counting it.
struct Hashing<W> {
    out: W,
    hasher: blake3::Hasher,
    len: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes what the first unfocused map of `snapshot` needs to `out`: its ranks without a focus
/// and its tables, made first unless they are (from the snapshot before, they take little: the
/// ranks fold the change in, the tables take each unchanged file's part).
pub(crate) fn write_saved(snapshot: &Snapshot, out: impl Write) -> std::io::Result<()> {
    if snapshot.files.is_empty() {
        return Ok(());
    }
    let (graph, tables) = super::unfocused(snapshot);
    let ranks = graph
        .uniform_reached(super::no_focus_key())
        .ok_or_else(|| std::io::Error::other("the ranks without a focus were not kept"))?;
    let written = Written::of(graph.n_nodes(), &ranks, &tables);
    let mut out = Hashing { out, hasher: blake3::Hasher::new(), len: 0 };
    postcard::to_io(&written, &mut out).map_err(std::io::Error::other)?;
    let Hashing { mut out, hasher, len } = out;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&hasher.finalize().as_bytes()[..TRAILER - 8])
}

/// Reads the section `bytes` (what follows the graph's parts in `graph.bin`) for `snapshot`,
/// whose graph `graph` was read with it: the ranks become what `graph` reached without a focus,
/// the tables the copy that maps asked before the tables are made read. Refused, and nothing
/// taken, when the section is missing, damaged, from another version or constants, or does not
/// fit the graph.
pub(crate) fn load_saved(snapshot: &Snapshot, graph: &SymbolGraph, bytes: &[u8]) -> Result<(), &'static str> {
    if bytes.is_empty() {
        return Err("none was saved");
    }
    let Some(split) = bytes.len().checked_sub(TRAILER) else { return Err("it is truncated") };
    let (payload, trailer) = bytes.split_at(split);
    let len = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    if len != payload.len() as u64 || blake3::hash(payload).as_bytes()[..TRAILER - 8] != trailer[8..] {
        return Err("it is damaged");
    }
    let read: Read = postcard::from_bytes(payload).map_err(|_| "it does not decode")?;
    if read.version != SAVED_VERSION || read.constants != constants() {
        return Err("another version of tack saved it");
    }
    let n = graph.n_nodes();
    let (rank, care, entry) = (read.rank.len(), read.care.len(), read.entry.len());
    let lengths = [rank, care, entry, read.parent.len(), read.first_twin.len(), read.users.len()];
    if read.nodes as usize != n || lengths.iter().any(|&len| len != n) {
        return Err("it belongs to another graph");
    }
    let earlier = |back: Vec<u32>| -> Option<Vec<u32>> {
        let node = |(node, back): (usize, u32)| match back {
            0 => Some(u32::MAX),
            back => (node as u32).checked_sub(back),
        };
        back.into_iter().enumerate().map(node).collect()
    };
    let finite = |v: f64| v.is_finite() && v >= 0.0;
    let fits = read.rank.iter().all(|&r| finite(r))
        && read.care.iter().all(|&c| finite(c as f64))
        && finite(read.residual)
        && finite(read.scale)
        && read.scale > 0.0
        && (1..=n.max(1)).contains(&(read.max_per_line as usize));
    let (Some(parent), Some(first_twin), true) = (earlier(read.parent), earlier(read.first_twin), fits)
    else {
        return Err("its values are out of range");
    };
    let ranks = UniformRanks { rank: Arc::new(read.rank), scale: read.scale, residual: read.residual };
    graph.seed_uniform(super::no_focus_key(), ranks);
    let copy = SavedMap {
        care: read.care,
        entry: read.entry,
        parent,
        first_twin,
        breadth: super::breadth_of_counts(read.users.into_iter()),
        max_per_line: read.max_per_line as usize,
    };
    snapshot.derived.set(Arc::new(LoadedCopy(Mutex::new(Some(Arc::new(copy))))));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Index;
    use crate::map::{no_focus_key, repo_map};
    use crate::resolve::Resolver;
    use std::path::{Path, PathBuf};

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn open(root: &Path, store: Option<&Path>) -> Index {
        Index::open(root, crate::Filter::new(root, &[]).unwrap(), store.map(Path::to_path_buf)).0
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name).canonicalize().unwrap()
    }

    /// A copy of fixture `name` in a temporary folder, to edit.
    fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let from = fixture(name);
        for entry in walkdir(&from) {
            let to = dir.path().join(entry.strip_prefix(&from).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&entry, to).unwrap();
        }
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    fn walkdir(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                out.extend(walkdir(&entry.path()));
            } else {
                out.push(entry.path());
            }
        }
        out
    }

    /// The ranks without a focus of `index`'s current graph (made unless they are).
    fn ranks(index: &Index) -> Vec<f64> {
        let snapshot = index.snapshot();
        snapshot.prepare_maps();
        let graph = snapshot.graph();
        graph.uniform_reached(no_focus_key()).expect("ranked without a focus").rank.to_vec()
    }

    /// The first maps of an index reopened from its store, before anything else is asked, and
    /// whether the saved copy answered them without making the tables, who uses each node or
    /// name resolution.
    fn first_maps(root: &Path, store: &Path, asks: &[(&[&str], usize)]) -> (Vec<String>, bool) {
        let index = open(root, Some(store));
        let snapshot = index.snapshot();
        assert!(snapshot.graph().was_loaded());
        let from_copy = unused_copy(&snapshot).is_some();
        let maps = asks
            .iter()
            .map(|(focus, budget)| {
                let focus: Vec<String> = focus.iter().map(|f| f.to_string()).collect();
                repo_map(&snapshot, &focus, *budget, &words).text
            })
            .collect();
        let made = snapshot.derived.get::<Tables>().is_some()
            || snapshot.derived.get::<Resolver>().is_some()
            || snapshot.derived.get::<crate::map::Users>().is_some();
        (maps, from_copy && !made)
    }

    /// Five fixtures, one per language the map is tested in, and tack's own source.
    fn roots() -> Vec<PathBuf> {
        let own_source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").canonicalize().unwrap();
        ["py_shop", "rs_shapes", "ts_shop", "java_shop", "go_shop"]
            .map(fixture)
            .into_iter()
            .chain([own_source])
            .collect()
    }

    /// The maps of an index made from nothing (no store, nothing saved).
    fn maps_from_nothing(root: &Path, asks: &[(&[&str], usize)]) -> Vec<String> {
        let snapshot = open(root, None).snapshot();
        asks.iter()
            .map(|(focus, budget)| {
                let focus: Vec<String> = focus.iter().map(|f| f.to_string()).collect();
                repo_map(&snapshot, &focus, *budget, &words).text
            })
            .collect()
    }

    #[test]
    fn a_reopened_index_answers_its_first_unfocused_maps_from_the_saved_ranks_with_the_same_bytes() {
        let unfocused: [(&[&str], usize); 4] =
            [(&[], 1024), (&[], 64), (&[], 8192), (&["no_such_name_anywhere"], 512)];
        for root in roots() {
            let store = tempfile::tempdir().unwrap();
            let index = open(&root, Some(store.path()));
            index.snapshot();
            assert!(index.save().unwrap());
            drop(index);
            let (maps, from_copy) = first_maps(&root, store.path(), &unfocused);
            assert!(from_copy, "{}: the saved copy answered, nothing was made", root.display());
            assert_eq!(maps, maps_from_nothing(&root, &unfocused), "{}", root.display());
            // The tables made after the first map (as a server does) drop the copy; the maps
            // after them, focused or not, are as from nothing.
            let index = open(&root, Some(store.path()));
            let snapshot = index.snapshot();
            let first = repo_map(&snapshot, &[], 1024, &words).text;
            snapshot.prepare_maps();
            assert!(unused_copy(&snapshot).is_none() && snapshot.derived.get::<LoadedCopy>().is_some());
            assert!(snapshot.derived.get::<LoadedCopy>().unwrap().0.lock().unwrap().is_none());
            let file = snapshot.files.keys().next().unwrap().clone();
            let focused = repo_map(&snapshot, std::slice::from_ref(&file), 1024, &words).text;
            let again = repo_map(&snapshot, &[], 2048, &words).text;
            let asks: [(&[&str], usize); 3] = [(&[], 1024), (&[file.as_str()], 1024), (&[], 2048)];
            assert_eq!([first, focused, again], *maps_from_nothing(&root, &asks));
            assert_eq!(ranks(&index), ranks(&open(&root, None)), "{}: the same bits", root.display());
        }
    }

    /// A new process's focused maps (as an agent asks them before the server has made the
    /// tables) are answered from the saved copy too, with a focus's users read from the resolved
    /// references: nothing is made, and each map is the same bytes as from nothing.
    #[test]
    fn a_reopened_index_answers_focused_maps_from_the_saved_copy_with_the_same_bytes() {
        for root in roots() {
            let store = tempfile::tempdir().unwrap();
            let index = open(&root, Some(store.path()));
            let snapshot = index.snapshot();
            // Focuses of every kind: a file, the names of the first definitions of three files,
            // a qualified name, a name and a file at once, and a word that names nothing.
            let file = snapshot.files.keys().next().unwrap().clone();
            let names: Vec<String> = snapshot
                .files
                .values()
                .filter_map(|entry| entry.symbols.defs.iter().next().map(|d| d.name().to_string()))
                .take(3)
                .collect();
            assert_eq!(names.len(), 3, "{}", root.display());
            assert!(index.save().unwrap());
            drop((snapshot, index));
            let qualified = format!("{}.{}", names[0], names[1]);
            let focuses: Vec<Vec<&str>> = vec![
                vec![&file],
                vec![&names[0]],
                vec![&names[1], &names[2]],
                vec![&qualified],
                vec![&names[2], &file],
                vec!["no_such_name_anywhere"],
            ];
            let asks: Vec<(&[&str], usize)> =
                focuses.iter().flat_map(|f| [(f.as_slice(), 512), (f.as_slice(), 2048)]).collect();
            let (maps, from_copy) = first_maps(&root, store.path(), &asks);
            assert!(from_copy, "{}: the saved copy answered, nothing was made", root.display());
            let expected = maps_from_nothing(&root, &asks);
            for ((ask, map), expected) in asks.iter().zip(&maps).zip(&expected) {
                assert_eq!(map, expected, "{}: {ask:?}", root.display());
            }
            assert!(maps.iter().any(|m| m.contains(&names[0])), "{}: a focus shows", root.display());
        }
    }

    #[test]
    fn after_a_change_is_folded_in_and_saved_the_saved_ranks_are_the_new_snapshots() {
        let (_dir, root) = copy_of("py_shop");
        let store = tempfile::tempdir().unwrap();
        let index = open(&root, Some(store.path()));
        repo_map(&index.snapshot(), &[], 1024, &words);
        assert!(index.save().unwrap());
        let before = ranks(&open(&root, Some(store.path())));
        assert_eq!(before, ranks(&index));

        // A new call changes the edges, so the ranks; the fold updates the graph, and the save
        // (as the watcher's, after the fold) ranks the new snapshot from the old ranks.
        let path = root.join("shop/checkout.py");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            format!("{text}\n\ndef audit(cart):\n    return apply_discount(cart.total(), None)\n"),
        )
        .unwrap();
        let folded = index.apply_changes(&["shop/checkout.py".to_string()]);
        assert!(folded.graph().was_updated());
        assert!(index.save().unwrap());
        let live = ranks(&index);
        assert_ne!(live, before, "the edit moved the ranks");
        assert!(live.len() > before.len(), "a definition was added");
        let reopened = open(&root, Some(store.path()));
        assert_eq!(ranks(&reopened), live, "the saved ranks are the new snapshot's");
        let (maps, from_copy) = first_maps(&root, store.path(), &[(&[], 1024), (&[], 256)]);
        assert!(from_copy);
        let live_maps: Vec<String> =
            [1024, 256].iter().map(|&budget| repo_map(&index.snapshot(), &[], budget, &words).text).collect();
        assert_eq!(maps, live_maps);
        assert!(maps[0].contains("def audit(cart):"), "{}", maps[0]);
    }

    #[test]
    fn a_damaged_or_foreign_copy_is_refused_without_a_panic_and_the_map_made_again() {
        let root = fixture("rs_shapes");
        let store = tempfile::tempdir().unwrap();
        let index = open(&root, Some(store.path()));
        let snapshot = index.snapshot();
        assert!(index.save().unwrap());
        let saved = std::fs::read(store.path().join("graph.bin")).unwrap();
        let graph = snapshot.graph();
        let (_, section) = SymbolGraph::from_bytes(&snapshot, &saved).unwrap();
        let at = saved.len() - section.len();
        let expected = maps_from_nothing(&root, &[(&[], 1024)]);
        // Every byte of the section changed, and the section cut at every length: refused.
        for i in 0..section.len() {
            let mut damaged = section.to_vec();
            damaged[i] ^= 0x20;
            assert!(load_saved(&snapshot, &graph, &damaged).is_err(), "byte {i}");
            assert!(load_saved(&snapshot, &graph, &section[..i]).is_err(), "cut at {i}");
        }
        assert!(unused_copy(&snapshot).is_none(), "nothing refused was taken");
        // On disk: the graph is read, the copy refused, the map made again.
        let mut damaged = saved.clone();
        damaged[at + 5] ^= 1;
        std::fs::write(store.path().join("graph.bin"), &damaged).unwrap();
        let (maps, from_copy) = first_maps(&root, store.path(), &[(&[], 1024)]);
        assert!(!from_copy);
        assert_eq!(maps, expected);
        // A whole copy made for another graph (another fixture's) is refused too.
        let other = tempfile::tempdir().unwrap();
        let other_index = open(&fixture("py_shop"), Some(other.path()));
        other_index.snapshot();
        other_index.save().unwrap();
        let other_saved = std::fs::read(other.path().join("graph.bin")).unwrap();
        let other_snapshot = other_index.snapshot();
        let (_, other_section) = SymbolGraph::from_bytes(&other_snapshot, &other_saved).unwrap();
        assert_eq!(load_saved(&snapshot, &graph, other_section), Err("it belongs to another graph"));
        let mut mixed = saved[..at].to_vec();
        mixed.extend_from_slice(other_section);
        std::fs::write(store.path().join("graph.bin"), &mixed).unwrap();
        let (maps, from_copy) = first_maps(&root, store.path(), &[(&[], 1024)]);
        assert!(!from_copy);
        assert_eq!(maps, expected);
    }

    /// Values a whole, hashed section could still hold wrongly (written by a faulty version):
    /// each is refused.
    #[test]
    fn a_copy_whose_values_do_not_fit_the_graph_is_refused() {
        let root = fixture("py_shop");
        let index = open(&root, None);
        let snapshot = index.snapshot();
        let (graph, tables) = super::super::unfocused(&snapshot);
        let n = graph.n_nodes();
        let ranks = graph.uniform_reached(no_focus_key()).unwrap();
        let base = || Written::of(n, &ranks, &tables);
        let write = |written: Written| {
            let mut bytes = Vec::new();
            let mut out = Hashing { out: &mut bytes, hasher: blake3::Hasher::new(), len: 0 };
            postcard::to_io(&written, &mut out).unwrap();
            let (len, hash) = (out.len, out.hasher.finalize());
            bytes.extend_from_slice(&len.to_le_bytes());
            bytes.extend_from_slice(&hash.as_bytes()[..16]);
            bytes
        };
        let load = |bytes: &[u8]| {
            let fresh = Snapshot::from_entries(snapshot.files.values().map(|e| (**e).clone()));
            let graph = SymbolGraph::build(&fresh);
            load_saved(&fresh, &graph, bytes)
        };
        assert_eq!(load(&write(base())), Ok(()));
        let nan: Vec<f64> = (0..n).map(|i| if i == 3 { f64::NAN } else { 0.0 }).collect();
        let short: Vec<f64> = vec![0.0; n - 1];
        let after: Vec<u32> = (1..=n as u32).collect();
        let cases = [
            ("another version", Written { version: SAVED_VERSION + 1, ..base() }),
            ("other constants", Written { constants: constants() ^ 1, ..base() }),
            ("another node count", Written { nodes: n as u32 + 1, ..base() }),
            ("a rank too few", Written { rank: &short, ..base() }),
            ("a rank not a number", Written { rank: &nan, ..base() }),
            ("a parent after its child", Written { parent: Back(&after), ..base() }),
            ("a first twin after it", Written { first_twin: Back(&after), ..base() }),
            ("no definition on a line", Written { max_per_line: 0, ..base() }),
        ];
        for (what, written) in cases {
            assert!(load(&write(written)).is_err(), "{what}");
        }
    }
}
