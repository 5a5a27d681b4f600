//! Observation shaping: token counting with a real tokenizer, and the head-and-tail cut that
//! keeps a result under the cap while naming what was left out.

use tiktoken_rs::o200k_base_singleton;

/// Lines longer than this many bytes are cut in a shaped view (the full text keeps them).
pub const LONG_LINE_BYTES: usize = 2_000;

/// Tokens reserved for the omission marker and the header a tool adds.
const MARKER_RESERVE: usize = 120;

/// Counts tokens with the `o200k_base` BPE, a real tokenizer that tracks what current
/// models see closely enough to budget by.
pub fn count_tokens(text: &str) -> usize {
    o200k_base_singleton().encode_ordinary(text).len()
}

/// Set once the tokenizer is loaded (by [`warm_tokenizer`]).
static TOKENIZER_READY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Loads the tokenizer on a background thread, so no call waits for it on behalf of the trace
/// (and a server, which calls it as it starts, has it loaded for its first map).
pub fn warm_tokenizer() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new().name("tack-tokenizer".into()).spawn(|| {
            o200k_base_singleton();
            TOKENIZER_READY.store(true, std::sync::atomic::Ordering::Release);
        });
    });
}

/// The token count when the tokenizer is already loaded, else `None` (loading it takes long
/// enough to delay a call that would not otherwise count).
pub fn count_tokens_if_ready(text: &str) -> Option<usize> {
    TOKENIZER_READY.load(std::sync::atomic::Ordering::Acquire).then(|| count_tokens(text))
}

/// Characters (or bytes) reserved for the omission marker when a limit is in characters.
const MARKER_RESERVE_CHARS: usize = 400;

/// How much one result may hold: tokens (tack's cap, or a client's token limit), and for a
/// client that cuts by length, characters (counted as UTF-16 code units, as JavaScript
/// clients count them) or UTF-8 bytes. Every limit given is enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub tokens: usize,
    pub chars: Option<usize>,
    pub bytes: Option<usize>,
}

impl Budget {
    /// A budget in tokens only.
    pub fn tokens(tokens: usize) -> Self {
        Self { tokens, chars: None, bytes: None }
    }

    /// The limit that binds, for a marker: `10000 tokens`, `49000 characters` or `11400 bytes`.
    pub fn describe(&self) -> String {
        // A token is about four characters of code or prose.
        let as_tokens = self.tokens.saturating_mul(4);
        match (self.chars, self.bytes) {
            (_, Some(bytes)) if bytes < as_tokens && self.chars.is_none_or(|c| bytes <= c) => {
                format!("{bytes} bytes")
            }
            (Some(chars), _) if chars < as_tokens => format!("{chars} characters"),
            _ => format!("{} tokens", self.tokens),
        }
    }

    /// What each limit leaves for the text once the marker has its share.
    fn room(self) -> Cost {
        let less = |limit: Option<usize>| {
            limit.map_or(usize::MAX, |c| c.saturating_sub(MARKER_RESERVE_CHARS).max(256))
        };
        Cost {
            tokens: self.tokens.saturating_sub(MARKER_RESERVE).max(64),
            chars: less(self.chars),
            bytes: less(self.bytes),
        }
    }
}

/// Characters as JavaScript counts them (UTF-16 code units).
pub fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// What a piece of text costs against each limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Cost {
    tokens: usize,
    chars: usize,
    bytes: usize,
}

impl Cost {
    fn of(text: &str) -> Self {
        Self { tokens: count_tokens(text), chars: utf16_len(text), bytes: text.len() }
    }

    fn plus(self, other: Cost) -> Self {
        Self {
            tokens: self.tokens + other.tokens,
            chars: self.chars + other.chars,
            bytes: self.bytes + other.bytes,
        }
    }

    fn within(self, limit: Cost) -> bool {
        self.tokens <= limit.tokens && self.chars <= limit.chars && self.bytes <= limit.bytes
    }

