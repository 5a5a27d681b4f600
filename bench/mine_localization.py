#!/usr/bin/env python3
"""Mine file-localization instances (bug-fix commits) from a git repository.

Each instance is a real fix commit: the query is its commit message as written, the gold is the set
of non-test source files the fix changed, and the tree to search is the fix's parent commit. The
rules were inferred from the development set (/work/shared/bench/data/instances.jsonl, 110
instances of ripgrep, fd, click and requests) and are applied unchanged to new languages. Check:
run on the four development repositories, all 110 development instances qualify, with identical
query, gold_files, changed_source_lines, leaky, base_commit and commit_date; gold_functions are
identical for 105 of 110 (the rest differ by one or two names).

Candidates: non-merge commits reachable from HEAD (the default branch, any parent), committed on or
after --since (2016-01-01, as in the development set), not authored by a bot.

Message (query): the raw commit message (``git cat-file commit``; carriage returns kept), with
trailer lines (Co-authored-by:, Signed-off-by:, ...) removed and surrounding whitespace stripped.

A candidate qualifies when
  * it changes 1..3 non-test source files (the gold files), each modified in place (a commit that
    adds, deletes or renames a non-test source file is dropped: the gold must exist in the parent
    tree); other changed files (tests, docs, lock files, configs) are allowed;
  * changed_source_lines (added + deleted lines over the gold files) is in [2, 200];
  * the message looks like a fix: FIX_RE matches anywhere in it (fix/fixes/fixed/fixing, bug,
    issue, regression, crash, panic, error, wrong, incorrect, broken, fail, leak, break, hang,
    restore), and the subject is not a typo / spelling / lint / format / revert / release commit,
    nor a conventional-commit docs / refactor / style / test / ci / build / chore(deps) commit
    (EXCLUDE_SUBJECT_RE), nor a "chore:" commit whose subject has no fix word;
  * the query has at least MIN_QUERY_CHARS (40) characters;
  * no gold file is a generated bundle (content check, below);
  * at least one gold function can be computed (see below; every development instance has one);
  * only with --require-code-change (off by default: the development set keeps one comment-only
    fix, psf/requests a310b5ab34): the change is not comments / whitespace only.
Qualifying commits are sorted by commit date and --max of them are kept, evenly spaced over the
list (index round(k*(N-1)/(max-1)), so the oldest and the newest are always in): deterministic,
no randomness. Output is sorted by commit date, like the development set.

Source / test / doc / generated files (classify()):
  * source = extension of the language (rust .rs; python .py; typescript .ts .tsx .mts .cts;
    javascript .js .jsx .mjs .cjs; go .go; java .java; csharp .cs; php .php; ruby .rb .rake .gemspec;
    kotlin .kt .kts; swift .swift; bash .sh .bash: the extensions tack indexes, so extension-less Bash
    scripts are not source; the second batch: scala .scala .sc; lua .lua; elixir .ex .exs; haskell
    .hs .lhs; zig .zig). rust and python keep exactly the development set's rules
    (scripts/common.py); the extra rules below apply to the new languages;
  * test / fixture / doc / example directories (any directory component): the development set's
    tests, test, testing, benches, bench, benchmarks, examples, example, fuzz, docs, doc, ci,
    scripts, tools, xtask, artwork, plus __tests__, __mocks__, __fixtures__, fixtures, fixture,
    testdata, e2e, spec, www, website, site, buildSrc, gradle, and a component named test(s)X /
    test-X / test_X / testbundle or ending in Test, Tests, -test(s), _test(s) (Gradle test projects
    such as inlineTest, osgi-test, testFixtures). For Go, doc/docs are NOT excluded (a Go "doc"
    directory is a package, e.g. cobra/doc);
  * test files: go *_test.go; java *Test.java, *Tests.java, *TestCase.java, *IT.java; js/ts
    *.test.*, *.spec.*, *.test-d.*, *.bench.*, *.fixture.*;
  * tooling (not gold): files under a hidden directory (.github/ ...), and for js/ts dot-files
    (.eslintrc.js, .wallaby.js), *.config.*, *.conf.*, *rc.*, gulpfile, Gruntfile,
    package-scripts, webpack.*, rollup.*;
  * generated / vendored (not gold): files under node_modules, vendor, third_party, dist, build,
    out, coverage; *.min.js; and (when the content is given) files whose first 1 KB says
    "@generated", "DO NOT EDIT", "Code generated", "auto-generated", or starts a browserify bundle,
    or whose first line is over 1000 characters (minified), e.g. mocha's old root mocha.js.
  * csharp / php / ruby / kotlin / swift / bash (_classify_new(); the rules above unchanged for the
    older languages): the folder names above compared case-insensitively (Swift's Tests/, Examples/,
    Benchmarks/; C#'s Samples/) plus samples, sample, benchmark, script, features (Cucumber), specs,
    testfixtures, playground, demo(s), build-logic; any folder with a word "test" in it
    (Serilog.Tests, okhttp-testing-support, ArgumentParserTestHelpers, jvmTest; not "latest"); test
    files *Test(s).cs / *Spec(s).cs / *Fixture.cs, *Test.php, *_test.rb / *_spec.rb / test_*.rb,
    *Test(s).kt / *IT.kt, *Test(s).swift, *_test.sh / test_*.sh; generated: bin/, obj/, packages/
    (C#), .build/, Pods/, Carthage/ (Swift), plus the content check; tooling (indexed, never gold):
    dot-files, *.gemspec, *.rake, *.gradle.kts, Package.swift, AssemblyInfo.cs, install.sh / setup.sh.
  * the second batch, scala / lua / elixir / haskell / zig (BATCH2_LANGS, the same _classify_new()
    path): the folder rules just above (src/test/, test/, tests/, spec/ ...) plus test files
    *Test(s).scala / *Spec(s).scala / *Suite.scala, *_spec.lua / *_test.lua (not test_*.lua: busted's
    modules/test_file_loader.lua is source), *_test.exs / test_helper.exs, *Spec.hs / *Test(s).hs,
    test_*.zig / *_test.zig (test_runner.zig); generated: target/ (sbt), lua_modules/, _build/ and
    deps/ (Mix), dist-newstyle/ and .stack-work/ (Cabal / Stack), zig-out/ and zig-cache/; tooling:
    Mill's build.sc, sbt's top-level project/, mix.exs and Mix's top-level config/, Setup.hs,
    build.zig.
Only "source" files can be gold; every file with the language's extension (tests included) is
indexed by the baselines (is_indexable()).

leaky / leak_reasons: the message names a changed function, i.e. the bare name of a gold function
is among the query's identifiers (query_identifiers(): backticked words, snake_case, CamelCase),
is followed by "(" or is preceded by ".", "::" or "#" ("function:<Qualified.name>"); or it names a
gold file by its base name with extension or by its path ("file:<path>"). This reproduces all 110
leak flags of the development set.

gold_functions: the functions/methods of the parent's version of each gold file whose lines the fix
changed, "path::Container::name" (rust) or "path::Container.name" (other languages), in diff order,
de-duplicated. From the -U0 diff: a function counts when it contains a deleted/replaced line, or,
for a pure insertion after parent line a, when it contains both line a and line a+1 (functions the
fix adds are not in the parent tree and do not count). Definitions come from a simple per-language
regex of definition headers, NOT a parser, run on a copy of the file whose comments and string
literals are blanked (and Ruby / Bash / PHP here-documents, C# / Swift preprocessor lines); a
definition's extent is found from indentation plus bracket depth (brace languages: also C#, PHP,
Kotlin, Swift), indentation (python), def/class/module ... `end` at the header's indentation (ruby)
or the braces of `f() {` / `function f {` (bash). Headers: C# class / struct / interface / record /
enum, methods, constructors, properties with a body; PHP class / interface / trait / enum and
`function`; Kotlin class / interface / object and `fun` (extension receivers dropped); Swift class /
struct / enum / protocol / extension / actor (an extension qualifies as its type), func, init,
subscript, deinit, computed `var x: T {`; Ruby class / module and `def` (`def self.x` gives x).
Second batch: Scala class / trait / object / enum and `def` (braces and indentation as for the brace
languages, so Scala 3's indentation syntax works too); Lua `function f`, `local function f`,
`function M.f` / `function M:f` (giving M.f) and, like JS's `X.name = function`, `[local] f =
function` / `M.f = function`, extent by keyword blocks (function / do / if / repeat ... end / until);
Elixir defmodule / defprotocol (`defmodule A.B` gives B, as Ruby's A::B) and def / defp / defmacro /
defmacrop, extent by do / fn ... end (or a `def f(x), do: ...` one-liner and its continuation
lines); Haskell top-level names only, a column-0 `name ::` signature or `name args =` equation (or
guards `| ...` on the next lines), extent up to the next column-0 line of another name (literate
.lhs files with bird tracks give none); Zig `fn name` and `const Name = struct / enum / union /
opaque`, where a function returning `type` (`fn Server(comptime H: type) type {`) counts as a
container (its methods are Server.listen, not one function Server). Comments and literals blanked:
Lua -- / --[[ ]] / [[ ]], Elixir # / heredocs / multi-line strings / sigils / ?c, Haskell -- / {- -}
/ 'c' (not primes), Zig multiline string lines, Scala triple quotes and 'c' (not 'symbols).
A changed line is credited to the outermost function containing
it (closures and local functions count for their enclosing function), qualified by the innermost
class / interface / enum / record / impl / trait / struct containing that function (Go: the
method's receiver type; JS: X.prototype.name = function gives X.name, exports.name = ... gives
name; TS interface members and type aliases are not functions). Changes outside any function
(imports, fields, type declarations, doc comments above a function) give no gold function. Expect a
few misses and spurious names where the regexes meet unusual syntax.

Usage (one process, a few seconds to half a minute per repository):
  python3 mine_localization.py --git-dir /work/.mirror/spf13+cobra/repo --repo spf13/cobra \
      --language go --max 30 --out localization/spf13+cobra.jsonl --summary /tmp/cobra.json
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

# ----------------------------------------------------------------------------- languages and files

EXT = {
    "rust": (".rs",),
    "python": (".py",),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
    "go": (".go",),
    "java": (".java",),
    # the six languages added with tack's C# / PHP / Ruby / Kotlin / Swift / Bash support: the extensions
    # tack indexes (indexer/src/lang/*/mod.rs); Bash files without an extension are not indexed
    "csharp": (".cs",),
    "php": (".php",),
    "ruby": (".rb", ".rake", ".gemspec"),
    "kotlin": (".kt", ".kts"),
    "swift": (".swift",),
    "bash": (".sh", ".bash"),
    # the second batch (Scala, Lua, Elixir, Haskell, Zig): the languages' usual source extensions
    # (.rockspec, .mill, build.zig.zon are not source)
    "scala": (".scala", ".sc"),
    "lua": (".lua",),
    "elixir": (".ex", ".exs"),
    "haskell": (".hs", ".lhs"),
    "zig": (".zig",),
}
BATCH2_LANGS = ("scala", "lua", "elixir", "haskell", "zig")
NEW_LANGS = ("csharp", "php", "ruby", "kotlin", "swift", "bash") + BATCH2_LANGS

# the development set's list (scripts/common.py) ...
_DEV_NONSOURCE_DIRS = {"tests", "test", "testing", "benches", "bench", "benchmarks", "examples",
                       "example", "fuzz", "docs", "doc", "ci", "scripts", "tools", "xtask", "artwork"}
# ... plus the usual test / fixture / doc-site / vendored / build-output folders of the new languages
_MORE_NONSOURCE_DIRS = {"__tests__", "__mocks__", "__fixtures__", "fixtures", "fixture", "testdata",
                        "e2e", "spec", "www", "website", "site", "node_modules", "vendor",
                        "third_party", "dist", "build", "out", "coverage", "buildSrc", "gradle"}
_GENERATED_DIRS = {"node_modules", "vendor", "third_party", "dist", "build", "out", "coverage"}
_TEST_DIR_RE = re.compile(r"^tests?([A-Z_-].*)?$|^testbundle$|(Test|Tests|-test|-tests|_test|_tests)$")
_GENERATED_HEAD_RE = re.compile(
    r"@generated|DO NOT EDIT|Code generated|auto-?generated|autogenerated|"
    r"\(function e\(t,n,r\)\{function s\(o,u\)|function r\(e,n,t\)\{function o\(i,f\)", re.I)
# the six newer languages: the directory names above compared case-insensitively (Swift's Tests/,
# Sources/../Examples/, C#'s Samples/), plus these; a component with a word "test" in it (Serilog.Tests,
# okhttp-testing-support, ArgumentParserTestHelpers, jvmTest; not "latest"/"attestation"); the build
# output of .NET (bin/, obj/, packages/) and Swift's .build/, Pods/, Carthage/ are generated
_NEW_NONSOURCE_DIRS = {"samples", "sample", "benchmark", "script", "features", "specs", "testfixtures",
                       "playground", "demo", "demos", "build-logic"}
_NEW_TEST_DIR_RE = re.compile(r"(^|[^a-z])[tT]est|Test")
_NEW_GENERATED_DIRS = {"csharp": {"bin", "obj", "packages"}, "swift": {".build", "pods", "carthage"},
                       # second batch: sbt / Bloop output, LuaRocks trees, Mix's _build / deps, Cabal /
                       # Stack output, Zig's cache and install prefix
                       "scala": {"target"}, "lua": {"lua_modules"}, "elixir": {"_build", "deps"},
                       "haskell": {"dist-newstyle", ".stack-work"},
                       "zig": {"zig-out", "zig-cache", ".zig-cache"}}
_NEW_TEST_FILE_RE = {
    "csharp": re.compile(r"(Test|Tests|TestCase|Spec|Specs|Fixture)\.cs$"),
    "php": re.compile(r"(Test|TestCase)\.php$"),
    "ruby": re.compile(r"(^test_.*|_test|_spec|^spec_helper|^test_helper)\.rb$"),
    "kotlin": re.compile(r"(Test|Tests|TestCase|IT)\.kts?$"),
    "swift": re.compile(r"(Test|Tests|TestCase|Spec)\.swift$"),
    "bash": re.compile(r"([-_.]test|[-_.]spec|^test[-_.].*)\.(sh|bash)$"),
    "scala": re.compile(r"(Test|Tests|Spec|Specs|Suite)\.(scala|sc)$"),
    "lua": re.compile(r"(_spec|_test)\.lua$"),  # not test_*.lua: busted/modules/test_file_loader.lua is source
    "elixir": re.compile(r"_test\.exs$|^test_helper\.exs$"),
    "haskell": re.compile(r"(Spec|Test|Tests)\.l?hs$"),
    "zig": re.compile(r"(^test_.*|_test)\.zig$"),  # test_runner.zig
}
# build scripts and manifests: indexed, never gold
_NEW_TOOLING_RE = {
    "ruby": re.compile(r"\.(gemspec|rake)$"),
    "kotlin": re.compile(r"\.gradle\.kts$|\.main\.kts$"),
    "swift": re.compile(r"^Package(@swift-[\d.]+)?\.swift$"),
    "csharp": re.compile(r"^AssemblyInfo\.cs$"),
    "php": re.compile(r"^(\.php[-_]cs[-_]fixer.*|rector|ecs)\.php$"),
    "bash": re.compile(r"^(install|uninstall|setup|bootstrap)\.(sh|bash)$"),
    "scala": re.compile(r"^build\.sc$"),  # Mill's build file
    "elixir": re.compile(r"^mix\.exs$"),
    "haskell": re.compile(r"^Setup\.l?hs$"),
    "zig": re.compile(r"^build\.zig$"),
}
# second batch: a top-level folder of build definitions / configuration scripts (sbt's project/*.scala,
# Mix's config/*.exs): tooling
_NEW_TOOLING_TOP_DIR = {"scala": "project", "elixir": "config"}
_TOOLING_RE = re.compile(r"(^\.|[.-](config|conf|rc)\.(m|c)?[jt]sx?$|^(gulpfile|gruntfile|package-scripts"
                         r"|webpack\.[\w.]+|rollup\.[\w.]+)\.(m|c)?[jt]s$)", re.I)


def is_source(path: str, lang: str) -> bool:
    return path.endswith(EXT[lang])


def is_indexable(path: str, lang: str) -> bool:
    """Files a localizer ranks: source files of the repo's language, tests included."""
    return is_source(path, lang)


