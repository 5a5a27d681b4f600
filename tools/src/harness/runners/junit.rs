//! JUnit XML reports printed into a check's output (CTest's `--output-junit`, Surefire's and
//! Gradle's report files, PHPUnit's `--log-junit`), beside the runner's own lines: narrowed by the tool that wrote them
//! (CTest's `-R`, Maven's `-Dtest=`, Gradle's `--tests`), and read report by report, or as
//! compiler diagnostics when the build failed before any test ran.

use std::sync::OnceLock;

use regex::Regex;

use super::diagnostics::Diagnostics;
use super::reading::{clip, re};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Junit;

impl Runner for Junit {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.contains("--output-junit")
            || command.contains("surefire-reports")
            || command.contains("test-results/")
            || command.contains("--log-junit")
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let command = check.command;
        // PHPUnit: a test file or folder to run, or `--filter` a name.
        if command.contains("phpunit") {
            let scoped = if scope.is_path {
                format!("phpunit {}", scope.quoted())
            } else {
                format!("phpunit --filter {}", scope.quoted())
            };
            return Ok(command.replacen("phpunit", &scoped, 1));
        }
        // sbt: `testOnly` a class (a test file's, or a name that is one), with a glob for its
        // package.
        if command.contains("sbt -batch test") {
            let class = if scope.is_path {
                scope.text.rsplit('/').next().and_then(|f| f.strip_suffix(".scala")).map(|c| format!("*{c}"))
            } else {
                Some(scope.text.to_string()).filter(|n| {
                    n.rsplit('.').next().is_some_and(|c| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
                        && n.chars().all(|ch| ch.is_alphanumeric() || "._*$".contains(ch))
                })
            };
            let Some(class) = class else {
                return Err(format!(
                    "skipped: {} narrows to a test class (a `.scala` file or a class's name), and {:?} is neither",
                    check.name, scope.text
                ));
            };
            return Ok(command.replacen(
                "sbt -batch test",
                &format!("sbt -batch {}", shell_quote(&format!("testOnly {class}"))),
                1,
            ));
        }
        // CTest: tests by a name pattern; a path names no test.
        if !scope.is_path && command.contains("ctest ") {
            return Ok(command.replacen("ctest ", &format!("ctest -R {} ", scope.quoted()), 1));
        }
        // Maven: -Dtest= a class or Class#method; Gradle: --tests a class or Class.method; a
        // test file by its class.
        let build_tool = command.contains("mvn ") || command.contains("gradle");
        if !build_tool || (scope.is_path && !scope.text.ends_with(".java") && !scope.text.ends_with(".kt")) {
            return Err(format!(
                "skipped: scope {:?} is a path, and {} narrows only to a test name",
                scope.text, check.name
            ));
        }
        let test = if scope.is_path {
            let file = scope.text.rsplit('/').next().unwrap_or(scope.text);
            file.rsplit_once('.').map_or(file, |(class, _)| class).to_string()
        } else {
            scope.text.to_string()
        };
        if command.contains("mvn ") {
            return Ok(command.replacen("mvn ", &format!("mvn -Dtest={} ", shell_quote(&test)), 1));
        }
        // Gradle before 4.7 matches only qualified names: a bare class is any package's.
        let test = test.replace('#', ".");
        let test = if test.starts_with(|c: char| c.is_ascii_uppercase()) { format!("*{test}") } else { test };
        Ok(command.replacen(" test ", &format!(" test --tests {} ", shell_quote(&test)), 1))
    }

    fn read(&self, output: &str) -> Parsed {
        junit(output)
    }
}

