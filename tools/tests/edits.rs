//! The writing tools through `Toolbox::call` on real files: guarded edits, tolerances,
//! conflicts, patches, whole-file writes, undo, and the refusals an agent reads.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use expect_test::expect;
use serde_json::{Value, json};
use tack_tools::{CallContext, Config, Observation, Profile, Session, Toolbox};

fn toolbox(root: &Path) -> Toolbox {
    Toolbox::new(root, Config::default(), Profile::Core, false).unwrap()
}

fn call(tb: &Toolbox, session: &Session, name: &str, args: Value) -> Observation {
    tb.call(session, name, args, &CallContext::default()).observation
}

const CART: &str = "\
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(i.price for i in self.items)

    def clear(self):
        self.items = []
";

/// `edit_file` replacing `old` with `new` in `path`, from a fresh session.
fn edit(tb: &Toolbox, path: &str, old: &str, new: &str) -> Observation {
    call(tb, &Session::new(), "edit_file", json!({"path": path, "old": old, "new": new}))
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("shop")).unwrap();
    fs::write(dir.path().join("shop/cart.py"), CART).unwrap();
    fs::write(dir.path().join("src.rs"), "fn area(r: f64) -> f64 {\n    3.14 * r * r\n}\n").unwrap();
    dir
}

fn read(dir: &tempfile::TempDir, rel: &str) -> String {
    fs::read_to_string(dir.path().join(rel)).unwrap()
}

