//! Reading test and lint output into counts and failures: pytest, libtest (`cargo test`),
//! cargo nextest, TAP (node's test runner, Mocha), `go test -json`, JUnit XML (CTest, Surefire,
//! Gradle), Jest's and Vitest's JSON reports, ESLint's JSON, and compiler or lint diagnostics.
//! Every parser is total: output it does not recognise yields what it could read, never a panic.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

/// How a check's output is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pytest,
    CargoTest,
    Nextest,
    Diagnostics,
    /// The Test Anything Protocol, as node's test runner writes it (`--test-reporter=tap`).
    Tap,
    /// `go test -json`'s events.
    GoTest,
    /// JUnit XML reports printed into the output (CTest's `--output-junit`, Surefire's and
    /// Gradle's report files), beside the runner's own lines.
    Junit,
    /// Jest's `--json` report, which Vitest's `--reporter=json` also writes.
    JestJson,
    /// ESLint's `--format json`: each file's messages.
    EslintJson,
    Plain,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Pytest => "pytest",
            Format::CargoTest => "cargo-test",
            Format::Nextest => "nextest",
            Format::Diagnostics => "diagnostics",
            Format::Tap => "tap",
            Format::GoTest => "go-test",
            Format::Junit => "junit",
            Format::JestJson => "jest-json",
            Format::EslintJson => "eslint-json",
            Format::Plain => "plain",
        }
    }

    /// A linter's or compiler's format: it reports diagnostics, not tests.
    pub fn is_lint(self) -> bool {
        matches!(self, Format::Diagnostics | Format::EslintJson)
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [
            Format::Pytest,
            Format::CargoTest,
            Format::Nextest,
            Format::Diagnostics,
            Format::Tap,
            Format::GoTest,
            Format::Junit,
            Format::JestJson,
            Format::EslintJson,
            Format::Plain,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }

    /// The format a command's output most likely has, from its words.
    pub fn guess(command: &str) -> Self {
        let words: Vec<&str> = command.split_whitespace().collect();
        let has = |w: &str| words.iter().any(|x| *x == w || x.ends_with(&format!("/{w}")));
        if has("pytest") || command.contains("-m pytest") {
            Format::Pytest
        } else if has("nextest") {
            Format::Nextest
        } else if has("cargo") && has("test") {
            Format::CargoTest
        } else if command.contains("--test-reporter=tap") || command.contains("--reporter tap") {
            Format::Tap
        } else if has("go") && has("test") && has("-json") {
            Format::GoTest
        } else if command.contains("--output-junit")
            || command.contains("surefire-reports")
            || command.contains("test-results/")
        {
            Format::Junit
        } else if (has("jest") || has("vitest")) && (has("--json") || has("--reporter=json")) {
            Format::JestJson
        } else if has("eslint") && (command.contains("--format json") || command.contains("-f json")) {
            Format::EslintJson
        } else if has("ruff") || has("flake8") || has("clippy") || has("mypy") || has("pyflakes") {
            Format::Diagnostics
        } else {
            Format::Plain
        }
    }
}

/// One failing test or diagnostic.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Failure {
    /// The test's name (pytest node id, libtest path) or the diagnostic's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The file, relative to the root, where it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The 1-based line in that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The assertion message or diagnostic text.
    pub message: String,
}

/// What a parser read from one check's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub failures: Vec<Failure>,
    /// Whether the parser recognised the output at all (a summary line or a diagnostic).
    pub recognised: bool,
}

