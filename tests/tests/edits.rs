//! End-to-end guarded edits over the real binary: two agents editing one file at once (two
//! HTTP sessions of one server, and two `tack serve` processes on one root) lose no edit, and
//! a server killed with SIGKILL mid-write never leaves a torn file.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tack_indexer::{Lang, syntax_issues};
use tack_tests::{call, start_http, stdio_server, tack_binary, test_cache_home};

/// Edits each agent makes.
const EDITS: usize = 200;

type Client = RunningService<RoleClient, ()>;

/// A repository with one Python file of `2 * EDITS` assignments, `v000 = 0` and so on.
fn vars_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..2 * EDITS).map(|i| format!("v{i:03} = 0\n")).collect();
    std::fs::write(dir.path().join("vars.py"), body).unwrap();
    dir
}

/// One agent: sets `v{i} = 1` for each of its lines, one edit_file call each, no version.
async fn agent(client: &Client, lines: std::ops::Range<usize>) {
    for i in lines {
        let result = call(
            client,
            "edit_file",
            json!({"path": "vars.py", "old": format!("v{i:03} = 0\n"), "new": format!("v{i:03} = 1\n")}),
        )
        .await;
        let text =
            result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
        assert_eq!(result.is_error, Some(false), "edit of v{i:03}: {text}");
    }
}

/// Every edit is in the file and it parses.
fn assert_all_edits_present(root: &Path) {
    let text = std::fs::read_to_string(root.join("vars.py")).unwrap();
    let expected: String = (0..2 * EDITS).map(|i| format!("v{i:03} = 1\n")).collect();
    if text != expected {
        let lost: Vec<&str> = text.lines().filter(|l| l.ends_with("= 0")).collect();
        panic!("{} edits lost: {lost:?}", lost.len());
    }
    assert!(syntax_issues(Lang::Python, &text).is_empty(), "the file parses");
}

#[tokio::test]
async fn two_http_sessions_editing_one_file_lose_no_edit() {
    let repo = vars_repo();
    let server = start_http(repo.path(), &[]).await;
    let a: Client = ().serve(server.transport()).await.unwrap();
    let b: Client = ().serve(server.transport()).await.unwrap();
    tokio::join!(agent(&a, 0..EDITS), agent(&b, EDITS..2 * EDITS));
    assert_all_edits_present(repo.path());
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

fn stdio_transport(root: &Path) -> TokioChildProcess {
    let root = root.to_path_buf();
    TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.arg("serve")
            .arg("--root")
            .arg(&root)
            .env("TACK_LOG", "warn")
            .env("XDG_CACHE_HOME", test_cache_home());
    }))
    .expect("tack starts")
}

#[tokio::test]
async fn two_stdio_servers_on_one_root_lose_no_edit() {
    let repo = vars_repo();
    let a: Client = ().serve(stdio_transport(repo.path())).await.unwrap();
    let b: Client = ().serve(stdio_transport(repo.path())).await.unwrap();
    tokio::join!(agent(&a, 0..EDITS), agent(&b, EDITS..2 * EDITS));
    assert_all_edits_present(repo.path());
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

/// Kills a server with SIGKILL at a varying moment while it rewrites a 300 KB file back and
/// forth between two contents, 100 times or more, and checks after each kill that the file is
/// one of the two, whole.
#[test]
fn sigkill_during_writes_never_leaves_a_torn_file() {
    const KILLS: u64 = 100;
    let repo = tempfile::tempdir().unwrap();
    let zeros = "v = 0\n".repeat(50_000);
    let ones = "v = 1\n".repeat(50_000);
    let path = repo.path().join("big.txt");
    std::fs::write(&path, &zeros).unwrap();
    let started = Instant::now();
    // A small linear congruential generator: varied kill moments, the same on every run.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut mid_write = 0;
    let mut writes_done = 0;
    // At least KILLS rounds, and more (up to ten times as many) until one kill has landed
    // inside a write: on a loaded machine the moments shift, and the window must be hit.
    let mut round = 0;
    while round < KILLS || (mid_write == 0 && round < 10 * KILLS) {
        round += 1;
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_micros(5_000 + (seed >> 33) % 120_000);
        let mut child = stdio_server(repo.path()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut send = |line: String| {
            stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush())
        };
        send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"kill","version":"0"}}}"#.into()).unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into()).unwrap();

        // Flip every `v = x` line in one call, answer by answer, until the kill.
        let killer = {
            let pid = child.id() as i32;
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            })
        };
        for id in 1.. {
            let current = std::fs::read(&path).unwrap();
            let (old, new) =
                if current.starts_with(b"v = 0") { ("v = 0", "v = 1") } else { ("v = 1", "v = 0") };
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "edit_file",
                "arguments": {"path": "big.txt", "old": old, "new": new, "replace_all": true}}});
            if send(request.to_string()).is_err() {
                break;
            }
            line.clear();
            if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            writes_done += 1;
        }
        killer.join().unwrap();
        child.wait().unwrap();

        let after = std::fs::read_to_string(&path).unwrap();
        assert!(after == zeros || after == ones, "round {round}: the file is torn ({} bytes)", after.len());
        if repo.path().join(".big.txt.tack-tmp").exists() {
            mid_write += 1;
        }
    }
    eprintln!(
        "{round} kills in {:.1} s; {writes_done} writes completed, {mid_write} kills landed inside a write",
        started.elapsed().as_secs_f64()
    );
    assert!(writes_done > 0, "no write ever completed: the kills came too early to test anything");
    assert!(mid_write > 0, "no kill landed inside a write: the test did not exercise the window");
}

