//! The targets a `Package.swift` declares, read from its text: each target's name and folder
//! (`path:`, else `Sources/<name>`, or `Tests/<name>` for a test target). Only the calls that
//! declare targets are read (`.target(`, `.testTarget(`, …); a target named inside another
//! one's arguments is a dependency, not a declaration.

/// The calls that declare a target, and the folder a target's files sit in by default.
const TARGET_CALLS: &[(&str, &str)] = &[
    ("target", "Sources"),
    ("executableTarget", "Sources"),
    ("testTarget", "Tests"),
    ("macro", "Sources"),
    ("plugin", "Plugins"),
    ("systemLibrary", "Sources"),
];

/// Each target's name and folder (relative to the manifest's folder), in declaration order.
pub(super) fn declared_targets(text: &str) -> Vec<(String, String)> {
    let text = without_comments(text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(dot) = text[at..].find('.').map(|i| at + i) {
        let start = dot + 1;
        let len =
            text[start..].find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len() - start);
        let call = &text[start..start + len];
        let open = start + len;
        let Some(&(_, default)) = TARGET_CALLS.iter().find(|(name, _)| *name == call) else {
            at = open.max(start);
            continue;
        };
        if bytes.get(open) != Some(&b'(') {
            at = open;
            continue;
        }
        let Some(close) = closing(bytes, open) else { break };
        let args = top_level_args(&text[open + 1..close]);
        if let Some(name) = label(&args, "name") {
            let folder = label(&args, "path").unwrap_or_else(|| format!("{default}/{name}"));
            out.push((name, folder));
        }
        at = close + 1;
    }
    out
}

/// The text with `//` and `/* */` comments blanked out (strings kept).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' || c == '\n' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The index of the bracket that closes the one at `open`, strings skipped.
fn closing(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = open;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// A call's arguments, split at the commas outside brackets and strings.
fn top_level_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in args.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(args[start..].trim());
    out
}

/// The string literal an argument labelled `name` holds (`path: "Sources/Core"`).
fn label(args: &[&str], name: &str) -> Option<String> {
    args.iter().find_map(|arg| {
        let value = arg.strip_prefix(name)?.trim_start().strip_prefix(':')?.trim();
        let inner = value.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains('"') && !inner.contains('\\')).then(|| inner.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::declared_targets;

    #[test]
    fn targets_take_their_path_or_the_default_folder_and_dependencies_are_not_targets() {
        let manifest = r#"
// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "Shop",
    products: [.library(name: "Shop", targets: ["Cart"])],
    dependencies: [.package(path: "../Money")],
    targets: [
        // .target(name: "Commented", path: "Nowhere"),
        .target(
            name: "Cart",
            dependencies: [.target(name: "Pricing"), .product(name: "Money", package: "Money")],
            path: "Sources/CartCore"),
        .target(name: "Pricing"),
        .executableTarget(name: "shop-cli", dependencies: ["Cart"], path: "Tools/cli"),
        .testTarget(name: "CartTests", dependencies: ["Cart"]),
        /* .target(name: "Old") */
    ]
)
"#;
        let targets = declared_targets(manifest);
        let pairs: Vec<(&str, &str)> = targets.iter().map(|(n, f)| (n.as_str(), f.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("Cart", "Sources/CartCore"),
                ("Pricing", "Sources/Pricing"),
                ("shop-cli", "Tools/cli"),
                ("CartTests", "Tests/CartTests"),
            ]
        );
    }

    #[test]
    fn a_broken_manifest_gives_what_it_can_and_never_panics() {
        assert!(declared_targets(".target(name: \"Cart\", path: \"x").is_empty());
        assert!(declared_targets("").is_empty());
        assert!(declared_targets(".target(").is_empty());
        assert_eq!(declared_targets(".target(name: \"A\")) .target(name: \"B\")").len(), 2);
        for cut in 0..40 {
            let text = ".testTarget(name: \"é\\\"\", path: \"a\")";
            let end = text.char_indices().map(|(i, _)| i).rfind(|&i| i <= cut).unwrap_or(0);
            declared_targets(&text[..end]);
        }
    }
}