pub fn parse(format: Format, output: &str) -> Parsed {
    match format {
        Format::Pytest => pytest(output),
        Format::CargoTest => libtest(output),
        Format::Nextest => nextest(output),
        Format::Diagnostics => diagnostics(output),
        Format::Tap => tap(output),
        Format::GoTest => go_test(output),
        Format::Junit => junit(output),
        Format::JestJson => jest_json(output),
        Format::EslintJson => eslint_json(output),
        Format::Plain => Parsed::default(),
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
    let result = re(&RESULT, r"^(\s*)(not ok|ok)\s+\d+(?:\s+-)?\s*(.*?)\s*(#\s*(SKIP|TODO)\b.*)?$");
    let count = re(&COUNT, r"^#\s+(pass|fail|skipped|todo|cancelled|tests)\s+(\d+)\s*$");
    let place = re(&PLACE, r"\(?((?:file://)?[^\s()']+?\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?");
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
        let (mut message, frames, location) = if yaml {
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
        return diagnostics(output);
    }
    parsed
}

/// JUnit XML: every `<testsuite>` document found in the output (CTest's, Surefire's, Gradle's),
/// each `<testcase>` passed, skipped (`<skipped>`) or failed (`<failure>`, `<error>`). A failure
/// is named `classname.name` (just `name` when they are the same, as in CTest), its message is
/// the failure's `message` or first text line, and its file and line the first `path:line` in
/// the failure's text or the test's captured output. Output with no report (the build failed
/// before any test ran) is read as compiler diagnostics.
fn junit(output: &str) -> Parsed {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let place = re(&PLACE, r"((?:/|\.\.?/)?[\w.\-/]+\.(?:c|cc|cpp|cxx|h|hpp|java|kt|go|py|rs|js|ts)):(\d+)");
    let mut parsed = Parsed::default();
    let mut rest = output;
    while let Some(start) = rest.find("<testsuite") {
        let close = if rest[start..].starts_with("<testsuites") { "</testsuites>" } else { "</testsuite>" };
        let Some(end) = rest[start..].find(close).map(|at| start + at + close.len()) else { break };
        let document = &rest[start..end];
        rest = &rest[end..];
        let Ok(doc) = roxmltree::Document::parse(document) else { continue };
        parsed.recognised = true;
        for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
            let child = |tag: &str| case.children().find(|c| c.has_tag_name(tag));
            if child("skipped").is_some() || case.attribute("status") == Some("disabled") {
                parsed.skipped += 1;
                continue;
            }
            let Some(failure) = child("failure").or_else(|| child("error")) else {
                parsed.passed += 1;
                continue;
            };
            parsed.failed += 1;
            let name = case.attribute("name").unwrap_or("?");
            let test = match case.attribute("classname") {
                Some(class) if !class.is_empty() && class != name => format!("{class}.{name}"),
                _ => name.to_string(),
            };
            let text: String = failure.text().unwrap_or("").to_string();
            let captured = child("system-out").and_then(|o| o.text()).unwrap_or("");
            // The frame in the test's own class is the assertion (Gradle keeps the runner's
            // frames above it; Surefire trims them).
            let class = case.attribute("classname").unwrap_or("");
            let own = |l: &&str| !class.is_empty() && l.trim_start().starts_with(&format!("at {class}."));
            let at = text
                .lines()
                .find(own)
                .and_then(|l| place.captures(l))
                .or_else(|| place.captures(&text))
                .or_else(|| place.captures(captured));
            let message = failure
                .attribute("message")
                .filter(|m| !m.trim().is_empty())
                .map(str::to_string)
                .or_else(|| {
                    text.lines()
                        .chain(captured.lines())
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_default();
            parsed.failures.push(Failure {
                test: Some(test),
                path: at.as_ref().map(|c| c[1].to_string()),
                line: at.as_ref().and_then(|c| c[2].parse().ok()),
                message: clip(&message, 300),
            });
        }
    }
    if !parsed.recognised {
        return diagnostics(output);
    }
    parsed
}

/// The first JSON value in `output` that starts a line with `open` and parses, with what
/// follows it ignored (a runner's own lines around the report).
fn json_report(output: &str, open: &str) -> Option<serde_json::Value> {
    let mut at = 0;
    while let Some(found) = output[at..].find(open) {
        let start = at + found;
        at = start + 1;
        if start > 0 && !output[..start].ends_with('\n') {
            continue;
        }
        let mut values =
            serde_json::Deserializer::from_str(&output[start..]).into_iter::<serde_json::Value>();
        if let Some(Ok(value)) = values.next() {
            return Some(value);
        }
    }
    None
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

/// ESLint's `--format json`: every error (severity 2, parse errors included) is a failure named
/// by its rule; warnings do not fail the check and are not listed.
fn eslint_json(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(files) = json_report(output, "[").and_then(|r| r.as_array().cloned()) else {
        return parsed;
    };
    if files.iter().any(|f| f.get("filePath").is_none()) {
        return parsed;
    }
    parsed.recognised = true;
    for file in &files {
        for message in file["messages"].as_array().into_iter().flatten() {
            if message["severity"].as_u64() != Some(2) {
                continue;
            }
            parsed.failures.push(Failure {
                test: message["ruleId"].as_str().map(str::to_string),
                path: file["filePath"].as_str().map(str::to_string),
                line: message["line"].as_u64(),
                message: clip(message["message"].as_str().unwrap_or("").trim(), 600),
            });
        }
    }
    parsed.failed = parsed.failures.len() as u64;
    parsed
}

/// `text` without ANSI colour and cursor sequences.
fn strip_ansi(text: &str) -> String {
    static ANSI: OnceLock<Regex> = OnceLock::new();
    re(&ANSI, r"\x1b\[[0-9;?]*[A-Za-z]").replace_all(text, "").into_owned()
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid built-in regex"))
}

/// Keeps at most `max` characters, cut at a character boundary.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
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
    let mut panics = panics(output);
    for name in names {
        let failure = panics.remove(&name).unwrap_or_else(|| Failure {
            test: Some(name.clone()),
            message: "failed (no panic message in the output)".into(),
            ..Failure::default()
        });
        parsed.failures.push(failure);
    }
    if !parsed.recognised {
        let build = diagnostics(output);
        if build.recognised {
            parsed.failures = build.failures;
            parsed.recognised = true;
        }
    }
    parsed
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
    let mut panics = panics(output);
    for name in names {
        let failure = panics.remove(&name).unwrap_or_else(|| Failure {
            test: Some(name.clone()),
            message: "failed (no panic message in the output)".into(),
            ..Failure::default()
        });
        parsed.failures.push(failure);
    }
    parsed
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
        let parsed = parse(Format::Tap, NODE_TAP);
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
        assert_eq!(parse(Format::Tap, &coloured), parsed);
    }

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
        let parsed = parse(Format::GoTest, GO_JSON);
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
        let parsed = parse(Format::GoTest, broken);
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
        assert!(!parse(Format::GoTest, "go: cannot find main module\n").recognised);
    }

    #[test]
    fn junit_reports_from_ctest_and_surefire_name_each_failure_and_its_place() {
        // CTest 3.25 with --output-on-failure, then its --output-junit report.
        let ctest = "Test project /repo/build\n    Start 1: add\n1/2 Test #1: add ..........   Passed    0.00 sec\n\
            2/2 Test #2: total ........***Failed    0.00 sec\n/repo/calc_test.cpp:16: expected 3, got 2\n\n\
            50% tests passed, 1 tests failed out of 2\n\
            <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"(empty)\"\n\ttests=\"2\"\n\tfailures=\"1\"\n\t>\n\
            \t<testcase name=\"add\" classname=\"add\" time=\"0.0017\" status=\"run\">\n\t\t<system-out></system-out>\n\t</testcase>\n\
            \t<testcase name=\"total\" classname=\"total\" time=\"0.0016\" status=\"fail\">\n\t\t<failure message=\"\"/>\n\
            \t\t<system-out>/repo/calc_test.cpp:16: expected 3, got 2\n</system-out>\n\t</testcase>\n</testsuite>\n";
        let parsed = parse(Format::Junit, ctest);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 0));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("total".into()),
                path: Some("/repo/calc_test.cpp".into()),
                line: Some(16),
                message: "/repo/calc_test.cpp:16: expected 3, got 2".into(),
            }]
        );
        // Surefire 2.22.3 (JUnit 4), the report captured (its properties left out), with a
        // skipped test added as Surefire writes one.
        let surefire = r#"[ERROR] Tests run: 3, Failures: 1
