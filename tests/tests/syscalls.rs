//! What a command can ask of the kernel, through the real binary, as root and (when the tests run
//! as root) as uid 65534: the seccomp filter refuses the keyring calls, new user namespaces,
//! TIOCSTI and TIOCLINUX, `perf_event_open`, `bpf`, `io_uring` and `userfaultfd`, and answers
//! `ENOSYS` to `clone3` while forks, threads and subprocesses still work; and each command has a
//! session (no controlling terminal), a keyring and descriptors of its own. Each test says when
//! this kernel lacks the boundary and skips that part.

use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

use rmcp::model::CallToolResult;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tack_tests::{call, tack_binary, tack_binary_for_anyone};
use tack_tools::Containment;

type Client = RunningService<RoleClient, ()>;

/// The user tack runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum User {
    /// The user running the tests.
    Same,
    /// uid and gid 65534, through `setpriv`, when the tests run as root.
    Nobody,
}

const NOBODY: u32 = 65534;

/// The users each test runs tack as: this one, and uid 65534 too when the tests run as root.
fn users() -> Vec<User> {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if root && setpriv {
        vec![User::Same, User::Nobody]
    } else {
        println!("skipped the runs as uid 65534: they need root and setpriv");
        vec![User::Same]
    }
}

/// A root folder with a home and an index cache beside it, in the system's temporary folder,
/// all owned by the user tack runs as.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new(user: User) -> Place {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["root", "home", "cache"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("root/README.md"), "a root\n").unwrap();
        if user == User::Nobody {
            for path in ["", "root", "root/README.md", "home", "cache"] {
                std::os::unix::fs::chown(dir.path().join(path), Some(NOBODY), Some(NOBODY)).unwrap();
            }
        }
        Place { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }
}

/// `tack serve` on `place`'s root as `user`, with `before_exec` run in its process before exec
/// (to hand it a descriptor or a terminal, as a user's shell might).
async fn serve(
    user: User,
    place: &Place,
    before_exec: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) -> Client {
    let mut command = match user {
        User::Same => tokio::process::Command::new(tack_binary()),
        User::Nobody => {
            let mut setpriv = tokio::process::Command::new("setpriv");
            setpriv.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(tack_binary_for_anyone());
            setpriv
        }
    };
    let dir = place.dir.path();
    command
        .args(["serve", "--root"])
        .arg(place.root())
        .env("TACK_LOG", "warn")
        .env("HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("cache"));
    // SAFETY: the callers' hooks make only async-signal-safe calls on memory made before.
    unsafe {
        command.pre_exec(before_exec);
    }
    let transport = TokioChildProcess::new(command).expect("tack starts");
    ().serve(transport).await.expect("handshake")
}

fn text(result: &CallToolResult) -> &str {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("")
}

async fn run(client: &Client, command: &str) -> String {
    text(&call(client, "run", json!({"command": command})).await).to_string()
}

/// A Python every user here may run: the system's, not one under root's home.
fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" }
}

/// A shell command running `body` in Python with `call(name, *args)` at hand: it makes the system
/// call of that name (numbered for this architecture) and prints `name: ok` or `name: ERRNO`.
/// Integers pass as C longs, so negative ones and 64-bit ones reach the kernel whole.
fn python_calls(body: &str) -> String {
    let numbers = [
        ("keyctl", libc::SYS_keyctl),
        ("add_key", libc::SYS_add_key),
        ("request_key", libc::SYS_request_key),
        ("unshare", libc::SYS_unshare),
        ("clone", libc::SYS_clone),
        ("clone3", libc::SYS_clone3),
        ("ioctl", libc::SYS_ioctl),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("bpf", libc::SYS_bpf),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("userfaultfd", libc::SYS_userfaultfd),
    ];
    let numbers: Vec<String> = numbers.iter().map(|(name, nr)| format!("'{name}': {nr}")).collect();
    format!(
        "{python} - <<'PY'\n{PRELUDE}NR = {{{numbers}}}\n{body}\nPY\n",
        python = python(),
        numbers = numbers.join(", "),
        body = dedent(body)
    )
}

