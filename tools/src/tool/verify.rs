//! `verify`: runs the repository's checks (`[verify]` in tack.toml, or detected: pytest, `cargo
//! test`, a configured linter) with the `run` machinery, and reads their output into counts and
//! failures. Its verdict feeds the session's gate.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::call_context::CallContext;
use crate::harness::VerifyRecord;
use crate::harness::runners::{Failure, Format, Invocation, Reports, Scope, shell_quote};
use crate::observe::observation::Observation;
use crate::process::execute::{self, End};
use crate::session::Session;
use crate::tool::{Annotations, Call, Gate, Group, Reply, Spec, Tool, Work};
use crate::workspace::Workspace;

/// The longest timeout a check may have, in seconds.
const MAX_TIMEOUT_S: u64 = 3600;
/// Failures listed per check in the text; all of them stay in the structured result.
const MAX_LISTED: usize = 20;
/// Output lines shown for a check whose output was not recognised.
const TAIL_LINES: usize = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyParams {
    /// Narrow the checks to a path (a test file or folder) or a test name.
    #[serde(default)]
    pub scope: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct VerifyOutput {
    /// True when every check exited 0.
    pub ok: bool,
    pub checks: Vec<CheckResult>,
    /// True when a verify passed after this session's last write (this one, when ok).
    pub verified_since_last_edit: bool,
    /// The handle of every check's full output, for read_output.
    pub raw_output_handle: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckResult {
    pub name: String,
    /// The command as run, scope included.
    pub command: String,
    /// The exit code; absent when the check was skipped, stopped or killed by a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub failures: Vec<Failure>,
    /// How the output was read: pytest, cargo-test, nextest, diagnostics or plain.
    pub format: String,
    /// Why the check did not finish (`timeout after 60s`, `cancelled`), or why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl CheckResult {
    /// A check the scope does not apply to, with the reason.
    fn skipped(check: &Planned, reason: &str) -> Self {
        CheckResult {
            name: check.name.clone(),
            command: check.command.clone(),
            exit: None,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: Vec::new(),
            format: check.format.name().into(),
            stopped: Some(reason.to_string()),
        }
    }

    fn ok(&self) -> bool {
        self.exit == Some(0) || self.stopped.as_deref().is_some_and(|s| s.starts_with("skipped"))
    }
}

/// One check to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub name: String,
    pub command: String,
    pub format: Format,
    pub timeout_s: u64,
    /// Set when the scope does not apply to this check: why it is skipped.
    pub skip: Option<String>,
    /// The folder (relative to the root) of the project it checks, when that is not the root:
    /// it runs there, and the paths it reports are read from there.
    pub dir: Option<String>,
}

/// The checks for this repository: the configured ones, else the detected ones.
pub fn detect(ws: &Workspace) -> Vec<Planned> {
    let config = &ws.config().verify;
    let default_timeout = config.timeout_s.clamp(1, MAX_TIMEOUT_S);
    if !config.checks.is_empty() {
        return config
            .checks
            .iter()
            .map(|c| Planned {
                name: c.name.clone(),
                command: c.command.clone(),
                format: c
                    .format
                    .as_deref()
                    .and_then(Format::from_name)
                    .unwrap_or_else(|| Format::guess(&c.command)),
                timeout_s: c.timeout_s.unwrap_or(default_timeout).clamp(1, MAX_TIMEOUT_S),
                skip: None,
                dir: None,
            })
            .collect();
    }
    let root = ws.root().path();
    let mut planned = Vec::new();
    let mut add = |name: &str, command: String, format: Format| {
        planned.push(Planned {
            name: name.into(),
            command,
            format,
            timeout_s: default_timeout,
            skip: None,
            dir: None,
        });
    };
    // What the languages behind the seam recognise: pytest and a configured ruff or flake8 for
    // a Python project, cargo test (and clippy) for a Cargo one, a package.json's test script,
    // go test, ctest.
    let at_root = tack_indexer::project_checks(root);
    for check in &at_root {
        add(&check.name, check.command.clone(), runner_of(check));
    }
    // A monorepo's projects one or two folders down, of kinds the root does not check itself:
    // each runs in its folder.
    for folder in crate::workspace::project_folders(root) {
        for check in tack_indexer::project_checks(&root.join(&folder)) {
            if at_root.iter().any(|c| c.name == check.name) {
                continue;
            }
            planned.push(Planned {
                name: format!("{} in {folder}", check.name),
                command: format!("cd {} && {}", shell_quote(&folder), check.command),
                format: runner_of(&check),
                timeout_s: default_timeout,
                skip: None,
                dir: Some(folder.clone()),
            });
        }
    }
    planned
}

/// The runner a language's check names. One that does not exist (a tidy test holds every name
/// a language declares to a runner) is guessed from the command, and logged, rather than read
/// as plain text unseen.
fn runner_of(check: &tack_indexer::ProjectCheck) -> Format {
    Format::from_name(check.format).unwrap_or_else(|| {
        tracing::error!(
            "the check {} names the runner {:?}, which tack does not have; guessing from its command",
            check.name,
            check.format
        );
        Format::guess(&check.command)
    })
}

/// Narrows a check to `scope`, a path the check can take or a test name: through the `{scope}`
/// placeholder of a configured check, else as its runner narrows its command.
pub fn apply_scope(mut check: Planned, scope: &str, is_path: bool) -> Planned {
    if check.command.contains("{scope}") {
        check.command = check.command.replace("{scope}", &shell_quote(scope));
        return check;
    }
    let invocation = Invocation { name: &check.name, command: &check.command };
    match check.format.narrow(&invocation, &Scope { text: scope, is_path }) {
        Ok(command) => check.command = command,
        Err(reason) => check.skip = Some(reason),
    }
    check
}

pub(crate) struct Verify;

impl Tool for Verify {
    type Params = VerifyParams;
    type Output = VerifyOutput;
    const SPEC: Spec = Spec {
        gate: Gate::OwnText,
        work: Work::Waits,
        ..Spec::editor(
            "verify",
            "Run the checks",
            Group::Core,
            "Run the repository's checks ([verify] in tack.toml, else its detected tests and linter) and \
             read the results: counts, and each failure's test, file:line and message. scope= a path or \
             test name narrows it. Call it after editing; done() needs a pass.",
            Annotations { read_only: false, destructive: false, idempotent: true, open_world: true },
        )
    };

    fn run(call: &Call<'_>, params: VerifyParams) -> Reply {
        verify(call.ws, call.session, params, call.ctx).into()
    }

    fn guide(_ws: &Workspace) -> Option<String> {
        Some(
            "Before calling the work done, call verify to run the repository's checks and read their results; \
             done answers whether a verify passed after the last edit and the plan has no open step. "
                .into(),
        )
    }

    /// The outcome and each check's counts.
    /// The failing test ids, else the checks' first error line.
    fn failure(observation: &Observation) -> Option<String> {
        let data = observation.structured.as_ref()?;
        if data["ok"] != false {
            return None;
        }
        let mut tests: Vec<&str> = data["checks"]
            .as_array()?
            .iter()
            .flat_map(|c| c["failures"].as_array().into_iter().flatten())
            .filter_map(|f| f["test"].as_str())
            .collect();
        tests.sort_unstable();
        tests.dedup();
        if !tests.is_empty() {
            return Some(tests.join(", "));
        }
        // The checks' own lines, without verify's headings and its closing verdict.
        const HEADINGS: &[&str] = &["verify:", "FAIL ", "PASS ", "SKIP ", "raw output:", "not verified"];
        let own: Vec<&str> = observation
            .text
            .lines()
            .filter(|l| !HEADINGS.iter().any(|h| l.trim_start().starts_with(h)))
            .collect();
        crate::harness::first_error_line(&own.join("\n"))
    }

    fn trace(structured: Option<&Value>) -> Option<(&'static str, Value)> {
        let summary = structured.map(|s| {
            let checks = s["checks"].as_array().map(|c| {
                c.iter()
                    .map(|c| json!({"name": c["name"], "exit": c["exit"], "passed": c["passed"], "failed": c["failed"]}))
                    .collect::<Vec<_>>()
            });
            json!({"ok": s["ok"], "checks": checks})
        });
        Some(("verify", summary.unwrap_or(Value::Null)))
    }
}

/// Plan the checks (detected or configured, narrowed to the scope, refused if denied), run
/// each, read its output, record the outcome in the gate, answer.
fn verify(ws: &Workspace, session: &Session, params: VerifyParams, ctx: &CallContext) -> Observation {
    let writes_at_start = session.harness.lock().expect("harness lock").writes();
    let planned = match plan(ws, params.scope.as_deref()) {
        Ok(planned) => planned,
        Err(refusal) => return refusal,
    };
    let total = planned.len();
    let mut results = Vec::new();
    let mut raw = String::new();
    for (i, check) in planned.iter().enumerate() {
        if let Some(reason) = &check.skip {
            results.push(CheckResult::skipped(check, reason));
            continue;
        }
        ctx.progress(i as f64, Some(total as f64), &format!("running {}", check.name));
        let execution = match execute::execute(ws, &check.command, check.timeout_s, ctx) {
            Ok(execution) => execution,
            Err(err) => return Observation::error(format!("cannot run the check {}: {err}", check.name)),
        };
        raw.push_str(&format!("$ {}\n{}\n", check.command, execution.status_line()));
        raw.push_str(&execution.output);
        if !execution.output.ends_with('\n') {
            raw.push('\n');
        }
        let cancelled = matches!(execution.end, End::Cancelled);
        results.push(read_check(ws, check, &execution));
        if cancelled {
            break;
        }
    }
    let ok = results.len() == total
        && results.iter().all(CheckResult::ok)
        && results.iter().any(|c| c.exit.is_some());
    let handle = session.outputs.lock().expect("outputs lock").put(raw.clone());
    let summary = summary_line(&results);
    // The tree as the checks left it; only a passing verify's is compared later.
    let tree = if ok { std::sync::Arc::new(ws.tree()) } else { Default::default() };
    let verified = {
        let mut harness = session.harness.lock().expect("harness lock");
        harness.record_verify(VerifyRecord {
            writes_at_start,
            ok,
            summary: summary.clone(),
            tree,
            scope: params.scope.clone().filter(|s| !s.trim().is_empty()),
            checks: results.iter().filter(|c| c.exit.is_some()).map(|c| c.name.clone()).collect(),
        });
        harness.verified_since_last_edit()
    };
    let text = render(&results, ok, verified, &handle, raw.lines().count());
    let out =
        VerifyOutput { ok, checks: results, verified_since_last_edit: verified, raw_output_handle: handle };
    Observation::ok(text, json!(out))
}

/// The checks to run, narrowed to `scope`; a refusal when there are none or one is denied.
fn plan(ws: &Workspace, scope: Option<&str>) -> Result<Vec<Planned>, Observation> {
    let mut planned = detect(ws);
    if planned.is_empty() {
        return Err(Observation::error(format!(
            "no checks to run: tack found {}, and tack.toml has no [verify] checks. Add one, such as:\n\
             [[verify.checks]]\nname = \"tests\"\ncommand = \"make test\"",
            tack_indexer::NO_CHECKED_PROJECT
        )));
    }
    if let Some(scope) = scope.map(str::trim).filter(|s| !s.is_empty()) {
        let is_path = ws.root().resolve(scope).is_ok_and(|p| p.abs.exists());
        let scope = ws
            .root()
            .resolve(scope)
            .ok()
            .filter(|_| is_path)
            .map(|p| p.rel)
            .unwrap_or_else(|| scope.to_string());
        planned = planned
            .into_iter()
            .map(|c| match c.dir.clone() {
                // A folder's project: a path is taken relative to it, and one outside it skips it.
                Some(dir) if is_path => match scope
                    .strip_prefix(&format!("{dir}/"))
                    .or((scope == dir).then_some("."))
                {
                    Some(inner) => apply_scope(c, inner, true),
                    None => Planned { skip: Some(format!("skipped: scope {scope:?} is outside {dir}")), ..c },
                },
                _ => apply_scope(c, &scope, is_path),
            })
            .collect();
    } else {
        // Unscoped, a configured check's placeholder stands for nothing (it ran as the literal
        // `{scope}` before).
        for check in &mut planned {
            check.command = check.command.replace("{scope}", "").trim_end().to_string();
        }
    }
    for check in &planned {
        if check.skip.is_none()
            && let Some(rule) = ws.denied(&check.command)
        {
            return Err(Observation::error(format!(
                "refused: the check {} ({}) matches the deny rule /{rule}/ ([run] deny in tack.toml); nothing was \
             run",
                check.name, check.command
            )));
        }
    }
    Ok(planned)
}

/// One finished check read: counts and failures from its output, or its last lines when the
/// output is not one tack reads and the check failed.
fn read_check(ws: &Workspace, check: &Planned, execution: &execute::Execution) -> CheckResult {
    let mut parsed = check.format.read(&execution.output);
    // Runners that name files by their absolute path (node's): as the other tools name them.
    let root = format!("{}/", ws.root().path().display());
    for failure in &mut parsed.failures {
        if let Some(rel) = failure.path.as_deref().and_then(|p| p.strip_prefix(&root)) {
            failure.path = Some(rel.to_string());
        }
        // A test named by its file (a Jest suite that failed to load).
        if let Some(rel) = failure.test.as_deref().and_then(|t| t.strip_prefix(&root)) {
            failure.test = Some(rel.to_string());
        }
        // A message quoting the file by its absolute path (a C++ test's __FILE__) says it as the
        // rest of the answer does, and the same on every machine.
        if failure.message.contains(&root) {
            failure.message = failure.message.replace(&root, "");
        }
        // A folder's project names its files from there.
        if let (Some(dir), Some(path)) = (&check.dir, failure.path.clone())
            && !path.starts_with('/')
            && !ws.root().path().join(&path).is_file()
            && ws.root().path().join(dir).join(&path).is_file()
        {
            failure.path = Some(format!("{dir}/{path}"));
        }
        // A bare file name (a Java stack frame's `CartTest.java`): the one indexed file of that
        // name under the folder, if there is exactly one.
        if let Some(path) = failure.path.clone()
            && !path.contains('/')
            && !ws.root().path().join(&path).is_file()
        {
            let prefix = check.dir.as_deref().map_or(String::new(), |d| format!("{d}/"));
            let snapshot = ws.index().snapshot();
            let mut found = snapshot
                .files
                .keys()
                .filter(|p| p.starts_with(&prefix) && (p.ends_with(&format!("/{path}")) || **p == path));
            if let (Some(only), None) = (found.next(), found.next()) {
                failure.path = Some(only.clone());
            }
        }
        // A runner that names files otherwise (Go, by import path): the file it means.
        let base = check.dir.as_deref().map_or(ws.root().path().to_path_buf(), |d| ws.root().path().join(d));
        if let Some(path) = failure.path.as_deref()
            && let Some(file) = check.format.file_in_project(path, &|rel| base.join(rel).is_file())
        {
            failure.path = Some(match &check.dir {
                Some(dir) => format!("{dir}/{file}"),
                None => file,
            });
        }
    }
    let stopped = match execution.end {
        End::TimedOut(s) => Some(format!("timeout after {s}s (the process group was killed)")),
        End::Cancelled => Some("cancelled (the process group was killed)".into()),
        End::Exited(None, signal) => Some(format!("killed by signal {}", signal.unwrap_or(0))),
        End::Exited(Some(_), _) => None,
    };
    let recognised = parsed.recognised;
    let exit = execution.exit_code();
    let mut failures = parsed.failures;
    if !recognised && exit != Some(0) {
        // Unknown output: the last lines stand in for a parsed failure.
        let lines: Vec<&str> = execution.output.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
        failures.push(Failure {
            message: if tail.is_empty() { "no output".into() } else { tail },
            ..Failure::default()
        });
    }
    CheckResult {
        name: check.name.clone(),
        command: check.command.clone(),
        exit,
        passed: parsed.passed,
        failed: if recognised || exit == Some(0) { parsed.failed } else { parsed.failed.max(1) },
        skipped: parsed.skipped,
        failures,
        format: if recognised { check.format.name().into() } else { Format::PLAIN.name().into() },
        stopped,
    }
}

/// `passed: 3 passed in pytest` or `failed: 3 passed, 1 failed in pytest (tests/t.py::test_x)`.
fn summary_line(results: &[CheckResult]) -> String {
    let all_ok = results.iter().all(CheckResult::ok);
    let parts: Vec<String> = results
        .iter()
        .filter(|c| c.exit.is_some() || c.stopped.as_deref().is_some_and(|s| !s.starts_with("skipped")))
        .map(|c| {
            let mut part = format!("{}: {}", c.name, counts(c));
            let names: Vec<&str> = c.failures.iter().filter_map(|f| f.test.as_deref()).take(3).collect();
            if !c.ok() && !names.is_empty() {
                part.push_str(&format!(" ({})", names.join(", ")));
            }
            part
        })
        .collect();
    format!("{}: {}", if all_ok { "passed" } else { "failed" }, parts.join("; "))
}

fn counts(check: &CheckResult) -> String {
    if let Some(stopped) = &check.stopped {
        return stopped.clone();
    }
    match Format::from_name(&check.format).map(|f| f.reports()) {
        Some(Reports::Diagnostics) => {
            format!("{} diagnostics, exit={}", check.failures.len(), check.exit.unwrap_or(-1))
        }
        Some(Reports::Nothing) => format!("exit={} (output not parsed)", check.exit.unwrap_or(-1)),
        _ => format!(
            "{} passed, {} failed, {} skipped, exit={}",
            check.passed,
            check.failed,
            check.skipped,
            check.exit.unwrap_or(-1)
        ),
    }
}

/// The text an agent reads: one verdict line, then per check its status, counts and failures
/// (location, test, message), then the handle of the raw output and the gate.
fn render(results: &[CheckResult], ok: bool, verified: bool, handle: &str, raw_lines: usize) -> String {
    let failing = results.iter().filter(|c| !c.ok()).count();
    let mut text = if ok {
        format!("verify: all {} checks passed\n", results.len())
    } else if failing == 0 {
        format!(
            "verify: no check ran: all {} were skipped for this scope, so nothing is verified\n",
            results.len()
        )
    } else {
        format!("verify: {failing} of {} checks failed\n", results.len())
    };
    for check in results {
        let status = if check.stopped.as_deref().is_some_and(|s| s.starts_with("skipped")) {
            "SKIP"
        } else if check.ok() {
            "ok"
        } else {
            "FAIL"
        };
        text.push_str(&format!("{status} {}: {}\n  {}\n", check.name, check.command, counts(check)));
        for failure in check.failures.iter().take(MAX_LISTED) {
            let place = match (&failure.path, failure.line) {
                (Some(path), Some(line)) => format!("{path}:{line}"),
                (Some(path), None) => path.clone(),
                _ => String::new(),
            };
            let head = [place, failure.test.clone().unwrap_or_default()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            if head.is_empty() {
                text.push_str("  output (last lines):\n");
            } else {
                text.push_str(&format!("  {head}\n"));
            }
            for line in failure.message.lines() {
                text.push_str(&format!("    {line}\n"));
            }
        }
        if check.failures.len() > MAX_LISTED {
            text.push_str(&format!(
                "  … {} more; all are in the raw output\n",
                check.failures.len() - MAX_LISTED
            ));
        }
    }
    text.push_str(&format!("raw output: {raw_lines} lines, read_output(handle=\"{handle}\")\n"));
    if verified {
        text.push_str("verified since the last edit; done() checks the plan too\n");
    } else {
        text.push_str("not verified since the last edit: fix the failures, then call verify again\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(command: &str) -> Planned {
        Planned {
            name: "t".into(),
            command: command.into(),
            format: Format::guess(command),
            timeout_s: 10,
            skip: None,
            dir: None,
        }
    }

    #[test]
    fn scope_narrows_each_kind_of_check() {
        let cases = [
            ("pytest -q", "tests/test_a.py", true, "pytest -q tests/test_a.py"),
            ("pytest -q", "test_total", false, "pytest -q -k test_total"),
            ("cargo test", "total_is_wrong", false, "cargo test -- total_is_wrong"),
            ("cargo test -- --nocapture", "x y", false, "cargo test -- --nocapture 'x y'"),
            ("cargo test", "tests/api.rs", true, "cargo test --test api"),
            ("ruff check", "src/a.py", true, "ruff check src/a.py"),
            ("make test ARGS={scope}", "it's", false, "make test ARGS='it'\\''s'"),
            ("npx jest --json", "src/a.test.js", true, "npx jest --json src/a.test.js"),
            (
                "npx vitest --run --reporter=json",
                "a adds",
                false,
                "npx vitest --run --reporter=json -t 'a adds'",
            ),
            ("npx mocha --reporter tap", "adds", false, "npx mocha --reporter tap --grep adds"),
            (
                "npm test --silent -- --test-reporter=tap",
                "adds",
                false,
                "npm test --silent -- --test-reporter=tap --test-name-pattern=adds",
            ),
            (
                "node_modules/.bin/eslint --format json .",
                "src/a.js",
                true,
                "node_modules/.bin/eslint --format json src/a.js",
            ),
            ("go test -json ./...", "pkg/a_test.go", true, "go test -json ./pkg/..."),
            ("go test -json ./...", "TestA", false, "go test -json ./... -run TestA"),
            (
                "gradle test -q; cat build/test-results/test/*.xml",
                "calc.CalcTest",
                false,
                "gradle test --tests calc.CalcTest -q; cat build/test-results/test/*.xml",
            ),
            (
                "gradle test -q; cat build/test-results/test/*.xml",
                "src/CalcTest.kt",
                true,
                "gradle test --tests '*CalcTest' -q; cat build/test-results/test/*.xml",
            ),
        ];
        for (command, scope, is_path, expected) in cases {
            assert_eq!(apply_scope(planned(command), scope, is_path).command, expected);
        }
        assert!(apply_scope(planned("ruff check"), "test_x", false).skip.is_some());
        assert!(apply_scope(planned("make test"), "x", false).skip.is_some());
        assert!(
            apply_scope(planned("node_modules/.bin/eslint --format json ."), "adds", false).skip.is_some()
        );
    }

    #[test]
    fn a_repository_with_no_check_is_told_what_was_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path(), crate::Config::default()).unwrap();
        let refusal = plan(&ws, None).unwrap_err();
        assert_eq!(
            refusal.text,
            "no checks to run: tack found no pytest project (pyproject.toml, setup.py, pytest.ini, tests/*.py), \
             no Cargo.toml, no package.json with a test script, no go.mod, no pom.xml or build.gradle, no \
             configured CMake build folder, no .sln or .csproj, no phpunit.xml, no RSpec or Minitest suite, no \
             Package.swift, no test/*.bats, no busted specs, no mix.exs, no build.zig, no build.sbt or build.sc and no stack.yaml or *.cabal file, and tack.toml has no [verify] checks. Add one, such as:\n[[verify.checks]]\nname = \
             \"tests\"\ncommand = \"make test\""
        );
    }

    #[test]
    fn a_verify_whose_checks_were_all_skipped_says_nothing_ran() {
        let check = apply_scope(planned("ruff check"), "test_x", false);
        let result = CheckResult {
            name: check.name,
            command: check.command,
            exit: None,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: Vec::new(),
            format: "diagnostics".into(),
            stopped: check.skip,
        };
        let text = render(&[result], false, false, "h1", 0);
        assert!(text.starts_with("verify: no check ran: all 1 were skipped"), "{text}");
        assert!(text.contains("SKIP t: ruff check\n  skipped: scope \"test_x\" is a test name"), "{text}");
    }
}