def _test_file(base: str, lang: str) -> bool:
    if lang == "python":
        return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"
    if lang == "rust":
        return base in ("tests.rs", "test.rs") or base.endswith("_test.rs") or base.endswith("_tests.rs")
    if lang == "go":
        return base.endswith("_test.go")
    if lang == "java":
        return re.search(r"(Test|Tests|TestCase|IT)\.java$", base) is not None
    return re.search(r"\.(test|spec|test-d|bench|fixture)\.[cm]?[jt]sx?$", base) is not None


def classify(path: str, lang: str, head: bytes | None = None) -> str:
    """'source' | 'test' (tests, fixtures, docs, examples: non-product code) | 'tooling' | 'generated'
    | 'other' (not the language). `head` (first bytes of the file), when given, enables the
    content checks for generated files. rust / python: the development set's rule only."""
    if not is_source(path, lang):
        return "other"
    parts = path.split("/")
    dirs, base = parts[:-1], parts[-1]
    if lang in ("rust", "python"):
        return "test" if any(d in _DEV_NONSOURCE_DIRS for d in dirs) or _test_file(base, lang) else "source"
    if lang in NEW_LANGS:
        return _classify_new(dirs, base, lang, head)
    if any(d in _GENERATED_DIRS for d in dirs) or base.endswith(".min.js"):
        return "generated"
    if head is not None:
        first = head[:1024].decode("utf-8", "replace")
        if _GENERATED_HEAD_RE.search(first) or len(first.split("\n", 1)[0]) > 1000:
            return "generated"
    nonsource = _DEV_NONSOURCE_DIRS | _MORE_NONSOURCE_DIRS
    if lang == "go":
        nonsource = nonsource - {"doc", "docs"}
    if any(d in nonsource or _TEST_DIR_RE.search(d) for d in dirs) or _test_file(base, lang):
        return "test"
    if any(d.startswith(".") for d in dirs):
        return "tooling"  # .github/, .vscode/, .husky/ ...
    if lang in ("javascript", "typescript") and _TOOLING_RE.search(base):
        return "tooling"
    return "source"


