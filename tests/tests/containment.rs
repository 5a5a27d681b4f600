//! Commands contained as bubblewrap contains them, through the real binary: no capabilities,
//! a private `/dev`, `/dev/shm` and `/proc`, the host's name and devices out of reach, nothing
//! left behind that git or cargo runs later (while `git commit` inside `run` still lands), the
//! user's credential stores read empty, and hard-linked files' outside twins unchanged. Each
//! test says when this kernel lacks the boundary and skips.

use std::path::Path;

use rmcp::model::CallToolResult;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tack_tests::as_user::mounts_contained;
use tack_tests::{call, sample_repo, tack_binary, test_cache_home};

type Client = RunningService<RoleClient, ()>;

/// `tack serve` on `root` with `home` as `$HOME` and `extra` arguments.
async fn serve(root: &Path, home: Option<&Path>, extra: &[&str]) -> Client {
    let root = root.to_path_buf();
    let home = home.map(Path::to_path_buf);
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.args(["serve", "--root"])
            .arg(&root)
            .args(&extra)
            .env("TACK_LOG", "warn")
            .env("XDG_CACHE_HOME", test_cache_home());
        if let Some(home) = &home {
            cmd.env("HOME", home);
        }
    }))
    .expect("tack starts");
    ().serve(transport).await.expect("handshake")
}

fn text(result: &CallToolResult) -> &str {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("")
}

async fn run(client: &Client, command: &str) -> String {
    text(&call(client, "run", json!({"command": command})).await).to_string()
}

#[tokio::test]
async fn commands_have_no_capability_and_their_own_dev_shm_proc_and_hostname() {
    if !mounts_contained() {
        return;
    }
    let repo = sample_repo();
    // A process outside with a secret in its environment, as the server's own would be.
    let outsider = std::process::Command::new("sleep")
        .arg("60")
        .env("OUTSIDE_SECRET", "s3cr3t-outside")
        .spawn()
        .expect("sleep starts");
    let client = serve(repo.path(), None, &[]).await;

    let caps = run(&client, "grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status").await;
    assert_eq!(
        caps,
        "exit=0\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n",
        "every set is empty, as root too"
    );

    // A block device in the root would be a way to every disk (as root, before: written).
    let mknod = run(&client, "mknod ./blk b 7 0; mknod ./chr c 1 3; ls blk chr").await;
    assert!(!mknod.starts_with("exit=0"), "{mknod}");
    assert!(!repo.path().join("blk").exists() && !repo.path().join("chr").exists());

    let host_name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let renamed = run(&client, "hostname tack-probe-name").await;
    assert!(!renamed.starts_with("exit=0"), "{renamed}");
    assert_eq!(std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap(), host_name);

    // /proc shows the command's own processes only: no server, no outsider, no environ.
    let procs = run(&client, "ls /proc | grep -E '^[0-9]+$' | wc -l").await;
    let count: usize = procs.trim_start_matches("exit=0\n").trim().parse().expect(&procs);
    assert!(count <= 4, "only the command's processes: {procs}");
    let environ = run(&client, &format!("cat /proc/{}/environ", outsider.id())).await;
    assert!(!environ.contains("s3cr3t-outside"), "{environ}");
    let mut outsider = outsider;
    outsider.kill().unwrap();
    outsider.wait().unwrap();

    let dev = run(&client, "ls /dev").await;
    assert_eq!(
        dev, "exit=0\nfd\nfull\nnull\nptmx\npts\nrandom\nshm\nstderr\nstdin\nstdout\ntty\nurandom\nzero\n",
        "the usual character devices only"
    );
    let usable =
        run(&client, "echo a > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c")
            .await;
    assert_eq!(usable, "exit=0\n4\n4\n");

    // /dev/shm is the command's own: written, gone from the host and from the next command.
    let name = format!("tack-probe-{}", std::process::id());
    let shm = run(&client, &format!("echo x > /dev/shm/{name} && ls /dev/shm")).await;
    assert_eq!(shm, format!("exit=0\n{name}\n"));
    assert!(!Path::new("/dev/shm").join(&name).exists(), "the host's /dev/shm is untouched");
    assert_eq!(run(&client, "ls /dev/shm").await, "exit=0\n(no output)\n");
    client.cancel().await.unwrap();
}

