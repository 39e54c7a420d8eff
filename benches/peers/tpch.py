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

The query texts are ``tests/tpch/queries/qNN.sql`` (the TPC-H validation
parameters; Q11's fraction is written for scale 0.01 there and is scaled
here to 0.0001 / SF). Row counts are printed and must agree.

Usage (pip install duckdb datafusion pyarrow):

    cargo run --release -- gen tpch --scale 1 --out /tmp/tpch1
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --threads 2
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --query 5 --engine tenon
    python3 benches/peers/tpch.py --data /tmp/tpch1 --scale 1 --engine tenon \
        --tenon-arg=--set --tenon-arg=runtime_filters=false
"""

import argparse
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


def run_tenon(args, queries):
    binary = ROOT / "target" / "release" / "tenon"
    tables = []
    for t in TABLES:
        # held in memory, as the peers hold them (--table would read the
        # files inside every timed run)
        tables += ["--memory-table", f"{t}={args.data}/{t}.parquet"]
    out = {}
    for n, sql in queries:
        cmd = [str(binary), "query", "--threads", str(args.threads), "--runs",
               str(args.runs), "--timing", "--format", "csv"] + tables + args.tenon_arg + [sql]
        r = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"elapsed_ms=([0-9.]+) rows=(\d+) reads_files=false", r.stderr)
        if r.returncode != 0 or not m:
            out[n] = {"error": r.stderr.strip().splitlines()[-1:] or ["?"]}
            continue
        out[n] = {"median_s": float(m.group(1)) / 1000, "rows": int(m.group(2))}
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
    for t in TABLES:
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM '{args.data}/{t}.parquet'")
    return {n: timed(args.runs, lambda: len(con.execute(sql).fetchall())) for n, sql in queries}


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
    p.add_argument("--tenon-arg", action="append", default=[],
                   help="an extra argument of `tenon query` (repeatable), e.g. "
                        "--tenon-arg=--set --tenon-arg=runtime_filters=false")
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
            results[engine] = run_tenon(args, queries)
            continue
        cmd = [sys.executable, __file__, "--child", engine, "--data", args.data,
               "--scale", str(args.scale), "--threads", str(args.threads),
               "--runs", str(args.runs)]
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
        print(f"Q{n:02d}   " + "  ".join(cells) + f"   {sorted(rows)}{flag}")
    print("total  " + "  ".join(f"{totals[e]:11.3f}" for e in engines))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
