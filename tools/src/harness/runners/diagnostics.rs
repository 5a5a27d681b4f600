//! Lint and compiler diagnostics, one a line or in rustc's blocks: what ruff, flake8, mypy,
//! clippy, tsc, `go vet` and javac print. Narrowed to a path to check, except tsc, which checks
//! its whole project or nothing; also the reader other runners fall back on when a build fails
//! before any test runs.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Reports, Runner, Scope, Words};

pub(super) struct Diagnostics;

impl Runner for Diagnostics {
    fn name(&self) -> &'static str {
        "diagnostics"
    }

    fn reports(&self) -> Reports {
        Reports::Diagnostics
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        ["ruff", "flake8", "clippy", "mypy", "pyflakes"].iter().any(|linter| command.has(linter))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        // tsc given files ignores tsconfig.json: it checks the whole project or nothing.
        if check.command.contains("tsc ") {
            return Err(format!("skipped: {} checks the whole project, not a scope", check.name));
        }
        if !scope.is_path {
            return Err(format!(
                "skipped: scope {:?} is a test name, not a path {} can check",
                scope.text, check.name
            ));
        }
        Ok(format!("{} {}", check.command, scope.quoted()))
    }

    fn read(&self, output: &str) -> Parsed {
        diagnostics(output)
    }
}

/// Lint and compiler diagnostics: `path:line:col: message` (ruff's concise output, flake8,
/// mypy, javac, `go vet`, ESLint's unix format), rustc-style blocks (`error[E0308]: message` then
/// ` --> path:line:col`, clippy included), tsc's `path(line,col)`, ESLint's compact format and
/// javac's errors as Maven prints them. Warnings that a format marks as such are left out.
fn diagnostics(output: &str) -> Parsed {
    static FLAT: OnceLock<Regex> = OnceLock::new();
    static HEAD: OnceLock<Regex> = OnceLock::new();
    static ARROW: OnceLock<Regex> = OnceLock::new();
    let flat = re(&FLAT, r"^([^\s:][^:]*):(\d+):(?:(\d+):)? (?:(error|warning|note): )?(.+)$");
    let head = re(&HEAD, r"^(error|warning)(?:\[([^\]]+)\])?: (.+)$");
    let arrow = re(&ARROW, r"^\s*--> ([^:]+):(\d+):\d+$");
    // tsc (`--pretty false`) and MSBuild-style compilers: `src/a.ts(5,14): error TS2322: …`.
    static PAREN: OnceLock<Regex> = OnceLock::new();
    let paren = re(&PAREN, r"^([^\s(][^(]*)\((\d+),\d+\): (?:error|warning) ([A-Z]+\d+): (.+)$");
    // ESLint's compact format (`path: line 3, col 9, Error - message (rule)`) and javac through
    // Maven (`[ERROR] path:[11,23] message`, printed twice).
    static COMPACT: OnceLock<Regex> = OnceLock::new();
    let compact = re(&COMPACT, r"^(.+): line (\d+), col \d+, (Error|Warning) - (.+?)(?: \(([\w@/\-]+)\))?$");
    static MAVEN: OnceLock<Regex> = OnceLock::new();
    let maven = re(&MAVEN, r"^\[(ERROR|WARNING)\] (.+?):\[(\d+),\d+\] (.+)$");
    // ESLint's unix format ends a message with `[Error/rule]` or `[Warning/rule]`.
    static SEVERITY: OnceLock<Regex> = OnceLock::new();
    let severity = re(&SEVERITY, r"^(.+) \[(Error|Warning)(?:/([\w@/\-]+))?\]$");
    let output = strip_ansi(output);
    let mut parsed = Parsed::default();
    let mut pending: Option<(Option<String>, String)> = None;
    for line in output.lines() {
        let line = line.trim_end();
        let tagged = compact
            .captures(line)
            .map(|c| (c[3].to_string(), c[1].to_string(), c[2].to_string(), c[4].to_string(), c.get(5)))
            .or_else(|| {
                maven
                    .captures(line)
                    .map(|c| (c[1].to_string(), c[2].to_string(), c[3].to_string(), c[4].to_string(), None))
            });
        if let Some((level, path, line_no, message, code)) = tagged {
            let failure = Failure {
                test: code.map(|m| m.as_str().to_string()),
                path: Some(path),
                line: line_no.parse().ok(),
                message: clip(message.trim(), 600),
            };
            if level.eq_ignore_ascii_case("error") && !parsed.failures.contains(&failure) {
                parsed.failures.push(failure);
            }
            continue;
        }
        if let Some(caps) = head.captures(line) {
            pending = Some((caps.get(2).map(|m| m.as_str().to_string()), caps[3].to_string()));
            continue;
        }
        if let Some(caps) = arrow.captures(line) {
            if let Some((code, message)) = pending.take() {
                parsed.failures.push(Failure {
                    test: code,
                    path: Some(caps[1].to_string()),
                    line: caps[2].parse().ok(),
                    message: clip(&message, 600),
                });
            }
            continue;
        }
        if let Some(caps) = paren.captures(line) {
            parsed.failures.push(Failure {
                test: Some(caps[3].to_string()),
                path: Some(caps[1].to_string()),
                line: caps[2].parse().ok(),
                message: clip(caps[4].trim(), 600),
            });
            continue;
        }
        if let Some(caps) = flat.captures(line) {
            // A note is a continuation of the diagnostic before it, not a new one.
            if caps.get(4).is_some_and(|m| m.as_str() == "note") {
                continue;
            }
            let message = caps[5].trim().to_string();
            let (code, message) = if let Some(tagged) = severity.captures(&message) {
                if &tagged[2] == "Warning" {
                    continue;
                }
                (tagged.get(3).map(|m| m.as_str().to_string()), tagged[1].to_string())
            } else {
                match message.split_once(' ') {
                    Some((code, rest)) if looks_like_code(code) => (Some(code.to_string()), rest.to_string()),
                    _ => (None, message),
                }
            };
            parsed.failures.push(Failure {
                test: code,
                path: Some(caps[1].to_string()),
                line: caps[2].parse().ok(),
                message: clip(&message, 600),
            });
        }
    }
    parsed.recognised = !parsed.failures.is_empty();
    parsed.failed = parsed.failures.len() as u64;
    parsed
}

