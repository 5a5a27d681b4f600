//! `go test -json`: narrowed to the package of a path (a folder, or a file's folder) or to
//! `-run` a name, read event by event, and naming files by their package's import path, which
//! `file_in_project` turns back into a path.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

use super::diagnostics::Diagnostics;
use super::reading::{clip, re};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct GoTest;

impl Runner for GoTest {
    fn name(&self) -> &'static str {
        "go-test"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("go") && command.has("test") && command.has("-json")
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if !scope.is_path {
            return Ok(format!("{} -run {}", check.command, scope.quoted()));
        }
        let dir = if scope.text.ends_with(".go") {
            scope.text.rsplit_once('/').map_or("", |(d, _)| d)
        } else {
            scope.text
        };
        let dir = dir.trim_end_matches('/');
        let packages =
            if dir.is_empty() || dir == "." { "./...".to_string() } else { format!("./{dir}/...") };
        Ok(check.command.replace("./...", &shell_quote(&packages)))
    }

    fn read(&self, output: &str) -> Parsed {
        go_test(output)
    }

    /// Go names a file by its package's import path: the longest tail of it that is a file is
    /// the one (the module's own prefix is no folder).
    fn file_in_project(&self, reported: &str, is_file: &dyn Fn(&str) -> bool) -> Option<String> {
        let parts: Vec<&str> = reported.split('/').collect();
        (0..parts.len()).map(|i| parts[i..].join("/")).find(|tail| is_file(tail))
    }
}

