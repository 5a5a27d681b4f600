//! Java: classes, interfaces, enums, records and annotation types (nested ones qualified by the
//! types around them), methods and constructors, enum constants and `static final` fields.
//! Packages come from `package` declarations; imports name a package's types, a type's nested
//! types and (with `static`) its members.

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, doc_blocks_of_children, node_text,
};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefRef, FileSymbols};

pub(crate) struct Java;

/// Words that may stand before a method's result type in its signature.
const MODIFIERS: &[&str] = &[
    "public",
    "protected",
    "private",
    "static",
    "final",
    "abstract",
    "synchronized",
    "native",
    "strictfp",
    "default",
    "transient",
    "volatile",
    "sealed",
    "non-sealed",
];

/// Types that are no class.
const PRIMITIVES: &[&str] =
    &["boolean", "byte", "char", "short", "int", "long", "float", "double", "void", "var"];

static SPEC: LangSpec = LangSpec {
    lang: Lang::Java,
    name: "java",
    extensions: &["java"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_java::LANGUAGE.into(),
    comments: Comments::SLASHES,
    // Java reads its qualifiers itself (`qualifier_text`).
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_non_bindings: &["scoped_identifier"],
        pattern_skipped_fields: &["type", "condition", "value", "arguments", "body"],
        comments: &["block_comment", "line_comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/java/tags.scm"),
    names: include_str!("../../../queries/java/names.scm"),
    test_file_suffixes: &["Test.java", "Tests.java", "IT.java"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    noise: &["_"],
    std_methods: &[
        "add",
        "addAll",
        "append",
        "charAt",
        "clear",
        "close",
        "collect",
        "compareTo",
        "contains",
        "containsKey",
        "equals",
        "filter",
        "forEach",
        "get",
        "getClass",
        "hasNext",
        "hashCode",
        "indexOf",
        "isEmpty",
        "iterator",
        "keySet",
        "length",
        "map",
        "next",
        "put",
        "read",
        "remove",
        "size",
        "stream",
        "substring",
        "toString",
        "values",
        "write",
    ],
    keywords: &[
        "abstract",
        "assert",
        "boolean",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "false",
        "final",
        "finally",
        "float",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "int",
        "interface",
        "long",
        "native",
        "new",
        "null",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "static",
        "strictfp",
        "switch",
        "synchronized",
        "throw",
        "throws",
        "transient",
        "true",
        "try",
        "void",
        "volatile",
        "while",
    ],
    preamble: &["@", "/**", "*", "//"],
    rules: Rules {
        attribute_names_members: false,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: true,
        // A type's members are visible in its methods and nested types.
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "java",
    checks: jvm_checks,
    runners: &["junit"],
};

impl Language for Java {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().split_whitespace().take_while(|w| !w.contains('(')).any(|w| w == "private")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "toString" | "equals" | "hashCode" | "compareTo" | "clone" | "finalize")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "annotation_type_declaration" => ScopeKind::Class,
            "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
                ScopeKind::Function
            }
            "lambda_expression" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: crate::symbols::DefKind) -> crate::symbols::DefKind {
        kind
    }

    /// A declaration's annotations (in its `modifiers`) stand on the lines above it: its own
    /// line starts with the first modifier keyword, or what follows the modifiers.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        let Some(modifiers) = def.children(&mut cursor).find(|c| c.kind() == "modifiers") else { return def };
        let is_note = |n: &Node| {
            matches!(n.kind(), "annotation" | "marker_annotation" | "line_comment" | "block_comment")
        };
        let mut inner = modifiers.walk();
        if let Some(first) = modifiers.children(&mut inner).find(|c| !is_note(c)) {
            return first;
        }
        modifiers.next_sibling().unwrap_or(def)
    }

    /// A field's signature ends before its value, an enum constant's before its arguments.
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(body) = def.child_by_field_name("body") {
            return Some(body.start_byte());
        }
        match def.kind() {
            "field_declaration" => {
                let value = def.child_by_field_name("declarator")?.child_by_field_name("value")?;
                Some(value.start_byte())
            }
            "enum_constant" => def.child_by_field_name("arguments").map(|a| a.start_byte()),
            _ => None,
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches([';', '=']).trim_end()
    }

    /// The first line of the Javadoc comment right above the declaration (its annotations are
    /// part of it).
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            doc_blocks_of_children(Lang::Java, holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// Type arguments, arrays, annotations and wildcards dropped: `List<Item>` → `List`,
    /// `@NonNull Cart[]` → `Cart`, `java.util.Map` stays; a primitive or `var` is no class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let mut text = text.trim();
        while let Some(rest) = text.strip_prefix('@') {
            let end = rest.find(char::is_whitespace)?;
            text = rest[end..].trim_start();
        }
        let text = text.strip_prefix("? extends ").or_else(|| text.strip_prefix("? super ")).unwrap_or(text);
        let base = text.split(['<', '[']).next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && !PRIMITIVES.contains(&base)
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            });
        ok.then(|| base.to_string())
    }

    /// A name in an import or a package declaration is qualified by the path before it.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        if parent.kind() != "scoped_identifier" || parent.child_by_field_name("name") != Some(node) {
            return None;
        }
        Some(node_text(parent.child_by_field_name("scope")?, bytes).to_string())
    }

    /// `a.b()`, `a.b`, `new C()`, `Outer.Inner`, `this`, `super`: a chain the resolver follows;
    /// anything else (a cast, an array element) is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// `package a.b;` is a glob import of its own package (marked `alias`), `import a.b.C;`
    /// binds `C`, `import a.b.*;` and `import static a.b.C.*;` are globs, `import static
    /// a.b.C.m;` binds `m`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
        let Some(path) =
            children.iter().copied().find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"))
        else {
            return;
        };
        let full = node_text(path, bytes);
        if node.kind() == "package_declaration" {
            out.push(RawImport {
                module: full.to_string(),
                item: None,
                bound: None,
                alias: true,
                glob: true,
                cfg: None,
                at: path,
            });
            return;
        }
        if children.iter().any(|c| c.kind() == "asterisk") {
            out.push(RawImport::glob(full.to_string(), path));
            return;
        }
        let (module, name) = match path.kind() {
            "scoped_identifier" => {
                match (path.child_by_field_name("scope"), path.child_by_field_name("name")) {
                    (Some(scope), Some(name)) => (node_text(scope, bytes), name),
                    _ => return,
                }
            }
            _ => ("", path),
        };
        let item = node_text(name, bytes).to_string();
        out.push(RawImport {
            module: module.to_string(),
            item: Some(item.clone()),
            bound: Some(item),
            alias: false,
            glob: false,
            cfg: None,
            at: name,
        });
    }

    /// Every member is bound by name in its type's body (methods are called bare inside it),
    /// but a constructor: its name is its class's.
    fn bound_by_name(&self, symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != crate::symbols::DefKind::Method
            || def.parent().is_none_or(|p| symbols.defs.at(p as usize).name() != def.name())
    }

    /// A type's members and fields are visible everywhere in its body; a local after its
    /// declaration.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    /// The type before the method's name: `public static List<Item> of(…)` → `List<Item>`; a
    /// constructor has none.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let head = signature[..signature.find('(')?].trim_end();
        let name_start = head.rfind(|c: char| c.is_whitespace() || c == '>')? + 1;
        let before = head[..name_start].trim_end();
        let start = type_start(before)?;
        let ty = before[start..].trim();
        (!ty.is_empty() && !MODIFIERS.contains(&ty) && !ty.starts_with('@')).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(super::declared_packages::Packages::new(files, Lang::Java, ("this", "super"), "."))
    }
}

