//! Nothing in the root that a person's own tools run later, through the real binary, a test per
//! member of the list in `tools/src/workspace/protected.rs`: the writing tools refuse it at the
//! root and nested, naming its kind, and `run` can neither change one that exists nor leave a
//! new one behind (it says what it removed). Then what the worst ones would do at the person's
//! next step: `git status` running a `core.fsmonitor` the command chose through `.git/commondir`
//! or a nested repository added as a submodule, `cargo --version` running a repository binary
//! through `rust-toolchain.toml`, a husky hook at the next commit. `run` is tried as root and,
//! when the tests run as root, as uid 65534 (through `setpriv`) in a folder that user owns.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use tack_tests::as_user::{Tack, give, mounts_contained, tree, users};

/// What `path` holds: each path beneath it with its file's text (empty for folders).
fn snapshot(path: &Path) -> BTreeMap<PathBuf, String> {
    tree(path).into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap_or_default())).collect()
}

/// A person's repository in a fresh folder `user` owns: `root/` with one commit, a nested
/// repository at `root/sub/`, and an empty home and cache beside it.
struct Fixture {
    dir: tempfile::TempDir,
    user: Option<u32>,
}

impl Fixture {
    fn new(user: Option<u32>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let fixture = Fixture { dir, user };
        for folder in ["root/sub", "home", "cache"] {
            std::fs::create_dir_all(fixture.dir.path().join(folder)).unwrap();
        }
        fixture.write("root/a.txt", "a\n");
        fixture.write("root/sub/b.txt", "b\n");
        fixture.give(fixture.dir.path());
        for repo in ["root/sub", "root"] {
            for args in [&["init", "-q"][..], &["add", "."], &["commit", "-qm", "first"]] {
                fixture.git(repo, args);
            }
        }
        fixture
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `rel` (beneath the fixture's folder) as the person would.
    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        self.give(self.dir.path());
    }

    /// Hands `path` and what is beneath it to the fixture's user.
    fn give(&self, path: &Path) {
        give(path, self.user);
    }

    /// `program` run in `dir` (beneath the fixture's folder) as the person runs it outside
    /// tack: as the fixture's user, with its home and no toolchain chosen by the environment.
    fn person(&self, dir: &str, program: &str, args: &[&str]) -> Output {
        let mut command = match self.user {
            Some(id) => {
                let mut c = Command::new("setpriv");
                c.args([
                    format!("--reuid={id}"),
                    format!("--regid={id}"),
                    "--clear-groups".into(),
                    program.into(),
                ]);
                c
            }
            None => Command::new(program),
        };
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            if name.starts_with("GIT_") || name.starts_with("CARGO") || name.starts_with("RUSTUP_TOOLCHAIN") {
                command.env_remove(name);
            }
        }
        command
            .args(args)
            .current_dir(self.path(dir))
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "A")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .output()
            .unwrap()
    }

    /// `git` as the person runs it, which must succeed.
    fn git(&self, dir: &str, args: &[&str]) -> String {
        let out = self.person(dir, "git", args);
        assert!(out.status.success(), "git {args:?} in {dir}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `tack serve` on `root/`, as the fixture's user.
    fn serve(&self) -> Tack {
        Tack::start(&self.path("root"), self.user, |command| {
            command
                .env("HOME", self.path("home"))
                .env("XDG_CACHE_HOME", self.path("cache"))
                .env("XDG_CONFIG_HOME", self.path("home/.config"));
        })
    }
}

/// `rel` less its last component, or `.`.
fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

/// One member of the list: `path`, a file of it, relative to a work tree; `top`, what is
/// protected as a whole (the file, or the folder holding it); `kind`, words the refusal and
/// the removal use for it.
fn member(path: &str, top: &str, kind: &str) {
    let users = if mounts_contained() { users() } else { vec![None] };
    for user in users {
        let fx = Fixture::new(user);
        let mut tack = fx.serve();
        let who = user.map_or("root".to_string(), |id| format!("uid {id}"));
        // At the root, in the nested repository, and deeper where there is no repository.
        let places = ["", "sub/", "sub/deep/"];

        for place in places {
            let rel = format!("{place}{path}");
            let before = snapshot(&fx.path(&format!("root/{rel}")));
            let wrote = tack.call_tool("write_file", json!({"path": rel, "content": "from the agent\n"}));
            assert!(
                wrote.starts_with(&format!("cannot write {rel}: it is {kind}"))
                    && wrote.contains("allow_protected_writes"),
                "{who}: write_file {rel} is refused and says why: {wrote}"
            );
            assert_eq!(snapshot(&fx.path(&format!("root/{rel}"))), before, "{who}: {rel} is as it was");
        }
        if !mounts_contained() {
            continue;
        }

        // A command makes it where it is not: it is removed, and the result says so.
        for place in places {
            // Where there is no repository, what a command makes of git's is a new `.git`.
            let top = match top.strip_prefix(".git/") {
                Some(_) if !fx.path(&format!("root/{place}.git")).exists() => format!("{place}.git"),
                _ => format!("{place}{top}"),
            };
            if fx.path(&format!("root/{top}")).exists() {
                continue;
            }
            let rel = format!("{place}{path}");
            let made = tack.run(&format!("mkdir -p {} && echo planted > {rel} && ls {rel}", parent(&rel)));
            assert!(made.starts_with("exit=0\n"), "{who}: the command made {rel}: {made}");
            assert!(!fx.path(&format!("root/{top}")).exists(), "{who}: {top} was removed: {made}");
            assert!(
                made.contains(&format!("\ntack removed {top}, which the command made: it is {kind}")),
                "{who}: the result names {top}: {made}"
            );
        }

        // The person's own, made outside tack: a command changes none of them.
        for place in ["", "sub/"] {
            let rel = format!("{place}{path}");
            let top = format!("{place}{top}");
            if !fx.path(&format!("root/{rel}")).exists() {
                fx.write(&format!("root/{rel}"), "the person's\n");
            }
            let before = snapshot(&fx.path(&format!("root/{top}")));
            let tried = tack.run(&format!(
                "echo planted >> {rel}; : > {rel}; rm -rf {top}; mv {top} {top}.moved; mkdir -p {}; echo planted > {rel}; \
                 ls -d {top}.moved",
                parent(&rel)
            ));
            assert!(!tried.starts_with("exit=0\n"), "{who}: {top} could not be moved: {tried}");
            assert!(tried.contains("Read-only file system") || tried.contains("busy"), "{who}: {tried}");
            assert_eq!(
                snapshot(&fx.path(&format!("root/{top}"))),
                before,
                "{who}: {top} is unchanged: {tried}"
            );
        }
    }
}

macro_rules! members {
    ($($name:ident: $path:literal, $top:literal, $kind:expr;)*) => {$(
        #[test]
        fn $name() {
            member($path, $top, $kind);
        }
    )*};
}

const GIT: &str = "git's own metadata";
const HOOKS: &str = "a git hook manager's configuration";
const TOOLCHAIN: &str = "a toolchain selector or wrapper setting";
const AGENT: &str = "an agent's or editor's configuration";

members! {
    git_config: ".git/config", ".git/config", GIT;
    git_config_worktree: ".git/config.worktree", ".git/config.worktree", GIT;
    git_hooks: ".git/hooks/pre-commit", ".git/hooks", GIT;
    git_info: ".git/info/attributes", ".git/info", GIT;
    git_commondir: ".git/commondir", ".git/commondir", GIT;
    git_gitdir: ".git/gitdir", ".git/gitdir", GIT;
    git_alternates: ".git/objects/info/alternates", ".git/objects/info/alternates", GIT;
    gitmodules: ".gitmodules", ".gitmodules", GIT;
    husky: ".husky/pre-commit", ".husky", HOOKS;
    lefthook_yml: "lefthook.yml", "lefthook.yml", HOOKS;
    dot_lefthook_yml: ".lefthook.yml", ".lefthook.yml", HOOKS;
    lefthook_local_yml: "lefthook-local.yml", "lefthook-local.yml", HOOKS;
    pre_commit_config: ".pre-commit-config.yaml", ".pre-commit-config.yaml", HOOKS;
    overcommit: ".overcommit.yml", ".overcommit.yml", HOOKS;
    rust_toolchain: "rust-toolchain", "rust-toolchain", TOOLCHAIN;
    rust_toolchain_toml: "rust-toolchain.toml", "rust-toolchain.toml", TOOLCHAIN;
    cargo_config: ".cargo/config", ".cargo/config", TOOLCHAIN;
    cargo_config_toml: ".cargo/config.toml", ".cargo/config.toml", TOOLCHAIN;
    gradle_wrapper: "gradle/wrapper/gradle-wrapper.properties", "gradle/wrapper/gradle-wrapper.properties",
        TOOLCHAIN;
    maven_wrapper: ".mvn/wrapper/maven-wrapper.properties", ".mvn/wrapper/maven-wrapper.properties",
        TOOLCHAIN;
    maven_extensions: ".mvn/extensions.xml", ".mvn/extensions.xml", TOOLCHAIN;
    maven_jvm_config: ".mvn/jvm.config", ".mvn/jvm.config", TOOLCHAIN;
    npmrc: ".npmrc", ".npmrc", TOOLCHAIN;
    yarnrc: ".yarnrc", ".yarnrc", TOOLCHAIN;
    yarnrc_yml: ".yarnrc.yml", ".yarnrc.yml", TOOLCHAIN;
    bundle_config: ".bundle/config", ".bundle/config", TOOLCHAIN;
    tool_versions: ".tool-versions", ".tool-versions", TOOLCHAIN;
    python_version: ".python-version", ".python-version", TOOLCHAIN;
    claude: ".claude/settings.json", ".claude", AGENT;
    mcp_json: ".mcp.json", ".mcp.json", AGENT;
    codex: ".codex/config.toml", ".codex", AGENT;
    cursor: ".cursor/mcp.json", ".cursor", AGENT;
    vscode_settings: ".vscode/settings.json", ".vscode", AGENT;
    vscode_tasks: ".vscode/tasks.json", ".vscode", AGENT;
    tack_toml: "tack.toml", "tack.toml", AGENT;
}

/// Every `.git`, folder or file, at any depth: a command can neither move a person's nor leave
/// one of its own.
#[test]
fn git_folders_and_files_at_any_depth() {
    let users = if mounts_contained() { users() } else { vec![None] };
    for user in users {
        let fx = Fixture::new(user);
        let mut tack = fx.serve();
        let who = user.map_or("root".to_string(), |id| format!("uid {id}"));
        for rel in ["sub/.git", "deep/er/.git", "deep/er/.git/HEAD"] {
            let wrote = tack.call_tool("write_file", json!({"path": rel, "content": "gitdir: /elsewhere\n"}));
            assert!(wrote.starts_with(&format!("cannot write {rel}: it is {GIT}")), "{who}: {wrote}");
        }
        if !mounts_contained() {
            continue;
        }
        let made = tack.run(
            "git init -q deep/er && mkdir -p other && echo 'gitdir: /elsewhere' > other/.git && ls deep/er/.git other/.git",
        );
        assert!(made.starts_with("exit=0\n"), "{who}: {made}");
        for top in ["deep/er/.git", "other/.git"] {
            assert!(!fx.path(&format!("root/{top}")).exists(), "{who}: {top} was removed: {made}");
            assert!(
                made.contains(&format!("\ntack removed {top}, which the command made: it is {GIT}")),
                "{made}"
            );
        }
        let config = snapshot(&fx.path("root/sub/.git/config"));
        for git in [".git", "sub/.git"] {
            let moved =
                tack.run(&format!("mv {git} {git}.moved; mkdir -p x; mv {git} x/; ls -d {git}.moved x/.git"));
            assert!(moved.contains("busy"), "{who}: {git} stays: {moved}");
            assert!(fx.path(&format!("root/{git}/HEAD")).is_file(), "{who}: {git} stays");
        }
        assert_eq!(snapshot(&fx.path("root/sub/.git/config")), config);
        assert_eq!(fx.git("root", &["log", "--format=%s"]), "first\n");
    }
}

/// The folder a repository's `core.hooksPath` names, in the repository at the root and in a
/// nested one.
#[test]
fn the_folder_core_hooks_path_names() {
    let users = if mounts_contained() { users() } else { vec![None] };
    for user in users {
        let fx = Fixture::new(user);
        fx.git("root", &["config", "core.hooksPath", "githooks"]);
        fx.git("root/sub", &["config", "core.hooksPath", "tools/hooks"]);
        let mut tack = fx.serve();
        let who = user.map_or("root".to_string(), |id| format!("uid {id}"));
        for rel in ["githooks/pre-commit", "sub/tools/hooks/pre-commit"] {
            let wrote = tack.call_tool("write_file", json!({"path": rel, "content": "#!/bin/sh\n"}));
            assert!(wrote.starts_with(&format!("cannot write {rel}: it is {HOOKS}")), "{who}: {wrote}");
        }
        if !mounts_contained() {
            continue;
        }
        for top in ["githooks", "sub/tools/hooks"] {
            let made = tack.run(&format!("mkdir -p {top} && echo planted > {top}/pre-commit"));
            assert!(!fx.path(&format!("root/{top}")).exists(), "{who}: {top} was removed: {made}");
            assert!(
                made.contains(&format!("\ntack removed {top}, which the command made: it is {HOOKS}")),
                "{made}"
            );
            fx.write(&format!("root/{top}/pre-commit"), "the person's\n");
            let tried =
                tack.run(&format!("echo planted >> {top}/pre-commit; echo planted > {top}/post-commit"));
            assert!(tried.contains("Read-only file system"), "{who}: {tried}");
            assert_eq!(
                std::fs::read_to_string(fx.path(&format!("root/{top}/pre-commit"))).unwrap(),
                "the person's\n"
            );
            assert!(!fx.path(&format!("root/{top}/post-commit")).exists());
        }
    }
}

/// A script in the root that leaves `ran.txt` when something runs it.
const EVIL: &str =
    "printf '#!/bin/sh\\necho ran >> \"%s/ran.txt\"\\n' \"$PWD\" > evil.sh && chmod +x evil.sh";

/// `.git/commondir` pointed at a folder the command made, whose config names a
/// `core.fsmonitor`: the person's next `git status` would run it.
#[test]
fn commondir_pointed_at_a_folder_the_command_made_runs_nothing_at_the_next_git_status() {
    if !mounts_contained() {
        return;
    }
    for user in users() {
        let fx = Fixture::new(user);
        let mut tack = fx.serve();
        let planted = tack.run(&format!(
            "{EVIL} && mkdir c && cp -r .git/objects .git/refs c/ && \
             printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"%s/evil.sh\"\\n' \"$PWD\" > c/config && \
             echo ../c > .git/commondir && git status --short"
        ));
        let _ = std::fs::remove_file(fx.path("root/ran.txt"));
        fx.git("root", &["status", "--short"]);
        assert!(
            !fx.path("root/ran.txt").exists(),
            "the person's git status ran the command's fsmonitor: {planted}"
        );
        assert!(planted.contains("\ntack removed .git/commondir, which the command made"), "{planted}");
    }
}

/// A repository the command made and added to the index as a submodule, whose config names
/// a `core.fsmonitor`: the person's next `git status` would run it in the submodule.
#[test]
fn a_repository_the_command_added_as_a_submodule_runs_nothing_at_the_next_git_status() {
    if !mounts_contained() {
        return;
    }
    for user in users() {
        let fx = Fixture::new(user);
        let mut tack = fx.serve();
        let planted = tack.run(&format!(
            "{EVIL} && for sub in inner node_modules/pkg/inner; do mkdir -p $sub && (cd $sub && git init -q && \
             echo f > f && git add f && git -c user.name=a -c user.email=a@b commit -qm x && \
             git config core.fsmonitor \"$OLDPWD/evil.sh\") && git add -f $sub 2>/dev/null; done; \
             git ls-files --stage | grep -c ^160000"
        ));
        // The person's own `sub` is one already.
        assert!(planted.starts_with("exit=0\n3\n"), "the command added two submodule entries: {planted}");
        let _ = std::fs::remove_file(fx.path("root/ran.txt"));
        let status = fx.git("root", &["status", "--porcelain"]);
        assert!(
            !fx.path("root/ran.txt").exists(),
            "the person's git status ran the command's fsmonitor: {planted}"
        );
        for sub in ["inner", "node_modules/pkg/inner"] {
            assert!(
                planted.contains(&format!("\ntack removed the submodule entry {sub} from git's index")),
                "{planted}"
            );
            assert!(!fx.path(&format!("root/{sub}/.git")).exists(), "{planted}");
        }
        assert!(!status.lines().any(|l| l.starts_with('A')), "nothing the command added is staged: {status}");
    }
}

/// `rust-toolchain.toml` with `path =` makes rustup run that folder's `cargo`, even for
/// `cargo --version`. As root only: uid 65534 cannot reach this machine's rustup.
#[test]
fn rust_toolchain_toml_with_a_path_runs_no_repository_binary_at_cargo_version() {
    if !mounts_contained() {
        return;
    }
    let fx = Fixture::new(None);
    let real = fx.person("root", "cargo", &["--version"]);
    if !real.status.success()
        || !Path::new(&std::env::var_os("HOME").unwrap()).join(".cargo/bin/rustup").exists()
    {
        eprintln!("skipped: no cargo through rustup here");
        return;
    }
    let mut tack = fx.serve();
    let planted = tack.run(&format!(
        "{EVIL} && mkdir -p tc/bin && cp evil.sh tc/bin/cargo && cp evil.sh tc/bin/rustc && \
         printf '[toolchain]\\npath = \"%s/tc\"\\n' \"$PWD\" > rust-toolchain.toml"
    ));
    let version = fx.person("root", "cargo", &["--version"]);
    assert!(!fx.path("root/ran.txt").exists(), "cargo --version ran the command's binary: {planted}");
    assert_eq!(String::from_utf8_lossy(&version.stdout), String::from_utf8_lossy(&real.stdout));
    assert!(planted.contains("\ntack removed rust-toolchain.toml, which the command made"), "{planted}");
}

/// Husky (its hooks folder set up as husky 9 does) and lefthook: what the command writes is
/// not there at the person's next commit.
#[test]
fn husky_and_lefthook_hooks_the_command_writes_do_not_run_at_the_next_commit() {
    if !mounts_contained() {
        return;
    }
    for user in users() {
        let fx = Fixture::new(user);
        // As husky installs itself: git runs `.husky/_/<hook>`, which runs `.husky/<hook>`.
        fx.write(
            "root/.husky/_/pre-commit",
            "#!/bin/sh\n[ ! -f .husky/pre-commit ] || sh .husky/pre-commit\n",
        );
        std::fs::set_permissions(fx.path("root/.husky/_/pre-commit"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        fx.git("root", &["config", "core.hooksPath", ".husky/_"]);
        let mut tack = fx.serve();
        let planted = tack.run(&format!(
            "{EVIL}; cp evil.sh .husky/pre-commit; for f in lefthook.yml .lefthook.yml lefthook-local.yml; do \
             printf 'pre-commit:\\n  commands:\\n    x:\\n      run: ./evil.sh\\n' > $f; done; ls"
        ));
        fx.write("root/c.txt", "c\n");
        fx.git("root", &["add", "c.txt"]);
        fx.git("root", &["commit", "-qm", "second"]);
        assert!(
            !fx.path("root/ran.txt").exists(),
            "the person's commit ran a hook the command wrote: {planted}"
        );
        assert!(planted.contains("Read-only file system"), "{planted}");
        assert!(!fx.path("root/.husky/pre-commit").exists());
        for made in ["lefthook.yml", ".lefthook.yml", "lefthook-local.yml"] {
            assert!(planted.contains(&format!("\ntack removed {made}, which the command made")), "{planted}");
            assert!(!fx.path(&format!("root/{made}")).exists());
        }
    }
}
