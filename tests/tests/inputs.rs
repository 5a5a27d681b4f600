//! No repository file can exhaust or hang the real server: `tack.toml` and ignore files linked
//! to `/dev/zero` or made FIFOs, an edit whose result would be a gigabyte, a file of one endless
//! line. Tests read the server's peak memory (`VmHWM`) from `/proc`, so a regression shows as a
//! figure.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use tack_tests::stdio_server;

/// How long a test waits for one answer before calling the server hung. Not a timing
/// assertion: the calls take well under a second; a blocked server never answers.
const HUNG: Duration = Duration::from_secs(120);

/// A `tack serve` over stdio, its log lines, and its answers by line.
struct Server {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
    log: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(root: &Path) -> Self {
        Self::start_with(root, &[])
    }

    fn start_with(root: &Path, env: &[(&str, &Path)]) -> Self {
        let mut command = stdio_server(root);
        command.env("TACK_LOG", "warn").stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = |from: Box<dyn std::io::Read + Send>| {
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(from).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            rx
        };
        let answers = lines(Box::new(child.stdout.take().unwrap()));
        let log = lines(Box::new(child.stderr.take().unwrap()));
        let mut server = Server { child, stdin, answers, log, next_id: 0 };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "inputs", "version": "0"}}),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).and_then(|()| self.stdin.flush()).expect("the server reads its input");
    }

    /// Sends a request and waits for its answer's `result`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.answers.recv_timeout(HUNG).unwrap_or_else(|_| {
                let log: Vec<String> = self.log.try_iter().collect();
                panic!("no answer to {method} (the server hung or died); its log:\n{}", log.join("\n"))
            });
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == json!(id) {
                return answer["result"].clone();
            }
        }
    }

    /// A tool call's text and whether it is an error.
    fn call(&mut self, name: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
        (text, result["isError"] == json!(true))
    }

    /// The most memory the server has held so far, in MB.
    fn peak_mb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/PID/status");
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
    }

    /// The log lines so far.
    fn log(&self) -> String {
        self.log.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn config_and_ignore_files_linked_to_dev_zero_or_fifos_neither_hang_nor_exhaust_the_server() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("deep")).unwrap();
    std::fs::write(root.join("a.py"), "def needle():\n    return 1\n").unwrap();
    std::fs::write(root.join("sub/b.py"), "from a import needle\nneedle()\n").unwrap();
    std::fs::write(root.join("deep/c.py"), "needle = 2\n").unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("tack.toml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("deep/.ignore")).unwrap();
    let fifo =
        std::ffi::CString::new(root.join("sub/.gitignore").into_os_string().into_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");

    let mut server = Server::start(root);
    for mode in ["auto", "text"] {
        let (text, is_error) = server.call("search", json!({"query": "needle", "mode": mode}));
        assert!(!is_error, "{mode}: {text}");
        let first = text.lines().next().unwrap_or_default();
        assert!(first.ends_with(" matches in 3 files"), "{mode}: {text}");
        for path in ["a.py", "sub/b.py", "deep/c.py"] {
            assert!(text.contains(path), "{mode}: {path} missing from\n{text}");
        }
    }
    let peak = server.peak_mb();
    println!("server peak memory with hostile tack.toml and ignore files: {peak} MB");
    assert!(peak < 150, "the server took {peak} MB");

    // Each refused file is named once in the log with the reason; the server goes on.
    let log = server.log();
    let real = root.canonicalize().unwrap();
    for (file, reason) in [
        ("tack.toml", "it is a symbolic link leading outside the root (to /dev/zero)"),
        (".gitignore", "it is a symbolic link leading outside the root (to /dev/zero)"),
        ("deep/.ignore", "it is a symbolic link leading outside the root (to /dev/zero)"),
        ("sub/.gitignore", "it is a FIFO (named pipe); tack reads regular files only"),
    ] {
        let named: Vec<&str> = log
            .lines()
            .filter(|l| {
                l.contains(&format!("{}/{file}: not read", real.display()))
                    || l.contains(&format!("{}/{file}: not read", root.display()))
            })
            .collect();
        assert_eq!(named.len(), 1, "{file} is reported once:\n{log}");
        assert!(named[0].contains(reason), "{file}: {}", named[0]);
    }
}

#[test]
fn a_replace_all_that_would_write_a_gigabyte_is_refused_before_it_is_built() {
    let repo = tempfile::tempdir().unwrap();
    let file = repo.path().join("f.txt");
    let before = format!("{}\n", "a".repeat(99));
    std::fs::write(&file, &before).unwrap();
    let mut server = Server::start(repo.path());
    let new = "b".repeat(10_000_000);
    let (text, is_error) =
        server.call("edit_file", json!({"path": "f.txt", "old": "a", "new": new, "replace_all": true}));
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        "refused: replacing the 99 occurrences of old with new (10000000 bytes each) would make f.txt \
         990000001 bytes (944.1 MiB), over the 16777216 bytes (16.0 MiB) tack writes to one file; nothing was \
         changed. Replace fewer occurrences (add surrounding lines to old so it matches once, without \
         replace_all) or shorten new. Write less into one file (split it), or generate a file this large \
         with a command through run; the user can raise the bound with [edit] max_file_bytes in their own \
         tack config."
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "the file is unchanged");
    let peak = server.peak_mb();
    println!("server peak memory for the refused 10 MB replace_all: {peak} MB");
    assert!(peak < 150, "the server took {peak} MB");
}

