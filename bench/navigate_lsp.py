"""Precision, recall and latency of tack's `definition` and `references` against a language
server (gopls, typescript-language-server over tsserver, clangd), spoken to over stdio with LSP's
Content-Length framing, or against a file of javac's resolved names (Java: --links, written by
bench/JavacNav.java). tack is driven with raw JSON-RPC through bench/tack_rpc.py's `Tack`, as
bench/navigate.py does against jedi.

usage: navigate_lsp.py TACK ROOT INDEX_DIR --lang LANG (--server 'CMD ARGS…' | --links FILE)
                       [--definitions N] [--references N] [--seed S] [--include DIR]…
                       [--exts .ts,.tsx] [--init-options JSON] [--timeout SECS] [--label TEXT]
                       [--index-wait SECS]

LANG is one of go, javascript, typescript, c, cpp, java: it chooses the files asked about (by
extension), the keywords left out and the LSP languageId. The server runs with ROOT as its
working directory and root URI. --include limits the files questions are drawn from (relative
directories; answers anywhere in ROOT still count).

Samples (fixed seed, so every run asks the same questions, as long as the server answers the same):
  definition: identifier tokens drawn from every file of the language (comments, strings and
              keywords left out), asked in shuffled order until N were asked; a token the server
              answers with its own position (a declaration's name) is skipped, as navigate.py
              leaves out the names right after `def`/`class`. Server: textDocument/definition.
  references: function, method, class, interface, struct, enum and top-level variable and
              constant definitions from the server's textDocument/documentSymbol, N of them (a
              symbol the server's definition sends elsewhere is an import or an alias, skipped).
              Server: textDocument/references with includeDeclaration false; tack's lines whose
              relation is "definition" are left out of its answer to match. A resolved tack
              line the server's references lack but its definition (asked at the name on that
              line) leads back to the definition is "confirmed": a row counts those as right.
              An answer over tack's cap of 500 resolved lines is left out, its totals printed.
When the server's answer is itself a name whose definition is elsewhere (tsserver answers an
imported class with `export { Markdown }`), that next answer counts too. Go: a package
qualifier's answer is, for gopls 0.5, the import spec in the asking file; tack's answer, a file
of the imported package's directory, counts as the same answer; in C++ any `namespace NAME` line
counts for a namespace (it is reopened in every file). Only server answers inside ROOT, in files
tack indexes and not on comment lines (JSDoc), count. Precision is over tack's answer
lines, recall over the server's, both as (path, line) pairs (definition recall: questions where
tack's lines include one of the server's); "resolved" counts tack's resolved lines only,
"+candidates" counts both lists. Lines are 1-based in tack, 0-based in LSP; LSP columns are
UTF-16 code units, tack's are 1-based bytes. BENCH_VERBOSE=1 lists the disagreements on stderr
(DEF WRONG: a resolved line that is not the server's; MISS: none of the server's lines; CAND:
only among the candidates).

C and C++ (clangd): clangd's definition answers a use with the definition (the body) once its
background index has it, else the declaration; at a definition's name it answers the declaration
and at a declaration's the definition (its toggle). So a token counts as a declaration's own name
(not a question) also when the server's answer, asked again, leads back to it; the one-hop
`further` is off (it would add the prototype to every answer). clangd answers as gold whatever it
answers: a use whose only in-corpus declaration is a prototype (defined in assembly, or in code
the compile flags leave out) has the prototype as its answer, and a pure virtual method its
in-class declaration. Reference questions are the documentSymbol entries that are definitions
(their range holds a `{`, or a variable without `extern`); a definition whose answer is its own
declaration, which leads back to it, is no alias. --index-wait waits for the background index
($/progress) before the questions. References: includeDeclaration false, and the declaration
lines clangd adds with includeDeclaration true (prototypes, the in-class declaration) are left
out of tack's answer too (tack lists them as references), counted apart; a server location whose
text is not the name (a macro invocation whose expansion names it) is left out of the server's.
Code the compile flags leave out (the other branch of an #if: clangd's semantic tokens mark its
lines "comment") is not asked about, since clangd answers there by name alone, and tack's
reference lines there are left out (counted); tack's wrong definition lines there are counted.
C, C++ and Java: a tack line at the head of a multi-line definition (a return type above the
name, `typedef struct {` above `} name;`) counts as the server's name line when the server's
symbol range (documentSymbol; javac: the declaration's first line) runs from it to that name.

Java (--links, no server): JavacNav.java attributes the corpus with javac and writes, for every
identifier, member select and method reference, the in-corpus declaration javac resolves it to
(a `new T(…)` also to T's explicit constructor: either answer counts; a static import's name to
every member so named), and every declaration's name. Those links answer definition (a declaration's name answers itself), references (the
links into a declaration) and documentSymbol (classes, interfaces, enums, methods). A name javac
did not resolve (its type is in a missing dependency), a package name and a token javac has no
tree for are not questions (counted apart), and a tack reference line where javac left the same
name unresolved is left out of tack's answer (counted).
"""

import argparse
import json
import os
import queue
import random
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tack_rpc import Tack  # noqa: E402

GO_KEYWORDS = set(
    "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var".split()
)
JS_KEYWORDS = set(
    "break case catch class const continue debugger default delete do else export extends false "
    "finally for function if import in instanceof new null return super switch this throw true try "
    "typeof var void while with yield let static await async of get set from as undefined arguments".split()
)
# CommonJS's module objects: tsserver answers them with the assignment or the file itself.
JS_ONLY = {"exports", "module"}
TS_KEYWORDS = JS_KEYWORDS | set(
    "enum implements interface package private protected public abstract declare is keyof readonly "
    "type namespace module infer never unknown any number string boolean symbol bigint object "
    "satisfies override asserts unique accessor out".split()
)
C_KEYWORDS = set(
    "auto break case char const continue default do double else enum extern float for goto if inline "
    "int long register restrict return short signed sizeof static struct switch typedef union "
    "unsigned void volatile while _Bool _Complex _Imaginary bool true false NULL".split()
)
CPP_KEYWORDS = C_KEYWORDS | set(
    "alignas alignof and asm catch class constexpr consteval constinit decltype delete explicit "
    "export friend mutable namespace new noexcept not nullptr operator or override final private "
    "protected public template this throw try typeid typename using virtual co_await co_return "
    "co_yield concept requires static_assert thread_local".split()
)
JAVA_KEYWORDS = set(
    "abstract assert boolean break byte case catch char class const continue default do double else "
    "enum extends final finally float for goto if implements import instanceof int interface long "
    "native new package private protected public return short static strictfp super switch "
    "synchronized this throw throws transient try void volatile while true false null var record "
    "yield sealed permits".split()
)

