//! `tack serve` as root or as an ordinary user (uid 65534, through `setpriv`), spoken to over
//! stdio with plain JSON-RPC from a plain thread: what the sandbox tests need to run the same
//! steps as each user, in folders that user owns.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::{tack_binary, tack_binary_for_anyone};

/// The uid and gid of the ordinary user the tests also run as.
pub const NOBODY: u32 = 65534;

/// Whether commands get mount namespaces here; says why not when they do not.
pub fn mounts_contained() -> bool {
    let found = tack_tools::containment();
    let contained = matches!(found, tack_tools::Containment::Namespaces { mounts: true, .. });
    if !contained {
        eprintln!("skipped: this kernel gives commands no mount namespace ({found:?})");
    }
    contained
}

/// The users to run as: the tests' own, and uid 65534 when the tests run as root.
pub fn users() -> Vec<Option<u32>> {
    // SAFETY: getuid cannot fail.
    let root = unsafe { libc::getuid() } == 0;
    if root { vec![None, Some(NOBODY)] } else { vec![None] }
}

/// Every path beneath `path` (itself included), links not followed.
pub fn tree(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap().flatten() {
            out.extend(tree(&entry.path()));
        }
    }
    out
}

/// Hands `path` and what is beneath it to `user` (nothing for the tests' own user).
pub fn give(path: &Path, user: Option<u32>) {
    let Some(id) = user else { return };
    for entry in tree(path) {
        std::os::unix::fs::lchown(&entry, Some(id), Some(id)).unwrap();
    }
}

/// `tack serve` over stdio.
pub struct Tack {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
}

impl Tack {
    /// `tack serve --root root` as `user`, quiet but for warnings, with `configure` applied to
    /// the command (its environment), initialized.
    pub fn start(root: &Path, user: Option<u32>, configure: impl FnOnce(&mut Command)) -> Tack {
        let mut command = match user {
            Some(id) => {
                let mut c = Command::new("setpriv");
                c.args([format!("--reuid={id}"), format!("--regid={id}"), "--clear-groups".into()])
                    .arg(tack_binary_for_anyone());
                c
            }
            None => Command::new(tack_binary()),
        };
        command
            .args(["serve", "--root"])
            .arg(root)
            .env("TACK_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        configure(&mut command);
        let mut child = command.spawn().expect("tack starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut tack = Tack { child, stdin, stdout, id: 0 };
        tack.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        );
        writeln!(tack.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        tack
    }

    /// The response to one request.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server ended");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The text of core tool `name`'s result.
    pub fn call(&mut self, name: &str, arguments: Value) -> String {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{reply}")).to_string()
    }

    /// The text of any tool's result, reached through `call_tool`.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> String {
        self.call("call_tool", json!({"name": name, "arguments": arguments}))
    }

    /// `run`'s text for `command`.
    pub fn run(&mut self, command: &str) -> String {
        self.call("run", json!({"command": command}))
    }
}

impl Drop for Tack {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
