#!/usr/bin/env python3
"""Time DuckDB, Polars and DataFusion on tenon's synthetic join workloads.

The data follows the recipe of ``datasets/README.md`` (row counts, key
distributions, key scrambling, columns ``k``/``p``/``s``, plus ``t`` for
``band`` and ``v`` for ``nlj``), generated here with
numpy, so the rows are not bit-identical to ``tenon_datasets::generate`` (see
``README.md`` beside this file). Each workload is generated once, written to
an Arrow IPC file in a temporary folder, and each engine then runs in its own
subprocess (so that its thread settings are set before it is imported):

    DuckDB      SET threads=N; the Arrow tables registered as views
    Polars      POLARS_MAX_THREADS=N; lazy join (pushdown drops ``s``)
    DataFusion  target_partitions=N; the batches registered as N partitions

and runs the workload's query (``QUERIES``) once to warm up and ``--runs``
times timed:

    equi-joins  SELECT count(*), sum(a.p), sum(b.p)
                FROM probe a JOIN build b ON a.k = b.k
    band        ... ON a.k = b.k AND a.t BETWEEN b.t - 10 AND b.t + 10
                (Polars: lazy join_where with the three predicates)
    nlj         SELECT count(*) FROM probe a JOIN build b ON a.v < b.v
                (Polars: lazy join_where, then len())

Loading and registration are outside the timed region; the timed region is
the query up to its (one-row) result in Python. It prints the median seconds
per engine and workload and the join's row count, which must agree across
engines (a WARNING line is printed when the engines' answers differ or an
engine fails).

Usage (pip install duckdb polars datafusion numpy pyarrow):

    python3 benches/peers/peers.py                       # all, full size
    python3 benches/peers/peers.py --scale 0.01 --runs 2 # quick check
    python3 benches/peers/peers.py --workload zipf --workload m2n \
        --engine duckdb --json /tmp/peers.json
    python3 benches/peers/peers.py --workload band --workload nlj
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

WORKLOADS = {  # name: (probe rows, build rows) at scale 1.0
    "fk_small": (10_000_000, 1_000),
    "fk_medium": (10_000_000, 1_000_000),
    "fk_large": (10_000_000, 10_000_000),
    "zipf": (10_000_000, 1_000_000),
    "low_match": (10_000_000, 1_000_000),
    "m2n": (1_000_000, 1_000_000),
    "band": (100_000, 100_000),
    "nlj": (20_000, 20_000),
}
ENGINES = ["duckdb", "polars", "datafusion"]
SQL = "SELECT count(*), sum(a.p), sum(b.p) FROM probe a JOIN build b ON a.k = b.k"
BAND_WIDTH = 10  # |a.t - b.t| <= BAND_WIDTH
QUERIES = {  # workload: SQL (DuckDB, DataFusion); the others run SQL
    "band": SQL + f" AND a.t BETWEEN b.t - {BAND_WIDTH} AND b.t + {BAND_WIDTH}",
    "nlj": "SELECT count(*) FROM probe a JOIN build b ON a.v < b.v",
}

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
M2N_FULL_IDS = 100_000
BAND_FULL_IDS = 1_000  # distinct band ids at scale 1.0, scaled like the rows
BAND_T_RANGE = 2_095  # band's t is uniform in 0..2095 (not scaled)
NLJ_V_RANGE = 1_000_000_000  # nlj's v is uniform in 0..1e9 (not scaled)
ZIPF_EXPONENT = 1.1
LOW_MATCH_BLOCK = 100
SALT = {"probe": np.uint64(0x70726F6265000000),  # "probe"
        "build": np.uint64(0x6275696C64000000)}  # "build"
ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz234567", dtype=np.uint8)


# ---------------------------------------------------------------- data --

def scaled(full, scale):
    """``full * scale`` rounded half away from zero, at least 1 (as in Rust)."""
    return max(1, int(np.floor(full * scale + 0.5)))


def scramble(ids):
    """Key of id ``i``: ``i * 0x9E3779B97F4A7C15`` wrapping in u64, as i64."""
    return (ids.astype(np.uint64) * GOLDEN_GAMMA).view(np.int64)


def mix64(z):
    """SplitMix64's finalizer on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def string_column(side, n):
    """The ``s`` column: the generator's hash formula, vectorized. Row ``i``
    hashes to ``h = mix64(i ^ salt)``; length ``4 + ((h >> 32) * 9 >> 32)``;
    character ``j`` is ``ALPHABET[(mix64(h ^ GOLDEN_GAMMA) >> 5j) & 31]``."""
    h = mix64(np.arange(n, dtype=np.uint64) ^ SALT[side])
    lengths = (4 + (((h >> np.uint64(32)) * np.uint64(9)) >> np.uint64(32))).astype(np.int32)
    bits = mix64(h ^ GOLDEN_GAMMA)
    del h
    chars = np.empty((n, 12), dtype=np.uint8)
    for j in range(12):
        chars[:, j] = ALPHABET[((bits >> np.uint64(5 * j)) & np.uint64(31)).astype(np.intp)]
    values = chars[np.arange(12) < lengths[:, None]]  # row-major: row by row
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(values))


