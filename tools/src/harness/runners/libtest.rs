//! libtest, the harness `cargo test` runs: recognised by `cargo` and `test`, narrowed to a
//! `tests/NAME.rs` target or a test name, and read from its result lines and panics (which
//! nextest shares), or from rustc's errors when the build fails.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

use super::diagnostics::Diagnostics;
use super::reading::{clip, re};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Libtest;

impl Runner for Libtest {
    fn name(&self) -> &'static str {
        "cargo-test"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("cargo") && command.has("test")
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        narrow_cargo(check, scope)
    }

    fn read(&self, output: &str) -> Parsed {
        libtest(output)
    }
}

/// A cargo command narrowed: a `tests/NAME.rs` file is its integration test target, a name
/// filters the tests (after the `--` that ends cargo's own arguments); another path cannot be.
pub(super) fn narrow_cargo(check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
    let test_target = scope
        .is_path
        .then(|| scope.text.strip_prefix("tests/").and_then(|s| s.strip_suffix(".rs")))
        .flatten()
        .filter(|s| !s.contains('/'));
    match test_target {
        Some(target) => Ok(format!("{} --test {}", check.command, shell_quote(target))),
        None if scope.is_path => Err(format!(
            "skipped: scope {:?} is a path, and {} narrows only to tests/NAME.rs or a test name",
            scope.text, check.name
        )),
        None if check.command.contains(" -- ") => Ok(format!("{} {}", check.command, scope.quoted())),
        None => Ok(format!("{} -- {}", check.command, scope.quoted())),
    }
}

/// The failures of the tests `names`, in order: each with its panic's message where the output
/// holds one.
pub(super) fn failures_of(output: &str, names: Vec<String>) -> impl Iterator<Item = Failure> {
    let mut panics = panics(output);
    names.into_iter().map(move |name| {
        panics.remove(&name).unwrap_or_else(|| Failure {
            test: Some(name),
            message: "failed (no panic message in the output)".into(),
            ..Failure::default()
        })
    })
}

/// Panics by thread name: `thread 'x' panicked at path:line:col:` then the message lines
/// (current Rust), or `thread 'x' panicked at 'message', path:line:col` (before 1.73), whose
/// message may run over lines (`assert_eq!`'s `left:` and `right:`).
fn panics(output: &str) -> BTreeMap<String, Failure> {
    static NEW: OnceLock<Regex> = OnceLock::new();
    static OLD: OnceLock<Regex> = OnceLock::new();
    static OLD_START: OnceLock<Regex> = OnceLock::new();
    static OLD_END: OnceLock<Regex> = OnceLock::new();
    let new = re(&NEW, r"^thread '([^']+)' (?:\(\d+\) )?panicked at ([^:\s]+):(\d+):\d+:$");
    let old = re(&OLD, r"^thread '([^']+)' panicked at '(.*)', ([^:\s]+):(\d+):\d+$");
    let old_start = re(&OLD_START, r"^thread '([^']+)' panicked at '(.*)$");
    let old_end = re(&OLD_END, r"^(.*)', ([^:\s]+):(\d+):\d+$");
    let mut found = BTreeMap::new();
    let lines: Vec<&str> = output.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(caps) = new.captures(line) {
            let message: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|l| {
                    !l.is_empty() && !l.starts_with("note: ") && !l.starts_with("stack backtrace")
                })
                .take(12)
                .copied()
                .collect();
            found.entry(caps[1].to_string()).or_insert(Failure {
                test: Some(caps[1].to_string()),
                path: Some(caps[2].to_string()),
                line: caps[3].parse().ok(),
                message: clip(message.join("\n").trim(), 600),
            });
        } else if let Some(caps) = old.captures(line) {
            found.entry(caps[1].to_string()).or_insert(Failure {
                test: Some(caps[1].to_string()),
                path: Some(caps[3].to_string()),
                line: caps[4].parse().ok(),
                message: clip(&caps[2], 600),
            });
        } else if let Some(start) = old_start.captures(line) {
            let mut message = vec![start[2].to_string()];
            for next in lines[i + 1..].iter().take(12) {
                if let Some(end) = old_end.captures(next) {
                    message.push(end[1].to_string());
                    found.entry(start[1].to_string()).or_insert(Failure {
                        test: Some(start[1].to_string()),
                        path: Some(end[2].to_string()),
                        line: end[3].parse().ok(),
                        message: clip(message.join("\n").trim(), 600),
                    });
                    break;
                }
                message.push(next.to_string());
            }
        }
    }
    found
}

/// libtest: `test name ... FAILED` lines, the panics in the `---- name stdout ----` sections,
/// and every `test result:` line summed (one per test binary and for doc tests). A build that
/// fails before any test runs yields rustc's errors.
fn libtest(output: &str) -> Parsed {
    static RESULT: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    let result = re(&RESULT, r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored");
    let failed_line = re(&FAILED, r"^test (\S+(?: - \S+)*) \.\.\. FAILED$");
    let mut parsed = Parsed::default();
    let mut names = Vec::new();
    for line in output.lines() {
        if let Some(caps) = result.captures(line) {
            parsed.recognised = true;
            parsed.passed += caps[1].parse::<u64>().unwrap_or(0);
            parsed.failed += caps[2].parse::<u64>().unwrap_or(0);
            parsed.skipped += caps[3].parse::<u64>().unwrap_or(0);
        } else if let Some(caps) = failed_line.captures(line) {
            names.push(caps[1].to_string());
        }
    }
    parsed.failures.extend(failures_of(output, names));
    if !parsed.recognised {
        let build = Diagnostics.read(output);
        if build.recognised {
            parsed.failures = build.failures;
            parsed.recognised = true;
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::runners::check;
    use expect_test::expect;

    #[test]
    fn libtest_output_with_two_binaries() {
        check(
            &Libtest,
            "running 4 tests
test tests::adds ... ok
test tests::total_is_wrong ... FAILED

failures:

---- tests::total_is_wrong stdout ----

thread 'tests::total_is_wrong' panicked at src/lib.rs:21:9:
assertion `left == right` failed
  left: 3
 right: 4
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::total_is_wrong

test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

running 2 tests
test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s
",
            expect![[r#"
                passed=5 failed=1 skipped=1 recognised=true
                tests::total_is_wrong @ src/lib.rs:21 | assertion `left == right` failed /   left: 3 /  right: 4
            "#]],
        );
    }

    #[test]
    fn libtest_before_rust_1_73_quotes_a_message_over_several_lines() {
        check(
            &Libtest,
            "running 2 tests
test tests::adds ... ok
test tests::total_is_the_sum ... FAILED

failures:

---- tests::total_is_the_sum stdout ----
thread 'tests::total_is_the_sum' panicked at 'assertion failed: `(left == right)`
  left: `2`,
 right: `3`', src/lib.rs:30:9
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::total_is_the_sum

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
",
            expect![[r#"
                passed=1 failed=1 skipped=0 recognised=true
                tests::total_is_the_sum @ src/lib.rs:30 | assertion failed: `(left == right)` /   left: `2`, /  right: `3`
            "#]],
        );
    }

    #[test]
    fn libtest_build_failure_reports_rustc_errors() {
        check(
            &Libtest,
            "   Compiling tiny v0.1.0
error[E0308]: mismatched types
 --> src/lib.rs:2:5
  |
2 |     \"x\"
  |     ^^^ expected `u32`, found `&str`

error: could not compile `tiny` (lib) due to 1 previous error
",
            expect![[r#"
                passed=0 failed=0 skipped=0 recognised=true
                E0308 @ src/lib.rs:2 | mismatched types
            "#]],
        );
    }
}