def _classify_new(dirs: list[str], base: str, lang: str, head: bytes | None) -> str:
    """classify() for C#, PHP, Ruby, Kotlin, Swift, Bash and the second batch (Scala, Lua, Elixir,
    Haskell, Zig); the older languages' rules are untouched."""
    low = [d.lower() for d in dirs]
    if any(d in _GENERATED_DIRS or d in _NEW_GENERATED_DIRS.get(lang, ()) for d in low):
        return "generated"
    if head is not None:
        first = head[:1024].decode("utf-8", "replace")
        if _GENERATED_HEAD_RE.search(first) or len(first.split("\n", 1)[0]) > 1000:
            return "generated"
    nonsource = {d.lower() for d in _DEV_NONSOURCE_DIRS | _MORE_NONSOURCE_DIRS | _NEW_NONSOURCE_DIRS}  # buildSrc
    if (any(d in nonsource for d in low) or any(_NEW_TEST_DIR_RE.search(d) for d in dirs)
            or _NEW_TEST_FILE_RE[lang].search(base)):
        return "test"
    if any(d.startswith(".") for d in dirs) or base.startswith("."):
        return "tooling"
    if lang in _NEW_TOOLING_RE and _NEW_TOOLING_RE[lang].search(base):
        return "tooling"
    if lang in _NEW_TOOLING_TOP_DIR and dirs and dirs[0] == _NEW_TOOLING_TOP_DIR[lang]:
        return "tooling"
    return "source"


# ----------------------------------------------------------------------------- text helpers
# (copied from the development set's scripts/common.py so that the results match it exactly)

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STOP = set("""a an the and or of to in on for with is are was were be been it its this that as at by from
not no but if then else when into than so such can will would should could may might do does did has have had
i we you they he she them our your their my me us self fn let mut pub use impl struct enum mod crate return
def class import none true false""".split())


def code_tokens(text: str) -> list[str]:
    """Code-aware tokenization: identifiers kept whole and split on snake_case / camelCase, lowercased."""
    toks: list[str] = []
    for m in _WORD.finditer(text):
        w = m.group(0)
        lw = w.lower()
        parts = [p.lower() for seg in w.split("_") for p in _CAMEL.findall(seg)]
        if len(parts) > 1:
            if lw not in STOP:
                toks.append(lw)
            toks.extend(p for p in parts if p not in STOP and len(p) > 1)
        elif lw not in STOP and len(lw) > 1:
            toks.append(lw)
    return toks


def query_identifiers(text: str) -> list[str]:
    """Identifier-like tokens of a query: snake_case, CamelCase, dotted/path names, backticked words."""
    idents = set()
    for m in re.finditer(r"`([^`\n]{2,80})`", text):
        for w in _WORD.findall(m.group(1)):
            if len(w) >= 3 and w.lower() not in STOP:
                idents.add(w)
    for w in _WORD.findall(text):
        if len(w) < 3 or w.lower() in STOP:
            continue
        if "_" in w.strip("_") or re.search(r"[a-z][A-Z]", w) or re.match(r"[A-Z][a-z]+[A-Z]", w):
            idents.add(w)
    return sorted(idents)


_NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"


def mentioned_names(query: str) -> set[str]:
    names = set(query_identifiers(query))
    names |= set(re.findall(r"(" + _NAME + r")\s*\(", query))
    names |= set(re.findall(r"(?:\.|::|#)(" + _NAME + ")", query))
    return names


def leak_reasons(query: str, gold_files: list[str], gold_functions: list[str]) -> list[str]:
    names = mentioned_names(query)
    reasons = []
    for f in gold_functions:
        _, qual = f.split("::", 1)
        if re.split(r"::|\.", qual)[-1] in names:
            reasons.append("function:" + qual)
    for p in gold_files:
        base = p.rsplit("/", 1)[-1]
        if p in query or re.search(r"(?<![\w./-])" + re.escape(base) + r"(?!\w)", query):
            reasons.append("file:" + p)
    return list(dict.fromkeys(reasons))


_TRAILER_RE = re.compile(r"^\s*(Co-authored-by|Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|"
                         r"Suggested-by|Helped-by|Cc|Change-Id|Reviewed-on|Approved-by):.*$", re.I)


def clean_message(raw: str) -> str:
    lines = [ln for ln in raw.split("\n") if not _TRAILER_RE.match(ln.rstrip("\r"))]
    return "\n".join(lines).strip()


FIX_RE = re.compile(r"\b(fix(e[sd])?|fixing|bug|issue|regression|crash|panic|error|wrong|incorrect|broken|fail|"
                    r"leak|break(s|ing)?|hang(s|ing)?|restore)",
                    re.I)
EXCLUDE_SUBJECT_RE = re.compile(r"\b(typos?|lint(s|ing|er)?|eslint|clippy|rustfmt|gofmt|prettier|formatting|"
                                r"spelling|misspel\w*|grammar|whitespace)\b|"
                                r"^\s*(revert|release|bump|v?\d+\.\d+\.\d+\s*$)|"
                                r"^\s*(style|ci|build|docs?|refactor|tests?|chore\(deps[^)]*\))(\([^)]*\))?!?:", re.I)
CHORE_RE = re.compile(r"\s*chore(\([^)]*\))?!?:", re.I)
BOT_RE = re.compile(r"\[bot\]|dependabot|renovate|github-actions|greenkeeper|snyk-bot|allcontributors", re.I)
MIN_QUERY_CHARS = 40
REQUIRE_CODE_CHANGE = False  # --require-code-change; off: the development set has one comment-only fix
MAX_GOLD_FILES = 3
MIN_LINES, MAX_LINES = 2, 200


# ----------------------------------------------------------------------------- git