def query(workload):
    return QUERIES.get(workload, SQL)


def side_table(side, ids, extra=None):
    """Columns ``k``, ``p``, ``s`` and, if given, ``extra = (name, values)``."""
    n = len(ids)
    columns = {"k": scramble(ids), "p": np.arange(n, dtype=np.int64),
               "s": string_column(side, n)}
    if extra is not None:
        columns[extra[0]] = extra[1].astype(np.int64)
    return pa.table(columns)


def generate(workload, scale, seed):
    """(probe, build) pyarrow tables of ``workload`` at ``scale``."""
    rng = np.random.default_rng(seed)
    full_probe, full_build = WORKLOADS[workload]
    n_probe, n_build = scaled(full_probe, scale), scaled(full_build, scale)
    if workload == "m2n":
        ids = scaled(M2N_FULL_IDS, scale)
        probe_ids = rng.integers(0, ids, n_probe)
        build_ids = rng.integers(0, ids, n_build)
    elif workload == "band":
        # Ids uniform in 0..1K*scale on both sides, t uniform in 0..2095.
        ids = scaled(BAND_FULL_IDS, scale)
        return tuple(side_table(side, rng.integers(0, ids, n),
                                ("t", rng.integers(0, BAND_T_RANGE, n)))
                     for side, n in (("probe", n_probe), ("build", n_build)))
    elif workload == "nlj":
        # Row i has id i (not shuffled) on both sides; v uniform in 0..1e9.
        return tuple(side_table(side, np.arange(n), ("v", rng.integers(0, NLJ_V_RANGE, n)))
                     for side, n in (("probe", n_probe), ("build", n_build)))
    else:
        build_ids = rng.permutation(n_build)  # every id of 0..n_build once
        if workload in ("fk_small", "fk_medium"):
            probe_ids = rng.integers(0, n_build, n_probe)
        elif workload == "fk_large":
            probe_ids = rng.permutation(n_probe)
        elif workload == "zipf":
            # Exact inverse CDF: first rank whose cumulative weight exceeds u*total.
            cumulative = np.cumsum(np.arange(1, n_build + 1, dtype=np.float64) ** -ZIPF_EXPONENT)
            ranks = np.searchsorted(cumulative, rng.random(n_probe) * cumulative[-1], side="right")
            rank_ids = rng.permutation(n_build)  # rank r -> build id rank_ids[r]
            probe_ids = rank_ids[np.minimum(ranks, n_build - 1)]
        elif workload == "low_match":
            # One matching row at a random slot of each aligned block of 100 rows.
            rows = np.arange(n_probe)
            slots = rng.integers(0, LOW_MATCH_BLOCK, -(-n_probe // LOW_MATCH_BLOCK))
            matches = rows % LOW_MATCH_BLOCK == slots[rows // LOW_MATCH_BLOCK]
            probe_ids = np.where(matches, rng.integers(0, n_build, n_probe),
                                 n_build + rng.integers(0, n_probe, n_probe))
        else:
            raise ValueError(f"unknown workload {workload}")
    return side_table("probe", probe_ids), side_table("build", build_ids)


# ------------------------------------------------------------- engines --

def load(path):
    """Reads an IPC file fully into memory (no lazy page faults later)."""
    with pa.OSFile(path) as f:
        return pa.ipc.open_file(f).read_all()


def prepare(engine, workload, probe, build, threads):
    """Registers the tables; returns (version, query function -> tuple): the
    tuple is (count, sum of probe p, sum of build p), or (count,) for nlj."""
    sql = query(workload)
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET threads={threads}").fetchall()
        assert con.execute("SELECT current_setting('threads')").fetchall()[0][0] == threads
        con.register("probe", probe)
        con.register("build", build)
        return duckdb.__version__, lambda: con.execute(sql).fetchall()[0]
    if engine == "polars":
        import polars as pl
        assert pl.thread_pool_size() == threads, pl.thread_pool_size()
        a, b = pl.from_arrow(probe), pl.from_arrow(build)
        if workload == "band":
            # join_where with the equality and both bounds: Polars 2.1 plans it
            # as an equi-join on k with the bounds fused into the join as a
            # predicate. A plain join on k then .filter(is_between) gets the
            # same plan; at full size, 2 threads, 15 interleaved runs each:
            # median 0.0446 s (join_where) vs 0.0452 s (join + filter), i.e.
            # a tie within noise (2026-11-30), so the direct form is kept.
            b = b.rename({"k": "k_b", "p": "p_b", "t": "t_b"})
            plan = (a.lazy().join_where(b.lazy(), pl.col("k") == pl.col("k_b"),
                                        pl.col("t") >= pl.col("t_b") - BAND_WIDTH,
                                        pl.col("t") <= pl.col("t_b") + BAND_WIDTH)
                    .select(pl.len(), pl.col("p").sum(), pl.col("p_b").sum()))
        elif workload == "nlj":
            # join_where on a single inequality runs Polars' IEJoin.
            b = b.rename({"k": "k_b", "p": "p_b", "v": "v_b"})
            plan = (a.lazy().join_where(b.lazy(), pl.col("v") < pl.col("v_b"))
                    .select(pl.len()))
        else:
            plan = (a.lazy().join(b.lazy(), on="k")
                    .select(pl.len(), pl.col("p").sum(), pl.col("p_right").sum()))

        def run():
            return plan.collect().row(0)
        return pl.__version__, run
    if engine == "datafusion":
        import datafusion
        from datafusion import SessionConfig, SessionContext
        ctx = SessionContext(SessionConfig().with_target_partitions(threads))
        for name, table in (("probe", probe), ("build", build)):
            batches = table.to_batches(max_chunksize=8192)
            ctx.register_record_batches(name, [batches[i::threads] for i in range(threads)]
                                        if len(batches) >= threads else [batches])

        def run():
            out = pa.Table.from_batches(ctx.sql(sql).collect())
            return tuple(col[0].as_py() for col in out.columns)
        return datafusion.__version__, run
    raise ValueError(f"unknown engine {engine}")


def worker(engine, workload, folder, runs, threads):
    """Subprocess body: load, register, 1 warm-up + ``runs`` timed queries."""
    probe, build = load(os.path.join(folder, "probe.arrow")), load(os.path.join(folder, "build.arrow"))
    version, run = prepare(engine, workload, probe, build, threads)
    result = run()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
        assert tuple(out) == tuple(result), (out, result)
    count = int(result[0])
    sum_a, sum_b = (int(x) for x in result[1:]) if len(result) == 3 else (None, None)
    # Peak resident memory of the worker (tables + engine), Linux: KiB.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"engine": engine, "version": version, "times": times,
                      "count": count, "sum_probe_p": sum_a, "sum_build_p": sum_b,
                      "peak_rss_mb": round(peak_mb, 1)}))


