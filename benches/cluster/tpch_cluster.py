#!/usr/bin/env python3
"""TPC-H through a tenon cluster on one machine: the 22 queries run by
`tenon query` on this machine, and by `tenon query --cluster` on 1, 2 and
3 `tenon worker` processes (loopback ports) with tenon's joins and with
DataFusion's own joins (`--set cluster.joins=datafusion`).

For each query and setting it prints the median elapsed time of --runs
runs (`--timing`'s elapsed_ms: the query's run, not the process start or
planning) and the bytes the workers wrote while it ran (/proc/PID/io
`wchar`: the workers write no files, so this is what they sent over gRPC:
shuffles, broadcasts and the result), then the totals.

    python3 benches/cluster/tpch_cluster.py --tenon target/release/tenon \
        --data /tmp/tpch1 --workers 1 2 3 --runs 3

The tenon binary must be built with `--features cluster`; DATA holds the
eight tables as Parquet (`tenon gen tpch --scale 1 --out DATA`).
"""

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
QUERIES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "tpch", "queries")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wchar(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                if line.startswith("wchar:"):
                    total += int(line.split()[1])
    return total


def start_workers(tenon, n):
    procs, urls = [], []
    for _ in range(n):
        port = free_port()
        p = subprocess.Popen([tenon, "worker", "--port", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    sys.exit(f"worker on {port} did not start")
                time.sleep(0.05)
        urls.append(f"127.0.0.1:{port}")
    return procs, urls


def run(tenon, args, sql, runs):
    cmd = [tenon, "query", "--format", "csv", "--output", "/dev/null", "--timing",
           "--runs", str(runs)] + args + [sql]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr else "failed"
    m = re.search(r"elapsed_ms=([0-9.]+)", out.stderr)
    return float(m.group(1)), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tenon", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of the local run, partitions a task runs on the cluster")
    ap.add_argument("--queries", type=int, nargs="+", default=list(range(1, 23)))
    a = ap.parse_args()
    tables = []
    for t in TABLES:
        tables += ["--table", f"{t}={os.path.join(a.data, t + '.parquet')}"]
    threads = ["--threads", str(a.threads)]
    sqls = {q: open(os.path.join(QUERIES, f"q{q:02}.sql")).read() for q in a.queries}
    columns = ["local"]
    results = {q: {} for q in a.queries}
    for q in a.queries:
        results[q]["local"] = (run(a.tenon, tables + threads, sqls[q], a.runs)[0], None)
    for n in a.workers:
        procs, urls = start_workers(a.tenon, n)
        try:
            for joins in ["tenon", "datafusion"]:
                col = f"{n}w {joins}"
                columns.append(col)
                for q in a.queries:
                    args = ["--cluster", ",".join(urls), "--set", f"cluster.joins={joins}"] + tables + threads
                    before = wchar(p.pid for p in procs)
                    ms, err = run(a.tenon, args, sqls[q], a.runs)
                    sent = (wchar(p.pid for p in procs) - before) / a.runs
                    results[q][col] = (ms, sent)
                    if err:
                        print(f"q{q:02} {col}: {err}", file=sys.stderr)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    print("| query | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    totals = {c: 0.0 for c in columns}
    sent_totals = {c: 0.0 for c in columns}
    for q in a.queries:
        cells = []
        for c in columns:
            ms, sent = results[q].get(c, (None, None))
            if ms is None:
                cells.append("failed")
                continue
            totals[c] += ms
            cell = f"{ms / 1e3:.3f}"
            if sent is not None:
                sent_totals[c] += sent
                cell += f" ({sent / 2**20:.1f} MiB)"
            cells.append(cell)
        print(f"| Q{q:02} | " + " | ".join(cells) + " |")
    print("| total | " + " | ".join(
        f"{totals[c] / 1e3:.3f}" + (f" ({sent_totals[c] / 2**20:.0f} MiB)" if c != "local" else "")
        for c in columns) + " |")


if __name__ == "__main__":
    main()
