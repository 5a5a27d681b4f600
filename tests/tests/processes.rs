//! Nothing a command starts outlives a server that is killed while the command runs: each
//! command is process 1 of its own PID namespace, and each level dies with its parent.

use tack_tests::{sample_repo, stdio_server, wait_for_processes as wait_for};

#[test]
fn a_server_killed_during_a_run_leaves_no_process_behind() {
    use std::io::Write as _;
    let repo = sample_repo();
    for (round, signal) in [libc::SIGTERM, libc::SIGKILL].into_iter().enumerate() {
        let (escaped, waiting) = (format!("{}", 7301 + 2 * round), format!("{}", 7302 + 2 * round));
        let mut server = stdio_server(repo.path()).spawn().unwrap();
        let mut stdin = server.stdin.take().unwrap();
        let command = format!("setsid sleep {escaped} & sleep {waiting}");
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "run", "arguments": {"command": command}}}).to_string(),
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
        stdin.flush().unwrap();
        let started = wait_for(&["sleep", &escaped], 20, |p| !p.is_empty());
        assert!(!started.is_empty(), "the command started");
        assert!(!wait_for(&["sleep", &waiting], 5, |p| !p.is_empty()).is_empty());
        // SAFETY: kill(2) on the server's pid.
        unsafe { libc::kill(server.id() as i32, signal) };
        server.wait().unwrap();
        for argv in [["sleep", escaped.as_str()], ["sleep", waiting.as_str()]] {
            let left = wait_for(&argv, 5, <[u32]>::is_empty);
            assert_eq!(left, Vec::<u32>::new(), "{argv:?} outlived a server killed by signal {signal}");
        }
    }
}
