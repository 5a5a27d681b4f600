//! The official MCP Python SDK (`mcp` on PyPI) drives the real binary: stdio and HTTP, legacy
//! handshake and 2026-07-28 discovery, text only by default and with `--structured`. The SDK is installed into a venv under `target/` on
//! first use, so `cargo test` needs nothing set up by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use tack_tests::{python_with, sample_repo, tack_binary, test_cache_home};

/// The SDK version the interop test is written against.
const MCP_SDK: &str = "mcp==2.3.0";

fn python_with_sdk() -> PathBuf {
    python_with(&[("mcp", MCP_SDK)])
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
    for transport in ["stdio-legacy", "stdio-auto", "http-legacy", "http-auto"] {
        for label in [transport.to_string(), format!("{transport}-structured")] {
            assert!(stdout.contains(&format!("ok {label}:")), "{label} did not run\n{stdout}");
        }
    }
}
