//! Output read as nothing but text: what a command no other runner recognises gets. It cannot be
//! narrowed (a configured check narrows through its `{scope}` placeholder instead).

use super::{Invocation, Parsed, Reports, Runner, Scope, Words};

pub(super) struct Plain;

impl Runner for Plain {
    fn name(&self) -> &'static str {
        "plain"
    }

    fn reports(&self) -> Reports {
        Reports::Nothing
    }

    /// Every command: plain is last in the list, what is left when no other runner knows it.
    fn recognises(&self, _command: &Words<'_>) -> bool {
        true
    }

    fn narrow(&self, check: &Invocation<'_>, _scope: &Scope<'_>) -> Result<String, String> {
        Err(format!(
            "skipped: {} has no {{scope}} placeholder in [verify], so it cannot be narrowed",
            check.name
        ))
    }

    fn read(&self, _output: &str) -> Parsed {
        Parsed::default()
    }
}