<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd" name="calc.CalcTest" time="0.046" tests="3" errors="0" skipped="1" failures="1">
  <properties>
  </properties>
  <testcase name="totals" classname="calc.CalcTest" time="0.004">
    <failure message="expected:&lt;3&gt; but was:&lt;2&gt;" type="java.lang.AssertionError"><![CDATA[java.lang.AssertionError: expected:<3> but was:<2>
	at calc.CalcTest.totals(CalcTest.java:15)
]]></failure>
  </testcase>
  <testcase name="adds" classname="calc.CalcTest" time="0.001"/>
  <testcase name="later" classname="calc.CalcTest" time="0"><skipped/></testcase>
</testsuite>
"#;
        let parsed = parse(Format::Junit, surefire);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("calc.CalcTest.totals".into()),
                path: Some("CalcTest.java".into()),
                line: Some(15),
                message: "expected:<3> but was:<2>".into(),
            }]
        );
        // The build failed before any test ran: the compiler's diagnostics are the failures.
        let broken =
            "/repo/calc.cpp:8:12: error: 'summ' was not declared in this scope\ngmake: *** [all] Error 2\n";
        let parsed = parse(Format::Junit, broken);
        assert_eq!(parsed.failures.first().and_then(|f| f.line), Some(8), "{parsed:?}");
    }

    /// Jest 30's `--json --colors`, captured (stack frames cut to two, the suite's printed
    /// message left out), with the lines Jest writes to stderr before it.
    const JEST_JSON: &str = r#"FAIL src/calc.test.js
  ✓ adds (2 ms)
  ✕ multiplies (2 ms)
{"numFailedTestSuites":1,"numFailedTests":1,"numPassedTestSuites":0,"numPassedTests":1,"numPendingTestSuites":0,"numPendingTests":1,"numRuntimeErrorTestSuites":0,"numTodoTests":0,"numTotalTestSuites":1,"numTotalTests":3,"openHandles":[],"startTime":1796357970954,"success":false,"testResults":[{"assertionResults":[{"ancestorTitles":[],"duration":2,"failing":false,"failureMessages":[],"fullName":"adds","invocations":1,"location":null,"numPassingAsserts":1,"retryMessages":[],"retryReasons":[],"status":"passed","title":"adds","startAt":1796357971072},{"ancestorTitles":[],"duration":2,"failing":false,"failureMessages":["Error: \u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22m\u001b[32mexpected\u001b[39m\u001b[2m) // Object.is equality\u001b[22m\n\nExpected: \u001b[32m6\u001b[39m\nReceived: \u001b[31m5\u001b[39m\n    at Object.toBe (/repo/src/calc.test.js:8:21)\n    at Promise.finally.completed (/repo/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)"],"fullName":"multiplies","invocations":1,"location":null,"numPassingAsserts":0,"retryMessages":[],"retryReasons":[],"status":"failed","title":"multiplies","startAt":1796357971074},{"ancestorTitles":[],"duration":null,"failing":false,"failureMessages":[],"fullName":"later","invocations":1,"location":null,"numPassingAsserts":0,"retryMessages":[],"retryReasons":[],"status":"pending","title":"later","startAt":1796357971080}],"endTime":1796357971090,"message":"","name":"/repo/src/calc.test.js","startTime":1796357971015,"status":"failed","summary":""}],"wasInterrupted":false}
"#;

    #[test]
    fn jest_and_vitest_json_name_each_failing_test_and_its_assertion() {
        let parsed = parse(Format::JestJson, JEST_JSON);
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
        let parsed = parse(Format::JestJson, crashed);
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
        let parsed = parse(Format::JestJson, vitest);
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
            !parse(
                Format::JestJson,
                "● Validation Error:\n  Module ts-jest in the transform option was not found.\n"
            )
            .recognised
        );
    }

    #[test]
    fn eslint_json_lists_errors_by_rule_and_leaves_warnings_out() {
        // ESLint 10's `--format json`, captured (each file's `source` left out).
        let out = r#"[{"filePath":"/repo/src/broken.js","messages":[{"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token (","line":1,"column":10}],"suppressedMessages":[],"errorCount":1,"fatalErrorCount":1,"warningCount":0,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]},{"filePath":"/repo/src/calc.js","messages":[{"ruleId":"no-undef","severity":1,"message":"'module' is not defined.","line":7,"column":1,"messageId":"undef","endLine":7,"endColumn":7}],"suppressedMessages":[],"errorCount":0,"fatalErrorCount":0,"warningCount":1,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]},{"filePath":"/repo/src/lint.js","messages":[{"ruleId":"no-unused-vars","severity":2,"message":"'unused' is assigned a value but never used.","line":1,"column":7,"messageId":"unusedVar","endLine":1,"endColumn":13,"suggestions":[{"messageId":"removeVar","data":{"varName":"unused"},"fix":{"range":[0,17],"text":""},"desc":"Remove unused variable 'unused'."}]},{"ruleId":"eqeqeq","severity":2,"message":"Expected '===' and instead saw '=='.","line":3,"column":9,"messageId":"unexpected","endLine":3,"endColumn":11,"suggestions":[{"messageId":"replaceOperator","data":{"expectedOperator":"===","actualOperator":"=="},"fix":{"range":[42,44],"text":"==="},"desc":"Use '===' instead of '=='."}]},{"ruleId":"no-undef","severity":1,"message":"'missing' is not defined.","line":3,"column":22,"messageId":"undef","endLine":3,"endColumn":29},{"ruleId":"no-undef","severity":1,"message":"'module' is not defined.","line":5,"column":1,"messageId":"undef","endLine":5,"endColumn":7}],"suppressedMessages":[],"errorCount":2,"fatalErrorCount":0,"warningCount":2,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]}]"#;
        let parsed = parse(Format::EslintJson, out);
        assert!(parsed.recognised);
        let seen: Vec<(Option<&str>, &str, Option<u64>)> = parsed
            .failures
            .iter()
            .map(|f| (f.test.as_deref(), f.path.as_deref().unwrap_or(""), f.line))
            .collect();
        assert_eq!(
            seen,
            [
                (None, "/repo/src/broken.js", Some(1)),
                (Some("no-unused-vars"), "/repo/src/lint.js", Some(1)),
                (Some("eqeqeq"), "/repo/src/lint.js", Some(3)),
            ]
        );
        assert_eq!(parsed.failures[0].message, "Parsing error: Unexpected token (");
        assert_eq!(parsed.failed, 3);
        // A clean run is recognised with nothing failed.
        let clean = parse(Format::EslintJson, "[]\n");
        assert!(clean.recognised && clean.failures.is_empty());
    }

    #[test]
    fn junit_from_gradle_places_a_failure_at_the_test_class_frame() {
        // Gradle 4.4.1's report, captured (the stack cut after the test's frame): Gradle keeps
        // JUnit's own frames above the assertion.
        let gradle = r#"2 tests completed, 1 failed
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="calc.CalcTest" tests="2" skipped="0" failures="1" errors="0" timestamp="2026-12-04T04:18:09" hostname="vm" time="0.001">
  <properties/>
  <testcase name="totals" classname="calc.CalcTest" time="0.001">
    <failure message="java.lang.AssertionError: expected:&lt;3&gt; but was:&lt;2&gt;" type="java.lang.AssertionError">java.lang.AssertionError: expected:&lt;3&gt; but was:&lt;2&gt;
	at org.junit.Assert.fail(Assert.java:89)
	at org.junit.Assert.failNotEquals(Assert.java:835)
	at org.junit.Assert.assertEquals(Assert.java:647)
	at org.junit.Assert.assertEquals(Assert.java:633)
	at calc.CalcTest.totals(CalcTest.java:15)
	at java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)