/// Swaps a folder of the root with a link to a folder outside it (`renameat2` with
/// `RENAME_EXCHANGE`, over and over, from another thread) while an agent writes a file in that
/// folder and reads another, 1,000 times each: no write lands outside and no read returns what
/// is outside. A refusal is fine; the outside folder must be as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_swapped_for_a_link_mid_call_never_leads_a_write_or_read_outside() {
    use std::os::unix::ffi::OsStrExt;
    const ATTEMPTS: usize = 1_000;
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let sub = repo.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("f.txt"), "inside\n").unwrap();
    std::fs::write(outside.path().join("f.txt"), "OUTSIDE SECRET\n").unwrap();
    let link = repo.path().join("swap");
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();

    let client: Client = ().serve(stdio_transport(repo.path())).await.unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let a = std::ffi::CString::new(sub.as_os_str().as_bytes()).unwrap();
        let b = std::ffi::CString::new(link.as_os_str().as_bytes()).unwrap();
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // SAFETY: renameat2 on two NUL-terminated paths that outlive the call.
                let rc = unsafe {
                    libc::renameat2(
                        libc::AT_FDCWD,
                        a.as_ptr(),
                        libc::AT_FDCWD,
                        b.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    )
                };
                assert_eq!(rc, 0, "the exchange works: {}", std::io::Error::last_os_error());
                swaps += 1;
                // A pause now and then, so some calls find the folder in place throughout.
                if swaps.is_multiple_of(2) {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
            }
            swaps
        })
    };
    let (mut written, mut read) = (0, 0);
    for i in 0..ATTEMPTS {
        let write = call(
            &client,
            "call_tool",
            json!({"name": "write_file", "arguments": {"path": format!("sub/w{i}.txt"), "content": format!("write {i}\n")}}),
        )
        .await;
        written += usize::from(write.is_error == Some(false));
        let result = call(&client, "read_file", json!({"path": "sub/f.txt"})).await;
        let text =
            result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
        assert!(!text.contains("OUTSIDE SECRET"), "attempt {i} read outside the root: {text}");
        read += usize::from(result.is_error == Some(false));
        if i % 10 == 0 {
            // Text search walks and reads too: only the outside file holds these words.
            let found = call(&client, "search", json!({"query": "OUTSIDE SECRET", "mode": "text"})).await;
            let text =
                found.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
            assert!(!text.contains("f.txt"), "attempt {i} searched outside the root: {text}");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    client.cancel().await.unwrap();

    let mut left: Vec<_> =
        std::fs::read_dir(outside.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    left.sort();
    assert_eq!(
        left,
        ["f.txt"],
        "nothing was written outside the root ({written} writes, {read} reads, {swaps} swaps)"
    );
    assert_eq!(std::fs::read_to_string(outside.path().join("f.txt")).unwrap(), "OUTSIDE SECRET\n");
    // Both kinds of call got through sometimes, so the race was really run.
    assert!(written > 0 && read > 0, "{written} writes and {read} reads succeeded in {ATTEMPTS} attempts");
    eprintln!("{written} writes and {read} reads of {ATTEMPTS} succeeded during {swaps} swaps; none outside");
}
