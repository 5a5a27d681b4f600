//! Hspec's report inside `cabal test` or `stack test`: narrowed with `--match` to the examples
//! whose path holds a name (or, for a file, its module's group, as `hspec-discover` names it),
//! and read from Hspec's numbered failures and counts. The reader ([`haskell_suites`]) also
//! reads tasty's report, GHC's errors and the suites' own verdicts, which the tasty runner
//! shares.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Hspec;

impl Runner for Hspec {
    fn name(&self) -> &'static str {
        "hspec"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        (command.has("cabal") || command.has("stack")) && command.has("test")
    }

    /// `--match TEXT` runs the examples whose path (`Group/sub group/example`) holds TEXT. A file
    /// means its module's group: `test/Data/CartSpec.hs` is `Data.Cart`, the group
    /// `hspec-discover` makes of it.
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let pattern = if scope.is_path {
            spec_group(scope.text).ok_or_else(|| {
                format!(
                    "skipped: {} selects Hspec examples by group, and {} names no module",
                    check.name, scope.text
                )
            })?
        } else {
            scope.text.to_string()
        };
        test_arguments(check, &["--match", &pattern])
    }

    fn read(&self, output: &str) -> Parsed {
        haskell_suites(output)
    }
}

/// The group `hspec-discover` makes of a spec file: its module name (from the first folder
/// or file whose name starts with a capital) without the `Spec` suffix.
fn spec_group(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".hs").or_else(|| path.strip_suffix(".lhs"))?;
    let parts: Vec<&str> = stem.split('/').collect();
    let first = parts.iter().position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))?;
    let mut module = parts[first..].join(".");
    if let Some(group) = module.strip_suffix("Spec").filter(|g| !g.is_empty() && !g.ends_with('.')) {
        module = group.to_string();
    }
    Some(module)
}

/// The check's command with `args` handed to the test program: one `--test-option` each for
/// Cabal, one `--ta` (whose text Stack splits at spaces outside double quotes) for Stack.
pub(super) fn test_arguments(check: &Invocation<'_>, args: &[&str]) -> Result<String, String> {
    if Words::of(check.command).has("stack") {
        if args.iter().any(|a| a.contains('"') || a.contains('\\')) {
            return Err(format!(
                "skipped: {} cannot pass a name holding `\"` or `\\` to its tests",
                check.name
            ));
        }
        let joined: Vec<String> =
            args.iter().map(|a| if a.contains(' ') { format!("\"{a}\"") } else { a.to_string() }).collect();
        return Ok(format!("{} --ta {}", check.command, shell_quote(&joined.join(" "))));
    }
    let options: Vec<String> = args.iter().map(|a| shell_quote(&format!("--test-option={a}"))).collect();
    Ok(format!("{} {}", check.command, options.join(" ")))
}

