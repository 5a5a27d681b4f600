//! Verification and harness state through the real binary: `verify` on a pytest and a `cargo
//! test` fixture, the `done` gate around edits, a plan read back by a new server process, the
//! stall nudge and the session trace, and a hanging check stopped at its timeout.
//!
//! CI time: the pytest fixture runs in well under a second once pytest is in the venv; the Rust
//! fixture compiles a four-test crate (a few seconds) into its own target dir.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use expect_test::expect;
use rmcp::model::CallToolResult;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tack_tests::{call, fixture_copy, python_with, tack_binary, wait_for_processes};

/// pytest, pinned like the MCP SDK of the interop test.
const PYTEST: &str = "pytest==9.2.0";

type Client = RunningService<RoleClient, ()>;

/// A stdio server on `root`, keeping its index, plan and traces in `store`, with `envs` set.
async fn serve(root: &Path, store: &Path, envs: &[(&str, String)]) -> Client {
    let (root, store) = (root.to_path_buf(), store.to_path_buf());
    let envs: Vec<(String, String)> = envs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        // Structured, to check the parsed counts as data; the text is checked beside it.
        cmd.arg("serve")
            .arg("--structured")
            .arg("--root")
            .arg(&root)
            .arg("--index-dir")
            .arg(&store)
            .env("TACK_LOG", "warn");
        cmd.env("RUST_BACKTRACE", "0");
        for (k, v) in &envs {
            cmd.env(k, v);
        }
    }))
    .expect("tack starts");
    ().serve(transport).await.expect("handshake")
}