/// The Python that `python_calls` runs first.
const PRELUDE: &str = r#"
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(label, *args, name=None):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name or label]), *args)
    e = ctypes.get_errno()
    print(f'{label}: ' + (errno.errorcode.get(e, str(e)) if r < 0 else 'ok'), flush=True)
    return r
"#;

/// `code` without the indentation its lines share, so Python can be written indented here.
fn dedent(code: &str) -> String {
    let indent = code
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    code.lines().map(|l| l.get(indent..).unwrap_or("").trim_end()).collect::<Vec<_>>().join("\n")
}

/// Whether the kernel filters commands' system calls here; says why a test skips when not.
fn filtered() -> bool {
    let filtered = tack_tools::filters_syscalls();
    if !filtered {
        println!("skipped the filter's part: this kernel or architecture has no seccomp filter");
    }
    filtered
}

/// Whether commands run in namespaces here (so each has a session of its own).
fn namespaced() -> bool {
    let found = tack_tools::containment();
    let namespaced = matches!(found, Containment::Namespaces { .. });
    if !namespaced {
        println!("skipped the session's part: this kernel gives commands no namespace ({found:?})");
    }
    namespaced
}

#[tokio::test]
async fn the_keyring_calls_are_refused_and_the_session_keyring_tack_started_with_is_out_of_reach() {
    for user in users() {
        let place = Place::new(user);
        // tack starts in a session keyring of its own, named so that a command reaching it
        // shows: what a command might plant there goes with tack, not into this machine's.
        let client = serve(user, &place, || {
            // SAFETY: KEYCTL_JOIN_SESSION_KEYRING (1) reads a NUL-terminated static name.
            if unsafe { libc::syscall(libc::SYS_keyctl, 1, c"tack-test-keyring".as_ptr()) } < 0 {
                let error = std::io::Error::last_os_error();
                // A kernel without keyrings: there is nothing to reach.
                if error.raw_os_error() != Some(libc::ENOSYS) {
                    return Err(error);
                }
            }
            Ok(())
        })
        .await;
        let out = run(
            &client,
            &python_calls(
                r#"
                text = ctypes.create_string_buffer(256)
                if call('keyctl describe', 6, -3, text, 256, name='keyctl') > 0:
                    print('session keyring:', text.value.decode())
                call('keyctl user', 0, -4, 0, name='keyctl')
                call('add_key', b'user', b'tack-probe', b'planted', 7, -3)
                call('request_key', b'user', b'tack-probe', None, 0)
                "#,
            ),
        )
        .await;
        assert!(!out.contains("tack-test-keyring"), "{user:?}: tack's session keyring is reached: {out}");
        if filtered() {
            assert_eq!(
                out,
                "exit=0\nkeyctl describe: EPERM\nkeyctl user: EPERM\nadd_key: EPERM\nrequest_key: EPERM\n",
                "{user:?}"
            );
        } else if out.contains("keyctl describe: ENOSYS") {
            println!("skipped: this kernel has no keyrings");
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_command_cannot_make_a_user_namespace_by_unshare_or_clone() {
    let filtered = filtered();
    for user in users() {
        let place = Place::new(user);
        let client = serve(user, &place, || Ok(())).await;
        let unshare = run(&client, "unshare --user --map-root-user id -u").await;
        let calls = run(
            &client,
            &python_calls(
                r#"
                CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
                call('unshare', CLONE_NEWUSER)
                # A raw clone returns twice when it works: the child leaves at once.
                pid = call('clone', CLONE_NEWUSER | SIGCHLD, 0, None, None, 0)
                if pid == 0: os._exit(0)
                if pid > 0: os.waitpid(pid, 0)
                # A fork without the flag still works.
                pid = os.fork()
                if pid == 0: os._exit(3)
                print('fork:', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
                "#,
            ),
        )
        .await;
        if filtered {
            assert!(
                unshare.contains("Operation not permitted") && !unshare.starts_with("exit=0"),
                "{user:?}: {unshare}"
            );
            assert_eq!(calls, "exit=0\nunshare: EPERM\nclone: EPERM\nfork: 3\n", "{user:?}");
        }
        client.cancel().await.unwrap();
    }
}

/// A pseudo-terminal made by the test: the side a user's shell reads (`slave`) and the other.
struct Pty {
    _master: std::fs::File,
    slave: std::fs::File,
}

impl Pty {
    fn open() -> Pty {
        use std::os::fd::FromRawFd;
        // SAFETY: the calls below take descriptors this function owns and buffers on its stack.
        unsafe {
            let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
            assert!(master >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
            assert_eq!(libc::grantpt(master), 0);
            assert_eq!(libc::unlockpt(master), 0);
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
            let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
            assert!(slave >= 0, "open the pty: {}", std::io::Error::last_os_error());
            // Raw, so every byte typed in is counted as waiting to be read at once.
            let mut modes: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(slave, &mut modes), 0);
            libc::cfmakeraw(&mut modes);
            assert_eq!(libc::tcsetattr(slave, libc::TCSANOW, &modes), 0);
            Pty { _master: std::fs::File::from_raw_fd(master), slave: std::fs::File::from_raw_fd(slave) }
        }
    }

    /// Bytes typed into the terminal that its reader has not read.
    fn typed(&self) -> libc::c_int {
        let mut waiting: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int.
        assert_eq!(unsafe { libc::ioctl(self.slave.as_raw_fd(), libc::FIONREAD, &mut waiting) }, 0);
        waiting
    }
}

#[tokio::test]
async fn a_command_has_no_controlling_terminal_and_cannot_type_into_one() {
    let (filtered, namespaced) = (filtered(), namespaced());
    for user in users() {
        let place = Place::new(user);
        // tack runs on a terminal, as when a user starts it from a shell: the terminal is its
        // controlling one. TIOCSTI there would type into the user's shell.
        let pty = Pty::open();
        let tty = pty.slave.as_raw_fd();
        let client = serve(user, &place, move || {
            // SAFETY: setsid and ioctl are async-signal-safe and take no memory.
            unsafe {
                if libc::setsid() < 0 || libc::ioctl(tty, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        })
        .await;

        let inherited = run(
            &client,
            &python_calls(
                r#"
                import fcntl, termios
                try:
                    tty = os.open('/dev/tty', os.O_RDWR)
                except OSError as e:
                    print('/dev/tty:', errno.errorcode[e.errno]); sys.exit()
                print('/dev/tty: opened')
                try:
                    fcntl.ioctl(tty, termios.TIOCSTI, b'#'); print('TIOCSTI: ok')
                except OSError as e:
                    print('TIOCSTI:', errno.errorcode[e.errno])
                "#,
            ),
        )
        .await;
        if namespaced {
            assert_eq!(inherited, "exit=0\n/dev/tty: ENXIO\n", "{user:?}: no controlling terminal");
        } else if filtered {
            assert!(inherited.ends_with("TIOCSTI: EPERM\n"), "{user:?}: {inherited}");
        }

        // A terminal the command makes its own controlling one: the filter is all that stands
        // between it and TIOCSTI, however the request's upper bits are set.
        let own = run(
            &client,
            &python_calls(
                r#"
                import fcntl, termios
                try: os.setsid()
                except OSError: pass  # already a session's leader
                leader, tty = os.openpty()
                fcntl.ioctl(tty, termios.TIOCSCTTY, 0)
                byte = ctypes.c_char(b'#')
                call('TIOCSTI', tty, termios.TIOCSTI, ctypes.byref(byte), name='ioctl')
                call('TIOCSTI sign-extended', tty, 0xFFFFFFFF00000000 | termios.TIOCSTI, ctypes.byref(byte), name='ioctl')
                call('TIOCLINUX', tty, 0x541C, ctypes.byref(ctypes.c_char(b'\x06')), name='ioctl')
                call('TIOCGWINSZ', tty, termios.TIOCGWINSZ, ctypes.byref(ctypes.create_string_buffer(8)), name='ioctl')
                "#,
            ),
        )
        .await;
        if filtered {
            assert_eq!(
                own,
                "exit=0\nTIOCSTI: EPERM\nTIOCSTI sign-extended: EPERM\nTIOCLINUX: EPERM\nTIOCGWINSZ: ok\n",
                "{user:?}: other terminal requests still work"
            );
        }
        client.cancel().await.unwrap();
        if namespaced || filtered {
            assert_eq!(pty.typed(), 0, "{user:?}: nothing was typed into tack's terminal");
        }
    }
}

#[tokio::test]
async fn clone3_answers_enosys_and_forks_threads_and_subprocesses_still_work() {
    let filtered = filtered();
    for user in users() {
        let place = Place::new(user);
        let client = serve(user, &place, || Ok(())).await;
        let out = run(
            &client,
            &format!(
                "sh -c 'true & wait' && echo background: $?\n{}",
                python_calls(
                    r#"
                    import subprocess, threading
                    # An empty argument block: a kernel that reads it says EINVAL.
                    call('clone3', None, 0)
                    print('subprocess:', subprocess.run(['sh', '-c', 'exit 4']).returncode)
                    ran = []
                    threads = [threading.Thread(target=ran.append, args=(i,)) for i in range(4)]
                    for t in threads: t.start()
                    for t in threads: t.join()
                    print('threads:', sorted(ran))
                    "#,
                )
            ),
        )
        .await;
        if filtered {
            assert_eq!(
                out, "exit=0\nbackground: 0\nclone3: ENOSYS\nsubprocess: 4\nthreads: [0, 1, 2, 3]\n",
                "{user:?}"
            );
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn perf_events_bpf_io_uring_and_userfaultfd_are_refused() {
    if !filtered() {
        return;
    }
    for user in users() {
        let place = Place::new(user);
        let client = serve(user, &place, || Ok(())).await;
        // Each call is one an unprivileged process may make on a stock kernel (a software
        // counter on itself, a ring, a user-mode fault descriptor), or, for bpf, a command the
        // kernel would call invalid: EPERM is the filter's answer, not the kernel's.
        let out = run(
            &client,
            &python_calls(
                r#"
                attr = (ctypes.c_ubyte * 128)()
                attr[0] = 1  # PERF_TYPE_SOFTWARE; config 0 is its CPU clock
                attr[4] = 128  # size
                attr[40] = 1 | 1 << 5 | 1 << 6  # disabled, exclude_kernel, exclude_hv
                call('perf_event_open', attr, 0, -1, -1, 8)
                call('bpf', 1000, None, 0)
                call('io_uring_setup', 1, ctypes.create_string_buffer(120))
                call('userfaultfd', os.O_CLOEXEC | 1)
                "#,
            ),
        )
        .await;
        assert_eq!(
            out, "exit=0\nperf_event_open: EPERM\nbpf: EPERM\nio_uring_setup: EPERM\nuserfaultfd: EPERM\n",
            "{user:?}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_descriptor_tack_inherited_does_not_reach_a_command() {
    for user in users() {
        let place = Place::new(user);
        // A file outside the root, open for writing in tack without close-on-exec: as when the
        // program that starts tack leaks one.
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("outside.txt");
        let file = std::fs::File::create(&target).unwrap();
        let leaked: RawFd = file.as_raw_fd();
        let client = serve(user, &place, move || {
            // SAFETY: dup2 is async-signal-safe; the copy it makes has no close-on-exec flag.
            if unsafe { libc::dup2(leaked, 9) } < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
        .await;
        let out = run(
            &client,
            &format!(
                "echo shell >&9; echo proc > /proc/self/fd/9; {} -c 'import os; os.write(9, b\"python\")'; ls /proc/self/fd",
                python()
            ),
        )
        .await;
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "", "{user:?}: a command wrote outside: {out}");
        // ls's own listing: its standard streams and the folder it reads.
        assert!(out.ends_with("\n0\n1\n2\n3\n"), "{user:?}: only 0-2 reach the command: {out}");
        client.cancel().await.unwrap();
    }
}