def git(gitdir: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout


def blob_text(gitdir: Path, commit: str, path: str) -> str:
    try:
        return git(gitdir, "show", f"{commit}:{path}").decode("utf-8", "replace")
    except subprocess.CalledProcessError:
        return ""


def raw_message(gitdir: Path, commit: str) -> str:
    obj = git(gitdir, "cat-file", "commit", commit).decode("utf-8", "replace")
    return obj.split("\n\n", 1)[1] if "\n\n" in obj else ""


# ----------------------------------------------------------------------------- definitions

def mask(text: str, lang: str, strings: bool = True) -> str:
    """Blank comments and (if `strings`) string/char literals, keeping newlines and delimiters, so
    that brackets and definition regexes see only code."""
    out = []
    i, n = 0, len(text)
    hash_comment = lang in ("python", "ruby", "bash", "elixir")  # Ruby / Bash / Elixir: no // or /* */ comments
    slash_comment = not hash_comment and lang not in ("lua", "haskell")  # Lua / Haskell: -- comments
    prev_sig = ""  # last significant char, for JS regex-literal detection
    heredoc_re = _HEREDOC_RE.get(lang)
    heredocs: list[str] = []  # Ruby / Bash / PHP here-documents opened on the current line
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if heredoc_re is not None:
            if c == "\n" and heredocs:  # blank the here-documents' bodies and terminators
                out.append("\n")
                i += 1
                for tag in heredocs:
                    while i < n:
                        j = text.find("\n", i)
                        j = n if j < 0 else j
                        line = text[i:j]
                        out.append(" " * len(line))
                        i = j
                        if i < n:
                            out.append("\n")
                            i += 1
                        if line.strip() == tag or (lang == "php" and re.match(re.escape(tag) + r"(?!\w)", line.strip())):
                            break  # PHP: `EOF;`, `EOF,`, `EOF)` end it too
                heredocs = []
                continue
            if c == "<" and nxt == "<":
                m = heredoc_re.match(text, i)
                if m:
                    heredocs.append(m.group("tag"))
                    out.append(m.group(0))
                    i = m.end()
                    continue
            if lang == "ruby" and c == "=" and text.startswith("=begin", i) and (i == 0 or text[i - 1] == "\n"):
                j = text.find("\n=end", i)
                j = n if j < 0 else j + 5
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
                continue
        if lang in BATCH2_LANGS:
            tok = _lex_batch2(text, i, lang)
            if tok is not None:
                j, kind = tok
                seg = text[i:j]
                if kind == "comment":
                    seg = re.sub(r"[^\n]", " ", seg)
                elif kind == "string" and strings and len(seg) >= 2:  # keep the first and last character
                    seg = seg[0] + re.sub(r"[^\n]", " ", seg[1:-1]) + seg[-1]
                out.append(seg)
                i = j
                prev_sig = seg[-1:] or prev_sig
                continue
        if (hash_comment and c == "#" and (lang != "bash" or i == 0 or text[i - 1] in " \t\n;|&(")) or (
                lang == "php" and c == "#" and nxt != "["):  # Bash: $# ${#x} ${x#y} are not comments
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if slash_comment and c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if slash_comment and c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        quote = None
        if lang == "python" and text.startswith(('"""', "'''"), i):
            quote = text[i:i + 3]
        elif lang in ("java", "kotlin", "swift", "csharp") and text.startswith('"""', i):
            quote = '"""'
        elif c == '"':
            quote = '"'
        elif c == "'" and lang != "rust":
            quote = "'"
        elif c == "'" and lang == "rust":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'\n])'", text[i:i + 12])
            if m:
                out.append("'" + " " * (len(m.group(0)) - 2) + "'" if strings else m.group(0))
                i += len(m.group(0))
                prev_sig = "'"
                continue
        elif c == "`" and lang in ("javascript", "typescript", "go"):
            quote = "`"
        elif lang == "rust" and c == "r" and re.match(r'r#*"', text[i:i + 8]) and not (i and text[i - 1].isalnum()):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]) if strings else text[i:j])
            i = j
            continue
        elif (lang in ("javascript", "typescript") and c == "/" and nxt not in "/*"
              and (prev_sig == "" or prev_sig in "(,=:[!&|?{};+-*%<>~^")):
            m = re.match(r"/(\\.|\[(\\.|[^\]\\\n])*\]|[^/\\\n\[])+/[a-z]*", text[i:i + 400])
            if m:
                out.append("/" + " " * (len(m.group(0)) - 1) if strings else m.group(0))
                i += len(m.group(0))
                prev_sig = "/"
                continue
        if quote:
            j = i + len(quote)
            raw = (lang == "go" and quote == "`") or (lang == "bash" and quote == "'")
            while j < n:
                if not raw and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += len(quote)
                    break
                if text[j] == "\n" and len(quote) == 1 and quote != "`" and lang != "rust":
                    break  # unterminated single-line literal: stop at end of line
                j += 1
            seg = text[i:min(j, n)]
            if not strings:
                out.append(seg)
                i = min(j, n)
                prev_sig = quote[-1]
                continue
            out.append(quote + re.sub(r"[^\n]", " ", seg[len(quote):-len(quote)] if len(seg) >= 2 * len(quote)
                                      else seg[len(quote):]) + (quote if len(seg) >= 2 * len(quote) else ""))
            i = min(j, n)
            prev_sig = quote[-1]
            continue
        out.append(c)
        if not c.isspace():
            prev_sig = c
        i += 1
    res = "".join(out)
    if lang in ("csharp", "swift"):  # preprocessor lines (#if / #else / #endif, often at column 0)
        res = "\n".join(" " * len(ln) if ln.lstrip().startswith("#") else ln for ln in res.split("\n"))
    return res if res.count("\n") == text.count("\n") else text  # never shift lines


_HS_SYMBOL = set("!#$%&*+./<=>?@\\^|-~:")
_SIGIL_CLOSE = {"/": "/", "|": "|", '"': '"', "'": "'", "(": ")", "[": "]", "{": "}", "<": ">"}


def _skip_quoted(text: str, j: int, close: str, escapes: bool = True, interpolation: bool = False,
                 multiline: bool = True) -> int:
    """Index just past `close`, scanning from j (inside a literal); backslash escapes, Elixir #{...}."""
    n = len(text)
    while j < n:
        if escapes and text[j] == "\\":
            j += 2
            continue
        if interpolation and text.startswith("#{", j):
            depth, j = 1, j + 2
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            continue
        if text.startswith(close, j):
            return j + len(close)
        if text[j] == "\n" and not multiline:
            return j
        j += 1
    return n


def _lex_batch2(text: str, i: int, lang: str) -> tuple[int, str] | None:
    """The comments and literals of the second batch's languages that mask()'s shared rules do not
    know: (end, "comment" | "string" | "code") of the token at i, or None (the shared rules apply:
    // and /* */ comments for Scala and Zig, # for Elixir, "..." / '...' literals)."""
    c = text[i]
    nxt = text[i + 1] if i + 1 < len(text) else ""
    prev = text[i - 1] if i else ""
    if lang == "scala":
        if text.startswith('"""', i):
            return _skip_quoted(text, i + 3, '"""', escapes=False), "string"
        if c == "'":  # a character literal, or a symbol / Scala 3 quote ('foo, '{ ... }): code
            m = re.match(r"'(\\u[0-9a-fA-F]{4}|\\.|[^\\'\n])'", text[i:i + 8])
            return (i + len(m.group(0)), "string") if m else (i + 1, "code")
    elif lang == "lua":
        if c == "-" and nxt == "-":
            m = re.match(r"--\[(=*)\[", text[i:i + 40])
            if m:  # --[[ ... ]], --[==[ ... ]==]
                j = text.find("]" + m.group(1) + "]", i + len(m.group(0)))
                return (len(text) if j < 0 else j + len(m.group(1)) + 2), "comment"
            j = text.find("\n", i)
            return (len(text) if j < 0 else j), "comment"
        m = re.match(r"\[(=*)\[", text[i:i + 40]) if c == "[" else None
        if m:  # long string [[ ... ]], [==[ ... ]==]
            j = text.find("]" + m.group(1) + "]", i + len(m.group(0)))
            return (len(text) if j < 0 else j + len(m.group(1)) + 2), "string"
    elif lang == "elixir":
        if c == "?" and nxt and not (prev.isalnum() or (prev and prev in "_?!")):  # character literal ?a ?# ?" ?\n
            return i + (3 if nxt == "\\" else 2), "string"
        if text.startswith(('"""', "'''"), i):
            return _skip_quoted(text, i + 3, text[i:i + 3], interpolation=True), "string"
        if c in "\"'":  # Elixir strings and charlists may span lines
            return _skip_quoted(text, i + 1, c, interpolation=True), "string"
        m = re.match(r"~([a-z]|[A-Z][A-Z0-9]*)(\"\"\"|'''|[/|\"'(\[{<])", text[i:i + 12]) if c == "~" else None
        if m and not (prev.isalnum() or prev == "_"):
            lower = m.group(1).islower()
            opener = m.group(2)
            close = opener if len(opener) == 3 else _SIGIL_CLOSE[opener]
            return _skip_quoted(text, i + len(m.group(0)), close, escapes=True, interpolation=lower), "string"
    elif lang == "haskell":
        if c == "{" and nxt == "-":  # {- ... -} (nested), pragmas {-# ... #-} too
            depth, j = 0, i
            while j < len(text):
                if text.startswith("{-", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("-}", j):
                    depth, j = depth - 1, j + 2
                    if not depth:
                        break
                else:
                    j += 1
            return j, "comment"
        if c == "-" and nxt == "-" and prev not in _HS_SYMBOL:
            j = i
            while j < len(text) and text[j] == "-":
                j += 1
            if j >= len(text) or text[j] not in _HS_SYMBOL:  # -- comment, not an operator like -->
                k = text.find("\n", i)
                return (len(text) if k < 0 else k), "comment"
            return j, "code"
        if c == "'":  # a character literal, or a prime in a name (x') / a promoted constructor: code
            m = re.match(r"'(\\[^'\n]{1,10}|[^\\'\n])'", text[i:i + 14])
            if m and not (prev.isalnum() or (prev and prev in "_'")):
                return i + len(m.group(0)), "string"
            return i + 1, "code"
        if c == '"':
            return _skip_quoted(text, i + 1, '"', multiline=False), "string"
    elif lang == "zig":
        if c == "\\" and nxt == "\\":  # a multiline string line: \\ to the end of the line
            j = text.find("\n", i)
            return (len(text) if j < 0 else j), "string"
    return None


_HEREDOC_RE = {
    "ruby": re.compile(r"<<[~-]?(?P<q>[\"'`]?)(?P<tag>[A-Z_]\w*|(?<=[-~\"'`])[A-Za-z_]\w*)(?P=q)"),
    "bash": re.compile(r"<<-?\s*(?P<q>[\"']?)\\?(?P<tag>[A-Za-z_]\w*)(?P=q)"),
    "php": re.compile(r"<<<\s*(?P<q>[\"']?)(?P<tag>[A-Za-z_]\w*)(?P=q)"),
}

_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "new", "else", "throw", "do", "try", "case",
             "function", "typeof", "await", "yield", "super", "this", "synchronized", "assert", "when", "with",
             "select", "go", "defer", "func", "import", "export", "delete", "void", "in", "of", "instanceof",
             "constructor_"}


