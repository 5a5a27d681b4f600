//! The official MCP Python SDK (`mcp` on PyPI) drives the real binary: stdio and HTTP, legacy
//! handshake and 2026-07-28 discovery. The SDK is installed into a venv under `target/` on
//! first use, so `cargo test` needs nothing set up by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use tack_tests::{sample_repo, tack_binary, test_cache_home};

/// The SDK version the interop test is written against.
const MCP_SDK: &str = "mcp==2.3.0";

fn python_with_sdk() -> PathBuf {
    if let Ok(python) = std::env::var("TACK_PYTHON") {
        return PathBuf::from(python);
    }
    let target = tack_binary().parent().and_then(Path::parent).expect("target dir");
    let venv = target.join("interop-venv");
    let python = venv.join("bin/python");
    let has_sdk = |python: &Path| {
        Command::new(python).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success())
    };
    if !has_sdk(&python) {
        let made = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().expect("python3 runs");
        assert!(made.success(), "python3 -m venv {} failed", venv.display());
        let installed = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", MCP_SDK])
            .status()
            .expect("pip runs");
        assert!(installed.success(), "pip install {MCP_SDK} failed");
    }
    assert!(has_sdk(&python), "the MCP Python SDK is not importable from {}", python.display());
    python
}

#[test]
fn python_sdk_lists_and_calls_over_stdio_and_http() {
    let python = python_with_sdk();
    let repo = sample_repo();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("py/interop.py");
    let output = Command::new(python)
        .arg(script)
        .arg(tack_binary())
        .arg(repo.path())
        .env("TACK_LOG", "warn")
        .env("XDG_CACHE_HOME", test_cache_home())
        .output()
        .expect("the interop script runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "interop failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    for label in ["stdio-legacy", "stdio-auto", "http-legacy", "http-auto"] {
        assert!(stdout.contains(&format!("ok {label}:")), "{label} did not run\n{stdout}");
    }
}
