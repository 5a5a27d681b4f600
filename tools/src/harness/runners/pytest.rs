//! pytest: recognised by its program (or `python -m pytest`), narrowed to a file or folder to
//! collect or to a `-k` expression, and read from its summary, failure sections and short test
//! summary.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words};

pub(super) struct Pytest;

impl Runner for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("pytest") || command.contains("-m pytest")
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        Ok(if scope.is_path {
            format!("{} {}", check.command, scope.quoted())
        } else {
            format!("{} -k {}", check.command, scope.quoted())
        })
    }

    fn read(&self, output: &str) -> Parsed {
        pytest(output)
    }
}

/// pytest's final summary (`1 failed, 3 passed in 0.05s`), its `FAILURES`/`ERRORS` sections
/// (long or short tracebacks: `path:line: …` frames and `E   ` lines) and its short test
/// summary (`FAILED node - message`).
fn pytest(output: &str) -> Parsed {
    static SUMMARY: OnceLock<Regex> = OnceLock::new();
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static SECTION: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static SHORT: OnceLock<Regex> = OnceLock::new();
    let summary = re(
        &SUMMARY,
        r"^=*\s*((?:\d+ (?:failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+)(?: in [\d.]+s.*)?\s*=*\s*$",
    );
    let count = re(&COUNT, r"(\d+) (failed|passed|skipped|errors?|xfailed|xpassed)");
    let section = re(&SECTION, r"^_{3,} (.+?) _{3,}$");
    let frame = re(&FRAME, r"^([^\s:][^:]*\.py):(\d+):(?: in (\S+)|\s|$)");
    let short = re(&SHORT, r"^(FAILED|ERROR) (\S+)(?: - (.*))?$");

    let mut parsed = Parsed::default();
    for line in output.lines() {
        if let Some(caps) = summary.captures(line.trim()) {
            parsed.recognised = true;
            let (mut passed, mut failed, mut skipped) = (0, 0, 0);
            for c in count.captures_iter(&caps[1]) {
                let n: u64 = c[1].parse().unwrap_or(0);
                match &c[2] {
                    "passed" | "xpassed" => passed += n,
                    "failed" | "error" | "errors" => failed += n,
                    _ => skipped += n,
                }
            }
            parsed.passed = passed;
            parsed.failed = failed;
            parsed.skipped = skipped;
        }
    }

    // Failure sections: a `____ name ____` header, then frames and `E` lines until the next
    // header or a `====` rule.
    let mut sections: Vec<(String, Failure)> = Vec::new();
    let mut current: Option<(String, Failure, Vec<String>)> = None;
    let mut in_failures = false;
    let finish = |current: &mut Option<(String, Failure, Vec<String>)>,
                  sections: &mut Vec<(String, Failure)>| {
        if let Some((name, mut failure, messages)) = current.take() {
            failure.message = clip(&messages.join("\n"), 600);
            sections.push((name, failure));
        }
    };
    for line in output.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("====") {
            finish(&mut current, &mut sections);
            in_failures = trimmed.contains(" FAILURES ") || trimmed.contains(" ERRORS ");
            continue;
        }
        if !in_failures {
            continue;
        }
        if let Some(caps) = section.captures(trimmed) {
            finish(&mut current, &mut sections);
            let name = caps[1].trim_start_matches("ERROR at setup of ").trim().to_string();
            current = Some((name, Failure::default(), Vec::new()));
            continue;
        }
        let Some((name, failure, messages)) = current.as_mut() else { continue };
        if let Some(caps) = frame.captures(line) {
            let func = caps.get(3).map(|m| m.as_str());
            let test_fn = name.rsplit(['.', ':']).next().unwrap_or(name).split('[').next().unwrap_or("");
            // The frame in the test function itself wins; otherwise keep the first frame
            // (long tracebacks end with `path:line: AssertionError`, which has no function).
            if failure.path.is_none() || func == Some(test_fn) {
                failure.path = Some(caps[1].to_string());
                failure.line = caps[2].parse().ok();
            }
        } else if let Some(message) = line.strip_prefix("E ") {
            messages.push(message.trim().to_string());
        }
    }
    finish(&mut current, &mut sections);

    // The short summary names each failure by node id; pair it with its section.
    let mut seen = std::collections::BTreeSet::new();
    for line in output.lines() {
        let Some(caps) = short.captures(line.trim_end()) else { continue };
        let node = caps[2].to_string();
        if !seen.insert(node.clone()) {
            continue;
        }
        let file = node.split("::").next().unwrap_or(&node).to_string();
        let func = node.rsplit("::").next().unwrap_or(&node);
        let from_section = sections
            .iter()
            .position(|(name, _)| name == func || name.ends_with(&format!(".{func}")) || name == &node)
            .map(|i| sections.remove(i).1);
        let mut failure = from_section.unwrap_or_default();
        failure.test = Some(node);
        if failure.path.is_none() {
            failure.path = Some(file);
        }
        if failure.message.is_empty() {
            failure.message = caps.get(3).map(|m| m.as_str().to_string()).unwrap_or_default();
        }
        if failure.message.is_empty() {
            failure.message = format!("{} (no message)", &caps[1]);
        }
        parsed.failures.push(failure);
    }
    // Without a short summary (-rN), the sections alone.
    for (name, mut failure) in sections {
        failure.test = Some(name);
        if failure.message.is_empty() {
            failure.message = "failed (no message)".into();
        }
        parsed.failures.push(failure);
    }
    if parsed.failed == 0 && !parsed.failures.is_empty() && !parsed.recognised {
        parsed.failed = parsed.failures.len() as u64;
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::runners::check;
    use expect_test::expect;

    #[test]
    fn pytest_short_tracebacks() {
        check(
            &Pytest,
            "..F.                                                                     [100%]
=================================== FAILURES ===================================
__________________________________ test_total __________________________________
tests/test_cart.py:12: in test_total
    assert total([1, 2]) == 4
E   assert 3 == 4
E    +  where 3 = total([1, 2])
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_total - assert 3 == 4
1 failed, 3 passed in 0.05s
",
            expect![[r#"
                passed=3 failed=1 skipped=0 recognised=true
                tests/test_cart.py::test_total @ tests/test_cart.py:12 | assert 3 == 4 / +  where 3 = total([1, 2])
            "#]],
        );
    }

    #[test]
    fn pytest_long_tracebacks_in_a_class_with_errors_and_skips() {
        check(
            &Pytest,
            "=================================== FAILURES ===================================
___________________________ TestCart.test_add ___________________________

self = <test_cart.TestCart object at 0x7f>

    def test_add(self):
>       assert add(1, 1) == 3
E       assert 2 == 3

tests/test_cart.py:8: AssertionError
===================== 1 failed, 2 passed, 1 skipped, 1 error in 0.12s =====================
",
            expect![[r#"
                passed=2 failed=2 skipped=1 recognised=true
                TestCart.test_add @ tests/test_cart.py:8 | assert 2 == 3
            "#]],
        );
    }
}
