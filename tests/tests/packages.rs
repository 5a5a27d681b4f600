//! The packages that install tack without a Rust toolchain, built by `packaging/build.sh` from
//! this checkout's debug build and installed from the local files: the wheel into a fresh
//! virtualenv, through `uv tool run --from WHEEL` and through `pipx install WHEEL`; the MCP
//! bundle unpacked and started as a host starts it from its manifest; the MCP Registry's
//! `server.json` checked against the registry's schema; and `cargo install --path server`.
//! Nothing is published.
//!
//! CI time: about 20 s once the tools are installed (maturin, uv, pipx and skillsaw from PyPI
//! into the test venv, @anthropic-ai/mcpb from npm into target/npm-tools).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tack_tests::{fixture_copy, python_with, stdout_of, tack_binary};

const MATURIN: (&str, &str) = ("maturin", "maturin==1.16.0");
const UV: (&str, &str) = ("uv", "uv==0.13.9");
const PIPX: (&str, &str) = ("pipx", "pipx==1.18.4");
/// A linter that carries the MCP Registry's released `server.json` schemas.
const SKILLSAW: (&str, &str) = ("skillsaw", "skillsaw==0.22.0");
const MCPB: &str = "@anthropic-ai/mcpb@2.1.2";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf()
}

fn target() -> PathBuf {
    tack_binary().parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

/// The `mcpb` command, installed from npm on first use.
fn mcpb() -> PathBuf {
    let dir = target().join("npm-tools");
    let bin = dir.join("node_modules/.bin/mcpb");
    let stamp = dir.join("installed.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(MCPB) {
        std::fs::create_dir_all(&dir).unwrap();
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
            .arg(&dir)
            .arg(MCPB)
            .status()
            .expect("npm runs (install Node.js and npm: apt-get install nodejs npm)");
        assert!(status.success(), "npm install {MCPB} failed");
        std::fs::write(&stamp, MCPB).unwrap();
    }
    bin
}

/// Starts `command` as an MCP server over stdio and returns its answer to `initialize`.
fn handshake(command: &mut Command) -> Value {
    let mut child = command
        .env("TACK_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "packages", "version": "0"}}});
    writeln!(child.stdin.as_mut().unwrap(), "{request}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
}

fn version() -> String {
    format!("tack {}", env!("CARGO_PKG_VERSION"))
}

#[test]
fn the_wheel_the_bundle_and_the_registry_entry_install_and_serve_from_local_files() {
    let python = python_with(&[MATURIN, UV, PIPX, SKILLSAW]);
    let out = tempfile::tempdir().unwrap();
    let repo = fixture_copy("py_shop");
    stdout_of(
        Command::new(workspace().join("packaging/build.sh"))
            .arg("dev")
            .arg(out.path())
            .env("MATURIN", format!("{} -m maturin", python.display()))
            .env("MCPB", mcpb()),
    );
    let files: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let wheel = files.iter().find(|f| f.ends_with(".whl")).expect("a wheel");
    assert!(
        wheel.starts_with(&format!("tack_mcp-{}-py3-none-manylinux_", env!("CARGO_PKG_VERSION"))),
        "{wheel}"
    );
    let wheel = out.path().join(wheel);
    for file in [wheel.clone(), out.path().join(format!("tack-{}.mcpb", env!("CARGO_PKG_VERSION")))] {
        let size = std::fs::metadata(&file).unwrap().len();
        println!("{}: {:.1} MB", file.display(), size as f64 / 1e6);
    }

    // The wheel, into a fresh virtualenv: its `tack` is the command, and it serves.
    let venv = out.path().join("venv");
    stdout_of(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    stdout_of(Command::new(venv.join("bin/python")).args(["-m", "pip", "install", "--quiet"]).arg(&wheel));
    let tack = venv.join("bin/tack");
    assert_eq!(stdout_of(Command::new(&tack).arg("--version")).trim(), version());
    let index = out.path().join("index");
    let map = stdout_of(
        Command::new(&tack).arg("map").arg("--root").arg(repo.path()).arg("--index-dir").arg(&index),
    );
    assert!(map.starts_with("repo map: "), "{map}");
    assert!(map.contains("class Cart"), "{map}");
    let answer = handshake(
        Command::new(&tack).args(["serve", "--root"]).arg(repo.path()).arg("--index-dir").arg(&index),
    );
    assert_eq!(answer["result"]["serverInfo"]["name"], "tack", "{answer}");

    // `uvx --from WHEEL tack`, offline, with a cache of its own.
    let uvx = stdout_of(
        Command::new(&python)
            .args(["-m", "uv", "tool", "run", "--offline", "--from"])
            .arg(&wheel)
            .args(["tack", "--version"])
            .env("UV_CACHE_DIR", out.path().join("uv-cache"))
            .env("UV_TOOL_DIR", out.path().join("uv-tools")),
    );
    assert_eq!(uvx.trim(), version());

    // `pipx install WHEEL`, into folders of its own.
    stdout_of(
        Command::new(&python)
            .args(["-m", "pipx", "install", "--quiet"])
            .arg(&wheel)
            .env("PIPX_HOME", out.path().join("pipx"))
            .env("PIPX_BIN_DIR", out.path().join("pipx-bin"))
            .env("PIPX_MAN_DIR", out.path().join("pipx-man")),
    );
    assert_eq!(stdout_of(Command::new(out.path().join("pipx-bin/tack")).arg("--version")).trim(), version());

    // The bundle, unpacked and started as its manifest says, with the folder a user picked.
    let bundle = out.path().join(format!("tack-{}.mcpb", env!("CARGO_PKG_VERSION")));
    let unpacked = out.path().join("unpacked");
    stdout_of(Command::new(mcpb()).arg("unpack").arg(&bundle).arg(&unpacked));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(unpacked.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    let fill = |v: &Value| {
        v.as_str()
            .unwrap()
            .replace("${__dirname}", unpacked.to_str().unwrap())
            .replace("${user_config.root}", repo.path().to_str().unwrap())
    };
    let config = &manifest["server"]["mcp_config"];
    let command = fill(&config["command"]);
    let args: Vec<String> = config["args"].as_array().unwrap().iter().map(fill).collect();
    assert_eq!(args[0], "serve", "the bundle starts tack serve: {args:?}");
    assert_eq!(stdout_of(Command::new(&command).arg("--version")).trim(), version());
    let answer = handshake(Command::new(&command).args(&args).arg("--index-dir").arg(&index));
    assert_eq!(answer["result"]["serverInfo"]["name"], "tack", "{answer}");

    // The registry entry: the schema's checks pass, its packages are what was built, and the
    // crate's README (the workspace's) claims the name.
    let registry = out.path().join("registry");
    std::fs::create_dir_all(&registry).unwrap();
    std::fs::copy(out.path().join("server.json"), registry.join("server.json")).unwrap();
    let lint = stdout_of(Command::new(&python).args(["-m", "skillsaw", "lint"]).arg(&registry));
    assert!(lint.contains("All checks passed"), "{lint}");
    let server: Value =
        serde_json::from_slice(&std::fs::read(registry.join("server.json")).unwrap()).unwrap();
    let kinds: Vec<&str> =
        server["packages"].as_array().unwrap().iter().map(|p| p["registryType"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["cargo", "pypi", "mcpb"]);
    let digest = stdout_of(Command::new("sha256sum").arg(&bundle));
    assert_eq!(server["packages"][2]["fileSha256"].as_str().unwrap(), digest.split(' ').next().unwrap());
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let name = server["name"].as_str().unwrap();
    assert!(readme.contains(&format!("mcp-name: {name}")), "the README names the registry entry {name}");
}

#[test]
fn cargo_install_from_the_checkout_still_works() {
    let root = tempfile::tempdir().unwrap();
    // The debug profile and this build's target folder: the install reuses the test build.
    stdout_of(
        Command::new(env!("CARGO"))
            .args(["install", "--quiet", "--debug", "--locked", "--path"])
            .arg(workspace().join("server"))
            .arg("--root")
            .arg(root.path())
            .arg("--target-dir")
            .arg(target()),
    );
    assert_eq!(stdout_of(Command::new(root.path().join("bin/tack")).arg("--version")).trim(), version());
}
