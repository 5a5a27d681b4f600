//! ExUnit's text report, as `mix test` prints it: narrowed to a test file or to the tests of one
//! name (`--only test:"test …"`), and read from its numbered failures and closing counts.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Exunit;

impl Runner for Exunit {
    fn name(&self) -> &'static str {
        "exunit"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("mix") && command.has("test")
    }

    /// A file (or a folder of them) goes after `mix test`; a name is ExUnit's `test:` tag,
    /// which every test carries with its full name (`test add adds`).
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if scope.is_path {
            return Ok(format!("{} {}", check.command, scope.quoted()));
        }
        let name = scope.text.strip_prefix("test ").unwrap_or(scope.text);
        Ok(format!("{} --only {}", check.command, shell_quote(&format!("test:test {name}"))))
    }

    fn read(&self, output: &str) -> Parsed {
        exunit(output)
    }
}

/// ExUnit's report: the counts line (`1 doctest, 4 tests, 2 failures, 1 skipped`, with
/// `excluded` and `invalid` when there are any; passed is what ran less the failures, skips and
/// exclusions), and each numbered failure: `N) test NAME (Module)`, the test's `path:line`, the
/// message, then a stack trace whose first frame in the test's file is the line that failed.
fn exunit(output: &str) -> Parsed {
    static HEAD: OnceLock<Regex> = OnceLock::new();
    static PLACE: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static COUNTS: OnceLock<Regex> = OnceLock::new();
    static COUNT: OnceLock<Regex> = OnceLock::new();
    let head = re(&HEAD, r"^\s+\d+\) (.+?) \(([\w.]+)\)\s*$");
    let place = re(&PLACE, r"^\s+(\S+\.exs?):(\d+)\s*$");
    let frame = re(&FRAME, r"^\s+(?:\([^)]*\) )?(\S+\.exs?):(\d+):");
    let counts = re(&COUNTS, r"^(?:\d+ (?:doctests?|propert(?:y|ies)), )*\d+ tests?, \d+ failures?");
    let count = re(&COUNT, r"(\d+) (doctests?|propert(?:y|ies)|tests?|failures?|skipped|excluded|invalid)");
    let output = strip_ansi(output);
    let lines: Vec<&str> = output.lines().collect();
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if counts.is_match(line) {
            parsed.recognised = true;
            let (mut ran, mut failed, mut skipped, mut excluded) = (0u64, 0u64, 0u64, 0u64);
            for c in count.captures_iter(line) {
                let n: u64 = c[1].parse().unwrap_or(0);
                match &c[2] {
                    w if w.starts_with("doctest") || w.starts_with("propert") || w.starts_with("test") => {
                        ran += n
                    }
                    w if w.starts_with("failure") || w == "invalid" => failed += n,
                    "skipped" => skipped += n,
                    _ => excluded += n,
                }
            }
            parsed.failed += failed;
            parsed.skipped += skipped;
            parsed.passed += ran.saturating_sub(failed + skipped + excluded);
            i += 1;
            continue;
        }
        let Some(c) = head.captures(line) else {
            i += 1;
            continue;
        };
        let test = format!("{} ({})", &c[1], &c[2]);
        let mut body: Vec<&str> = Vec::new();
        i += 1;
        while i < lines.len() && !head.is_match(lines[i]) && !counts.is_match(lines[i]) {
            body.push(lines[i]);
            i += 1;
        }
        let declared = body.first().and_then(|l| place.captures(l));
        let path = declared.as_ref().map(|p| p[1].to_string());
        // The stack trace's frame in the test's own file: where the assertion failed.
        let stack = body.iter().position(|l| l.trim() == "stacktrace:").unwrap_or(body.len());
        let failed_at = body[stack..]
            .iter()
            .filter_map(|l| frame.captures(l))
            .find(|f| path.as_deref().is_none_or(|p| &f[1] == p))
            .and_then(|f| f[2].parse().ok());
        let line_no = failed_at.or_else(|| declared.as_ref().and_then(|p| p[2].parse().ok()));
        let from = usize::from(declared.is_some());
        let message: Vec<&str> =
            body[from.min(stack)..stack].iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        parsed.failures.push(Failure {
            test: Some(test),
            path,
            line: line_no,
            message: clip(&message.join("\n"), 300),
        });
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mix test --seed 0` (Elixir 1.14, Debian's `elixir`) on a project whose `total` subtracts
    /// 1 by mistake and whose `boom` raises, with a doctest and a skipped test, captured here.
    const REPORT: &str = "Compiling 1 file (.ex)
*..

  1) test total sums prices (CalcTest)
     test/calc_test.exs:9
     Assertion with == failed
     code:  assert Calc.total([1, 2]) == 3
     left:  2
     right: 3
     stacktrace:
       test/calc_test.exs:10: (test)



  2) test boom raises nothing (CalcTest)
     test/calc_test.exs:13
     ** (ArgumentError) no prices
     code: Calc.boom()
     stacktrace:
       (calc 0.1.0) lib/calc.ex:10: Calc.boom/0
       test/calc_test.exs:14: (test)


Finished in 0.7 seconds (0.00s async, 0.7s sync)
1 doctest, 4 tests, 2 failures, 1 skipped

Randomized with seed 0
";

    #[test]
    fn exunit_reads_failures_at_their_lines_and_the_counts() {
        let parsed = Exunit.read(REPORT);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (2, 2, 1));
        assert_eq!(
            parsed.failures,
            [
                Failure {
                    test: Some("test total sums prices (CalcTest)".into()),
                    path: Some("test/calc_test.exs".into()),
                    line: Some(10),
                    message:
                        "Assertion with == failed\ncode:  assert Calc.total([1, 2]) == 3\nleft:  2\nright: 3"
                            .into(),
                },
                Failure {
                    test: Some("test boom raises nothing (CalcTest)".into()),
                    path: Some("test/calc_test.exs".into()),
                    line: Some(14),
                    message: "** (ArgumentError) no prices\ncode: Calc.boom()".into(),
                },
            ]
        );
    }

    #[test]
    fn exunit_counts_exclusions_and_reads_what_a_cut_report_holds() {
        // `mix test test/calc_test.exs:9`: the other tests excluded.
        let parsed = Exunit.read("1 doctest, 4 tests, 1 failure, 4 excluded\n");
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (0, 1, 0));
        let parsed = Exunit.read("3 tests, 0 failures\n");
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped, parsed.recognised), (3, 0, 0, true));
        // Cut inside the first failure: that failure, no counts.
        let cut = &REPORT[..REPORT.find("right:").unwrap()];
        let parsed = Exunit.read(cut);
        assert!(!parsed.recognised);
        assert_eq!(parsed.failures.len(), 1);
        assert_eq!(parsed.failures[0].line, Some(9));
        for end in (0..REPORT.len()).filter(|&i| REPORT.is_char_boundary(i)) {
            Exunit.read(&REPORT[..end]);
        }
    }

    #[test]
    fn exunit_narrows_to_a_file_or_a_tests_name() {
        let check = Invocation { name: "mix test", command: "mix test" };
        let path = Scope { text: "test/calc_test.exs", is_path: true };
        assert_eq!(Exunit.narrow(&check, &path).unwrap(), "mix test test/calc_test.exs");
        let name = Scope { text: "total sums prices", is_path: false };
        assert_eq!(Exunit.narrow(&check, &name).unwrap(), "mix test --only 'test:test total sums prices'");
    }
}