def _headers(lines: list[str], lang: str):
    """Yield (line_index, kind, name, qual_override) for definition headers. kind: 'fn' | 'container'."""
    if lang in NEW_LANGS:
        yield from _headers_new(lines, lang)
        return
    for k, ln in enumerate(lines):
        s = ln
        if lang == "rust":
            m = re.match(r"\s*(pub(\([^)]*\))?\s+)?((const|async|unsafe|default|extern(\s+\"[^\"]*\")?)\s+)*fn\s+(\w+)", s)
            if m:
                yield k, "fn", m.group(6), None
                continue
            m = re.match(r"\s*(unsafe\s+)?impl\b(.*)$", s)
            if m:
                rest = _strip_generics(m.group(2))
                rest = rest.split(" for ", 1)[1] if " for " in rest else rest
                t = re.match(r"\s*(&\s*)?(dyn\s+)?([\w:]+)", rest)
                if t:
                    yield k, "container", t.group(3).split("::")[-1], None
                continue
            m = re.match(r"\s*(pub(\([^)]*\))?\s+)?(unsafe\s+)?(trait|struct|enum|union)\s+(\w+)", s)
            if m:
                yield k, "container", m.group(5), None
        elif lang == "python":
            m = re.match(r"\s*(async\s+)?def\s+(\w+)", s)
            if m:
                yield k, "fn", m.group(2), None
                continue
            m = re.match(r"\s*class\s+(\w+)", s)
            if m:
                yield k, "container", m.group(1), None
        elif lang == "go":
            m = re.match(r"func\s+(\(\s*(\w+\s+)?\*?\s*(\w+)(\[[^\]]*\])?\s*\)\s*)?(\w+)\s*[\[(]", s)
            if m:
                yield k, "fn", m.group(5), (m.group(3) + "." + m.group(5)) if m.group(3) else None
        elif lang == "java":
            m = re.match(r"\s*((public|private|protected|static|final|abstract|sealed|non-sealed|strictfp)\s+)*"
                         r"(class|interface|enum|record|@interface)\s+(\w+)", s)
            if m:
                yield k, "container", m.group(4), None
                continue
            m = re.match(r"\s*(@\w+(\([^)]*\))?\s+)*((public|private|protected|static|final|abstract|synchronized|"
                         r"native|default|strictfp)\s+)*(<[^(]*?>\s+)?([\w$.]+(\s*<[^(]*>)?(\s*\[\s*\])*\s+)?(\w+)\s*\(", s)
            if m and m.group(9) not in _KEYWORDS:
                ret = (m.group(6) or "").strip()
                if not ret and not m.group(5):
                    yield k, "ctor?", m.group(9), None  # a constructor if the name is the class's
                elif ret.split("<")[0] not in _STATEMENT_WORDS:
                    yield k, "fn", m.group(9), None
        else:  # javascript / typescript
            m = re.match(r"\s*(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?class\s+([\w$]+)", s)
            if m:
                yield k, "container", m.group(5), None
                continue
            m = re.match(r"\s*(export\s+)?(default\s+)?(declare\s+)?(async\s+)?function\s*\*?\s*([\w$]+)", s)
            if m:
                yield k, "fn", m.group(5), None
                continue
            m = re.match(r"\s*(export\s+)?(declare\s+)?(const|let|var)\s+([\w$]+)\s*(:[^=]*)?=\s*(async\s+)?"
                         r"(function\b|\(|<|[\w$]+\s*=>)", s)
            if m:
                yield k, "fn", m.group(4), None
                continue
            m = re.match(r"\s*((module\.)?exports|[\w$]+)((\.[\w$]+)+)\s*=\s*(async\s+)?(function\b|\(|[\w$]+\s*=>)", s)
            if m:
                chain = [p for p in (m.group(1) + m.group(3)).split(".") if p not in ("prototype",)]
                while chain and chain[0] in ("module", "exports"):
                    chain = chain[1:]
                if chain:
                    yield k, "fn", chain[-1], ".".join(chain[-2:])
                continue
            m = re.match(r"\s*((public|private|protected|static|readonly|async|override|abstract|get|set|declare)\s+)*"
                         r"\*?\s*#?([\w$]+)\s*(\??)\s*(<[^(]*>)?\s*\(", s)
            if m and m.group(3) not in _KEYWORDS and re.search(r"[{,(]\s*$|\)\s*(:.*)?\{\s*\}?;?\s*$", s):
                yield k, "method?", m.group(3), None
                continue
            m = re.match(r"\s*((public|private|protected|static|readonly|override)\s+)*#?([\w$]+)\s*(:[^=]*)?=\s*"
                         r"(async\s+)?(function\b|\([^)]*$|\([^)]*\)\s*(:[^=]*)?=>|[\w$]+\s*=>)", s)
            if m:
                yield k, "method?", m.group(3), None


_CS_MODS = (r"(public|private|protected|internal|static|virtual|override|abstract|sealed|async|extern|unsafe|"
            r"partial|readonly|file|required|volatile|ref|const|implicit|explicit|operator)")
_CS_ATTRS = r"(\[[^\]]*\]\s*)*"
_CS_CONTAINER = re.compile(r"\s*" + _CS_ATTRS + r"(" + _CS_MODS + r"\s+)*(class|interface|struct|enum|record"
                           r"(\s+struct|\s+class)?)\s+@?(\w+)")
_CS_TYPE = r"([\w.]+(\s*<[^(]*>)?\??(\s*\[[,\s]*\])*\??|\([^()]*\)\??)"
_CS_METHOD = re.compile(r"\s*" + _CS_ATTRS + r"(" + _CS_MODS + r"\s+)*(" + _CS_TYPE + r"\s+)?(\w+(<[^(]*>)?\.)*@?(\w+)"
                        r"\s*(<[^(]*>)?\s*\(")
_CS_PROPERTY = re.compile(r"\s*" + _CS_ATTRS + r"(" + _CS_MODS + r"\s+)+" + _CS_TYPE + r"\s+@?(\w+)\s*(\{\s*$|=>|$)")
_CS_KEYWORDS = {"using", "lock", "foreach", "fixed", "checked", "unchecked", "nameof", "sizeof", "default",
                "stackalloc", "get", "set", "init", "add", "remove", "where", "from", "select", "base", "is",
                "as", "out", "var", "not", "and", "or", "value", "global", "operator"}
