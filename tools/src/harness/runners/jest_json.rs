//! Jest's `--json` report, which Vitest's `--reporter=json` also writes: narrowed to files to
//! run or to `-t` a name, and read from the report found among the runner's own lines.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, json_report, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words};

pub(super) struct JestJson;

impl Runner for JestJson {
    fn name(&self) -> &'static str {
        "jest-json"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        (command.has("jest") || command.has("vitest"))
            && (command.has("--json") || command.has("--reporter=json"))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        Ok(if scope.is_path {
            format!("{} {}", check.command, scope.quoted())
        } else {
            format!("{} -t {}", check.command, scope.quoted())
        })
    }

    fn read(&self, output: &str) -> Parsed {
        jest_json(output)
    }
}

/// A JavaScript error's message and the first stack frame in the project's own files: the
/// lines before the first `at …` frame (a code frame such as Jest's `> 8 | …` left out), and
/// the first frame outside `node_modules` and node's internals.
fn js_error(text: &str) -> (String, Option<String>, Option<u64>) {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let place = re(&PLACE, r"\(?((?:file://)?[^\s()']+?\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?");
    let code_frame = re(&FRAME, r"^(>\s*)?\d+\s*\||^\|");
    let text = strip_ansi(text);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let first_frame = lines.iter().position(|l| l.starts_with("at ")).unwrap_or(lines.len());
    let message: Vec<&str> = lines[..first_frame]
        .iter()
        .copied()
        .filter(|l| !l.is_empty() && !l.starts_with('●') && !code_frame.is_match(l))
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("Error: ").unwrap_or(&message).to_string();
    let at = lines[first_frame..]
        .iter()
        .filter(|f| f.starts_with("at ") && !f.contains("node:") && !f.contains("node_modules"))
        .find_map(|f| place.captures(f));
    let path = at.as_ref().map(|c| c[1].trim_start_matches("file://").to_string());
    let line = at.as_ref().and_then(|c| c[2].parse().ok());
    (clip(&message, 300), path, line)
}