/// JUnit XML: every `<testsuite>` document found in the output (CTest's, Surefire's, Gradle's),
/// each `<testcase>` passed, skipped (`<skipped>`) or failed (`<failure>`, `<error>`). A failure
/// is named `classname.name` (just `name` when they are the same, as in CTest), its message is
/// the failure's `message` or first text line, and its file and line the first `path:line` in
/// the failure's text or the test's captured output. Output with no report (the build failed
/// before any test ran) is read as compiler diagnostics.
fn junit(output: &str) -> Parsed {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let place = re(
        &PLACE,
        r"((?:/|\.\.?/)?[\w.\-/]+\.(?:c|cc|cpp|cxx|h|hpp|java|kt|scala|go|py|rs|js|ts|php)):(\d+)",
    );
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
            // PHPUnit's text starts with the test's `Class::method`: the message is what follows.
            let text = match text.split_once('\n') {
                Some((first, rest)) if first.trim() == format!("{class}::{name}") => rest,
                _ => text.as_str(),
            };
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
        return Diagnostics.read(output);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;
    use expect_test::expect;

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
        let parsed = Junit.read(ctest);
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
        let parsed = Junit.read(surefire);
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
        let parsed = Junit.read(broken);
        assert_eq!(parsed.failures.first().and_then(|f| f.line), Some(8), "{parsed:?}");
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
        let parsed = Junit.read(gradle);
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
    fn junit_from_phpunit_reads_nested_suites_and_the_failing_line() {
        // PHPUnit 9.6.7 (Debian's phpunit) run here on fixtures/verify_phpunit with
        // `--log-junit`, its console lines and then the report, captured (the folder shown as
        // /repo).
        let phpunit = r#"PHPUnit 9.6.7 by Sebastian Bergmann and contributors.

.FS                                                                 3 / 3 (100%)

Time: 00:00.004, Memory: 6.00 MB

There was 1 failure:

1) CalcTest::testTotal
Failed asserting that 2 is identical to 3.

/repo/tests/CalcTest.php:16

FAILURES!
Tests: 3, Assertions: 2, Failures: 1, Skipped: 1.
<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="" tests="3" assertions="2" errors="0" warnings="0" failures="1" skipped="1" time="0.001137">
    <testsuite name="calc" file="/repo/src/Calc.php" tests="3" assertions="2" errors="0" warnings="0" failures="1" skipped="1" time="0.001137">
      <testsuite name="CalcTest" file="/repo/tests/CalcTest.php" tests="3" assertions="2" errors="0" warnings="0" failures="1" skipped="1" time="0.001137">
        <testcase name="testAdd" class="CalcTest" classname="CalcTest" file="/repo/tests/CalcTest.php" line="9" assertions="1" time="0.000832"/>
        <testcase name="testTotal" class="CalcTest" classname="CalcTest" file="/repo/tests/CalcTest.php" line="14" assertions="1" time="0.000243">
          <failure type="PHPUnit\Framework\ExpectationFailedException">CalcTest::testTotal
Failed asserting that 2 is identical to 3.

/repo/tests/CalcTest.php:16</failure>
        </testcase>
        <testcase name="testLater" class="CalcTest" classname="CalcTest" file="/repo/tests/CalcTest.php" line="19" assertions="0" time="0.000061">
          <skipped/>
        </testcase>
      </testsuite>
    </testsuite>
  </testsuite>
</testsuites>
"#;
        let parsed = Junit.read(phpunit);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("CalcTest.testTotal".into()),
                path: Some("/repo/tests/CalcTest.php".into()),
                line: Some(16),
                message: "Failed asserting that 2 is identical to 3.".into(),
            }]
        );
        // The report cut short: PHPUnit's own lines are no report, and nothing panics.
        let cut = &phpunit[..phpunit.find("<testcase name=\"testLater\"").unwrap()];
        assert_eq!((Junit.read(cut).passed, Junit.read(cut).failed), (0, 0));
        let check = Invocation {
            name: "phpunit",
            command: r#"report=$(mktemp); phpunit --log-junit "$report"; status=$?; cat "$report"; exit $status"#,
        };
        let by_file = Junit.narrow(&check, &Scope { text: "tests/CalcTest.php", is_path: true }).unwrap();
        assert!(by_file.contains("; phpunit tests/CalcTest.php --log-junit"), "{by_file}");
        let by_name = Junit.narrow(&check, &Scope { text: "testAdd", is_path: false }).unwrap();
        assert!(by_name.contains("; phpunit --filter testAdd --log-junit"), "{by_name}");
    }

    #[test]
    fn junit_from_gradle_places_a_kotlin_failure_at_its_kt_frame() {
        // Kotlin through Gradle writes the same report as Java: written by us in the shape of
        // the Gradle 4.4.1 capture above, with the frames Kotlin's compiler names (`.kt` files,
        // a test class in `CalcTest.kt`); the bare file name is found under the root by verify.
        let gradle = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="calc.CalcTest" tests="2" skipped="0" failures="1" errors="0" timestamp="2026-12-07T00:30:00" hostname="vm" time="0.002">
  <properties/>
  <testcase name="totals" classname="calc.CalcTest" time="0.001">
    <failure message="java.lang.AssertionError: expected:&lt;3&gt; but was:&lt;2&gt;" type="java.lang.AssertionError">java.lang.AssertionError: expected:&lt;3&gt; but was:&lt;2&gt;
	at org.junit.Assert.fail(Assert.java:89)
	at org.junit.Assert.assertEquals(Assert.java:633)
	at calc.CalcTest.totals(CalcTest.kt:12)
</failure>
  </testcase>
  <testcase name="adds" classname="calc.CalcTest" time="0.0"/>
</testsuite>
"#;
        let parsed = Junit.read(gradle);
        assert_eq!((parsed.passed, parsed.failed), (1, 1));
        assert_eq!(
            (parsed.failures[0].path.as_deref(), parsed.failures[0].line),
            (Some("CalcTest.kt"), Some(12))
        );
        let check = Invocation { name: "gradle test", command: "gradle test --console=plain" };
        let by_file =
            Junit.narrow(&check, &Scope { text: "src/test/kotlin/calc/CalcTest.kt", is_path: true });
        assert_eq!(by_file.as_deref(), Ok("gradle test --tests '*CalcTest' --console=plain"));
    }

    /// sbt 1.2.6's report of a ScalaTest FlatSpec failure, as committed with its project:
    /// todokr/sbt-sound-on-test-failed, `target/test-reports/TEST-example.HelloSpec.xml` at
    /// b36a4aaaf7ae1a758692d8be5d3d2fbb668c10fd (its properties and the stack below the
    /// spec's own frame left out).
    const SBT_SCALATEST: &str = r#"<?xml version='1.0' encoding='UTF-8'?>
