//! Optional redaction of secrets in results (`[output] redact_secrets = true`, or
//! `tack serve --redact-secrets`). Every result's text (and structured data) is scanned before
//! it leaves tack: credentials of well-known shapes, private key blocks, quoted values assigned
//! to secret-sounding names, and the values of the credential-like variables in tack's own
//! environment become `[redacted: KIND]`. Off by default: code that holds such a shape then
//! reads differently from the file, and an edit must not quote the marker.

use regex::Regex;
use serde_json::Value;

/// Shapes of well-known credentials, each with the kind its marker names.
const SHAPES: &[(&str, &str)] = &[
    (
        "private-key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
    ),
    ("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("stripe-key", r"\b(?:sk|rk)_live_[0-9A-Za-z]{24,}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
];

/// A quoted literal of 8 or more characters assigned to a secret-sounding name: only the value
/// is replaced, so the line still says what it sets.
const ASSIGNED: &str = r#"(?i)\b((?:[a-z0-9_]*_)?(?:password|passwd|secret|api_?key|access_?key|auth_?token|token)["']?\s*[:=]\s*)(["'])([^"'\s]{8,})(["'])"#;

/// The redactor of one server.
#[derive(Debug)]
pub struct Redactor {
    shapes: Vec<(&'static str, Regex)>,
    assigned: Regex,
    /// Values of tack's own credential-like environment variables, longest first.
    values: Vec<String>,
}

impl Redactor {
    /// Builds the rules, with the values of the credential-like variables in `env`.
    pub fn new(env: impl Iterator<Item = (String, String)>) -> Self {
        let shapes = SHAPES
            .iter()
            .map(|(kind, pattern)| (*kind, Regex::new(pattern).expect("a valid pattern")))
            .collect();
        let mut values: Vec<String> = env
            // A name, a path or a socket (GIT_AUTHOR_NAME, XAUTHORITY, SSH_AUTH_SOCK) is no secret.
            .filter(|(name, value)| {
                is_credential_name(name)
                    && value.len() >= 12
                    && !value.contains(|c: char| c.is_whitespace() || c == '/')
            })
            .map(|(_, value)| value)
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Self { shapes, assigned: Regex::new(ASSIGNED).expect("a valid pattern"), values }
    }

    /// `text` with every secret replaced by its marker.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), "[redacted: environment]");
            }
        }
        for (kind, re) in &self.shapes {
            if re.is_match(&out) {
                out = re.replace_all(&out, format!("[redacted: {kind}]")).into_owned();
            }
        }
        if self.assigned.is_match(&out) {
            out = self.assigned.replace_all(&out, "${1}${2}[redacted: secret]${4}").into_owned();
        }
        out
    }

    /// Every string in `value`, redacted in place.
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }
}

/// Parts of a variable name that mark a credential (matched case-insensitively), as in Codex's
/// shell environment policy and a little wider.
const CREDENTIAL_MARKS: &[&str] =
    &["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE"];

/// Short marks that count only as a whole part of a name (`MYSQL_PWD`, `SENTRY_DSN`,
/// `CI_JOB_JWT`, `GH_PAT`), since inside a word they are something else (`PATH`, `OLDPWD`).
const CREDENTIAL_PARTS: &[&str] = &["PWD", "PASS", "DSN", "JWT", "PAT"];

/// Names with a credential part that are the shell's own.
const SHELL_NAMES: &[&str] = &["PWD"];

/// Whether an environment variable's name looks like it holds a credential.
pub(crate) fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_MARKS.iter().any(|mark| upper.contains(mark))
        || (!SHELL_NAMES.contains(&upper.as_str())
            && upper.split(['_', '-', '.']).any(|part| CREDENTIAL_PARTS.contains(&part)))
}

/// Whether an environment variable's value carries a credential whatever its name: a URL with
/// a password in it (`postgres://user:secret@host/db`).
pub(crate) fn is_credential_value(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else { return false };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    scheme_ok
        && authority.rsplit_once('@').is_some_and(|(userinfo, _)| {
            userinfo.split_once(':').is_some_and(|(_, password)| !password.is_empty())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::new([("DEPLOY_TOKEN".to_string(), "plain-but-long-value".to_string())].into_iter())
    }

    #[test]
    fn each_shape_is_redacted_and_the_rest_of_the_text_kept() {
        let r = redactor();
        let cases = [
            ("aws AKIAIOSFODNN7EXAMPLE here", "aws [redacted: aws-access-key] here"),
            ("gh ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.", "gh [redacted: github-token]."),
            ("key=sk-proj-abcdefghijklmnopqrstuvwx", "key=[redacted: openai-key]"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "[redacted: anthropic-key]"),
            ("xoxb-1234567890-abcdef", "[redacted: slack-token]"),
            ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[redacted: google-api-key]"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "[redacted: jwt]",
            ),
            (
                "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nb",
                "a\n[redacted: private-key]\nb",
            ),
            ("PASSWORD = \"hunter2hunter2\"", "PASSWORD = \"[redacted: secret]\""),
            ("db_password: 'correct-horse'", "db_password: '[redacted: secret]'"),
            ("echo plain-but-long-value", "echo [redacted: environment]"),
        ];
        for (input, want) in cases {
            assert_eq!(r.text(input), want, "{input}");
        }
    }

    #[test]
    fn code_that_only_looks_like_a_secret_is_left_alone() {
        let r = redactor();
        for text in [
            "token = get_token()",
            "password = request.form['password']",
            "def api_key(self):",
            "sk-short",
            "let secret = \"short\";",
            "AKIA is a prefix",
        ] {
            assert_eq!(r.text(text), text);
        }
        let mut data = serde_json::json!({"lines": ["AKIAIOSFODNN7EXAMPLE", 3], "ok": true});
        r.value(&mut data);
        assert_eq!(data, serde_json::json!({"lines": ["[redacted: aws-access-key]", 3], "ok": true}));
    }
}
