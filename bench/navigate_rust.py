"""Precision, recall and latency of tack's `definition` and `references` on a Rust crate,
against rustc's own name resolution as rustdoc exports it: with `--generate-link-to-definition`
every resolved name in the crate's rendered source links to its definition's lines.

usage: navigate_rust.py TACK CRATE_DIR DOC_SRC_DIR INDEX_DIR

DOC_SRC_DIR is `target/doc/src/<crate>`; its pages mirror the crate's `src/`. Every local link
is a definition question (the link's position → its target's first line); the links into one
target are that target's references. Module links point at a whole file while tack answers
with the `mod name;` line that declares it: both count as the module.
"""

import html
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from navigate import Tack, percentile  # noqa: E402

LINK = re.compile(r'<a href="([^"]+)"[^>]*>(.*?)</a>')
TAG = re.compile(r"<[^>]+>")
LINE_NO = re.compile(r"^<a href=#\d+ id=\d+ data-nosnippet>\d+</a>")


def page_links(page, rel):
    """(line, byte column, text, target rel, target first line, target last line) per local link."""
    text = open(page, encoding="utf-8").read()
    start = text.index("<code>") + len("<code>")
    end = text.index("</code></pre>", start)
    out = []
    for line_no, line in enumerate(text[start:end].split("\n"), 1):
        line = LINE_NO.sub("", line)
        plain = ""
        at = 0
        for m in LINK.finditer(line):
            plain += html.unescape(TAG.sub("", line[at:m.start()]))
            href, label = m.group(1), html.unescape(TAG.sub("", m.group(2)))
            column = len(plain.encode("utf-8")) + 1
            plain += label
            at = m.end()
            if href.startswith("http") or "#" not in href:
                continue
            target_page, span = href.split("#", 1)
            target_rel = rel if not target_page else os.path.normpath(os.path.join(os.path.dirname(rel), target_page[: -len(".html")]))
            first, _, last = span.partition("-")
            # rustdoc links a whole path (`crate::error::Error`) to its last segment's item.
            if "::" in label:
                column += len(label[: label.rindex("::") + 2].encode("utf-8"))
                label = label[label.rindex("::") + 2 :]
            out.append((line_no, column, label, target_rel, int(first), int(last or first)))
    return out