JS_EXTS = (".js", ".jsx", ".mjs", ".cjs")
TS_EXTS = (".ts", ".mts", ".cts")
TSX = (".tsx",)  # answers count there; questions come from it only with --exts (JSX text is not skipped)
LANGS = {
    # exts: the files questions come from; answers: the files whose answers count (the ones tack
    # indexes for this language family); template: `…${…}…` literals; regex: `/…/` literals.
    "go": dict(exts=(".go",), answers=(".go",), keywords=GO_KEYWORDS, ids={".go": "go"}),
    "javascript": dict(exts=JS_EXTS, answers=JS_EXTS + TS_EXTS + TSX, keywords=JS_KEYWORDS | JS_ONLY, template=True, regex=True,
                       ids={".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"}),
    "typescript": dict(exts=TS_EXTS, answers=JS_EXTS + TS_EXTS + TSX, keywords=TS_KEYWORDS, template=True, regex=True,
                       ids={".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact"}),
    # toggle: the server's definition at a definition's name answers its declaration and back
    # (clangd); further: follow the server's answer one hop (off where answers are final).
    "c": dict(exts=(".c", ".h"), answers=(".c", ".h"), keywords=C_KEYWORDS, ids={".c": "c", ".h": "c"}, preprocessor=True,
              toggle=True, further=False, heads=True, lazy_open=True),
    "cpp": dict(exts=(".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".h"), answers=(".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx"),
                keywords=CPP_KEYWORDS, ids={}, default_id="cpp", preprocessor=True, toggle=True, further=False, heads=True, lazy_open=True),
    "java": dict(exts=(".java",), answers=(".java",), keywords=JAVA_KEYWORDS, ids={".java": "java"}, further=False, heads=True),
}

# SymbolKind: Class 5, Method 6, Enum 10, Interface 11, Function 12, Variable 13, Constant 14, Struct 23.
REFERENCE_KINDS = {5, 6, 10, 11, 12, 23}
TOP_LEVEL_KINDS = {13, 14}
SKIP_DIRS = {"node_modules", ".git", "dist", "build", "target", "__pycache__"}


# ---------------------------------------------------------------------------------------------
# Tokens


def identifier_tokens(source, lang):
    """(1-based line, 0-based char column, name) of every identifier outside comments, strings and
    numbers, keywords left out. A C-family scanner: `//` and `/* */` comments, '…' "…" strings with
    escapes, `…` (Go raw strings; JS template literals, whose `${…}` parts are code), JS regex
    literals where an operand is expected, C preprocessor lines other than `#define`/`#if`."""
    spec = LANGS[lang]
    keywords = spec["keywords"]
    template, regex_ok, preprocessor = spec.get("template"), spec.get("regex"), spec.get("preprocessor")
    out = []
    i, n = 0, len(source)
    line, line_start = 1, 0
    # A stack of brace depths at which a template literal's `${` was opened.
    template_stack = []
    depth = 0
    prev = ""  # the previous significant token, for telling a regex from a division

    def newline_at(k):
        nonlocal line, line_start
        line += 1
        line_start = k + 1

    def skip_string(k, quote):
        # k is just after the opening quote; returns the index after the closing one.
        while k < n:
            c = source[k]
            if c == "\\" and quote != "`raw":
                k += 2
                continue
            if c == "\n":
                newline_at(k)
                if quote in ("'", '"'):
                    return k + 1  # an unterminated string ends at the line
            if quote == "`raw" and c == "`":
                return k + 1
            if c == quote:
                return k + 1
            k += 1
        return k

    def scan_template(k):
        # k is just after "`" or just after the "}" closing a `${…}`; returns (index, opened_expr).
        while k < n:
            c = source[k]
            if c == "\\":
                k += 2
                continue
            if c == "\n":
                newline_at(k)
            if c == "`":
                return k + 1, False
            if c == "$" and k + 1 < n and source[k + 1] == "{":
                return k + 2, True
            k += 1
        return k, False

    while i < n:
        c = source[i]
        if c == "\n":
            newline_at(i)
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if preprocessor and c == "#" and source[line_start:i].strip() == "":
            directive = source[i + 1 : i + 40].lstrip().split(None, 1)
            if not directive or directive[0] not in ("define", "if", "elif", "ifdef", "ifndef"):
                while i < n and source[i] != "\n":  # #include <…>, #pragma: no questions there
                    if source[i] == "\\" and i + 1 < n and source[i + 1] == "\n":
                        newline_at(i + 1)
                        i += 1
                    i += 1
                continue
            i += 1
            prev = "#"
            continue
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 1
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if source[k] == "\n":
                    newline_at(k)
            i = end
            continue
        if c in "'\"":
            i = skip_string(i + 1, c)
            prev = "str"
            continue
        if c == "`":
            if template:
                i, opened = scan_template(i + 1)
                if opened:
                    template_stack.append(depth)
                    depth += 1
                    prev = "("
                else:
                    prev = "str"
            else:
                i = skip_string(i + 1, "`raw")
                prev = "str"
            continue
        if c == "{":
            depth += 1
            prev = "{"
            i += 1
            continue
        if c == "}":
            depth -= 1
            i += 1
            if template_stack and depth == template_stack[-1]:
                template_stack.pop()
                i, opened = scan_template(i)
                if opened:
                    template_stack.append(depth)
                    depth += 1
                    prev = "("
                else:
                    prev = "str"
            else:
                prev = "}"
            continue
        if c.isdigit() or (c == "." and i + 1 < n and source[i + 1].isdigit()):
            k = i + 1
            while k < n and (source[k].isalnum() or source[k] in "_." or (source[k] in "+-" and source[k - 1] in "eEpP")):
                k += 1
            i = k
            prev = "num"
            continue
        if c.isalpha() or c in "_$":
            k = i + 1
            while k < n and (source[k].isalnum() or source[k] in "_$"):
                k += 1
            word = source[i:k]
            if word not in keywords and word != "_" and prev != "package" and not (c == "$" and len(word) == 1 and lang == "go"):
                out.append((line, i - line_start, word))  # (`package x` names no definition: left out)
            prev = word if word in keywords else "id"
            i = k
            continue
        if c == "/" and regex_ok and (prev == "" or (prev not in ("id", "num", "str", ")", "]", "}") and
                                      (not prev[0].isalpha() or prev in ("return", "typeof", "case", "in", "of", "new",
                                                                          "delete", "void", "throw", "instanceof",
                                                                          "yield", "await", "else", "do")))):
            k = i + 1
            in_class = False
            while k < n and source[k] != "\n":
                ch = source[k]
                if ch == "\\":
                    k += 2
                    continue
                if ch == "[":
                    in_class = True
                elif ch == "]":
                    in_class = False
                elif ch == "/" and not in_class:
                    break
                k += 1
            k += 1
            while k < n and source[k].isalpha():
                k += 1
            i = k
            prev = "str"
            continue
        prev = c
        i += 1
    return out


def utf16_column(line_text, char_col):
    return len(line_text[:char_col].encode("utf-16-le")) // 2


def char_column_of_utf16(line_text, units):
    count = 0
    for index, ch in enumerate(line_text):
        if count >= units:
            return index
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def byte_column(line_text, char_col):
    return len(line_text[:char_col].encode("utf-8")) + 1


def percentile(samples, p):
    samples = sorted(samples)
    return samples[int(p * (len(samples) - 1))] if samples else float("nan")


# ---------------------------------------------------------------------------------------------
# LSP over stdio


class LspError(Exception):
    pass


class Lsp:
    """A language server over stdio: Content-Length framed JSON-RPC, one request at a time, the
    server's own requests (configuration, progress, registrations) answered with nulls."""

    def __init__(self, command, root, init_options=None, log_path=None):
        self.root = root
        self.log = open(log_path, "wb") if log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.messages = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.next_id = 0
        self.opened = set()
        self.progress = {}  # token → still running
        self.progress_seen = 0.0  # when $/progress last said something
        uri = self.uri("")
        caps = {
            "workspace": {"configuration": True, "workspaceFolders": True},
            "window": {"workDoneProgress": True},
            "textDocument": {
                "synchronization": {"didSave": False},
                "definition": {"linkSupport": False},
                "references": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "publishDiagnostics": {},
            },
            "general": {"positionEncodings": ["utf-16"]},
        }
        params = {"processId": os.getpid(), "rootUri": uri, "rootPath": root, "capabilities": caps,
                  "workspaceFolders": [{"uri": uri, "name": os.path.basename(root)}]}
        if init_options is not None:
            params["initializationOptions"] = init_options
        self.capabilities = self.request("initialize", params, timeout=300).get("capabilities", {})
        self.notify("initialized", {})

    def uri(self, rel):
        return "file://" + urllib.parse.quote(os.path.join(self.root, rel) if rel else self.root)

    def rel(self, uri):
        """The corpus-relative path of a file: URI, or None outside the corpus."""
        if not uri.startswith("file://"):
            return None
        path = os.path.realpath(urllib.request.url2pathname(urllib.parse.urlparse(uri).path))
        if not path.startswith(self.root + os.sep):
            return None
        return os.path.relpath(path, self.root)

    def _read(self):
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    self.messages.put(None)
                    return
                header = header.strip()
                if not header:
                    break
                name, _, value = header.decode("ascii", "replace").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            body = stream.read(length)
            self.messages.put(json.loads(body))

    def _send(self, message):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _handle(self, msg):
        """A message that is not the awaited reply: answer the server's requests, note progress."""
        if "method" in msg and "id" in msg:
            method = msg["method"]
            result = None
            if method == "workspace/configuration":
                result = [None for _ in msg.get("params", {}).get("items", [])]
            elif method == "workspace/workspaceFolders":
                result = [{"uri": self.uri(""), "name": os.path.basename(self.root)}]
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        elif msg.get("method") == "$/progress":
            params = msg.get("params", {})
            kind = params.get("value", {}).get("kind")
            self.progress_seen = time.monotonic()
            if kind == "begin":
                self.progress[params.get("token")] = True
            elif kind == "end":
                self.progress.pop(params.get("token"), None)

    def request(self, method, params, timeout=120):
        self.next_id += 1
        want = self.next_id
        self._send({"jsonrpc": "2.0", "id": want, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.notify("$/cancelRequest", {"id": want})
                raise LspError(f"{method}: no answer in {timeout} s")
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise LspError(f"{method}: the server exited (code {self.proc.poll()})")
            if msg.get("id") == want and "method" not in msg:
                if "error" in msg:
                    raise LspError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result")
            self._handle(msg)

    def drain(self, seconds):
        """Handle whatever the server sends for a while (progress, diagnostics, its requests)."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                return
            if msg is None:
                return
            self._handle(msg)

    def wait_idle(self, seconds, quiet=10.0):
        """Handle messages until no $/progress runs (clangd's background index) and none was
        reported for `quiet` seconds, or `seconds` passed; whether it went idle in time."""
        deadline = time.monotonic() + seconds
        started = time.monotonic()
        while time.monotonic() < deadline:
            try:
                msg = self.messages.get(timeout=1)
            except queue.Empty:
                msg = False
            if msg is None:
                return False
            if msg:
                self._handle(msg)
            if not self.progress and time.monotonic() - max(self.progress_seen, started) > quiet:
                return True
        return False

    def open(self, rel, text, language_id):
        if rel not in self.opened:
            self.opened.add(rel)
            self.notify("textDocument/didOpen", {"textDocument": {"uri": self.uri(rel), "languageId": language_id, "version": 1, "text": text}})

    def locations(self, result):
        """(relative path, 0-based line, 0-based start character, end line, end character) of a
        Location, Location[] or LocationLink[] answer, the corpus's only."""
        if not result:
            return []
        if isinstance(result, dict):
            result = [result]
        out = []
        for loc in result:
            uri = loc.get("uri") or loc.get("targetUri")
            rng = loc.get("range") or loc.get("targetSelectionRange") or loc.get("targetRange")
            rel = self.rel(uri) if uri else None
            if rel is not None and rng:
                out.append((rel, rng["start"]["line"], rng["start"]["character"], rng["end"]["line"], rng["end"]["character"]))
        return out

    def close(self):
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()
            self.proc.wait()


class Links(Lsp):
    """javac's resolution as a language server (see the docstring): the records JavacNav.java
    wrote answer definition, references and documentSymbol at the positions they name."""

    SYMBOL_KINDS = {"CLASS": 5, "RECORD": 5, "METHOD": 6, "CONSTRUCTOR": 9, "FIELD": 8, "ENUM": 10,
                    "INTERFACE": 11, "ANNOTATION_TYPE": 11, "ENUM_CONSTANT": 22}

    def __init__(self, path, root):
        self.root = root
        self.opened = set()
        self.capabilities = {}
        self.declarations = {}  # (rel, 0-based line, column) → (name, kind, first line 0-based)
        self.targets = {}  # (rel, line, column) → [(target rel, line, column, name)]
        self.outside = set()
        self.packages = set()
        self.unresolved = set()
        self.unresolved_names = {}  # (rel, 1-based line) → names javac left unresolved there
        self.into = {}  # a declaration → the uses whose first target it is
        for record in open(path, encoding="utf-8"):
            f = record.rstrip("\n").split("\t")
            kind, rel, line, col, name = f[0], f[1], int(f[2]) - 1, int(f[3]), f[4]
            at = (rel, line, col)
            if kind == "D":
                self.declarations[at] = (name, f[5], int(f[6]) - 1)
            elif kind in ("L", "C"):
                target = (f[5], int(f[6]) - 1, int(f[7]), name)
                self.targets.setdefault(at, [])
                if kind == "L":  # a use's declaration first, a constructor after
                    self.targets[at].insert(0, target)
                    self.into.setdefault(target[:3], []).append((rel, line, col, name))
                else:
                    self.targets[at].append(target)
            elif kind == "X":
                self.outside.add(at)
            elif kind == "P":
                self.packages.add(at)
            elif kind == "U":
                self.unresolved.add(at)
                self.unresolved_names.setdefault((rel, line + 1), set()).add(name)

    def location(self, rel, line, col, name):
        return {"uri": self.uri(rel), "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + len(name)}}}

    def request(self, method, params, timeout=None):
        doc = params.get("textDocument", {})
        rel = self.rel(doc["uri"]) if "uri" in doc else None
        if method == "textDocument/documentSymbol":
            out = []
            for (d_rel, line, col), (name, kind, first) in sorted(self.declarations.items()):
                if d_rel == rel and kind in self.SYMBOL_KINDS:
                    out.append({"name": name, "kind": self.SYMBOL_KINDS[kind],
                                "range": {"start": {"line": first, "character": 0}, "end": {"line": line, "character": col + len(name)}},
                                "selectionRange": self.location(rel, line, col, name)["range"]})
            return out
        at = (rel, params["position"]["line"], params["position"]["character"])
        if method == "textDocument/definition":
            if at in self.declarations:
                return [self.location(*at, self.declarations[at][0])]
            if at in self.targets:
                return [self.location(*t) for t in self.targets[at]]
            if at in self.outside:
                return []
            raise LspError("javac: " + ("unresolved" if at in self.unresolved else "package" if at in self.packages else "no tree"))
        if method == "textDocument/references":
            if at not in self.declarations:
                raise LspError("javac: not a declaration")
            return [self.location(*u) for u in self.into.get(at, [])]
        raise LspError(f"{method}: not answered from links")

    def notify(self, method, params):
        pass

    def open(self, rel, text, language_id):
        self.opened.add(rel)

    def drain(self, seconds):
        pass

    def wait_idle(self, seconds, quiet=10.0):
        return True

    def close(self):
        pass


# ---------------------------------------------------------------------------------------------


def corpus_files(root, exts, include):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(exts) and not name.endswith((".min.js",)):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if not include or any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in include):
                    out.append(rel)
    return sorted(out)


def symbol_definitions(symbols, tokens_at, depth=0):
    """(line, char column, name, kind, range) of the definitions worth asking references of, from
    a documentSymbol answer: the token at each symbol's selection range start, when it is a name;
    range is the symbol's whole range, 0-based ((line, character), (line, character)) or None."""
    out = []
    for sym in symbols or []:
        rng = sym.get("selectionRange") or sym.get("location", {}).get("range")
        kind = sym.get("kind")
        if rng and (kind in REFERENCE_KINDS or (kind in TOP_LEVEL_KINDS and depth == 0)):
            line, units = rng["start"]["line"] + 1, rng["start"]["character"]
            name = tokens_at.get((line, units))
            # The symbol's own name (`Command.SetErr`, `(*Command).SetErr`, clangd's `K::get`),
            # not a name inside it (tsserver's `module.exports` starts at `module`).
            full = sym.get("name", "")
            whole = sym.get("range")
            span = ((whole["start"]["line"], whole["start"]["character"]), (whole["end"]["line"], whole["end"]["character"])) if whole else None
            if name and (full == name or full.endswith(("." + name, ")" + name, "::" + name))):
                out.append((line, units, name, kind, span))
        out.extend(symbol_definitions(sym.get("children"), tokens_at, depth + 1))
    return out


def symbol_heads(symbols, out=None):
    """{(0-based name line): first line of the symbol's range} of every symbol of a
    documentSymbol answer, nested ones too: where a definition whose name is on that line starts."""
    out = {} if out is None else out
    for sym in symbols or []:
        sel, whole = sym.get("selectionRange"), sym.get("range")
        if sel and whole and whole["start"]["line"] < sel["start"]["line"]:
            line = sel["start"]["line"]
            out[line] = min(out.get(line, line), whole["start"]["line"])
        symbol_heads(sym.get("children"), out)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tack")
    parser.add_argument("root")
    parser.add_argument("index_dir")
    parser.add_argument("--lang", required=True, choices=sorted(LANGS))
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--server", help="the language server's command line, one string")
    source.add_argument("--links", help="a file of javac's resolved names (bench/JavacNav.java) instead of a server")
    parser.add_argument("--definitions", type=int, default=300)
    parser.add_argument("--references", type=int, default=150)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--exts", default=None, help="the extensions questions come from, comma-separated (default: the language's)")
    parser.add_argument("--include", action="append", default=[], help="draw questions from files under this relative directory only")
    parser.add_argument("--init-options", default=None, help="initializationOptions, as JSON")
    parser.add_argument("--timeout", type=float, default=120, help="seconds one server request may take")
    parser.add_argument("--warmup", type=float, default=5, help="seconds to let the server load after opening the files")
    parser.add_argument("--index-wait", type=float, default=0, help="seconds at most to wait, after the symbols, for the server's $/progress (clangd's background index) to end")
    parser.add_argument("--label", default=None, help="the table's title (default: LANG vs the server's program name)")
    args = parser.parse_args()

    verbose = bool(os.environ.get("BENCH_VERBOSE"))
    root = os.path.realpath(args.root)
    spec = LANGS[args.lang]
    rng = random.Random(args.seed)
    started = time.monotonic()

    def log(text):
        print(f"[{time.monotonic() - started:6.1f}s] {text}", file=sys.stderr, flush=True)

    if args.exts:
        spec = dict(spec, exts=tuple(e if e.startswith(".") else "." + e for e in args.exts.split(",")))
    files = corpus_files(root, spec["exts"], args.include)
    sources, lines_of, tokens = {}, {}, []
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                source = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        sources[rel] = source
        lines_of[rel] = source.split("\n")
        tokens.extend((rel, *t) for t in identifier_tokens(source, args.lang))
    log(f"{len(sources)} {args.lang} files, {len(tokens)} identifier tokens")

    every_id = {ext: lid for other in LANGS.values() for ext, lid in other["ids"].items()}

    def language_id(rel):
        ext = os.path.splitext(rel)[1]
        return spec["ids"].get(ext) or every_id.get(ext) or spec.get("default_id", args.lang)

    os.makedirs(args.index_dir, exist_ok=True)
    if args.links:
        command = ["javac"]
        lsp = Links(args.links, root)
        log(f"javac's links from {args.links}: {len(lsp.targets)} resolved uses, {len(lsp.declarations)} declarations, "
            f"{len(lsp.unresolved)} names unresolved, {len(lsp.outside)} outside the corpus")
    else:
        command = shlex.split(args.server)
        init_options = json.loads(args.init_options) if args.init_options else None
        server_log = os.path.join(args.index_dir, "server.log")
        lsp = Lsp(command, root, init_options, log_path=server_log)
        log(f"{command[0]} initialized (its stderr: {server_log})")
    toggle, heads_on = spec.get("toggle"), spec.get("heads")

    def is_definition(rel, span, kind):
        """C and C++: whether a documentSymbol entry defines (a body, a variable not `extern`)."""
        if not toggle or span is None:
            return True
        (l0, c0), (l1, c1) = span
        text = "\n".join(lines_of[rel][l0 : l1 + 1])
        if kind in TOP_LEVEL_KINDS:
            return not text.lstrip().startswith("extern")
        return "{" in text

    # Every file is opened, and its symbols asked: the reference questions come from them, and
    # servers that build projects from open files (tsserver's inferred projects) then know them all.
    # (clangd builds each open file: it gets them one at a time, each just before its symbols.)
    defs = []
    heads = {}  # rel → {0-based name line: 0-based first line of that definition}
    # clangd's semantic tokens mark the lines the preprocessor leaves out as "comment" (inactive
    # code): 1-based lines per file. clangd answers definition there by name alone (any symbol so
    # named in its index), and has no references there.
    inactive = {}
    legend = ((lsp.capabilities.get("semanticTokensProvider") or {}).get("legend") or {}).get("tokenTypes", [])
    inactive_type = legend.index("comment") if toggle and "comment" in legend else None
    symbol_failures = declarations_only = 0
    if not spec.get("lazy_open"):
        for rel in sorted(sources):
            lsp.open(rel, sources[rel], language_id(rel))
        lsp.drain(args.warmup)
    for rel in sorted(sources):
        lsp.open(rel, sources[rel], language_id(rel))
        tokens_at = {}
        for line, col, name in identifier_tokens(sources[rel], args.lang):
            tokens_at[(line, utf16_column(lines_of[rel][line - 1], col))] = name
        try:
            symbols = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": lsp.uri(rel)}}, timeout=max(args.timeout, 300))
        except LspError as e:
            symbol_failures += 1
            log(f"documentSymbol {rel}: {e}")
            continue
        heads[rel] = symbol_heads(symbols)
        if inactive_type is not None:
            try:
                data = (lsp.request("textDocument/semanticTokens/full", {"textDocument": {"uri": lsp.uri(rel)}}, timeout=max(args.timeout, 300)) or {}).get("data", [])
            except LspError as e:
                data = []
                log(f"semanticTokens {rel}: {e}")
            line0, lines = 0, set()
            for k in range(0, len(data) - 4, 5):
                line0 += data[k]
                if data[k + 3] == inactive_type:
                    lines.add(line0 + 1)
            inactive[rel] = lines
        for line, units, name, kind, span in symbol_definitions(symbols, tokens_at):
            if not is_definition(rel, span, kind):
                declarations_only += 1
                continue
            col = char_column_of_utf16(lines_of[rel][line - 1], units)
            defs.append((rel, line, col, name))
    defs = sorted(set(defs))
    log(f"{len(defs)} definitions from documentSymbol ({symbol_failures} files failed"
        f"{f', {declarations_only} declarations without a body left out' if toggle else ''})"
        f"{f'; {sum(map(len, inactive.values()))} inactive lines' if inactive_type is not None else ''}")
    if args.index_wait:
        log("waiting for the server's index ($/progress)")
        idle = lsp.wait_idle(args.index_wait)
        log("server idle" if idle else f"server still busy after {args.index_wait:.0f} s: going on")

    tack = Tack(args.tack, root, args.index_dir, extra_args=("--profile", "full"))
    # The first call waits for the index; it is not timed.
    tack.call("symbols", {"query": "x"})
    log("tack indexed")

    def place_set(hits, drop_definitions=False):
        return {(h["path"], h["line"]) for h in hits if not (drop_definitions and h.get("relation") == "definition")}

    answers_ok = spec["answers"]

    def further(locations):
        """One hop past the server's answer, when that answer is itself a name that leads on
        (tsserver stops at `export { Markdown }` or at the shorthand `createError,` in a
        `module.exports = {…}`, one step short of the class or function): both count."""
        out = set()
        if not spec.get("further", True):
            return out
        for l_rel, l_line, start, *_ in locations:
            if not l_rel.endswith(answers_ok):
                continue
            try:
                on = lsp.locations(lsp.request("textDocument/definition", {"textDocument": {"uri": lsp.uri(l_rel)}, "position": {"line": l_line, "character": start}}, timeout=args.timeout))
            except LspError:
                continue
            if on and not any(o[0] == l_rel and o[1] == l_line for o in on):
                out |= gold_of(on)
        return out

    go_module = ""
    if args.lang == "go" and os.path.exists(os.path.join(root, "go.mod")):
        for text_line in open(os.path.join(root, "go.mod"), encoding="utf-8"):
            if text_line.startswith("module "):
                go_module = text_line.split()[1].strip('"')

    def go_package_answers(gold, hits):
        """A package qualifier (`cobra.Command`): gopls 0.5 answers with the import spec in the
        asking file, tack with a file of the imported package's directory (its line 1, or its
        `package` clause). Both name the package: tack's answer counts as right."""
        out = set()
        for g_rel, g_line in gold:
            spec_text = lines_of[g_rel][g_line - 1] if g_rel in lines_of and g_line <= len(lines_of[g_rel]) else ""
            match = re.match(r'\s*(?:import\s+)?(?:[\w.]+\s+)?"([^"]+)"', spec_text)
            if not match or not go_module:
                continue
            path = match.group(1)
            directory = "" if path == go_module else (path[len(go_module) + 1 :] if path.startswith(go_module + "/") else None)
            for h in hits:
                if directory is not None and os.path.dirname(h["path"]) == directory and (h["text"].startswith("package ") or h["line"] == 1):
                    out.add((h["path"], h["line"]))
        return out

    def namespace_answers(gold, hits, name):
        """C++: a namespace is reopened (`namespace leveldb {` in every file); clangd answers its
        first declaration, tack one of them: any `namespace NAME` line counts as the namespace."""
        pattern = re.compile(r"\bnamespace\s+(?:\w+::)*" + re.escape(name) + r"\b")
        if not any(pattern.search(text_of(g_rel, g_line)) for g_rel, g_line in gold):
            return set()
        return {(h["path"], h["line"]) for h in hits if pattern.search(h["text"])}

    def text_of(rel, line):
        if rel not in lines_of:
            try:
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    lines_of[rel] = f.read().split("\n")
            except (OSError, UnicodeDecodeError):
                lines_of[rel] = []
        return lines_of[rel][line - 1] if line <= len(lines_of[rel]) else ""

    def gold_of(locations):
        """The server's answers that count: in files tack indexes, and not in comments (tsserver
        answers from JSDoc: `@param {Suite} suite`, `{@link name}`, `@typedef {import(…)}`;
        tack reads no comments)."""
        return {(rel, line + 1) for rel, line, *_ in locations
                if rel.endswith(answers_ok) and not text_of(rel, line + 1).lstrip().startswith(("*", "/*", "//"))}

    def definition_at(l_rel, l_line, start):
        """The server's definition at a 0-based position of any file (opened first)."""
        if l_rel not in lsp.opened and text_of(l_rel, 1) is not None and lines_of.get(l_rel):
            lsp.open(l_rel, "\n".join(lines_of[l_rel]), language_id(l_rel))
        try:
            return lsp.locations(lsp.request("textDocument/definition", {"textDocument": {"uri": lsp.uri(l_rel)}, "position": {"line": l_line, "character": start}}, timeout=args.timeout))
        except LspError:
            return []

    def leads_back(locations, rel, line0, units):
        """clangd's toggle: one of the answers, asked definition, answers the position asked
        (0-based line, UTF-16 column): that position is a declaration's or definition's name."""
        for l_rel, l_line, start, *_ in locations:
            if (l_rel, l_line) == (rel, line0):
                continue
            for o_rel, o_line, o_start, o_end_line, o_end in definition_at(l_rel, l_line, start):
                if o_rel == rel and o_line == line0 and o_start <= units < (o_end if o_end_line == o_line else 1 << 30):
                    return True
        return False

    def align(places, gold):
        """tack's (path, line) at the head of a multi-line definition (a return type or `typedef
        struct {` above the name) as the server's name line, when the server's symbol range runs
        from that line to the name; how many moved."""
        if not heads_on:
            return places, 0
        out, moved = set(), 0
        for p, l in places:
            target = None
            if (p, l) not in gold:
                for g_rel, g_line in gold:
                    first = heads.get(g_rel, {}).get(g_line - 1)
                    if g_rel == p and first is not None and first <= l - 1 < g_line - 1:
                        target = (g_rel, g_line)
                        break
            out.add(target or (p, l))
            moved += target is not None
        return out, moved

    def range_text(location):
        l_rel, l_line, start, end_line, end = location
        text_line = text_of(l_rel, l_line + 1)
        if end_line != l_line:
            return None
        return text_line[char_column_of_utf16(text_line, start) : char_column_of_utf16(text_line, end)]

    # -- definition ---------------------------------------------------------------------------
    order = list(range(len(tokens)))
    rng.shuffle(order)
    d = {k: 0 for k in ["asked", "declarations", "toggles", "skipped", "lines_res", "hit_res", "lines_all", "hit_all", "gold", "found_res", "found_all", "heads",
                        "inactive", "wrong_inactive"]}
    latency_def, latency_server_def = [], []
    skip_reasons = {}
    for index in order:
        if d["asked"] >= args.definitions:
            break
        rel, line, col, name = tokens[index]
        if line in inactive.get(rel, ()):
            d["inactive"] += 1
            continue
        line_text = lines_of[rel][line - 1]
        units = utf16_column(line_text, col)
        position = {"textDocument": {"uri": lsp.uri(rel)}, "position": {"line": line - 1, "character": units}}
        t0 = time.perf_counter()
        try:
            locations = lsp.locations(lsp.request("textDocument/definition", position, timeout=args.timeout))
        except LspError as e:
            d["skipped"] += 1
            skip_reasons[str(e)] = skip_reasons.get(str(e), 0) + 1
            if verbose and not args.links:
                log(f"definition {rel}:{line}:{col}: {e}")
            continue
        latency_server_def.append(time.perf_counter() - t0)
        # The name of a declaration answers with itself: not a question (see the docstring).
        if any(l_rel == rel and l_line == line - 1 and start <= units < (end if end_line == l_line else 1 << 30)
               for l_rel, l_line, start, end_line, end in locations):
            d["declarations"] += 1
            continue
        if toggle and leads_back(locations, rel, line - 1, units):
            d["declarations"] += 1
            d["toggles"] += 1
            continue
        gold = gold_of(locations) | further(locations)
        data, text, is_error, elapsed = tack.call("definition", {"path": rel, "line": line, "column": byte_column(line_text, col)})
        if args.lang == "go" and data and not is_error:
            gold |= go_package_answers(gold, data["resolved"] + data["candidates"])
        if args.lang == "cpp" and data and not is_error:
            gold |= namespace_answers(gold, data["resolved"] + data["candidates"], name)
        latency_def.append(elapsed)
        d["asked"] += 1
        resolved = place_set(data["resolved"]) if data and not is_error else set()
        candidates = place_set(data["candidates"]) if data and not is_error else set()
        resolved, moved = align(resolved, gold)
        candidates, _ = align(candidates, gold)
        d["heads"] += moved
        d["wrong_inactive"] += sum(l in inactive.get(p, ()) for p, l in resolved - gold)
        both = resolved | candidates
        d["lines_res"] += len(resolved)
        d["hit_res"] += len(resolved & gold)
        d["lines_all"] += len(both)
        d["hit_all"] += len(both & gold)
        if gold:
            d["gold"] += 1
            d["found_res"] += bool(resolved & gold)
            d["found_all"] += bool(both & gold)
        if verbose and (resolved - gold or (gold and not resolved & gold)):
            kind = "WRONG" if resolved - gold else ("CAND" if both & gold else "MISS")
            print(f"DEF {kind} {rel}:{line}:{col + 1} {name} server={sorted(gold)} tack={sorted(resolved)} cand={len(candidates)}"
                  f"{' (cand has it)' if (both & gold) - resolved else ''} | {line_text.strip()[:120]}", file=sys.stderr)
    log(f"definition: {d['asked']} asked")

    # -- references ---------------------------------------------------------------------------
    def confirm(extra, d_rel, d_line, name):
        """tack's resolved reference lines the server's references left out but its definition
        confirms: the name on that line, asked `definition`, leads to the definition asked
        about (tsserver's references miss `const {f} = require("./esm.js")` in a .cjs file,
        which its definition follows)."""
        out = set()
        for e_rel, e_line in extra:
            text_of(e_rel, e_line)
            if not lines_of[e_rel]:
                continue
            if e_rel not in lsp.opened:
                lsp.open(e_rel, "\n".join(lines_of[e_rel]), language_id(e_rel))
            text_line = lines_of[e_rel][e_line - 1] if e_line <= len(lines_of[e_rel]) else ""
            for m in re.finditer(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", text_line):
                try:
                    on = lsp.locations(lsp.request("textDocument/definition", {"textDocument": {"uri": lsp.uri(e_rel)}, "position": {"line": e_line - 1, "character": utf16_column(text_line, m.start())}}, timeout=args.timeout))
                except LspError:
                    continue
                if (d_rel, d_line) in gold_of(on) | further(on):
                    out.add((e_rel, e_line))
                    break
        return out

    ref_order = list(defs)
    rng.shuffle(ref_order)
    r = {k: 0 for k in ["asked", "skipped", "aliases", "res", "res_hit", "all", "all_hit", "gold", "capped", "cand_capped", "confirmed",
                        "declaration_lines", "macro_sites", "unresolved_lines", "inactive_lines"]}
    latency_ref, latency_server_ref = [], []
    capped = []
    for rel, line, col, name in ref_order:
        if r["asked"] >= args.references:
            break
        line_text = lines_of[rel][line - 1]
        units = utf16_column(line_text, col)
        # A symbol whose definition is elsewhere is an import or an alias (`const {x} = require(…)`,
        # `var color = Base.color` in JS), not a definition: not a question.
        try:
            here = lsp.locations(lsp.request("textDocument/definition", {"textDocument": {"uri": lsp.uri(rel)}, "position": {"line": line - 1, "character": units}}, timeout=args.timeout))
        except LspError:
            here = []
        if here and not any(l_rel == rel and l_line == line - 1 for l_rel, l_line, *_ in here) and not (toggle and leads_back(here, rel, line - 1, units)):
            r["aliases"] += 1
            continue
        position = {"textDocument": {"uri": lsp.uri(rel)}, "position": {"line": line - 1, "character": units},
                    "context": {"includeDeclaration": False}}
        t0 = time.perf_counter()
        try:
            locations = lsp.locations(lsp.request("textDocument/references", position, timeout=args.timeout))
        except LspError as e:
            r["skipped"] += 1
            log(f"references {rel}:{line}:{col}: {e}")
            continue
        latency_server_ref.append(time.perf_counter() - t0)
        declaration_lines = set()
        if toggle:
            # A macro invocation whose expansion names the symbol: clangd's location is the
            # invocation (`TWICE(x)`), whose text is not the name; tack's is the `#define`.
            named = [loc for loc in locations if range_text(loc) == name]
            r["macro_sites"] += len(gold_of(locations) - gold_of(named) - {(rel, line)})
            locations = named
            try:
                with_declarations = lsp.locations(lsp.request("textDocument/references", dict(position, context={"includeDeclaration": True}), timeout=args.timeout))
            except LspError:
                with_declarations = []
            declaration_lines = gold_of(with_declarations) - gold_of(locations) - {(rel, line)}
        gold = gold_of(locations) - {(rel, line)}
        data, text, is_error, elapsed = tack.call("references", {"path": rel, "line": line, "column": byte_column(line_text, col), "limit": 500})
        latency_ref.append(elapsed)
        r["asked"] += 1
        if is_error or not data:
            resolved, candidates = set(), set()
        elif data["total_resolved"] > 500:
            # The tool lists 500 lines of each kind at most: the lines are not all there to
            # compare, only the totals, printed below and left out of the line counts. (Over 500
            # candidates only makes the "+candidates" row a little low: counted apart.)
            r["capped"] += 1
            capped.append(f"{rel}:{line} {name}: tack {data['total_resolved']} resolved and {data['total_candidates']} candidates, server {len(gold)} lines")
            continue
        else:
            resolved = place_set(data["resolved"], drop_definitions=True) - {(rel, line)}
            candidates = place_set(data["candidates"], drop_definitions=True) - {(rel, line)}
            r["cand_capped"] += data["total_candidates"] > 500
            # Declarations the server leaves out (includeDeclaration false): out of tack's too.
            r["declaration_lines"] += len(resolved & declaration_lines)
            resolved -= declaration_lines
            candidates -= declaration_lines
            # Code the preprocessor leaves out: the server has no references there.
            blind = {(p, l) for p, l in resolved | candidates if (p, l) not in gold and l in inactive.get(p, ())}
            r["inactive_lines"] += len(resolved & blind)
            resolved -= blind
            candidates -= blind
            if args.links:
                # javac resolved nothing there (a missing dependency): no answer to compare.
                blind = {(p, l) for p, l in resolved | candidates if (p, l) not in gold and name in lsp.unresolved_names.get((p, l), ())}
                r["unresolved_lines"] += len(resolved & blind)
                resolved -= blind
                candidates -= blind
        both = resolved | candidates
        confirmed = confirm(resolved - gold, rel, line, name)
        r["res"] += len(resolved)
        r["res_hit"] += len(resolved & gold)
        r["confirmed"] += len(confirmed)
        r["all"] += len(both)
        r["all_hit"] += len(both & gold)
        r["gold"] += len(gold)
        if verbose and (resolved - gold or gold - resolved):
            missing = sorted(gold - resolved)
            extra = sorted(resolved - gold)
            in_cand = len((gold - resolved) & candidates)
            print(f"REF {rel}:{line}:{col + 1} {name} server={len(gold)} tack={len(resolved)} cand={len(candidates)} "
                  f"missing={missing[:6]}{'…' if len(missing) > 6 else ''} ({in_cand} in cand) "
                  f"extra={extra[:6]}{'…' if len(extra) > 6 else ''} ({len(confirmed)} confirmed) | {line_text.strip()[:100]}", file=sys.stderr)
    log(f"references: {r['asked']} asked")
    tack.close()
    lsp.close()

    def ratio(a, b):
        return f"{a / b:.3f}" if b else "n/a"

    def ms(samples, p):
        return f"{percentile(samples, p) * 1000:.1f}" if samples else "n/a"

    server_name = os.path.basename(command[0])
    label = args.label or f"{args.lang} vs {server_name}"
    print()
    toggled = f" ({d['toggles']} of them by the answer leading back)" if toggle else ""
    skipped_what = "names javac left unresolved or that name packages" if args.links else "server errors or time-outs"
    print(f"definition: {d['asked']} positions asked ({d['declarations']} declarations' own names{toggled} and {d['skipped']} {skipped_what} skipped), "
          f"{d['gold']} with a server answer inside the corpus")
    if args.links:
        print(f"  javac: skipped {skip_reasons.get('javac: unresolved', 0)} names it left unresolved, {skip_reasons.get('javac: package', 0)} package names, "
              f"{skip_reasons.get('javac: no tree', 0)} tokens with no tree (labels)")
    if inactive_type is not None:
        print(f"  {d['inactive']} tokens in code the compile flags leave out (clangd's inactive regions) not asked; "
              f"{d['wrong_inactive']} of tack's wrong resolved lines are in such code (the other branch of an #if)")
    if heads_on:
        print(f"  {d['heads']} resolved tack lines at the head of a multi-line definition counted as the server's name line")
    print(f"references: {r['asked']} definitions asked from {len(defs)} ({r['aliases']} imports or aliases and {r['skipped']} server errors or time-outs skipped, {r['capped']} over 500 resolved lines left out, {r['cand_capped']} with candidates cut at 500), "
          f"{r['gold']} server lines")
    for text in capped:
        print(f"  over 500 lines, left out: {text}")
    if toggle:
        print(f"  {declarations_only} documentSymbol declarations without a body not asked; {r['declaration_lines']} declaration lines (prototypes, "
              f"in-class declarations, redeclarations) left out of tack's resolved answers as the server's includeDeclaration false leaves them out; "
              f"{r['macro_sites']} server locations at macro invocations left out; {r['inactive_lines']} resolved tack lines in inactive code left out")
    if args.links:
        print(f"  {r['unresolved_lines']} resolved tack lines where javac left the name unresolved left out")
    print(f"server latency p50 / p95: definition {ms(latency_server_def, 0.5)} / {ms(latency_server_def, 0.95)} ms, "
          f"references {ms(latency_server_ref, 0.5)} / {ms(latency_server_ref, 0.95)} ms; whole run {time.monotonic() - started:.0f} s")
    print()
    print(f"| {label} | precision | recall | p50 / p95 |")
    print("| --- | --- | --- | --- |")
    print(f"| `definition`, resolved | {ratio(d['hit_res'], d['lines_res'])} ({d['hit_res']}/{d['lines_res']} lines) | "
          f"{ratio(d['found_res'], d['gold'])} ({d['found_res']}/{d['gold']}) | {ms(latency_def, 0.5)} / {ms(latency_def, 0.95)} ms |")
    print(f"| `definition`, resolved + candidates | {ratio(d['hit_all'], d['lines_all'])} ({d['hit_all']}/{d['lines_all']}) | "
          f"{ratio(d['found_all'], d['gold'])} ({d['found_all']}/{d['gold']}) | |")
    print(f"| `references`, resolved | {ratio(r['res_hit'], r['res'])} ({r['res_hit']}/{r['res']} lines) | "
          f"{ratio(r['res_hit'], r['gold'])} ({r['res_hit']}/{r['gold']}) | {ms(latency_ref, 0.5)} / {ms(latency_ref, 0.95)} ms |")
    print(f"| `references`, resolved, counting the lines the server's definition confirms | "
          f"{ratio(r['res_hit'] + r['confirmed'], r['res'])} ({r['res_hit'] + r['confirmed']}/{r['res']} lines) | | |")
    print(f"| `references`, resolved + candidates | {ratio(r['all_hit'], r['all'])} ({r['all_hit']}/{r['all']}) | "
          f"{ratio(r['all_hit'], r['gold'])} ({r['all_hit']}/{r['gold']}) | |")


if __name__ == "__main__":
    main()
