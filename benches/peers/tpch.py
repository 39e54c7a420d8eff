#!/usr/bin/env python3
"""Time the 22 TPC-H queries on tenon, DuckDB and DataFusion side by side.

The tables are Parquet files made by ``tenon gen tpch --scale SF --out DIR``
(the same data for every engine). Each engine runs in its own subprocess
with N threads, loads the tables into memory first (outside the timed
region), runs each query once to warm up and ``--runs`` times timed, and
reports the median seconds:

    tenon       tenon query --threads N --runs R --timing --memory-table ...
                (the `elapsed_ms` line: execution only, the tables read into
                memory once before the runs; `reads_files=false` checked)
    DuckDB      SET threads=N; CREATE TABLE t AS SELECT * FROM 'DIR/t.parquet'
    DataFusion  target_partitions=N; the Parquet tables read into memory
                (pyarrow) and registered as N partitions each

With ``--memory-limit X`` (tenon and DuckDB) the tables are not loaded:
each query reads the Parquet files (tenon ``--table``, DuckDB views over
the files), under ``memory_limit`` X, spilling into ``--spill-dir``
(default: the system's temporary directory); ``--check`` then compares
every query's rows between the engines (numbers to a relative 1e-9, or to
a unit of the last decimal of the engine whose type has fewer, rows in
sorted order) and prints the first difference.

The query texts are ``tests/tpch/queries/qNN.sql`` (the TPC-H validation
parameters; Q11's fraction is written for scale 0.01 there and is scaled
here to 0.0001 / SF). Row counts are printed and must agree.

Usage (pip install duckdb datafusion pyarrow):

    cargo run --release -- gen tpch --scale 1 --out /tmp/tpch1
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --threads 2
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --query 5 --engine tenon
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --engine tenon \
        --tenon old/tenon --tenon target/release/tenon    # two builds side by side
    python3 benches/peers/tpch.py --data /tmp/tpch10 --scale 10 --runs 1 \
        --engine tenon --engine duckdb --memory-limit 4GB --check
"""

import argparse
import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
ENGINES = ["tenon", "duckdb", "datafusion"]


def query_text(n, scale):
    text = (ROOT / "tests" / "tpch" / "queries" / f"q{n:02d}.sql").read_text()
    text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("--"))
    if n == 11:
        # the checked-in text holds 0.0001 / 0.01
        text = re.sub(r"0\.010*\b", repr(0.0001 / scale), text, count=1)
    return text.strip().rstrip(";")


def run_tenon(args, queries, binary):
    tables, limit = [], []
    for t in TABLES:
        # held in memory, as the peers hold them (--table would read the
        # files inside every timed run); read from the files under a limit
        flag = "--table" if args.memory_limit else "--memory-table"
        tables += [flag, f"{t}={args.data}/{t}.parquet"]
    if args.memory_limit:
        limit = ["--set", f"memory_limit={args.memory_limit}"]
        if args.spill_dir:
            limit += ["--set", f"spill_dir={args.spill_dir}"]
    reads = "true" if args.memory_limit else "false"
    out = {}
    for n, sql in queries:
        cmd = [str(binary), "query", "--threads", str(args.threads), "--runs",
               str(args.runs), "--timing", "--format", "csv"] + args.tenon_arg + limit + tables + [sql]
        r = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"elapsed_ms=([0-9.]+) rows=(\d+) reads_files=" + reads
                      + r"(?: peak_memory=(\d+) spilled_bytes=(\d+))?", r.stderr)
        if r.returncode != 0 or not m:
            out[n] = {"error": r.stderr.strip().splitlines()[-1:] or ["?"]}
            continue
        out[n] = {"median_s": float(m.group(1)) / 1000, "rows": int(m.group(2))}
        if m.group(4) is not None:
            out[n]["spilled_bytes"] = int(m.group(4))
        if args.check:
            out[n]["result"] = list(csv.reader(io.StringIO(r.stdout)))[1:]
    return out


def timed(runs, f):
    f()
    times, rows = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        rows = f()
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "rows": rows}


def run_duckdb(args, queries):
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads={args.threads}")
    if args.memory_limit:
        con.execute(f"SET memory_limit='{args.memory_limit}'")
        if args.spill_dir:
            con.execute(f"SET temp_directory='{args.spill_dir}'")
    for t in TABLES:
        kind = "VIEW" if args.memory_limit else "TABLE"
        con.execute(f"CREATE {kind} {t} AS SELECT * FROM '{args.data}/{t}.parquet'")
    out = {}
    for n, sql in queries:
        rows = []
        def once():
            rows[:] = con.execute(sql).fetchall()
            return len(rows)
        out[n] = timed(args.runs, once)
        if args.check:
            out[n]["result"] = [[cell(v) for v in row] for row in rows]
    return out


def cell(v):
    """A value as tenon's CSV writes it (near enough for `same_rows`)."""
    if v is None:
        return ""
    return str(v)


def decimals(v):
    """Digits after the point of a number written without an exponent."""
    if "e" in v.lower() or "." not in v:
        return 0
    return len(v.split(".")[1])


