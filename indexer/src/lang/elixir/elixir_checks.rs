//! Which checks an Elixir project declares: a Mix project's `mix test`, read from ExUnit's
//! report.

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// A `mix.exs`: `mix test`, with Mix's and Hex's homes (`MIX_HOME`, `HEX_HOME`, else `~/.mix`
/// and `~/.hex`) writable, as Mix keeps its archives and package cache there.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    if !dir.join("mix.exs").is_file() {
        return Vec::new();
    }
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = env("HOME");
    let mix = env("MIX_HOME").or_else(|| home.as_ref().map(|h| h.join(".mix")));
    let hex = env("HEX_HOME").or_else(|| home.as_ref().map(|h| h.join(".hex")));
    vec![ProjectCheck {
        name: "mix test".into(),
        command: "mix test".into(),
        format: "exunit",
        caches: mix.into_iter().chain(hex).collect(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mix_project_declares_mix_test() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("test")).unwrap();
        std::fs::write(dir.path().join("test/cart_test.exs"), "").unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("mix.exs"), "defmodule Shop.MixProject do\nend\n").unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].command.as_str(), found[0].format), ("mix test", "exunit"));
    }
}