/// Fixes the fixture's bug through edit_file (`edit` is its arguments); then verify passes,
/// with `passed` tests in its first check when given, and done closes the gate.
async fn fix_then_done(client: &Client, edit: Value, passed: Option<u64>) {
    let fixed = call(client, "edit_file", edit).await;
    assert_eq!(fixed.is_error, Some(false), "{}", text(&fixed));
    let result = call(client, "verify", json!({})).await;
    assert_eq!(data(&result)["ok"], true, "{}", text(&result));
    if let Some(passed) = passed {
        assert_eq!(data(&result)["checks"][0]["passed"], passed, "{}", text(&result));
    }
    let done = call(client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    assert_eq!(data(&done)["done"], true, "{}", text(&done));
}

fn text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

fn data(result: &CallToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

/// PATH with the venv holding pytest first, so detection finds `pytest`.
fn path_with_pytest() -> String {
    let python = python_with(&[("pytest", PYTEST)]);
    let bin = python.parent().expect("venv bin").to_path_buf();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

/// pytest's raw output differs by a line or two between environments (plugins, warnings): the
/// snapshot pins everything else and reads the count as N.
fn raw_lines_as_n(text: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("raw output: ").and_then(|rest| rest.split_once(" lines")) {
            Some((count, rest)) if count.chars().all(|c| c.is_ascii_digit()) => {
                format!("raw output: N lines{rest}")
            }
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

#[tokio::test]
async fn pytest_fixture_verify_and_the_done_gate_around_an_edit() {
    let repo = fixture_copy("verify_py");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[("PATH", path_with_pytest())]).await;

    let done = call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    expect![[r#"
        not done: 1 condition failed
        - not verified: no verify has run in this session; call verify
    "#]]
    .assert_eq(&text(&done));

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL pytest: pytest -q -rfE --tb=short -p no:cacheprovider
          3 passed, 1 failed, 0 skipped, exit=1
          tests/test_calc.py:17 tests/test_calc.py::test_total
            assert 2 == 3
            +  where 2 = total([1, 2])
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let check = &data(&result)["checks"][0];
    assert_eq!((check["passed"].as_u64(), check["failed"].as_u64()), (Some(3), Some(1)));
    let failure = &check["failures"][0];
    assert_eq!(failure["test"], "tests/test_calc.py::test_total");
    assert_eq!(failure["path"], "tests/test_calc.py");
    assert_eq!(failure["line"], 17);
    assert!(failure["message"].as_str().unwrap().starts_with("assert 2 == 3"), "{failure}");
    assert_eq!(data(&result)["ok"], false);
    assert_eq!(data(&result)["verified_since_last_edit"], false);
    // The raw output is kept whole under the handle.
    let raw = call(&client, "call_tool", json!({"name": "read_output", "arguments": {"handle": "h1"}})).await;
    assert!(text(&raw).contains("FAILED tests/test_calc.py::test_total - assert 2 == 3"), "{}", text(&raw));

    let edit = call(
        &client,
        "edit_file",
        json!({"path": "calc.py", "old": "sum(prices) - 1", "new": "sum(prices)"}),
    )
    .await;
    assert_eq!(data(&edit)["verified_since_last_edit"], false);
    let done = call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    expect![[r#"
        not done: 1 condition failed
        - not verified since the last edit (edit_file changed calc.py); call verify
    "#]]
    .assert_eq(&text(&done));

    let result = call(&client, "verify", json!({})).await;
    assert_eq!(data(&result)["ok"], true, "{}", text(&result));
    assert_eq!(data(&result)["checks"][0]["passed"], 4);
    assert_eq!(data(&result)["verified_since_last_edit"], true);
    let done = call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    expect![[r#"
        done: a verify passed after the last edit and the plan has no open steps; the work is verified (tree 4769d86c6949a252, pytest)
    "#]]
    .assert_eq(&text(&done));
    assert_eq!(data(&done)["done"], true);

    // An open plan step holds the gate shut until it is completed.
    let plan = json!({"plan": [{"step": "fix total", "status": "completed"}, {"step": "add a test", "status": "in_progress"}]});
    call(&client, "call_tool", json!({"name": "todo", "arguments": plan})).await;
    let done = call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    expect![[r#"
        not done: 1 condition failed
        - the plan has 1 open step: "add a test" (in_progress); finish it, then mark it completed with todo (or drop steps that no longer apply)
    "#]]
    .assert_eq(&text(&done));
    let plan = json!({"plan": [{"step": "fix total", "status": "completed"}, {"step": "add a test", "status": "completed"}]});
    call(&client, "call_tool", json!({"name": "todo", "arguments": plan})).await;
    let done = call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    assert_eq!(data(&done)["done"], true, "{}", text(&done));

    // Scope narrows to a test name; no process or cache is left in the repository.
    let result = call(&client, "verify", json!({"scope": "test_add"})).await;
    assert_eq!(
        data(&result)["checks"][0]["command"],
        "pytest -q -rfE --tb=short -p no:cacheprovider -k test_add"
    );
    assert_eq!(data(&result)["checks"][0]["passed"], 3, "{}", text(&result));
    assert!(!repo.path().join(".pytest_cache").exists());
    client.cancel().await.unwrap();
}

/// A monorepo: a Go module in `api/` and a node project in `web/`, neither at the root. Each
/// runs in its folder, its failures named from the root; a path scope runs only the project it
/// is in, narrowed from that folder.
#[tokio::test(flavor = "multi_thread")]
async fn a_monorepos_projects_each_run_in_their_folder_and_a_path_scope_picks_one() {
    let repo = tempfile::tempdir().unwrap();
    let copy = |fixture: &str, to: &str| {
        let from = fixture_copy(fixture);
        let status = std::process::Command::new("cp")
            .arg("-R")
            .arg(from.path())
            .arg(repo.path().join(to))
            .status()
            .unwrap();
        assert!(status.success());
    };
    copy("verify_go", "api");
    copy("verify_js", "web");
    let store = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let env = [
        ("GOCACHE", cache.path().join("go-build").display().to_string()),
        ("GOMODCACHE", cache.path().join("mod").display().to_string()),
    ];
    let client = serve(repo.path(), store.path(), &env).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 2 of 3 checks failed
        FAIL go test in api: cd api && go test -json ./...
          1 passed, 1 failed, 1 skipped, exit=1
          api/calc_test.go:13 example.com/calc.TestTotal
            Total([1 2]) = 2, want 3
        ok go vet in api: cd api && go vet ./...
          exit=0 (output not parsed)
        FAIL npm test in web: cd web && npm test --silent -- --test-reporter=tap
          1 passed, 1 failed, 1 skipped, exit=1
          web/test/calc.test.js:10 total sums prices
            Expected values to be strictly equal: 2 !== 3
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let checks = data(&result)["checks"].as_array().unwrap().clone();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["go test in api", "go vet in api", "npm test in web"], "{}", text(&result));
    assert_eq!(checks[0]["command"], "cd api && go test -json ./...");
    let place = |c: &Value| {
        (c["failures"][0]["path"].as_str().map(str::to_string), c["failures"][0]["line"].as_u64())
    };
    assert_eq!(place(&checks[0]), (Some("api/calc_test.go".into()), Some(13)), "{}", text(&result));
    assert_eq!(place(&checks[2]), (Some("web/test/calc.test.js".into()), Some(10)));

    let scoped = call(&client, "verify", json!({"scope": "web/test/calc.test.js"})).await;
    let checks = data(&scoped)["checks"].as_array().unwrap().clone();
    assert_eq!(checks[2]["command"], "cd web && npm test --silent -- --test-reporter=tap test/calc.test.js");
    assert_eq!(checks[2]["failed"], 1, "{}", text(&scoped));
    assert!(text(&scoped).contains("SKIP go test in api"), "{}", text(&scoped));
    client.cancel().await.unwrap();
}

/// A Maven project: `mvn test`, then Surefire's JUnit reports, read into counts and the failing
/// test with the file and line of its stack frame (found in the index by its file name); scope
/// by class or method (`-Dtest=`) and by test file; the gate closes after the fix. Offline, as
/// here, Maven reads Debian's packaged plugins (`.mvn/maven.config`).
#[tokio::test(flavor = "multi_thread")]
async fn maven_fixture_is_read_from_surefire_reports_and_scoped() {
    let repo = fixture_copy("verify_java");
    std::fs::create_dir_all(repo.path().join(".mvn")).unwrap();
    std::fs::write(repo.path().join(".mvn/maven.config"), "-o\n-Dmaven.repo.local=/usr/share/maven-repo\n")
        .unwrap();
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL mvn test: rm -rf target/surefire-reports; mvn -q -B test; status=$?; cat target/surefire-reports/TEST-*.xml 2>/dev/null; exit $status
          1 passed, 1 failed, 0 skipped, exit=1
          src/test/java/calc/CalcTest.java:15 calc.CalcTest.totals
            expected:<3> but was:<2>
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["name"].as_str(), check["format"].as_str()),
        (Some("mvn test"), Some("junit")),
        "{}",
        text(&result)
    );
    assert_eq!((check["passed"].as_u64(), check["failed"].as_u64()), (Some(1), Some(1)), "{}", text(&result));
    let failure = &check["failures"][0];
    assert_eq!(failure["test"], "calc.CalcTest.totals");
    assert_eq!(
        (failure["path"].as_str(), failure["line"].as_u64()),
        (Some("src/test/java/calc/CalcTest.java"), Some(15)),
        "{}",
        text(&result)
    );
    assert_eq!(failure["message"], "expected:<3> but was:<2>");

    let by_name = call(&client, "verify", json!({"scope": "CalcTest#adds"})).await;
    let check = &data(&by_name)["checks"][0];
    assert!(check["command"].as_str().unwrap().contains("mvn -Dtest='CalcTest#adds' -q -B test"), "{check}");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "src/test/java/calc/CalcTest.java"})).await;
    assert!(data(&by_file)["checks"][0]["command"].as_str().unwrap().contains("mvn -Dtest=CalcTest -q"));

    fix_then_done(
        &client,
        json!({"path": "src/main/java/calc/Calc.java", "old": "return sum - 1;", "new": "return sum;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A CMake project with a configured build folder: built, then ctest with its JUnit report,
/// read into counts and the failing test with the file and line its output names; scope by
/// test name (`ctest -R`); the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn ctest_fixture_is_built_read_from_its_junit_report_and_scoped() {
    let repo = fixture_copy("verify_cpp");
    let configured = std::process::Command::new("cmake")
        .args(["-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Debug"])
        .current_dir(repo.path())
        .output()
        .expect("cmake runs (apt-get install cmake g++)");
    assert!(configured.status.success(), "{}", String::from_utf8_lossy(&configured.stderr));
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL ctest: rm -f build/junit.xml; cmake --build build && ctest --test-dir build --output-on-failure --output-junit junit.xml; status=$?; cat build/junit.xml 2>/dev/null; exit $status
          1 passed, 1 failed, 0 skipped, exit=8
          calc_test.cpp:16 total
            calc_test.cpp:16: expected 3, got 2
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["name"].as_str(), check["format"].as_str()),
        (Some("ctest"), Some("junit")),
        "{}",
        text(&result)
    );
    assert_eq!((check["passed"].as_u64(), check["failed"].as_u64()), (Some(1), Some(1)), "{}", text(&result));
    let failure = &check["failures"][0];
    assert_eq!(failure["test"], "total");
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("calc_test.cpp"), Some(16)));
    assert!(text(&result).contains("calc_test.cpp:16 total\n"), "{}", text(&result));

    let by_name = call(&client, "verify", json!({"scope": "add"})).await;
    let check = &data(&by_name)["checks"][0];
    assert!(check["command"].as_str().unwrap().contains("ctest -R add --test-dir build"), "{check}");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );

    fix_then_done(
        &client,
        json!({"path": "calc.cpp", "old": "return sum - 1;", "new": "return sum;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A Go module: `go test -json ./...` read event by event into counts and the failing test with
/// its file and line, and `go vet` beside it; Go's build cache outside the root stays writable
/// under the sandbox; scope by name (`-run`) and by package; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn go_test_fixture_is_detected_read_from_its_events_and_scoped() {
    let repo = fixture_copy("verify_go");
    let store = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (build, modules) = (cache.path().join("go-build"), cache.path().join("mod"));
    let env = [("GOCACHE", build.display().to_string()), ("GOMODCACHE", modules.display().to_string())];
    let client = serve(repo.path(), store.path(), &env).await;
    // The instructions say where Go may write besides the repository.
    let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    let caches = format!("{}, {}", build.display(), modules.display());
    let said = if matches!(
        tack_tools::containment(),
        tack_tools::Containment::Namespaces { mounts: true, .. }
    ) {
        format!(
            "What they write to the toolchains' caches ({caches}) stays in tack's copy for this repository. "
        )
    } else {
        format!("They may also write the toolchains' caches: {caches}. ")
    };
    assert!(instructions.contains(&said), "{instructions}");

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 2 checks failed
        FAIL go test: go test -json ./...
          1 passed, 1 failed, 1 skipped, exit=1
          calc_test.go:13 example.com/calc.TestTotal
            Total([1 2]) = 2, want 3
        ok go vet: go vet ./...
          exit=0 (output not parsed)
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let failure = &data(&result)["checks"][0]["failures"][0];
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("calc_test.go"), Some(13)));
    if matches!(tack_tools::containment(), tack_tools::Containment::Namespaces { mounts: true, .. }) {
        let written = std::fs::read_dir(&build).map(|d| d.count()).unwrap_or(0);
        assert_eq!(written, 0, "go wrote its build cache to tack's layer, not where GOCACHE says");
    } else {
        assert!(build.is_dir(), "go wrote its build cache where GOCACHE says");
    }

    let by_name = call(&client, "verify", json!({"scope": "TestAdd"})).await;
    let check = &data(&by_name)["checks"][0];
    assert_eq!(check["command"], "go test -json ./... -run TestAdd");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "calc_test.go"})).await;
    assert_eq!(data(&by_file)["checks"][0]["command"], "go test -json ./...");

    fix_then_done(&client, json!({"path": "calc.go", "old": "return sum - 1", "new": "return sum"}), None)
        .await;
    client.cancel().await.unwrap();
}

/// TypeScript with its own compiler installed: `tsc --noEmit`, its diagnostics read into the
/// error's code, file and line; the gate closes once the type error is fixed.
#[tokio::test(flavor = "multi_thread")]
async fn tsc_fixture_is_detected_and_its_type_errors_read() {
    let repo = fixture_copy("verify_ts");
    npm_install(repo.path());
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL tsc: node_modules/.bin/tsc --noEmit --pretty false
          1 diagnostics, exit=2
          src/calc.ts:5 TS2322
            Type 'string' is not assignable to type 'number'.
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let check = &data(&result)["checks"][0];
    assert_eq!(check["command"], "node_modules/.bin/tsc --noEmit --pretty false", "{}", text(&result));
    let failure = &check["failures"][0];
    assert_eq!(failure["test"], "TS2322");
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("src/calc.ts"), Some(5)));

    fix_then_done(
        &client,
        json!({"path": "src/calc.ts", "old": "label: number", "new": "label: string"}),
        None,
    )
    .await;
    client.cancel().await.unwrap();
}

