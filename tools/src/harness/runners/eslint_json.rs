//! ESLint's `--format json`: each file's messages, the errors a failure each. Narrowed to a path
//! in place of the `.` it checks unscoped; a test name names nothing it checks.

use super::reading::{clip, json_report};
use super::{Failure, Invocation, Parsed, Reports, Runner, Scope, Words};

pub(super) struct EslintJson;

impl Runner for EslintJson {
    fn name(&self) -> &'static str {
        "eslint-json"
    }

    fn reports(&self) -> Reports {
        Reports::Diagnostics
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("eslint") && (command.contains("--format json") || command.contains("-f json"))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if !scope.is_path {
            return Err(format!(
                "skipped: scope {:?} is a test name, not a path {} can check",
                scope.text, check.name
            ));
        }
        let base = check.command.strip_suffix(" .").unwrap_or(check.command);
        Ok(format!("{base} {}", scope.quoted()))
    }

    fn read(&self, output: &str) -> Parsed {
        eslint_json(output)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eslint_json_lists_errors_by_rule_and_leaves_warnings_out() {
        // ESLint 10's `--format json`, captured (each file's `source` left out).
        let out = r#"[{"filePath":"/repo/src/broken.js","messages":[{"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token (","line":1,"column":10}],"suppressedMessages":[],"errorCount":1,"fatalErrorCount":1,"warningCount":0,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]},{"filePath":"/repo/src/calc.js","messages":[{"ruleId":"no-undef","severity":1,"message":"'module' is not defined.","line":7,"column":1,"messageId":"undef","endLine":7,"endColumn":7}],"suppressedMessages":[],"errorCount":0,"fatalErrorCount":0,"warningCount":1,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]},{"filePath":"/repo/src/lint.js","messages":[{"ruleId":"no-unused-vars","severity":2,"message":"'unused' is assigned a value but never used.","line":1,"column":7,"messageId":"unusedVar","endLine":1,"endColumn":13,"suggestions":[{"messageId":"removeVar","data":{"varName":"unused"},"fix":{"range":[0,17],"text":""},"desc":"Remove unused variable 'unused'."}]},{"ruleId":"eqeqeq","severity":2,"message":"Expected '===' and instead saw '=='.","line":3,"column":9,"messageId":"unexpected","endLine":3,"endColumn":11,"suggestions":[{"messageId":"replaceOperator","data":{"expectedOperator":"===","actualOperator":"=="},"fix":{"range":[42,44],"text":"==="},"desc":"Use '===' instead of '=='."}]},{"ruleId":"no-undef","severity":1,"message":"'missing' is not defined.","line":3,"column":22,"messageId":"undef","endLine":3,"endColumn":29},{"ruleId":"no-undef","severity":1,"message":"'module' is not defined.","line":5,"column":1,"messageId":"undef","endLine":5,"endColumn":7}],"suppressedMessages":[],"errorCount":2,"fatalErrorCount":0,"warningCount":2,"fixableErrorCount":0,"fixableWarningCount":0,"usedDeprecatedRules":[]}]"#;
        let parsed = EslintJson.read(out);
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
        let clean = EslintJson.read("[]\n");
        assert!(clean.recognised && clean.failures.is_empty());
    }
}
