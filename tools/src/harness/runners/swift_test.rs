//! `swift test`'s text output: XCTest's lines (Linux's `Class.test`, Apple's `-[Module.Class
//! test]`) and swift-testing's (`✔`/`✘ Test name() …`), narrowed with `--filter`, or read as
//! the compiler's diagnostics when the build failed.

use std::sync::OnceLock;

use regex::Regex;

use super::diagnostics::Diagnostics;
use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct SwiftTest;

impl Runner for SwiftTest {
    fn name(&self) -> &'static str {
        "swift-test"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("swift") && command.has("test")
    }

    /// A name as a `--filter` pattern; a test file by its name (`Tests/CalcTests/CalcTests.swift`
    /// is the class `CalcTests`), a test folder by its target's name.
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let filter = if scope.is_path {
            let last = scope.text.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            let name = last.strip_suffix(".swift").unwrap_or(last);
            if name.is_empty() || name == "Tests" || (last.contains('.') && !last.ends_with(".swift")) {
                return Err(format!(
                    "skipped: scope {:?} names no test target or file, and {} narrows only to those",
                    scope.text, check.name
                ));
            }
            name.to_string()
        } else {
            scope.text.to_string()
        };
        Ok(check.command.replacen("swift test", &format!("swift test --filter {}", shell_quote(&filter)), 1))
    }

    fn read(&self, output: &str) -> Parsed {
        swift_test(output)
    }
}

/// A test's name as the report reads it: `-[Module.Class test]` as `Module.Class.test`.
fn test_name(raw: &str) -> String {
    match raw.strip_prefix("-[").and_then(|r| r.strip_suffix(']')) {
        Some(inner) => inner.replacen(' ', ".", 1),
        None => raw.to_string(),
    }
}

