//! Per-session harness state: the verification gate (writes versus passing verifies), the stall
//! detector, and the append-only JSONL trace of every call. Below it, [`runners`]: the test
//! runners and linters whose output `verify` reads.

pub(crate) mod runners;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::workspace::config::StallConfig;

/// The last `verify` a session ran.
#[derive(Debug, Clone, Default)]
pub struct VerifyRecord {
    /// The session's write count when the verify started: a write during or after it makes the
    /// result stale.
    pub writes_at_start: u64,
    pub ok: bool,
    /// One line such as `3 passed, 1 failed in tests (tests/test_x.py::test_total)`.
    pub summary: String,
    /// The tree it verified: each indexed file's content hash when its checks had run.
    pub tree: std::sync::Arc<BTreeMap<String, [u8; 16]>>,
    /// What `scope` narrowed it to, if anything: such a verify does not verify the whole work.
    pub scope: Option<String>,
    /// The checks that ran, by name.
    pub checks: Vec<String>,
}

impl VerifyRecord {
    /// A short name for [`VerifyRecord::tree`]: 16 hex digits of a hash over every path and
    /// content hash, in path order.
    pub fn tree_hash(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        for (path, hash) in self.tree.iter() {
            hasher.update(path.as_bytes());
            hasher.update(&[0]);
            hasher.update(hash);
        }
        hasher.finalize().to_hex()[..16].to_string()
    }

    /// The files of `now` that differ from the tree verified: changed, added or removed.
    pub fn changed_in(&self, now: &BTreeMap<String, [u8; 16]>) -> Vec<String> {
        let mut changed: Vec<String> = now
            .iter()
            .filter(|(path, hash)| self.tree.get(*path) != Some(*hash))
            .map(|(path, _)| path.clone())
            .collect();
        changed.extend(self.tree.keys().filter(|path| !now.contains_key(*path)).cloned());
        changed.sort();
        changed
    }
}

/// What one session has done that the gate, the stall detector and the trace need.
#[derive(Debug, Default)]
pub struct Harness {
    /// What outlives the server (`--state`).
    kept: SavedHarness,
    last_verify: Option<VerifyRecord>,
    /// Files written during the current call, collected by the writer.
    pending: Vec<String>,
    // The trace.
    trace_path: Option<PathBuf>,
    trace: Option<File>,
    trace_failed: bool,
    /// With state kept elsewhere (`--state`), trace lines wait here for the server to take.
    trace_lines: Option<Vec<String>>,
    /// Verifies recorded in this harness, so a server keeping the state elsewhere writes the
    /// last one (a record of every file's hash) only when it changed.
    verifies: u64,
}

/// What a [`Harness`] keeps that outlives its server (`--state`): all but the last verify
/// (saved apart, since its tree is large and changes only when a verify runs), the open trace
/// file and the writes of a call in progress.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SavedHarness {
    /// Successful writes (tool calls that changed at least one file).
    writes: u64,
    /// The last write: the tool and the files it changed.
    last_write: Option<(String, Vec<String>)>,
    /// Every file this session changed, for the handoff note.
    changed: BTreeSet<String>,
    /// How many files the last observed call wrote.
    last_wrote: usize,
    // The stall detector.
    last_call: Option<(String, String)>,
    repeats: u32,
    /// Each failure signature seen, with the calls (tool, key) that produced it.
    failures: BTreeMap<String, Vec<(String, String)>>,
    edits: BTreeMap<String, u32>,
    reads_since_write: u32,
    /// Calls traced, which numbers each trace line.
    calls: u64,
}

/// A [`VerifyRecord`] as saved: the tree's content hashes in hex.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct SavedVerify {
    writes_at_start: u64,
    ok: bool,
    summary: String,
    tree: BTreeMap<String, String>,
    scope: Option<String>,
    checks: Vec<String>,
}

impl From<&VerifyRecord> for SavedVerify {
    fn from(v: &VerifyRecord) -> Self {
        let hex = |hash: &[u8; 16]| hash.iter().map(|b| format!("{b:02x}")).collect::<String>();
        SavedVerify {
            writes_at_start: v.writes_at_start,
            ok: v.ok,
            summary: v.summary.clone(),
            tree: v.tree.iter().map(|(path, hash)| (path.clone(), hex(hash))).collect(),
            scope: v.scope.clone(),
            checks: v.checks.clone(),
        }
    }
}

