//! Finding the root and reading `tack.toml`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tack_tools::Config;

/// The git top level of the current directory, else the current directory.
pub fn default_root() -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(&cwd).to_path_buf())
}

/// The user's own configuration: `$XDG_CONFIG_HOME/tack/config.toml`, else
/// `~/.config/tack/config.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("tack").join("config.toml"))
}

/// Reads the user's configuration and then `tack.toml` at the root; no file means every default.
pub fn load(root: &Path) -> anyhow::Result<Config> {
    load_with(root, user_config_path().as_deref())
}

/// The user's configuration's list of repositories for `serve`.
const REPOSITORIES: &str = "repositories";

/// One of `[[repositories]]` in the user's configuration.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repository {
    /// Its root (`~/` is the home folder).
    pub root: PathBuf,
    /// Its name in calls (`repo=`); default, the root's folder name.
    #[serde(default)]
    pub name: Option<String>,
    /// An index bundle to start from when its store holds no index yet.
    #[serde(default)]
    pub bundle: Option<PathBuf>,
}

/// The repositories the user's configuration lists for `serve` (none when it lists none).
pub fn repositories() -> anyhow::Result<Vec<Repository>> {
    match user_config_path() {
        Some(path) => repositories_in(&path),
        None => Ok(Vec::new()),
    }
}

/// [`repositories`] from the configuration at `path`.
fn repositories_in(path: &Path) -> anyhow::Result<Vec<Repository>> {
    let Some(mut table) = read_table(path, Owner::User)? else { return Ok(Vec::new()) };
    let Some(list) = take(&mut table, "", REPOSITORIES) else { return Ok(Vec::new()) };
    let mut listed: Vec<Repository> = list.try_into().with_context(|| {
        format!(
            "{}: [[repositories]] entries take root = \"DIR\", and optionally name = \"NAME\" and bundle = \"FILE\"",
            path.display()
        )
    })?;
    fn expand(path: &Path) -> PathBuf {
        path.to_str().map_or_else(|| path.to_path_buf(), home_relative)
    }
    for entry in &mut listed {
        entry.root = expand(&entry.root);
        entry.bundle = entry.bundle.as_deref().map(expand);
    }
    Ok(listed)
}

/// Settings that loosen safety: only the user's configuration (or the command line) sets them.
/// A repository's `[run] deny` adds rules; the user's replaces the defaults.
const USER_ONLY: &[(&str, &str, Option<&str>)] = &[
    ("run", "pass_env", Some("--pass-env NAME")),
    ("run", "network", Some("--allow-network")),
    ("run", "writable", Some("--writable PATH")),
    ("run", "readable", Some("--readable PATH")),
    ("run", "unreadable", None),
    ("", "allow_protected_writes", Some("--allow-protected-writes")),
    // A repository raising it could have the writing tools fill the disk and the memory.
    ("edit", "max_file_bytes", None),
];

