"""repo_map latency through a running `tack serve`, and the time from a file write to the map
showing it. Speaks raw JSON-RPC over stdio, so it needs nothing but Python.

usage: map_latency.py TACK ROOT INDEX_DIR FOCUS EXT [RUNS] [EDIT]

With EDIT (a file under ROOT, in the language of EXT), each probe definition is appended to that
existing file and then taken out again, instead of written as a new file: the first map after an
edit, with no file added or removed.
"""

import os
import statistics
import sys
import time

from tack_rpc import Tack


def main():
    tack, root, index_dir, focus, ext = sys.argv[1:6]
    runs = int(sys.argv[6]) if len(sys.argv) > 6 else 30
    edit = os.path.join(root, sys.argv[7]) if len(sys.argv) > 7 else None
    original = open(edit).read() if edit else None
    server = Tack(tack, root, index_dir)

    def repo_map(args):
        return server.call("repo_map", args)[1]

    repo_map({})  # waits for the index to be ready

    def timed(args):
        samples = []
        for _ in range(runs):
            t = time.perf_counter()
            repo_map(args)
            samples.append((time.perf_counter() - t) * 1000)
        samples.sort()
        return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]

    no_focus = timed({})
    with_focus = timed({"focus": [focus]})

    write_to_map = []
    for k in range(10):
        name = f"tack_bench_probe_{k}"
        path = os.path.join(root, f"{name}.{ext}")
        body, shown = {
            "py": (f"def {name}():\n    return {k}\n", f"def {name}("),
            "rs": (f"pub fn {name}() -> u32 {{\n    {k}\n}}\n", f"fn {name}("),
            "go": (f"package probe\n\nfunc {name}() int {{\n\treturn {k}\n}}\n", f"func {name}("),
            "java": (f"class {name} {{\n    int value() {{\n        return {k};\n    }}\n}}\n", f"class {name} {{"),
            "ts": (f"export function {name}(): number {{\n  return {k};\n}}\n", f"function {name}("),
            "js": (f"function {name}() {{\n  return {k};\n}}\n", f"function {name}("),
            "c": (f"int {name}(void) {{\n    return {k};\n}}\n", f"int {name}(void)"),
            "h": (f"int {name}() {{\n    return {k};\n}}\n", f"int {name}()"),
        }[ext]
        # The focus is echoed in the map's header: look for the definition line itself.
        if edit:
            # A Go file keeps its own package clause; the others take the body as it is.
            body = original + "\n" + (body.split("\n", 2)[2] if ext == "go" else body)
        t = time.perf_counter()
        with open(edit or path, "w") as f:
            f.write(body)
        while shown not in repo_map({"focus": [name], "tokens": 256}):
            pass
        write_to_map.append((time.perf_counter() - t) * 1000)
        if edit:
            with open(edit, "w") as f:
                f.write(original)
        else:
            os.remove(path)
        while shown in repo_map({"focus": [name], "tokens": 256}):
            pass
    write_to_map.sort()
    server.close()
    print(
        f"map_no_focus_p50_ms={no_focus[0]:.1f} map_no_focus_p95_ms={no_focus[1]:.1f} "
        f"map_focus_p50_ms={with_focus[0]:.1f} map_focus_p95_ms={with_focus[1]:.1f} "
        f"write_to_map_p50_ms={statistics.median(write_to_map):.1f} write_to_map_max_ms={write_to_map[-1]:.1f}"
    )


main()