impl From<SavedVerify> for VerifyRecord {
    fn from(v: SavedVerify) -> Self {
        let bytes = |hex: &str| {
            let mut hash = [0u8; 16];
            for (at, byte) in hash.iter_mut().enumerate() {
                *byte = hex.get(at * 2..at * 2 + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
            }
            hash
        };
        VerifyRecord {
            writes_at_start: v.writes_at_start,
            ok: v.ok,
            summary: v.summary,
            tree: std::sync::Arc::new(v.tree.iter().map(|(path, hex)| (path.clone(), bytes(hex))).collect()),
            scope: v.scope,
            checks: v.checks,
        }
    }
}

/// Where the session stands against the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// A verify passed and nothing was written since.
    Verified,
    /// No verify ran in this session.
    NeverVerified { wrote: bool },
    /// The last verify failed.
    LastFailed { summary: String },
    /// A verify passed, then a tool wrote.
    EditedSince { tool: String, files: Vec<String> },
}

impl Harness {
    /// The writer calls this after it changed `files` (paths relative to the root).
    pub fn record_write(&mut self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        self.kept.writes += 1;
        self.pending.extend(files.iter().cloned());
        self.kept.changed.extend(files.iter().cloned());
    }

    /// Names the tool that made the writes recorded during this call.
    fn close_write(&mut self, tool: &str) -> Vec<String> {
        let files = std::mem::take(&mut self.pending);
        if !files.is_empty() {
            self.kept.last_write = Some((tool.to_string(), files.clone()));
        }
        files
    }

    /// How many files the last call fed to [`Harness::observe`] wrote.
    pub fn last_wrote(&self) -> usize {
        self.kept.last_wrote
    }

    /// The files the last observed call wrote.
    pub fn wrote_in_last_call(&self) -> Vec<String> {
        match &self.kept.last_write {
            Some((_, files)) if self.kept.last_wrote > 0 => files.clone(),
            _ => Vec::new(),
        }
    }

    pub fn writes(&self) -> u64 {
        self.kept.writes
    }

    pub fn record_verify(&mut self, record: VerifyRecord) {
        self.last_verify = Some(record);
        self.verifies += 1;
    }

    /// How many verifies this harness recorded (not counting one it was restored with).
    pub fn verifies(&self) -> u64 {
        self.verifies
    }

    pub fn last_verify(&self) -> Option<&VerifyRecord> {
        self.last_verify.as_ref()
    }

    pub fn changed_files(&self) -> Vec<String> {
        self.kept.changed.iter().cloned().collect()
    }

    pub fn verification(&self) -> Verification {
        match &self.last_verify {
            None => Verification::NeverVerified { wrote: self.kept.writes > 0 },
            Some(v) if v.writes_at_start != self.kept.writes => {
                let (tool, files) = self.kept.last_write.clone().unwrap_or_default();
                Verification::EditedSince { tool, files }
            }
            Some(v) if !v.ok => Verification::LastFailed { summary: v.summary.clone() },
            Some(_) => Verification::Verified,
        }
    }

    pub fn verified_since_last_edit(&self) -> bool {
        self.verification() == Verification::Verified
    }