/// Where the type that `text` ends with starts: its generic arguments, array brackets and
/// qualifying path included.
fn type_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = bytes.len();
    let mut depth = 0usize;
    while i > 0 {
        let c = bytes[i - 1];
        match c {
            b'>' | b']' => depth += 1,
            b'<' | b'[' => depth = depth.checked_sub(1)?,
            c if depth == 0 && (c.is_ascii_whitespace() || c == b')') => break,
            _ => {}
        }
        i -= 1;
    }
    Some(i)
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "identifier" | "type_identifier" | "this" | "super" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "scoped_identifier" | "scoped_type_identifier" | "generic_type" => {
            match Java.type_hint(node_text(node, bytes)) {
                Some(path) => {
                    out.push_str(&path);
                    true
                }
                None => false,
            }
        }
        "field_access" => {
            let (Some(object), Some(field)) =
                (node.child_by_field_name("object"), node.child_by_field_name("field"))
            else {
                return false;
            };
            if !chain(object, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(field, bytes));
            true
        }
        "method_invocation" => {
            let Some(name) = node.child_by_field_name("name") else { return false };
            if let Some(object) = node.child_by_field_name("object") {
                if !chain(object, bytes, out) {
                    return false;
                }
                out.push('.');
            }
            out.push_str(node_text(name, bytes));
            out.push_str("()");
            true
        }
        "object_creation_expression" => {
            let Some(ty) = node.child_by_field_name("type") else { return false };
            match Java.type_hint(node_text(ty, bytes)) {
                Some(path) => {
                    out.push_str(&path);
                    out.push_str("()");
                    true
                }
                None => false,
            }
        }
        "parenthesized_expression" => {
            let mut cursor = node.walk();
            let inner = node.named_children(&mut cursor).next();
            inner.is_some_and(|inner| chain(inner, bytes, out))
        }
        _ => false,
    }
}

