"""Interop test: the official MCP Python SDK drives the real tack binary.

Over stdio and streamable HTTP, with the legacy handshake (2025-11-25) and with 2026-07-28
discovery: the tool list is the same bytes everywhere and in the contract's order, every tool
has annotations and an input schema, calls return text (and, under --structured, structured
content matching each tool's output schema), errors are results, and discovery works as each
revision allows.

Usage: python interop.py PATH_TO_TACK REPO_DIR
"""

import asyncio
import json
import os
import re
import subprocess
import sys

from mcp import Client, StdioServerParameters

CORE = ["context", "repo_map", "search", "read_file", "edit_file", "run", "verify", "find_tools", "call_tool"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}", flush=True)


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


def tool_dump(tools):
    """The listing as JSON, less the agent argument (and result field) only requests without a session get."""
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    for tool in dumped:
        tool["inputSchema"].get("properties", {}).pop("agent", None)
        tool.get("outputSchema", {}).get("properties", {}).pop("agent", None)
    return json.dumps(dumped, sort_keys=True)


def handle_in(text):
    found = re.search(r'read_output\(handle="(h\d+)"', text)
    return found.group(1) if found else None


def top_level_matches(data, schema):
    props = schema.get("properties", {})
    return all(k in props for k in data) and all(k in data for k in schema.get("required", []))


async def exercise(label, target, mode, structured):
    notes = []

    async def on_message(message):
        notes.append(type(message).__name__ + ":" + str(getattr(message, "root", message))[:80])

    async with Client(target, mode=mode, message_handler=on_message) as client:
        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        check(names == CORE, f"{label}: core tools in contract order, got {names}")
        schemas = {t.name: t.output_schema for t in tools}
        for t in tools:
            check(t.annotations is not None, f"{label}: {t.name} has annotations")
            check(t.input_schema.get("type") == "object", f"{label}: {t.name} input schema is an object")
            if t.name not in ("find_tools", "call_tool"):
                check((t.output_schema is not None) == structured, f"{label}: {t.name} output schema only when structured")

        def data_of(name, res):
            if not structured:
                check(res.structured_content is None, f"{label}: {name} is text only")
                return None
            check(res.structured_content is not None and top_level_matches(res.structured_content, schemas[name]),
                  f"{label}: {name} structured content matches its output schema")
            return res.structured_content or {}

        res = await client.call_tool("read_file", {"path": "notes/big.txt", "start": 450})
        first = text_of(res).splitlines()[0]
        check(re.fullmatch(r"\[notes/big.txt: lines 450-549 of 1000; 449 above, 451 below; version [0-9a-f]{16}\]", first),
              f"{label}: read_file header {first!r}")
        data = data_of("read_file", res)
        if data is not None:
            check(data.get("total") == 1000 and data.get("version") in first, f"{label}: structured read_file")
        res = await client.call_tool("search", {"query": "marker", "mode": "text", "limit": "4"})
        check(text_of(res).startswith("30 matches in 30 files\n"), f"{label}: search totals")
        check(text_of(res).count("\nwords/w") == 4, f"{label}: search honours limit sent as a string")
        data = data_of("search", res)
        if data is not None:
            check(len(data["results"]) == 4, f"{label}: structured search has 4 results")
        res = await client.call_tool("context", {"task": "adding an item to the cart fails", "tokens": "600"})
        check(text_of(res).startswith("1 function for the task, best first ("), f"{label}: context header {text_of(res)!r}")
        check("shop/cart.py:2-3 Cart.add (method)\n" in text_of(res), f"{label}: context shows Cart.add")
        data = data_of("context", res)
        if data is not None:
            check(data["functions"][0]["symbol"] == "Cart.add", f"{label}: structured context")
        res = await client.call_tool("read_file", {"path": "../outside"})
        check(res.is_error, f"{label}: escaping path is an error result")
        # Without a session (2026-07-28 over HTTP), each call stands alone unless it names the
        # agent handle an earlier result gave; every tool then offers the agent argument.
        stateless = label.startswith("http-auto")
        for t in tools:
            check(("agent" in t.input_schema.get("properties", {})) == stateless,
                  f"{label}: {t.name} offers agent only without a session")
        res = await client.call_tool("run", {"command": "seq 1 100000"})
        agent = re.search(r"^agent (a[0-9a-f]{20}):", text_of(res), re.M)
        check(bool(agent) == stateless, f"{label}: run names an agent handle only without a session")
        keep = {"agent": agent.group(1)} if agent else {}
        if structured and stateless:
            check((res.structured_content or {}).get("agent") == agent.group(1),
                  f"{label}: the structured data carries the agent handle too")
        handle = handle_in(text_of(res))
        check(bool(handle), f"{label}: run output over the cap names a handle")
        data = data_of("run", res)
        if data is not None:
            check(data.get("output_handle") == handle, f"{label}: structured run has the same handle")
        page = await client.call_tool("call_tool", {"name": "read_output", "arguments": {"handle": handle, "start": 50000, "lines": 1}, **keep})
        check("50000\t49999" in text_of(page), f"{label}: read_output pages the middle: {text_of(page)[:120]!r}")
        await client.call_tool("find_tools", {"query": "output"})
        after = [t.name for t in (await client.list_tools()).tools]
        version = str(client.protocol_version)
        if version < "2026-07-28":
            check(after == CORE + ["read_output"], f"{label}: discovery adds read_output ({version}), got {after}")
        else:
            check(after == CORE, f"{label}: list fixed on {version}, got {after}")
        # done before any verify: the gate names no verified tree, and leaves the field out (the
        # SDK checks the result against done's output schema, which has no null in it).
        if version < "2026-07-28":
            await client.call_tool("find_tools", {"query": "done"})
            listed = {t.name: t for t in (await client.list_tools()).tools}
            check("done" in listed, f"{label}: find_tools adds done")
            res = await client.call_tool("done", {})
            if structured:
                schemas["done"] = listed["done"].output_schema
        else:
            res = await client.call_tool("call_tool", {"name": "done", "arguments": {}, **keep})
        check(not res.is_error and text_of(res).startswith("not done"), f"{label}: done answers {text_of(res)[:80]!r}")
        if structured:
            data = res.structured_content or {}
            check(data.get("done") is False and "verified_tree" not in data and None not in data.values(),
                  f"{label}: structured done leaves out what it lacks: {data}")
            if version < "2026-07-28":
                data_of("done", res)
        print(f"ok {label}: protocol {version}, {len(names)} tools", flush=True)
        return tool_dump(tools)