/// What `cabal test` and `stack test` print, read whatever framework the suites use:
/// - Hspec: each numbered failure under `Failures:` (its `path:line:col:` line, `N) example`,
///   the message up to `To rerun use:`), and `3 examples, 1 failure, 1 pending`;
/// - tasty: each `name: FAIL` under its groups (the message below it, placed at its
///   `path:line:`), and `All 3 tests passed` or `1 out of 3 tests failed`;
/// - GHC: each `path:line:col: error:` with its message;
/// - the suites: a suite that failed with none of these read from it (`Test suite x: FAIL`,
///   Stack's `Test suite x failed`) is a failure of its own, and a suite whose framework's
///   counts were not read counts as Cabal's `1 of 1 test suites (1 of 1 test cases) passed.`
///   after it says, or (Stack's) as one test that passed or failed.
///
/// Stack's `package> ` before each line is taken off first.
pub(super) fn haskell_suites(output: &str) -> Parsed {
    static PREFIX: OnceLock<Regex> = OnceLock::new();
    static HSPEC_PLACE: OnceLock<Regex> = OnceLock::new();
    static HSPEC_HEAD: OnceLock<Regex> = OnceLock::new();
    static HSPEC_COUNTS: OnceLock<Regex> = OnceLock::new();
    static TASTY_TEST: OnceLock<Regex> = OnceLock::new();
    static TASTY_PLACE: OnceLock<Regex> = OnceLock::new();
    static TASTY_ALL: OnceLock<Regex> = OnceLock::new();
    static TASTY_SOME: OnceLock<Regex> = OnceLock::new();
    static GHC: OnceLock<Regex> = OnceLock::new();
    static SUITE_START: OnceLock<Regex> = OnceLock::new();
    static SUITE_END: OnceLock<Regex> = OnceLock::new();
    static CABAL_COUNTS: OnceLock<Regex> = OnceLock::new();
    let prefix = re(&PREFIX, r"^[A-Za-z][\w.-]*> ?");
    let hspec_place = re(&HSPEC_PLACE, r"^\s+(\S+\.l?hs):(\d+):\d+:\s*$");
    let hspec_head = re(&HSPEC_HEAD, r"^\s+\d+\) (.+?)\s*$");
    let hspec_counts =
        re(&HSPEC_COUNTS, r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) tried)?\s*$");
    let tasty_test = re(&TASTY_TEST, r"^(\s*)(.+?):\s+(OK|FAIL)\b");
    let tasty_place = re(&TASTY_PLACE, r"^\s+(\S+\.l?hs):(\d+):\s*$");
    let tasty_all = re(&TASTY_ALL, r"^All (\d+) tests passed\b");
    let tasty_some = re(&TASTY_SOME, r"^(\d+) out of (\d+) tests failed\b");
    let ghc = re(&GHC, r"^(\S+\.l?hs):(\d+):\d+: error:\s*(.*)$");
    let suite_start = re(&SUITE_START, r"^(?:Test suite (\S+): RUNNING\.\.\.|test \(suite: (\S+?)\))\s*$");
    let suite_end = re(&SUITE_END, r"^Test suite (\S+?)(?:: (PASS|FAIL)| (passed|failed))\b");
    let cabal_counts = re(&CABAL_COUNTS, r"^\d+ of \d+ test suites \((\d+) of (\d+) test cases\) passed\.");

    let output = strip_ansi(output);
    let lines: Vec<&str> = output.lines().map(|l| prefix.find(l).map_or(l, |m| &l[m.end()..])).collect();
    let mut parsed = Parsed::default();
    // Whether a framework's counts were read in the current suite, and since Cabal's last
    // counts; the verdicts of suites whose counts were not read (whether each failed).
    let (mut suite_counted, mut block_counted) = (false, false);
    let mut uncounted: Vec<bool> = Vec::new();
    // The failures read so far when the current suite started, and the tasty groups open.
    let mut suite_from = 0;
    let mut groups: Vec<(usize, String)> = Vec::new();
    let mut in_hspec_failures = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if suite_start.is_match(line) {
            suite_from = parsed.failures.len();
            suite_counted = false;
            groups.clear();
            in_hspec_failures = false;
            continue;
        }
        if let Some(c) = suite_end.captures(line) {
            parsed.recognised = true;
            let failed = c.get(2).is_some_and(|m| m.as_str() == "FAIL")
                || c.get(3).is_some_and(|m| m.as_str() == "failed");
            if failed && parsed.failures.len() == suite_from {
                parsed.failures.push(Failure {
                    test: Some(c[1].to_string()),
                    path: None,
                    line: None,
                    message: format!("test suite {} failed", &c[1]),
                });
            }
            if !suite_counted {
                uncounted.push(failed);
            }
            suite_counted = false;
            suite_from = parsed.failures.len();
            groups.clear();
            in_hspec_failures = false;
            continue;
        }
        if let Some(c) = cabal_counts.captures(line) {
            parsed.recognised = true;
            if !block_counted {
                let (passed, all): (u64, u64) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
                parsed.passed += passed;
                parsed.failed += all.saturating_sub(passed);
            }
            block_counted = false;
            uncounted.clear();
            continue;
        }
        if let Some(c) = hspec_counts.captures(line) {
            parsed.recognised = true;
            (suite_counted, block_counted) = (true, true);
            let n = |k: usize| c.get(k).and_then(|m| m.as_str().parse::<u64>().ok()).unwrap_or(0);
            let (examples, failures, pending) = (n(1), n(2), n(3));
            parsed.failed += failures;
            parsed.skipped += pending;
            parsed.passed += examples.saturating_sub(failures + pending);
            in_hspec_failures = false;
            continue;
        }
        if let Some(c) = tasty_all.captures(line) {
            parsed.recognised = true;
            (suite_counted, block_counted) = (true, true);
            parsed.passed += c[1].parse::<u64>().unwrap_or(0);
            continue;
        }
        if let Some(c) = tasty_some.captures(line) {
            parsed.recognised = true;
            (suite_counted, block_counted) = (true, true);
            let (failed, all): (u64, u64) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
            parsed.failed += failed;
            parsed.passed += all.saturating_sub(failed);
            continue;
        }
        if line.trim_end() == "Failures:" {
            in_hspec_failures = true;
            continue;
        }
        if in_hspec_failures {
            // `  path:line:col: ` (when Hspec knows it), then `  N) example`, then the message.
            let (place, head) = match hspec_place.captures(line) {
                Some(p) => match lines.get(i).and_then(|next| hspec_head.captures(next)) {
                    Some(h) => {
                        i += 1;
                        (Some(p), h)
                    }
                    None => continue,
                },
                None => match hspec_head.captures(line) {
                    Some(h) => (None, h),
                    None => continue,
                },
            };
            let mut message = Vec::new();
            while i < lines.len() {
                let next = lines[i];
                let trimmed = next.trim();
                if trimmed.starts_with("To rerun use:")
                    || hspec_place.is_match(next)
                    || hspec_head.is_match(next)
                    || hspec_counts.is_match(next)
                    || trimmed.starts_with("Randomized with seed")
                    || !next.is_empty() && !next.starts_with(' ')
                {
                    break;
                }
                if !trimmed.is_empty() {
                    message.push(trimmed);
                }
                i += 1;
            }
            parsed.failures.push(Failure {
                test: Some(head[1].to_string()),
                path: place.as_ref().map(|p| p[1].to_string()),
                line: place.as_ref().and_then(|p| p[2].parse().ok()),
                message: clip(&message.join("\n"), 300),
            });
            continue;
        }
        if let Some(c) = ghc.captures(line) {
            parsed.recognised = true;
            let mut message = vec![c[3].trim().to_string()];
            while i < lines.len() && lines[i].starts_with("    ") {
                message.push(lines[i].trim().to_string());
                i += 1;
            }
            let message: Vec<String> = message.into_iter().filter(|m| !m.is_empty()).collect();
            parsed.failures.push(Failure {
                test: None,
                path: Some(c[1].to_string()),
                line: c[2].parse().ok(),
                message: clip(&message.join("\n"), 300),
            });
            continue;
        }
        // tasty: a group is a line of its own; a test is `name: OK` or `name: FAIL`, indented
        // under its groups, with a failure's message indented below it.
        let indent = line.len() - line.trim_start().len();
        groups.retain(|(at, _)| *at < indent);
        if let Some(c) = tasty_test.captures(line) {
            if &c[3] == "OK" {
                continue;
            }
            let mut name: Vec<&str> = groups.iter().map(|(_, g)| g.as_str()).collect();
            name.push(c[2].trim());
            let mut place = None;
            let mut message = Vec::new();
            while i < lines.len() {
                let next = lines[i];
                let depth = next.len() - next.trim_start().len();
                if next.trim().is_empty() || depth <= indent {
                    break;
                }
                i += 1;
                let trimmed = next.trim();
                if let Some(p) = tasty_place.captures(next).filter(|_| place.is_none()) {
                    place = Some((p[1].to_string(), p[2].parse().ok()));
                } else if !trimmed.starts_with("Use -p ") {
                    message.push(trimmed);
                }
            }
            parsed.failures.push(Failure {
                test: Some(name.join(".")),
                path: place.as_ref().map(|p| p.0.clone()),
                line: place.and_then(|p| p.1),
                message: clip(&message.join("\n"), 300),
            });
            continue;
        }
        let trimmed = line.trim();
        if !trimmed.is_empty() && !trimmed.contains(':') && !trimmed.starts_with('[') {
            groups.push((indent, trimmed.to_string()));
        }
    }
    for failed in uncounted {
        if failed {
            parsed.failed += 1;
        } else {
            parsed.passed += 1;
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;
    use expect_test::expect;

    /// `cabal test --test-show-details=direct` (cabal-install 3.4, GHC 9.0.2, Hspec 2.8, all
    /// Debian's) on fixtures/verify_cabal before its fix, with a second failing example,
    /// captured here.
    const CABAL_HSPEC: &str = "Build profile: -w ghc-9.0.2 -O1
Running 1 test suites...
Test suite shop-test: RUNNING...

Cart.total
  sums prices FAILED [1]
  is zero for an empty cart FAILED [2]
  keeps a pending test
    # PENDING: needs a discount

Failures:

  test/CartSpec.hs:10:20: 
  1) Cart.total sums prices
       expected: 3
        but got: 2

  To rerun use: --match \"/Cart.total/sums prices/\"

  test/CartSpec.hs:12:16: 
  2) Cart.total is zero for an empty cart
       expected: 0
        but got: -1

  To rerun use: --match \"/Cart.total/is zero for an empty cart/\"

