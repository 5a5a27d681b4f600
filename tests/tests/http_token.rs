//! The HTTP token off the command line, through the real binary: `--token-file` (refused unless
//! the file is the user's own and no one else may read or write it, the saved token's rule),
//! `TACK_HTTP_TOKEN`, and `--token` still, with a warning that every local user can read it.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::time::Duration;

use tack_tests::{
    INITIALIZE, raw_post, sample_repo, start_http, start_http_as, tack_binary, test_cache_home,
};

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

/// The command line of process `pid`, its arguments joined by spaces.
fn cmdline(pid: u32) -> String {
    String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap()).replace('\0', " ")
}

/// `tack serve --http --token-file FILE`, which must refuse to start: its exit code and stderr.
async fn refused(root: &Path, file: &Path) -> (Option<i32>, String) {
    let run = tokio::process::Command::new(tack_binary())
        .args(["serve", "--http", "127.0.0.1:0", "--token-file"])
        .arg(file)
        .arg("--root")
        .arg(root)
        .env("XDG_CACHE_HOME", test_cache_home())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("tack refuses the token file at once, rather than serving")
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_token_comes_from_a_private_file_or_the_environment_and_the_flag_is_warned_about() {
    let repo = sample_repo();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "from-a-file-0123456789\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();

    // A private file: its token (without the final newline) is asked for, and the 401 says where
    // it is; the token is nowhere in the server's command line.
    let server = start_http(repo.path(), &["--token-file", file.to_str().unwrap()]).await;
    let refusal = raw_post(&server.url, "", INITIALIZE).await;
    assert!(refusal.starts_with("HTTP/1.1 401"), "{refusal}");
    assert!(refusal.contains(&format!("the token is in {}", file.display())), "{refusal}");
    let answer = raw_post(&server.url, &bearer("from-a-file-0123456789"), INITIALIZE).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!cmdline(server.child.id().unwrap()).contains("from-a-file"));
    drop(server);

    // A file others may read, or one that is not a file, is refused before tack serves.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, stderr) = refused(repo.path(), &file).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the token file {} is refused: its mode is 640, readable or writable by others; it must be a regular file of yours that no one else may read or write (chmod 600 {})",
            file.display(),
            file.display()
        )),
        "{stderr}"
    );
    let (code, stderr) = refused(repo.path(), dir.path()).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is refused: it is not a regular file"), "{stderr}");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
        let (code, stderr) = refused(repo.path(), &file).await;
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("is refused: it belongs to uid 65534, not 0"), "{stderr}");
    } else {
        println!("skipped the file of another user: it needs root to make one");
    }

    // TACK_HTTP_TOKEN: the same, and the 401 names the variable.
    let server = start_http_as(repo.path(), &[], |command| {
        command.env("TACK_HTTP_TOKEN", "from-the-environment-0123");
    })
    .await;
    let refusal = raw_post(&server.url, "", INITIALIZE).await;
    assert!(refusal.starts_with("HTTP/1.1 401"), "{refusal}");
    assert!(refusal.contains("the token is the one tack serve was given in TACK_HTTP_TOKEN"), "{refusal}");
    let answer = raw_post(&server.url, &bearer("from-the-environment-0123"), INITIALIZE).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!cmdline(server.child.id().unwrap()).contains("from-the-environment"));
    drop(server);

    // --token still works, and the log says that every local user can read it.
    let server = start_http(repo.path(), &["--token", "on-the-command-line-01"]).await;
    let answer = raw_post(&server.url, &bearer("on-the-command-line-01"), INITIALIZE).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let pid = server.child.id().unwrap();
    let warning = format!(
        "--token is on tack's command line, which every local user can read (ps, /proc/{pid}/cmdline) and then call run as you: pass --token-file PATH or TACK_HTTP_TOKEN instead"
    );
    assert!(server.log.iter().any(|line| line.contains(&warning)), "{:#?}", server.log);
}