<testsuite hostname="IT020A13061.local" name="example.HelloSpec" tests="1" errors="0" failures="1" skipped="0" time="0.019" timestamp="2018-12-03T15:57:11">
                     <testcase classname="example.HelloSpec" name="The Hello object should say hello" time="0.019">
                                                 <failure message="&quot;hello[]&quot; did not equal &quot;hello[!]&quot;" type="org.scalatest.exceptions.TestFailedException">org.scalatest.exceptions.TestFailedException: &quot;hello[]&quot; did not equal &quot;hello[!]&quot;
	at org.scalatest.MatchersHelper$.indicateFailure(MatchersHelper.scala:346)
	at org.scalatest.Matchers$AnyShouldWrapper.shouldEqual(Matchers.scala:6742)
	at example.HelloSpec.$anonfun$new$1(HelloSpec.scala:7)
	at org.scalatest.OutcomeOf.outcomeOf(OutcomeOf.scala:85)
</failure>
                                               </testcase>
                     <system-out><![CDATA[]]></system-out>
                     <system-err><![CDATA[]]></system-err>
                   </testsuite>"#;

    /// sbt 1.9.4's report of MUnit with ScalaCheck: JamesOzzyburn/FunctionalHW1,
    /// `target/test-reports/TEST-vectors.VectorOpsSuite.xml` at
    /// 69941c16b5de3aa94aaf44e3d2a5377ff93ff2e1 (its properties, the testcases after the first
    /// failure and that failure's stack below its first frame left out).
    const SBT_MUNIT: &str = r#"<?xml version='1.0' encoding='UTF-8'?>
<testsuite hostname="James-Windows" name="vectors.VectorOpsSuite" tests="19" errors="0" failures="3" skipped="0" time="241.057" timestamp="2023-09-12T11:25:24">
          <testcase classname="vectors.VectorOpsSuite" name="can scale a vector" time="0.039">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can add two vectors" time="0.0">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can get the dot product of two vectors" time="0.001">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can get the cross product of two vectors" time="0.0">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can get cross product run #1" time="0.001">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can get cross product run #2" time="0.0">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="can get cross product run #3" time="0.0">
                      
                    </testcase><testcase classname="vectors.VectorOpsSuite" name="scale can be stacked" time="40.549">
                      <failure message="/home/nick/functional/vector-operations/src/test/scala/vectors/VectorOpsSuite.scala:77