#[test]
fn the_users_config_sets_the_bound_for_every_writing_tool_and_a_repositorys_cannot_raise_it() {
    let repo = tempfile::tempdir().unwrap();
    let config_home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config_home.path().join("tack")).unwrap();
    std::fs::write(config_home.path().join("tack/config.toml"), "[edit]\nmax_file_bytes = 1000\n").unwrap();
    std::fs::write(repo.path().join("tack.toml"), "[edit]\nmax_file_bytes = 1000000000\n").unwrap();
    std::fs::write(repo.path().join("f.txt"), "x\n").unwrap();
    let mut server = Server::start_with(repo.path(), &[("XDG_CONFIG_HOME", config_home.path())]);
    let bound = "over the 1000 bytes (0.0 MiB) tack writes to one file; nothing was changed.";
    let write = json!({"name": "write_file", "arguments": {"path": "g.txt", "content": "c".repeat(1001)}});
    let (text, is_error) = server.call("call_tool", write);
    assert!(
        is_error && text.starts_with("refused: this would make g.txt 1001 bytes") && text.contains(bound),
        "{text}"
    );
    assert!(!repo.path().join("g.txt").exists());
    let patch = format!("*** Begin Patch\n*** Add File: h.txt\n+{}\n*** End Patch\n", "d".repeat(1200));
    let (text, is_error) =
        server.call("call_tool", json!({"name": "apply_patch", "arguments": {"patch": patch}}));
    assert!(
        is_error && text.starts_with("refused: this would make h.txt 1201 bytes") && text.contains(bound),
        "{text}"
    );
    assert!(!repo.path().join("h.txt").exists());
    let (text, is_error) =
        server.call("edit_file", json!({"path": "f.txt", "old": "x", "new": "y".repeat(1000)}));
    assert!(
        is_error
            && text.starts_with("refused: replacing old with new (1000 bytes) would make f.txt 1001 bytes")
            && text.contains(bound),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(repo.path().join("f.txt")).unwrap(), "x\n");
    // Under the bound, each writes.
    let (text, is_error) =
        server.call("edit_file", json!({"path": "f.txt", "old": "x", "new": "y".repeat(900)}));
    assert!(!is_error, "{text}");
    assert!(server.log().contains("[edit] max_file_bytes is ignored: a repository may not loosen"));
}

#[test]
fn search_reads_no_line_past_its_bound_and_says_which_file_it_left_out() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("a.py"), "needle = 1\n").unwrap();
    // 4 MiB on one line: a minified bundle or a data dump.
    std::fs::write(repo.path().join("long.txt"), "needle hay ".repeat(400_000)).unwrap();
    let mut server = Server::start(repo.path());
    let (text, is_error) = server.call("search", json!({"query": "needle", "mode": "text"}));
    assert!(!is_error, "{text}");
    assert!(text.starts_with("1 matches in 1 files\na.py"), "{text}");
    assert!(
        text.ends_with(
            "1 file was not searched: a line longer than 1024 KiB (long.txt); grep one with run if it matters\n"
        ),
        "{text}"
    );
}

