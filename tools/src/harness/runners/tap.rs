//! The Test Anything Protocol, as node's test runner (`--test-reporter=tap`), Mocha (`--reporter
//! tap`), Bats (`bats --tap`) and busted (`busted -o TAP`) write it: narrowed to files to run, or to a name pattern in each
//! one's own flag, and read from its result lines, their details and its closing counts.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words};

pub(super) struct Tap;

impl Runner for Tap {
    fn name(&self) -> &'static str {
        "tap"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.contains("--test-reporter=tap")
            || command.contains("--reporter tap")
            || (command.has("bats")
                && (command.has("--tap") || command.has("-t") || command.contains("--formatter tap")))
            || (command.has("busted") && (command.contains("-o TAP") || command.contains("--output=TAP")))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let bats = Words::of(check.command).has("bats");
        Ok(if scope.is_path && bats {
            // Bats runs the folders it is given: a path replaces them (`test`, the last word).
            let command = check.command.trim_end();
            let given = command.rsplit_once(' ').filter(|(_, last)| !last.starts_with('-'));
            match given {
                Some((head, _)) => format!("{head} {}", scope.quoted()),
                None => format!("{command} {}", scope.quoted()),
            }
        } else if scope.is_path {
            format!("{} {}", check.command, scope.quoted())
        } else if bats || Words::of(check.command).has("busted") {
            format!("{} --filter {}", check.command, scope.quoted())
        } else if check.command.contains("--reporter tap") {
            // Mocha's name filter.
            format!("{} --grep {}", check.command, scope.quoted())
        } else {
            format!("{} --test-name-pattern={}", check.command, scope.quoted())
        })
    }

    fn read(&self, output: &str) -> Parsed {
        tap(output)
    }
}

