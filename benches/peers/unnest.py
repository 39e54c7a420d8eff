#!/usr/bin/env python3
"""Time tenon, DuckDB, Polars and DataFusion expanding arrays (issue 18).

One table ``t``: 10M rows (scale 1.0) of ``id`` (BIGINT) and ``arr``, a list
of 0..10 BIGINTs (uniform: mean 5, 1 in 20 arrays NULL), generated with numpy
and written once to an Arrow IPC file; every engine runs in its own process
(threads set before it is imported), loads the file before the timed region,
runs the query once to warm up and ``--runs`` times timed. The answer
(count, sum(x), sum(pos)) must agree across engines (a WARNING otherwise).

    unnest       SELECT count(*), sum(x), sum(pos)
                 FROM t CROSS JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, pos)
    unnest_left  ... LEFT JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, pos) ON TRUE
                 (a NULL or empty array kept once, x and pos NULL)

    tenon       tenon query --threads N --runs R --timing --memory-table t=...
    DuckDB      FROM t, unnest(arr) WITH ORDINALITY (LEFT: LEFT JOIN ... ON true)
    Polars      int_ranges for the positions, explode (CROSS: empty and NULL
                arrays filtered out first; LEFT: explode with empty_as_null,
                which keeps them as one NULL row)
    DataFusion  unnest(arr) and unnest(range(1, cardinality(arr) + 1)) in one
                SELECT (zipped); its unnest drops empty arrays, so LEFT is n/a

Usage (pip install duckdb polars datafusion numpy pyarrow; cargo build --release):

    python3 benches/peers/unnest.py --threads 2 --runs 5
    python3 benches/peers/unnest.py --scale 0.01 --runs 2   # quick check
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

QUERIES = {
    "unnest": "SELECT count(*), sum(x), sum(pos) FROM t "
              "CROSS JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, pos)",
    "unnest_left": "SELECT count(*), sum(x), sum(pos) FROM t "
                   "LEFT JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, pos) ON TRUE",
}
DUCKDB = {
    "unnest": "SELECT count(*), sum(x), sum(pos) FROM t, "
              "unnest(t.arr) WITH ORDINALITY AS u(x, pos)",
    "unnest_left": "SELECT count(*), sum(x), sum(pos) FROM t "
                   "LEFT JOIN unnest(t.arr) WITH ORDINALITY AS u(x, pos) ON true",
}
DATAFUSION = {
    "unnest": "SELECT count(*), sum(x), sum(pos) FROM (SELECT unnest(arr) AS x, "
              "unnest(range(1, CAST(cardinality(arr) AS BIGINT) + 1)) AS pos FROM t)",
}


def generate(path, rows, seed):
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 11, rows)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = pa.array(rng.integers(0, 1000, int(offsets[-1])), pa.int64())
    nulls = rng.random(rows) < 0.05
    arr = pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(nulls))
    table = pa.table({"id": pa.array(np.arange(rows), pa.int64()), "arr": arr})
    with ipc.new_file(path, table.schema) as w:
        for batch in table.to_batches(max_chunksize=65536):
            w.write_batch(batch)


def worker(engine, workload, path, runs, threads):
    import pyarrow.ipc as ipc
    table = ipc.open_file(path).read_all()
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET threads={threads}")
        con.register("t", table)
        version = duckdb.__version__
        def run():
            return con.execute(DUCKDB[workload]).fetchone()
    elif engine == "polars":
        import polars as pl
        df = pl.from_arrow(table)
        version = pl.__version__
        def run():
            q = df.lazy()
            if workload == "unnest":
                q = q.filter(pl.col("arr").list.len() > 0)
            q = q.with_columns(pos=pl.int_ranges(1, pl.col("arr").list.len() + 1))
            # LEFT: an empty array kept as one NULL row too
            q = q.explode(["arr", "pos"], empty_as_null=workload == "unnest_left")
            out = q.select(pl.len(), pl.col("arr").sum(), pl.col("pos").sum()).collect()
            return tuple(out.row(0))
    else:
        import datafusion
        if workload not in DATAFUSION:
            print(json.dumps({"engine": engine, "unsupported": "no LEFT form of unnest"}))
            return
        ctx = datafusion.SessionContext(
            datafusion.SessionConfig().with_target_partitions(threads))
        ctx.register_record_batches("t", [table.to_batches()])
        version = datafusion.__version__
        def run():
            return tuple(ctx.sql(DATAFUSION[workload]).to_arrow_table().to_pylist()[0].values())
    result = tuple(int(v) if v is not None else None for v in run())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    print(json.dumps({"engine": engine, "version": version, "times": times,
                      "answer": list(result)}))


def run_tenon(binary, workload, path, runs, threads):
    cmd = [binary, "query", "--threads", str(threads), "--runs", str(runs), "--timing",
           "--format", "csv", "--memory-table", f"t={path}", "--", QUERIES[workload]]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    timing = re.search(r"elapsed_ms=([0-9.]+)", proc.stderr)
    lines = list(csv.reader(proc.stdout.splitlines()))
    if proc.returncode != 0 or not timing or len(lines) != 2:
        return {"engine": "tenon", "error": proc.stderr.strip()[-300:]}
    answer = [int(float(v)) if v != "" else None for v in lines[1]]
    return {"engine": "tenon", "median_s": float(timing.group(1)) / 1000, "answer": answer}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--tenon", default="target/release/tenon")
    p.add_argument("--workload", action="append", choices=list(QUERIES))
    p.add_argument("--engine", action="append",
                   choices=["tenon", "duckdb", "polars", "datafusion"])
    p.add_argument("--worker")
    p.add_argument("--path")
    a = p.parse_args()
    if a.worker:
        worker(a.worker, a.workload[0], a.path, a.runs, a.threads)
        return
    workloads = a.workload or list(QUERIES)
    engines = a.engine or ["tenon", "duckdb", "polars", "datafusion"]
    rows = max(1, int(10_000_000 * a.scale))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.arrow")
        generate(path, rows, a.seed)
        print(f"rows={rows:,} threads={a.threads} runs={a.runs}")
        for w in workloads:
            results = []
            for e in engines:
                if e == "tenon":
                    r = run_tenon(a.tenon, w, path, a.runs, a.threads)
                else:
                    env = dict(os.environ, POLARS_MAX_THREADS=str(a.threads))
                    cmd = [sys.executable, os.path.abspath(__file__), "--worker", e,
                           "--workload", w, "--path", path, "--runs", str(a.runs),
                           "--threads", str(a.threads)]
                    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
                    if proc.returncode != 0:
                        r = {"engine": e, "error": proc.stderr.strip()[-300:]}
                    else:
                        r = json.loads(proc.stdout.strip().splitlines()[-1])
                        if "times" in r:
                            r["median_s"] = statistics.median(r["times"])
                results.append(r)
            answers = {tuple(r["answer"]) for r in results if "answer" in r}
            for r in results:
                cell = (f"{r['median_s']:.3f} s" if "median_s" in r
                        else "n/a" if "unsupported" in r else "FAILED")
                detail = r.get("answer") or r.get("unsupported") or r.get("error")
                print(f"{w:12} {r['engine']:10} {cell:>10}  {detail}")
            if len(answers) > 1:
                print(f"WARNING: {w}: the engines' answers differ: {sorted(answers)}")


if __name__ == "__main__":
    main()
