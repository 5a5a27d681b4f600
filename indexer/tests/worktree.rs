//! A second worktree or clone of a repository starts from the first one's saved index: the
//! files whose content matches are not parsed again, and the search index is not rebuilt.

use std::fs;
use std::path::{Path, PathBuf};

use tack_indexer::{Filter, Index, LoadOutcome, TextIndex};

fn open(root: &Path, store: &Path) -> (Index, LoadOutcome) {
    Index::open(root, Filter::new(root, &[]).unwrap(), Some(store.to_path_buf()))
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
}

/// A repository (with `origin` when given) holding a.py and b.py, indexed and saved, with its
/// search index, in `cache/main`.
fn indexed_repository(top: &Path, origin: Option<&str>) -> PathBuf {
    let main = top.join("main");
    fs::create_dir_all(main.join(".git/worktrees/second")).unwrap();
    let mut config = "[core]\n\tbare = false\n".to_string();
    if let Some(url) = origin {
        config.push_str(&format!("[remote \"origin\"]\n\turl = {url}\n"));
    }
    fs::write(main.join(".git/config"), config).unwrap();
    write(&main, &[("a.py", "def alpha():\n    return beta()\n"), ("b.py", "def beta():\n    return 1\n")]);
    let main = main.canonicalize().unwrap();
    let (index, _) = open(&main, &top.join("cache/main"));
    assert_eq!(index.refresh(&|_, _| {}).parsed, 2);
    assert!(index.save().unwrap());
    let (text, _) = TextIndex::open(Some(&top.join("cache/main/search"))).unwrap();
    assert_eq!(text.sync(&main, &index.snapshot()).unwrap().added, 2);
    main
}

#[test]
fn a_worktree_reuses_the_parsed_files_and_the_search_index_of_another() {
    let top = tempfile::tempdir().unwrap();
    let main = indexed_repository(top.path(), None);
    // What `git worktree add ../second` leaves: a .git file naming the worktree's folder in the
    // main repository, which names the common folder.
    let second = top.path().join("second");
    fs::create_dir_all(&second).unwrap();
    fs::write(second.join(".git"), format!("gitdir: {}\n", main.join(".git/worktrees/second").display()))
        .unwrap();
    fs::write(main.join(".git/worktrees/second/commondir"), "../..\n").unwrap();
    write(&second, &[("a.py", "def alpha():\n    return beta()\n"), ("b.py", "def beta():\n    return 2\n")]);
    write(&second, &[("c.py", "def gamma():\n    return 3\n")]);
    let second = second.canonicalize().unwrap();

    let store = top.path().join("cache/second");
    let (index, outcome) = open(&second, &store);
    let LoadOutcome::Seeded { from, files, reason } = outcome else { panic!("not seeded: {outcome:?}") };
    assert_eq!((from.root, files, reason), (main.clone(), 2, None));
    let stats = index.refresh(&|_, _| {});
    // b.py changed and c.py is new: parsed. a.py is the same: reused with this root's times.
    assert_eq!((stats.files, stats.parsed, stats.reused), (3, 2, 1));
    let snapshot = index.snapshot();
    let mtime = fs::metadata(second.join("a.py")).unwrap().modified().unwrap();
    let mtime = mtime.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    assert_eq!(snapshot.files["a.py"].mtime_ns, mtime);
    assert!(snapshot.files["b.py"].symbols.defs.iter().any(|d| d.name() == "beta"));

    let seeded = tack_indexer::seed_search(&from.store.join("search"), &store.join("search")).unwrap();
    assert!(seeded > 0, "the search index's files are linked");
    let (text, dropped) = TextIndex::open(Some(&store.join("search"))).unwrap();
    assert_eq!(dropped, None);
    let synced = text.sync(&second, &snapshot).unwrap();
    assert_eq!((synced.added, synced.removed), (2, 0), "only b.py and c.py are indexed again");
    // The first worktree's search index is untouched by the second's changes.
    let (first, _) = TextIndex::open(Some(&top.path().join("cache/main/search"))).unwrap();
    assert_eq!(
        first.sync(&main, &open(&main, &top.path().join("cache/main")).0.snapshot()).unwrap().added,
        0
    );

    // Saved now, the second worktree opens from its own index.
    assert!(index.save().unwrap());
    assert!(matches!(open(&second, &store).1, LoadOutcome::Loaded { files: 3 }));
}

#[test]
fn a_clone_with_the_same_origin_is_seeded_and_other_roots_are_not() {
    let top = tempfile::tempdir().unwrap();
    let main = indexed_repository(top.path(), Some("git@example.org:team/shop.git"));
    let root_with = |name: &str, config: Option<&str>| {
        let dir = top.path().join(name);
        fs::create_dir_all(dir.join(".git")).unwrap();
        if let Some(config) = config {
            fs::write(dir.join(".git/config"), config).unwrap();
        }
        write(&dir, &[("a.py", "def alpha():\n    return beta()\n")]);
        dir.canonicalize().unwrap()
    };
    let clone = root_with("clone", Some("[remote \"origin\"]\n\turl = git@example.org:team/shop.git\n"));
    let (_, outcome) = open(&clone, &top.path().join("cache/clone"));
    assert!(matches!(&outcome, LoadOutcome::Seeded { from, .. } if from.root == main), "{outcome:?}");

    let other = root_with("other", Some("[remote \"origin\"]\n\turl = git@example.org:team/else.git\n"));
    assert_eq!(open(&other, &top.path().join("cache/other")).1, LoadOutcome::NoSavedIndex);
    let no_git = top.path().join("plain");
    fs::create_dir_all(&no_git).unwrap();
    assert_eq!(
        open(&no_git.canonicalize().unwrap(), &top.path().join("cache/plain")).1,
        LoadOutcome::NoSavedIndex
    );
}
