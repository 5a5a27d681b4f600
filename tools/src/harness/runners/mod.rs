//! Test runners and linters behind one seam. Each file here is one runner or output format: its
//! name, how a command's words show that it runs, how a `scope` narrows it, and its reader, which
//! turns the output into counts and failures. [`RUNNERS`] is the one ordered list that `verify`,
//! `tack.toml`'s `format =` and the languages' checks reach them through; [`Format`] is a handle
//! to one of them. Every reader is total: output it does not recognise yields what it could
//! read, never a panic.
//!
//! Adding a runner: a file here with a unit struct implementing [`Runner`], and one line in
//! [`RUNNERS`], placed before any runner whose words would also take its commands.

mod diagnostics;
mod eslint_json;
mod exunit;
mod go_test;
mod hspec;
mod jest_json;
mod junit;
mod libtest;
mod minitest;
mod nextest;
mod nunit;
mod plain;
mod pytest;
mod reading;
mod rspec_json;
mod swift_test;
mod tap;
mod tasty;
mod trx;
mod zig_test;

use schemars::JsonSchema;
use serde::Serialize;

/// Every runner, in the order a command is offered to them: the first whose words it has reads
/// its output, so a runner comes before another that would also take its commands (nextest's
/// `cargo nextest` before libtest's `cargo … test`, the test runners before the linters), and
/// plain, which takes every command, comes last.
pub(crate) static RUNNERS: &[&dyn Runner] = &[
    &pytest::Pytest,
    &nextest::Nextest,
    &libtest::Libtest,
    &tap::Tap,
    &go_test::GoTest,
    &junit::Junit,
    &trx::Trx,
    &nunit::Nunit,
    &rspec_json::RspecJson,
    &minitest::Minitest,
    &swift_test::SwiftTest,
    &exunit::Exunit,
    &zig_test::ZigTest,
    &hspec::Hspec,
    &tasty::Tasty,
    &jest_json::JestJson,
    &eslint_json::EslintJson,
    &diagnostics::Diagnostics,
    &plain::Plain,
];

/// One runner or output format, as `verify` uses it.
///
/// A runner names no folders for the sandbox. What a check writes outside the root and the
/// scratch folder is its toolchain's, not its runner's: Go's build cache keeps `go test`'s
/// results, but `go build`, `go vet` and every `run` write it as well, and so it is with
/// cargo's registry, Maven's repository, Gradle's home and the package managers' caches. The
/// language that finds the project declares those with its checks (`ProjectCheck::caches`), and
/// `Workspace::toolchain_caches` gives them to every command. The runners keep what they write
/// of their own in the root (`.ruff_cache`, `node_modules/.vite`; pytest's cache is turned off)
/// or under `$TMPDIR` (Jest's), where every command may write, and read their configuration
/// from the project, never from the home a command does not see.
pub trait Runner: Sync {
    /// What `format =` in tack.toml and a language's checks call it, and a result's `format`.
    fn name(&self) -> &'static str;

    /// What its output counts: tests, or a linter's or compiler's diagnostics.
    fn reports(&self) -> Reports {
        Reports::Tests
    }

    /// Whether a command, by its words, runs this runner so that it writes what
    /// [`read`](Runner::read) reads.
    fn recognises(&self, command: &Words<'_>) -> bool;

    /// The check's command narrowed to `scope`, or why it cannot be (the check is then skipped).
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String>;

    /// Counts and failures read from the check's output.
    fn read(&self, output: &str) -> Parsed;

    /// The file under the check's folder that a reported path means, when the runner names
    /// files otherwise than by their path there (Go, by its package's import path); `is_file`
    /// says whether a path relative to that folder is a file.
    fn file_in_project(&self, _reported: &str, _is_file: &dyn Fn(&str) -> bool) -> Option<String> {
        None
    }
}

/// What a runner's output counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reports {
    /// Tests passed, failed and skipped.
    Tests,
    /// A linter's or compiler's diagnostics: each is a failure, and nothing passes.
    Diagnostics,
    /// Nothing: the output is shown, not read.
    Nothing,
}

/// How a check's output is read: a handle to one of [`RUNNERS`], which it dereferences to.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Runner);

impl Format {
    /// Output read as nothing but text: what a command no other runner recognises gets, and
    /// what a result says when its runner recognised nothing in the output.
    pub(crate) const PLAIN: Format = Format(&plain::Plain);

    /// The runner named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Self> {
        RUNNERS.iter().find(|r| r.name() == name).map(|r| Format(*r))
    }

    /// The format a command's output most likely has, from its words: the first runner in
    /// [`RUNNERS`] that recognises it.
    pub fn guess(command: &str) -> Self {
        let words = Words::of(command);
        RUNNERS.iter().find(|r| r.recognises(&words)).map_or(Format::PLAIN, |r| Format(*r))
    }
}

impl std::ops::Deref for Format {
    type Target = dyn Runner;

    fn deref(&self) -> &Self::Target {
        self.0
    }
}

/// Runners are told apart by their names, which are unique (a test holds them so).
impl PartialEq for Format {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.name())
    }
}

/// Every runner's name, in the order of [`RUNNERS`].
pub fn runner_names() -> Vec<&'static str> {
    RUNNERS.iter().map(|r| r.name()).collect()
}

/// A command's text and its words, as a runner recognises itself in them.
pub(crate) struct Words<'a> {
    text: &'a str,
    words: Vec<&'a str>,
}