76:    }
[7m77:  }[0m
78:

Failing seed: 1GH_AZyuJSFYAiPQX2MFcWx1dwJcmaehlZZn8_oljHM=
You can reproduce this failure by adding the following override to your suite:

  override val scalaCheckInitialSeed = &quot;1GH_AZyuJSFYAiPQX2MFcWx1dwJcmaehlZZn8_oljHM=&quot;

Falsified after 3 passed tests.
&gt; ARG_0: -3.01837183427883E45
&gt; ARG_1: -1.846112816543554E42
&gt; ARG_2: (0.0,4.1842711721487876E-23,3.8345316276416975E220)
&gt; ARG_0_ORIGINAL: -1.0910622966496182E267
&gt; ARG_2_ORIGINAL: (5.3291755710967824E42,4.1842711721487876E-23,3.8345316276416975E220)" type="munit.FailException">munit.FailException: /home/nick/functional/vector-operations/src/test/scala/vectors/VectorOpsSuite.scala:77
76:    }
[7m77:  }[0m
78:

Failing seed: 1GH_AZyuJSFYAiPQX2MFcWx1dwJcmaehlZZn8_oljHM=
You can reproduce this failure by adding the following override to your suite:

  override val scalaCheckInitialSeed = &quot;1GH_AZyuJSFYAiPQX2MFcWx1dwJcmaehlZZn8_oljHM=&quot;

Falsified after 3 passed tests.
&gt; ARG_0: -3.01837183427883E45
&gt; ARG_1: -1.846112816543554E42
&gt; ARG_2: (0.0,4.1842711721487876E-23,3.8345316276416975E220)
&gt; ARG_0_ORIGINAL: -1.0910622966496182E267
&gt; ARG_2_ORIGINAL: (5.3291755710967824E42,4.1842711721487876E-23,3.8345316276416975E220)
	at munit.Assertions.fail(Assertions.scala:283)
</failure>
                    </testcase>
          <system-out><![CDATA[]]></system-out>
          <system-err><![CDATA[]]></system-err>
        </testsuite>"#;

    /// sbt 1.9's report of a ScalaTest suite that aborted in a forked JVM, as one testcase with
    /// an `<error>`: Aashvin/play-template,
    /// `target/test-reports/TEST-controllers.ApplicationControllerSpec.xml` at
    /// 623ce01a877652a4e4fe204bf2ca943239af586f (its properties and the stack below the
    /// spec's first frame left out).
    const SBT_ABORTED: &str = r#"<?xml version='1.0' encoding='UTF-8'?>
<testsuite hostname="Aashvins-MacBook-Pro.local" name="controllers.ApplicationControllerSpec" tests="1" errors="1" failures="0" skipped="0" time="0.0" timestamp="2023-09-13T10:16:33">
                     <testcase classname="controllers.ApplicationControllerSpec" name="(It is not a test it is a sbt.testing.SuiteSelector)" time="0.0">
                                                 <error message="sbt.ForkMain$ForkError: java.lang.NoClassDefFoundError: Could not initialize class com.typesafe.sslconfig.ssl.FakeKeyStore$KeystoreSettings$" type="sbt.ForkMain$ForkError">sbt.ForkMain$ForkError: sbt.ForkMain$ForkError: java.lang.NoClassDefFoundError: Could not initialize class com.typesafe.sslconfig.ssl.FakeKeyStore$KeystoreSettings$
	at com.typesafe.sslconfig.ssl.FakeKeyStore$.generateKeyStore(FakeKeyStore.scala:71)
	at play.core.server.SelfSigned$.x$1$lzycompute(SelfSigned.scala:24)
	at play.core.server.SelfSigned$.x$1(SelfSigned.scala:23)
	at play.core.server.SelfSigned$.sslContext$lzycompute(SelfSigned.scala:23)
	at play.core.server.SelfSigned$.sslContext(SelfSigned.scala:23)
	at play.core.server.SelfSignedSSLEngineProvider.sslContext(SelfSigned.scala:36)
	at play.core.server.AkkaHttpServer.sslContext$lzycompute(AkkaHttpServer.scala:207)
	at play.core.server.AkkaHttpServer.sslContext(AkkaHttpServer.scala:206)
	at play.core.server.AkkaHttpServer.$anonfun$httpsServerBinding$1(AkkaHttpServer.scala:222)
	at play.core.server.AkkaHttpServer.$anonfun$httpsServerBinding$1$adapted(AkkaHttpServer.scala:218)
	at scala.Option.map(Option.scala:242)
	at play.core.server.AkkaHttpServer.&lt;init&gt;(AkkaHttpServer.scala:218)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:652)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:650)
	at play.core.server.ServerProvider.createServer(ServerProvider.scala:29)
	at play.core.server.ServerProvider.createServer$(ServerProvider.scala:26)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:650)
	at play.api.test.TestServer.start(TestServer.scala:47)
	at play.api.test.DefaultTestServerFactory.start(TestServerFactory.scala:46)
	at org.scalatestplus.play.BaseOneServerPerSuite.runningServer(BaseOneServerPerSuite.scala:145)
	at org.scalatestplus.play.BaseOneServerPerSuite.runningServer$(BaseOneServerPerSuite.scala:144)
	at controllers.ApplicationControllerSpec.runningServer$lzycompute(ApplicationControllerSpec.scala:5)