/// A Maven or a Gradle project (Maven's when a folder has both).
fn jvm_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    let maven = maven_checks(dir);
    if maven.is_empty() { gradle_checks(dir) } else { maven }
}

/// A `build.gradle(.kts)`: the wrapper's `test` task (`gradle` when there is no wrapper), then
/// the JUnit reports of the project and its subprojects printed after its own lines (those of
/// an earlier run removed first), with Gradle's user home writable.
fn gradle_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if !dir.join("build.gradle").is_file() && !dir.join("build.gradle.kts").is_file() {
        return Vec::new();
    }
    let gradle = if dir.join("gradlew").is_file() { "./gradlew" } else { "gradle" };
    let home = std::env::var_os("GRADLE_USER_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".gradle")));
    vec![super::ProjectCheck {
        name: "gradle test".into(),
        command: format!(
            "rm -rf build/test-results */build/test-results; {gradle} test --console=plain --no-daemon -q; \
             status=$?; cat build/test-results/test/*.xml */build/test-results/test/*.xml 2>/dev/null; exit $status"
        ),
        format: "junit",
        caches: home.into_iter().collect(),
    }]
}

/// A `pom.xml`: `mvn -q -B test`, then Surefire's JUnit reports printed after its own lines
/// (those of an earlier run removed first), with the user's Maven repository writable.
fn maven_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if !dir.join("pom.xml").is_file() {
        return Vec::new();
    }
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let caches = home.map(|h| h.join(".m2/repository")).into_iter().collect();
    vec![super::ProjectCheck {
        name: "mvn test".into(),
        command: "rm -rf target/surefire-reports; mvn -q -B test; status=$?; \
                  cat target/surefire-reports/TEST-*.xml 2>/dev/null; exit $status"
            .into(),
        format: "junit",
        caches,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_types_come_from_before_the_name() {
        assert_eq!(Java.return_type("public static List<Item> of(String owner)"), Some("List<Item>"));
        assert_eq!(Java.return_type("Cart withItem(Item item)"), Some("Cart"));
        assert_eq!(Java.return_type("public <T> Map<String, T> index(T t)"), Some("Map<String, T>"));
        assert_eq!(Java.return_type("@Override public double total()"), Some("double"));
        assert_eq!(Java.return_type("public Cart(String owner)"), None);
        assert_eq!(Java.return_type("Cart(String owner)"), None);
        assert_eq!(Java.return_type("int[] counts()"), Some("int[]"));
    }

    #[test]
    fn type_hints_drop_generics_arrays_and_primitives() {
        assert_eq!(Java.type_hint("List<Item>").as_deref(), Some("List"));
        assert_eq!(Java.type_hint("shop.Cart[]").as_deref(), Some("shop.Cart"));
        assert_eq!(Java.type_hint("@NonNull Cart").as_deref(), Some("Cart"));
        assert_eq!(Java.type_hint("? extends Item").as_deref(), Some("Item"));
        assert_eq!(Java.type_hint("int"), None);
        assert_eq!(Java.type_hint("var"), None);
    }
}
