//! tasty's report inside `cabal test` or `stack test`: narrowed with `-p` to the tests whose
//! path holds a name, and read as Hspec's runner reads (its reader knows both frameworks). A
//! Haskell project's checks name it when its test suites use tasty, as nothing in the command
//! tells the two apart.

use super::hspec::{haskell_suites, test_arguments};
use super::{Invocation, Parsed, Runner, Scope, Words};

pub(super) struct Tasty;

impl Runner for Tasty {
    fn name(&self) -> &'static str {
        "tasty"
    }

    /// Only by name: `cabal test` is Hspec's unless the project's checks say otherwise.
    fn recognises(&self, _command: &Words<'_>) -> bool {
        false
    }

    /// `-p TEXT` runs the tests whose path (`Group.sub group.test`) holds TEXT; tasty's groups
    /// are the suite's own choice, so a file cannot narrow it.
    fn narrow(&self, check: &Invocation<'_>, scope: &Scope<'_>) -> Result<String, String> {
        if scope.is_path {
            return Err(format!(
                "skipped: {} selects tasty's tests by name, which a path does not give; give a test's name",
                check.name
            ));
        }
        test_arguments(check, &["-p", scope.text])
    }

    fn read(&self, output: &str) -> Parsed {
        haskell_suites(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasty_narrows_by_name_only() {
        let cabal = Invocation { name: "cabal test", command: "cabal test --test-show-details=direct" };
        let name = Scope { text: "total sums prices", is_path: false };
        assert_eq!(
            Tasty.narrow(&cabal, &name).unwrap(),
            "cabal test --test-show-details=direct --test-option=-p '--test-option=total sums prices'"
        );
        assert!(Tasty.narrow(&cabal, &Scope { text: "test/CartTest.hs", is_path: true }).is_err());
        assert_eq!(Tasty.read("All 3 tests passed (0.00s)\n").passed, 3);
    }
}