/// A lint code such as `F401`, `E501` or `W0611`.
fn looks_like_code(word: &str) -> bool {
    let letters = word.chars().take_while(|c| c.is_ascii_uppercase()).count();
    letters > 0 && word.len() > letters && word[letters..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::runners::check;
    use crate::harness::runners::junit::Junit;
    use expect_test::expect;

    #[test]
    fn eslint_compact_and_unix_and_mavens_compiler_errors_are_diagnostics() {
        // ESLint 8.57, captured, in both of its line formats: errors listed, the warning not.
        let compact = "/repo/src/broken.js: line 1, col 10, Error - Parsing error: Unexpected token (
/repo/src/lint.js: line 1, col 7, Error - 'unused' is assigned a value but never used. (no-unused-vars)
/repo/src/lint.js: line 3, col 9, Error - Expected '===' and instead saw '=='. (eqeqeq)
/repo/src/lint.js: line 3, col 22, Warning - 'missing' is not defined. (no-undef)

4 problems
";
        let unix = "/repo/src/broken.js:1:10: Parsing error: Unexpected token ( [Error]
/repo/src/lint.js:1:7: 'unused' is assigned a value but never used. [Error/no-unused-vars]
/repo/src/lint.js:3:9: Expected '===' and instead saw '=='. [Error/eqeqeq]
/repo/src/lint.js:3:22: 'missing' is not defined. [Warning/no-undef]

4 problems
";
        for out in [compact, unix] {
            let parsed = Diagnostics.read(out);
            let seen: Vec<(Option<&str>, Option<u64>, &str)> =
                parsed.failures.iter().map(|f| (f.test.as_deref(), f.line, f.message.as_str())).collect();
            assert_eq!(
                seen,
                [
                    (None, Some(1), "Parsing error: Unexpected token ("),
                    (Some("no-unused-vars"), Some(1), "'unused' is assigned a value but never used."),
                    (Some("eqeqeq"), Some(3), "Expected '===' and instead saw '=='."),
                ],
                "{out}"
            );
        }
        // Maven 3.8's compiler failure, captured (colour codes and all): each error once.
        let maven = "\x1b[0m\x1b[0m[ERROR] COMPILATION ERROR : \n[ERROR] /repo/src/main/java/calc/Calc.java:[11,23] ';' expected\n\
            [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.10.1:compile (default-compile) on project calc: Compilation failure\n\
            [ERROR] /repo/src/main/java/calc/Calc.java:[11,23] ';' expected\n[ERROR] -> [Help 1]\n";
        let parsed = Junit.read(maven);
        assert_eq!(
            parsed.failures,
            [Failure {
                test: None,
                path: Some("/repo/src/main/java/calc/Calc.java".into()),
                line: Some(11),
                message: "';' expected".into(),
            }]
        );
    }

    #[test]
    fn tsc_diagnostics_name_the_code_file_and_line() {
        // tsc 5.6 with --pretty false.
        let out = "src/calc.ts(5,14): error TS2322: Type 'string' is not assignable to type 'number'.\n";
        let parsed = Diagnostics.read(out);
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("TS2322".into()),
                path: Some("src/calc.ts".into()),
                line: Some(5),
                message: "Type 'string' is not assignable to type 'number'.".into(),
            }]
        );
    }

    #[test]
    fn lint_diagnostics() {
        check(
            &Diagnostics,
            "app/main.py:3:8: F401 [*] `os` imported but unused
app/main.py:10:1: E302 expected 2 blank lines, found 1
Found 2 errors.
warning: this `if` has identical blocks
  --> src/lib.rs:5:9
   |
warning: 1 warning emitted
",
            expect![[r#"
                passed=0 failed=3 skipped=0 recognised=true
                F401 @ app/main.py:3 | [*] `os` imported but unused
                E302 @ app/main.py:10 | expected 2 blank lines, found 1
                - @ src/lib.rs:5 | this `if` has identical blocks
            "#]],
        );
    }
}