</failure>
  </testcase>
  <testcase name="adds" classname="calc.CalcTest" time="0.0"/>
  <system-out><![CDATA[]]></system-out>
  <system-err><![CDATA[]]></system-err>
</testsuite>
"#;
        let parsed = parse(Format::Junit, gradle);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 0));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("calc.CalcTest.totals".into()),
                path: Some("CalcTest.java".into()),
                line: Some(15),
                message: "java.lang.AssertionError: expected:<3> but was:<2>".into(),
            }]
        );
    }

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
            let parsed = parse(Format::Diagnostics, out);
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
        let parsed = parse(Format::Junit, maven);
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
        let parsed = parse(Format::Diagnostics, out);
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
        let parsed = parse(Format::Tap, crashed);
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
        let parsed = parse(Format::Tap, mocha);
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
        assert!(!parse(Format::Tap, "node: bad option: --test-reporter=tap\n").recognised);
    }
    use super::*;
    use expect_test::{Expect, expect};

    fn check(format: Format, output: &str, expect: Expect) {
        let parsed = parse(format, output);
        let mut text = format!(
            "passed={} failed={} skipped={} recognised={}\n",
            parsed.passed, parsed.failed, parsed.skipped, parsed.recognised
        );
        for f in &parsed.failures {
            text.push_str(&format!(
                "{} @ {}:{} | {}\n",
                f.test.as_deref().unwrap_or("-"),
                f.path.as_deref().unwrap_or("-"),
                f.line.map(|l| l.to_string()).unwrap_or("-".into()),
                f.message.replace('\n', " / ")
            ));
        }
        expect.assert_eq(&text);
    }

    #[test]
    fn pytest_short_tracebacks() {
        check(
            Format::Pytest,
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
            Format::Pytest,
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

    #[test]
    fn libtest_output_with_two_binaries() {
        check(
            Format::CargoTest,
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
            Format::CargoTest,
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
            Format::CargoTest,
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

    #[test]
    fn nextest_output() {
        check(
            Format::Nextest,
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

    #[test]
    fn lint_diagnostics() {
        check(
            Format::Diagnostics,
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

    #[test]
    fn unknown_output_is_read_as_nothing() {
        for format in [Format::Pytest, Format::CargoTest, Format::Nextest, Format::Diagnostics, Format::Plain]
        {
            let parsed = parse(format, "Segmentation fault\n\u{0}\u{ff}é:::\n____ x ____\nE lone\n");
            assert_eq!(parsed.passed, 0, "{}", format.name());
        }
    }

    #[test]
    fn formats_are_guessed_from_commands() {
        assert_eq!(Format::guess("pytest -q"), Format::Pytest);
        assert_eq!(Format::guess(".venv/bin/python -m pytest tests"), Format::Pytest);
        assert_eq!(Format::guess("cargo test --workspace"), Format::CargoTest);
        assert_eq!(Format::guess("cargo nextest run"), Format::Nextest);
        assert_eq!(Format::guess("ruff check ."), Format::Diagnostics);
        assert_eq!(Format::guess("cargo clippy -- -D warnings"), Format::Diagnostics);
        assert_eq!(Format::guess("make check"), Format::Plain);
    }
}