def main():
    tack_bin, crate, doc_src, index_dir = sys.argv[1:5]
    links = []
    for dirpath, _, files in os.walk(doc_src):
        for name in sorted(files):
            if name.endswith(".rs.html"):
                page = os.path.join(dirpath, name)
                rel = "src/" + os.path.relpath(page, doc_src)[: -len(".html")]
                links.extend((rel, *link) for link in page_links(page, rel))
    links.sort()
    lines = {}
    for rel in {l[0] for l in links} | {l[4] for l in links}:
        try:
            lines[rel] = open(os.path.join(crate, rel), encoding="utf-8").read().splitlines()
        except OSError:
            lines[rel] = []

    def is_module(target_rel, first, last):
        return first == 1 and last >= len(lines.get(target_rel, [])) > 0

    def right(hit, target_rel, first, last, label):
        if (hit["path"], hit["line"]) == (target_rel, first):
            return True
        # A module: tack names the `mod x;` that declares the file.
        return is_module(target_rel, first, last) and re.search(rf"\bmod\s+{re.escape(label)}\b", hit["text"]) is not None

    pages = {l[0] for l in links}

    def rustdoc_saw(path, text, label):
        """Whether rustdoc could have linked this use: it renders no page for `#[cfg(test)]`
        modules and links nothing inside a macro's arguments."""
        if path not in pages:
            return False
        for m in re.finditer(rf"\b{re.escape(label)}\b", text):
            before = text[: m.start()]
            inside_macro = re.search(r"\w!\s*[(\[{]", before) and before.count("(") > before.count(")")
            if not inside_macro:
                return True
        return False

    tack = Tack(tack_bin, crate, index_dir)
    tack.call("symbols", {"query": "x"})
    d = {k: 0 for k in ["asked", "lines_res", "hit_res", "lines_all", "hit_all", "found_res", "found_all"]}
    latency = []
    for rel, line, column, label, target_rel, first, last in links:
        if label.endswith("!"):
            continue  # macros: tack indexes `macro_rules!` names but not their expansion
        data, text, is_error, elapsed = tack.call("definition", {"path": rel, "line": line, "column": column})
        latency.append(elapsed)
        d["asked"] += 1
        resolved = data["resolved"] if data and not is_error else []
        candidates = data["candidates"] if data and not is_error else []
        good_res = [h for h in resolved if right(h, target_rel, first, last, label)]
        good_all = good_res + [h for h in candidates if right(h, target_rel, first, last, label)]
        d["lines_res"] += len(resolved)
        d["hit_res"] += len(good_res)
        d["lines_all"] += len(resolved) + len(candidates)
        d["hit_all"] += len(good_all)
        d["found_res"] += bool(good_res)
        d["found_all"] += bool(good_all)
        if os.environ.get("BENCH_VERBOSE") and (len(good_res) != len(resolved) or not good_res):
            print(f"DEF {rel}:{line}:{column} {label} -> {target_rel}:{first} tack={[(h['path'], h['line']) for h in resolved]} cand={len(candidates)}", file=sys.stderr)

    # References: every link target that is not a local variable nor a module, from its own line.
    targets = {}
    for rel, line, column, label, target_rel, first, last in links:
        if label.endswith("!") or is_module(target_rel, first, last):
            continue
        targets.setdefault((target_rel, first, label), set()).add((rel, line))
    r = {k: 0 for k in ["asked", "res", "res_hit", "all", "all_hit", "gold", "ignored"]}
    latency_ref = []
    for (target_rel, first, label), gold in sorted(targets.items()):
        text_line = lines[target_rel][first - 1] if first <= len(lines[target_rel]) else ""
        match = re.search(rf"\b{re.escape(label)}\b", text_line)
        if not match:
            continue
        # Links on the definition's own line (a `Self` in the signature) are references too,
        # but tack folds its definition line into `definition`: leave that line out of both.
        gold = {g for g in gold if g != (target_rel, first)}
        column = len(text_line[: match.start()].encode("utf-8")) + 1
        data, text, is_error, elapsed = tack.call("references", {"path": target_rel, "line": first, "column": column, "limit": 500})
        latency_ref.append(elapsed)
        r["asked"] += 1
        if is_error or not data:
            resolved, candidates = set(), set()
        else:
            def keep(hits):
                return {(h["path"], h["line"]) for h in hits if h["relation"] != "definition" and rustdoc_saw(h["path"], h["text"], label)}

            resolved, candidates = keep(data["resolved"]), keep(data["candidates"])
            ignored = {(h["path"], h["line"]) for h in data["resolved"] if h["relation"] != "definition"} - resolved
            r["ignored"] += len(ignored)
        both = resolved | candidates
        r["res"] += len(resolved)
        r["res_hit"] += len(resolved & gold)
        r["all"] += len(both)
        r["all_hit"] += len(both & gold)
        r["gold"] += len(gold)
        if os.environ.get("BENCH_VERBOSE") and (resolved != gold):
            print(f"REF {target_rel}:{first} {label} missing={sorted(gold - resolved)} extra={sorted(resolved - gold)}", file=sys.stderr)
    tack.close()

    def ratio(a, b):
        return f"{a / b:.3f}" if b else "n/a"

    print(f"definition: {d['asked']} linked names (macros left out)")
    print(f"  precision resolved {ratio(d['hit_res'], d['lines_res'])} ({d['hit_res']}/{d['lines_res']}), +candidates {ratio(d['hit_all'], d['lines_all'])} ({d['hit_all']}/{d['lines_all']})")
    print(f"  recall resolved {ratio(d['found_res'], d['asked'])} ({d['found_res']}/{d['asked']}), +candidates {ratio(d['found_all'], d['asked'])} ({d['found_all']}/{d['asked']})")
    print(f"  latency p50 {statistics.median(latency) * 1000:.1f} ms, p95 {percentile(latency, 0.95) * 1000:.1f} ms")
    print(f"references: {r['asked']} definitions, {r['gold']} linked uses; {r['ignored']} resolved tack lines where rustdoc links nothing (tests, macro arguments) left out")
    print(f"  precision resolved {ratio(r['res_hit'], r['res'])} ({r['res_hit']}/{r['res']}), +candidates {ratio(r['all_hit'], r['all'])} ({r['all_hit']}/{r['all']})")
    print(f"  recall resolved {ratio(r['res_hit'], r['gold'])}, +candidates {ratio(r['all_hit'], r['gold'])}")
    print(f"  latency p50 {statistics.median(latency_ref) * 1000:.1f} ms, p95 {percentile(latency_ref, 0.95) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
