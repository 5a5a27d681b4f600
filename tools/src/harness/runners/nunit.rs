//! NUnit's XML result file, NUnit 2's (`nunit-console -xml=…`) and NUnit 3's (`nunit3-console
//! --result=…`), printed after the console's own lines: narrowed to a test name with each
//! console's option, and read test case by test case.

use super::diagnostics::Diagnostics;
use super::reading::{clip, dotnet_frame, xml_documents};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Nunit;

impl Runner for Nunit {
    fn name(&self) -> &'static str {
        "nunit"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        ["nunit-console", "nunit3-console", "nunit-console.exe", "nunit3-console.exe"]
            .iter()
            .any(|w| command.has(w))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if scope.is_path {
            return Err(format!(
                "skipped: scope {:?} is a path, and {} narrows only to a test name",
                scope.text, check.name
            ));
        }
        let test = shell_quote(scope.text);
        for (console, option) in [("nunit3-console", "--test="), ("nunit-console", "-run=")] {
            if let Some(at) = check.command.find(console) {
                let end =
                    check.command[at..].find(char::is_whitespace).map_or(check.command.len(), |e| at + e);
                return Ok(format!("{} {option}{test}{}", &check.command[..end], &check.command[end..]));
            }
        }
        Err(format!("skipped: {} runs no NUnit console to narrow", check.name))
    }

    fn read(&self, output: &str) -> Parsed {
        nunit(output)
    }
}