/// XCTest: `Test Case 'X' passed|failed|skipped (…)` counts each test once, and each failing
/// test's first `file:line: error: X : message` places it. swift-testing: `✔ Test x() passed
/// after …`, `✘ Test x() failed after …`, `➜ Test x() skipped`, and the first `✘ Test x()
/// recorded an issue at file:line:col: message` places it; the closing `Test run with …` lines
/// count no test. No test line at all (the build failed) is read as the compiler's diagnostics.
fn swift_test(output: &str) -> Parsed {
    static CASE: OnceLock<Regex> = OnceLock::new();
    static ERROR: OnceLock<Regex> = OnceLock::new();
    static MARK: OnceLock<Regex> = OnceLock::new();
    static ISSUE: OnceLock<Regex> = OnceLock::new();
    let case = re(&CASE, r"^\s*Test Case '(.+?)' (passed|failed|skipped) \(");
    let error = re(&ERROR, r"^(.+?\.swift):(\d+): error: (-\[.+?\]|\S+) : (.*)$");
    let mark = re(&MARK, r"^\S+\s+Test (.+?) (passed after|failed after|skipped)");
    let issue = re(
        &ISSUE,
        r"^\S+\s+Test (.+?) recorded an issue(?: with .+?)? at (.+?\.swift):(\d+)(?::\d+)?: (.*)$",
    );
    let output = strip_ansi(output);
    let mut parsed = Parsed::default();
    // Each failing test's place and message, in the order they were first reported.
    let mut placed: Vec<(String, String, u64, String)> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for line in output.lines() {
        if let Some(c) = case.captures(line) {
            parsed.recognised = true;
            match &c[2] {
                "passed" => parsed.passed += 1,
                "skipped" => parsed.skipped += 1,
                _ => failed.push(test_name(&c[1])),
            }
        } else if let Some(c) = error.captures(line) {
            let test = test_name(&c[3]);
            if !placed.iter().any(|p| p.0 == test) {
                placed.push((test, c[1].to_string(), c[2].parse().unwrap_or(0), c[4].trim().to_string()));
            }
        } else if let Some(c) = issue.captures(line) {
            let test = c[1].to_string();
            if !placed.iter().any(|p| p.0 == test) {
                placed.push((test, c[2].to_string(), c[3].parse().unwrap_or(0), c[4].trim().to_string()));
            }
        } else if let Some(c) = mark.captures(line)
            && !c[1].starts_with("run with")
        {
            parsed.recognised = true;
            // A parameterized test's name is followed by its cases: `x(_:) with 3 test cases`.
            let test = c[1].split(" with ").next().unwrap_or(&c[1]).to_string();
            match &c[2] {
                "passed after" => parsed.passed += 1,
                "skipped" => parsed.skipped += 1,
                _ => failed.push(test),
            }
        }
    }
    parsed.failed = failed.len() as u64;
    for test in failed {
        let at = placed.iter().find(|p| p.0 == test);
        parsed.failures.push(Failure {
            path: at.map(|p| p.1.clone()),
            line: at.map(|p| p.2),
            message: clip(at.map_or("", |p| p.3.trim_end_matches(" -").trim()), 300),
            test: Some(test),
        });
    }
    if !parsed.recognised {
        return Diagnostics.read(&output);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xctest_on_linux_counts_cases_and_places_each_failure() {
        // Swift is not installable here: XCTest's lines from a public Linux run, in
        // SomeRandomiOSDev/Half's issue #16 (https://github.com/SomeRandomiOSDev/Half/issues/16),
        // cut to its first two suites, with a skipped case in XCTest's shape added.
        let output = "Test Suite 'All tests' started at 2023-11-13 19:42:21.388
Test Suite 'debug.xctest' started at 2023-11-13 19:42:21.389
Test Suite 'HalfCodingTests' started at 2023-11-13 19:42:21.389
Test Case 'HalfCodingTests.testEncodingDecoding' started at 2023-11-13 19:42:21.389
/workspaces/Half/Tests/HalfTests/Half+CodingTests.swift:86: error: HalfCodingTests.testEncodingDecoding : XCTAssertTrue failed - 
Test Case 'HalfCodingTests.testEncodingDecoding' failed (0.002 seconds)
Test Case 'HalfCodingTests.testThrowingCases' started at 2023-11-13 19:42:21.391
Test Case 'HalfCodingTests.testThrowingCases' passed (0.001 seconds)
Test Suite 'HalfCodingTests' failed at 2023-11-13 19:42:21.392
         Executed 2 tests, with 1 failure (0 unexpected) in 0.003 (0.003) seconds
Test Suite 'HalfTests' started at 2023-11-13 19:42:21.392
Test Case 'HalfTests.testAddProduct' started at 2023-11-13 19:42:21.392
Test Case 'HalfTests.testAddProduct' passed (0.001 seconds)
Test Case 'HalfTests.testLater' started at 2023-11-13 19:42:21.393
/workspaces/Half/Tests/HalfTests/HalfTests.swift:40: Test skipped
Test Case 'HalfTests.testLater' skipped (0.0 seconds)
Test Suite 'HalfTests' passed at 2023-11-13 19:42:21.393
";
        let parsed = SwiftTest.read(output);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (2, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("HalfCodingTests.testEncodingDecoding".into()),
                path: Some("/workspaces/Half/Tests/HalfTests/Half+CodingTests.swift".into()),
                line: Some(86),
                message: "XCTAssertTrue failed".into(),
            }]
        );
    }

    #[test]
    fn xctest_on_macos_and_swift_testing_name_their_failures() {
        // Apple's XCTest names a test `-[Module.Class test]`: the case and suite lines from the
        // macOS `swift test` run in jpsim/Yams's issue #143
        // (https://github.com/jpsim/Yams/issues/143), cut to two cases; that log shows no
        // failure's line, so the `error:` line and the failed case are written by us in the
        // shape Apple's XCTest prints them; swift-testing's closing line as Xcode 26 prints it.
        let apple = "Test Case '-[YamsTests.YamlErrorTests testYamlErrorEmitter]' started.
Test Case '-[YamsTests.YamlErrorTests testYamlErrorEmitter]' passed (0.000 seconds).
Test Case '-[YamsTests.YamlErrorTests testYamlErrorParser]' started.
/Users/dev/Yams/Tests/YamsTests/YamlErrorTests.swift:42: error: -[YamsTests.YamlErrorTests testYamlErrorParser] : XCTAssertEqual failed: (\"1\") is not equal to (\"2\")
Test Case '-[YamsTests.YamlErrorTests testYamlErrorParser]' failed (0.001 seconds).
Test Suite 'YamlErrorTests' failed at 2018-12-26 19:32:14.478.
\t Executed 2 tests, with 1 failure (0 unexpected) in 0.004 (0.004) seconds
\u{25c7} Test run started.
\u{2714} Test run with 0 tests in 0 suites passed after 0.001 seconds.
";
        let parsed = SwiftTest.read(apple);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 0));
        let failure = &parsed.failures[0];
        assert_eq!(failure.test.as_deref(), Some("YamsTests.YamlErrorTests.testYamlErrorParser"));
        assert_eq!(
            (failure.line, failure.message.as_str()),
            (Some(42), r#"XCTAssertEqual failed: ("1") is not equal to ("2")"#)
        );
        // swift-testing on Linux, from swiftlang/vscode-swift's issue #1458
        // (https://github.com/swiftlang/vscode-swift/issues/1458), with a passing test added.
        let testing = "◇ Test run started.
↳ Testing Library Version: 6.2-dev (6bc562dc3baa219)
↳ Target Platform: x86_64-unknown-linux-gnu
◇ Test parameterizedTest(_:) started.
◇ Passing 1 argument arg → 2 to parameterizedTest(_:)
✘ Test parameterizedTest(_:) recorded an issue with 1 argument arg → 2 at PackageTests.swift:61:3: Expectation failed: (arg → 2) != 2
✘ Test parameterizedTest(_:) with 3 test cases failed after 0.002 seconds with 1 issue.
✔ Test adds() passed after 0.001 seconds.
✘ Test run with 2 tests failed after 0.003 seconds with 1 issue.
";
        let parsed = SwiftTest.read(testing);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 0));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("parameterizedTest(_:)".into()),
                path: Some("PackageTests.swift".into()),
                line: Some(61),
                message: "Expectation failed: (arg → 2) != 2".into(),
            }]
        );
    }

    #[test]
    fn swift_build_errors_and_garbage_are_read_without_panic() {
        let broken = "Building for debugging...\n/repo/Sources/Calc/Calc.swift:5:16: error: cannot find 'sum' in scope\n\
             error: fatalError\n";
        let parsed = SwiftTest.read(broken);
        assert_eq!(parsed.failures.first().and_then(|f| f.line), Some(5), "{parsed:?}");
        for garbage in ["Test Case '", "✘ Test ", "x.swift:1: error: -[ : ", "Test Case 'a' failed (\u{0}"]
        {
            let parsed = SwiftTest.read(garbage);
            assert_eq!(parsed.passed, 0, "{garbage:?}");
        }
    }

    #[test]
    fn swift_test_is_narrowed_with_a_filter() {
        let check = Invocation { name: "swift test", command: "swift test" };
        let narrow = |text: &str, is_path| SwiftTest.narrow(&check, &Scope { text, is_path });
        assert_eq!(
            narrow("CalcTests.testAdd", false).as_deref(),
            Ok("swift test --filter CalcTests.testAdd")
        );
        assert_eq!(
            narrow("Tests/CalcTests/TotalTests.swift", true).as_deref(),
            Ok("swift test --filter TotalTests")
        );
        assert_eq!(narrow("Tests/CalcTests/", true).as_deref(), Ok("swift test --filter CalcTests"));
        assert!(narrow("Package.swift.bak", true).is_err());
    }
}