    /// Feeds one finished call to the stall detector; returns the nudge, if one fires.
    /// `key` identifies the call (tool and arguments), `digest` its result.
    pub fn observe(
        &mut self,
        tool: &str,
        reads: bool,
        key: String,
        digest: String,
        failure: Option<String>,
        limits: &StallConfig,
    ) -> Option<String> {
        let written = self.close_write(tool);
        self.kept.last_wrote = written.len();
        let mut nudges = Vec::new();

        // One failure coming back through calls that differ: the exact-repeat rule below does
        // not see it, since the arguments (or the tool) change each time.
        if let Some(signature) = failure {
            let seen = self.kept.failures.entry(signature.clone()).or_default();
            seen.push((tool.to_string(), key.clone()));
            let n = seen.len() as u32;
            let differ = seen.iter().any(|(_, k)| *k != key);
            if limits.failure_repeats > 1 && differ && n.is_multiple_of(limits.failure_repeats) {
                let tools: Vec<&str> =
                    seen.iter().rev().take(n as usize).rev().map(|(t, _)| t.as_str()).collect();
                nudges.push(format!(
                    "the same failure came back {n} times across different calls ({}): {signature}; what \
                     changed between them does not reach it: re-read the failing code and what it calls, or \
                     try another approach",
                    tools.join(", ")
                ));
            }
        }

        let same = self.kept.last_call.as_ref().is_some_and(|(k, d)| *k == key && *d == digest);
        self.kept.repeats = if same { self.kept.repeats + 1 } else { 1 };
        self.kept.last_call = Some((key, digest));
        if limits.repeats > 1 && self.kept.repeats >= limits.repeats {
            nudges.push(format!(
                "this exact call returned the same result {} times in a row; repeating it will not change \
                 the answer: read the result, change the arguments, or try another approach",
                self.kept.repeats
            ));
        }

        if written.is_empty() {
            if reads {
                self.kept.reads_since_write += 1;
                let n = self.kept.reads_since_write;
                if limits.reads_without_edit > 0
                    && n >= limits.reads_without_edit
                    && n.is_multiple_of(limits.reads_without_edit)
                {
                    nudges.push(format!(
                        "{n} reads and searches in a row without an edit; you may have enough context: make \
                         the change, or write down the plan with todo"
                    ));
                }
            }
        } else {
            self.kept.reads_since_write = 0;
            for file in written {
                let count = self.kept.edits.entry(file.clone()).or_default();
                *count += 1;
                if limits.edits_per_file > 0 && count.is_multiple_of(limits.edits_per_file) {
                    nudges.push(format!(
                        "{count} edits to {file} in this session; step back: re-read the whole file, or call \
                         verify to see where things stand"
                    ));
                }
            }
        }
        if nudges.is_empty() { None } else { Some(format!("[tack] {}", nudges.join("; "))) }
    }

    /// What outlives the server: see [`SavedHarness`].
    pub fn saved(&self) -> SavedHarness {
        self.kept.clone()
    }

    /// A harness as another server left it: its counters, gate and last verify.
    pub fn restored(kept: SavedHarness, verify: Option<VerifyRecord>) -> Self {
        Harness { kept, last_verify: verify, ..Harness::default() }
    }

    /// Keeps trace lines for the server to take ([`Harness::take_trace_lines`]) instead of
    /// writing a file.
    pub fn keep_trace_lines(&mut self) {
        self.trace_lines.get_or_insert_with(Vec::new);
    }

    /// The trace lines kept since the last call of this.
    pub fn take_trace_lines(&mut self) -> Vec<String> {
        self.trace_lines.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Whether calls are traced, to a file or to lines kept for the server.
    pub fn traced(&self) -> bool {
        self.trace_path.is_some() || self.trace_lines.is_some()
    }

    /// Sends the trace to `path` (a JSONL file, created on the first call).
    pub fn set_trace_path(&mut self, path: PathBuf) {
        self.trace_path = Some(path);
    }

    /// Appends one record to the trace, numbering it. A trace that cannot be written is
    /// logged once and then skipped: it never fails a call.
    pub fn trace(&mut self, mut record: Value) {
        self.kept.calls += 1;
        if let Value::Object(map) = &mut record {
            map.insert("seq".into(), json!(self.kept.calls));
        }
        if let Some(lines) = &mut self.trace_lines {
            lines.push(record.to_string());
            return;
        }
        let Some(path) = self.trace_path.clone() else { return };
        if self.trace_failed {
            return;
        }
        if self.trace.is_none() {
            let opened = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::OpenOptions::new().create(true).append(true).open(&path));
            match opened {
                Ok(file) => self.trace = Some(file),
                Err(err) => {
                    tracing::warn!(path = %path.display(), "cannot open the trace: {err}");
                    self.trace_failed = true;
                    return;
                }
            }
        }
        let mut line = record.to_string();
        line.push('\n');
        if let Some(file) = &mut self.trace
            && let Err(err) = file.write_all(line.as_bytes())
        {
            tracing::warn!(path = %path.display(), "cannot write the trace: {err}");
            self.trace_failed = true;
        }
    }
}