#[test]
fn a_source_file_of_hundreds_of_megabytes_is_indexed_and_searched_without_holding_it() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("small.py"), "def needle():\n    return 1\n").unwrap();
    // 300 MB of zeros (sparse, so the disk holds none of it) named as source: generated code,
    // a dump, or a planted file.
    std::fs::File::create(repo.path().join("needle_dump.py")).unwrap().set_len(300_000_000).unwrap();
    let mut server = Server::start(repo.path());
    let (text, is_error) = server.call("search", json!({"query": "needle dump"}));
    assert!(!is_error, "{text}");
    assert!(text.contains("needle_dump.py"), "the large file is still found by its path: {text}");
    assert!(text.contains("small.py"), "{text}");
    let peak = server.peak_mb();
    println!("server peak memory with a 300 MB source file: {peak} MB");
    assert!(peak < 150, "the server took {peak} MB");
}

/// The server's resident memory now, in MB.
fn rss_mb(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS in /proc/PID/status");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

#[test]
fn import_cycles_a_self_import_an_alias_chain_and_a_file_nested_a_million_deep_index_and_serve() {
    let repo = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = repo.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    // The one line that overflowed the stack: `a.b` is no file, so it is looked up as the name
    // `b` of module `a`, which is this very import.
    write("a.py", "from a.b import b\nb()\n");
    write("cyc1.py", "from cyc2 import *\nfrom cyc1 import *\nx = y\n");
    write("cyc2.py", "from cyc1 import *\ny = x\n");
    let mut chain = String::from("class A0:\n    def f(self): pass\n");
    for i in 1..10_000 {
        chain.push_str(&format!("A{i} = A{}\n", i - 1));
    }
    chain.push_str("A9999().f()\n");
    write("chain.py", &chain);
    write("Cargo.toml", "[package]\nname = \"c\"\nversion = \"0.1.0\"\n");
    write("src/lib.rs", "pub mod x;\npub mod y;\npub use self::x::*;\n");
    write("src/x.rs", "pub use crate::y::*;\npub use crate::x::*;\npub fn fx() { fy(); }\n");
    write("src/y.rs", "pub use crate::x::*;\npub use super::y::*;\npub fn fy() { fx(); }\n");
    write("web/a.ts", "export * from './b';\nexport { g as f } from './b';\n");
    write("web/b.ts", "export * from './a';\nexport { f as g } from './a';\nf();\n");
    write("go.mod", "module ex\n");
    write("p/p.go", "package p\nimport . \"ex/q\"\nfunc P() { Q() }\n");
    write("q/q.go", "package q\nimport . \"ex/p\"\nfunc Q() { P() }\n");
    write("inc/a.h", "#include \"b.h\"\n#include \"a.h\"\nint fa(void);\n");
    write("inc/b.h", "#include \"a.h\"\nint fb(void) { return fa(); }\n");
    // 2 MB nested a million deep: indexed as text only.
    write("deep.py", &format!("deepneedle = {}{}\n", "(".repeat(1_000_000), ")".repeat(1_000_000)));

    let mut server = Server::start(repo.path());
    let (map, is_error) = server.call("repo_map", json!({}));
    assert!(!is_error && map.contains("chain.py"), "{map}");
    // Every navigation call answers (a server that overflowed would not); where a name has a
    // definition, it is found.
    for (symbol, defined_in) in [
        ("b", None),
        ("A9999", Some("chain.py")),
        ("fx", Some("src/x.rs")),
        ("f", None),
        ("Q", Some("q/q.go")),
    ] {
        for tool in ["definition", "references", "callers"] {
            let (text, _) = server.call("call_tool", json!({"name": tool, "arguments": {"symbol": symbol}}));
            assert!(!text.is_empty(), "{tool} {symbol} answers");
            if let (Some(path), "definition") = (defined_in, tool) {
                assert!(text.contains(path), "{symbol} is defined in {path}:\n{text}");
            }
        }
    }
    let (text, is_error) = server.call("context", json!({"task": "A9999 f fails; b() from a.b"}));
    assert!(!is_error, "{text}");

    let (text, is_error) = server.call("search", json!({"query": "deepneedle"}));
    assert!(!is_error && text.contains("deep.py"), "the deep file is searched as text: {text}");
    let (text, is_error) =
        server.call("call_tool", json!({"name": "outline", "arguments": {"path": "deep.py"}}));
    assert!(!is_error, "{text}");
    assert_eq!(
        text.lines().next().unwrap(),
        "deep.py: 0 definitions, 1 lines (nested more than 1000 levels deep at line 1; indexed as text only)"
    );
    let (text, is_error) =
        server.call("edit_file", json!({"path": "deep.py", "old": "deepneedle", "new": "deep_needle"}));
    assert!(!is_error, "{text}");
    let log = server.log();
    assert!(
        log.contains("deep.py: nested more than 1000 levels deep at line 1; indexed as text only"),
        "{log}"
    );
    let peak = server.peak_mb();
    println!("server peak memory with import cycles and a file nested a million deep: {peak} MB");
    assert!(peak < 150, "the server took {peak} MB");
}

#[test]
fn a_search_query_over_16_kb_is_refused_and_a_long_task_is_cut_without_flooding_memory() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("a.py"), "def needle_word():\n    return 1\n").unwrap();
    let mut server = Server::start(repo.path());
    let (text, is_error) = server.call("search", json!({"query": "needle"}));
    assert!(!is_error, "{text}");
    // 15 MB of distinct words, the worst case for a query's terms.
    let mut huge = String::with_capacity(15_000_000);
    let mut i = 0u64;
    while huge.len() < 15_000_000 {
        huge.push_str(&format!("w{i:x}z "));
        i += 1;
    }
    let before = rss_mb(&server);
    let (text, is_error) = server.call("search", json!({"query": huge}));
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "the query is {} bytes; search takes at most 16384 (16 KB): pass the words or identifiers \
             that matter, or give a long report to context, which cuts it itself",
            huge.trim().len()
        )
    );
    let after_search = server.peak_mb();
    let (text, is_error) = server.call("search", json!({"query": "x".repeat(16 * 1024)}));
    assert!(!is_error, "a query at the bound is searched: {text}");
    // A long task is cut to its head and its distinct words, and answered.
    let task = format!("needle_word fails\n{huge}");
    let (text, is_error) = server.call("context", json!({"task": task}));
    assert!(!is_error && text.contains("a.py:1-2 needle_word (function)"), "{text}");
    let peak = server.peak_mb();
    println!(
        "server resident memory before a 15 MB query: {before} MB; peak after it: {after_search} MB, \
         and after a 15 MB task: {peak} MB"
    );
    assert!(after_search < before + 100, "the query took the server from {before} MB to {after_search} MB");
    assert!(peak < before + 150, "the task took the server from {before} MB to {peak} MB");
}

