//! `zig build test --summary all`: narrowed to the tests whose names hold a text
//! (`--test-filter`, which the project's `build.zig` must pass on), and read from each failed
//! test's error block, the compiler's errors, and the build summary's test counts.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct ZigTest;

impl Runner for ZigTest {
    fn name(&self) -> &'static str {
        "zig-test"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        (command.has("zig") || command.contains("-m ziglang")) && command.has("test")
    }

    /// A test's name as a filter; a path cannot narrow a build step (its files are the build
    /// script's choice).
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if scope.is_path {
            return Err(format!(
                "skipped: {} runs the build's test step, which a path cannot narrow; give a test's name",
                check.name
            ));
        }
        Ok(format!("{} -Dtest-filter={}", check.command, shell_quote(scope.text)))
    }

    fn read(&self, output: &str) -> Parsed {
        zig_test(output)
    }
}

/// Counts from the build summary (`Build Summary: …; 1/3 tests passed (1 skipped, 1 failed)`);
/// a failure per `error: 'module.test.NAME' failed:` block (its message lines, placed at the
/// first stack frame outside Zig's own library) and per compile error
/// (`path:line:col: error: message`).
fn zig_test(output: &str) -> Parsed {
    static SUMMARY: OnceLock<Regex> = OnceLock::new();
    static SKIPPED: OnceLock<Regex> = OnceLock::new();
    static FAILED: OnceLock<Regex> = OnceLock::new();
    static HEAD: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static COMPILE: OnceLock<Regex> = OnceLock::new();
    let summary = re(&SUMMARY, r"^Build Summary: .*?(\d+)/(\d+) tests passed(?: \(([^)]*)\))?");
    let skipped = re(&SKIPPED, r"(\d+) skipped");
    let failed = re(&FAILED, r"(\d+) failed");
    let head = re(&HEAD, r"^error: '(.+)' failed:\s*(.*)$");
    let frame = re(&FRAME, r"^\s*(\S+\.zig):(\d+):\d+: 0x[0-9a-f]+ in ");
    let compile = re(&COMPILE, r"^(\S+\.zig):(\d+):\d+: error: (.+)$");
    let output = strip_ansi(output);
    let lines: Vec<&str> = output.lines().collect();
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(c) = summary.captures(line) {
            parsed.recognised = true;
            let passed: u64 = c[1].parse().unwrap_or(0);
            let detail = c.get(3).map_or("", |m| m.as_str());
            let n = |r: &Regex| r.captures(detail).and_then(|m| m[1].parse::<u64>().ok()).unwrap_or(0);
            parsed.passed = passed;
            parsed.skipped = n(skipped);
            parsed.failed = n(failed);
            i += 1;
            continue;
        }
        if let Some(c) = compile.captures(line) {
            parsed.recognised = true;
            parsed.failures.push(Failure {
                test: None,
                path: Some(c[1].to_string()),
                line: c[2].parse().ok(),
                message: clip(c[3].trim(), 300),
            });
            i += 1;
            continue;
        }
        let Some(c) = head.captures(line) else {
            i += 1;
            continue;
        };
        parsed.recognised = true;
        let name = c[1].to_string();
        let mut message: Vec<&str> = [c[2].trim()].into_iter().filter(|m| !m.is_empty()).collect();
        let mut at: Option<(String, u64)> = None;
        let mut in_frames = false;
        i += 1;
        // The block: its indented lines, the message before the stack trace.
        while i < lines.len() && lines[i].starts_with(' ') {
            let l = lines[i].trim();
            if let Some(f) = frame.captures(l) {
                in_frames = true;
                let own_library = f[1].contains("/lib/std/") || f[1].contains("/lib/compiler/");
                if at.is_none() && !own_library {
                    at = Some((f[1].to_string(), f[2].parse().unwrap_or(0)));
                }
            } else if !in_frames && !l.is_empty() && message.len() < 8 {
                message.push(l);
            }
            i += 1;
        }
        // `module.test.NAME`: the test's own name is after `test.`.
        let test = name.split_once(".test.").map_or(name.as_str(), |(_, t)| t).to_string();
        // The test process writes its trace while the build runner writes the failure: a busy
        // machine can put the test's own frame anywhere in the output, so it is looked for by
        // the function it names.
        if at.is_none() {
            let own = format!(" in test.{test} (");
            at = lines.iter().filter(|l| l.contains(&own)).find_map(|l| {
                let f = frame.captures(l.trim())?;
                Some((f[1].to_string(), f[2].parse().unwrap_or(0)))
            });
        }
        parsed.failures.push(Failure {
            test: Some(test),
            path: at.as_ref().map(|(p, _)| p.clone()),
            line: at.as_ref().map(|(_, l)| *l),
            message: clip(&message.join("\n"), 300),
        });
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `zig build test --summary all` (Zig 0.17.0 from PyPI's `ziglang`) on a module whose
    /// `total` subtracts 1 by mistake, with a skipped test, captured here.
    const REPORT: &str = "test
+- run test 1 pass, 1 skip, 1 fail (3 total)
error: 'calc.test.total sums prices' failed:
       expected 3, found 2
       /usr/local/lib/ziglang/lib/std/testing.zig:93:17: 0x124e9c4 in expectEqualInner__func_958 (std.zig)
                       return error.TestExpectedEqual;
                       ^
       /usr/local/lib/ziglang/lib/std/testing.zig:57:5: 0x124ea4f in expectEqual (calc.zig)
           return expectEqualInner(T, expected, actual);
           ^
       /repo/src/calc.zig:18:5: 0x124ea96 in test.total sums prices (calc.zig)
           try std.testing.expectEqual(@as(u32, 3), total(&.{ 1, 2 }));
           ^
failed command: ./.zig-cache/o/cd765f20ea3b657f470d7f3f370300ca/test --cache-dir=./.zig-cache --seed=0xff9af1bd --listen=-

Build Summary: 1/3 steps succeeded (1 failed); 1/3 tests passed (1 skipped, 1 failed)
test transitive failure
+- run test 1 pass, 1 skip, 1 fail (3 total)
   +- compile test debug native success 1s MaxRSS:149M
";

    #[test]
    fn zig_reads_a_failed_test_at_its_frame_and_the_summarys_counts() {
        let parsed = ZigTest.read(REPORT);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("total sums prices".into()),
                path: Some("/repo/src/calc.zig".into()),
                line: Some(18),
                message: "expected 3, found 2".into(),
            }]
        );
    }

    /// The same run on a loaded machine: its trace's lines come out around the build runner's
    /// `error:` line (seen here: the source excerpt before it; in a CI run the test's frame was
    /// missing from the block), here with the test's own frame before it.
    #[test]
    fn zig_finds_a_failed_tests_frame_wherever_the_output_put_it() {
        let shuffled = "test
+- run test 1 pass, 1 skip, 1 fail (3 total)
       /repo/src/calc.zig:18:5: 0x124ea96 in test.total sums prices (calc.zig)
    try std.testing.expectEqual(@as(u32, 3), total(&.{ 1, 2 }));
    ^
error: 'calc.test.total sums prices' failed:
       expected 3, found 2
       /usr/local/lib/ziglang/lib/std/testing.zig:93:17: 0x124e9c4 in expectEqualInner__func_958 (std.zig)
                       return error.TestExpectedEqual;
                       ^
failed command: ./.zig-cache/o/cd765f20ea3b657f470d7f3f370300ca/test --cache-dir=./.zig-cache --seed=0xff9af1bd --listen=-

Build Summary: 1/3 steps succeeded (1 failed); 1/3 tests passed (1 skipped, 1 failed)
";
        let parsed = zig_test(shuffled);
        assert_eq!(parsed.failures.len(), 1);
        let failure = &parsed.failures[0];
        assert_eq!((failure.path.as_deref(), failure.line), (Some("/repo/src/calc.zig"), Some(18)));
        assert_eq!(failure.message, "expected 3, found 2");
    }

    #[test]
    fn zig_reads_compile_errors_and_survives_any_cut() {
        let output = "test
+- compile test Debug native 1 errors
src/calc.zig:9:12: error: expected type 'u32', found '[]const u8'
    return \"x\";
           ^~~
error: the following command failed with 1 compilation errors:
";
        let parsed = ZigTest.read(output);
        assert!(parsed.recognised);
        assert_eq!(
            parsed.failures,
            [Failure {
                test: None,
                path: Some("src/calc.zig".into()),
                line: Some(9),
                message: "expected type 'u32', found '[]const u8'".into(),
            }]
        );
        for end in (0..REPORT.len()).filter(|&i| REPORT.is_char_boundary(i)) {
            ZigTest.read(&REPORT[..end]);
        }
        let all = ZigTest.read("Build Summary: 3/3 steps succeeded; 3/3 tests passed\n");
        assert_eq!((all.passed, all.failed, all.skipped), (3, 0, 0));
    }
}