/// A readable summary of one session's trace (its JSONL text): calls per tool, tokens sent,
/// time, edits, verifies, failures and stall nudges. Lines that do not parse are counted, not
/// fatal.
pub fn summarize_trace(jsonl: &str) -> String {
    #[derive(Default)]
    struct PerTool {
        calls: u64,
        tokens: u64,
        ms: u64,
        errors: u64,
    }
    let mut tools: BTreeMap<String, PerTool> = BTreeMap::new();
    let (mut calls, mut tokens, mut ms, mut errors, mut bad) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut edits, mut verifies, mut verifies_passed) = (0u64, 0u64, 0u64);
    let mut stalls = Vec::new();
    let mut last_verified = None;
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            bad += 1;
            continue;
        };
        let tool = record["tool"].as_str().unwrap_or("?").to_string();
        let t = record["tokens"].as_u64().unwrap_or(0);
        let d = record["ms"].as_u64().unwrap_or(0);
        let failed = !record["error"].is_null();
        calls += 1;
        tokens += t;
        ms += d;
        let entry = tools.entry(tool.clone()).or_default();
        entry.calls += 1;
        entry.tokens += t;
        entry.ms += d;
        if failed {
            errors += 1;
            entry.errors += 1;
        }
        if !failed && record["wrote"].as_u64().is_some_and(|n| n > 0) {
            edits += 1;
        }
        if !failed && record.get("verify").is_some() {
            verifies += 1;
            if record["verify"]["ok"] == Value::Bool(true) {
                verifies_passed += 1;
            }
        }
        if let Some(stall) = record["stall"].as_str() {
            stalls.push(format!("#{} {tool}: {stall}", record["seq"].as_u64().unwrap_or(0)));
        }
        last_verified = record["verified_since_last_edit"].as_bool();
    }
    let mut text = format!(
        "{calls} calls, {tokens} tokens sent, {:.1} s in tools, {edits} edits, {verifies} verifies ({verifies_passed} \
         passed), {errors} failed calls\n",
        ms as f64 / 1000.0
    );
    if let Some(verified) = last_verified {
        text.push_str(&format!(
            "at the end: {}\n",
            if verified { "verified since the last edit" } else { "not verified since the last edit" }
        ));
    }
    text.push_str(&format!(
        "{:<16} {:>6} {:>9} {:>9} {:>7}\n",
        "tool", "calls", "tokens", "seconds", "failed"
    ));
    for (tool, t) in &tools {
        text.push_str(&format!(
            "{tool:<16} {:>6} {:>9} {:>9.1} {:>7}\n",
            t.calls,
            t.tokens,
            t.ms as f64 / 1000.0,
            t.errors
        ));
    }
    if !stalls.is_empty() {
        text.push_str(&format!("{} stall nudges:\n", stalls.len()));
        for stall in stalls {
            text.push_str(&format!("  {stall}\n"));
        }
    }
    if bad > 0 {
        text.push_str(&format!("{bad} lines were not JSON and were skipped\n"));
    }
    text
}