_KT_CONTAINER = re.compile(r"\s*(@[\w.]+(\([^)]*\))?\s+)*((public|private|protected|internal|open|abstract|final|"
                           r"sealed|data|enum|annotation|inner|value|inline|expect|actual|companion|fun)\s+)*"
                           r"(class|interface|object)\s+(\w+)")
_KT_FUN = re.compile(r"\s*(@[\w.]+(\([^)]*\))?\s+)*((public|private|protected|internal|open|override|abstract|final|"
                     r"inline|suspend|operator|infix|tailrec|external|actual|expect|synchronized)\s+)*fun\s+"
                     r"(<[^=(]*?>\s*)?(\S+\.)?(\w+|`[^`]+`)\s*\(")
_SW_MODS = (r"(@\w+(\([^)]*\))?\s+|(public|private|fileprivate|internal|open|final|static|class|override|mutating|"
            r"nonmutating|convenience|required|dynamic|optional|package|nonisolated|isolated|distributed|prefix|"
            r"postfix|infix|indirect|lazy|weak|unowned|consuming|borrowing)(\([^)]*\))?\s+)*")
_SW_CONTAINER = re.compile(r"\s*" + _SW_MODS + r"(class|struct|enum|protocol|extension|actor)\s+([\w.]+)")
_SW_FUNC = re.compile(r"\s*" + _SW_MODS + r"(func\s+(\w+|[^\s(<\w]+)|(init)\s*[?!]?\s*[(<]|(subscript)\s*[(<]|"
                      r"(deinit)\b)")
_SW_COMPUTED = re.compile(r"\s*" + _SW_MODS + r"var\s+(\w+)\s*:[^={]*\{\s*$")
_PHP_CONTAINER = re.compile(r"\s*((abstract|final|readonly)\s+)*(class|interface|trait|enum)\s+(\w+)")
_PHP_FUNCTION = re.compile(r"\s*(#\[[^\]]*\]\s*)*((public|private|protected|static|abstract|final)\s+)*"
                           r"function\s+&?\s*(\w+)\s*\(")
_RB_CONTAINER = re.compile(r"\s*(class|module)\s+([\w:]+)")
_RB_DEF = re.compile(r"\s*((private|protected|public|module_function|private_class_method|memoize)\s+)*def\s+"
                     r"((self|[A-Z]\w*)\.)?(\w+[?!=]?|\[\]=?|[-+*/%<>=!~^&|]+)")
_SH_FUNC = re.compile(r"\s*(function\s+([\w:.@+-]+)\s*(\(\s*\))?|([\w:.@+-]+)\s*\(\s*\))\s*(\{|\(|$)")
# second batch
_SC_MODS = (r"((private|protected)(\[[\w.]*\])?\s+|(final|sealed|abstract|implicit|lazy|override|case|inline|"
            r"transparent|open|infix|opaque)\s+|@[\w.]+(\([^)]*\))?\s+)*")
_SC_CONTAINER = re.compile(r"\s*" + _SC_MODS + r"(package\s+)?(class|trait|object|enum)\s+(?P<name>`[^`]+`|\w+)")
_SC_DEF = re.compile(r"\s*" + _SC_MODS + r"def\s+(?P<name>`[^`]+`|[A-Za-z_$][\w$]*|[^\s\w(\[:`]+)")
_LUA_FUNC = re.compile(r"\s*(local\s+)?function\s+(?P<name>[A-Za-z_]\w*(\s*[.:]\s*[A-Za-z_]\w*)*)\s*\(")
_LUA_ASSIGN = re.compile(r"\s*(local\s+)?(?P<name>[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)\s*=\s*function\s*\(")
_EX_CONTAINER = re.compile(r"\s*(defmodule|defprotocol)\s+(?P<name>[A-Z][\w.]*)")
_EX_DEF = re.compile(r"\s*(def|defp|defmacro|defmacrop)\s+(?P<name>[a-z_]\w*[?!]?)")
_HS_NAME = re.compile(r"([a-z_][\w']*)(?=[\s:=]|$)")  # a top-level (column 0) name
_HS_KEYWORDS = {"module", "import", "data", "type", "newtype", "class", "instance", "deriving", "where", "let",
                "in", "infix", "infixl", "infixr", "foreign", "default", "pattern", "if", "then", "else", "case",
                "of", "do", "family", "role"}
_HS_EQUALS = re.compile(r"(?<![!#$%&*+./<=>?@\\^|~:-])=(?![!#$%&*+./<=>?@\\^|~:-])")
_ZIG_FN = re.compile(r"\s*(pub\s+)?((export|extern(\s+\"[^\"]*\")?|inline|noinline)\s+)*fn\s+(?P<name>\w+)\s*\(")
_ZIG_CONTAINER = re.compile(r"\s*(pub\s+)?(const|var)\s+(?P<name>\w+)\s*(:[^=]*)?=\s*((extern|packed)\s+)?"
                            r"(struct|enum|union|opaque)\b")
_ZIG_TYPE_FN = re.compile(r"\)\s*type\s*\{\s*$")


def _hs_top_name(lines: list[str], k: int) -> str | None:
    """The name a Haskell line at column 0 defines: `name :: T` (signature) or `name args = ...` /
    `name args` followed by guards `| ...` or `= ...` on the next lines (equation); else None."""
    s = lines[k]
    m = _HS_NAME.match(s)
    if not m or m.group(1) in _HS_KEYWORDS:
        return None
    rest = s[m.end():]
    if re.match(r"\s*::", rest) or re.match(r"\s*,\s*[a-z_][\w']*\s*(,|::)", rest) or _HS_EQUALS.search(rest):
        return m.group(1)
    nxt = next((t for t in lines[k + 1:k + 4] if t.strip()), "")
    if nxt[:1] in (" ", "\t") and nxt.lstrip()[:1] in ("|", "="):
        return m.group(1)
    return None


def _headers_new(lines: list[str], lang: str):
    """_headers() for C#, PHP, Ruby, Kotlin, Swift, Bash and the second batch: simple regexes of
    definition headers (brace languages and Scala / Zig: the extent comes from _extent(); Ruby: def ...
    end; Bash: f() { ... }; Lua / Elixir: keyword blocks; Haskell: column-0 runs of one name)."""
    for k, s in enumerate(lines):
        if lang == "csharp":
            m = _CS_CONTAINER.match(s)
            if m:
                yield k, "container", m.group(6), None
                continue
            m = _CS_METHOD.match(s)
            if m and m.group(10) not in _KEYWORDS and m.group(10) not in _CS_KEYWORDS:
                ret = (m.group(4) or "").strip()
                if not ret:
                    yield k, "ctor?", m.group(10), None  # a constructor if the name is the class's
                elif ret.split("<")[0] not in _STATEMENT_WORDS and ret not in _CS_KEYWORDS:
                    yield k, "fn", m.group(10), None
                continue
            m = _CS_PROPERTY.match(s)
            if m and m.group(7) not in _CS_KEYWORDS and m.group(4).split("<")[0] not in _STATEMENT_WORDS:
                nxt = next((t.strip() for t in lines[k + 1:k + 3] if t.strip()), "")
                if m.group(8).strip() or nxt.startswith("{"):  # `{` / `=>` on the line, or Allman `{` below
                    yield k, "fn", m.group(7), None
        elif lang == "kotlin":
            m = _KT_CONTAINER.match(s)
            if m:
                yield k, "container", m.group(6), None
                continue
            m = _KT_FUN.match(s)
            if m:
                yield k, "fn", m.group(7).strip("`"), None
        elif lang == "swift":
            m = _SW_CONTAINER.match(s)
            if m and m.group(6).split(".")[-1] not in ("func", "var", "let", "subscript", "init", "typealias"):
                yield k, "container", m.group(6).split(".")[-1], None
                continue
            m = _SW_FUNC.match(s)
            if m:
                yield k, "fn", m.group(6) or m.group(7) or m.group(8) or m.group(9), None
                continue
            m = _SW_COMPUTED.match(s)
            if m:
                yield k, "fn", m.group(5), None
        elif lang == "php":
            m = _PHP_CONTAINER.match(s)
            if m:
                yield k, "container", m.group(4), None
                continue
            m = _PHP_FUNCTION.match(s)
            if m:
                yield k, "fn", m.group(4), None
        elif lang == "ruby":
            m = _RB_CONTAINER.match(s)
            if m:
                yield k, "container", m.group(2).split("::")[-1], None
                continue
            m = _RB_DEF.match(s)
            if m:
                yield k, "fn", m.group(5), None
        elif lang == "bash":
            m = _SH_FUNC.match(s)
            if m and (m.group(2) or m.group(4)) not in ("if", "then", "elif", "while", "until", "for", "case"):
                yield k, "fn", m.group(2) or m.group(4), None
        elif lang == "scala":
            m = _SC_CONTAINER.match(s)
            if m:
                yield k, "container", m.group("name").strip("`"), None
                continue
            m = _SC_DEF.match(s)
            if m:
                yield k, "fn", m.group("name").strip("`"), None
        elif lang == "lua":  # function f / local function f / function M.f / function M:f (gives M.f);
            # like JS's X.name = function: [local] f = function / M.f = function
            m = _LUA_FUNC.match(s) or _LUA_ASSIGN.match(s)
            if m:
                parts = [p.strip() for p in re.split(r"[.:]", m.group("name"))]
                yield k, "fn", parts[-1], ".".join(parts[-2:]) if len(parts) > 1 else None
        elif lang == "elixir":  # defmodule A.B gives B (as Ruby's class A::B)
            m = _EX_CONTAINER.match(s)
            if m:
                yield k, "container", m.group("name").split(".")[-1], None
                continue
            m = _EX_DEF.match(s)
            if m and m.group("name") != "unquote":
                yield k, "fn", m.group("name"), None
        elif lang == "haskell":  # top-level only: the first line of each run of one name's lines
            if s[:1].strip() and not (k and _hs_same_run(lines, k)):
                name = _hs_top_name(lines, k)
                if name:
                    yield k, "fn", name, None
        elif lang == "zig":
            m = _ZIG_CONTAINER.match(s)
            if m:
                yield k, "container", m.group("name"), None
                continue
            m = _ZIG_FN.match(s)
            if m:  # a function returning `type` is a generic type (fn Server(comptime H: type) type {...})
                yield k, "container" if _ZIG_TYPE_FN.search(s) else "fn", m.group("name"), None