#[test]
fn a_unique_edit_applies_and_echoes_the_region() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let obs = edit(
        &tb,
        "shop/cart.py",
        "        self.items.append(item)\n",
        "        if item is not None:\n            self.items.append(item)\n",
    );
    assert!(!obs.is_error, "{}", obs.text);
    expect![[r#"
        edited shop/cart.py: 1 replacement at line 6; version c7020ff204fc91ce
         2	    def __init__(self):
         3	        self.items = []
         4	
         5	    def add(self, item):
         6	        if item is not None:
         7	            self.items.append(item)
         8	
         9	    def total(self):
        10	        return sum(i.price for i in self.items)
        11	
        not verified since the last edit: verify runs the checks
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.unwrap();
    assert_eq!(data["version"], json!(tack_tools::version_of(read(&dir, "shop/cart.py").as_bytes())));
    assert_eq!(data["matched"], json!("exact"));
}

#[test]
fn old_matching_three_times_lists_the_three_lines() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let obs = edit(&tb, "shop/cart.py", "self.items", "self.things");
    assert!(obs.is_error);
    expect![[r#"old matches 4 times in shop/cart.py, at lines 3, 6, 9, 12; add surrounding lines to old so it matches once, or pass replace_all=true to replace all 4. Nothing was changed."#]]
        .assert_eq(&obs.text);
    let obs = edit(&tb, "shop/cart.py", "self.items = []", "self.items = list()");
    assert!(obs.text.starts_with("old matches 2 times in shop/cart.py, at lines 3, 12;"), "{}", obs.text);
    let three = "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n";
    fs::write(dir.path().join("three.py"), three).unwrap();
    let obs = edit(&tb, "three.py", "x = 1", "x = 0");
    assert!(obs.text.starts_with("old matches 3 times in three.py, at lines 1, 3, 5;"), "{}", obs.text);
    assert_eq!(read(&dir, "three.py"), three);
    let obs = call(
        &tb,
        &Session::new(),
        "edit_file",
        json!({"path": "three.py", "old": "x = 1", "new": "x = 0", "replace_all": "true"}),
    );
    assert!(obs.text.starts_with("edited three.py: 3 replacements at lines 1, 3, 5;"), "{}", obs.text);
    assert_eq!(read(&dir, "three.py"), "x = 0\ny = 2\nx = 0\nz = 3\nx = 0\n");
}

#[test]
fn old_matching_nowhere_shows_the_closest_region() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let obs = edit(
        &tb,
        "shop/cart.py",
        "    def total(self):\n        return sum(item.price for item in self.items)\n",
        "x",
    );
    assert!(obs.is_error);
    expect![[r#"
        old does not occur in shop/cart.py, not even ignoring whitespace or look-alike punctuation; nothing was changed.
        The closest region is lines 8-9 (89% of its words are in old):
        8	    def total(self):
        9	        return sum(i.price for i in self.items)
        Copy old exactly from the file (read_file shows more lines) and call edit_file again.
    "#]]
    .assert_eq(&obs.text);
    assert_eq!(read(&dir, "shop/cart.py"), CART);
}

#[test]
fn tolerances_apply_only_when_the_exact_text_is_absent_and_say_so() {
    let dir = repo();
    fs::write(dir.path().join("t.py"), "def f():\n    x = 1   \n    return x\n").unwrap();
    let tb = toolbox(dir.path());
    let obs = edit(&tb, "t.py", "    x = 1\n", "    x = 2\n");
    assert!(!obs.is_error, "{}", obs.text);
    assert!(
        obs.text.starts_with(
            "edited t.py: 1 replacement at line 2 (old matched only ignoring trailing whitespace);"
        ),
        "{}",
        obs.text
    );
    assert_eq!(read(&dir, "t.py"), "def f():\n    x = 2\n    return x\n");
    assert_eq!(obs.structured.unwrap()["matched"], json!("trailing_whitespace"));

    let obs = edit(&tb, "t.py", "x = 2\nreturn x", "x = 3\nif x:\n    return x");
    assert!(
        obs.text.contains("(old matched only ignoring leading and trailing whitespace; new was re-indented"),
        "{}",
        obs.text
    );
    assert_eq!(read(&dir, "t.py"), "def f():\n    x = 3\n    if x:\n        return x\n");

    fs::write(dir.path().join("q.py"), "s = \u{201c}hi\u{201d}  # \u{2014}\n").unwrap();
    let obs = edit(&tb, "q.py", "s = \"hi\"", "s = \"hello\"");
    assert!(obs.text.contains("(old matched only treating look-alike punctuation"), "{}", obs.text);
    assert_eq!(read(&dir, "q.py"), "s = \"hello\"  # \u{2014}\n");
}

#[test]
fn an_unclosed_bracket_is_refused_and_the_bytes_stay() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let before = fs::read(dir.path().join("shop/cart.py")).unwrap();
    let obs = edit(&tb, "shop/cart.py", "        self.items.append(item)", "        self.items.append(item");
    assert!(obs.is_error);
    expect![[r#"
        refused: this would add syntax errors on 4 lines to shop/cart.py; nothing was applied, the file is unchanged.
        - shop/cart.py line 6, column 9: the text from here to line 12 does not parse
        - shop/cart.py line 8, column 5: this text does not parse
        - shop/cart.py line 11, column 5: this text does not parse
        - … errors on 1 more line
        as it would read:
         3	        self.items = []
         4	
         5	    def add(self, item):
         6	        self.items.append(item
         7	
         8	    def total(self):
         9	        return sum(i.price for i in self.items)
        10	
        11	    def clear(self):
        12	        self.items = []
        Compared with old, new has 1 more '(' than ')'.
        Fix new (balance brackets, quotes and indentation) and call edit_file again; old still matches.
    "#]]
    .assert_eq(&obs.text);
    assert_eq!(fs::read(dir.path().join("shop/cart.py")).unwrap(), before);

    let before = fs::read(dir.path().join("src.rs")).unwrap();
    let obs = edit(&tb, "src.rs", "    3.14 * r * r\n}", "    3.14 * (r * r\n}");
    assert!(obs.is_error && obs.text.contains("src.rs line 2"), "{}", obs.text);
    assert_eq!(fs::read(dir.path().join("src.rs")).unwrap(), before);
}

#[test]
fn a_file_broken_elsewhere_accepts_edits_that_add_no_error() {
    let dir = repo();
    let broken = format!("import os\n\nx = (1, 2\n\n{CART}");
    fs::write(dir.path().join("broken.py"), &broken).unwrap();
    let tb = toolbox(dir.path());
    let obs = edit(
        &tb,
        "broken.py",
        "    def clear(self):\n",
        "    def clear(self):\n        \"\"\"Empty the cart.\"\"\"\n",
    );
    assert!(!obs.is_error, "{}", obs.text);
    let obs = edit(&tb, "broken.py", "import os\n", "import os\nimport sys\n\n");
    assert!(!obs.is_error, "an edit that shifts every line below still adds nothing: {}", obs.text);
    let obs = edit(&tb, "broken.py", "def total(self):", "def total(self:");
    assert!(obs.is_error, "a second break is still refused: {}", obs.text);
}

#[test]
fn a_stale_version_is_refused_with_what_changed() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let session = Session::new();
    let seen = call(&tb, &session, "read_file", json!({"path": "shop/cart.py"}));
    let version = seen.structured.unwrap()["version"].as_str().unwrap().to_string();
    fs::write(dir.path().join("shop/cart.py"), CART.replace("def clear", "def empty")).unwrap();
    let obs = call(
        &tb,
        &session,
        "edit_file",
        json!({"path": "shop/cart.py", "old": "def add", "new": "def put", "version": version}),
    );
    assert!(obs.is_error);
    let now = tack_tools::version_of(read(&dir, "shop/cart.py").as_bytes());
    let text = obs.text.replace(&version, "OLD").replace(&now, "NOW");
    expect![[r#"
        refused to edit shop/cart.py: it changed since version OLD (it is now version NOW), so someone else wrote it; nothing was changed.
        what changed since your version:
        --- version OLD
        +++ version NOW
        @@ -9,4 +9,4 @@
                 return sum(i.price for i in self.items)
         
        -    def clear(self):
        +    def empty(self):
                 self.items = []
        Re-read it (read_file) and retry with version="NOW", keeping the other change.
    "#]]
    .assert_eq(&text);
    let obs = call(
        &tb,
        &session,
        "edit_file",
        json!({"path": "shop/cart.py", "old": "def add", "new": "def put", "version": now}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    let obs =
        call(&tb, &session, "edit_file", json!({"path": "shop/cart.py", "old": "def put", "new": "def add"}));
    assert!(!obs.is_error, "without a version the edit goes through: {}", obs.text);
}

fn five_files(dir: &Path) {
    for (name, body) in [
        ("a.py", "def a():\n    return 1\n"),
        ("b.py", "def b():\n    return 2\n"),
        ("c.txt", "line one\nline two\n"),
        ("d.rs", "fn d() -> u8 {\n    4\n}\n"),
        ("gone.txt", "bye\n"),
    ] {
        fs::write(dir.join(name), body).unwrap();
    }
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().into_string().unwrap(), fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

const GOOD_PATCH: &str = "*** Begin Patch
*** Update File: a.py
@@ def a():
-    return 1
+    return 10
*** Update File: b.py
*** Move to: pkg/b2.py
@@
 def b():
-    return 2
+    return 20
*** Update File: d.rs
@@ fn d() -> u8 {
-    4
+    40
*** Add File: new.py
+def new():
+    return 0
*** Delete File: gone.txt
*** End Patch
";

#[test]
fn apply_patch_with_one_bad_hunk_among_five_files_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    five_files(dir.path());
    let tb = toolbox(dir.path());
    let before = snapshot(dir.path());
    let bad = GOOD_PATCH.replace("-    4\n+    40\n", "-    5\n+    50\n");
    let obs = call(&tb, &Session::new(), "apply_patch", json!({ "patch": bad }));
    assert!(obs.is_error);
    expect![[r#"
        the patch does not apply (1 of its 5 file operations failed); nothing was applied, no file was changed.
        - cannot find the lines of the section at patch line 13 in d.rs after line 1:
            5
        The file there reads:
        2	    4
        3	}
        Fix those parts (read_file shows the current lines) and send the whole patch again.
    "#]]
    .assert_eq(&obs.text);
    assert_eq!(snapshot(dir.path()), before);
    assert!(!dir.path().join("pkg").exists());

    let broken = GOOD_PATCH.replace("+    return 0\n", "+    return (0\n");
    let obs = call(&tb, &Session::new(), "apply_patch", json!({ "patch": broken }));
    assert!(obs.is_error && obs.text.contains("new.py line 2"), "{}", obs.text);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn apply_patch_applies_all_and_answers_a_m_d_lines() {
    let dir = tempfile::tempdir().unwrap();
    five_files(dir.path());
    let tb = toolbox(dir.path());
    let obs = call(&tb, &Session::new(), "apply_patch", json!({ "patch": GOOD_PATCH }));
    assert!(!obs.is_error, "{}", obs.text);
    expect![[r#"
        Success. Updated the following files:
        M a.py
        M pkg/b2.py (moved from b.py)
        M d.rs
        A new.py
        D gone.txt

        a.py, version 35549585ead9b433:
        1	def a():
        2	    return 10

        pkg/b2.py, version 1356d542d6e2eff4:
        1	def b():
        2	    return 20

        d.rs, version e5a1c8685f34ceb4:
        1	fn d() -> u8 {
        2	    40
        3	}

        new.py, version d3980e3c4f81895b:
        1	def new():
        2	    return 0
        not verified since the last edit: verify runs the checks
    "#]]
    .assert_eq(&obs.text);
    assert_eq!(read_path(dir.path(), "a.py"), "def a():\n    return 10\n");
    assert_eq!(read_path(dir.path(), "pkg/b2.py"), "def b():\n    return 20\n");
    assert!(!dir.path().join("b.py").exists() && !dir.path().join("gone.txt").exists());
    let files = obs.structured.unwrap()["files"].clone();
    let version = tack_tools::version_of(b"def b():\n    return 20\n");
    assert_eq!(
        files[1],
        json!({"path": "pkg/b2.py", "action": "modified", "version": version, "moved_from": "b.py"})
    );
    assert_eq!(files[4], json!({"path": "gone.txt", "action": "deleted"}));
}

fn read_path(dir: &Path, rel: &str) -> String {
    fs::read_to_string(dir.join(rel)).unwrap()
}

#[test]
fn a_path_that_cannot_be_written_refuses_the_whole_patch() {
    let dir = tempfile::tempdir().unwrap();
    five_files(dir.path());
    fs::write(dir.path().join("blocker"), "a file where a folder would be\n").unwrap();
    let tb = toolbox(dir.path());
    let before = snapshot(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-    return 1\n+    return 9\n*** Add File: blocker/x.txt\n+x\n*** End Patch\n";
    let obs = call(&tb, &Session::new(), "apply_patch", json!({ "patch": patch }));
    assert!(obs.is_error);
    assert_eq!(obs.text, "cannot patch blocker/x.txt: Not a directory (os error 20); nothing was changed");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn write_file_creates_and_overwrites_only_the_version_read() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let s = Session::new();
    let obs = call(&tb, &s, "write_file", json!({"path": "pkg/new.py", "content": "X = 1\n"}));
    assert!(obs.text.starts_with("created pkg/new.py (1 lines); version "), "{}", obs.text);
    let obs = call(&tb, &s, "write_file", json!({"path": "pkg/new.py", "content": "X = 2\n"}));
    assert!(obs.is_error && obs.text.contains("Pass version="), "{}", obs.text);
    let version = tack_tools::version_of(b"X = 1\n");
    let obs =
        call(&tb, &s, "write_file", json!({"path": "pkg/new.py", "content": "X = 2\n", "version": version}));
    assert!(obs.text.starts_with("overwrote pkg/new.py (1 lines)"), "{}", obs.text);
    let obs =
        call(&tb, &s, "write_file", json!({"path": "pkg/new.py", "content": "X = 3\n", "version": version}));
    assert!(obs.is_error && obs.text.contains("it changed since version"), "{}", obs.text);
    let obs = call(&tb, &s, "write_file", json!({"path": "pkg/bad.py", "content": "def f(:\n"}));
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert!(!dir.path().join("pkg/bad.py").exists());
}

#[test]
fn writes_keep_permissions_and_write_through_inside_symlinks() {
    let dir = repo();
    fs::set_permissions(dir.path().join("shop/cart.py"), fs::Permissions::from_mode(0o750)).unwrap();
    std::os::unix::fs::symlink("shop/cart.py", dir.path().join("link.py")).unwrap();
    let tb = toolbox(dir.path());
    let obs = edit(&tb, "link.py", "def clear", "def empty");
    assert!(obs.text.starts_with("edited shop/cart.py:"), "{}", obs.text);
    assert!(fs::symlink_metadata(dir.path().join("link.py")).unwrap().file_type().is_symlink());
    assert!(read(&dir, "shop/cart.py").contains("def empty"));
    assert_eq!(fs::metadata(dir.path().join("shop/cart.py")).unwrap().permissions().mode() & 0o777, 0o750);
}

#[test]
fn undo_restores_the_sessions_last_write_unless_someone_else_wrote() {
    let dir = repo();
    let tb = toolbox(dir.path());
    let s = Session::new();
    call(&tb, &s, "edit_file", json!({"path": "shop/cart.py", "old": "def clear", "new": "def empty"}));
    call(&tb, &s, "edit_file", json!({"path": "shop/cart.py", "old": "def empty", "new": "def wipe"}));
    let obs = call(&tb, &s, "undo", json!({"path": "shop/cart.py"}));
    assert!(obs.text.starts_with("undid this session's last write to shop/cart.py"), "{}", obs.text);
    assert!(read(&dir, "shop/cart.py").contains("def empty"));
    let other = Session::new();
    let obs = call(&tb, &other, "undo", json!({"path": "shop/cart.py"}));
    assert!(obs.is_error && obs.text.starts_with("nothing to undo"), "{}", obs.text);
    fs::write(dir.path().join("shop/cart.py"), CART.replace("def clear", "def reset")).unwrap();
    let obs = call(&tb, &s, "undo", json!({"path": "shop/cart.py"}));
    assert!(obs.is_error && obs.text.contains("changed since this session's last write"), "{}", obs.text);
    assert!(read(&dir, "shop/cart.py").contains("def reset"));

    call(&tb, &s, "write_file", json!({"path": "made.txt", "content": "hi\n"}));
    let obs = call(&tb, &s, "undo", json!({"path": "made.txt"}));
    assert!(obs.text.contains("that write created it, so it was deleted"), "{}", obs.text);
    assert!(!dir.path().join("made.txt").exists());
}

#[test]
fn every_writing_tool_refuses_paths_outside_the_root() {
    let dir = repo();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.py"), "x = 1\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("leak.py")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("outdir")).unwrap();
    let tb = toolbox(dir.path());
    let s = Session::new();
    let abs = outside.path().join("secret.py").display().to_string();
    for path in ["../x.py", "leak.py", "outdir/secret.py", "outdir/new.py", abs.as_str()] {
        let attempts = [
            ("edit_file", json!({"path": path, "old": "x = 1", "new": "x = 2"})),
            ("write_file", json!({"path": path, "content": "x = 2\n"})),
            ("undo", json!({"path": path})),
            ("replace_symbol", json!({"path": path, "symbol": "x", "new": "x = 2"})),
            (
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch")}),
            ),
            (
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch")}),
            ),
            (
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Update File: src.rs\n*** Move to: {path}\n*** End Patch")}),
            ),
        ];
        for (tool, args) in attempts {
            let obs = call(&tb, &s, tool, args);
            assert!(obs.is_error, "{tool} {path}: {}", obs.text);
            assert!(
                obs.text.contains("outside the repository root")
                    || obs.text.contains("leaves the repository root"),
                "{tool} {path}: {}",
                obs.text
            );
        }
    }
    assert_eq!(fs::read_to_string(outside.path().join("secret.py")).unwrap(), "x = 1\n");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    assert!(dir.path().join("src.rs").exists());
}

#[test]
fn read_only_removes_every_writing_tool() {
    let dir = repo();
    let tb = Toolbox::new(dir.path(), Config::default(), Profile::Full, true).unwrap();
    let names: Vec<&str> = tb.specs().map(|t| t.name).collect();
    for tool in ["edit_file", "apply_patch", "write_file", "replace_symbol", "undo"] {
        assert!(!names.contains(&tool), "{tool} is listed under --read-only");
    }
    let obs = edit(&tb, "src.rs", "3.14", "3.0");
    assert!(obs.is_error);
    assert!(read(&dir, "src.rs").contains("3.14"));
}

#[test]
fn concurrent_sessions_never_lose_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..100).map(|i| format!("v{i:03} = 0\n")).collect();
    fs::write(dir.path().join("vars.py"), body).unwrap();
    let tb = toolbox(dir.path());
    std::thread::scope(|scope| {
        for half in 0..2 {
            let tb = &tb;
            scope.spawn(move || {
                let session = Session::new();
                for i in (half * 50)..(half * 50 + 50) {
                    let obs = call(
                        tb,
                        &session,
                        "edit_file",
                        json!({"path": "vars.py", "old": format!("v{i:03} = 0\n"), "new": format!("v{i:03} = 1\n")}),
                    );
                    assert!(!obs.is_error, "{}", obs.text);
                }
            });
        }
    });
    let expected: String = (0..100).map(|i| format!("v{i:03} = 1\n")).collect();
    assert_eq!(fs::read_to_string(dir.path().join("vars.py")).unwrap(), expected);
}

/// A copy of a fixture repository in a temporary folder.
fn fixture(name: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name), dir.path());
    dir
}

#[test]
fn replace_symbol_in_a_crlf_file_writes_crlf_lines() {
    let dir = tempfile::tempdir().unwrap();
    let before = "class Cart:\r\n    def add(self):\r\n        return 1\r\n\r\n    def total(self):\r\n        return 2\r\n";
    fs::write(dir.path().join("cart.py"), before).unwrap();
    let tb = toolbox(dir.path());
    let new = "def add(self, item):\n    self.items.append(item)\n    return 1";
    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": "cart.py", "symbol": "Cart.add", "new": new}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    let after = read(&dir, "cart.py");
    assert_eq!(
        after,
        "class Cart:\r\n    def add(self, item):\r\n        self.items.append(item)\r\n        return 1\r\n\r\n    def total(self):\r\n        return 2\r\n"
    );
}

#[test]
fn replace_symbol_changes_only_that_method() {
    let dir = fixture("py_shop");
    let before = read(&dir, "shop/cart.py");
    let tb = toolbox(dir.path());
    let new = "def add(self, item: Item, quantity: int = 1) -> None:\n    for _ in range(quantity):\n        self.items.append(item)\n";
    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": "shop/cart.py", "symbol": "Cart.add", "new": new}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    let expected = before.replace(
        "    def add(self, item: Item) -> None:\n        self.items.append(item)\n",
        "    def add(self, item: Item, quantity: int = 1) -> None:\n        for _ in range(quantity):\n            self.items.append(item)\n",
    );
    assert_ne!(expected, before);
    assert_eq!(read(&dir, "shop/cart.py"), expected);
    let text =
        obs.text.replace(&obs.structured.as_ref().unwrap()["version"].as_str().unwrap().to_string(), "V");
    expect![[r#"
        replaced Cart.add in shop/cart.py (was lines 15-16, now 15-17); version V
        11	        self.customer = customer
        12	        self.items: list[Item] = []
        13	        self.code = None
        14	
        15	    def add(self, item: Item, quantity: int = 1) -> None:
        16	        for _ in range(quantity):
        17	            self.items.append(item)
        18	
        19	    def remove(self, name: str) -> bool:
        20	        before = len(self.items)
        21	        self.items = [i for i in self.items if i.name != name]
        not verified since the last edit: verify runs the checks
    "#]]
    .assert_eq(&text);

    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": "shop/cart.py", "symbol": "Cart.pay", "new": "def pay(self): pass"}),
    );
    assert!(obs.is_error);
    assert!(obs.text.starts_with("no definition named \"Cart.pay\" in shop/cart.py; its definitions are:\n  Cart (class, lines 7-26)\n"), "{}", obs.text);
}

#[test]
fn replace_symbol_in_rust_takes_a_module_path_and_keeps_the_rest() {
    let dir = fixture("rs_shapes");
    let rel = "src/shapes/circle.rs";
    let before = read(&dir, rel);
    let tb = toolbox(dir.path());
    let new = "pub fn contains(&self, p: Point) -> bool {\n    distance(self.center, p) < self.radius\n}";
    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": rel, "symbol": "shapes::circle::Circle::contains", "new": new}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    assert_eq!(read(&dir, rel), before.replace("p) <= self.radius", "p) < self.radius"));
    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": rel, "symbol": "area", "new": "fn area(&self) -> f64 {\n    0.0\n"}),
    );
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert_eq!(read(&dir, rel), before.replace("p) <= self.radius", "p) < self.radius"));
}

#[test]
fn the_index_sees_a_write_before_the_next_call() {
    let dir = fixture("py_shop");
    let tb = toolbox(dir.path());
    let s = Session::new();
    let map = call(&tb, &s, "repo_map", json!({"focus": ["refund_everything"]}));
    assert!(!map.text.contains("def refund_everything"), "{}", map.text);
    let obs = call(
        &tb,
        &s,
        "edit_file",
        json!({"path": "shop/cart.py", "old": "    def total(self) -> float:", "new": "    def refund_everything(self) -> None:\n        self.items = []\n\n    def total(self) -> float:"}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    let map = call(&tb, &s, "repo_map", json!({"focus": ["refund_everything"]}));
    assert!(map.text.contains("def refund_everything(self)"), "{}", map.text);
}

#[test]
fn tack_toml_and_git_are_not_written_unless_the_user_allows_it() {
    let dir = repo();
    fs::write(dir.path().join("tack.toml"), "[run]\ntimeout_s = 30\n").unwrap();
    fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
    fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(".git/config", dir.path().join("innocent.txt")).unwrap();
    // A person's own files of the list, nested: every writing tool refuses them too.
    fs::create_dir_all(dir.path().join("sub/.claude/hooks")).unwrap();
    fs::write(dir.path().join("sub/.claude/hooks/check.py"), "def check():\n    return 1\n").unwrap();
    fs::write(dir.path().join("notes.txt"), "notes\n").unwrap();
    let tb = toolbox(dir.path());
    let session = Session::new();
    let attempts = [
        ("edit_file", json!({"path": "tack.toml", "old": "30", "new": "600"})),
        ("write_file", json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ncurl x | sh\n"})),
        ("edit_file", json!({"path": "innocent.txt", "old": "[core]", "new": "[core]\nsshCommand = x"})),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: .git/info/attributes\n+x\n*** End Patch"}),
        ),
        (
            "write_file",
            json!({"path": "sub/.cargo/config.toml", "content": "[build]\nrustc-wrapper = \"x\"\n"}),
        ),
        ("write_file", json!({"path": "a/b/.git/config", "content": "[core]\n"})),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: sub/.husky/pre-commit\n@@\n-notes\n+curl x | sh\n*** End Patch"}),
        ),
        ("edit_file", json!({"path": "sub/.claude/hooks/check.py", "old": "return 1", "new": "return 2"})),
        (
            "replace_symbol",
            json!({"path": "sub/.claude/hooks/check.py", "symbol": "check", "new": "def check():\n    return 3"}),
        ),
        ("undo", json!({"path": "sub/.claude/hooks/check.py"})),
    ];
    for (name, args) in &attempts {
        let obs = call(&tb, &session, name, args.clone());
        assert!(
            obs.is_error
                && obs.text.starts_with("cannot ")
                && obs.text.contains(": it is ")
                && obs.text.contains(
                    "; a person can edit it, or allow it with allow_protected_writes in their own tack config"
                ),
            "{name} {args}: {}",
            obs.text
        );
    }
    expect!["cannot edit tack.toml: it is an agent's or editor's configuration, which runs when it opens this folder; a person can edit it, or allow it with allow_protected_writes in their own tack config"]
    .assert_eq(&call(&tb, &session, attempts[0].0, attempts[0].1.clone()).text);
    expect!["cannot write sub/.cargo/config.toml: it is a toolchain selector or wrapper setting, which the toolchain's next command (even --version) runs; a person can edit it, or allow it with allow_protected_writes in their own tack config"]
    .assert_eq(&call(&tb, &session, attempts[4].0, attempts[4].1.clone()).text);
    assert_eq!(read(&dir, "tack.toml"), "[run]\ntimeout_s = 30\n");
    assert_eq!(read(&dir, ".git/config"), "[core]\n");
    assert_eq!(read(&dir, "notes.txt"), "notes\n");
    assert_eq!(read(&dir, "sub/.claude/hooks/check.py"), "def check():\n    return 1\n");
    for made in [".git/hooks/pre-commit", "sub/.cargo", "a/b/.git", "sub/.husky"] {
        assert!(!dir.path().join(made).exists(), "{made}");
    }

    let config = Config { allow_protected_writes: true, ..Config::default() };
    let allowed = Toolbox::new(dir.path(), config, Profile::Core, false).unwrap();
    let obs = call(&allowed, &session, "edit_file", attempts[0].1.clone());
    assert!(!obs.is_error, "{}", obs.text);
    assert_eq!(read(&dir, "tack.toml"), "[run]\ntimeout_s = 600\n");
    let obs = call(&allowed, &session, "write_file", attempts[4].1.clone());
    assert!(!obs.is_error, "{}", obs.text);
}

#[test]
fn replace_symbol_in_go_takes_a_receiver_qualified_name_and_the_guard_refuses_broken_go() {
    let dir = fixture("go_shop");
    let rel = "cart/cart.go";
    let before = read(&dir, rel);
    let tb = toolbox(dir.path());
    let new = "// Add puts an item in the cart, once.\nfunc (c *Cart) Add(item Item) {\n\tc.Items = append(c.Items, item)\n\tc.Code = \"\"\n}";
    let obs =
        call(&tb, &Session::new(), "replace_symbol", json!({"path": rel, "symbol": "Cart.Add", "new": new}));
    assert!(!obs.is_error, "{}", obs.text);
    let after = before.replace(
        "// Add puts an item in the cart.\nfunc (c *Cart) Add(item Item) {\n\tc.Items = append(c.Items, item)\n}",
        new,
    );
    assert_ne!(after, before);
    assert_eq!(read(&dir, rel), after, "the doc comment above is replaced with the new one");
    let obs = edit(&tb, rel, "\traw := 0.0\n", "\traw := (0.0\n");
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert_eq!(read(&dir, rel), after);
}

#[test]
fn replace_symbol_in_typescript_and_the_guard_refuses_broken_typescript_and_javascript() {
    let dir = fixture("ts_shop");
    let rel = "src/cart.ts";
    let before = read(&dir, rel);
    let tb = toolbox(dir.path());
    let new = "add(item: Item): void {\n  if (!this.items.includes(item)) this.items.push(item);\n}";
    let obs =
        call(&tb, &Session::new(), "replace_symbol", json!({"path": rel, "symbol": "Cart.add", "new": new}));
    assert!(!obs.is_error, "{}", obs.text);
    let after = before.replace(
        "  add(item: Item): void {\n    this.items.push(item);\n  }",
        "  add(item: Item): void {\n    if (!this.items.includes(item)) this.items.push(item);\n  }",
    );
    assert_ne!(after, before);
    assert_eq!(read(&dir, rel), after, "reindented to the method's depth, its doc comment kept");
    let obs = edit(&tb, rel, "  total(): number {", "  total(): number {{");
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert_eq!(read(&dir, rel), after);
    let dir = fixture("js_shop");
    let tb = toolbox(dir.path());
    let obs = edit(&tb, "lib/cart.js", "  add(item) {", "  add(item {");
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
}

#[test]
fn replace_symbol_in_java_keeps_the_annotation_and_the_guard_refuses_broken_java() {
    let dir = fixture("java_shop");
    let rel = "src/main/java/shop/VipCart.java";
    let before = read(&dir, rel);
    let tb = toolbox(dir.path());
    let new = "public double total() {\n    return super.total() * 0.9;\n}";
    let obs = call(
        &tb,
        &Session::new(),
        "replace_symbol",
        json!({"path": rel, "symbol": "VipCart.total", "new": new}),
    );
    assert!(!obs.is_error, "{}", obs.text);
    let after = before.replace("return super.total() * 0.95;", "return super.total() * 0.9;");
    assert_ne!(after, before);
    assert_eq!(read(&dir, rel), after, "reindented to the method's depth, `@Override` above it kept");
    let obs = edit(&tb, rel, "    public double saved() {", "    public double saved( {");
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert_eq!(read(&dir, rel), after);
}

#[test]
fn replace_symbol_in_c_and_the_guard_refuses_broken_c_and_cpp() {
    let dir = fixture("c_shop");
    let rel = "src/cart.c";
    let before = read(&dir, rel);
    let tb = toolbox(dir.path());
    let new = "static double with_tax(double amount) {\n    return amount * (1.0 + TAX_RATE);\n}";
    let obs =
        call(&tb, &Session::new(), "replace_symbol", json!({"path": rel, "symbol": "with_tax", "new": new}));
    assert!(!obs.is_error, "{}", obs.text);
    let after = before.replace("return amount * (1 + TAX_RATE);", "return amount * (1.0 + TAX_RATE);");
    assert_ne!(after, before);
    assert_eq!(read(&dir, rel), after);
    let obs = edit(
        &tb,
        rel,
        "void cart_add(struct cart *c, double price) {",
        "void cart_add(struct cart *c, double price {",
    );
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
    assert_eq!(read(&dir, rel), after);
    let dir = fixture("cpp_shop");
    let tb = toolbox(dir.path());
    let obs = edit(&tb, "include/shop/cart.hpp", "class Cart {", "class Cart {{");
    assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{}", obs.text);
}

/// In each language added after the first eight, `replace_symbol` swaps a method for its new
/// text at its depth (C#, Kotlin, Swift, PHP, Ruby) or a function (Bash), by the name the
/// language writes, and the syntax guard refuses an edit that breaks the file.
#[test]
fn replace_symbol_and_the_guard_in_csharp_kotlin_swift_php_ruby_and_bash() {
    // (fixture, file, symbol, new text, the line it changes (before, after), a breaking edit)
    let cases = [
        (
            "cs_shop",
            "src/Shop/VipCart.cs",
            "VipCart.Total",
            "public override decimal Total()\n{\n    return base.Total() * 0.9m;\n}",
            ("return base.Total() * 0.95m;", "return base.Total() * 0.9m;"),
            ("    public decimal Saved()", "    public decimal Saved("),
        ),
        (
            "kt_shop",
            "src/main/kotlin/shop/VipCart.kt",
            "VipCart.total",
            "override fun total(): Double {\n    return super.total() * 0.9\n}",
            ("return super.total() * 0.95\n", "return super.total() * 0.9\n"),
            ("    fun saved(): Double {", "    fun saved(: Double {"),
        ),
        (
            "swift_shop",
            "Sources/Shop/VipCart.swift",
            "VipCart.total",
            "public override func total() -> Int {\n    return super.total() * 90 / 100\n}",
            ("return super.total() * 95 / 100", "return super.total() * 90 / 100"),
            ("    public func price() -> Int {", "    public func price( -> Int {"),
        ),
        (
            "php_shop",
            "src/Shop/VipCart.php",
            "VipCart::total",
            "public function total(): float\n{\n    return parent::total() * 0.9;\n}",
            ("return parent::total() * 0.95;", "return parent::total() * 0.9;"),
            ("    public function saved(): float", "    public function saved(: float"),
        ),
        (
            "rb_shop",
            "lib/shop/vip_cart.rb",
            "Shop::VipCart::total",
            "def total\n  super * 0.9\nend",
            ("super * 0.95", "super * 0.9"),
            ("Cart.new(owner).total - total", "Cart.new(owner).total - (total"),
        ),
        (
            "sh_shop",
            "lib/vip_cart.sh",
            "vip_cart_total",
            "vip_cart_total() {\n    local base\n    base=$(cart_total \"$@\")\n    echo \"$((base * 90 / 100))\"\n}",
            ("echo \"$((base * 95 / 100))\"", "echo \"$((base * 90 / 100))\""),
            ("vip=$(vip_cart_total \"$@\")", "vip=$(vip_cart_total \"$@\""),
        ),
    ];
    for (name, rel, symbol, new, (old_line, new_line), (good, broken)) in cases {
        let dir = fixture(name);
        let before = read(&dir, rel);
        let tb = toolbox(dir.path());
        let obs =
            call(&tb, &Session::new(), "replace_symbol", json!({"path": rel, "symbol": symbol, "new": new}));
        assert!(!obs.is_error, "{name}: {}", obs.text);
        let after = before.replacen(old_line, new_line, 1);
        assert_ne!(after, before, "{name}");
        assert_eq!(read(&dir, rel), after, "{name}: only the body's line changes, at the method's depth");
        let obs = edit(&tb, rel, good, broken);
        assert!(obs.is_error && obs.text.starts_with("refused: this would add"), "{name}: {}", obs.text);
        assert_eq!(read(&dir, rel), after, "{name}");
    }
}
