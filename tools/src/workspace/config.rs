//! Settings from `tack.toml`; every field has a default, so no file at all is a valid setup.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The whole configuration. The server reads `tack.toml` at the root into this.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub output: OutputConfig,
    pub run: RunConfig,
    pub verify: VerifyConfig,
    pub stall: StallConfig,
    pub edit: EditConfig,
    /// Extra ignore globs (gitignore syntax), on top of `.gitignore` files.
    pub ignore: Vec<String>,
    /// Let the writing tools change `tack.toml` and `.git/`. Only the user's configuration
    /// sets it (`allow_protected_writes = true`), or `tack serve --allow-protected-writes`.
    #[serde(skip)]
    pub allow_protected_writes: bool,
    /// What the repository's `tack.toml` tried to loosen and was ignored: the instructions
    /// name it, so the model knows it is not in effect.
    #[serde(skip)]
    pub refused: Vec<String>,
}

/// `[output]`: how big one result may be, and in what form it goes out.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// The cap on one result's text, in tokens.
    pub max_tokens: usize,
    /// Send `structuredContent` (and list output schemas) beside the text. Off by default,
    /// because Claude Code and Codex then hand their model only the JSON and drop the text.
    pub structured: bool,
    /// The model's context window in tokens, for small models: no single result takes more
    /// than an eighth of it, and `read_file` and `search` default to less.
    pub context_window: Option<usize>,
    /// Per-client limits by `clientInfo.name`, replacing the measured ones tack knows.
    pub clients: BTreeMap<String, ClientLimit>,
    /// Replace secrets in every result with `[redacted: KIND]` (`redact.rs`). A repository may
    /// turn it on; once the user's config or the command line has, a repository cannot turn it off.
    pub redact_secrets: bool,
}

impl Default for OutputConfig {
    fn default() -> Self {
        Self {
            max_tokens: 10_000,
            structured: false,
            context_window: None,
            clients: BTreeMap::new(),
            redact_secrets: false,
        }
    }
}

/// `[output.clients.NAME]`: how much one tool result may hold before that client cuts or
/// diverts it. Each limit is enforced in its own unit: tokens, characters (UTF-16 code units,
/// as JavaScript counts them) or UTF-8 bytes; `max_error_chars` applies to failures only.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct ClientLimit {
    pub max_tokens: Option<usize>,
    pub max_chars: Option<usize>,
    pub max_bytes: Option<usize>,
    pub max_error_chars: Option<usize>,
}

/// `[run]`: the shell tool's limits.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Regular expressions; a command matching any of them is refused before it runs.
    pub deny: Vec<String>,
    /// The timeout when a call gives none, in seconds.
    pub timeout_s: u64,
    /// Credential-like environment variables commands may still see. Not read from a
    /// repository's `tack.toml` (a repository may not loosen safety): `tack serve --pass-env`.
    #[serde(skip)]
    pub pass_env: Vec<String>,
    /// Let commands reach the network (they get only their own loopback otherwise, where the
    /// kernel allows it). Not read from a repository's `tack.toml`: `tack serve --allow-network`.
    #[serde(skip)]
    pub network: bool,
    /// Folders commands may write to besides the root and their scratch folder (`TMPDIR`),
    /// where Landlock confines them. Not read from a repository's `tack.toml`:
    /// `tack serve --writable PATH`, or `[run] writable` in the user's config.
    #[serde(skip)]
    pub writable: Vec<std::path::PathBuf>,
    /// Files and folders commands see empty, besides the usual credential stores. Not read from
    /// a repository's `tack.toml`: `[run] unreadable` in the user's config.
    #[serde(skip)]
    pub unreadable: Vec<std::path::PathBuf>,
    /// Credential stores (and what is beneath a folder) commands may read after all. Not read
    /// from a repository's `tack.toml`: `tack serve --readable PATH`, or `[run] readable` in the
    /// user's config.
    #[serde(skip)]
    pub readable: Vec<std::path::PathBuf>,
}

/// Commands refused unless `tack.toml` says otherwise: destroying the filesystem, raising
/// privileges, publishing work, and piping a download into a shell.
pub const DEFAULT_DENY: &[&str] = &[
    r"\brm\s+(-\S+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-\S+\s+)*(/|/\*|~|\$HOME)(\s|$|;|&|\|)",
    r"(^|[\s;&|(`])sudo(\s|$)",
    r"\bgit(\s+-\S+(\s+[^-\s]\S*)?)*\s+push\b",
    r"\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b",
];

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            deny: DEFAULT_DENY.iter().map(|s| s.to_string()).collect(),
            timeout_s: 120,
            pass_env: Vec::new(),
            network: false,
            writable: Vec::new(),
            unreadable: Vec::new(),
            readable: Vec::new(),
        }
    }
}

/// `[verify]`: the checks `verify` runs. With no `checks`, they are detected from the
/// repository (pytest, `cargo test`, a configured linter).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct VerifyConfig {
    /// The checks, in order; empty means detect them.
    pub checks: Vec<CheckConfig>,
    /// The timeout of each check when it gives none, in seconds.
    pub timeout_s: u64,
}

impl Default for VerifyConfig {
    fn default() -> Self {
        Self { checks: Vec::new(), timeout_s: 600 }
    }
}

/// `[[verify.checks]]`: one command and how to read its output.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// A short name shown in results, such as `tests` or `lint`.
    pub name: String,
    /// The command line, run with `sh -c` in the repository root.
    pub command: String,
    /// How to parse its output: `pytest`, `cargo-test`, `nextest`, `diagnostics` (ruff, flake8,
    /// clippy, rustc) or `plain`; guessed from the command when absent.
    #[serde(default)]
    pub format: Option<String>,
    /// This check's timeout, in seconds.
    #[serde(default)]
    pub timeout_s: Option<u64>,
}

/// `[edit]`: what the writing tools (`edit_file`, `apply_patch`, `write_file`,
/// `replace_symbol`) may write.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EditConfig {
    /// The largest file a write may leave, in bytes, unless the file was already larger (a
    /// write that does not grow it still works). Only the user's configuration raises it.
    pub max_file_bytes: u64,
}

/// 16 MiB: far above any source file, and small enough that the server's memory for one
/// write (the result, its copy on disk, the syntax check) stays in the tens of megabytes.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

impl Default for EditConfig {
    fn default() -> Self {
        Self { max_file_bytes: DEFAULT_MAX_FILE_BYTES }
    }
}

/// `[stall]`: when the stall detector nudges a session.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct StallConfig {
    /// The same call with the same result this many times in a row.
    pub repeats: u32,
    /// This many successful writes to one file.
    pub edits_per_file: u32,
    /// This many reads and searches in a row with no write.
    pub reads_without_edit: u32,
    /// The same failure (failing tests, or a command's first error line) from this many calls
    /// that differ.
    pub failure_repeats: u32,
}

impl Default for StallConfig {
    fn default() -> Self {
        Self { repeats: 3, edits_per_file: 5, reads_without_edit: 8, failure_repeats: 3 }
    }
}
