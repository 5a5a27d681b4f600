//! `dotnet test --logger trx`: the Visual Studio test results (TRX) files the run writes, printed
//! after its own lines; narrowed with `--filter`, and read result by result, or as the compiler's
//! diagnostics when the build failed before any test ran.

use super::diagnostics::Diagnostics;
use super::reading::{clip, dotnet_frame, xml_documents};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words, shell_quote};

pub(super) struct Trx;

impl Runner for Trx {
    fn name(&self) -> &'static str {
        "trx"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("dotnet")
            && (command.contains("--logger trx")
                || command.contains("--logger:trx")
                || command.contains("-l trx"))
    }

    /// A test name, or a test file's class (its name without `.cs`), as a `FullyQualifiedName`
    /// filter; another path names no test.
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        let name = if scope.is_path {
            let file = scope.text.rsplit('/').next().unwrap_or(scope.text);
            match file.strip_suffix(".cs") {
                Some(class) if !class.is_empty() => class.to_string(),
                _ => {
                    return Err(format!(
                        "skipped: scope {:?} is a path, and {} narrows only to a test name or a test file",
                        scope.text, check.name
                    ));
                }
            }
        } else {
            scope.text.to_string()
        };
        let filter = shell_quote(&format!("FullyQualifiedName~{name}"));
        Ok(check.command.replacen("dotnet test", &format!("dotnet test --filter {filter}"), 1))
    }

    fn read(&self, output: &str) -> Parsed {
        trx(output)
    }
}