/// `go test -json`: one JSON event a line (`run`, `output`, `pass`, `fail`, `skip` with
/// `Package` and `Test`). A failing test is named `package.Test`; its file and line are the
/// first `file_test.go:N:` line of its output, as `package/file_test.go` (the caller finds the
/// file under the root), and its message the rest of that line. A package that fails with no
/// test failing (a build error) is one failure carrying the compiler's first error line.
/// Lines that are not events (a build error printed before the events) are kept as text.
fn go_test(output: &str) -> Parsed {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    static BUILD: OnceLock<Regex> = OnceLock::new();
    let place = re(&PLACE, r"^\s+([\w.\-]+\.go):(\d+): (.*)$");
    let build = re(&BUILD, r"^(?:#.*|\.?/?([\w./\-]+\.go):(\d+):\d+: (.*))$");
    let mut parsed = Parsed::default();
    let mut outputs: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut failed_tests: Vec<(String, String)> = Vec::new();
    let mut failed_packages: Vec<String> = Vec::new();
    let mut text_lines: Vec<String> = Vec::new();
    for line in output.lines() {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line.trim()) else {
            text_lines.push(line.to_string());
            continue;
        };
        let (Some(action), Some(package)) = (event["Action"].as_str(), event["Package"].as_str()) else {
            continue;
        };
        parsed.recognised = true;
        let test = event["Test"].as_str();
        match (action, test) {
            ("output", _) => outputs
                .entry((package.to_string(), test.unwrap_or("").to_string()))
                .or_default()
                .push(event["Output"].as_str().unwrap_or("").to_string()),
            ("pass", Some(_)) => parsed.passed += 1,
            ("skip", Some(_)) => parsed.skipped += 1,
            ("fail", Some(test)) => failed_tests.push((package.to_string(), test.to_string())),
            ("fail", None) => failed_packages.push(package.to_string()),
            _ => {}
        }
    }
    // A parent test fails with its failing subtests: only the innermost ones count.
    let leaves: Vec<&(String, String)> = failed_tests
        .iter()
        .filter(|(p, t)| !failed_tests.iter().any(|(q, u)| q == p && u.starts_with(&format!("{t}/"))))
        .collect();
    for (package, test) in &leaves {
        let lines = outputs.get(&(package.clone(), test.clone())).map(Vec::as_slice).unwrap_or(&[]);
        let found = lines.iter().find_map(|l| place.captures(l.trim_end_matches('\n')));
        parsed.failures.push(Failure {
            test: Some(format!("{package}.{test}")),
            path: found.as_ref().map(|c| format!("{package}/{}", &c[1])),
            line: found.as_ref().and_then(|c| c[2].parse().ok()),
            message: clip(found.as_ref().map_or("", |c| c.get(3).map_or("", |m| m.as_str())), 300),
        });
    }
    parsed.failed = leaves.len() as u64;
    for package in failed_packages {
        if failed_tests.iter().any(|(p, _)| *p == package) {
            continue;
        }
        // The package's own output, then what was printed outside the events (a build error).
        let mut lines: Vec<String> =
            outputs.get(&(package.clone(), String::new())).cloned().unwrap_or_default();
        lines.extend(text_lines.iter().cloned());
        let first = lines.iter().find_map(|l| build.captures(l.trim()).filter(|c| c.get(1).is_some()));
        parsed.failed += 1;
        parsed.failures.push(Failure {
            test: Some(package.clone()),
            path: first.as_ref().map(|c| c[1].to_string()),
            line: first.as_ref().and_then(|c| c[2].parse().ok()),
            message: clip(
                &first
                    .as_ref()
                    .map(|c| c[3].to_string())
                    .or_else(|| {
                        lines
                            .iter()
                            .map(|l| l.trim())
                            .find(|l| !l.is_empty() && *l != "FAIL")
                            .map(str::to_string)
                    })
                    .unwrap_or_else(|| "the package failed".into()),
                300,
            ),
        });
    }
    // No event at all: go stopped before testing (a compile error in go 1.19 prints no events).
    if !parsed.recognised {
        return Diagnostics.read(output);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `go test -json ./...` (go 1.19), captured from a package with a passing, a failing and
    /// a skipped test.
    const GO_JSON: &str = r#"{"Time":"2026-12-04T02:56:00.44605536Z","Action":"run","Package":"example.com/calc","Test":"TestAdd"}
{"Time":"2026-12-04T02:56:00.446149789Z","Action":"output","Package":"example.com/calc","Test":"TestAdd","Output":"=== RUN   TestAdd\n"}
{"Time":"2026-12-04T02:56:00.446426589Z","Action":"output","Package":"example.com/calc","Test":"TestAdd","Output":"--- PASS: TestAdd (0.00s)\n"}
{"Time":"2026-12-04T02:56:00.446432066Z","Action":"pass","Package":"example.com/calc","Test":"TestAdd","Elapsed":0}
{"Time":"2026-12-04T02:56:00.446436086Z","Action":"run","Package":"example.com/calc","Test":"TestTotal"}
{"Time":"2026-12-04T02:56:00.446438039Z","Action":"output","Package":"example.com/calc","Test":"TestTotal","Output":"=== RUN   TestTotal\n"}
{"Time":"2026-12-04T02:56:00.446598589Z","Action":"output","Package":"example.com/calc","Test":"TestTotal","Output":"    calc_test.go:13: Total([1 2]) = 2, want 3\n"}
{"Time":"2026-12-04T02:56:00.446603179Z","Action":"output","Package":"example.com/calc","Test":"TestTotal","Output":"--- FAIL: TestTotal (0.00s)\n"}
{"Time":"2026-12-04T02:56:00.446606356Z","Action":"fail","Package":"example.com/calc","Test":"TestTotal","Elapsed":0}
{"Time":"2026-12-04T02:56:00.446608215Z","Action":"run","Package":"example.com/calc","Test":"TestLater"}
{"Time":"2026-12-04T02:56:00.446609735Z","Action":"output","Package":"example.com/calc","Test":"TestLater","Output":"=== RUN   TestLater\n"}
{"Time":"2026-12-04T02:56:00.446611515Z","Action":"output","Package":"example.com/calc","Test":"TestLater","Output":"    calc_test.go:18: later\n"}
{"Time":"2026-12-04T02:56:00.446633966Z","Action":"output","Package":"example.com/calc","Test":"TestLater","Output":"--- SKIP: TestLater (0.00s)\n"}
{"Time":"2026-12-04T02:56:00.447784784Z","Action":"skip","Package":"example.com/calc","Test":"TestLater","Elapsed":0}
{"Time":"2026-12-04T02:56:00.447795855Z","Action":"output","Package":"example.com/calc","Output":"FAIL\n"}
{"Time":"2026-12-04T02:56:00.447836978Z","Action":"output","Package":"example.com/calc","Output":"FAIL\texample.com/calc\t0.005s\n"}
{"Time":"2026-12-04T02:56:00.447840341Z","Action":"fail","Package":"example.com/calc","Elapsed":0.006}
"#;

    #[test]
    fn go_test_json_names_the_failing_test_with_its_file_and_line() {
        let parsed = GoTest.read(GO_JSON);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("example.com/calc.TestTotal".into()),
                path: Some("example.com/calc/calc_test.go".into()),
                line: Some(13),
                message: "Total([1 2]) = 2, want 3".into(),
            }]
        );
        // go 1.19, a compile error, captured: no events at all, only the compiler's lines.
        let broken = "# example.com/calc [example.com/calc.test]\n./calc.go:6:9: p declared but not used\n\
            ./calc.go:7:10: undefined: q\nFAIL\texample.com/calc [build failed]\n";
        let parsed = GoTest.read(broken);
        assert_eq!(parsed.failed, 2);
        assert_eq!(
            parsed.failures[1],
            Failure {
                test: None,
                path: Some("./calc.go".into()),
                line: Some(7),
                message: "undefined: q".into()
            }
        );
        // Nothing but a crash of the go command itself: not read.
        assert!(!GoTest.read("go: cannot find main module\n").recognised);
    }
}