/// Jest's `--json` report (Vitest's `--reporter=json` writes the same shape): the counts, each
/// failed assertion by its full name with its message and the first frame of its stack in the
/// project, and each test file that failed to run at all (a module not found, a syntax error)
/// as one failure named by the file.
fn jest_json(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(report) = json_report(output, "{").filter(|r| r.get("numTotalTests").is_some()) else {
        return parsed;
    };
    parsed.recognised = true;
    let count = |key: &str| report[key].as_u64().unwrap_or(0);
    parsed.passed = count("numPassedTests");
    parsed.failed = count("numFailedTests");
    parsed.skipped = count("numPendingTests") + count("numTodoTests");
    for suite in report["testResults"].as_array().into_iter().flatten() {
        let file = suite["name"].as_str().unwrap_or("");
        let mut failed_here = false;
        for test in suite["assertionResults"].as_array().into_iter().flatten() {
            if test["status"] != "failed" {
                continue;
            }
            failed_here = true;
            let text = test["failureMessages"][0].as_str().unwrap_or("");
            let (message, path, line) = js_error(text);
            let name = test["fullName"].as_str().or(test["title"].as_str()).unwrap_or("?");
            parsed.failures.push(Failure {
                test: Some(name.to_string()),
                path: path.or_else(|| (!file.is_empty()).then(|| file.to_string())),
                line,
                message,
            });
        }
        if suite["status"] == "failed" && !failed_here {
            // The file failed before its tests ran.
            let (message, path, line) = js_error(suite["message"].as_str().unwrap_or(""));
            parsed.failed += 1;
            parsed.failures.push(Failure {
                test: (!file.is_empty()).then(|| file.to_string()),
                path: path.or_else(|| (!file.is_empty()).then(|| file.to_string())),
                line,
                message: if message.is_empty() { "the test file failed to run".into() } else { message },
            });
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jest 30's `--json --colors`, captured (stack frames cut to two, the suite's printed
    /// message left out), with the lines Jest writes to stderr before it.
    const JEST_JSON: &str = r#"FAIL src/calc.test.js
  ✓ adds (2 ms)
  ✕ multiplies (2 ms)
{"numFailedTestSuites":1,"numFailedTests":1,"numPassedTestSuites":0,"numPassedTests":1,"numPendingTestSuites":0,"numPendingTests":1,"numRuntimeErrorTestSuites":0,"numTodoTests":0,"numTotalTestSuites":1,"numTotalTests":3,"openHandles":[],"startTime":1796357970954,"success":false,"testResults":[{"assertionResults":[{"ancestorTitles":[],"duration":2,"failing":false,"failureMessages":[],"fullName":"adds","invocations":1,"location":null,"numPassingAsserts":1,"retryMessages":[],"retryReasons":[],"status":"passed","title":"adds","startAt":1796357971072},{"ancestorTitles":[],"duration":2,"failing":false,"failureMessages":["Error: \u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22m\u001b[32mexpected\u001b[39m\u001b[2m) // Object.is equality\u001b[22m\n\nExpected: \u001b[32m6\u001b[39m\nReceived: \u001b[31m5\u001b[39m\n    at Object.toBe (/repo/src/calc.test.js:8:21)\n    at Promise.finally.completed (/repo/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)"],"fullName":"multiplies","invocations":1,"location":null,"numPassingAsserts":0,"retryMessages":[],"retryReasons":[],"status":"failed","title":"multiplies","startAt":1796357971074},{"ancestorTitles":[],"duration":null,"failing":false,"failureMessages":[],"fullName":"later","invocations":1,"location":null,"numPassingAsserts":0,"retryMessages":[],"retryReasons":[],"status":"pending","title":"later","startAt":1796357971080}],"endTime":1796357971090,"message":"","name":"/repo/src/calc.test.js","startTime":1796357971015,"status":"failed","summary":""}],"wasInterrupted":false}
"#;

    #[test]
    fn jest_and_vitest_json_name_each_failing_test_and_its_assertion() {
        let parsed = JestJson.read(JEST_JSON);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("multiplies".into()),
                path: Some("/repo/src/calc.test.js".into()),
                line: Some(8),
                message: "expect(received).toBe(expected) // Object.is equality Expected: 6 Received: 5"
                    .into(),
            }]
        );
        // Jest 30: a test file whose require fails, captured.
        let crashed = r#"{"numFailedTestSuites":1,"numFailedTests":0,"numPassedTestSuites":0,"numPassedTests":0,"numPendingTestSuites":0,"numPendingTests":0,"numRuntimeErrorTestSuites":1,"numTodoTests":0,"numTotalTestSuites":1,"numTotalTests":0,"openHandles":[],"startTime":1796357846817,"success":false,"testResults":[{"assertionResults":[],"coverage":{},"endTime":1796357847034,"message":"  \u25cf Test suite failed to run\n\n    Cannot find module './nothere' from 'crash/bad.test.js'\n\n    > 1 | const { add } = require(\"./nothere\");\n        |                 ^\n      2 | test(\"x\", () => { expect(add(1,1)).toBe(2); });\n      3 |\n\n      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/index.js:1031:11)\n      at Object.require (crash/bad.test.js:1:17)\n","name":"/repo/crash/bad.test.js","startTime":1796357847034,"status":"failed","summary":""}],"wasInterrupted":false}"#;
        let parsed = JestJson.read(crashed);
        assert_eq!((parsed.passed, parsed.failed), (0, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("/repo/crash/bad.test.js".into()),
                path: Some("crash/bad.test.js".into()),
                line: Some(1),
                message: "Cannot find module './nothere' from 'crash/bad.test.js'".into(),
            }]
        );
        // Vitest 4's `--reporter=json`, captured: a describe block, a skip, and a file whose
        // import fails (no stack: the file itself is the place).
        let vitest = r#"{"numTotalTestSuites":3,"numPassedTestSuites":0,"numFailedTestSuites":3,"numPendingTestSuites":0,"numTotalTests":3,"numPassedTests":1,"numFailedTests":1,"numPendingTests":1,"numTodoTests":0,"startTime":1796357853007,"success":false,"testResults":[{"assertionResults":[],"startTime":1796357853007,"endTime":1796357853007,"status":"failed","message":"Cannot find module './nothere.js' imported from /repo/vt/bad.test.js","name":"/repo/vt/bad.test.js"},{"assertionResults":[{"ancestorTitles":["calc"],"fullName":"calc adds","status":"passed","title":"adds","duration":1.2196910000000116,"failureMessages":[],"meta":{},"tags":[]},{"ancestorTitles":["calc"],"fullName":"calc multiplies","status":"failed","title":"multiplies","duration":3.5928830000000005,"failureMessages":["AssertionError: expected 5 to be 6 // Object.is equality\n    at /repo/vt/calc.test.js:10:23\n    at file:///repo/node_modules/@vitest/runner/dist/chunk-artifact.js:302:11\n    at file:///repo/node_modules/@vitest/runner/dist/chunk-artifact.js:1903:26\n    at file:///repo/node_modules/@vitest/runner/dist/chunk-artifact.js:2326:20\n    at new Promise (<anonymous>)"],"meta":{},"tags":[]},{"ancestorTitles":["calc"],"fullName":"calc later","status":"skipped","title":"later","failureMessages":[],"meta":{},"tags":[]}],"startTime":1796357853177,"endTime":1796357853181.5928,"status":"failed","message":"","name":"/repo/vt/calc.test.js"}]}"#;
        let parsed = JestJson.read(vitest);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 2, 1));
        assert_eq!(
            parsed.failures,
            [
                Failure {
                    test: Some("/repo/vt/bad.test.js".into()),
                    path: Some("/repo/vt/bad.test.js".into()),
                    line: None,
                    message: "Cannot find module './nothere.js' imported from /repo/vt/bad.test.js".into(),
                },
                Failure {
                    test: Some("calc multiplies".into()),
                    path: Some("/repo/vt/calc.test.js".into()),
                    line: Some(10),
                    message: "AssertionError: expected 5 to be 6 // Object.is equality".into(),
                },
            ]
        );
        // Jest that crashed before writing a report: nothing read.
        assert!(
            !JestJson
                .read("● Validation Error:\n  Module ts-jest in the transform option was not found.\n")
                .recognised
        );
    }
}