/// TRX: each `<UnitTestResult>` of every `<TestRun>` in the output, by its `outcome` (`Passed`;
/// `Failed`, `Error`, `Timeout` and `Aborted` fail; `NotExecuted`, `Inconclusive` and the rest
/// are skipped). A failure is its `testName`, the `ErrorInfo`'s `Message`, and the first frame of
/// its `StackTrace` that names a source file. No TRX at all (the build failed) is read as the
/// compiler's diagnostics.
fn trx(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    for document in xml_documents(output, "TestRun") {
        let Ok(doc) = roxmltree::Document::parse(document) else { continue };
        parsed.recognised = true;
        for result in doc.descendants().filter(|n| n.tag_name().name() == "UnitTestResult") {
            match result.attribute("outcome").unwrap_or("") {
                "Passed" | "PassedButRunAborted" => parsed.passed += 1,
                "Failed" | "Error" | "Timeout" | "Aborted" => {
                    parsed.failed += 1;
                    let text = |tag: &str| {
                        result
                            .descendants()
                            .find(|n| n.tag_name().name() == tag)
                            .and_then(|n| n.text())
                            .unwrap_or("")
                            .to_string()
                    };
                    let message = text("Message").replace("\r\n", "\n");
                    let message: Vec<&str> =
                        message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                    let at = dotnet_frame(&text("StackTrace"));
                    parsed.failures.push(Failure {
                        test: result.attribute("testName").map(str::to_string),
                        path: at.as_ref().map(|(p, _)| p.clone()),
                        line: at.map(|(_, l)| l),
                        message: clip(&message.join("\n"), 300),
                    });
                }
                _ => parsed.skipped += 1,
            }
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

    /// A TRX file as `dotnet test --logger trx` writes it for xUnit. .NET's SDK is not installable
    /// here, so this capture is written by us in the shape of public ones: the `TestRun`,
    /// `Results` and `UnitTestResult` attributes of criderhomelab/c-sharp-project's
    /// TestResults/TestResults.trx (commit b43c3ef302ff9eb76f0d2f298761f2b8f2694a19, xUnit on
    /// net8.0), and the failure's `Message` and `StackTrace` as BioBoost/
    /// playground-csharp-xunit-github-action's HelloUnitTestWorkFlow_report.md (commit
    /// 965245b8d487b9429cbb504c530424a95c7400c5) renders them from its TRX; with a skipped test
    /// (`NotExecuted`) and the test definitions left out.
    const TRX: &str = r#"  Determining projects to restore...
  All projects are up-to-date for restore.
  Calc.Tests -> /repo/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll
Results File: /tmp/tmp.x/_vm_2026-12-07_00_20_11.trx
Failed!  - Failed:     1, Passed:     1, Skipped:     1, Total:     3, Duration: 9 ms - Calc.Tests.dll (net8.0)
<?xml version="1.0" encoding="utf-8"?>
<TestRun id="2f0c5a1e-6a1b-4a8e-9d0b-4c1a9e0f7a11" name="@vm 2026-12-07 00:20:11" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Times creation="2026-12-07T00:20:11.2645135+00:00" queuing="2026-12-07T00:20:11.2645136+00:00" start="2026-12-07T00:20:10.6239743+00:00" finish="2026-12-07T00:20:11.4298421+00:00" />
  <Results>
    <UnitTestResult executionId="73eb1164-d598-4a1c-869c-158f8ec2afb8" testId="e9626db3-7753-2696-e4ca-789fd03b2934" testName="Calc.Tests.CalcTest.Adds" computerName="vm" duration="00:00:00.0031745" startTime="2026-12-07T00:20:11.0538069+00:00" endTime="2026-12-07T00:20:11.0538073+00:00" testType="13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b" outcome="Passed" testListId="8c84fa94-04c1-424b-9868-57a2d4851a1d" relativeResultsDirectory="73eb1164-d598-4a1c-869c-158f8ec2afb8" />
    <UnitTestResult executionId="9a7211cd-9e4b-4de0-be28-396e9311dd5f" testId="f19069b2-a521-43ad-cdcf-0e11ba48c76f" testName="Calc.Tests.CalcTest.Totals" computerName="vm" duration="00:00:00.0045660" startTime="2026-12-07T00:20:11.1110159+00:00" endTime="2026-12-07T00:20:11.1110162+00:00" testType="13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b" outcome="Failed" testListId="8c84fa94-04c1-424b-9868-57a2d4851a1d" relativeResultsDirectory="9a7211cd-9e4b-4de0-be28-396e9311dd5f">
      <Output>
        <ErrorInfo>
          <Message>Assert.Equal() Failure&#xD;
Expected: 3&#xD;
Actual:   2</Message>
          <StackTrace>   at Calc.Tests.CalcTest.Totals() in /repo/Calc.Tests/CalcTest.cs:line 17&#xD;
   at System.RuntimeMethodHandle.InvokeMethod(Object target, Void** arguments, Signature sig, Boolean isConstructor)</StackTrace>
        </ErrorInfo>
      </Output>
    </UnitTestResult>
    <UnitTestResult executionId="cb562dba-49cc-43ae-af4b-8032634c8e7d" testId="7abab9b7-0984-56b6-8513-2f0eb569ea53" testName="Calc.Tests.CalcTest.Rounds" computerName="vm" duration="00:00:00.0000010" testType="13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b" outcome="NotExecuted" testListId="8c84fa94-04c1-424b-9868-57a2d4851a1d" relativeResultsDirectory="cb562dba-49cc-43ae-af4b-8032634c8e7d">
      <Output>
        <StdOut>later</StdOut>
      </Output>
    </UnitTestResult>
  </Results>
  <ResultSummary outcome="Failed">
    <Counters total="3" executed="2" passed="1" failed="1" error="0" timeout="0" aborted="0" inconclusive="0" passedButRunAborted="0" notRunnable="0" notExecuted="1" disconnected="0" warning="0" completed="0" inProgress="0" pending="0" />
  </ResultSummary>
</TestRun>
"#;

    #[test]
    fn trx_counts_outcomes_and_places_a_failure_at_its_frame() {
        let parsed = Trx.read(TRX);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("Calc.Tests.CalcTest.Totals".into()),
                path: Some("/repo/Calc.Tests/CalcTest.cs".into()),
                line: Some(17),
                message: "Assert.Equal() Failure\nExpected: 3\nActual:   2".into(),
            }]
        );
    }

    #[test]
    fn trx_cut_short_or_absent_reads_what_is_there() {
        // The report cut in the middle of a result: no document, so the build's lines are read
        // as diagnostics (here none), never a panic.
        for cut in [TRX.len() / 2, TRX.len() - 12, TRX.find("<TestRun").unwrap() + 3] {
            let parsed = Trx.read(&TRX[..cut]);
            assert_eq!((parsed.passed, parsed.failed), (0, 0), "{cut}");
        }
        assert!(!Trx.read("<TestRun><Results><UnitTestResult outcome=</TestRun>").recognised);
        // The build failed: MSBuild's compiler error is the failure.
        let broken = "/repo/Calc/Calc.cs(9,20): error CS0103: The name 'sum' does not exist in the current context \
             [/repo/Calc/Calc.csproj]\n";
        let parsed = Trx.read(broken);
        assert_eq!(parsed.failures.first().and_then(|f| f.line), Some(9), "{parsed:?}");
    }

    #[test]
    fn trx_is_narrowed_with_a_filter() {
        let check = Invocation { name: "dotnet test", command: "dotnet test --logger trx" };
        let by_name = Trx.narrow(&check, &Scope { text: "CalcTest.Adds", is_path: false });
        assert_eq!(
            by_name.as_deref(),
            Ok("dotnet test --filter 'FullyQualifiedName~CalcTest.Adds' --logger trx")
        );
        let by_file = Trx.narrow(&check, &Scope { text: "Calc.Tests/CalcTest.cs", is_path: true });
        assert_eq!(by_file.as_deref(), Ok("dotnet test --filter 'FullyQualifiedName~CalcTest' --logger trx"));
        assert!(Trx.narrow(&check, &Scope { text: "Calc.Tests", is_path: true }).is_err());
    }
}
