//! Minitest's text report, as `rake test` or `ruby -Itest …` prints it: narrowed to a test file
//! or to `--name` a test, and read from its numbered failures and closing counts.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Minitest;

impl Runner for Minitest {
    fn name(&self) -> &'static str {
        "minitest"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.contains("minitest")
            || (command.has("rake") && command.has("test"))
            || (command.has("ruby") && command.contains("_test.rb"))
    }

    /// `rake test` takes a file as `TEST=` and a name as `TESTOPTS=--name=`; a `ruby -e` that
    /// loads the test files runs one file instead, or passes `--name` after `--`.
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let command = check.command;
        let name = || shell_quote(&format!("--name=/{}/", regex::escape(scope.text)));
        if command.contains("rake") {
            return Ok(if scope.is_path {
                format!("{command} TEST={}", scope.quoted())
            } else {
                format!("{command} TESTOPTS={}", name())
            });
        }
        if scope.is_path {
            if !scope.text.ends_with(".rb") {
                return Err(format!(
                    "skipped: scope {:?} is not a test file, and {} runs test files",
                    scope.text, check.name
                ));
            }
            let ruby_end = command.find(" -e ").unwrap_or(command.len());
            return Ok(format!("{} {}", &command[..ruby_end], scope.quoted()));
        }
        Ok(format!("{command} -- {}", name()))
    }

    fn read(&self, output: &str) -> Parsed {
        minitest(output)
    }
}

/// Minitest's report: `N runs, N assertions, N failures, N errors, N skips` (passed is the runs
/// less the rest), and each numbered `Failure:` (`Class#test [file:line]:` then the message) and
/// `Error:` (`Class#test:`, the exception, then its backtrace, whose first frame outside Ruby's
/// and the gems' own files is the place).
fn minitest(output: &str) -> Parsed {
    static COUNTS: OnceLock<Regex> = OnceLock::new();
    static HEAD: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    static ERRED: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let counts = re(
        &COUNTS,
        r"^(\d+) (?:runs|tests), \d+ assertions, (\d+) failures, (\d+) errors, (\d+) (?:skips|pendings|omissions)",
    );
    let head = re(&HEAD, r"^\s*\d+\) (Failure|Error):\s*$");
    let failed = re(&FAILED, r"^(\S+#\S+) \[(.+?\.rb):(\d+)\]:\s*$");
    let erred = re(&ERRED, r"^(\S+#\S+):\s*$");
    let frame = re(&FRAME, r"^\s*(.+?\.rb):(\d+):in ");
    let output = strip_ansi(output);
    let lines: Vec<&str> = output.lines().collect();
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < lines.len() {
        if let Some(c) = counts.captures(lines[i]) {
            parsed.recognised = true;
            let n = |k: usize| c[k].parse::<u64>().unwrap_or(0);
            let (runs, failures, errors, skips) = (n(1), n(2), n(3), n(4));
            parsed.failed += failures + errors;
            parsed.skipped += skips;
            parsed.passed += runs.saturating_sub(failures + errors + skips);
            i += 1;
            continue;
        }
        let Some(kind) = head.captures(lines[i]).map(|c| c[1].to_string()) else {
            i += 1;
            continue;
        };
        // The block: up to the next blank line after its message (an error's backtrace follows
        // its source excerpt, so up to the next numbered block or the counts).
        let mut body: Vec<&str> = Vec::new();
        i += 1;
        while i < lines.len() && !head.is_match(lines[i]) && !counts.is_match(lines[i]) {
            body.push(lines[i]);
            i += 1;
        }
        let Some(first) = body.first() else { continue };
        let rest: Vec<&str> = body[1..].iter().map(|l| l.trim_end()).collect();
        if kind == "Failure"
            && let Some(c) = failed.captures(first)
        {
            let message: Vec<&str> =
                rest.iter().take_while(|l| !l.trim().is_empty()).map(|l| l.trim()).collect();
            parsed.failures.push(Failure {
                test: Some(c[1].to_string()),
                path: Some(c[2].to_string()),
                line: c[3].parse().ok(),
                message: clip(&message.join("\n"), 300),
            });
        } else if let Some(c) = erred.captures(first) {
            let message = rest.iter().map(|l| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
            let at = rest
                .iter()
                .filter_map(|l| frame.captures(l))
                .find(|f| !f[1].contains("/gems/") && !f[1].contains("/lib/ruby/"));
            parsed.failures.push(Failure {
                test: Some(c[1].to_string()),
                path: at.as_ref().map(|f| f[1].to_string()),
                line: at.as_ref().and_then(|f| f[2].parse().ok()),
                message: clip(message, 300),
            });
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minitest_reads_failures_errors_and_counts() {
        // Minitest 5.17 (Debian's ruby-minitest, Ruby 3.1) run here with `-v` on
        // fixtures/verify_minitest's test, changed so that its skipped test raises, captured.
        let output = "Run options: --seed 1 -v

# Running:

CalcTest#test_add = 0.00 s = .
CalcTest#test_total = 0.00 s = F
CalcTest#test_later = 0.00 s = E

Finished in 0.000677s, 4428.3188 runs/s, 2952.2125 assertions/s.

  1) Failure:
CalcTest#test_total [test/calc_test.rb:10]:
Expected: 3
  Actual: 2

  2) Error:
CalcTest#test_later:
NoMethodError: undefined method `round' for Calc:Module

    Calc.round(2.5)
        ^^^^^^
    test/calc_test.rb:14:in `test_later'

3 runs, 2 assertions, 1 failures, 1 errors, 0 skips
";
        let parsed = Minitest.read(output);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 2, 0));
        assert_eq!(
            parsed.failures,
            [
                Failure {
                    test: Some("CalcTest#test_total".into()),
                    path: Some("test/calc_test.rb".into()),
                    line: Some(10),
                    message: "Expected: 3\nActual: 2".into(),
                },
                Failure {
                    test: Some("CalcTest#test_later".into()),
                    path: Some("test/calc_test.rb".into()),
                    line: Some(14),
                    message: "NoMethodError: undefined method `round' for Calc:Module".into(),
                },
            ]
        );
        // Cut in the middle of a failure, before the counts: the failure, no counts.
        let cut = &output[..output.find("  Actual").unwrap()];
        let parsed = Minitest.read(cut);
        assert!(!parsed.recognised);
        assert_eq!(parsed.failures.len(), 1);
        assert_eq!(Minitest.read("  1) Failure:\n").failures, []);
    }

    #[test]
    fn minitest_through_rake_counts_a_skip() {
        // `rake test` on fixtures/verify_minitest, captured (Rake 13.0.6): its absolute path
        // shown as /repo, rake's own abort on stderr after it.
        let output = "Run options: --seed 36171

# Running:

.SF

Finished in 0.000578s, 5194.2925 runs/s, 3462.8617 assertions/s.

  1) Failure:
CalcTest#test_total [/repo/test/calc_test.rb:10]:
Expected: 3
  Actual: 2

3 runs, 2 assertions, 1 failures, 0 errors, 1 skips

You have skipped tests. Run with --verbose for details.
rake aborted!
Command failed with status (1)
";
        let parsed = Minitest.read(output);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(parsed.failures[0].path.as_deref(), Some("/repo/test/calc_test.rb"));
    }

    #[test]
    fn minitest_is_narrowed_through_rake_or_ruby() {
        let rake = Invocation { name: "rake test", command: "rake test" };
        let file = Scope { text: "test/calc_test.rb", is_path: true };
        let name = Scope { text: "test_add", is_path: false };
        assert_eq!(Minitest.narrow(&rake, &file).as_deref(), Ok("rake test TEST=test/calc_test.rb"));
        assert_eq!(Minitest.narrow(&rake, &name).as_deref(), Ok("rake test TESTOPTS=--name=/test_add/"));
        let ruby = Invocation { name: "minitest", command: RUBY_ALL };
        assert_eq!(Minitest.narrow(&ruby, &file).as_deref(), Ok("ruby -Ilib -Itest test/calc_test.rb"));
        assert_eq!(
            Minitest.narrow(&ruby, &name).as_deref(),
            Ok(format!("{RUBY_ALL} -- --name=/test_add/").as_str())
        );
        assert!(Minitest.narrow(&ruby, &Scope { text: "lib", is_path: true }).is_err());
    }

    const RUBY_ALL: &str = r#"ruby -Ilib -Itest -e 'Dir.glob("test/**/*_test.rb").sort.each { |f| require File.expand_path(f) }'"#;
}