/// TAP 13 as node's test runner and Mocha's TAP reporter write it: `ok`/`not ok N - name` lines
/// (nested subtests indented), the details under a failure (node's YAML block with `location`,
/// `error` and `stack`; Mocha's indented message and stack lines), and the closing `# pass N` /
/// `# fail N` / `# skipped N` counts, which count tests rather than suites. A parent whose
/// subtests failed (`failureType: 'subtestsFailed'`) is no failure of its own. The file and
/// line are the first stack frame in a file of the repository (the assertion), else
/// `location` (the test's declaration). A file that crashed before its tests ran fails as a
/// whole with node's `test failed`: the error it printed above, as `# ` comments, is its message.
fn tap(output: &str) -> Parsed {
    static RESULT: OnceLock<Regex> = OnceLock::new();
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let result = re(&RESULT, r"^(\s*)(not ok|ok)\s+\d+(?:\s+-)?\s*(.*?)\s*(#\s*((?i)skip|todo)\b.*)?$");
    let count = re(&COUNT, r"^#\s+(pass|fail|skipped|todo|cancelled|tests)\s+(\d+)\s*$");
    let place = re(&PLACE, r"\(?((?:file://)?[^\s()']+?\.(?:[cm]?[jt]sx?|bats|lua)):(\d+)(?::\d+)?\)?");
    let output = strip_ansi(output);
    let lines: Vec<&str> = output.lines().collect();
    let mut parsed = Parsed::default();
    let (mut passed, mut failed, mut skipped) = (None::<u64>, None::<u64>, None::<u64>);
    let (mut seen_ok, mut seen_fail, mut seen_skip) = (0u64, 0u64, 0u64);
    // `# ` lines since the last result: what a crashing file printed.
    let mut comments: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(c) = count.captures(line) {
            parsed.recognised = true;
            let n: u64 = c[2].parse().unwrap_or(0);
            let slot = match &c[1] {
                "pass" => &mut passed,
                "fail" | "cancelled" => &mut failed,
                "tests" => {
                    i += 1;
                    continue;
                }
                _ => &mut skipped,
            };
            *slot = Some(slot.unwrap_or(0) + n);
            i += 1;
            continue;
        }
        let Some(c) = result.captures(line) else {
            if let Some(comment) = line.trim_start().strip_prefix("# ") {
                comments.push(comment);
            }
            i += 1;
            continue;
        };
        parsed.recognised = true;
        let depth = c[1].len();
        let name = c[3].to_string();
        let directive = c.get(5).is_some();
        // The details below the result: a YAML block, or lines indented deeper than it.
        let mut block: Vec<&str> = Vec::new();
        let yaml = lines.get(i + 1).is_some_and(|l| l.trim() == "---");
        if yaml {
            let mut j = i + 2;
            while j < lines.len() && lines[j].trim() != "..." {
                block.push(lines[j]);
                j += 1;
            }
            i = j;
        } else {
            while let Some(next) = lines.get(i + 1)
                && (next.trim().is_empty() || next.len() - next.trim_start().len() > depth)
                && !result.is_match(next)
            {
                block.push(next);
                i += 1;
            }
        }
        // Bats: the failure's details are the `# ` comments under it, from `(in test file …)`.
        let bats = block.is_empty()
            && lines.get(i + 1).is_some_and(|l| {
                let l = l.trim_start();
                l.starts_with("# (in test file") || l.starts_with("# (from function")
            });
        // busted: `# spec/x_spec.lua @ 7` (the test), then `# Failure message: file:line: …`.
        let busted = block.is_empty()
            && lines.get(i + 1).is_some_and(|l| l.starts_with("# ") && l.trim_end().contains(".lua @ "));
        if bats || busted {
            while let Some(next) = lines.get(i + 1)
                && let Some(comment) = next.trim_start().strip_prefix('#')
                && !count.is_match(next)
            {
                block.push(comment);
                i += 1;
            }
        }
        i += 1;
        let printed = std::mem::take(&mut comments);
        if directive {
            seen_skip += 1;
            continue;
        }
        if &c[2] == "ok" {
            seen_ok += 1;
            continue;
        }
        let field = |key: &str| {
            block.iter().position(|l| l.trim_start().starts_with(&format!("{key}:"))).map(|at| {
                let first = block[at].trim_start()[key.len() + 1..].trim().to_string();
                if first.starts_with('|') || first.is_empty() {
                    // A block scalar: the more-indented lines after it.
                    let depth = block[at].len() - block[at].trim_start().len();
                    block[at + 1..]
                        .iter()
                        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > depth)
                        .map(|l| l.trim())
                        .collect::<Vec<_>>()
                        .join("\n")
                        .trim()
                        .to_string()
                } else {
                    first.trim_matches('\'').to_string()
                }
            })
        };
        if yaml && field("failureType").as_deref() == Some("subtestsFailed") {
            continue;
        }
        seen_fail += 1;
        let (mut message, frames, location) = if bats {
            bats_details(&block)
        } else if busted {
            busted_details(&block)
        } else if yaml {
            (
                field("error").unwrap_or_default(),
                field("stack").unwrap_or_default(),
                field("location").unwrap_or_default(),
            )
        } else {
            // Mocha: the message, then the error's name and its stack.
            let text: Vec<&str> = block.iter().map(|l| l.trim()).collect();
            let first_frame = text.iter().position(|l| l.starts_with("at ")).unwrap_or(text.len());
            let message: Vec<&str> = text[..first_frame]
                .iter()
                .copied()
                .take_while(|l| {
                    !l.split(' ').next().is_some_and(|w| w.ends_with("Error") || w.ends_with("Error:"))
                })
                .collect();
            (message.join("\n"), text[first_frame..].join("\n"), String::new())
        };
        let mut frames = frames;
        if message.trim().is_empty() || message == "test failed" {
            // The file crashed before any test: what it printed says why, and where.
            if let Some(error) = printed.iter().find(|l| l.contains("Error")) {
                message = error.trim().to_string();
            }
            frames = printed
                .iter()
                .map(|l| l.trim())
                .filter(|l| l.starts_with("at "))
                .collect::<Vec<_>>()
                .join("\n");
        }
        let at = frames
            .lines()
            .filter(|f| !f.contains("node:") && !f.contains("node_modules"))
            .find_map(|f| place.captures(f))
            .or_else(|| place.captures(&location));
        let (path, line_no) = match at {
            Some(c) => (Some(c[1].trim_start_matches("file://").to_string()), c[2].parse().ok()),
            None => (None, None),
        };
        let message = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
        parsed.failures.push(Failure { test: Some(name), path, line: line_no, message: clip(&message, 300) });
    }
    parsed.passed = passed.unwrap_or(seen_ok);
    parsed.failed = failed.unwrap_or(seen_fail);
    parsed.skipped = skipped.unwrap_or(seen_skip);
    parsed
}

/// A Bats failure's comments: `(in test file test/x.bats, line 11)` (after `(from function …`
/// lines when a helper failed) says where, the lines after it what failed; returned as the
/// message, and the place as a `file:line` frame.
fn bats_details(comments: &[&str]) -> (String, String, String) {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let place = re(&PLACE, r"in test file (.+?), line (\d+)\)");
    let at = comments.iter().find_map(|c| place.captures(c));
    let message: Vec<&str> = comments
        .iter()
        .map(|c| c.trim())
        .filter(|c| !c.is_empty() && !c.starts_with("(in test file") && !c.starts_with("in test file"))
        .filter(|c| !c.starts_with("(from function"))
        .collect();
    let location = at.map(|c| format!("{}:{}", &c[1], &c[2])).unwrap_or_default();
    (message.join("\n"), String::new(), location)
}