    fn half(self) -> Self {
        Self { tokens: self.tokens / 2, chars: self.chars / 2, bytes: self.bytes / 2 }
    }

    fn minus(self, used: Cost) -> Self {
        Self {
            tokens: self.tokens.saturating_sub(used.tokens),
            chars: self.chars.saturating_sub(used.chars),
            bytes: self.bytes.saturating_sub(used.bytes),
        }
    }
}

/// Whether `text` fits in `max_tokens`. A token is at least one byte, so short text fits
/// without counting; text of more than eight bytes per allowed token is over the cap without
/// counting, which keeps huge outputs from costing a full tokenization.
pub fn fits(text: &str, max_tokens: usize) -> bool {
    if text.len() <= max_tokens {
        return true;
    }
    if text.len() > max_tokens.saturating_mul(8) {
        return false;
    }
    count_tokens(text) <= max_tokens
}

/// Whether `text` fits in every limit of `budget`.
pub fn fits_budget(text: &str, budget: Budget) -> bool {
    let bytes_fit = budget.bytes.is_none_or(|bytes| text.len() <= bytes);
    let chars_fit = budget.chars.is_none_or(|chars| text.len() <= chars || utf16_len(text) <= chars);
    bytes_fit && chars_fit && fits(text, budget.tokens)
}

/// What a head-and-tail cut left out, for the marker line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Omission {
    /// 1-based number of the first omitted line.
    pub first_line: usize,
    /// How many whole lines were left out (0 when only long lines were shortened).
    pub lines: usize,
    /// Bytes left out, counting the cut parts of long lines.
    pub bytes: usize,
    /// Total lines in the text.
    pub total_lines: usize,
}

/// Cuts `text` to its first and last lines within `budget`, with the line made by `marker` in
/// between. Long lines are shortened in the view. Returns the shaped text and what was left
/// out.
pub fn head_tail(text: &str, budget: Budget, marker: impl Fn(&Omission) -> String) -> (String, Omission) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let room = budget.room();
    let half = room.half();

    let mut cut_bytes = 0;
    let mut shown = |line: &str| -> (String, Cost) {
        let view = shorten_line(line);
        if view.len() < line.len() {
            cut_bytes += line.len() - view.len();
        }
        let cost = Cost::of(&view);
        (view, cost)
    };

    let mut head: Vec<String> = Vec::new();
    let mut used = Cost::default();
    for line in &lines {
        let (view, cost) = shown(line);
        if !used.plus(cost).within(half) {
            break;
        }
        used = used.plus(cost);
        head.push(view);
    }
    let mut tail: Vec<String> = Vec::new();
    let tail_room = room.minus(used);
    let mut tail_used = Cost::default();
    for line in lines.iter().skip(head.len()).rev() {
        let (view, cost) = shown(line);
        if !tail_used.plus(cost).within(tail_room) {
            break;
        }
        tail_used = tail_used.plus(cost);
        tail.push(view);
    }
    tail.reverse();

    let omitted_lines = lines.len() - head.len() - tail.len();
    let omitted_bytes: usize = lines[head.len()..lines.len() - tail.len()].iter().map(|l| l.len()).sum();
    let omission = Omission {
        first_line: head.len() + 1,
        lines: omitted_lines,
        bytes: omitted_bytes + cut_bytes,
        total_lines: lines.len(),
    };
    let mut out = String::with_capacity(used.bytes + tail_used.bytes + 256);
    for line in &head {
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker(&omission));
    out.push('\n');
    for line in &tail {
        out.push_str(line);
    }
    (out, omission)
}

/// `text` cut to at most `max` characters, `…` marking a cut.
pub fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A line cut to [`LONG_LINE_BYTES`] on a character boundary, with the cut named.
pub fn shorten_line(line: &str) -> String {
    if line.len() <= LONG_LINE_BYTES {
        return line.to_string();
    }
    let mut end = LONG_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let newline = if line.ends_with('\n') { "\n" } else { "" };
    let rest = line.trim_end_matches('\n').len() - end;
    format!("{} … [{rest} more bytes on this line]{newline}", &line[..end])
}