/// [`load`] with the user's configuration at `user` (`None`: there is none).
pub fn load_with(root: &Path, user: Option<&Path>) -> anyhow::Result<Config> {
    let mut user_table = match user {
        Some(path) => read_table(path, Owner::User)?.unwrap_or_default(),
        None => toml::Table::new(),
    };
    let repo_path = root.join("tack.toml");
    let mut repo_table = read_table(&repo_path, Owner::Repository { root })?.unwrap_or_default();

    // `serve`'s repositories are read by `repositories`, not by a workspace.
    take(&mut user_table, "", REPOSITORIES);
    let user_deny = take(&mut user_table, "run", "deny");
    let pass_env = take(&mut user_table, "run", "pass_env");
    let network = take(&mut user_table, "run", "network");
    let writable = take(&mut user_table, "run", "writable");
    let readable = take(&mut user_table, "run", "readable");
    let unreadable = take(&mut user_table, "run", "unreadable");
    let protected = take(&mut user_table, "", "allow_protected_writes");
    let mut refused = Vec::new();
    for (section, key, flag) in USER_ONLY {
        if take(&mut repo_table, section, key).is_some() {
            let name = if section.is_empty() { key.to_string() } else { format!("[{section}] {key}") };
            refused.push(name.clone());
            tracing::warn!(
                "{}: {name} is ignored: a repository may not loosen what tack's tools may do; set it in {}{}",
                repo_path.display(),
                user.map_or("the user's config".into(), |p| p.display().to_string()),
                flag.map(|flag| format!(" or pass tack serve {flag}")).unwrap_or_default()
            );
        }
    }
    // Redaction the user turned on stays on, whatever the repository says.
    let user_redacts = matches!(
        user_table.get("output").and_then(|o| o.get("redact_secrets")),
        Some(toml::Value::Boolean(true))
    );
    let repo_deny = take(&mut repo_table, "run", "deny");
    if let Some(toml::Value::Array(rules)) = &repo_deny
        && rules.is_empty()
    {
        refused.push("[run] deny = []".into());
        tracing::warn!(
            "{}: [run] deny = [] removes nothing: a repository's deny rules add to the user's (or the defaults)",
            repo_path.display()
        );
    }

    // Each file must be valid on its own, so an error names the file it is in.
    let parse = |table: &toml::Table, path: &Path| -> anyhow::Result<Config> {
        toml::Value::Table(table.clone())
            .try_into()
            .with_context(|| format!("{} is not a valid tack configuration", path.display()))
    };
    if let Some(path) = user {
        parse(&user_table, path)?;
    }
    let mut merged = user_table;
    merge(&mut merged, repo_table);
    let mut config = parse(&merged, &repo_path)?;

    let rules = |value: Option<toml::Value>, path: &Path| -> anyhow::Result<Option<Vec<String>>> {
        value
            .map(|v| {
                v.try_into()
                    .with_context(|| format!("{}: [run] deny must be a list of regexes", path.display()))
            })
            .transpose()
    };
    let user_path = user.unwrap_or(&repo_path);
    if let Some(deny) = rules(user_deny, user_path)? {
        config.run.deny = deny;
    }
    config.run.deny.extend(rules(repo_deny, &repo_path)?.unwrap_or_default());
    config.run.pass_env = pass_env
        .map(|v| v.try_into())
        .transpose()
        .with_context(|| format!("{}: [run] pass_env must be a list of names", user_path.display()))?
        .unwrap_or_default();
    config.run.network = matches!(network, Some(toml::Value::Boolean(true)));
    let writable: Vec<String> = writable
        .map(|v| v.try_into())
        .transpose()
        .with_context(|| format!("{}: [run] writable must be a list of folders", user_path.display()))?
        .unwrap_or_default();
    config.run.writable = writable.iter().map(|path| home_relative(path)).collect();
    let paths = |value: Option<toml::Value>, key: &str| -> anyhow::Result<Vec<PathBuf>> {
        let paths: Vec<String> = value
            .map(|v| v.try_into())
            .transpose()
            .with_context(|| format!("{}: [run] {key} must be a list of paths", user_path.display()))?
            .unwrap_or_default();
        Ok(paths.iter().map(|path| home_relative(path)).collect())
    };
    config.run.readable = paths(readable, "readable")?;
    config.run.unreadable = paths(unreadable, "unreadable")?;
    config.allow_protected_writes = matches!(protected, Some(toml::Value::Boolean(true)));
    config.output.redact_secrets |= user_redacts;
    config.refused = refused;
    Ok(config)
}

