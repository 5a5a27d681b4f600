//! A throwaway PostgreSQL server for tests: a cluster of its own in a temporary folder, trusting
//! loopback connections on a port it picks, shut down and removed when dropped. Run by root, it
//! runs as the `postgres` user (PostgreSQL refuses root). `scripts/test` installs Debian's
//! `postgresql`; the cluster Debian makes at install is never started here.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running PostgreSQL; stopped (fast shutdown) and its folder removed on drop.
pub struct Postgres {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// The newest PostgreSQL's programs Debian installed.
fn bin_dir() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| {
            dirs.flatten().map(|d| d.path().join("bin")).filter(|b| b.join("initdb").exists()).collect()
        })
        .unwrap_or_default();
    found.sort_by_key(|b| b.parent().and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok()).unwrap_or(0));
    found.pop().expect("PostgreSQL's server is installed (scripts/test installs Debian's postgresql)")
}

/// `program` with `args`, as the `postgres` user when this process is root.
fn as_postgres(program: &Path, args: &[&str]) -> Command {
    if is_root() {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid", "postgres", "--regid", "postgres", "--clear-groups", "--"])
            .arg(program)
            .args(args);
        command
    } else {
        let mut command = Command::new(program);
        command.args(args);
        command
    }
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// A loopback port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

impl Postgres {
    pub fn start() -> Self {
        let bin = bin_dir();
        let dir = tempfile::tempdir().expect("a folder for the cluster");
        if is_root() {
            let status = Command::new("chown").args(["postgres:postgres"]).arg(dir.path()).status().unwrap();
            assert!(status.success(), "chown postgres");
        }
        let data = dir.path().join("data");
        let data_str = data.to_str().unwrap();
        let out = as_postgres(
            &bin.join("initdb"),
            &["-D", data_str, "-U", "tack", "--auth=trust", "--no-sync", "--no-locale", "-E", "UTF8"],
        )
        .output()
        .expect("initdb runs");
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        let port = free_port();
        let server = Postgres { child: spawn(&bin, dir.path(), port), port, dir };
        server.wait_ready();
        server
    }

    /// Stops the server (fast shutdown) and starts it again on the same data and port, as a
    /// database restarting under running clients.
    pub fn restart(&mut self) {
        self.stop();
        self.child = spawn(&bin_dir(), self.dir.path(), self.port);
        self.wait_ready();
    }

    fn wait_ready(&self) {
        let started = Instant::now();
        loop {
            let ready = Command::new(bin_dir().join("pg_isready"))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "tack", "-d", "postgres", "-q"])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "PostgreSQL did not accept connections in 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGINT (PostgreSQL's fast shutdown), then SIGKILL after 10 s.
    fn stop(&mut self) {
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What `psql` prints for `sql`, unaligned and without headers.
    pub fn query(&self, sql: &str) -> String {
        let out = Command::new(bin_dir().join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "tack",
                "-d",
                "postgres",
                "-At",
                "-c",
                sql,
            ])
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The URL a server connects with.
    pub fn url(&self) -> String {
        format!("postgres://tack@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `postgres` on the cluster in `dir`, listening on loopback `port` (its socket in `dir` too).
fn spawn(bin: &Path, dir: &Path, port: u16) -> Child {
    let data = dir.join("data");
    as_postgres(
        &bin.join("postgres"),
        &[
            "-D",
            data.to_str().unwrap(),
            "-p",
            &port.to_string(),
            "-k",
            dir.to_str().unwrap(),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "full_page_writes=off",
        ],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .expect("postgres starts")
}