Caused by: sbt.ForkMain$ForkError: sbt.ForkMain$ForkError: java.lang.ExceptionInInitializerError: Exception java.lang.NoSuchFieldError: sha256WithRSAEncryption_oid [in thread &quot;pool-1-thread-1&quot;]
	at com.typesafe.sslconfig.ssl.FakeKeyStore$KeystoreSettings$.&lt;clinit&gt;(FakeKeyStore.scala:55)
	at com.typesafe.sslconfig.ssl.FakeKeyStore$.generateKeyStore(FakeKeyStore.scala:71)
	at play.core.server.SelfSigned$.x$1$lzycompute(SelfSigned.scala:24)
	at play.core.server.SelfSigned$.x$1(SelfSigned.scala:23)
	at play.core.server.SelfSigned$.sslContext$lzycompute(SelfSigned.scala:23)
	at play.core.server.SelfSigned$.sslContext(SelfSigned.scala:23)
	at play.core.server.SelfSignedSSLEngineProvider.sslContext(SelfSigned.scala:36)
	at play.core.server.AkkaHttpServer.sslContext$lzycompute(AkkaHttpServer.scala:207)
	at play.core.server.AkkaHttpServer.sslContext(AkkaHttpServer.scala:206)
	at play.core.server.AkkaHttpServer.$anonfun$httpsServerBinding$1(AkkaHttpServer.scala:222)
	at play.core.server.AkkaHttpServer.$anonfun$httpsServerBinding$1$adapted(AkkaHttpServer.scala:218)
	at scala.Option.map(Option.scala:242)
	at play.core.server.AkkaHttpServer.&lt;init&gt;(AkkaHttpServer.scala:218)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:652)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:650)
	at play.core.server.ServerProvider.createServer(ServerProvider.scala:29)
	at play.core.server.ServerProvider.createServer$(ServerProvider.scala:26)
	at play.core.server.AkkaHttpServerProvider.createServer(AkkaHttpServer.scala:650)
	at play.api.test.TestServer.start(TestServer.scala:47)
	at play.api.test.DefaultTestServerFactory.start(TestServerFactory.scala:46)
	at org.scalatestplus.play.BaseOneServerPerSuite.runningServer(BaseOneServerPerSuite.scala:145)
	at org.scalatestplus.play.BaseOneServerPerSuite.runningServer$(BaseOneServerPerSuite.scala:144)
	at controllers.ApplicationControllerSpec.runningServer$lzycompute(ApplicationControllerSpec.scala:5)
	... 13 more