async def main():
    tack, repo = sys.argv[1], sys.argv[2]
    env = {"TACK_LOG": "warn"}
    if "XDG_CACHE_HOME" in os.environ:
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
    dumps = {}
    for structured in (False, True):
        extra = ["--structured"] if structured else []
        suffix = "-structured" if structured else ""
        stdio = StdioServerParameters(command=tack, args=["serve", "--root", repo, *extra], env=env)
        for mode in ("legacy", "auto"):
            dumps[f"stdio-{mode}{suffix}"] = await exercise(f"stdio-{mode}{suffix}", stdio, mode, structured)
        # --no-auth: this test is about the protocol; authentication has its own tests in e2e.rs.
        server = subprocess.Popen([tack, "serve", "--root", repo, "--http", "127.0.0.1:0", "--no-auth", *extra],
                                  stderr=subprocess.PIPE, text=True)
        try:
            url = None
            for line in server.stderr:
                if line.startswith("tack: serving MCP at "):
                    url = line.split(" at ", 1)[1].strip()
                    break
            check(url is not None, "http server announces its URL")
            for mode in ("legacy", "auto"):
                dumps[f"http-{mode}{suffix}"] = await exercise(f"http-{mode}{suffix}", url, mode, structured)
        finally:
            server.kill()
            server.wait()
    for suffix in ("", "-structured"):
        distinct = {v for k, v in dumps.items() if k.endswith("auto" + suffix) or k.endswith("legacy" + suffix)}
        check(len(distinct) == 1, f"tool listings{suffix} are byte-identical across transports and revisions ({len(distinct)} distinct)")
    passed = 0 if failures else 1
    print(f"{passed} passed, {1 - passed} failed")
    sys.exit(1 if failures else 0)


asyncio.run(main())
