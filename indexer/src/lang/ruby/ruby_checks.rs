//! Which checks a Ruby project declares: RSpec with its JSON report, and Minitest through Rake's
//! test task or by loading the test files.

use std::path::Path;

use super::super::ProjectCheck;

/// Whether `dir` holds a file whose name ends in `suffix`.
fn holds(dir: &Path, suffix: &str) -> bool {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(suffix))))
        .unwrap_or(false)
}

/// RSpec for a `.rspec` or `spec/*_spec.rb` (or a Gemfile that names rspec), read from its JSON
/// report; Minitest for a Rakefile with a `TestTask` (`rake test`) or `test/*_test.rb` (loaded
/// by one `ruby`). Through `bundle exec` when there is a Gemfile, as the project's gems are
/// then the ones to run.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let gemfile = super::super::small_text(dir, "Gemfile");
    let bundle = if dir.join("Gemfile").is_file() { "bundle exec " } else { "" };
    let check = |name: &str, command: String, format: &'static str| ProjectCheck {
        name: name.into(),
        command,
        format,
        caches: Vec::new(),
    };
    let mut out = Vec::new();
    if dir.join(".rspec").is_file() || holds(&dir.join("spec"), "_spec.rb") || gemfile.contains("rspec") {
        out.push(check("rspec", format!("{bundle}rspec --format json"), "rspec-json"));
    }
    if super::super::small_text(dir, "Rakefile").contains("TestTask") {
        out.push(check("rake test", format!("{bundle}rake test"), "minitest"));
    } else if holds(&dir.join("test"), "_test.rb") {
        out.push(check(
            "minitest",
            format!(
                "{bundle}ruby -Ilib -Itest -e 'Dir.glob(\"test/**/*_test.rb\").sort.each {{ |f| require File.expand_path(f) }}'"
            ),
            "minitest",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_declare_rspec_and_tests_minitest() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::create_dir_all(dir.path().join("spec")).unwrap();
        std::fs::write(dir.path().join("spec/calc_spec.rb"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("test")).unwrap();
        std::fs::write(dir.path().join("test/calc_test.rb"), "").unwrap();
        let found = checks(dir.path());
        let commands: Vec<(&str, &str)> = found.iter().map(|c| (c.command.as_str(), c.format)).collect();
        assert_eq!(
            commands,
            [
                ("rspec --format json", "rspec-json"),
                (
                    r#"ruby -Ilib -Itest -e 'Dir.glob("test/**/*_test.rb").sort.each { |f| require File.expand_path(f) }'"#,
                    "minitest"
                ),
            ]
        );
        // A Rakefile's test task and a Gemfile: through Rake and Bundler.
        std::fs::write(dir.path().join("Rakefile"), "require \"rake/testtask\"\nRake::TestTask.new\n")
            .unwrap();
        std::fs::write(dir.path().join("Gemfile"), "gem \"rspec\"\n").unwrap();
        let commands: Vec<String> = checks(dir.path()).into_iter().map(|c| c.command).collect();
        assert_eq!(commands, ["bundle exec rspec --format json", "bundle exec rake test"]);
    }
}
