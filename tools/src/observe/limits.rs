//! How big one result may be for the client and model at hand: tack's own cap, an eighth of a
//! small model's context window, and the limit past which a known client cuts or diverts a
//! tool result itself (measured on the real binaries; BENCHMARKS.md says how).

use crate::observe::shape::Budget;
use crate::workspace::config::{ClientLimit, OutputConfig};

/// What each known client does to a long tool result, by `clientInfo.name`. Each limit is a
/// little under the measured one, for the lines tack appends after shaping (a stall nudge,
/// the gate's verdict).
const KNOWN_CLIENTS: &[(&str, ClientLimit)] = &[
    // Codex 0.171.0 keeps the first and last 5,982 bytes of a result over 11,964 bytes (with
    // a model it has no metadata for; 47,964 with gpt-5.5) and drops the middle, where tack's
    // marker and handle sit.
    (
        "codex-mcp-client",
        ClientLimit { max_tokens: None, max_chars: None, max_bytes: Some(11_400), max_error_chars: None },
    ),
    // Claude Code 2.1.332 replaces a result over 50,000 characters with a 2 KB preview and a
    // file path, refuses one over MAX_MCP_OUTPUT_TOKENS (25,000), and cuts the middle of an
    // error over 11,024 characters.
    (
        "claude-code",
        ClientLimit {
            max_tokens: Some(25_000),
            max_chars: Some(49_000),
            max_bytes: None,
            max_error_chars: Some(10_500),
        },
    ),
];

/// Lines `read_file` shows, and files `search` lists, when the call names no count and the
/// window does not call for less.
const READ_LINES: u64 = 100;
const SEARCH_LIMIT: u64 = 10;
/// `context`'s budget in tokens when the call names none.
const CONTEXT_TOKENS: u64 = 2_000;

/// The smallest cap in tokens that still leaves room for a useful result.
pub const MIN_TOKENS: usize = 500;
/// The smallest cap in characters or bytes.
const MIN_LENGTH: usize = 2_000;

/// What one call may send back, and the defaults sized to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The cap a result's text must fit.
    pub budget: Budget,
    /// The cap a failure's text must fit (some clients cut errors sooner).
    pub error_budget: Budget,
    /// `read_file`'s default line count.
    pub read_lines: u64,
    /// `search`'s default number of files.
    pub search_limit: u64,
    /// `context`'s default budget in tokens.
    pub context_tokens: u64,
}

impl Limits {
    /// The limits for a call from `client` (its `clientInfo.name`, when known) under `output`.
    pub fn new(output: &OutputConfig, client: Option<&str>) -> Self {
        let mut tokens = output.max_tokens;
        let (mut read_lines, mut search_limit) = (READ_LINES, SEARCH_LIMIT);
        let mut context_tokens = CONTEXT_TOKENS;
        if let Some(window) = output.context_window {
            let share = (window / 8).max(MIN_TOKENS);
            tokens = tokens.min(share);
            // About 40 tokens a numbered line of code, 400 a file of search hits.
            read_lines = (share as u64 / 40).clamp(20, READ_LINES);
            search_limit = (share as u64 / 400).clamp(3, SEARCH_LIMIT);
            // Half the share: a task's code beside what the agent reads next.
            context_tokens = (share as u64 / 2).min(context_tokens);
        }
        let limit = client
            .and_then(|name| {
                output.clients.get(name).copied().or_else(|| {
                    KNOWN_CLIENTS.iter().find(|(known, _)| *known == name).map(|(_, limit)| *limit)
                })
            })
            .unwrap_or_default();
        if let Some(max) = limit.max_tokens {
            tokens = tokens.min(max.max(MIN_TOKENS));
        }
        let length = |limit: Option<usize>| limit.map(|l| l.max(MIN_LENGTH));
        let budget = Budget { tokens, chars: length(limit.max_chars), bytes: length(limit.max_bytes) };
        let error_chars = match (budget.chars, length(limit.max_error_chars)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Self {
            budget,
            error_budget: Budget { chars: error_chars, ..budget },
            read_lines,
            search_limit,
            context_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(
        output: &OutputConfig,
        client: Option<&str>,
    ) -> (usize, Option<usize>, Option<usize>, u64, u64) {
        let l = Limits::new(output, client);
        (l.budget.tokens, l.budget.chars, l.budget.bytes, l.read_lines, l.search_limit)
    }

    #[test]
    fn each_known_client_gets_its_own_limit_and_others_get_tacks() {
        let output = OutputConfig::default();
        assert_eq!(limits(&output, None), (10_000, None, None, 100, 10));
        assert_eq!(limits(&output, Some("some-client")), (10_000, None, None, 100, 10));
        assert_eq!(limits(&output, Some("codex-mcp-client")), (10_000, None, Some(11_400), 100, 10));
        assert_eq!(limits(&output, Some("claude-code")), (10_000, Some(49_000), None, 100, 10));
        let big = OutputConfig { max_tokens: 40_000, ..OutputConfig::default() };
        assert_eq!(limits(&big, Some("claude-code")).0, 25_000);
        let claude = Limits::new(&output, Some("claude-code"));
        assert_eq!(claude.error_budget.chars, Some(10_500), "Claude Code cuts long errors sooner");
        assert_eq!(Limits::new(&output, None).error_budget, Budget::tokens(10_000));
    }

    #[test]
    fn a_small_window_scales_the_cap_and_the_defaults() {
        let small = |window| OutputConfig { context_window: Some(window), ..OutputConfig::default() };
        assert_eq!(limits(&small(32_000), None), (4_000, None, None, 100, 10));
        assert_eq!(limits(&small(16_000), None), (2_000, None, None, 50, 5));
        assert_eq!(limits(&small(8_000), Some("codex-mcp-client")), (1_000, None, Some(11_400), 25, 3));
        assert_eq!(limits(&small(1_000), None).0, MIN_TOKENS, "never below the smallest useful cap");
        // `context`'s budget: 2,000 tokens unless half an eighth of the window is less.
        assert_eq!(Limits::new(&OutputConfig::default(), None).context_tokens, 2_000);
        assert_eq!(Limits::new(&small(32_000), None).context_tokens, 2_000);
        assert_eq!(Limits::new(&small(16_000), None).context_tokens, 1_000);
    }

    #[test]
    fn tack_toml_overrides_a_known_client() {
        let mut output = OutputConfig::default();
        let bytes = ClientLimit { max_bytes: Some(47_000), ..ClientLimit::default() };
        output.clients.insert("codex-mcp-client".into(), bytes);
        output
            .clients
            .insert("mine".into(), ClientLimit { max_tokens: Some(3_000), ..ClientLimit::default() });
        assert_eq!(limits(&output, Some("codex-mcp-client")).2, Some(47_000));
        assert_eq!(limits(&output, Some("mine")).0, 3_000);
    }
}