</error>
                                               </testcase>
                     <system-out><![CDATA[]]></system-out>
                     <system-err><![CDATA[]]></system-err>
                   </testsuite>"#;

    #[test]
    fn junit_from_sbt_places_scalatest_munit_and_an_aborted_suite() {
        check(
            &Junit,
            SBT_SCALATEST,
            expect![[r#"
                passed=0 failed=1 skipped=0 recognised=true
                example.HelloSpec.The Hello object should say hello @ HelloSpec.scala:7 | "hello[]" did not equal "hello[!]"
            "#]],
        );
        let parsed = Junit.read(SBT_MUNIT);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (7, 1, 0));
        assert_eq!(
            (parsed.failures[0].test.as_deref(), parsed.failures[0].path.as_deref(), parsed.failures[0].line),
            (
                Some("vectors.VectorOpsSuite.scale can be stacked"),
                Some("/home/nick/functional/vector-operations/src/test/scala/vectors/VectorOpsSuite.scala"),
                Some(77)
            )
        );
        check(
            &Junit,
            SBT_ABORTED,
            expect![[r#"
                passed=0 failed=1 skipped=0 recognised=true
                controllers.ApplicationControllerSpec.(It is not a test it is a sbt.testing.SuiteSelector) @ ApplicationControllerSpec.scala:5 | sbt.ForkMain$ForkError: java.lang.NoClassDefFoundError: Could not initialize class com.typesafe.sslconfig.ssl.FakeKeyStore$KeystoreSettings$
            "#]],
        );
    }

    /// Mill's `test-report.xml`, as Mill's own tests expect `TestModuleUtil.genTestXmlReport`
    /// to write it (com-lihaoyi/mill, `scalalib/test/src/mill/scalalib/TestModuleUtilTests.scala`
    /// at 05bef7ebd6aaa03365ecb68e32dcad43ba58462e: its "multi test suites" report, with the
    /// error and skipped cases of its other reports added to the second suite and its counts),
    /// behind the XML declaration Mill's writer puts first.
    #[test]
    fn junit_from_mill_reads_its_test_suites_document() {
        let mill = r#"<?xml version='1.0' encoding='UTF-8'?>
<testsuites tests="5" failures="1" errors="1" skipped="1" time="2.514">
  <testsuite name="mill.scalalib.TestModuleTests" tests="2" failures="1" errors="0" skipped="0" time="0.013" timestamp="2024-05-23T12:20:04">
    <properties>
    </properties>
    <testcase classname="mill.scalalib.TestModuleTests" name="success" time="0.001">
    </testcase>
    <testcase classname="mill.scalalib.TestModuleTests" name="fail" time="0.012">
      <failure message="assert(1 == 2)" type="utest.AssertionError"> utest.AssertionError: assert(1 == 2) at utest.asserts.Util$.$anonfun$makeAssertError$1(Util.scala:26) at utest.framework.StackMarker$.dropInside(StackMarker.scala:11) </failure>
    </testcase>
  </testsuite>
  <testsuite name="mill.scalalib.TestModuleTests2" tests="3" failures="0" errors="1" skipped="1" time="2.501" timestamp="2024-05-23T12:20:04">
    <properties>
    </properties>
    <testcase classname="mill.scalalib.TestModuleTests2" name="success" time="0.001">
    </testcase>
    <testcase classname="mill.scalalib.TestModuleTests2" name="error" time="2.4">
      <error message="No Exception or message provided"/>
    </testcase>
    <testcase classname="mill.scalalib.TestModuleTests2" name="pending" time="0.1">
      <skipped/>
    </testcase>
  </testsuite>
</testsuites>
"#;
        check(
            &Junit,
            mill,
            expect![[r#"
                passed=2 failed=2 skipped=1 recognised=true
                mill.scalalib.TestModuleTests.fail @ Util.scala:26 | assert(1 == 2)
                mill.scalalib.TestModuleTests2.error @ -:- | No Exception or message provided
            "#]],
        );
    }

    #[test]
    fn sbt_is_narrowed_to_a_test_class_with_test_only() {
        let check = Invocation {
            name: "sbt test",
            command: "rm -rf target/test-reports; sbt -batch test; status=$?; cat target/test-reports/*.xml",
        };
        let by_file =
            Junit.narrow(&check, &Scope { text: "src/test/scala/shop/CartSuite.scala", is_path: true });
        assert_eq!(
            by_file.as_deref(),
            Ok(
                "rm -rf target/test-reports; sbt -batch 'testOnly *CartSuite'; status=$?; cat target/test-reports/*.xml"
            )
        );
        let by_class = Junit.narrow(&check, &Scope { text: "shop.CartSuite", is_path: false });
        assert_eq!(
            by_class.as_deref(),
            Ok(
                "rm -rf target/test-reports; sbt -batch 'testOnly shop.CartSuite'; status=$?; cat target/test-reports/*.xml"
            )
        );
        assert!(Junit.narrow(&check, &Scope { text: "sums prices", is_path: false }).is_err());
    }
}