impl<'a> Words<'a> {
    pub(crate) fn of(command: &'a str) -> Self {
        Words { text: command, words: command.split_whitespace().collect() }
    }

    /// Whether one of the words is `word`, or a path to it (`.venv/bin/pytest`).
    pub(crate) fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| *w == word || w.strip_suffix(word).is_some_and(|dir| dir.ends_with('/')))
    }

    /// Whether the command's text holds `fragment` anywhere (`-m pytest`, `--reporter tap`).
    pub(crate) fn contains(&self, fragment: &str) -> bool {
        self.text.contains(fragment)
    }
}

/// A check as a runner narrows it: its name, for the reason it gives when it cannot, and its
/// command.
pub(crate) struct Invocation<'a> {
    pub name: &'a str,
    pub command: &'a str,
}

/// What a check is narrowed to: a path (relative to the check's folder) or a test name.
pub(crate) struct Scope<'a> {
    pub text: &'a str,
    pub is_path: bool,
}

impl Scope<'_> {
    /// The scope as one word for `sh -c`.
    pub(crate) fn quoted(&self) -> String {
        shell_quote(self.text)
    }
}

/// A word for `sh -c`: single-quoted unless it is plainly safe.
pub(crate) fn shell_quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@".contains(c)) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// One failing test or diagnostic.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Failure {
    /// The test's name (pytest node id, libtest path) or the diagnostic's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The file, relative to the root, where it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The 1-based line in that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The assertion message or diagnostic text.
    pub message: String,
}

/// What a reader read from one check's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub failures: Vec<Failure>,
    /// Whether the reader recognised the output at all (a summary line or a diagnostic).
    pub recognised: bool,
}

/// A runner's reading of `output` as the tests below show it: the counts, then a line per
/// failure.
#[cfg(test)]
fn check(runner: &dyn Runner, output: &str, expect: expect_test::Expect) {
    let parsed = runner.read(output);
    let mut text = format!(
        "passed={} failed={} skipped={} recognised={}\n",
        parsed.passed, parsed.failed, parsed.skipped, parsed.recognised
    );
    for f in &parsed.failures {
        text.push_str(&format!(
            "{} @ {}:{} | {}\n",
            f.test.as_deref().unwrap_or("-"),
            f.path.as_deref().unwrap_or("-"),
            f.line.map(|l| l.to_string()).unwrap_or("-".into()),
            f.message.replace('\n', " / ")
        ));
    }
    expect.assert_eq(&text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_by_name() {
        let names = runner_names();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for name in names {
            assert_eq!(Format::from_name(name).map(|f| f.name()), Some(name));
        }
        assert_eq!(Format::from_name("pytets"), None);
    }

    #[test]
    fn unknown_output_is_read_as_nothing() {
        for runner in RUNNERS {
            let parsed = runner.read("Segmentation fault\n\u{0}\u{ff}é:::\n____ x ____\nE lone\n");
            assert_eq!(parsed.passed, 0, "{}", runner.name());
        }
    }

    #[test]
    fn formats_are_guessed_from_commands() {
        let cases = [
            ("pytest -q", "pytest"),
            (".venv/bin/python -m pytest tests", "pytest"),
            ("cargo test --workspace", "cargo-test"),
            ("cargo nextest run", "nextest"),
            ("ruff check .", "diagnostics"),
            ("cargo clippy -- -D warnings", "diagnostics"),
            ("make check", "plain"),
            ("npm test --silent -- --test-reporter=tap", "tap"),
            ("npx mocha --reporter tap", "tap"),
            ("go test -json ./...", "go-test"),
            ("go vet ./...", "plain"),
            ("mvn -q -B test; cat target/surefire-reports/TEST-*.xml", "junit"),
            ("ctest --test-dir build --output-junit junit.xml", "junit"),
            ("npx vitest --run --reporter=json", "jest-json"),
            ("node_modules/.bin/eslint --format json .", "eslint-json"),
            ("dir=$(mktemp -d); dotnet test --logger trx --results-directory \"$dir\"", "trx"),
            ("nunit-console -nologo -xml=r.xml Calc.dll; cat r.xml", "nunit"),
            ("nunit3-console Calc.dll", "nunit"),
            ("bundle exec rspec --format json", "rspec-json"),
            ("cabal test --test-show-details=direct", "hspec"),
            ("stack test", "hspec"),
            ("rake test", "minitest"),
            ("ruby -Ilib -Itest test/calc_test.rb", "minitest"),
            ("report=$(mktemp); vendor/bin/phpunit --log-junit \"$report\"", "junit"),
            ("swift test", "swift-test"),
            ("bats --tap test", "tap"),
            ("rspec", "plain"),
            ("", "plain"),
        ];
        for (command, name) in cases {
            assert_eq!(Format::guess(command).name(), name, "{command}");
        }
        // A word ending in a runner's name is not that runner.
        assert_eq!(Format::guess("mypytest -q").name(), "plain");
    }

    #[test]
    fn only_the_last_runner_takes_every_command() {
        let (last, rest) = RUNNERS.split_last().unwrap();
        assert_eq!(Format(*last), Format::PLAIN);
        for command in ["", "make check", "./run-tests.sh"] {
            assert!(last.recognises(&Words::of(command)), "{command:?}");
            assert!(rest.iter().all(|r| !r.recognises(&Words::of(command))), "{command:?}");
        }
    }
}
