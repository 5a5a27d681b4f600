"""A minimal MCP client for the benchmarks: starts `tack serve` over stdio and speaks raw
JSON-RPC, so a benchmark needs nothing but Python."""

import json
import os
import subprocess
import time


class Tack:
    def __init__(self, binary, root, index_dir, extra_args=(), stderr=subprocess.DEVNULL, log="warn"):
        self.proc = subprocess.Popen(
            # Structured: the benchmarks parse the data, not the text a model reads.
            [binary, "serve", "--structured", "--root", root, "--index-dir", index_dir, *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "TACK_LOG": log},
        )
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            msg = json.loads(self.proc.stdout.readline())
            if msg.get("id") == self.next_id:
                return msg

    def call(self, tool, args):
        """The structured result, the text, whether it is an error, and the seconds it took."""
        started = time.perf_counter()
        reply = self.request("tools/call", {"name": tool, "arguments": args})
        elapsed = time.perf_counter() - started
        result = reply["result"]
        return result.get("structuredContent"), result["content"][0]["text"], result.get("isError", False), elapsed

    def peak_rss_kib(self):
        """The server's peak resident memory so far (VmHWM), in KiB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def pct(values, p):
    """The `p`th percentile of `values`, nearest rank."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