def same_rows(a, b):
    """The first difference between two results (lists of rows of
    strings), or None: rows compared in sorted order, numbers to a
    relative 1e-9 or, when one engine's type has fewer decimals (tenon's
    AVG of a DECIMAL is a DECIMAL of 4 more digits, DuckDB's a DOUBLE),
    to a unit of its last decimal (a DECIMAL division truncates)."""
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    def key(row):
        return [(0, float(v), "") if is_number(v) else (1, 0.0, v) for v in row]
    for x, y in zip(sorted(a, key=key), sorted(b, key=key)):
        if len(x) != len(y):
            return f"row {x} against {y}"
        for u, v in zip(x, y):
            if is_number(u) and is_number(v):
                fu, fv = float(u), float(v)
                tolerance = 1e-9 * max(1.0, abs(fu), abs(fv))
                places = min(decimals(u), decimals(v))
                if "." in u + v and places > 0:
                    tolerance = max(tolerance, 10.0 ** -places * (1 + 1e-9))
                if abs(fu - fv) > tolerance:
                    return f"row {x} against {y}"
            elif u != v:
                return f"row {x} against {y}"
    return None


def is_number(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def run_datafusion(args, queries):
    import datafusion
    import pyarrow.parquet as pq
    config = datafusion.SessionConfig().with_target_partitions(args.threads)
    ctx = datafusion.SessionContext(config)
    for t in TABLES:
        table = pq.read_table(f"{args.data}/{t}.parquet")
        batches = table.to_batches(max_chunksize=max(1, table.num_rows // args.threads + 1))
        parts = [batches[i::args.threads] for i in range(args.threads)]
        ctx.register_record_batches(t, [p for p in parts if p] or [[]])
    return {n: timed(args.runs, lambda: ctx.sql(sql).to_arrow_table().num_rows) for n, sql in queries}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="folder of <table>.parquet (tenon gen tpch)")
    p.add_argument("--scale", type=float, required=True, help="the data's scale factor (for Q11)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--query", type=int, action="append", help="query number (repeatable)")
    p.add_argument("--engine", action="append", choices=ENGINES)
    p.add_argument("--json", help="write the results there")
    p.add_argument("--tenon", action="append", metavar="PATH",
                   help="a tenon binary (default target/release/tenon); repeatable: each "
                        "is a column of its own (tenon#1, tenon#2, ...), run one after another")
    p.add_argument("--tenon-arg", action="append", default=[], metavar="ARG",
                   help="repeatable; passed to every `tenon query` before the tables")
    p.add_argument("--memory-limit", metavar="BYTES",
                   help="run tenon and DuckDB under this memory_limit (e.g. 4GB), reading "
                        "the Parquet files in each query instead of holding the tables")
    p.add_argument("--spill-dir", help="where the engines spill (with --memory-limit)")
    p.add_argument("--check", action="store_true",
                   help="compare every query's rows between the engines")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    numbers = args.query or list(range(1, 23))
    queries = [(n, query_text(n, args.scale)) for n in numbers]
    if args.child:
        run = {"duckdb": run_duckdb, "datafusion": run_datafusion}[args.child]
        print(json.dumps(run(args, queries)))
        return
    results = {}
    for engine in args.engine or ENGINES:
        if engine == "tenon":
            binaries = args.tenon or [str(ROOT / "target" / "release" / "tenon")]
            for i, binary in enumerate(binaries):
                label = "tenon" if len(binaries) == 1 else f"tenon#{i + 1}"
                print(f"# {label}: {binary}", file=sys.stderr)
                results[label] = run_tenon(args, queries, binary)
            continue
        cmd = [sys.executable, __file__, "--child", engine, "--data", args.data,
               "--scale", str(args.scale), "--threads", str(args.threads),
               "--runs", str(args.runs)]
        if args.memory_limit:
            cmd += ["--memory-limit", args.memory_limit]
        if args.spill_dir:
            cmd += ["--spill-dir", args.spill_dir]
        if args.check:
            cmd += ["--check"]
        for n in numbers:
            cmd += ["--query", str(n)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"WARNING: {engine} failed: {r.stderr.strip()[-300:]}", file=sys.stderr)
            continue
        results[engine] = {int(k): v for k, v in json.loads(r.stdout).items()}
    engines = list(results)
    print("query  " + "  ".join(f"{e:>11}" for e in engines) + "   rows")
    totals = {e: 0.0 for e in engines}
    for n in numbers:
        cells, rows = [], set()
        for e in engines:
            r = results[e].get(n, {})
            if "median_s" in r:
                cells.append(f"{r['median_s']:11.3f}")
                totals[e] += r["median_s"]
                rows.add(r["rows"])
            else:
                cells.append(f"{'error':>11}")
        flag = "" if len(rows) <= 1 else "  WARNING: row counts differ"
        if args.check:
            got = [(e, results[e].get(n, {}).get("result")) for e in engines]
            got = [(e, r) for e, r in got if r is not None]
            for e, r in got[1:]:
                diff = same_rows(got[0][1], r)
                if diff:
                    flag += f"  DIFFERENT ({got[0][0]} vs {e}: {diff[:200]})"
            if len(got) > 1 and "DIFFERENT" not in flag:
                flag += "  same rows"
        spilled = [results[e].get(n, {}).get("spilled_bytes") for e in engines]
        if any(s for s in spilled if s):
            flag += "  spilled " + " ".join(f"{s / 1e6:.0f}MB" for s in spilled if s is not None)
        print(f"Q{n:02d}   " + "  ".join(cells) + f"   {sorted(rows)}{flag}")
    print("total  " + "  ".join(f"{totals[e]:11.3f}" for e in engines))
    if args.json:
        for r in results.values():
            for q in r.values():
                q.pop("result", None)
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
