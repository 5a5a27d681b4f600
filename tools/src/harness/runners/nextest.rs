//! cargo nextest: recognised by `nextest`, narrowed as `cargo test` is, and read from its
//! status lines, libtest's panics and its summary.

use std::sync::OnceLock;

use regex::Regex;

use super::libtest::{failures_of, narrow_cargo};
use super::reading::re;
use super::{Invocation, Parsed, Runner, Scope, Words};

pub(super) struct Nextest;

impl Runner for Nextest {
    fn name(&self) -> &'static str {
        "nextest"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("nextest")
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        narrow_cargo(check, scope)
    }

    fn read(&self, output: &str) -> Parsed {
        nextest(output)
    }
}

/// cargo nextest: `FAIL [ 0.003s] crate::bin name` lines, the panics in their output, and the
/// `Summary [ … ] N tests run: P passed, F failed, S skipped` line.
fn nextest(output: &str) -> Parsed {
    static SUMMARY: OnceLock<Regex> = OnceLock::new();
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static FAIL: OnceLock<Regex> = OnceLock::new();
    let summary = re(&SUMMARY, r"^\s*Summary \[.*?\] +\d+ tests? run: (.*)$");
    let count = re(&COUNT, r"(\d+) (passed|failed|skipped|timed out)");
    let fail = re(&FAIL, r"^\s*(?:FAIL|SIGSEGV|SIGABRT|TIMEOUT) \[.*?\] (?:\(\d+/\d+\) )?(\S+) (\S+)\s*$");
    let mut parsed = Parsed::default();
    let mut names = Vec::new();
    for line in output.lines() {
        if let Some(caps) = summary.captures(line) {
            parsed.recognised = true;
            for c in count.captures_iter(&caps[1]) {
                let n: u64 = c[1].parse().unwrap_or(0);
                match &c[2] {
                    "passed" => parsed.passed = n,
                    "skipped" => parsed.skipped = n,
                    _ => parsed.failed += n,
                }
            }
        } else if let Some(caps) = fail.captures(line) {
            let name = caps[2].to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    parsed.failures.extend(failures_of(output, names));
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::runners::check;
    use expect_test::expect;

    #[test]
    fn nextest_output() {
        check(
            &Nextest,
            "    Starting 4 tests across 1 binary
        PASS [   0.003s] tiny tests::adds
        FAIL [   0.004s] tiny tests::total_is_wrong
--- STDERR:              tiny tests::total_is_wrong ---
thread 'tests::total_is_wrong' panicked at src/lib.rs:21:9:
assertion failed: false

     Summary [   0.010s] 4 tests run: 3 passed, 1 failed, 0 skipped
",
            expect![[r#"
                passed=3 failed=1 skipped=0 recognised=true
                tests::total_is_wrong @ src/lib.rs:21 | assertion failed: false
            "#]],
        );
    }
}