def _hs_same_run(lines: list[str], k: int) -> bool:
    """Whether column-0 line k continues the previous column-0 line's definition (same leading name)."""
    m = _HS_NAME.match(lines[k])
    if not m:
        return False
    for t in range(k - 1, -1, -1):
        if lines[t][:1].strip():
            p = _HS_NAME.match(lines[t])
            return bool(p) and p.group(1) == m.group(1)
    return False


def _extent_haskell(mlines: list[str], k: int) -> int:
    """A top-level definition: its signature and equations (column-0 lines of the same name) and their
    indented lines, up to the next column-0 line of another name or declaration."""
    name = _HS_NAME.match(mlines[k]).group(1)
    last = k
    for t in range(k + 1, len(mlines)):
        s = mlines[t]
        if not s.strip():
            continue
        if s[:1] in (" ", "\t"):
            last = t
            continue
        m = _HS_NAME.match(s)
        if m and m.group(1) == name:
            last = t
            continue
        return last
    return last


_LUA_BLOCK = re.compile(r"(?<![\w.:])(function|do|if|repeat|end|until)(?!\w)")
_EX_BLOCK = re.compile(r"(?<![\w:.@])(do|fn|end)(?![\w?!:])")


def _extent_keywords(mlines: list[str], k: int, lang: str) -> int:
    """Lua `function ... end` (blocks: function / do / if / repeat ... end / until); Elixir `def ... do
    ... end` (do / fn ... end), or a `def f(x), do: ...` one-liner / bodiless head: the header and its
    more-indented continuation lines."""
    base = _indent(mlines[k])
    block = _LUA_BLOCK if lang == "lua" else _EX_BLOCK
    depth, opened, last = 0, False, k
    for t in range(k, len(mlines)):
        s = mlines[t]
        if t > k and not opened:
            if not s.strip():
                continue
            if _indent(s) <= base and not s.lstrip().startswith(("do", "when", ")")):
                return last
        for m in block.finditer(s):
            w = m.group(1)
            if w in ("end", "until"):
                depth -= 1
                if opened and depth <= 0:
                    return t
            else:
                depth += 1
                if lang == "lua" or w == "do":
                    opened = True
        last = t
    return last


def _extent_ruby(mlines: list[str], k: int) -> int:
    """def / class / module ... end: the first `end` at the header's indentation (rescue / ensure /
    else at that indentation continue the body); a one-line or endless definition ends at once."""
    base = _indent(mlines[k])
    last = k
    for t in range(k + 1, len(mlines)):
        s = mlines[t]
        if not s.strip():
            continue
        ind = _indent(s)
        st = s.strip()
        if ind > base:
            last = t
            continue
        if ind == base and re.match(r"end\b", st):
            return t
        if ind == base and re.match(r"(rescue|ensure|else|elsif|when|in)\b", st):
            last = t
            continue
        return last
    return last


def _extent_bash(mlines: list[str], k: int) -> int:
    """f() { ... }: braces counted from the header (the body's "{" may open on the next line)."""
    depth, opened = 0, False
    for t in range(k, len(mlines)):
        s = mlines[t]
        if t > k and not opened and s.strip() and not s.strip().startswith(("{", "(")):
            return k  # no body found
        for ch in s:
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
        if not opened and t == k and s.rstrip().endswith("("):
            return k
        if opened and depth <= 0:
            return t
    return len(mlines) - 1


_STATEMENT_WORDS = {"return", "new", "throw", "else", "case", "yield", "await", "assert", "do", "typeof",
                    "delete", "in", "of", "instanceof", "goto", "break", "continue"}
_OPEN, _CLOSE = "([{", ")]}"


def _strip_generics(s: str) -> str:
    out, depth = [], 0
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


_CLOSER_LINE = re.compile(r"[)\]}]+[;,]?\s*$")
_CONTINUATION = re.compile(r"(where|throws|extends|implements)\b|[{:=>|&.?]")


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" \t").replace("\t", "    ")) if s.strip() else 10 ** 6


def _extent(mlines: list[str], k: int, lang: str) -> int:
    """Last line (index) of the definition starting at line k."""
    if lang == "ruby":
        return _extent_ruby(mlines, k)
    if lang == "bash":
        return _extent_bash(mlines, k)
    if lang in ("lua", "elixir"):
        return _extent_keywords(mlines, k, lang)
    if lang == "haskell":
        return _extent_haskell(mlines, k)
    base = _indent(mlines[k])
    n = len(mlines)
    if lang == "python":
        depth = 0
        j = k
        # header may span lines (open parentheses)
        while j < n - 1:
            depth += sum(mlines[j].count(c) for c in _OPEN) - sum(mlines[j].count(c) for c in _CLOSE)
            if depth <= 0:
                break
            j += 1
        last = j
        for t in range(j + 1, n):
            if not mlines[t].strip():
                continue
            if _indent(mlines[t]) <= base:
                break
            last = t
        return last
    depth = sum(mlines[k].count(c) for c in _OPEN) - sum(mlines[k].count(c) for c in _CLOSE)
    last = k
    for t in range(k + 1, n):
        s = mlines[t]
        if not s.strip():
            continue
        ind = _indent(s)
        st = s.lstrip()
        d_after = depth + sum(s.count(c) for c in _OPEN) - sum(s.count(c) for c in _CLOSE)
        if ind <= base and depth <= 0 and not _CONTINUATION.match(st) and (
                st[0] not in _CLOSE or (ind < base)):
            return last
        if ind <= base and st[0] in _CLOSE and d_after <= 0 and (st[0] == "}" or _CLOSER_LINE.match(st)):
            return last if (depth <= 0 and ind < base) else t
        if ind < base:  # dedented past the header: the enclosing block ended
            return last
        depth = d_after
        last = t
    return last


def definitions(text: str, lang: str) -> list[tuple[int, int, str, str]]:
    """(first_line, last_line, qualified_name, kind) of functions and containers; lines are 1-based.
    Only functions are returned with kind 'fn'; containers with kind 'container'."""
    mlines = mask(text, lang).split("\n")
    raw = []
    for k, kind, name, qual in _headers(mlines, lang):
        raw.append((k, _extent(mlines, k, lang), kind, name, qual))
    containers = [(a, b, name) for a, b, kind, name, _ in raw if kind == "container"]
    out = []
    for a, b, kind, name, qual in raw:
        if kind == "container":
            out.append((a + 1, b + 1, name, "container"))
            continue
        inner = [c for c in containers if c[0] < a <= c[1]]
        cont = min(inner, key=lambda c: c[1] - c[0])[2] if inner else None
        if kind == "ctor?" and cont != name:
            continue  # a call statement, not a constructor
        if kind == "method?":
            # JS/TS class members: only directly inside a class body
            if cont is None:
                continue
            enclosing_fn = [r for r in raw if r[2] in ("fn", "method?") and r[0] < a <= r[1]]
            if enclosing_fn:
                continue
        sep = "::" if lang == "rust" else "."
        if qual is None:
            qual = f"{cont}{sep}{name}" if cont else name
        out.append((a + 1, b + 1, qual, "fn"))
    return out