def run_engine(engine, workload, folder, runs, threads):
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", engine,
           "--workload", workload, "--folder", folder, "--runs", str(runs),
           "--threads", str(threads)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        error = proc.stderr.strip().splitlines()[-1:]
        if proc.returncode < 0:  # e.g. SIGKILL from the out-of-memory killer
            error.append(f"killed by signal {-proc.returncode} after "
                         f"{time.perf_counter() - start:.1f} s")
        return {"engine": engine, "error": error}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- main --

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", action="append", choices=list(WORKLOADS),
                    help="repeatable; default: all eight")
    ap.add_argument("--engine", action="append", choices=ENGINES,
                    help="repeatable; default: all three")
    ap.add_argument("--runs", type=int, default=5, help="timed runs (after 1 warm-up)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of full size")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--json", metavar="PATH", help="also write the results here")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.workload[0], args.folder, args.runs, args.threads)
    if not (args.scale > 0 and np.isfinite(args.scale)) or args.runs < 1:
        ap.error("--scale must be positive and --runs at least 1")

    workloads, engines = args.workload or list(WORKLOADS), args.engine or ENGINES
    results, versions = [], {"python": platform.python_version(),
                             "numpy": np.__version__, "pyarrow": pa.__version__}
    with tempfile.TemporaryDirectory(prefix="tenon-peers-") as folder:
        for workload in workloads:
            start = time.perf_counter()
            probe, build = generate(workload, args.scale, args.seed)
            for name, table in (("probe", probe), ("build", build)):
                with pa.OSFile(os.path.join(folder, f"{name}.arrow"), "wb") as f:
                    with pa.ipc.new_file(f, table.schema) as writer:
                        writer.write_table(table, max_chunksize=65536)
            rows = (probe.num_rows, build.num_rows)
            del probe, build
            print(f"# {workload}: {rows[0]:,} x {rows[1]:,} rows, generated in "
                  f"{time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
            for engine in engines:
                r = run_engine(engine, workload, folder, args.runs, args.threads)
                r.update(workload=workload, probe_rows=rows[0], build_rows=rows[1],
                         query=query(workload))
                if "times" in r:
                    r["median_s"], r["min_s"] = statistics.median(r["times"]), min(r["times"])
                    versions[engine] = r["version"]
                    print(f"#   {engine}: median {r['median_s']:.4f} s, count {r['count']:,}, "
                          f"peak RSS {r['peak_rss_mb']:.0f} MB", file=sys.stderr, flush=True)
                else:
                    print(f"#   {engine}: FAILED: {' '.join(r['error'])}", file=sys.stderr, flush=True)
                results.append(r)

    header = ["workload"] + engines + ["best", "count", "agree"]
    lines, warnings = [], []
    for workload in workloads:
        rs = {r["engine"]: r for r in results if r["workload"] == workload}
        ok = [r for r in rs.values() if "median_s" in r]
        best = min(ok, key=lambda r: r["median_s"])["engine"] if ok else "-"
        answers = {(r["count"], r["sum_probe_p"], r["sum_build_p"]) for r in ok}
        if len(answers) > 1:
            warnings.append(f"WARNING: engines disagree on {workload}: " + "; ".join(
                f"{r['engine']} count {r['count']:,}" + (
                    f" sums {r['sum_probe_p']:,} {r['sum_build_p']:,}"
                    if r["sum_probe_p"] is not None else "") for r in ok))
        for e in engines:
            if "error" in rs.get(e, {}):
                warnings.append(f"WARNING: {e} failed on {workload}: {' '.join(rs[e]['error'])}")
        lines.append([workload] + [f"{rs[e]['median_s']:.4f}" if "median_s" in rs.get(e, {})
                                   else "error" for e in engines]
                     + [best, f"{ok[0]['count']:,}" if ok else "-",
                        "yes" if len(answers) == 1 else "NO"])
    widths = [max(len(str(row[i])) for row in [header] + lines) for i in range(len(header))]
    print(f"median seconds of {args.runs} runs, scale {args.scale}, {args.threads} threads")
    for row in [header] + lines:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    for warning in warnings:
        print(warning)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "runs": args.runs, "threads": args.threads,
                       "seed": args.seed, "queries": {w: query(w) for w in workloads},
                       "versions": versions,
                       "cpus": os.cpu_count(), "results": results}, f, indent=2)
    return 0 if all("median_s" in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