Randomized with seed 621519763

Finished in 0.0002 seconds
3 examples, 2 failures, 1 pending
Test suite shop-test: FAIL
Test suite logged to:
/tmp/cabt/dist-newstyle/build/x86_64-linux/ghc-9.0.2/shop-0.1.0/t/shop-test/test/shop-0.1.0-shop-test.log
0 of 1 test suites (0 of 1 test cases) passed.
cabal: Tests failed for test:shop-test from shop-0.1.0.
";

    #[test]
    fn hspec_failures_are_read_at_their_lines_with_the_counts() {
        check(
            &Hspec,
            CABAL_HSPEC,
            expect![[r#"
                passed=0 failed=2 skipped=1 recognised=true
                Cart.total sums prices @ test/CartSpec.hs:10 | expected: 3 / but got: 2
                Cart.total is zero for an empty cart @ test/CartSpec.hs:12 | expected: 0 / but got: -1
            "#]],
        );
        for end in (0..CABAL_HSPEC.len()).filter(|&i| CABAL_HSPEC.is_char_boundary(i)) {
            Hspec.read(&CABAL_HSPEC[..end]);
        }
    }

    /// The same package with tasty and tasty-hunit (Debian's) in place of Hspec, captured here.
    const CABAL_TASTY: &str = "Running 1 test suites...
Test suite shop-test: RUNNING...
Cart
  total sums prices: FAIL
    test/CartTest.hs:9:
    expected: 3
     but got: 2
    Use -p '/total sums prices/' to rerun this test only.
  total of nothing:  FAIL
    test/CartTest.hs:10:
    expected: 0
     but got: -1
    Use -p '/total of nothing/' to rerun this test only.
  total of one:      OK

2 out of 3 tests failed (0.00s)

Test suite shop-test: FAIL
Test suite logged to:
/tmp/cabt2/dist-newstyle/build/x86_64-linux/ghc-9.0.2/shop-0.1.0/t/shop-test/test/shop-0.1.0-shop-test.log
0 of 1 test suites (0 of 1 test cases) passed.
cabal: Tests failed for test:shop-test from shop-0.1.0.
";

    #[test]
    fn tasty_failures_are_read_under_their_groups_with_the_counts() {
        check(
            &Hspec,
            CABAL_TASTY,
            expect![[r#"
                passed=1 failed=2 skipped=0 recognised=true
                Cart.total sums prices @ test/CartTest.hs:9 | expected: 3 / but got: 2
                Cart.total of nothing @ test/CartTest.hs:10 | expected: 0 / but got: -1
            "#]],
        );
    }

    #[test]
    fn ghc_errors_and_a_suite_with_no_framework_are_failures() {
        // GHC 9.0.2's errors for a library that does not compile, captured.
        let compile = "
src/Cart.hs:4:12: error:
    • Couldn't match expected type ‘Int’ with actual type ‘[Char]’
    • In the expression: \"x\" ++ xs
      In an equation for ‘total’: total xs = \"x\" ++ xs
  |
4 | total xs = \"x\" ++ xs
  |            ^^^^^^^^^
cabal: Failed to build shop-0.1.0 (which is required by test:shop-test from
shop-0.1.0).
";
        check(
            &Hspec,
            compile,
            expect![[r#"
                passed=0 failed=0 skipped=0 recognised=true
                - @ src/Cart.hs:4 | • Couldn't match expected type ‘Int’ with actual type ‘[Char]’ / • In the expression: "x" ++ xs / In an equation for ‘total’: total xs = "x" ++ xs
            "#]],
        );
        // An `exitcode-stdio-1.0` suite printing its own words, captured; then two suites as
        // Stack prints them, prefixed with their package.
        let plain = "Running 1 test suites...
Test suite shop-test: RUNNING...
total sums prices: expected 3 but got 2

Test suite shop-test: FAIL
Test suite logged to:
/tmp/cabt/dist-newstyle/shop-0.1.0-shop-test.log
0 of 1 test suites (0 of 1 test cases) passed.
";
        check(
            &Hspec,
            plain,
            expect![[r#"
                passed=0 failed=1 skipped=0 recognised=true
                shop-test @ -:- | test suite shop-test failed
            "#]],
        );
    }

    #[test]
    fn narrowing_passes_a_match_to_the_tests() {
        let cabal = Invocation { name: "cabal test", command: "cabal test --test-show-details=direct" };
        let name = Scope { text: "sums prices", is_path: false };
        assert_eq!(
            Hspec.narrow(&cabal, &name).unwrap(),
            "cabal test --test-show-details=direct --test-option=--match '--test-option=sums prices'"
        );
        let file = Scope { text: "test/Data/CartSpec.hs", is_path: true };
        assert_eq!(
            Hspec.narrow(&cabal, &file).unwrap(),
            "cabal test --test-show-details=direct --test-option=--match --test-option=Data.Cart"
        );
        let stack = Invocation { name: "stack test", command: "stack test" };
        assert_eq!(Hspec.narrow(&stack, &name).unwrap(), "stack test --ta '--match \"sums prices\"'");
        assert!(Hspec.narrow(&stack, &Scope { text: "say \"hi\"", is_path: false }).is_err());
        assert!(Hspec.narrow(&cabal, &Scope { text: "test/helpers.hs", is_path: true }).is_err());
        assert_eq!(spec_group("test/Spec.hs").as_deref(), Some("Spec"));
    }

    /// `stack test`'s end with an Hspec failure, as pasted in quanterall/HaskellMaterials,
    /// `basics/12-testing.md` lines 295-313 at eb0a533184b42c29ecc88559b21377274b4b3bcc.
    const STACK_PASTED: &str = r#"Failures:

  test/Qtility/EnvironmentSpec.hs:100:7:
  1) Qtility.Environment, Parsing .env files, `loadDotEnvFile`, Should not throw when the file exists
       uncaught exception: EnvironmentFileNotFound
       EnvironmentFileNotFound {_unEnvironmentFileNotFound = EnvironmentFile {_unEnvironmentFile = "test.env"}}

  To rerun use: --match "/Qtility.Environment/Parsing .env files/`loadDotEnvFile`/Should not throw when the file exists/"

Randomized with seed 750963619

Finished in 0.4742 seconds
29 examples, 1 failure

qtility> Test suite qtility-test failed
Completed 2 action(s).
Test suite failure for package qtility-1.3.0
    qtility-test:  exited with: ExitFailure 1
Logs printed to console
"#;

    /// `cabal test` of three suites (cabal-install 3, GHC 9.4.4, Hspec through hspec-discover),
    /// one failing, its build lines interleaved, as pasted in
    /// rhirano0715/haskell_x_docker_x_vscode, `README.md` lines 406-457 at
    /// c5742a502fcfcaaececd1c042907828c51ae1e3b.
    const CABAL_PASTED: &str = r#"Build profile: -w ghc-9.4.4 -O1
In order, the following will be built (use -v for more details):
 - helloworld-0.1.0.0 (test:doctest) (first run)
 - helloworld-0.1.0.0 (test:helloworld-test) (first run)
 - helloworld-0.1.0.0 (test:spec) (file test/hspec/MyLibSpec.hs changed)
Preprocessing test suite 'doctest' for helloworld-0.1.0.0..
Preprocessing test suite 'helloworld-test' for helloworld-0.1.0.0..
Preprocessing test suite 'spec' for helloworld-0.1.0.0..
Building test suite 'doctest' for helloworld-0.1.0.0..
Building test suite 'helloworld-test' for helloworld-0.1.0.0..
Building test suite 'spec' for helloworld-0.1.0.0..
[1 of 2] Compiling MyLibSpec        ( test/hspec/MyLibSpec.hs, /workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/spec/build/spec/spec-tmp/MyLibSpec.o ) [Source file changed]
Running 1 test suites...
Test suite helloworld-test: RUNNING...
[2 of 2] Compiling Main             ( test/hspec/Spec.hs, /workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/spec/build/spec/spec-tmp/Main.o ) [MyLibSpec changed]
Test suite helloworld-test: PASS
Test suite logged to:
/workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/helloworld-test/test/helloworld-0.1.0.0-helloworld-test.log
1 of 1 test suites (1 of 1 test cases) passed.
Running 1 test suites...
Test suite doctest: RUNNING...
[3 of 3] Linking /workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/spec/build/spec/spec [Objects changed]
Test suite doctest: PASS
Test suite logged to:
/workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/doctest/test/helloworld-0.1.0.0-doctest.log
1 of 1 test suites (1 of 1 test cases) passed.
Running 1 test suites...
Test suite spec: RUNNING...

MyLib
  `addInt` takes two arguments of Int and returns the result of adding them.
    When give addInt 1 and 2 then return 3 [✘]

Failures:

  test/hspec/MyLibSpec.hs:10:30: 
  1) MyLib, `addInt` takes two arguments of Int and returns the result of adding them., When give addInt 1 and 2 then return 3
       expected: 2
        but got: 3

  To rerun use: --match "/MyLib/`addInt` takes two arguments of Int and returns the result of adding them./When give addInt 1 and 2 then return 3/"

Randomized with seed 1699898266

Finished in 0.0184 seconds
1 example, 1 failure

Test suite spec: FAIL
Test suite logged to:
/workspace/projects/helloworld/dist-newstyle/build/x86_64-linux/ghc-9.4.4/helloworld-0.1.0.0/t/spec/test/helloworld-0.1.0.0-spec.log
0 of 1 test suites (0 of 1 test cases) passed.
Error: cabal: Tests failed for test:spec from helloworld-0.1.0.0.
"#;

    /// A whole `stack test` run (Stack 2, GHC 8.6.5, Hspec with QuickCheck) of 85 examples, ten
    /// failing: psibi/fb, `Development.md` lines 18-259 at
    /// aeb01b6fbbe7156273aa22e643bbc418b3973e2b.
    const STACK_FB: &str = r#"fb-2.0.0: unregistering (local file changes: src/Facebook/Monad.hs)
fb> build (lib + test)
Preprocessing library for fb-2.0.0..
Building library for fb-2.0.0..
[ 3 of 17] Compiling Facebook.Monad
Preprocessing test suite 'runtests' for fb-2.0.0..
Building test suite 'runtests' for fb-2.0.0..
Linking .stack-work/dist/x86_64-linux/Cabal-2.4.0.1/build/runtests/runtests ...
fb> copy/register
Installing library in /home/sibi/github/fb/.stack-work/install/x86_64-linux/6c0d2999eddfddb4dd99f5630b9297daeafc14550d37afa45f57dae4adad4475/8.6.5/lib/x86_64-linux-ghc-8.6.5/fb-2.0.0-9FsqbWJMwgU8QHDjw79gUA
Registering library for fb-2.0.0..
fb> test (suite: runtests)

Progress 1/2: fb
Production tier: getAppAccessToken
  works and returns a valid app access token
  throws a FacebookException on invalid credentials
Production tier: isValid
  returns False on a clearly invalid user access token
  returns False on a clearly invalid app access token
Production tier: debugToken
  works on a test user access token
Production tier: getObject
  is able to fetch Facebook's own page FAILED [1]
Production tier: getPage
  works for FB Developers FAILED [2]
Production tier: listSubscriptions
  returns something
Production tier: fetchNextPage
  seems to work on a public list of comments FAILED [3]
  seems to work on a private list of app insights
Production tier: fetchNextPage/fetchPreviousPage
  seems to work on a public list of comments FAILED [4]
  seems to work on a private list of app insights
Production tier: fetchAllNextPages
  seems to work on a public list of comments FAILED [5]
  seems to work on a private list of app insights
Production tier: createTestUser/removeTestUser/getTestUser
^[^[  creates and removes a new test user
Production tier: makeFriendConn
  creates two new test users, makes them friends and deletes them
Production tier: getTestUsers
  gets a list of test users
Beta tier: getAppAccessToken
  works and returns a valid app access token
  throws a FacebookException on invalid credentials
Beta tier: isValid
  returns False on a clearly invalid user access token
  returns False on a clearly invalid app access token
Beta tier: debugToken
  works on a test user access token
Beta tier: getObject
  is able to fetch Facebook's own page FAILED [6]
Beta tier: getPage
  works for FB Developers FAILED [7]
Beta tier: listSubscriptions
  returns something
Beta tier: fetchNextPage
  seems to work on a public list of comments FAILED [8]
  seems to work on a private list of app insights
Beta tier: fetchNextPage/fetchPreviousPage
  seems to work on a public list of comments FAILED [9]
  seems to work on a private list of app insights
Beta tier: fetchAllNextPages
  seems to work on a public list of comments FAILED [10]
  seems to work on a private list of app insights
Beta tier: createTestUser/removeTestUser/getTestUser
  creates and removes a new test user
Beta tier: makeFriendConn
  creates two new test users, makes them friends and deletes them
Beta tier: getTestUsers
  gets a list of test users
SimpleType
  works for Bool
  works for Day
  works for UTCTime
  works for ZonedTime
  works for Float
    +++ OK, passed 100 tests.
  works for Double
    +++ OK, passed 100 tests.
  works for Int
    +++ OK, passed 100 tests.
  works for Int8
    +++ OK, passed 100 tests.
  works for Int16
    +++ OK, passed 100 tests.
  works for Int32
    +++ OK, passed 100 tests.
  works for Int64
    +++ OK, passed 100 tests.
  works for Word
    +++ OK, passed 100 tests.
  works for Word8
    +++ OK, passed 100 tests.
  works for Word16
    +++ OK, passed 100 tests.
  works for Word32
    +++ OK, passed 100 tests.
  works for Word64
    +++ OK, passed 100 tests.
  works for [Float]
    +++ OK, passed 100 tests.
  works for [Double]
    +++ OK, passed 100 tests.
  works for [Int]
    +++ OK, passed 100 tests.
  works for [Int8]
    +++ OK, passed 100 tests.
  works for [Int16]
    +++ OK, passed 100 tests.
  works for [Int32]
    +++ OK, passed 100 tests.
  works for [Int64]
    +++ OK, passed 100 tests.
  works for [Word]
    +++ OK, passed 100 tests.
  works for [Word8]
    +++ OK, passed 100 tests.
  works for [Word16]
    +++ OK, passed 100 tests.
  works for [Word32]
    +++ OK, passed 100 tests.
  works for [Word64]
    +++ OK, passed 100 tests.
  works for Text
    +++ OK, passed 100 tests.
  works for Id
    +++ OK, passed 100 tests.
parseSignedRequest
  works for Facebook example
  fails to parse the Facebook example when signature is corrupted
addAppSecretProof
  appends appsecret_proof to the query when passing an access token
FQLTime
  seems to work
FbUTCTime
  seems to work (string)
  seems to work (unix epoch)
FQLList
  parses []
  parses {}
  parses [1234]
  parses {"1234": 1234}
FQLObject
  parses []
  parses {}
  parses {"abc": 1234}
  does not parse [1234]
Id
  can be parsed from a string
  can be parsed from an integer
  can be parsed from an object with a string
  can be parsed from an object with an integer
AccessToken
  can be round-tripped with ToJSON/FromJSON (UserKind)
  can be round-tripped with ToJSON/FromJSON (AppKind)
makeAppSecretProof
  generates correct hmac

Failures:

  tests/Main.hs:175:5:
  1) Production tier: getObject is able to fetch Facebook's own page
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Production tier: getObject/is able to fetch Facebook's own page/"

  tests/Main.hs:188:5:
  2) Production tier: getPage works for FB Developers
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Production tier: getPage/works for FB Developers/"

  tests/Main.hs:214:5:
  3) Production tier: fetchNextPage seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Production tier: fetchNextPage/seems to work on a public list of comments/"

  tests/Main.hs:240:5:
  4) Production tier: fetchNextPage/fetchPreviousPage seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Production tier: fetchNextPage/fetchPreviousPage/seems to work on a public list of comments/"

  tests/Main.hs:264:5:
  5) Production tier: fetchAllNextPages seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Production tier: fetchAllNextPages/seems to work on a public list of comments/"

  tests/Main.hs:175:5:
  6) Beta tier: getObject is able to fetch Facebook's own page
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Beta tier: getObject/is able to fetch Facebook's own page/"

  tests/Main.hs:188:5:
  7) Beta tier: getPage works for FB Developers
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Beta tier: getPage/works for FB Developers/"

  tests/Main.hs:214:5:
  8) Beta tier: fetchNextPage seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Beta tier: fetchNextPage/seems to work on a public list of comments/"

  tests/Main.hs:240:5:
  9) Beta tier: fetchNextPage/fetchPreviousPage seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Beta tier: fetchNextPage/fetchPreviousPage/seems to work on a public list of comments/"

  tests/Main.hs:264:5:
  10) Beta tier: fetchAllNextPages seems to work on a public list of comments
       uncaught exception: FacebookException
       FacebookException {fbeType = "invalid_request", fbeMessage = "(#10) To use 'Page Public Content Access', your use of this endpoint must be reviewed and approved by Facebook. To submit this 'Page Public Content Access' feature for review please read our documentation on review}

  To rerun use: --match "/Beta tier: fetchAllNextPages/seems to work on a public list of comments/"

Randomized with seed 1487051425

Finished in 226.3622 seconds
85 examples, 10 failures

fb> Test suite runtests failed
Completed 2 action(s).
Test suite failure for package fb-2.0.0
    runtests:  exited with: ExitFailure 1
Logs printed to console
"#;

    #[test]
    fn stack_and_cabal_runs_from_public_projects_are_read() {
        check(
            &Hspec,
            STACK_PASTED,
            expect![[r#"
                passed=28 failed=1 skipped=0 recognised=true
                Qtility.Environment, Parsing .env files, `loadDotEnvFile`, Should not throw when the file exists @ test/Qtility/EnvironmentSpec.hs:100 | uncaught exception: EnvironmentFileNotFound / EnvironmentFileNotFound {_unEnvironmentFileNotFound = EnvironmentFile {_unEnvironmentFile = "test.env"}}
            "#]],
        );
        // The two suites with no counts of their own passed, as Cabal counts them.
        check(
            &Hspec,
            CABAL_PASTED,
            expect![[r#"
                passed=2 failed=1 skipped=0 recognised=true
                MyLib, `addInt` takes two arguments of Int and returns the result of adding them., When give addInt 1 and 2 then return 3 @ test/hspec/MyLibSpec.hs:10 | expected: 2 / but got: 3
            "#]],
        );
        let parsed = Hspec.read(STACK_FB);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (75, 10, 0));
        assert_eq!(parsed.failures.len(), 10);
        assert_eq!(
            (parsed.failures[0].test.as_deref(), parsed.failures[0].path.as_deref(), parsed.failures[0].line),
            (
                Some("Production tier: getObject is able to fetch Facebook's own page"),
                Some("tests/Main.hs"),
                Some(175)
            )
        );
    }
}
