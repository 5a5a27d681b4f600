//! Settings from `tack.toml`; every field has a default, so no file at all is a valid setup.

use serde::Deserialize;

/// The whole configuration. The server reads `tack.toml` at the root into this.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub output: OutputConfig,
    pub run: RunConfig,
    /// Extra ignore globs (gitignore syntax), on top of `.gitignore` files.
    pub ignore: Vec<String>,
}

/// `[output]`: how big one result may be.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// The cap on one result's text, in tokens.
    pub max_tokens: usize,
}

impl Default for OutputConfig {
    fn default() -> Self {
        Self { max_tokens: 10_000 }
    }
}

/// `[run]`: the shell tool's limits.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Regular expressions; a command matching any of them is refused before it runs.
    pub deny: Vec<String>,
    /// The timeout when a call gives none, in seconds.
    pub timeout_s: u64,
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
        Self { deny: DEFAULT_DENY.iter().map(|s| s.to_string()).collect(), timeout_s: 120 }
    }
}