/// A busted failure's comments: `spec/x_spec.lua @ 7` (where the test is declared), then
/// `Failure message: spec/x_spec.lua:8: Expected objects to be equal.` (where it failed) and what
/// was passed and expected; returned as the message, and the failing line as a `file:line` frame.
fn busted_details(comments: &[&str]) -> (String, String, String) {
    static DECLARED: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    let declared = re(&DECLARED, r"^\s*(\S+\.lua) @ (\d+)\s*$");
    let failed = re(&FAILED, r"^\s*(?:Failure|Error) message: (\S+\.lua):(\d+): ?(.*)$");
    let mut location = String::new();
    let mut message: Vec<&str> = Vec::new();
    for comment in comments {
        if let Some(c) = failed.captures(comment) {
            location = format!("{}:{}", &c[1], &c[2]);
            message.push(c.get(3).map_or("", |m| m.as_str()).trim());
        } else if let Some(c) = declared.captures(comment) {
            if location.is_empty() {
                location = format!("{}:{}", &c[1], &c[2]);
            }
        } else if !comment.trim().is_empty() {
            message.push(comment.trim());
        }
    }
    (message.join("\n"), String::new(), location)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `busted -o TAP` (busted 2.1.1, Debian's `lua-busted`, Lua 5.1) on a module whose `total`
    /// subtracts 1 by mistake, with a pending test, captured here.
    #[test]
    fn busted_tap_places_a_failure_at_its_assertion() {
        let output = "ok 1 - calc adds
not ok 2 - calc sums prices
# spec/calc_spec.lua @ 9
# Failure message: spec/calc_spec.lua:10: Expected objects to be equal.
# Passed in:
# (number) 2
# Expected:
# (number) 3
ok 3 - # SKIP calc rounds later
1..3
";
        let parsed = Tap.read(output);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("calc sums prices".into()),
                path: Some("spec/calc_spec.lua".into()),
                line: Some(10),
                message: "Expected objects to be equal. Passed in: (number) 2 Expected: (number) 3".into(),
            }]
        );
        assert!(Tap.recognises(&Words::of("busted -o TAP")));
        let check = Invocation { name: "busted", command: "busted -o TAP" };
        let by_name = Tap.narrow(&check, &Scope { text: "sums prices", is_path: false });
        assert_eq!(by_name.as_deref(), Ok("busted -o TAP --filter 'sums prices'"));
        let by_file = Tap.narrow(&check, &Scope { text: "spec/calc_spec.lua", is_path: true });
        assert_eq!(by_file.as_deref(), Ok("busted -o TAP spec/calc_spec.lua"));
    }

    /// node 20's `--test-reporter=tap`, captured from a project with a passing, a failing and a
    /// skipped test, and a `describe` whose child failed.
    const NODE_TAP: &str = "TAP version 13
# Subtest: add adds
ok 1 - add adds
  ---
  duration_ms: 1.157685
  ...
# Subtest: total sums prices
not ok 2 - total sums prices
  ---
  duration_ms: 1.12949
  location: '/repo/test/calc.test.js:9:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
    
    2 !== 3
    
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 3
  actual: 2
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (/repo/test/calc.test.js:10:10)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
  ...
# Subtest: later
ok 3 - later # SKIP
  ---
  duration_ms: 0.159846
  ...
# Subtest: cart
    # Subtest: empties
    not ok 1 - empties
      ---
      duration_ms: 0.5
      location: '/repo/test/cart.test.js:4:3'
      failureType: 'testCodeFailure'
      error: 'cart is not empty'
      stack: |-
        TestContext.<anonymous> (/repo/test/cart.test.js:5:12)
      ...
    1..1
not ok 4 - cart
  ---
  duration_ms: 1.2
  type: 'suite'
  location: '/repo/test/cart.test.js:3:1'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
