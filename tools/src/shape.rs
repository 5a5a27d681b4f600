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

/// Loads the tokenizer on a background thread, so no call waits for it on behalf of the trace.
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

/// Cuts `text` to its first and last lines within `max_tokens`, with the line made by
/// `marker` in between. Long lines are shortened in the view. Returns the shaped text and
/// what was left out.
pub fn head_tail(text: &str, max_tokens: usize, marker: impl Fn(&Omission) -> String) -> (String, Omission) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let budget = max_tokens.saturating_sub(MARKER_RESERVE).max(64);
    let half = budget / 2;

    let mut cut_bytes = 0;
    let mut shown = |line: &str| -> (String, usize) {
        let view = shorten_line(line);
        if view.len() < line.len() {
            cut_bytes += line.len() - view.len();
        }
        let tokens = count_tokens(&view);
        (view, tokens)
    };

    let mut head: Vec<String> = Vec::new();
    let mut used = 0;
    for line in &lines {
        let (view, tokens) = shown(line);
        if used + tokens > half {
            break;
        }
        used += tokens;
        head.push(view);
    }
    let mut tail: Vec<String> = Vec::new();
    let mut tail_used = 0;
    let tail_budget = budget - used;
    for line in lines.iter().skip(head.len()).rev() {
        let (view, tokens) = shown(line);
        if tail_used + tokens > tail_budget {
            break;
        }
        tail_used += tokens;
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
    let mut out = String::with_capacity(budget * 4);
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
        let (out, om) =
            head_tail(&text, 1_000, |o| format!("[omitted {} lines from {}]", o.lines, o.first_line));
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
        let (out, om) = head_tail(&text, 5_000, |o| format!("[gap {}]", o.lines));
        assert!(out.starts_with("start\n"));
        assert!(out.contains("more bytes on this line"));
        assert!(out.ends_with("end\n[gap 0]\n"), "all lines fit, so the marker closes the text");
        assert_eq!(om.lines, 0);
        assert!(om.bytes > 97_000, "{}", om.bytes);
    }

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(812), "812 B");
        assert_eq!(human_bytes(14_200), "14.2 KB");
        assert_eq!(human_bytes(3_100_000), "3.1 MB");
    }
}