/// A node project: its test script through npm, node's test runner asked for TAP, read into
/// counts and the failing test with the file and line of its assertion; scope by file and by
/// name; the gate closes once the bug is fixed through edit_file.
#[tokio::test(flavor = "multi_thread")]
async fn node_test_fixture_is_detected_read_from_tap_and_scoped() {
    let repo = fixture_copy("verify_js");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL npm test: npm test --silent -- --test-reporter=tap
          1 passed, 1 failed, 1 skipped, exit=1
          test/calc.test.js:10 total sums prices
            Expected values to be strictly equal: 2 !== 3
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let check = &data(&result)["checks"][0];
    assert_eq!(check["format"], "tap");
    let failure = &check["failures"][0];
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("test/calc.test.js"), Some(10)));

    let by_name = call(&client, "verify", json!({"scope": "add adds"})).await;
    let check = &data(&by_name)["checks"][0];
    assert_eq!(check["command"], "npm test --silent -- --test-reporter=tap --test-name-pattern='add adds'");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "test/calc.test.js"})).await;
    assert_eq!(
        data(&by_file)["checks"][0]["command"],
        "npm test --silent -- --test-reporter=tap test/calc.test.js"
    );
    assert_eq!(data(&by_file)["checks"][0]["failed"], 1, "{}", text(&by_file));

    fix_then_done(&client, json!({"path": "calc.js", "old": "0) - 1;", "new": "0);"}), Some(2)).await;
    client.cancel().await.unwrap();
}

