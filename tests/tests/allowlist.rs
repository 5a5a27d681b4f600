//! A command sees the filesystem by allow-list, through the real binary, as root and as an
//! ordinary user (uid 65534 through `setpriv`): what is not bound (the user's credentials, a
//! Unix socket outside the root, another tack's token) is absent, the toolchains it runs are
//! there read-only, and what it writes to a build cache (Go's modules, Gradle's init scripts,
//! Maven's repository) lands in tack's layer for that root, never in the user's cache.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;
use tack_tests::as_user::{Tack, give, mounts_contained, users};
use tack_tests::fixture_copy;

/// A server on `root` with `home` as `$HOME`, its cache in `cache` and Go's caches in the
/// home, as `user`, with `env` set too.
fn serve(root: &Path, home: &Path, cache: &Path, user: Option<u32>, env: &[(&str, &str)]) -> Tack {
    Tack::start(root, user, |command| {
        command
            .env("HOME", home)
            .env("XDG_CACHE_HOME", cache)
            .env("GOMODCACHE", home.join("go/pkg/mod"))
            .env("GOCACHE", home.join(".cache/go-build"))
            .env_remove("GOPATH")
            .env_remove("GRADLE_USER_HOME")
            .envs(env.iter().copied());
    })
}

/// A fresh folder `user` owns (mode 0755 so the other may look up what the test reads).
fn folder(user: Option<u32>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    give(dir.path(), user);
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_command_sees_no_credential_socket_or_token_outside_what_is_bound_and_its_toolchains_run() {
    if !mounts_contained() {
        return;
    }
    for user in users() {
        let (root, home, cache, outside) = (folder(None), folder(None), folder(None), folder(None));
        write(&root.path().join("build.gradle"), "// a Gradle build, so ~/.gradle is its cache\n");
        let secrets = [
            (".claude/.credentials.json", "CLAUDE-SECRET"),
            (".codex/auth.json", "CODEX-SECRET"),
            (".pgpass", "PGPASS-SECRET"),
            (".my.cnf", "MYCNF-SECRET"),
            (".Xauthority", "XAUTH-SECRET"),
            (".gradle/gradle.properties", "GRADLE-SECRET"),
            (".m2/settings.xml", "MAVEN-SECRET"),
            (".cache/tack/other-server/state/http-token", "TOKEN-SECRET"),
        ];
        for (file, secret) in secrets {
            write(&home.path().join(file), secret);
        }
        write(&outside.path().join("notes.txt"), "OUTSIDE-SECRET");
        let socket = outside.path().join("daemon.sock");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        listener.set_nonblocking(true).unwrap();
        for dir in [&root, &home, &cache, &outside] {
            give(dir.path(), user);
        }
        let mut tack = serve(root.path(), home.path(), cache.path(), user, &[]);
        let reads: Vec<String> = secrets
            .iter()
            .map(|(file, _)| format!("~/{file}"))
            .chain([outside.path().join("notes.txt").display().to_string()])
            .collect();
        let out = tack.run(&format!(
            "for f in {}; do cat \"$f\" 2>/dev/null; done; \
             /usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' {} \
             2>/dev/null && echo CONNECTED; \
             ls / | tr '\\n' ' '; echo; head -c 5 /etc/passwd; echo; cat /etc/shadow | wc -c; \
             git --version | cut -c1-11; /usr/bin/python3 -c 'print(6 * 7)'",
            reads.join(" ").replace('~', "$HOME"),
            socket.display(),
        ));
        for (_, secret) in secrets {
            assert!(!out.contains(secret), "{user:?}: {secret} was read:\n{out}");
        }
        assert!(!out.contains("OUTSIDE-SECRET") && !out.contains("CONNECTED"), "{user:?}:\n{out}");
        assert!(listener.accept().is_err(), "{user:?}: the outside socket was reached");
        let listing = out.lines().nth(1).unwrap_or("");
        for absent in ["home ", "run ", "mnt ", "srv ", "boot "] {
            assert!(!listing.contains(absent), "{user:?}: / shows {absent}: {listing}");
        }
        for present in ["usr ", "etc ", "tmp ", "proc ", "dev "] {
            assert!(listing.contains(present), "{user:?}: / lacks {present}: {listing}");
        }
        assert!(
            out.contains("\nroot:\n0\ngit version\n42\n"),
            "{user:?}: the system and its tools are there:\n{out}"
        );
    }
}

#[test]
fn what_a_command_writes_to_a_build_cache_stays_in_tacks_layer_for_its_root() {
    if !mounts_contained() {
        return;
    }
    // Overlays where the kernel allows them, and the copies made where it refuses them.
    for (user, overlays) in users().into_iter().flat_map(|u| [(u, "1"), (u, "0")]) {
        // Go's build cache outside the home and the temporary folder, where no folder a command
        // may write holds it.
        let go_build = tempfile::tempdir_in("/var/tmp").unwrap();
        std::fs::set_permissions(go_build.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let go_cache = go_build.path().join("go-build").display().to_string();
        std::fs::create_dir_all(&go_cache).unwrap();
        let env = [("TACK_OVERLAYS", overlays), ("GOCACHE", go_cache.as_str())];
        let (home, cache) = (folder(None), folder(None));
        write(&home.path().join("go/pkg/mod/example.com/m@v1/m.go"), "package m // ORIGINAL\n");
        std::fs::create_dir_all(home.path().join(".gradle")).unwrap();
        std::fs::create_dir_all(home.path().join(".m2/repository")).unwrap();
        // A Go module with a Maven and a Gradle project beside it, each in its folder.
        let project = |dir: &Path| {
            write(&dir.join("go.mod"), "module example.com/p\n\ngo 1.19\n");
            write(&dir.join("service/build.gradle"), "// Gradle\n");
            write(&dir.join("library/pom.xml"), "<project/>\n");
        };
        let (first, second) = (folder(None), folder(None));
        project(first.path());
        project(second.path());
        for dir in [&home, &cache, &first, &second, &go_build] {
            give(dir.path(), user);
        }
        let poison = "echo 'package m // POISON' > $GOMODCACHE/example.com/m@v1/m.go; \
                      mkdir -p ~/.gradle/init.d && echo POISON > ~/.gradle/init.d/evil.gradle; \
                      echo POISON > ~/.m2/repository/evil.jar; echo POISON > $GOCACHE/evil; \
                      cat $GOMODCACHE/example.com/m@v1/m.go";
        let look = "cat $GOMODCACHE/example.com/m@v1/m.go ~/.gradle/init.d/evil.gradle ~/.m2/repository/evil.jar \
                    $GOCACHE/evil 2>&1";
        let out = serve(first.path(), home.path(), cache.path(), user, &env).run(poison);
        assert!(out.contains("POISON"), "{user:?} {overlays}: the command sees its own write:\n{out}");
        assert_eq!(
            std::fs::read_to_string(home.path().join("go/pkg/mod/example.com/m@v1/m.go")).unwrap(),
            "package m // ORIGINAL\n",
            "{user:?}: the user's module cache is unchanged"
        );
        for planted in [".gradle/init.d", ".m2/repository/evil.jar"] {
            assert!(!home.path().join(planted).exists(), "{user:?}: {planted} reached the user's cache");
        }
        assert!(!Path::new(&go_cache).join("evil").exists(), "{user:?}: the build cache was written");
        let again = serve(first.path(), home.path(), cache.path(), user, &env).run(look);
        assert_eq!(
            again.matches("POISON").count(),
            4,
            "{user:?} {overlays}: the root keeps its layer:\n{again}"
        );
        let other = serve(second.path(), home.path(), cache.path(), user, &env).run(look);
        assert!(
            !other.contains("POISON") && other.contains("ORIGINAL"),
            "{user:?} {overlays}: another root sees the user's cache as it is:\n{other}"
        );
    }
}

/// The fixtures of every toolchain, each with a command to prepare it and the failure `verify`
/// must report. As root the toolchains are the machine's own (rustup's, pyenv's); as another
/// user, who cannot enter root's home, Debian's (`scripts/test` installs its cargo and pytest).
const TOOLCHAIN_FIXTURES: &[(&str, &str, &str)] = &[
    ("verify_rs", "", "src/lib.rs:30 tests::total_is_the_sum"),
    ("verify_py", "", "tests/test_calc.py:17 tests/test_calc.py::test_total"),
    ("verify_go", "", "calc_test.go:13 example.com/calc.TestTotal"),
    (
        "verify_java",
        "mkdir -p .mvn && printf -- '-o\\n-Dmaven.repo.local=/usr/share/maven-repo\\n' > .mvn/maven.config",
        "src/test/java/calc/CalcTest.java:15 calc.CalcTest.totals",
    ),
    ("verify_gradle", "", "src/test/java/calc/CalcTest.java:15 calc.CalcTest.totals"),
    ("verify_kotlin", "", "src/test/kotlin/calc/CalcTest.kt:14 calc.CalcTest.totals"),
    ("verify_js", "", "test/calc.test.js:10 total sums prices"),
    ("verify_cpp", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null", "calc_test.cpp:16 total"),
];

#[test]
fn verify_builds_and_tests_each_toolchains_fixture_offline_as_root_and_as_an_ordinary_user() {
    if !mounts_contained() {
        return;
    }
    for user in users() {
        for (fixture, prepare, failure) in TOOLCHAIN_FIXTURES {
            let (home, cache) = (folder(None), folder(None));
            let repo = fixture_copy(fixture);
            std::fs::set_permissions(repo.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            for dir in [home.path(), cache.path(), repo.path()] {
                give(dir, user);
            }
            let mut tack = serve(repo.path(), home.path(), cache.path(), user, &[]);
            if !prepare.is_empty() {
                let prepared = tack.run(prepare);
                assert!(prepared.starts_with("exit=0"), "{user:?} {fixture}: {prepared}");
            }
            let result = tack.call("verify", json!({}));
            assert!(
                result.contains("checks failed") && result.contains(failure),
                "{user:?} {fixture}: verify reads the failing test:\n{result}"
            );
        }
    }
}