def functions_at(defs, lines: set[int]) -> list[tuple[int, str]]:
    """(line, qualified name) of the outermost function containing each changed line."""
    fns = [d for d in defs if d[3] == "fn"]
    res = []
    for ln in sorted(lines):
        cands = [d for d in fns if d[0] <= ln <= d[1]]
        if not cands:
            continue
        outer = min(cands, key=lambda d: (d[0], -d[1]))
        res.append((ln, outer[2]))
    return res


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


INSERT_MODE = "both"


def changed_functions(gitdir: Path, base: str, fix: str, path: str, lang: str) -> list[str]:
    """Functions of the parent's version of `path` touched by the fix: for every -U0 hunk, the
    functions containing a deleted line, or, for a pure insertion after parent line a, the function
    containing both line a and line a+1 (the insertion is inside its body)."""
    diff = git(gitdir, "diff", "-U0", "--no-color", "--no-ext-diff", base, fix, "--", path).decode("utf-8", "replace")
    old_defs = definitions(blob_text(gitdir, base, path), lang)
    names = []
    for ln in diff.split("\n"):
        m = _HUNK.match(ln)
        if not m:
            continue
        a, b = int(m.group(1)), int(m.group(2) or "1")
        if b:
            hits = functions_at(old_defs, set(range(a, a + b)))
        elif INSERT_MODE == "both":
            h1 = dict(functions_at(old_defs, {a}))
            h2 = dict(functions_at(old_defs, {a + 1}))
            hits = [(a, q) for q in h1.values() if q in h2.values()]
        elif INSERT_MODE == "before":
            hits = functions_at(old_defs, {a})
        else:
            hits = functions_at(old_defs, {a + 1})
        for _, q in hits:
            names.append(f"{path}::{q}")
    return list(dict.fromkeys(names))


def changes_code(gitdir: Path, base: str, fix: str, paths: list[str], lang: str) -> bool:
    """False when the fix only touches comments or whitespace in `paths` (doc-comment and
    reformatting commits): the files' text with comments and all whitespace removed is unchanged.
    String literals, docstrings included, count as code."""
    for path in paths:
        old = re.sub(r"\s+", "", mask(blob_text(gitdir, base, path), lang, strings=False))
        new = re.sub(r"\s+", "", mask(blob_text(gitdir, fix, path), lang, strings=False))
        if old != new:
            return True
    return False


# ----------------------------------------------------------------------------- mining

def iter_commits(gitdir: Path, since: str):
    """(sha, parents, committer ISO date, committer unix time, author email+name, raw status) of
    non-merge commits reachable from HEAD since `since`, newest first."""
    out = git(gitdir, "log", "--no-merges", f"--since={since}", "--no-renames",
              "--format=@@@%H%x00%P%x00%cI%x00%ct%x00%an <%ae>", "--raw", "--numstat", "HEAD")
    for blk in out.decode("utf-8", "replace").split("@@@")[1:]:
        head, _, rest = blk.partition("\n")
        sha, parents, date, ts, author = head.split("\x00")
        status, numstat = {}, {}
        for ln in rest.split("\n"):
            if ln.startswith(":"):
                meta, p = ln.split("\t", 1)
                status[p] = meta.split()[-1][0]
            elif ln.strip():
                a, d, p = ln.split("\t", 2)
                numstat[p] = (a, d)
        yield sha, parents.split(), date, int(ts), author, status, numstat


def evaluate(gitdir: Path, repo: str, lang: str, commit) -> tuple[dict | None, str]:
    """Instance dict for a qualifying commit, or (None, reason)."""
    sha, parents, date, ts, author, status, numstat = commit
    if len(parents) != 1:
        return None, "root"
    src = sorted(p for p in status if classify(p, lang) == "source")
    if not src:
        return None, "no-source-change"
    if any(status[p] != "M" for p in src):
        return None, "source-added/deleted"
    if len(src) > MAX_GOLD_FILES:
        return None, "too-many-files"
    try:
        lines = sum(int(numstat[p][0]) + int(numstat[p][1]) for p in src)
    except (KeyError, ValueError):
        return None, "binary"
    if not MIN_LINES <= lines <= MAX_LINES:
        return None, "lines-out-of-range"
    if BOT_RE.search(author):
        return None, "bot"
    query = clean_message(raw_message(gitdir, sha))
    subject = query.split("\n", 1)[0]
    if not FIX_RE.search(query):
        return None, "not-a-fix"
    if EXCLUDE_SUBJECT_RE.search(subject) or (CHORE_RE.match(subject) and not FIX_RE.search(subject)):
        return None, "typo/lint/revert/release"
    if len(query) < MIN_QUERY_CHARS:
        return None, "short-message"
    base = parents[0]
    # content check: a generated bundle is not a gold file
    for p in src:
        head = git(gitdir, "cat-file", "-p", f"{base}:{p}")[:1024]
        if classify(p, lang, head) != "source":
            return None, "generated"
    if REQUIRE_CODE_CHANGE and not changes_code(gitdir, base, sha, src, lang):
        return None, "comments/whitespace-only"
    funcs = []
    for p in src:
        funcs += changed_functions(gitdir, base, sha, p, lang)
    if not funcs:
        return None, "no-function"
    reasons = leak_reasons(query, src, funcs)
    owner_name = repo.replace("/", "__")
    return {"id": f"{owner_name}-{sha[:10]}", "repo": repo, "language": lang, "base_commit": base,
            "fix_commit": sha, "commit_date": date, "query": query, "gold_files": src,
            "gold_functions": funcs, "leaky": bool(reasons), "leak_reasons": reasons,
            "changed_source_lines": lines, "_ts": ts}, "ok"


def evenly_spaced(items: list, n: int) -> list:
    if n >= len(items):
        return list(items)
    if n == 1:
        return [items[0]]
    idx = sorted({round(k * (len(items) - 1) / (n - 1)) for k in range(n)})
    return [items[i] for i in idx]


def mine(gitdir: Path, repo: str, lang: str, max_n: int, since: str, log=sys.stderr) -> tuple[list[dict], dict]:
    stats: dict[str, int] = {}
    qualified = []
    seen = 0
    for commit in iter_commits(gitdir, since):
        seen += 1
        inst, why = evaluate(gitdir, repo, lang, commit)
        stats[why] = stats.get(why, 0) + 1
        if inst:
            qualified.append(inst)
    qualified.sort(key=lambda i: (i["_ts"], i["fix_commit"]))
    kept = evenly_spaced(qualified, max_n)
    for i in kept:
        del i["_ts"]
    summary = {"repo": repo, "candidates": seen, "qualified": len(qualified), "kept": len(kept),
               "reasons": dict(sorted(stats.items()))}
    print(json.dumps(summary), file=log)
    return kept, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", type=Path, required=True, help="git directory (bare mirror) of the repository")
    ap.add_argument("--repo", required=True, help="owner/name")
    ap.add_argument("--language", required=True, choices=sorted(EXT))
    ap.add_argument("--max", type=int, default=30, help="instances to keep (evenly spaced over the qualifying ones)")
    ap.add_argument("--since", default="2016-01-01", help="first commit date considered")
    ap.add_argument("--out", type=Path, required=True, help="JSONL output")
    ap.add_argument("--summary", type=Path, default=None, help="also write the counts (JSON) here")
    ap.add_argument("--require-code-change", action="store_true",
                    help="drop fixes that only touch comments or whitespace in the gold files")
    args = ap.parse_args()
    global REQUIRE_CODE_CHANGE
    REQUIRE_CODE_CHANGE = args.require_code_change
    kept, summary = mine(args.git_dir, args.repo, args.language, args.max, args.since)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as fh:
        for inst in kept:
            fh.write(json.dumps(inst, ensure_ascii=False) + "\n")
    if args.summary:
        args.summary.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
