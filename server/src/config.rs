//! Finding the root and reading `tack.toml`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tack_tools::Config;

/// The git top level of the current directory, else the current directory.
pub fn default_root() -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(&cwd).to_path_buf())
}

/// Reads `tack.toml` at the root; no file means every default.
pub fn load(root: &Path) -> anyhow::Result<Config> {
    let path = root.join("tack.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid tack configuration", path.display()))?;
    // A repository may not loosen safety: what only the user may set is dropped, with a word.
    if let Some(toml::Value::Table(run)) = table.get_mut("run") {
        for (key, flag) in [("pass_env", "--pass-env NAME"), ("network", "--allow-network")] {
            if run.remove(key).is_some() {
                tracing::warn!(
                    "{}: [run] {key} is ignored (a repository may not loosen what commands may do); use tack serve {flag}",
                    path.display()
                );
            }
        }
    }
    toml::Value::Table(table)
        .try_into()
        .with_context(|| format!("{} is not a valid tack configuration", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_means_defaults_and_settings_override_them() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), Config::default());
        std::fs::write(dir.path().join("tack.toml"), "[output]\nmax_tokens = 2000\n[run]\ntimeout_s = 30\n")
            .unwrap();
        let config = load(dir.path()).unwrap();
        assert_eq!(config.output.max_tokens, 2000);
        assert_eq!(config.run.timeout_s, 30);
        assert_eq!(config.run.deny, Config::default().run.deny, "unset keys keep their defaults");
    }

    #[test]
    fn output_form_window_and_client_limits_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tack.toml"),
            "[output]\nstructured = true\ncontext_window = 32000\n\
             [output.clients.codex-mcp-client]\nmax_bytes = 47000\n",
        )
        .unwrap();
        let output = load(dir.path()).unwrap().output;
        assert!(output.structured);
        assert_eq!(output.context_window, Some(32_000));
        assert_eq!(output.clients["codex-mcp-client"].max_bytes, Some(47_000));
        assert_eq!(output.max_tokens, 10_000, "unset keys keep their defaults");
        std::fs::write(dir.path().join("tack.toml"), "[output.clients.x]\nmax_lines = 3\n").unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(err.contains("max_lines"), "{err}");
    }

    #[test]
    fn a_repository_cannot_pass_credentials_to_commands() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tack.toml"),
            "[run]\npass_env = [\"GITHUB_TOKEN\"]\nnetwork = true\ntimeout_s = 30\n",
        )
        .unwrap();
        let config = load(dir.path()).unwrap();
        assert!(config.run.pass_env.is_empty() && !config.run.network, "ignored, with a warning");
        assert_eq!(config.run.timeout_s, 30, "the rest still applies");
    }

    #[test]
    fn an_unknown_key_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tack.toml"), "[run]\ntimeout = 30\n").unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(err.contains("timeout"), "{err}");
        assert!(err.contains("tack.toml"), "{err}");
    }

    #[test]
    fn verify_checks_and_stall_thresholds_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tack.toml"),
            "[verify]\ntimeout_s = 60\n[[verify.checks]]\nname = \"tests\"\ncommand = \"pytest -q\"\n\
             [stall]\nrepeats = 4\n",
        )
        .unwrap();
        let config = load(dir.path()).unwrap();
        assert_eq!(config.verify.timeout_s, 60);
        assert_eq!(config.verify.checks[0].command, "pytest -q");
        assert_eq!(config.verify.checks[0].format, None);
        assert_eq!(
            (config.stall.repeats, config.stall.edits_per_file, config.stall.reads_without_edit),
            (4, 5, 8)
        );
        std::fs::write(dir.path().join("tack.toml"), "[[verify.checks]]\nname = \"t\"\ncmd = \"x\"\n")
            .unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(err.contains("cmd"), "{err}");
    }
}