1..4
# tests 4
# suites 1
# pass 1
# fail 2
# cancelled 0
# skipped 1
# todo 0
# duration_ms 210.727367
";

    #[test]
    fn node_tap_counts_tests_and_names_each_failing_assertion() {
        let parsed = Tap.read(NODE_TAP);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 2, 1));
        assert_eq!(
            parsed.failures,
            [
                Failure {
                    test: Some("total sums prices".into()),
                    path: Some("/repo/test/calc.test.js".into()),
                    line: Some(10),
                    message: "Expected values to be strictly equal: 2 !== 3".into(),
                },
                Failure {
                    test: Some("empties".into()),
                    path: Some("/repo/test/cart.test.js".into()),
                    line: Some(5),
                    message: "cart is not empty".into(),
                },
            ]
        );
        // The same in colour reads the same.
        let coloured =
            NODE_TAP.replace("not ok", "\x1b[31mnot ok\x1b[39m").replace("# pass", "\x1b[32m# pass\x1b[39m");
        assert_eq!(Tap.read(&coloured), parsed);
    }

    #[test]
    fn tap_from_a_file_that_crashed_and_from_mocha_names_the_failure() {
        // node 20: a test file whose require fails, captured (paths shortened to /repo).
        let crashed = "TAP version 13
# node:internal/modules/cjs/loader:1210
#   throw err;
#   ^
# Error: Cannot find module '../calcx'
# Require stack:
# - /repo/test/calc.test.js
#     at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
#     at require (node:internal/modules/helpers:182:18)
#     at Object.<anonymous> (/repo/test/calc.test.js:3:24)
#     at Module._compile (node:internal/modules/cjs/loader:1521:14)
# Node.js v20.20.2
# Subtest: /repo/test/calc.test.js
not ok 1 - /repo/test/calc.test.js
  ---
  duration_ms: 59.12375
  location: '/repo/test/calc.test.js:1:1'
  failureType: 'testCodeFailure'
  exitCode: 1
  signal: ~
  error: 'test failed'
  code: 'ERR_TEST_FAILURE'
  ...
1..1
# tests 1
# suites 0
# pass 0
# fail 1
# cancelled 0
# skipped 0
# todo 0
";
        let parsed = Tap.read(crashed);
        assert_eq!((parsed.passed, parsed.failed), (0, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("/repo/test/calc.test.js".into()),
                path: Some("/repo/test/calc.test.js".into()),
                line: Some(3),
                message: "Error: Cannot find module '../calcx'".into(),
            }]
        );
        // Mocha 10.7 with --reporter tap, captured: plain indented details, a skip the counts
        // leave out.
        let mocha = "ok 1 calc adds
not ok 2 calc sums prices
  Expected values to be strictly equal:
  
  2 !== 3
  
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
  
  2 !== 3
  
      at Context.<anonymous> (test/calc.test.js:9:12)
      at process.processImmediate (node:internal/timers:483:21)
ok 3 calc later # SKIP -
# tests 2
# pass 1
# fail 1
1..3
";
        let parsed = Tap.read(mocha);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("calc sums prices".into()),
                path: Some("test/calc.test.js".into()),
                line: Some(9),
                message: "Expected values to be strictly equal: 2 !== 3".into(),
            }]
        );
        // Nothing but a crash of node itself, no TAP: not read.
        assert!(!Tap.read("node: bad option: --test-reporter=tap\n").recognised);
    }

    #[test]
    fn bats_tap_places_a_failure_at_its_test_file_line() {
        // Bats 1.8.2 (Debian's bats) run here with `bats --tap test` on fixtures/verify_bats,
        // captured; then, captured the same way, a test whose failing command is in a helper it
        // loads.
        let output = "1..3
ok 1 add adds two numbers
not ok 2 total sums prices
# (in test file test/calc.bats, line 11)
#   `[ \"$result\" -eq 3 ]' failed
ok 3 rounds later # skip later
";
        let parsed = Tap.read(output);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("total sums prices".into()),
                path: Some("test/calc.bats".into()),
                line: Some(11),
                message: "`[ \"$result\" -eq 3 ]' failed".into(),
            }]
        );
        let helper = "1..1
not ok 1 total sums prices
# (from function `check_total' in file test/helper.bash, line 3,
#  in test file test/calc.bats, line 5)
#   `check_total' failed
# the sum was 2
";
        let parsed = Tap.read(helper);
        assert_eq!((parsed.passed, parsed.failed), (0, 1));
        assert_eq!(
            (
                parsed.failures[0].path.as_deref(),
                parsed.failures[0].line,
                parsed.failures[0].message.as_str()
            ),
            (Some("test/calc.bats"), Some(5), "`check_total' failed the sum was 2")
        );
        // Cut after the result line: the failure, without its place.
        let parsed = Tap.read("1..3\nok 1 a\nnot ok 2 total sums prices\n# (in test file test/ca");
        assert_eq!((parsed.passed, parsed.failed), (1, 1));
    }

    #[test]
    fn bats_is_recognised_and_narrowed() {
        assert!(Tap.recognises(&Words::of("bats --tap test")));
        assert!(!Tap.recognises(&Words::of("bats test")));
        let check = Invocation { name: "bats", command: "bats --tap test" };
        let by_file = Tap.narrow(&check, &Scope { text: "test/calc.bats", is_path: true });
        assert_eq!(by_file.as_deref(), Ok("bats --tap test/calc.bats"));
        let by_name = Tap.narrow(&check, &Scope { text: "total sums", is_path: false });
        assert_eq!(by_name.as_deref(), Ok("bats --tap test --filter 'total sums'"));
    }
}