/// `path` with a leading `~/` read as the user's home folder.
fn home_relative(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The most tack reads of a configuration file; the largest real ones are a few kilobytes.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Whose configuration file is read: the user's own, or the repository's (which may be
/// anything a commit can hold).
#[derive(Clone, Copy)]
enum Owner<'a> {
    User,
    Repository { root: &'a Path },
}

/// The table in `path`, `None` when there is no such file. Only a regular file up to
/// [`MAX_CONFIG_BYTES`] is read, never blocking: a repository's `tack.toml` that is a FIFO, a
/// device, a link leading out of the root or too big is left out with a warning (as if
/// absent); the user's own config in such a state is an error, as its settings may be ones
/// the user relies on.
fn read_table(path: &Path, owner: Owner<'_>) -> anyhow::Result<Option<toml::Table>> {
    let within = match owner {
        Owner::User => None,
        Owner::Repository { root } => Some(root.canonicalize().unwrap_or_else(|_| root.to_path_buf())),
    };
    let bytes = match tack_indexer::read_bounded(path, MAX_CONFIG_BYTES, within.as_deref()) {
        Ok(None) => return Ok(None),
        Ok(Some(bytes)) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::InvalidData => match owner {
            Owner::Repository { .. } => {
                tracing::warn!("{}: not read, so its settings do not apply: {err}", path.display());
                return Ok(None);
            }
            Owner::User => anyhow::bail!("cannot read {}: {err}", path.display()),
        },
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))?;
    toml::from_str(&text)
        .map(Some)
        .with_context(|| format!("{} is not a valid tack configuration", path.display()))
}

/// Removes `key` from `[section]` (the top level when `section` is empty).
fn take(table: &mut toml::Table, section: &str, key: &str) -> Option<toml::Value> {
    if section.is_empty() {
        return table.remove(key);
    }
    match table.get_mut(section) {
        Some(toml::Value::Table(inner)) => inner.remove(key),
        _ => None,
    }
}

/// `over` laid on `base`: tables merge key by key, anything else replaces.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(value)) => merge(inner, value),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_repositories_are_read_for_serve_and_left_out_of_each_workspaces_config() {
        let user = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let path = user.path().join("config.toml");
        std::fs::write(
            &path,
            "[output]\nstructured = true\n\n[[repositories]]\nroot = \"/srv/a\"\n\n[[repositories]]\nroot = \"/srv/b\"\nname = \"web\"\nbundle = \"/cache/b.tackbundle\"\n",
        )
        .unwrap();
        let listed = repositories_in(&path).unwrap();
        assert_eq!(
            listed,
            vec![
                Repository { root: "/srv/a".into(), name: None, bundle: None },
                Repository {
                    root: "/srv/b".into(),
                    name: Some("web".into()),
                    bundle: Some("/cache/b.tackbundle".into())
                },
            ]
        );
        let config = load_with(repo.path(), Some(&path)).unwrap();
        assert!(config.output.structured, "the rest of the user's config still applies");
        // A misspelt key is named, not ignored.
        std::fs::write(&path, "[[repositories]]\nroot = \"/srv/a\"\nbundel = \"x\"\n").unwrap();
        let err = format!("{:#}", repositories_in(&path).unwrap_err());
        assert!(err.contains("[[repositories]] entries take root") && err.contains("bundel"), "{err}");
        // A repository's own tack.toml may not list repositories.
        std::fs::write(repo.path().join("tack.toml"), "[[repositories]]\nroot = \"/\"\n").unwrap();
        assert!(load_with(repo.path(), None).is_err());
    }

    #[test]
    fn missing_file_means_defaults_and_settings_override_them() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_with(dir.path(), None).unwrap(), Config::default());
        std::fs::write(dir.path().join("tack.toml"), "[output]\nmax_tokens = 2000\n[run]\ntimeout_s = 30\n")
            .unwrap();
        let config = load_with(dir.path(), None).unwrap();
        assert_eq!(config.output.max_tokens, 2000);
        assert_eq!(config.run.timeout_s, 30);
        assert_eq!(config.run.deny, Config::default().run.deny, "unset keys keep their defaults");
    }

    #[test]
    fn a_repository_config_that_is_no_small_regular_file_is_left_out_and_the_users_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let repo_file = dir.path().join("tack.toml");
        // Valid settings past the bound: read whole before, they would apply.
        let big = format!("[output]\nmax_tokens = 2000\n{}", "# padding\n".repeat(120_000));
        std::fs::write(&repo_file, big).unwrap();
        assert_eq!(load_with(dir.path(), None).unwrap(), Config::default());
        // A link to an endless device: before, reading it took gigabytes and aborted.
        std::fs::remove_file(&repo_file).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &repo_file).unwrap();
        assert_eq!(load_with(dir.path(), None).unwrap(), Config::default());
        // The user's own config as a FIFO is an error that says what it is, without blocking.
        std::fs::remove_file(&repo_file).unwrap();
        let user = dir.path().join("config.toml");
        rustix::fs::mkfifoat(rustix::fs::CWD, &user, rustix::fs::Mode::from(0o600)).unwrap();
        let err = format!("{:#}", load_with(dir.path(), Some(&user)).unwrap_err());
        assert!(err.contains("config.toml: it is a FIFO (named pipe)"), "{err}");
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
        let output = load_with(dir.path(), None).unwrap().output;
        assert!(output.structured);
        assert_eq!(output.context_window, Some(32_000));
        assert_eq!(output.clients["codex-mcp-client"].max_bytes, Some(47_000));
        assert_eq!(output.max_tokens, 10_000, "unset keys keep their defaults");
        std::fs::write(dir.path().join("tack.toml"), "[output.clients.x]\nmax_lines = 3\n").unwrap();
        let err = format!("{:#}", load_with(dir.path(), None).unwrap_err());
        assert!(err.contains("max_lines"), "{err}");
    }

    #[test]
    fn a_repository_adds_deny_rules_and_only_the_user_replaces_or_loosens() {
        let repo = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        let user_file = user.path().join("config.toml");
        let defaults = Config::default().run.deny;
        std::fs::write(repo.path().join("tack.toml"), "allow_protected_writes = true\n[run]\ndeny = []\n")
            .unwrap();
        let config = load_with(repo.path(), Some(&user_file)).unwrap();
        assert_eq!(config.run.deny, defaults, "deny = [] in a repository removes nothing");
        assert!(!config.allow_protected_writes);
        assert_eq!(config.refused, ["allow_protected_writes", "[run] deny = []"]);

        std::fs::write(repo.path().join("tack.toml"), "[run]\ndeny = ['\\bmake\\s+deploy']\n").unwrap();
        let config = load_with(repo.path(), Some(&user_file)).unwrap();
        assert_eq!(config.run.deny.len(), defaults.len() + 1, "a repository's rule is added");
        assert_eq!(config.run.deny[..defaults.len()], defaults[..]);

        std::fs::write(
            &user_file,
            "allow_protected_writes = true\n[run]\ndeny = []\npass_env = [\"GITHUB_TOKEN\"]\nnetwork = true\n\
             writable = [\"~/.cache/pip\", \"/opt/shared\"]\nreadable = [\"~/.npmrc\"]\nunreadable = [\"/srv/keys\"]\n\
             [output]\nmax_tokens = 4000\n",
        )
        .unwrap();
        let config = load_with(repo.path(), Some(&user_file)).unwrap();
        assert_eq!(config.run.deny.len(), 1, "the user replaced the defaults; the repository's rule stays");
        assert_eq!(config.run.pass_env, ["GITHUB_TOKEN"]);
        assert!(config.run.network && config.allow_protected_writes);
        let home = PathBuf::from(std::env::var_os("HOME").unwrap());
        assert_eq!(config.run.writable, [home.join(".cache/pip"), PathBuf::from("/opt/shared")]);
        assert_eq!(config.run.readable, [home.join(".npmrc")]);
        assert_eq!(config.run.unreadable, [PathBuf::from("/srv/keys")]);
        assert_eq!(config.output.max_tokens, 4_000, "the user's other settings apply");

        std::fs::write(repo.path().join("tack.toml"), "[output]\nmax_tokens = 2000\n").unwrap();
        assert_eq!(
            load_with(repo.path(), Some(&user_file)).unwrap().output.max_tokens,
            2_000,
            "the repository's win"
        );
        std::fs::write(&user_file, "[run]\ntimeout = 3\n").unwrap();
        let err = format!("{:#}", load_with(repo.path(), Some(&user_file)).unwrap_err());
        assert!(err.contains("config.toml") && err.contains("timeout"), "{err}");
    }

    #[test]
    fn a_repository_cannot_pass_credentials_to_commands() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tack.toml"),
            "[run]\npass_env = [\"GITHUB_TOKEN\"]\nnetwork = true\nwritable = [\"/\"]\nreadable = [\"/\"]\ntimeout_s = 30\n",
        )
        .unwrap();
        let config = load_with(dir.path(), None).unwrap();
        assert!(config.run.pass_env.is_empty() && !config.run.network, "ignored, with a warning");
        assert!(config.run.writable.is_empty(), "a repository cannot open the whole disk to writes");

        std::fs::write(dir.path().join("tack.toml"), "[output]\nredact_secrets = true\n").unwrap();
        assert!(load_with(dir.path(), None).unwrap().output.redact_secrets, "a repository may add redaction");
        let user = dir.path().join("user.toml");
        std::fs::write(&user, "[output]\nredact_secrets = true\n").unwrap();
        std::fs::write(dir.path().join("tack.toml"), "[output]\nredact_secrets = false\n").unwrap();
        assert!(
            load_with(dir.path(), Some(&user)).unwrap().output.redact_secrets,
            "and not take the user's away"
        );
        assert!(config.run.readable.is_empty(), "a repository cannot open the user's credentials");
        assert_eq!(config.refused, ["[run] pass_env", "[run] network", "[run] writable", "[run] readable"]);
        assert_eq!(config.run.timeout_s, 30, "the rest still applies");
    }

    #[test]
    fn an_unknown_key_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tack.toml"), "[run]\ntimeout = 30\n").unwrap();
        let err = format!("{:#}", load_with(dir.path(), None).unwrap_err());
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
        let config = load_with(dir.path(), None).unwrap();
        assert_eq!(config.verify.timeout_s, 60);
        assert_eq!(config.verify.checks[0].command, "pytest -q");
        assert_eq!(config.verify.checks[0].format, None);
        assert_eq!(
            (config.stall.repeats, config.stall.edits_per_file, config.stall.reads_without_edit),
            (4, 5, 8)
        );
        std::fs::write(dir.path().join("tack.toml"), "[[verify.checks]]\nname = \"t\"\ncmd = \"x\"\n")
            .unwrap();
        let err = format!("{:#}", load_with(dir.path(), None).unwrap_err());
        assert!(err.contains("cmd"), "{err}");
    }
}