/// `git` in `dir` outside tack, as the user runs it.
fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git").args(args).current_dir(dir).output().expect("git runs")
}

#[tokio::test]
async fn nothing_a_command_leaves_behind_runs_later_and_git_commit_inside_run_still_lands() {
    if !mounts_contained() {
        return;
    }
    let repo = sample_repo();
    let root = repo.path();
    for args in [
        &["init", "-q"][..],
        &["config", "user.email", "a@example.com"],
        &["config", "user.name", "A"],
        &["add", "."],
        &["commit", "-qm", "first"],
    ] {
        assert!(git(root, args).status.success(), "git {args:?}");
    }
    std::fs::write(root.join(".pre-commit-config.yaml"), "repos: []\n").unwrap();
    let config_before = std::fs::read_to_string(root.join(".git/config")).unwrap();
    let marker = root.join("ran.txt");
    let client = serve(root, None, &[]).await;

    // What the probes planted, each with a script that leaves a marker when it runs.
    let plant = run(
        &client,
        "printf '#!/bin/sh\\necho ran > ran.txt\\n' > evil.sh; chmod +x evil.sh; \
         cp evil.sh .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; \
         git config core.fsmonitor ./evil.sh; git config alias.st '!./evil.sh'; \
         echo '[alias]' >> .git/config; \
         mkdir -p .cargo && printf '[build]\\nrustc-wrapper = \"./evil.sh\"\\n' > .cargo/config.toml; \
         echo '- repo: local' >> .pre-commit-config.yaml; \
         mv .git .git-moved; rm -rf .git/hooks; ls .cargo",
    )
    .await;
    assert!(plant.contains("Read-only file system"), "{plant}");
    assert!(
        plant.ends_with(
            "\ntack removed .cargo/config.toml, which the command made: it is a toolchain selector or wrapper setting, \
             which the toolchain's next command (even --version) runs (a person can allow it with \
             allow_protected_writes in their own tack config)\n"
        ),
        "the model is told: {plant}"
    );
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!root.join(".cargo/config.toml").exists());
    assert!(root.join(".git/HEAD").exists(), "the git folder was neither moved nor removed");
    assert_eq!(std::fs::read_to_string(root.join(".git/config")).unwrap(), config_before);
    assert_eq!(std::fs::read_to_string(root.join(".pre-commit-config.yaml")).unwrap(), "repos: []\n");

    // git's own work inside run lands: objects, refs, the index and logs stay writable.
    let commit = run(
        &client,
        "echo b > b.txt && git add b.txt evil.sh && git commit -qm second && git log --format=%s",
    )
    .await;
    assert_eq!(commit, "exit=0\nsecond\nfirst\n");
    // So do stash and checkout: a branch made, a change stashed and brought back, the first
    // branch checked out again.
    let stash = run(
        &client,
        "git checkout -qb side && echo changed >> b.txt && git stash -q && cat b.txt && git checkout -q - && \
         git stash pop -q && cat b.txt && git stash list | wc -l && git branch --show-current",
    )
    .await;
    let branch = git(root, &["branch", "--show-current"]).stdout;
    assert_eq!(stash, format!("exit=0\nb\nb\nchanged\n0\n{}", String::from_utf8_lossy(&branch)));
    client.cancel().await.unwrap();

    // The user's next commit and status outside tack run nothing that was planted.
    std::fs::write(root.join("c.txt"), "c\n").unwrap();
    assert!(git(root, &["add", "c.txt"]).status.success());
    assert!(git(root, &["commit", "-qm", "third"]).status.success());
    let _ = git(root, &["status"]);
    let _ = git(root, &["st"]);
    assert!(!marker.exists(), "a planted script ran at the user's next git command");
}