#[test]
fn a_file_name_with_a_newline_a_tab_or_an_escape_is_shown_escaped_in_every_result() {
    let repo = tempfile::tempdir().unwrap();
    let forged = "x\nforged.py";
    std::fs::write(repo.path().join(forged), "def needle():\n    return 1\n").unwrap();
    std::fs::write(repo.path().join("t\tab\u{1b}[2J.py"), "from needle_user import needle\nneedle()\n")
        .unwrap();
    let mut server = Server::start(repo.path());
    let calls = [
        ("search", json!({"query": "needle"})),
        ("search", json!({"query": "needle", "mode": "text"})),
        ("repo_map", json!({})),
        ("read_file", json!({"path": "."})),
        ("read_file", json!({"path": forged})),
        ("context", json!({"task": "needle"})),
        ("call_tool", json!({"name": "outline", "arguments": {"path": forged}})),
        ("call_tool", json!({"name": "symbols", "arguments": {"query": "needle"}})),
        ("call_tool", json!({"name": "definition", "arguments": {"symbol": "needle"}})),
        ("call_tool", json!({"name": "references", "arguments": {"symbol": "needle"}})),
    ];
    for (tool, arguments) in calls {
        let (text, is_error) = server.call(tool, arguments.clone());
        assert!(!is_error, "{tool} {arguments}: {text}");
        assert!(text.contains("x\\nforged.py"), "{tool} {arguments} shows the name escaped:\n{text}");
        assert!(
            !text.lines().any(|l| l.starts_with("forged.py")),
            "{tool} {arguments} has a forged line:\n{text}"
        );
        assert!(!text.contains('\u{1b}') && !text.contains("ab\t"), "{tool} {arguments}: {text:?}");
    }
}
