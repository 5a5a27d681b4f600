//! RSpec's `--format json` report: narrowed to files (or `file:line`) to run or to `-e` an
//! example's name, and read example by example from the report among the runner's own lines.

use std::sync::OnceLock;

use regex::Regex;

use super::reading::{clip, json_report, re, strip_ansi};
use super::{Failure, Invocation, Parsed, Runner, Scope, Words};

pub(super) struct RspecJson;

impl Runner for RspecJson {
    fn name(&self) -> &'static str {
        "rspec-json"
    }

    fn recognises(&self, command: &Words<'_>) -> bool {
        command.has("rspec")
            && (command.contains("--format json")
                || command.contains("--format=json")
                || command.contains("-f json"))
    }

    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        Ok(if scope.is_path {
            format!("{} {}", check.command, scope.quoted())
        } else {
            format!("{} -e {}", check.command, scope.quoted())
        })
    }

    fn read(&self, output: &str) -> Parsed {
        rspec_json(output)
    }
}

/// An example's file as the report names it (`./spec/calc_spec.rb`), without the `./`.
fn relative(path: &str) -> &str {
    path.strip_prefix("./").unwrap_or(path)
}

/// RSpec's JSON report: each example `passed`, `failed` or `pending` (skipped), a failure named
/// by its full description, its message the exception's (the blank lines left out), and its
/// place the backtrace's frame in the example's own file (the expectation), else the example's
/// declaration. An error outside the examples (a spec file that does not load) is a failure of
/// its own, placed at the first `# file:line` of its message.
fn rspec_json(output: &str) -> Parsed {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static LOADED: OnceLock<Regex> = OnceLock::new();
    let frame = re(&FRAME, r"^(.+?\.rb):(\d+)(?::in |$)");
    let loaded = re(&LOADED, r"^#\s+(.+?\.rb):(\d+)");
    let mut parsed = Parsed::default();
    let Some(report) = json_report(output, "{").filter(|r| r.get("examples").is_some()) else {
        return parsed;
    };
    parsed.recognised = true;
    let lines_of = |text: &str| {
        strip_ansi(text).lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
    };
    for example in report["examples"].as_array().into_iter().flatten() {
        match example["status"].as_str().unwrap_or("") {
            "passed" => parsed.passed += 1,
            "failed" => {
                parsed.failed += 1;
                let file = relative(example["file_path"].as_str().unwrap_or(""));
                let exception = &example["exception"];
                let at = exception["backtrace"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f.as_str().and_then(|f| frame.captures(f)))
                    .find(|c| !file.is_empty() && c[1].ends_with(file))
                    .and_then(|c| c[2].parse().ok());
                let mut message = lines_of(exception["message"].as_str().unwrap_or(""));
                if message.is_empty() {
                    message = exception["class"].as_str().unwrap_or("").to_string();
                }
                parsed.failures.push(Failure {
                    test: example["full_description"].as_str().map(str::to_string),
                    path: (!file.is_empty()).then(|| file.to_string()),
                    line: at.or_else(|| example["line_number"].as_u64()),
                    message: clip(&message, 300),
                });
            }
            _ => parsed.skipped += 1,
        }
    }
    let outside = report["summary"]["errors_outside_of_examples_count"].as_u64().unwrap_or(0);
    let messages: Vec<&str> =
        report["messages"].as_array().into_iter().flatten().filter_map(|m| m.as_str()).collect();
    for message in messages.iter().filter(|m| m.contains("An error occurred")).take(outside as usize) {
        let text = strip_ansi(message);
        let at = text.lines().find_map(|l| loaded.captures(l.trim()));
        // The error's class and message: the lines after the `Failure/Error:` quote, before the
        // backtrace.
        let body: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("An error occurred"))
            .filter(|l| !l.starts_with("Failure/Error:"))
            .collect();
        parsed.failed += 1;
        parsed.failures.push(Failure {
            test: at.as_ref().map(|c| relative(&c[1]).to_string()),
            path: at.as_ref().map(|c| relative(&c[1]).to_string()),
            line: at.as_ref().and_then(|c| c[2].parse().ok()),
            message: clip(&body.join(" "), 300),
        });
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RSpec 3.12 (Debian's ruby-rspec, Ruby 3.1) run here on fixtures/verify_rspec with
    /// `rspec --format json`, captured; the backtrace cut to two of RSpec's frames, the spec's
    /// and the last, and the folder shown as /repo.
    const RSPEC: &str = r#"
{"version":"3.12.0","examples":[{"id":"./spec/calc_spec.rb[1:1]","description":"adds two numbers","full_description":"Calc adds two numbers","status":"passed","file_path":"./spec/calc_spec.rb","line_number":4,"run_time":0.000186494,"pending_message":null},{"id":"./spec/calc_spec.rb[1:2]","description":"sums prices","full_description":"Calc sums prices","status":"failed","file_path":"./spec/calc_spec.rb","line_number":8,"run_time":0.006221807,"pending_message":null,"exception":{"class":"RSpec::Expectations::ExpectationNotMetError","message":"\nexpected: 3\n     got: 2\n\n(compared using ==)\n","backtrace":["/usr/share/rubygems-integration/all/gems/rspec-support-3.12.0/lib/rspec/support.rb:102:in `block in <module:Support>'","/usr/share/rubygems-integration/all/gems/rspec-support-3.12.0/lib/rspec/support.rb:111:in `notify_failure'","/repo/spec/calc_spec.rb:9:in `block (2 levels) in <top (required)>'","/usr/bin/rspec:4:in `<main>'"]}},{"id":"./spec/calc_spec.rb[1:3]","description":"rounds later","full_description":"Calc rounds later","status":"pending","file_path":"./spec/calc_spec.rb","line_number":12,"run_time":5.3443e-05,"pending_message":"later"}],"summary":{"duration":0.006920595,"example_count":3,"failure_count":1,"pending_count":1,"errors_outside_of_examples_count":0},"summary_line":"3 examples, 1 failure, 1 pending"}"#;

    #[test]
    fn rspec_json_places_a_failure_at_its_expectation() {
        let parsed = RspecJson.read(RSPEC);
        assert!(parsed.recognised);
        assert_eq!((parsed.passed, parsed.failed, parsed.skipped), (1, 1, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("Calc sums prices".into()),
                path: Some("spec/calc_spec.rb".into()),
                line: Some(9),
                message: "expected: 3\ngot: 2\n(compared using ==)".into(),
            }]
        );
        // Cut short: no report, nothing read, never a panic.
        for cut in [1, RSPEC.len() / 2, RSPEC.len() - 3] {
            assert_eq!(RspecJson.read(&RSPEC[..cut]), Parsed::default(), "{cut}");
        }
        assert!(!RspecJson.read("{\"examples\": [{\"status\": 3}").recognised);
    }

    #[test]
    fn rspec_json_reads_a_spec_file_that_did_not_load() {
        // The same run with the spec requiring a file that is not there, captured.
        let broken = r#"{"version":"3.12.0","messages":["\nAn error occurred while loading ./spec/calc_spec.rb.\nFailure/Error: require_relative \"../lib/calcx\"\n\nLoadError:\n  cannot load such file -- /repo/lib/calcx\n# ./spec/calc_spec.rb:1:in `require_relative'\n# ./spec/calc_spec.rb:1:in `<top (required)>'\n","No examples found."],"examples":[],"summary":{"duration":2.0203e-05,"example_count":0,"failure_count":0,"pending_count":0,"errors_outside_of_examples_count":1},"summary_line":"0 examples, 0 failures, 1 error occurred outside of examples"}"#;
        let parsed = RspecJson.read(broken);
        assert_eq!((parsed.passed, parsed.failed), (0, 1));
        assert_eq!(
            parsed.failures,
            [Failure {
                test: Some("spec/calc_spec.rb".into()),
                path: Some("spec/calc_spec.rb".into()),
                line: Some(1),
                message: "LoadError: cannot load such file -- /repo/lib/calcx".into(),
            }]
        );
    }
}