/// NUnit's results: NUnit 2's `<test-results>` (a `test-case`'s `result` is `Success`,
/// `Failure`, `Error`, `Ignored`, …; `executed="False"` is not run) and NUnit 3's `<test-run>`
/// (`Passed`, `Failed`, `Skipped`, `Inconclusive`, `Warning`). A failure is the case's full
/// name, its `failure`'s message and the first frame of its stack trace that names a source
/// file (Mono prints one only when run with `--debug`). No result file (the build failed) is
/// read as the compiler's diagnostics.
fn nunit(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let documents =
        xml_documents(output, "test-results").into_iter().chain(xml_documents(output, "test-run"));
    for document in documents {
        let Ok(doc) = roxmltree::Document::parse(document) else { continue };
        parsed.recognised = true;
        for case in doc.descendants().filter(|n| n.has_tag_name("test-case")) {
            let result = case.attribute("result").unwrap_or("");
            let failure = case.children().find(|c| c.has_tag_name("failure"));
            let failed = matches!(result, "Failure" | "Error" | "Failed" | "Cancelled" | "NotRunnable");
            if !failed {
                if case.attribute("executed") == Some("False") || !matches!(result, "Success" | "Passed") {
                    parsed.skipped += 1;
                } else {
                    parsed.passed += 1;
                }
                continue;
            }
            parsed.failed += 1;
            let text = |tag: &str| {
                failure
                    .and_then(|f| f.children().find(|c| c.has_tag_name(tag)))
                    .and_then(|n| n.text())
                    .unwrap_or("")
                    .to_string()
            };
            let message = text("message");
            let message: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let at = dotnet_frame(&text("stack-trace"));
            let name = case.attribute("fullname").or(case.attribute("name")).unwrap_or("?");
            parsed.failures.push(Failure {
                test: Some(name.to_string()),
                path: at.as_ref().map(|(p, _)| p.clone()),
                line: at.map(|(_, l)| l),
                message: clip(&message.join("\n"), 300),
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
    use super::*;

    /// NUnit 2.6.4 (Debian's nunit-console, Mono 6.8) run here on fixtures/verify_nunit with
    /// `MONO_ENV_OPTIONS=--debug`, its console lines and then its XML, captured (the runtime's
    /// own frames cut short).
    const NUNIT2: &str = r#"ProcessModel: Default    DomainUsage: Single
Execution Runtime: mono-4.0
..N.F
Tests run: 2, Errors: 0, Failures: 1, Inconclusive: 0, Time: 0.0287527 seconds
  Not run: 1, Invalid: 0, Ignored: 1, Skipped: 0

<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!--This file represents the results of running a test suite-->
<test-results name="/repo/CalcTest.dll" total="2" errors="0" failures="1" not-run="1" inconclusive="0" ignored="1" skipped="0" invalid="0" date="2026-12-07" time="00:09:32">
  <environment nunit-version="2.6.4.0" clr-version="4.0.30319.42000" os-version="Unix 6.18.44.1272" platform="Unix" cwd="/repo" machine-name="vm" user="root" user-domain="vm" />
  <culture-info current-culture="" current-uiculture="" />
  <test-suite type="Assembly" name="/repo/CalcTest.dll" executed="True" result="Failure" success="False" time="0.029" asserts="0">
    <results>
      <test-suite type="Namespace" name="Shop" executed="True" result="Failure" success="False" time="0.026" asserts="0">
        <results>
          <test-suite type="TestFixture" name="CalcTest" executed="True" result="Failure" success="False" time="0.022" asserts="0">
            <results>
              <test-case name="Shop.CalcTest.Adds" executed="True" result="Success" success="True" time="0.010" asserts="1" />
              <test-case name="Shop.CalcTest.Rounds" executed="False" result="Ignored">
                <reason>
                  <message><![CDATA[later]]></message>
                </reason>
              </test-case>
              <test-case name="Shop.CalcTest.Totals" executed="True" result="Failure" success="False" time="0.004" asserts="1">
                <failure>
                  <message><![CDATA[  Expected: 3
  But was:  2
]]></message>
                  <stack-trace><![CDATA[at Shop.CalcTest.Totals () [0x00015] in /repo/CalcTest.cs:17
at (wrapper managed-to-native) System.Reflection.RuntimeMethodInfo.InternalInvoke(System.Reflection.RuntimeMethodInfo,object,object[],System.Exception&)
]]></stack-trace>
                </failure>
              </test-case>
            </results>
          </test-suite>
        </results>
      </test-suite>
    </results>
  </test-suite>
</test-results>
"#;

    #[test]
    fn nunit2_results_name_the_failure_at_its_source_line() {
        let parsed = Nunit.read(NUNIT2);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("Shop.CalcTest.Totals".into()),
                path: Some("/repo/CalcTest.cs".into()),
                line: Some(17),
                message: "Expected: 3\nBut was:  2".into(),
            }]
        );
        // Cut short, or garbled: what is whole is read, never a panic.
        for cut in [NUNIT2.len() / 2, NUNIT2.len() - 5] {
            let parsed = Nunit.read(&NUNIT2[..cut]);
            assert!(!parsed.recognised && parsed.failures.is_empty(), "{cut}: {parsed:?}");
        }
        assert!(!Nunit.read("<test-results><test-case result=</test-results>").recognised);
    }

    #[test]
    fn nunit3_results_from_a_public_run_are_read() {
        // NUnit 3.20 console's result file, from CH-SOF-GITHUB/PrincipaleProject2-Nunit3-Selenium-
        // Build-in-LambdaTest-Integrate-to-TestRail-TestMo's TestResult.xml (commit
        // 21a122a52e6ffba4cc9fde1cfeeb4e96b0e86f60), cut to one passing and one failing case and
        // their suites, with a skipped case added in NUnit 3's shape.
        let nunit3 = r#"<?xml version="1.0" encoding="utf-8" standalone="no"?>
<test-run id="0" runstate="Runnable" testcasecount="3" result="Failed" total="3" passed="1" failed="1" warnings="0" inconclusive="0" skipped="1" asserts="1" engine-version="3.20.1.0" clr-version="8.0.16">
  <test-suite type="TestFixture" id="1-1002" name="Test1" fullname="TestRailTesting.trc_automated_tests.Test1" runstate="Runnable" testcasecount="3" result="Failed" site="Child" total="3" passed="1" failed="1" warnings="0" inconclusive="0" skipped="1" asserts="1">
    <failure>
      <message><![CDATA[One or more child tests had errors]]></message>
    </failure>
    <test-case id="1-1003" name="TestRailDisplayHomeProductPageTest()" fullname="TestRailTesting.trc_automated_tests.Test1.TestRailDisplayHomeProductPageTest()" methodname="TestRailDisplayHomeProductPageTest" classname="TestRailTesting.trc_automated_tests.Test1" runstate="Runnable" seed="52281861" result="Passed" asserts="0" />
    <test-case id="1-1009" name="TestRailNavigateFavoritesListEmptyConnectionLoggoutStatus()" fullname="TestRailTesting.trc_automated_tests.Test1.TestRailNavigateFavoritesListEmptyConnectionLoggoutStatus()" methodname="TestRailNavigateFavoritesListEmptyConnectionLoggoutStatus" classname="TestRailTesting.trc_automated_tests.Test1" runstate="Runnable" seed="1171258340" result="Failed" asserts="1">
      <failure>
        <message><![CDATA[  Expected string length 37 but was 49. Strings differ at index 27.
  Expected: "https://www.bstackdemo.com/favourites"
  But was:  "https://www.bstackdemo.com/signin?favourites=true"
  --------------------------------------^
]]></message>
        <stack-trace><![CDATA[   at TestRailTesting.trc_automated_tests.Test1.TestRailNavigateFavoritesListEmptyConnectionLoggoutStatus() in C:\Users\chaker\source\repos\TestRail\TestRailTesting\trc_automated_tests\Test1.cs:line 114
]]></stack-trace>
      </failure>
    </test-case>
    <test-case id="1-1010" name="Later()" fullname="TestRailTesting.trc_automated_tests.Test1.Later()" methodname="Later" classname="TestRailTesting.trc_automated_tests.Test1" runstate="Ignored" seed="1" result="Skipped" label="Ignored" asserts="0" />
  </test-suite>
</test-run>
"#;
        let parsed = Nunit.read(nunit3);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        let failure = &parsed.failures[0];
        assert_eq!(
            failure.test.as_deref(),
            Some(
                "TestRailTesting.trc_automated_tests.Test1.TestRailNavigateFavoritesListEmptyConnectionLoggoutStatus()"
            )
        );
        assert_eq!(
            (failure.path.as_deref(), failure.line),
            (
                Some(r"C:\Users\chaker\source\repos\TestRail\TestRailTesting\trc_automated_tests\Test1.cs"),
                Some(114)
            )
        );
        assert!(failure.message.starts_with("Expected string length 37 but was 49."), "{failure:?}");
    }

    #[test]
    fn nunit_is_narrowed_by_each_consoles_option() {
        let two = Invocation { name: "nunit", command: "nunit-console -nologo -xml=r.xml Calc.dll" };
        let scope = Scope { text: "Shop.CalcTest.Adds", is_path: false };
        assert_eq!(
            Nunit.narrow(&two, &scope).as_deref(),
            Ok("nunit-console -run=Shop.CalcTest.Adds -nologo -xml=r.xml Calc.dll")
        );
        let three = Invocation { name: "nunit", command: "nunit3-console Calc.dll" };
        assert_eq!(
            Nunit.narrow(&three, &scope).as_deref(),
            Ok("nunit3-console --test=Shop.CalcTest.Adds Calc.dll")
        );
        assert!(Nunit.narrow(&two, &Scope { text: "CalcTest.cs", is_path: true }).is_err());
    }
}
