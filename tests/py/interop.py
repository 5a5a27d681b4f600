"""Interop test: the official MCP Python SDK drives the real tack binary.

Over stdio and streamable HTTP, with the legacy handshake (2025-11-25) and with 2026-07-28
discovery: the tool list is the same bytes everywhere and in the contract's order, every tool
has annotations and an input schema, calls return text and structured content, errors are
results, and discovery works as each revision allows.

Usage: python interop.py PATH_TO_TACK REPO_DIR
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import Client, StdioServerParameters

CORE = ["repo_map", "search", "read_file", "edit_file", "run", "verify", "find_tools", "call_tool"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}", flush=True)


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


def tool_dump(tools):
    return json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools], sort_keys=True)


async def exercise(label, target, mode):
    notes = []

    async def on_message(message):
        notes.append(type(message).__name__ + ":" + str(getattr(message, "root", message))[:80])

    async with Client(target, mode=mode, message_handler=on_message) as client:
        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        check(names == CORE, f"{label}: core tools in contract order, got {names}")
        for t in tools:
            check(t.annotations is not None, f"{label}: {t.name} has annotations")
            check(t.input_schema.get("type") == "object", f"{label}: {t.name} input schema is an object")
        res = await client.call_tool("read_file", {"path": "notes/big.txt", "start": 450})
        first = text_of(res).splitlines()[0]
        check(first == "[notes/big.txt: lines 450-549 of 1000; 449 above, 451 below]", f"{label}: read_file header {first!r}")
        check(res.structured_content and res.structured_content.get("total") == 1000, f"{label}: structured read_file")
        res = await client.call_tool("search", {"query": "marker", "mode": "text", "limit": "4"})
        check(text_of(res).startswith("30 matches in 30 files\n"), f"{label}: search totals")
        check(len(res.structured_content["results"]) == 4, f"{label}: search honours limit sent as a string")
        res = await client.call_tool("read_file", {"path": "../outside"})
        check(res.is_error, f"{label}: escaping path is an error result")
        res = await client.call_tool("run", {"command": "seq 1 100000"})
        handle = res.structured_content.get("output_handle")
        check(bool(handle), f"{label}: run output over the cap has a handle")
        page = await client.call_tool("call_tool", {"name": "read_output", "arguments": {"handle": handle, "start": 50000, "lines": 1}})
        check("50000\t49999" in text_of(page), f"{label}: read_output pages the middle: {text_of(page)[:120]!r}")
        await client.call_tool("find_tools", {"query": "output"})
        after = [t.name for t in (await client.list_tools()).tools]
        version = str(client.protocol_version)
        if version < "2026-07-28":
            check(after == CORE + ["read_output"], f"{label}: discovery adds read_output ({version}), got {after}")
        else:
            check(after == CORE, f"{label}: list fixed on {version}, got {after}")
        print(f"ok {label}: protocol {version}, {len(names)} tools", flush=True)
        return tool_dump(tools)


async def main():
    tack, repo = sys.argv[1], sys.argv[2]
    env = {"TACK_LOG": "warn"}
    if "XDG_CACHE_HOME" in os.environ:
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
    stdio = StdioServerParameters(command=tack, args=["serve", "--root", repo], env=env)
    dumps = {}
    dumps["stdio-legacy"] = await exercise("stdio-legacy", stdio, "legacy")
    dumps["stdio-auto"] = await exercise("stdio-auto", stdio, "auto")
    server = subprocess.Popen([tack, "serve", "--root", repo, "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in server.stderr:
            if line.startswith("tack: serving MCP at "):
                url = line.split(" at ", 1)[1].strip()
                break
        check(url is not None, "http server announces its URL")
        dumps["http-legacy"] = await exercise("http-legacy", url, "legacy")
        dumps["http-auto"] = await exercise("http-auto", url, "auto")
    finally:
        server.kill()
        server.wait()
    distinct = set(dumps.values())
    check(len(distinct) == 1, f"tool listings are byte-identical across transports and revisions ({len(distinct)} distinct)")
    passed = 0 if failures else 1
    print(f"{passed} passed, {1 - passed} failed")
    sys.exit(1 if failures else 0)


asyncio.run(main())