/// Bytes in a short human form: `812 B`, `14.2 KB`, `3.1 MB`.
pub fn human_bytes(bytes: usize) -> String {
    if bytes < 1_000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.1} KB", bytes as f64 / 1e3)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_is_real_and_deterministic() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        assert!(count_tokens("fn parse_http_response(buf: &[u8]) -> Result<Response>") > 8);
    }

    #[test]
    fn fits_counts_only_when_it_must() {
        assert!(fits("short", 10));
        assert!(!fits(&"word ".repeat(1000), 100));
        assert!(fits(&"word ".repeat(50), 100));
    }

    #[test]
    fn head_tail_keeps_both_ends_and_names_the_gap() {
        let text: String = (1..=10_000).map(|i| format!("line {i}\n")).collect();
        let (out, om) = head_tail(&text, Budget::tokens(1_000), |o| {
            format!("[omitted {} lines from {}]", o.lines, o.first_line)
        });
        assert!(out.starts_with("line 1\nline 2\n"));
        assert!(out.ends_with("line 10000\n"));
        assert!(count_tokens(&out) <= 1_000, "{}", count_tokens(&out));
        assert_eq!(om.total_lines, 10_000);
        assert!(om.lines > 9_000);
        let marker = format!("[omitted {} lines from {}]\n", om.lines, om.first_line);
        assert!(out.contains(&marker));
        let next_after_marker = out.split(&marker).nth(1).unwrap().lines().next().unwrap();
        assert_eq!(next_after_marker, format!("line {}", om.first_line + om.lines));
    }

    #[test]
    fn one_huge_line_is_shortened_not_dropped() {
        let text = format!("start\n{}\nend\n", "x".repeat(100_000));
        let (out, om) = head_tail(&text, Budget::tokens(5_000), |o| format!("[gap {}]", o.lines));
        assert!(out.starts_with("start\n"));
        assert!(out.contains("more bytes on this line"));
        assert!(out.ends_with("end\n[gap 0]\n"), "all lines fit, so the marker closes the text");
        assert_eq!(om.lines, 0);
        assert!(om.bytes > 97_000, "{}", om.bytes);
    }

    #[test]
    fn a_character_limit_binds_in_characters_even_when_tokens_would_fit() {
        // Multi-byte characters: the limit counts characters, not bytes.
        let text: String = (1..=2_000).map(|i| format!("é{i:05}\n")).collect();
        let budget = Budget { tokens: 100_000, chars: Some(3_000), bytes: None };
        assert!(!fits_budget(&text, budget));
        let (out, om) = head_tail(&text, budget, |o| format!("[cut {} lines]", o.lines));
        let chars = out.chars().count();
        assert!(chars <= 3_000, "{chars}");
        assert!(chars > 2_400, "the cut uses the budget: {chars}");
        assert!(out.len() > chars, "multi-byte text is measured in characters");
        assert!(out.starts_with("é00001\n") && out.ends_with("é02000\n"));
        assert_eq!(om.lines + out.lines().count() - 1, 2_000);
        assert_eq!(budget.describe(), "3000 characters");
        assert_eq!(Budget::tokens(4_000).describe(), "4000 tokens");

        // The same text under a byte limit keeps fewer lines: each line is 8 bytes, 7 characters.
        let bytes = Budget { tokens: 100_000, chars: None, bytes: Some(3_000) };
        let (out, _) = head_tail(&text, bytes, |o| format!("[cut {} lines]", o.lines));
        assert!(out.len() <= 3_000 && out.len() > 2_400, "{}", out.len());
        assert_eq!(bytes.describe(), "3000 bytes");
        // Astral characters count twice, as JavaScript counts them.
        assert_eq!(utf16_len("a😀é"), 4);
    }

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(812), "812 B");
        assert_eq!(human_bytes(14_200), "14.2 KB");
        assert_eq!(human_bytes(3_100_000), "3.1 MB");
    }
}