/// `npm install` in `repo`, as a project's developer runs it first.
fn npm_install(repo: &Path) {
    let installed = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(repo)
        .output()
        .expect("npm runs");
    assert!(installed.status.success(), "{}", String::from_utf8_lossy(&installed.stderr));
}

/// A Jest project with ESLint configured: Jest asked for its JSON report and ESLint for JSON,
/// each read into the failing test or rule with its file and line; scope by test name (`-t`)
/// and by path; one fix through edit_file closes the gate for both.
#[tokio::test(flavor = "multi_thread")]
async fn jest_and_eslint_fixture_is_read_from_their_json_and_scoped() {
    let repo = fixture_copy("verify_jest");
    npm_install(repo.path());
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 2 of 2 checks failed
        FAIL npm test: npm test --silent -- --json
          1 passed, 1 failed, 0 skipped, exit=1
          src/calc.test.js:9 calc multiplies
            expect(received).toBe(expected) // Object.is equality Expected: 6 Received: 5
        FAIL eslint: node_modules/.bin/eslint --format json .
          1 diagnostics, exit=1
          src/calc.js:6 no-unused-vars
            'product' is assigned a value but never used.
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let checks = &data(&result)["checks"];
    assert_eq!(
        (checks[0]["format"].as_str(), checks[1]["format"].as_str()),
        (Some("jest-json"), Some("eslint-json"))
    );
    let failure = &checks[0]["failures"][0];
    assert_eq!(failure["test"], "calc multiplies");
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("src/calc.test.js"), Some(9)));
    let lint = &checks[1]["failures"][0];
    assert_eq!(lint["test"], "no-unused-vars");
    assert_eq!((lint["path"].as_str(), lint["line"].as_u64()), (Some("src/calc.js"), Some(6)));

    let by_name = call(&client, "verify", json!({"scope": "adds"})).await;
    let checks = &data(&by_name)["checks"];
    assert_eq!(checks[0]["command"], "npm test --silent -- --json -t adds");
    assert_eq!(
        (checks[0]["passed"].as_u64(), checks[0]["failed"].as_u64(), checks[0]["skipped"].as_u64()),
        (Some(1), Some(0), Some(1)),
        "{}",
        text(&by_name)
    );
    assert!(checks[1]["stopped"].as_str().is_some_and(|s| s.starts_with("skipped")), "{}", text(&by_name));
    let by_file = call(&client, "verify", json!({"scope": "src/calc.js"})).await;
    let checks = &data(&by_file)["checks"];
    assert_eq!(checks[1]["command"], "node_modules/.bin/eslint --format json src/calc.js");
    assert_eq!(checks[1]["failed"], 1, "{}", text(&by_file));

    fix_then_done(
        &client,
        json!({"path": "src/calc.js", "old": "  const product = a * b;\n  return a + b;", "new": "  return a * b;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A TypeScript project tested by Vitest: its JSON report read into the failing test with the
/// file and line of its assertion; scope by file; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn vitest_fixture_is_read_from_its_json_report_and_scoped() {
    let repo = fixture_copy("verify_vitest");
    npm_install(repo.path());
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL npm test: npm test --silent -- --run --reporter=json
          1 passed, 1 failed, 0 skipped, exit=1
          src/calc.test.ts:10 calc multiplies
            AssertionError: expected 5 to be 6 // Object.is equality
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]]
    .assert_eq(&raw_lines_as_n(&text(&result)));
    let failure = &data(&result)["checks"][0]["failures"][0];
    assert_eq!(failure["test"], "calc multiplies");
    assert_eq!((failure["path"].as_str(), failure["line"].as_u64()), (Some("src/calc.test.ts"), Some(10)));

    let by_name = call(&client, "verify", json!({"scope": "calc adds"})).await;
    let check = &data(&by_name)["checks"][0];
    assert_eq!(check["command"], "npm test --silent -- --run --reporter=json -t 'calc adds'");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "src/calc.test.ts"})).await;
    assert_eq!(data(&by_file)["checks"][0]["failed"], 1, "{}", text(&by_file));

    fix_then_done(
        &client,
        json!({"path": "src/calc.ts", "old": "mul(a: number, b: number): number {\n  return a + b;", "new": "mul(a: number, b: number): number {\n  return a * b;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A Gradle project: its `test` task, then the JUnit reports Gradle writes, read into the
/// failing test at its own frame (Gradle keeps JUnit's frames above it); scope by class
/// (`--tests`) and by test file; the gate closes after the fix. Offline, as here, the build
/// names Debian's packaged Maven repository.
#[tokio::test(flavor = "multi_thread")]
async fn gradle_fixture_is_read_from_its_junit_reports_and_scoped() {
    let repo = fixture_copy("verify_gradle");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL gradle test: rm -rf build/test-results */build/test-results; gradle test --console=plain --no-daemon -q; status=$?; cat build/test-results/test/*.xml */build/test-results/test/*.xml 2>/dev/null; exit $status
          1 passed, 1 failed, 0 skipped, exit=1
          src/test/java/calc/CalcTest.java:15 calc.CalcTest.totals
            java.lang.AssertionError: expected:<3> but was:<2>
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]].assert_eq(&raw_lines_as_n(&text(&result)));
    let failure = &data(&result)["checks"][0]["failures"][0];
    assert_eq!(failure["test"], "calc.CalcTest.totals");
    assert_eq!(
        (failure["path"].as_str(), failure["line"].as_u64()),
        (Some("src/test/java/calc/CalcTest.java"), Some(15)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "CalcTest#adds"})).await;
    let check = &data(&by_name)["checks"][0];
    assert!(check["command"].as_str().unwrap().contains("gradle test --tests '*CalcTest.adds' "), "{check}");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "src/test/java/calc/CalcTest.java"})).await;
    assert!(data(&by_file)["checks"][0]["command"].as_str().unwrap().contains("--tests '*CalcTest' "));
    assert_eq!(data(&by_file)["checks"][0]["failed"], 1, "{}", text(&by_file));

    fix_then_done(
        &client,
        json!({"path": "src/main/java/calc/Calc.java", "old": "return sum - 1;", "new": "return sum;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cargo_test_fixture_reports_the_failing_test_with_its_location() {
    let repo = fixture_copy("verify_rs");
    let store = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    let client =
        serve(repo.path(), store.path(), &[("CARGO_TARGET_DIR", target.path().display().to_string())]).await;
    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!(check["name"], "cargo test");
    assert_eq!((check["passed"].as_u64(), check["failed"].as_u64()), (Some(3), Some(1)), "{}", text(&result));
    let failure = &check["failures"][0];
    assert_eq!(failure["test"], "tests::total_is_the_sum");
    assert_eq!(failure["path"], "src/lib.rs");
    assert_eq!(failure["line"], 30);
    assert_eq!(failure["message"], "assertion `left == right` failed\n  left: 2\n right: 3");
    assert!(text(&result).contains("  src/lib.rs:30 tests::total_is_the_sum\n"), "{}", text(&result));

    let result = call(&client, "verify", json!({"scope": "adds"})).await;
    assert_eq!(data(&result)["ok"], true, "{}", text(&result));
    assert_eq!(data(&result)["checks"][0]["passed"], 3);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_plan_and_a_note_written_in_one_server_are_read_by_the_next() {
    let repo = fixture_copy("verify_py");
    let store = tempfile::tempdir().unwrap();
    let first = serve(repo.path(), store.path(), &[]).await;
    let plan = json!({"explanation": "total is off by one", "plan": [
        {"step": "fix total", "status": "completed"},
        {"step": "run the tests", "status": "in_progress"},
        {"step": "update the changelog", "status": "pending"}]});
    let saved = call(&first, "call_tool", json!({"name": "todo", "arguments": plan})).await;
    assert!(!saved.is_error.unwrap_or(false), "{}", text(&saved));
    call(&first, "edit_file", json!({"path": "calc.py", "old": "sum(prices) - 1", "new": "sum(prices)"}))
        .await;
    call(
        &first,
        "call_tool",
        json!({"name": "handoff", "arguments": {"note": "fixed total; tests not run"}}),
    )
    .await;
    let two_in_progress =
        json!({"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]});
    let refused = call(&first, "call_tool", json!({"name": "todo", "arguments": two_in_progress})).await;
    assert!(refused.is_error.unwrap_or(false));
    first.cancel().await.unwrap();

    let second = serve(repo.path(), store.path(), &[]).await;
    let plan = call(&second, "call_tool", json!({"name": "todo", "arguments": {}})).await;
    expect![[r#"
        plan: 1 of 3 steps completed
        total is off by one
        [x] fix total
        [>] run the tests
        [ ] update the changelog
    "#]]
    .assert_eq(&text(&plan));
    let note = call(&second, "call_tool", json!({"name": "handoff", "arguments": {}})).await;
    expect![[r#"
        handoff note:
        fixed total; tests not run
        last verify: none in that session
        changed files: calc.py
        plan: 2 of 3 steps open
        [>] run the tests
        [ ] update the changelog
    "#]]
    .assert_eq(&text(&note));
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn three_identical_failing_calls_nudge_and_the_trace_keeps_every_call() {
    let repo = fixture_copy("verify_py");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;
    let mut texts = Vec::new();
    for _ in 0..3 {
        let result = call(&client, "read_file", json!({"path": "missing.py"})).await;
        assert!(result.is_error.unwrap_or(false));
        texts.push(text(&result));
    }
    assert!(!texts[0].contains("[tack]") && !texts[1].contains("[tack]"), "{texts:?}");
    assert!(
        texts[2]
            .trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("[tack] this exact call returned the same result 3 times"),
        "{}",
        texts[2]
    );
    call(&client, "call_tool", json!({"name": "done", "arguments": {}})).await;
    client.cancel().await.unwrap();

    let traces: Vec<PathBuf> =
        std::fs::read_dir(store.path().join("state/traces")).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(traces.len(), 1, "one session, one trace: {traces:?}");
    let trace = std::fs::read_to_string(&traces[0]).unwrap();
    let records: Vec<Value> =
        trace.lines().map(|line| serde_json::from_str(line).expect("every line is JSON")).collect();
    let tools: Vec<&str> = records.iter().map(|r| r["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["read_file", "read_file", "read_file", "done"]);
    let seqs: Vec<u64> = records.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert!(records[2]["stall"].as_str().unwrap().starts_with("[tack]"));
    assert!(records[0]["error"].is_string() && records[0]["tokens"].as_u64().unwrap() > 0);
    assert_eq!(records[3]["gate"]["done"], false);
    assert_eq!(records[3]["via"], "call_tool");

    let summary = std::process::Command::new(tack_binary())
        .args(["trace", "--root"])
        .arg(repo.path())
        .arg("--index-dir")
        .arg(store.path())
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&summary.stdout);
    assert!(summary.contains("4 calls,"), "{summary}");
    assert!(summary.contains("3 failed calls"), "{summary}");
    assert!(summary.contains("1 stall nudges"), "{summary}");
}

#[tokio::test]
async fn a_hanging_check_stops_at_its_timeout_and_leaves_no_process() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(
        repo.path().join("tack.toml"),
        "[[verify.checks]]\nname = \"hang\"\ncommand = \"sleep 7501 & setsid sleep 7502 & wait\"\ntimeout_s = 2\n",
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;
    let started = Instant::now();
    let result = call(&client, "verify", json!({})).await;
    assert!(started.elapsed() < Duration::from_secs(20), "verify took {:?}", started.elapsed());
    let check = &data(&result)["checks"][0];
    assert_eq!(data(&result)["ok"], false);
    assert!(check["stopped"].as_str().unwrap().starts_with("timeout after 2s"), "{check}");
    assert!(text(&result).contains("FAIL hang:"), "{}", text(&result));
    for n in ["7501", "7502"] {
        let left =
            tokio::task::spawn_blocking(move || wait_for_processes(&["sleep", n], 5, <[u32]>::is_empty));
        assert_eq!(left.await.unwrap(), Vec::<u32>::new(), "sleep {n} outlived the timeout");
    }
    client.cancel().await.unwrap();
}

/// The failing test of a check's first result: its name, file and line.
fn first_failure(result: &CallToolResult) -> (Option<&str>, Option<&str>, Option<u64>) {
    let failure = &data(result)["checks"][0]["failures"][0];
    (failure["test"].as_str(), failure["path"].as_str(), failure["line"].as_u64())
}

/// The counts of a check's first result: passed, failed, skipped.
fn counts(result: &CallToolResult) -> (Option<u64>, Option<u64>, Option<u64>) {
    let check = &data(result)["checks"][0];
    (check["passed"].as_u64(), check["failed"].as_u64(), check["skipped"].as_u64())
}

/// A Ruby project with specs: RSpec's JSON report read into counts and the failing example at
/// its expectation's line; scope by spec file; the gate closes after the fix. Needs Ruby's
/// detection wired (`checks: project::checks` in ruby/mod.rs).
#[tokio::test(flavor = "multi_thread")]
async fn rspec_fixture_is_detected_read_from_its_json_report_and_scoped() {
    let repo = fixture_copy("verify_rspec");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["command"].as_str(), check["format"].as_str()),
        (Some("rspec --format json"), Some("rspec-json"))
    );
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("Calc sums prices"), Some("spec/calc_spec.rb"), Some(9)),
        "{}",
        text(&result)
    );
    assert!(text(&result).contains("expected: 3\n"), "{}", text(&result));

    let by_file = call(&client, "verify", json!({"scope": "spec/calc_spec.rb"})).await;
    assert_eq!(data(&by_file)["checks"][0]["command"], "rspec --format json spec/calc_spec.rb");
    assert_eq!(counts(&by_file), (Some(1), Some(1), Some(1)), "{}", text(&by_file));

    fix_then_done(
        &client,
        json!({"path": "lib/calc.rb", "old": "prices.sum - 1", "new": "prices.sum"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A Ruby project with Minitest tests and Rake's test task: `rake test`'s report read into
/// counts and the failing test at its assertion's line; scope by name (`TESTOPTS=--name=`);
/// the gate closes after the fix. Needs Ruby's detection wired.
#[tokio::test(flavor = "multi_thread")]
async fn minitest_fixture_is_detected_read_from_its_report_and_scoped() {
    let repo = fixture_copy("verify_minitest");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["command"].as_str(), check["format"].as_str()), (Some("rake test"), Some("minitest")));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("CalcTest#test_total"), Some("test/calc_test.rb"), Some(10)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "test_add"})).await;
    assert_eq!(data(&by_name)["checks"][0]["command"], "rake test TESTOPTS=--name=/test_add/");
    assert_eq!(counts(&by_name), (Some(1), Some(0), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "lib/calc.rb", "old": "prices.sum - 1", "new": "prices.sum"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A PHP project with a phpunit.xml: PHPUnit's JUnit report (`--log-junit`) read into counts and
/// the failing test at its assertion's line; scope by name (`--filter`); the gate closes after
/// the fix. Needs PHP's detection wired.
#[tokio::test(flavor = "multi_thread")]
async fn phpunit_fixture_is_detected_read_from_its_junit_report_and_scoped() {
    let repo = fixture_copy("verify_phpunit");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["name"].as_str(), check["format"].as_str()),
        (Some("phpunit"), Some("junit")),
        "{check}"
    );
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("CalcTest.testTotal"), Some("tests/CalcTest.php"), Some(16)),
        "{}",
        text(&result)
    );
    assert!(text(&result).contains("Failed asserting that 2 is identical to 3."), "{}", text(&result));

    let by_name = call(&client, "verify", json!({"scope": "testAdd"})).await;
    assert!(data(&by_name)["checks"][0]["command"].as_str().unwrap().contains("phpunit --filter testAdd "));
    assert_eq!(counts(&by_name), (Some(1), Some(0), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "src/Calc.php", "old": "array_sum($prices) - 1", "new": "array_sum($prices)"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A shell project with Bats tests: `bats --tap`'s TAP read into counts and the failing test at
/// the line of its test file that failed; scope by file; the gate closes after the fix. Needs
/// Bash's detection wired.
#[tokio::test(flavor = "multi_thread")]
async fn bats_fixture_is_detected_read_from_tap_and_scoped() {
    let repo = fixture_copy("verify_bats");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["command"].as_str(), check["format"].as_str()), (Some("bats --tap test"), Some("tap")));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("total sums prices"), Some("test/calc.bats"), Some(11)),
        "{}",
        text(&result)
    );

    let by_file = call(&client, "verify", json!({"scope": "test/calc.bats"})).await;
    assert_eq!(data(&by_file)["checks"][0]["command"], "bats --tap test/calc.bats");
    assert_eq!(counts(&by_file), (Some(1), Some(1), Some(1)), "{}", text(&by_file));

    fix_then_done(&client, json!({"path": "calc.sh", "old": "$((sum - 1))", "new": "$sum"}), Some(2)).await;
    client.cancel().await.unwrap();
}

/// C# with NUnit 2 on Mono, configured in the fixture's tack.toml (no .NET SDK in Debian):
/// NUnit's XML results read into counts and the failing test at its assertion's line (Mono run
/// with `--debug`); scope by name (`-run=`); the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn nunit_fixture_is_read_from_its_xml_results_and_scoped() {
    let repo = fixture_copy("verify_nunit");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    assert_eq!(data(&result)["checks"][0]["format"], "nunit", "{}", text(&result));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("Shop.CalcTest.Totals"), Some("CalcTest.cs"), Some(17)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "Shop.CalcTest.Adds"})).await;
    assert!(
        data(&by_name)["checks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("nunit-console -run=Shop.CalcTest.Adds ")
    );
    assert_eq!(counts(&by_name), (Some(1), Some(0), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "Calc.cs", "old": "prices.Sum() - 1", "new": "prices.Sum()"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn kotlin_gradle_fixture_names_the_failing_test_at_its_kt_line_and_is_scoped() {
    // Gradle 4.4.1 with Debian's Kotlin 1.3.31 plugin, from /usr/share/maven-repo: offline.
    let repo = fixture_copy("verify_kotlin");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    expect![[r#"
        verify: 1 of 1 checks failed
        FAIL gradle test: rm -rf build/test-results */build/test-results; gradle test --console=plain --no-daemon -q; status=$?; cat build/test-results/test/*.xml */build/test-results/test/*.xml 2>/dev/null; exit $status
          1 passed, 1 failed, 0 skipped, exit=1
          src/test/kotlin/calc/CalcTest.kt:14 calc.CalcTest.totals
            java.lang.AssertionError: expected:<3> but was:<2>
        raw output: N lines, read_output(handle="h1")
        not verified since the last edit: fix the failures, then call verify again
    "#]].assert_eq(&raw_lines_as_n(&text(&result)));
    let failure = &data(&result)["checks"][0]["failures"][0];
    assert_eq!(failure["test"], "calc.CalcTest.totals");
    assert_eq!(
        (failure["path"].as_str(), failure["line"].as_u64()),
        (Some("src/test/kotlin/calc/CalcTest.kt"), Some(14)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "CalcTest#adds"})).await;
    let check = &data(&by_name)["checks"][0];
    assert!(check["command"].as_str().unwrap().contains("gradle test --tests '*CalcTest.adds' "), "{check}");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(0)),
        "{}",
        text(&by_name)
    );
    let by_file = call(&client, "verify", json!({"scope": "src/test/kotlin/calc/CalcTest.kt"})).await;
    let check = &data(&by_file)["checks"][0];
    assert!(check["command"].as_str().unwrap().contains("gradle test --tests '*CalcTest' "), "{check}");
    assert_eq!(
        (check["passed"].as_u64(), check["failed"].as_u64()),
        (Some(1), Some(1)),
        "{}",
        text(&by_file)
    );

    fix_then_done(
        &client,
        json!({"path": "src/main/kotlin/calc/Calc.kt", "old": "return sum - 1", "new": "return sum"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// An Elixir project: `mix test`'s report read into counts (the skipped test counted) and the
/// failing test at the line of its assertion; scope by file; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn mix_fixture_is_detected_read_from_exunit_and_scoped() {
    let repo = fixture_copy("verify_mix");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["command"].as_str(), check["format"].as_str()), (Some("mix test"), Some("exunit")));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("test total sums prices (CalcTest)"), Some("test/calc_test.exs"), Some(9)),
        "{}",
        text(&result)
    );

    let by_file = call(&client, "verify", json!({"scope": "test/calc_test.exs"})).await;
    assert_eq!(data(&by_file)["checks"][0]["command"], "mix test test/calc_test.exs");
    assert_eq!(counts(&by_file), (Some(1), Some(1), Some(1)), "{}", text(&by_file));

    fix_then_done(
        &client,
        json!({"path": "lib/calc.ex", "old": "Enum.sum(prices) - 1", "new": "Enum.sum(prices)"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A Lua project with busted specs: its TAP read into counts and the failing test at the line
/// of its assertion; scope by name; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn busted_fixture_is_detected_read_from_tap_and_scoped() {
    let repo = fixture_copy("verify_busted");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["command"].as_str(), check["format"].as_str()), (Some("busted -o TAP"), Some("tap")));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("calc sums prices"), Some("spec/calc_spec.lua"), Some(10)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "sums prices"})).await;
    assert_eq!(data(&by_name)["checks"][0]["command"], "busted -o TAP --filter 'sums prices'");
    assert_eq!(counts(&by_name), (Some(0), Some(1), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "src/calc.lua", "old": "return sum - 1", "new": "return sum"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// A Zig package: `zig build test`'s summary read into counts and the failing test at the line
/// of its `expectEqual` (its global cache kept in the project); scope by name through the
/// build's `test-filter` option; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn zig_fixture_is_detected_read_from_its_build_summary_and_scoped() {
    let repo = fixture_copy("verify_zig");
    let store = tempfile::tempdir().unwrap();
    let client = serve(repo.path(), store.path(), &[]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["command"].as_str(), check["format"].as_str()),
        (Some("ZIG_GLOBAL_CACHE_DIR=.zig-cache/global zig build test --summary all"), Some("zig-test"))
    );
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("total sums prices"), Some("src/calc.zig"), Some(18)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "total sums"})).await;
    assert_eq!(
        data(&by_name)["checks"][0]["command"],
        "ZIG_GLOBAL_CACHE_DIR=.zig-cache/global zig build test --summary all -Dtest-filter='total sums'"
    );
    assert_eq!(counts(&by_name), (Some(0), Some(1), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "src/calc.zig", "old": "return sum - 1;", "new": "return sum;"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// Cabal's home for a test: a config that names no package server, so that Cabal builds from
/// GHC's global packages (Debian's Hspec and tasty) without asking for Hackage's index.
fn offline_cabal_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config"), "").unwrap();
    dir
}

/// A Cabal package with an Hspec suite: Hspec's report read into counts (the pending example
/// skipped) and the failing example at the line of its `shouldBe`; scope by the spec file (its
/// module's group) and by name; the gate closes after the fix.
#[tokio::test(flavor = "multi_thread")]
async fn cabal_fixture_is_detected_read_from_hspec_and_scoped() {
    let repo = fixture_copy("verify_cabal");
    let store = tempfile::tempdir().unwrap();
    let cabal = offline_cabal_dir();
    let client = serve(repo.path(), store.path(), &[("CABAL_DIR", cabal.path().display().to_string())]).await;

    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!(
        (check["command"].as_str(), check["format"].as_str()),
        (Some("cabal test --test-show-details=direct"), Some("hspec"))
    );
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("Cart.total sums prices"), Some("test/CartSpec.hs"), Some(10)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "counts items"})).await;
    assert_eq!(
        data(&by_name)["checks"][0]["command"],
        "cabal test --test-show-details=direct --test-option=--match '--test-option=counts items'"
    );
    assert_eq!(counts(&by_name), (Some(1), Some(0), Some(0)), "{}", text(&by_name));

    fix_then_done(
        &client,
        json!({"path": "src/Cart.hs", "old": "sum prices - 1", "new": "sum prices"}),
        Some(2),
    )
    .await;
    client.cancel().await.unwrap();
}

/// The same package with a tasty suite: detected as tasty from its build-depends, the failing
/// test read at its line, narrowed by name with `-p`.
#[tokio::test(flavor = "multi_thread")]
async fn cabal_fixture_with_tasty_is_read_and_narrowed_as_tasty() {
    let repo = fixture_copy("verify_tasty");
    let store = tempfile::tempdir().unwrap();
    let cabal = offline_cabal_dir();
    let client = serve(repo.path(), store.path(), &[("CABAL_DIR", cabal.path().display().to_string())]).await;

    let result = call(&client, "verify", json!({})).await;
    assert_eq!(data(&result)["checks"][0]["format"], "tasty", "{}", text(&result));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(0)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (Some("Cart.total sums prices"), Some("test/CartTest.hs"), Some(9)),
        "{}",
        text(&result)
    );

    let by_name = call(&client, "verify", json!({"scope": "total sums"})).await;
    assert_eq!(
        data(&by_name)["checks"][0]["command"],
        "cabal test --test-show-details=direct --test-option=-p '--test-option=total sums'"
    );
    assert_eq!(counts(&by_name), (Some(0), Some(1), Some(0)), "{}", text(&by_name));
    client.cancel().await.unwrap();
}

/// A server whose PATH starts with the fixture's `.stand-in` folder, where a script stands in
/// for a build tool that needs the network to start (sbt, Mill, Stack) and prints or writes
/// what that tool printed or wrote in a public project's run, as its comment names.
async fn serve_with_stand_ins(root: &Path, store: &Path) -> Client {
    let path = format!("{}:{}", root.join(".stand-in").display(), std::env::var("PATH").unwrap_or_default());
    serve(root, store, &[("PATH", path)]).await
}

/// sbt, Mill and Stack projects are detected from their build files, their checks run inside
/// `run`'s sandbox, and what the tools wrote is read: sbt's JUnit report in
/// `target/test-reports` (the failure at the spec's `.scala` line), Mill's `test-report.xml`
/// under `out/`, Stack's console with Hspec's report; an sbt check narrowed to a spec file runs
/// `testOnly` on its class.
#[tokio::test(flavor = "multi_thread")]
async fn sbt_mill_and_stack_checks_are_detected_and_their_captured_outputs_read() {
    let repo = fixture_copy("verify_sbt");
    let store = tempfile::tempdir().unwrap();
    let client = serve_with_stand_ins(repo.path(), store.path()).await;
    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["name"].as_str(), check["format"].as_str()), (Some("sbt test"), Some("junit")));
    assert_eq!(counts(&result), (Some(0), Some(1), Some(0)), "{}", text(&result));
    assert_eq!(
        first_failure(&result),
        (
            Some("example.HelloSpec.The Hello object should say hello"),
            Some("src/test/scala/example/HelloSpec.scala"),
            Some(7)
        ),
        "{}",
        text(&result)
    );
    let by_file = call(&client, "verify", json!({"scope": "src/test/scala/example/HelloSpec.scala"})).await;
    let command = data(&by_file)["checks"][0]["command"].as_str().unwrap_or_default().to_string();
    assert!(command.contains("sbt -batch 'testOnly *HelloSpec'"), "{command}");
    client.cancel().await.unwrap();

    let repo = fixture_copy("verify_mill");
    let store = tempfile::tempdir().unwrap();
    let client = serve_with_stand_ins(repo.path(), store.path()).await;
    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["name"].as_str(), check["format"].as_str()), (Some("mill test"), Some("junit")));
    assert_eq!(counts(&result), (Some(1), Some(1), Some(1)), "{}", text(&result));
    assert_eq!(first_failure(&result).0, Some("mill.scalalib.TestModuleTests.fail"), "{}", text(&result));
    client.cancel().await.unwrap();

    let repo = fixture_copy("verify_stack");
    let store = tempfile::tempdir().unwrap();
    let client = serve_with_stand_ins(repo.path(), store.path()).await;
    let result = call(&client, "verify", json!({})).await;
    let check = &data(&result)["checks"][0];
    assert_eq!((check["command"].as_str(), check["format"].as_str()), (Some("stack test"), Some("hspec")));
    assert_eq!(counts(&result), (Some(28), Some(1), Some(0)), "{}", text(&result));
    assert_eq!(
        (first_failure(&result).1, first_failure(&result).2),
        (Some("test/Qtility/EnvironmentSpec.hs"), Some(100)),
        "{}",
        text(&result)
    );
    client.cancel().await.unwrap();
}