#[tokio::test]
async fn credential_stores_read_empty_unless_the_user_makes_them_readable() {
    if !mounts_contained() {
        return;
    }
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_ed25519"), "TEST-PRIVATE-KEY-BODY\n").unwrap();
    std::fs::write(home.path().join(".netrc"), "machine example.com password NETRC-SECRET\n").unwrap();
    // A store a dotfile manager keeps elsewhere and links in.
    std::fs::create_dir_all(home.path().join("dotfiles/aws")).unwrap();
    std::fs::write(home.path().join("dotfiles/aws/credentials"), "AWS-LINKED-SECRET\n").unwrap();
    std::os::unix::fs::symlink(home.path().join("dotfiles/aws"), home.path().join(".aws")).unwrap();
    let ssh = home.path().join(".ssh").display().to_string();
    let probe =
        "cat ~/.ssh/id_ed25519 ~/.netrc; ls -A ~/.ssh; echo x > ~/.ssh/new 2>&1; cat /etc/shadow | wc -c";
    for readable in [false, true] {
        let extra = if readable { vec!["--readable", ssh.as_str()] } else { vec![] };
        let client = serve(repo.path(), Some(home.path()), &extra).await;
        let out = run(&client, probe).await;
        assert_eq!(out.contains("TEST-PRIVATE-KEY-BODY"), readable, "{out}");
        assert!(!out.contains("NETRC-SECRET"), "only the store named is opened: {out}");
        assert!(!out.contains("AWS-LINKED-SECRET"), "a linked store is hidden where it lives: {out}");
        assert!(out.ends_with("\n0\n"), "as root or not, /etc/shadow reads empty: {out}");
        client.cancel().await.unwrap();
    }
    assert!(!home.path().join(".ssh/new").exists());
}

#[tokio::test]
async fn commands_see_no_credential_by_its_shorter_names_or_in_a_url() {
    let repo = sample_repo();
    let secrets = [
        ("MYSQL_PWD", "pwd-1"),
        ("DATABASE_URL", "postgres://app:pw-2@db/app"),
        ("SENTRY_DSN", "https://dsn-3@sentry.example.com/1"),
        ("CI_JOB_JWT", "jwt-4"),
        ("GH_PAT", "pat-5"),
    ];
    let root = repo.path().to_path_buf();
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.args(["serve", "--root"])
            .arg(&root)
            .env("TACK_LOG", "warn")
            .env("XDG_CACHE_HOME", test_cache_home())
            .env("PUBLIC_URL", "https://example.com/docs");
        for (name, value) in secrets {
            cmd.env(name, value);
        }
    }))
    .expect("tack starts");
    let client: Client = ().serve(transport).await.expect("handshake");
    let env = run(&client, "env").await;
    for (name, value) in secrets {
        assert!(!env.contains(value), "{name} reached the command:\n{env}");
    }
    assert!(env.contains("PUBLIC_URL=https://example.com/docs\n") && env.contains("\nPATH="), "{env}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_hard_linked_files_outside_twin_is_unchanged_by_a_command() {
    if !mounts_contained() {
        return;
    }
    let repo = sample_repo();
    let cache = tempfile::tempdir_in(repo.path().parent().unwrap()).unwrap();
    let twin = cache.path().join("six.py");
    std::fs::write(&twin, "VERSION = 1\n").unwrap();
    std::fs::create_dir_all(repo.path().join(".venv/lib")).unwrap();
    if std::fs::hard_link(&twin, repo.path().join(".venv/lib/six.py")).is_err() {
        eprintln!("skipped: the temporary folder cannot hold a hard link");
        return;
    }
    let client = serve(repo.path(), None, &[]).await;
    let out = run(
        &client,
        "echo 'import os' >> .venv/lib/six.py; truncate -s 0 .venv/lib/six.py; cat .venv/lib/six.py",
    )
    .await;
    assert!(out.contains("Read-only file system"), "{out}");
    assert_eq!(std::fs::read_to_string(&twin).unwrap(), "VERSION = 1\n");
    // The writing tools split the link instead: the copy inside changes, the twin does not.
    let written = call(
        &client,
        "edit_file",
        json!({"path": ".venv/lib/six.py", "old": "VERSION = 1", "new": "VERSION = 2"}),
    )
    .await;
    assert_eq!(written.is_error, Some(false), "{}", text(&written));
    assert_eq!(std::fs::read_to_string(repo.path().join(".venv/lib/six.py")).unwrap(), "VERSION = 2\n");
    assert_eq!(std::fs::read_to_string(&twin).unwrap(), "VERSION = 1\n");
    client.cancel().await.unwrap();
}