/// The first line that reads as an error, else the last non-empty line, trimmed.
pub(crate) fn first_error_line(text: &str) -> Option<String> {
    const MARKS: &[&str] = &["error", "fail", "exception", "panic", "traceback", "assert"];
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let marked = lines.clone().find(|l| {
        let lower = l.to_ascii_lowercase();
        MARKS.iter().any(|m| lower.contains(m))
    });
    let line = marked.or_else(|| lines.next_back())?;
    Some(line.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> StallConfig {
        StallConfig::default()
    }

    #[test]
    fn a_write_after_a_passing_verify_reopens_the_gate() {
        let mut h = Harness::default();
        assert_eq!(h.verification(), Verification::NeverVerified { wrote: false });
        h.record_write(&["a.py".into()]);
        h.observe("edit_file", false, "k1".into(), "d1".into(), None, &limits());
        assert_eq!(h.verification(), Verification::NeverVerified { wrote: true });
        h.record_verify(VerifyRecord { writes_at_start: h.writes(), ok: true, ..VerifyRecord::default() });
        assert!(h.verified_since_last_edit());
        h.record_write(&["b.py".into()]);
        h.observe("write_file", false, "k2".into(), "d2".into(), None, &limits());
        assert_eq!(
            h.verification(),
            Verification::EditedSince { tool: "write_file".into(), files: vec!["b.py".into()] }
        );
    }

    #[test]
    fn a_write_during_a_verify_makes_it_stale() {
        let mut h = Harness::default();
        let at_start = h.writes();
        h.record_write(&["a.py".into()]);
        h.record_verify(VerifyRecord { writes_at_start: at_start, ok: true, ..VerifyRecord::default() });
        assert!(!h.verified_since_last_edit());
    }

    #[test]
    fn one_failure_from_calls_that_differ_nudges_at_the_third() {
        let mut h = Harness::default();
        let fail = |h: &mut Harness, tool: &str, key: &str, sig: &str| {
            h.observe(tool, false, key.into(), format!("{key} digest"), Some(sig.into()), &limits())
        };
        assert_eq!(fail(&mut h, "verify", "verify {}", "t.py::test_total"), None);
        assert_eq!(fail(&mut h, "run", "run pytest", "t.py::test_total"), None);
        // Another failure in between counts on its own.
        assert_eq!(fail(&mut h, "run", "run make", "make: *** [all] Error 2"), None);
        let nudge = fail(&mut h, "verify", "verify {\"scope\":\"t.py\"}", "t.py::test_total").expect("fires");
        assert_eq!(
            nudge,
            "[tack] the same failure came back 3 times across different calls (verify, run, verify): \
             t.py::test_total; what changed between them does not reach it: re-read the failing code and \
             what it calls, or try another approach"
        );
        // Three identical calls are the exact-repeat rule's, not this one's.
        let mut h = Harness::default();
        let nudges: Vec<Option<String>> = (0..3)
            .map(|_| h.observe("verify", false, "k".into(), "d".into(), Some("x".into()), &limits()))
            .collect();
        assert!(
            nudges[2].as_deref().is_some_and(|n| n.contains("this exact call") && !n.contains("came back"))
        );
    }

    #[test]
    fn stall_nudges_fire_at_their_thresholds() {
        let mut h = Harness::default();
        let fired: Vec<bool> = (0..4)
            .map(|_| h.observe("run", false, "same".into(), "same".into(), None, &limits()).is_some())
            .collect();
        assert_eq!(fired, [false, false, true, true]);

        let mut h = Harness::default();
        let fired: Vec<bool> = (0..9)
            .map(|i| h.observe("search", true, format!("q{i}"), "r".into(), None, &limits()).is_some())
            .collect();
        assert_eq!(fired.iter().filter(|f| **f).count(), 1);
        assert!(fired[7]);

        let mut h = Harness::default();
        let mut last = None;
        for i in 0..5 {
            h.record_write(&["a.py".into()]);
            last = h.observe("edit_file", false, format!("e{i}"), format!("d{i}"), None, &limits());
        }
        expect_test::expect![[r#"
            Some(
                "[tack] 5 edits to a.py in this session; step back: re-read the whole file, or call verify to see where things stand",
            )
        "#]]
        .assert_debug_eq(&last);
    }

    #[test]
    fn trace_summary_counts_calls_edits_verifies_and_nudges() {
        let jsonl = [
            r#"{"seq":1,"tool":"read_file","tokens":120,"ms":3,"error":null,"verified_since_last_edit":false}"#,
            r#"{"seq":2,"tool":"edit_file","tokens":40,"ms":9,"error":null,"wrote":1,"verified_since_last_edit":false}"#,
            r#"{"seq":3,"tool":"verify","tokens":200,"ms":1500,"error":null,"verify":{"ok":false}}"#,
            r#"{"seq":4,"tool":"run","tokens":10,"ms":5,"error":"exit=1","stall":"[tack] same"}"#,
            "not json",
            r#"{"seq":5,"tool":"verify","tokens":50,"ms":1400,"error":null,"verify":{"ok":true},"verified_since_last_edit":true}"#,
        ]
        .join("\n");
        expect_test::expect![[r#"
            5 calls, 420 tokens sent, 2.9 s in tools, 1 edits, 2 verifies (1 passed), 1 failed calls
            at the end: verified since the last edit
            tool              calls    tokens   seconds  failed
            edit_file             1        40       0.0       0
            read_file             1       120       0.0       0
            run                   1        10       0.0       1
            verify                2       250       2.9       0
            1 stall nudges:
              #4 run: [tack] same
            1 lines were not JSON and were skipped
        "#]]
        .assert_eq(&summarize_trace(&jsonl));
    }
}
