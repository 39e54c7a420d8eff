#!/usr/bin/env python3
"""Time tenon, DuckDB, Polars and DataFusion on tenon's join workloads.

The data follows the recipe of ``datasets/README.md`` (row counts, key
distributions, key scrambling, columns ``k``/``p``/``s``, plus ``t`` for
``band`` and ``v`` for ``nlj``), generated here with
numpy, so the rows are not bit-identical to ``tenon_datasets::generate`` (see
``README.md`` beside this file). The time workloads ``asof`` and ``interval``
(issue 16) have their own recipe, in ``README.md``. Each workload is generated
once and written to Arrow IPC files in a temporary folder (one per table); every
engine then runs in its own process on those files (so that its thread settings
are set before it is imported):

    tenon       tenon query --threads N --runs R --timing --memory-table ...
                (the binary of --tenon; its `elapsed_ms` median, tables read
                into memory before the runs)
    DuckDB      SET threads=N; the Arrow tables registered as views
    Polars      POLARS_MAX_THREADS=N; lazy join (pushdown drops ``s``)
    DataFusion  target_partitions=N; the batches registered as N partitions

and runs the workload's query (``QUERIES``) once to warm up and ``--runs``
times timed (tenon: ``--runs`` runs, no separate warm-up):

    equi-joins  SELECT count(*), sum(a.p), sum(b.p)
                FROM probe a JOIN build b ON a.k = b.k
    band        ... ON a.k = b.k AND a.t BETWEEN b.t - 10 AND b.t + 10
                (Polars: lazy join_where with the three predicates)
    nlj         SELECT count(*) FROM probe a JOIN build b ON a.v < b.v
                (Polars: lazy join_where, then len())
    asof        SELECT count(*), sum(q.q) FROM trades t ASOF JOIN quotes q
                MATCH_CONDITION (t.ts >= q.ts) ON t.sym = q.sym
                (DuckDB: ASOF LEFT JOIN ... ON t.sym = q.sym AND t.ts >= q.ts;
                Polars: both sides sorted by ts, then join_asof backward by
                sym, inside the timing; tenon also with BROADCAST(q) and
                SHUFFLE_MERGE(q))
    interval    ... ON a.k = b.k AND a.t BETWEEN b.t - INTERVAL '5' MINUTE
                AND b.t + INTERVAL '5' MINUTE (Polars: join_where)

Loading and registration are outside the timed region; the timed region is
the query up to its (one-row) result. It prints the median seconds per engine
and workload and the join's row count, which must agree across engines with
the sums (a WARNING line is printed when the engines' answers differ or an
engine fails; an engine that does not implement a workload's query, such as
DataFusion's ASOF JOIN, is a NOTE and its cell reads n/a).

Usage (pip install duckdb polars datafusion numpy pyarrow; tenon's column
needs ``cargo build --release`` first, else it reports a failure):

    python3 benches/peers/peers.py                       # all, full size
    python3 benches/peers/peers.py --scale 0.01 --runs 2 # quick check
    python3 benches/peers/peers.py --workload zipf --workload m2n \
        --engine duckdb --json /tmp/peers.json
    python3 benches/peers/peers.py --workload asof --workload interval
"""

import argparse
import csv
import decimal
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

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
    "asof": (10_000_000, 1_000_000),  # trades, quotes
    "interval": (1_000_000, 1_000_000),
}
ROOT = Path(__file__).resolve().parents[2]
ENGINES = ["tenon", "duckdb", "polars", "datafusion"]
TABLES = {"asof": ("trades", "quotes")}  # workload: (probe, build) table names
SQL = "SELECT count(*), sum(a.p), sum(b.p) FROM probe a JOIN build b ON a.k = b.k"
BAND_WIDTH = 10  # |a.t - b.t| <= BAND_WIDTH
INTERVAL_MINUTES = 5  # |a.t - b.t| <= 5 minutes
QUERIES = {  # workload: SQL (tenon, DuckDB, DataFusion); the others run SQL
    "band": SQL + f" AND a.t BETWEEN b.t - {BAND_WIDTH} AND b.t + {BAND_WIDTH}",
    "nlj": "SELECT count(*) FROM probe a JOIN build b ON a.v < b.v",
    "asof": "SELECT count(*), sum(q.q) FROM trades t ASOF JOIN quotes q "
            "MATCH_CONDITION (t.ts >= q.ts) ON t.sym = q.sym",
    "interval": SQL + f" AND a.t BETWEEN b.t - INTERVAL '{INTERVAL_MINUTES}' MINUTE"
                      f" AND b.t + INTERVAL '{INTERVAL_MINUTES}' MINUTE",
}
# DuckDB has no MATCH_CONDITION; its ASOF join takes the inequality in ON and
# is inner unless LEFT (tenon's ASOF JOIN, like Snowflake's, keeps every left
# row, NULL-padded).
DUCKDB_QUERIES = {
    "asof": "SELECT count(*), sum(q.q) FROM trades t ASOF LEFT JOIN quotes q "
            "ON t.sym = q.sym AND t.ts >= q.ts",
}
# tenon runs these hinted variants too, each its own column (hint block
# after SELECT, docs/hints.md H01).
# "tenon best" in the table is the fastest of tenon's columns.
EQUI_HINTS = ["BROADCAST(b)", "SHUFFLE_HASH(b)", "SHUFFLE_MERGE(b)"]
TENON_HINTS = {
    **{w: EQUI_HINTS for w in ("fk_small", "fk_medium", "fk_large", "zipf", "low_match", "m2n",
                               "band")},
    "nlj": ["SHUFFLE_MERGE(b)", "NEST_LOOP(b)"],
    "asof": ["BROADCAST(q)", "SHUFFLE_MERGE(q)"],
    "interval": ["SHUFFLE_MERGE(b)", "NEST_LOOP(b)"],
}
# Peak memory allowed for tenon's best column, relative to the fastest
# peer's (issue 17: no more than 1.5x for speed); above it, a WARNING.
PEAK_RATIO_LIMIT = 1.5

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
M2N_FULL_IDS = 100_000
BAND_FULL_IDS = 1_000  # distinct band ids at scale 1.0, scaled like the rows
BAND_T_RANGE = 2_095  # band's t is uniform in 0..2095 (not scaled)
NLJ_V_RANGE = 1_000_000_000  # nlj's v is uniform in 0..1e9 (not scaled)
ASOF_FULL_SYMS = 1_000  # distinct asof symbols at scale 1.0, scaled like the rows
INTERVAL_FULL_KEYS = 10_000  # distinct interval keys at scale 1.0, scaled
DAY_US = 86_400_000_000  # asof and interval times: uniform over one day (µs)
DAY_START_US = int(datetime(2026, 12, 1, tzinfo=timezone.utc).timestamp()) * 1_000_000
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


def query(workload, engine="tenon"):
    """The SQL text ``engine`` runs for ``workload`` (Polars: none)."""
    if engine == "duckdb" and workload in DUCKDB_QUERIES:
        return DUCKDB_QUERIES[workload]
    return QUERIES.get(workload, SQL)


def table_names(workload):
    """The (probe, build) table names of ``workload``, also its files' stems."""
    return TABLES.get(workload, ("probe", "build"))


def timestamps(rng, n):
    """``n`` timestamps (µs, no time zone) uniform over one day."""
    return pa.array(DAY_START_US + rng.integers(0, DAY_US, n), type=pa.timestamp("us"))


def time_tables(workload, rng, n_probe, n_build, scale):
    """``asof``: trades (sym, ts, p) and quotes (sym, ts, q); ``interval``:
    probe and build (k, t, p). Keys are scrambled ids uniform in
    ``0..scaled(full keys)``, times uniform over a day, payloads the row
    number (no ``s`` column: the time queries do not read one)."""
    if workload == "asof":
        syms = scaled(ASOF_FULL_SYMS, scale)
        trades = pa.table({"sym": scramble(rng.integers(0, syms, n_probe)),
                           "ts": timestamps(rng, n_probe),
                           "p": np.arange(n_probe, dtype=np.int64)})
        quotes = pa.table({"sym": scramble(rng.integers(0, syms, n_build)),
                           "ts": timestamps(rng, n_build),
                           "q": np.arange(n_build, dtype=np.int64)})
        return trades, quotes
    keys = scaled(INTERVAL_FULL_KEYS, scale)
    return tuple(pa.table({"k": scramble(rng.integers(0, keys, n)), "t": timestamps(rng, n),
                           "p": np.arange(n, dtype=np.int64)})
                 for n in (n_probe, n_build))


def duplicate_versions(quotes):
    """Rows of ``quotes`` whose (sym, ts) an earlier row already has: ties,
    where DuckDB's choice differs from tenon's and Polars' (README)."""
    keys = np.stack([quotes.column("sym").to_numpy(),
                     quotes.column("ts").cast(pa.int64()).to_numpy()], axis=1)
    return len(keys) - len(np.unique(keys, axis=0))


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
    elif workload in ("asof", "interval"):
        return time_tables(workload, rng, n_probe, n_build, scale)
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


def polars_plan(pl, workload, a, b):
    """The lazy Polars query of ``workload`` over frames ``a`` and ``b``."""
    if workload == "asof":
        # join_asof needs both sides sorted by the time; the sorts are part
        # of the query (inside the timing), as tenon gets unsorted tables.
        # Sortedness cannot be checked per `by` group (Polars warns), and
        # the sorts just made it so.
        return (a.lazy().sort("ts")
                .join_asof(b.lazy().sort("ts"), on="ts", by="sym", strategy="backward",
                           check_sortedness=False)
                .select(pl.len(), pl.col("q").sum()))
    if workload in ("band", "interval"):
        # join_where with the equality and both bounds: Polars 2.1 plans it
        # as an equi-join on k with the bounds fused into the join as a
        # predicate. A plain join on k then .filter(is_between) gets the
        # same plan; on band at full size, 2 threads, 15 interleaved runs
        # each: median 0.0446 s (join_where) vs 0.0452 s (join + filter),
        # i.e. a tie within noise (2026-11-30), so the direct form is kept.
        width = BAND_WIDTH if workload == "band" else timedelta(minutes=INTERVAL_MINUTES)
        b = b.rename({"k": "k_b", "p": "p_b", "t": "t_b"})
        return (a.lazy().join_where(b.lazy(), pl.col("k") == pl.col("k_b"),
                                    pl.col("t") >= pl.col("t_b") - width,
                                    pl.col("t") <= pl.col("t_b") + width)
                .select(pl.len(), pl.col("p").sum(), pl.col("p_b").sum()))
    if workload == "nlj":
        # join_where on a single inequality runs Polars' IEJoin.
        b = b.rename({"k": "k_b", "p": "p_b", "v": "v_b"})
        return (a.lazy().join_where(b.lazy(), pl.col("v") < pl.col("v_b"))
                .select(pl.len()))
    return (a.lazy().join(b.lazy(), on="k")
            .select(pl.len(), pl.col("p").sum(), pl.col("p_right").sum()))


def prepare(engine, workload, probe, build, threads):
    """Registers the tables; returns (version, query function -> tuple): the
    tuple is the count, then the query's sums (none for nlj)."""
    sql = query(workload, engine)
    names = table_names(workload)
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute(f"SET threads={threads}").fetchall()
        assert con.execute("SELECT current_setting('threads')").fetchall()[0][0] == threads
        con.register(names[0], probe)
        con.register(names[1], build)
        return duckdb.__version__, lambda: con.execute(sql).fetchall()[0]
    if engine == "polars":
        import polars as pl
        assert pl.thread_pool_size() == threads, pl.thread_pool_size()
        plan = polars_plan(pl, workload, pl.from_arrow(probe), pl.from_arrow(build))

        def run():
            return plan.collect().row(0)
        return pl.__version__, run
    if engine == "datafusion":
        import datafusion
        from datafusion import SessionConfig, SessionContext
        ctx = SessionContext(SessionConfig().with_target_partitions(threads))
        for name, table in zip(names, (probe, build)):
            batches = table.to_batches(max_chunksize=8192)
            ctx.register_record_batches(name, [batches[i::threads] for i in range(threads)]
                                        if len(batches) >= threads else [batches])

        def run():
            out = pa.Table.from_batches(ctx.sql(sql).collect())
            return tuple(col[0].as_py() for col in out.columns)
        return datafusion.__version__, run
    raise ValueError(f"unknown engine {engine}")


def not_implemented(error):
    """Whether ``error`` says the engine lacks the query's feature (DataFusion:
    "This feature is not implemented: Unsupported JOIN operator AsOf ...")
    rather than that it failed."""
    return "not implemented" in str(error).lower()


def answer(result):
    """(count, sums) of a one-row result; a NULL sum stays None."""
    return int(result[0]), [None if x is None else int(x) for x in result[1:]]


def worker(engine, workload, folder, runs, threads):
    """Subprocess body: load, register, 1 warm-up + ``runs`` timed queries."""
    probe, build = (load(os.path.join(folder, f"{name}.arrow")) for name in table_names(workload))
    version, run = prepare(engine, workload, probe, build, threads)
    try:
        result = run()  # warm-up
    except Exception as e:  # the engine's own error types (ValueError, ...)
        if not not_implemented(e):
            raise
        print(json.dumps({"engine": engine, "version": version,
                          "unsupported": str(e).splitlines()[0].split(" {")[0][:200]}))
        return
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
        assert tuple(out) == tuple(result), (out, result)
    count, sums = answer(result)
    print(json.dumps({"engine": engine, "version": version, "times": times,
                      "count": count, "sums": sums, "peak_rss_mb": round(peak_rss_mb(), 1)}))


def peak_rss_mb():
    """Peak resident memory of this process (tables + engine) in MB: Linux's
    VmHWM, the high-water mark of this process's own memory since its exec.
    Not getrusage's ru_maxrss: the parent starts workers with vfork, and exec
    carries the parent's peak (the generated tables) into the child's."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# Runs the command of its arguments and prints its peak RSS (KiB) last on
# stderr. Started from the small interpreter this is, the command's
# ru_maxrss is its own, not the benchmark parent's (see peak_rss_mb).
MEASURE = """
import os, signal, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(p.pid, 0)
code = os.waitstatus_to_exitcode(status)
if code < 0:
    sys.stderr.write(f"killed by signal {-code} ({signal.Signals(-code).name})\\n")
sys.stderr.write(f"peak_rss_kib={usage.ru_maxrss}\\n")
sys.exit(128 - code if code < 0 else code)
"""


def run_process(cmd, env=None):
    """Runs ``cmd``; returns (exit status, stdout, stderr, seconds)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start


def failure(stderr, code, seconds):
    """The error lines of a failed process: its last stderr line, and the
    signal if one ended it (e.g. SIGKILL from the out-of-memory killer)."""
    error = stderr.strip().splitlines()[-1:]
    if code < 0:
        error.append(f"killed by signal {-code} after {seconds:.1f} s")
    elif code > 128:
        error.append(f"after {seconds:.1f} s")
    return error or [f"exit status {code}, no message"]


def tenon_variants(workload):
    """(label, SQL) of each tenon run of ``workload``: the plain query, then
    one per hint of ``TENON_HINTS``."""
    sql = query(workload)
    variants = [("tenon", sql)]
    for hint in TENON_HINTS.get(workload, []):
        assert sql.startswith("SELECT ")
        variants.append((f"tenon {hint}", f"SELECT /*+ {hint} */ " + sql[len("SELECT "):]))
    return variants


def csv_integer(text):
    """A CSV cell as an integer: "" is NULL (None), "12" and "12.0" are 12;
    anything else (a fraction, a word) raises ValueError."""
    if text == "":
        return None
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(text) from None
    if not value.is_finite() or value != value.to_integral_value():
        raise ValueError(text)
    return int(value)


def run_tenon(binary, workload, folder, runs, threads, settings=()):
    """Runs ``tenon query`` on the workload's files, once per variant, with
    ``--set KEY=VALUE`` for each of ``settings`` (``--tenon-set``; the labels
    then name them); returns one result per variant (an ``error`` when it
    fails, e.g. before tenon plans the query)."""
    tables = []
    for name in table_names(workload):
        tables += ["--memory-table", f"{name}={os.path.join(folder, name + '.arrow')}"]
    results, version = [], binary
    if os.access(binary, os.X_OK):
        code, out, _, _ = run_process([binary, "--version"])
        version = f"{out.strip() if code == 0 else '?'} ({binary})"
    sets = [a for kv in settings for a in ("--set", kv)]
    suffix = f" [{', '.join(settings)}]" if settings else ""
    for label, sql in tenon_variants(workload):
        label += suffix
        r = {"engine": "tenon", "label": label, "query": sql, "version": version}
        results.append(r)
        if not os.access(binary, os.X_OK):
            r["error"] = [f"no tenon binary at {binary}: build it with `cargo build --release` "
                          "or pass --tenon PATH"]
            continue
        cmd = [sys.executable, "-c", MEASURE, binary, "query", "--threads", str(threads),
               "--runs", str(runs), "--timing", "--format", "csv"] + sets + tables + ["--", sql]
        code, out, err, seconds = run_process(cmd)
        peak = re.search(r"\npeak_rss_kib=(\d+)\n$", "\n" + err)
        err = err[:peak.start()] if peak else err  # tenon's own stderr
        timing = re.search(r"elapsed_ms=([0-9.]+) rows=(\d+) reads_files=false", err)
        lines = list(csv.reader(out.splitlines()))
        if code != 0 or not timing or len(lines) != 2:
            r["error"] = failure(err, code, seconds) if code != 0 else [
                f"unexpected output (exit 0): stdout {out.strip()[-200:]!r}, "
                f"stderr {err.strip()[-200:]!r}"]
            continue
        try:
            count, sums = answer([csv_integer(v) for v in lines[1]])
        except ValueError:
            r["error"] = [f"result row is not integers: {lines[1]}"]
            continue
        r.update(median_s=float(timing.group(1)) / 1000, count=count, sums=sums,
                 peak_rss_mb=round(int(peak.group(1)) / 1024, 1) if peak else None)
    return results


def run_engine(engine, workload, folder, runs, threads, tenon, tenon_settings=()):
    """Results (a list: tenon runs one per hinted variant) of ``engine``."""
    if engine == "tenon":
        return run_tenon(tenon, workload, folder, runs, threads, tenon_settings)
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", engine,
           "--workload", workload, "--folder", folder, "--runs", str(runs),
           "--threads", str(threads)]
    code, out, err, seconds = run_process(cmd, env)
    sql = None if engine == "polars" else query(workload, engine)
    if code != 0:
        sys.stderr.write(err)
        return [{"engine": engine, "label": engine, "query": sql,
                 "error": failure(err, code, seconds)}]
    r = json.loads(out.strip().splitlines()[-1])
    if "times" in r:
        r["median_s"], r["min_s"] = statistics.median(r["times"]), min(r["times"])
    r.update(label=engine, query=sql)
    return [r]


# ---------------------------------------------------------------- main --

def write_tables(workload, scale, seed, folder):
    """Generates ``workload`` into ``folder``; returns (rows, notes)."""
    probe, build = generate(workload, scale, seed)
    for name, table in zip(table_names(workload), (probe, build)):
        with pa.OSFile(os.path.join(folder, f"{name}.arrow"), "wb") as f:
            with pa.ipc.new_file(f, table.schema) as writer:
                writer.write_table(table, max_chunksize=65536)
    notes = []
    if workload == "asof" and (ties := duplicate_versions(build)):
        notes.append(f"NOTE: asof: {ties:,} quotes share (sym, ts) with another quote; on "
                     "such ties DuckDB may pick another quote than tenon and Polars (the last)")
    return (probe.num_rows, build.num_rows), notes


def summary(workloads, results, runs, scale, threads):
    """The tables (time, then peak RSS) and the WARNING/NOTE lines, as
    printed. tenon's columns: its default plan and its best column (the
    fastest hinted variant, named in ``tenon best plan``); ``ratio`` is tenon
    best over the fastest peer."""
    peers = [e for e in dict.fromkeys(r["label"] for r in results if r["engine"] != "tenon")]
    has_tenon = any(r["engine"] == "tenon" for r in results)
    labels = (["tenon", "tenon best"] if has_tenon else []) + peers
    header = ["workload"] + labels + (["tenon best plan"] if has_tenon else []) + [
        "fastest peer", "ratio", "count", "agree"]
    lines, mem_lines, warnings = [], [], []
    for workload in workloads:
        rs = {r["label"]: r for r in results if r["workload"] == workload}
        ok = [r for r in rs.values() if "median_s" in r]
        tenon_ok = [r for r in ok if r["engine"] == "tenon"]
        peer_ok = [r for r in ok if r["engine"] != "tenon"]
        cols = dict(rs)
        # tenon's default plan: its unhinted column (labels may end in the
        # `--tenon-set` settings, " [k=v]")
        cols["tenon"] = next((r for r in rs.values() if r["engine"] == "tenon"
                              and r["label"].split(" [")[0] == "tenon"), {})
        if tenon_ok:
            cols["tenon best"] = min(tenon_ok, key=lambda r: r["median_s"])
        fastest = min(peer_ok, key=lambda r: r["median_s"]) if peer_ok else None
        answers = {(r["count"], tuple(r["sums"])) for r in ok}
        if len(answers) > 1:
            warnings.append(f"WARNING: engines disagree on {workload}: " + "; ".join(
                f"{r['label']} count {r['count']:,}"
                + (" sums " + " ".join("NULL" if x is None else f"{x:,}" for x in r["sums"])
                   if r["sums"] else "") for r in ok))
        for label, r in rs.items():
            if "error" in r:
                warnings.append(f"WARNING: {label} failed on {workload}: {' '.join(r['error'])}")
            if "unsupported" in r:
                warnings.append(f"NOTE: {label} does not run {workload}: {r['unsupported']}")
        warnings += next((r["notes"] for r in rs.values() if r.get("notes")), [])
        best = cols.get("tenon best")
        if best and fastest and best.get("peak_rss_mb") and fastest.get("peak_rss_mb"):
            if best["peak_rss_mb"] > PEAK_RATIO_LIMIT * fastest["peak_rss_mb"]:
                warnings.append(
                    f"WARNING: {workload}: {best['label']} peaks at {best['peak_rss_mb']:.0f} MB, "
                    f"more than {PEAK_RATIO_LIMIT}x the fastest peer's ({fastest['label']}, "
                    f"{fastest['peak_rss_mb']:.0f} MB)")

        def cell(label, key, fmt):
            r = cols.get(label, {})
            return (fmt(r[key]) if r.get(key) is not None else
                    "n/a" if "unsupported" in r else "error" if "error" in r else "-")

        plan = ([best["label"].split(" [")[0].removeprefix("tenon").strip() or "default"
                 if best else "-"]
                if has_tenon else [])
        ratio = f"{best['median_s'] / fastest['median_s']:.2f}" if best and fastest else "-"
        lines.append([workload] + [cell(lb, "median_s", lambda v: f"{v:.4f}") for lb in labels]
                     + plan + [fastest["label"] if fastest else "-", ratio,
                               f"{ok[0]['count']:,}" if ok else "-",
                               "-" if not ok else "yes" if len(answers) == 1 else "NO"])
        mem_lines.append([workload] + [cell(lb, "peak_rss_mb", lambda v: f"{v:.0f}")
                                       for lb in labels])

    def table(head, rows):
        widths = [max(len(str(row[i])) for row in [head] + rows) for i in range(len(head))]
        return ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
                for row in [head] + rows]

    out = [f"median seconds of {runs} runs, scale {scale}, {threads} threads"]
    out += table(header, lines)
    out += ["", "peak RSS (MB, the tables included)"]
    out += table(["workload"] + labels, mem_lines)
    return out + warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", action="append", choices=list(WORKLOADS),
                    help=f"repeatable; default: all {len(WORKLOADS)}")
    ap.add_argument("--engine", action="append", choices=ENGINES,
                    help="repeatable; default: all four")
    ap.add_argument("--runs", type=int, default=5, help="timed runs (after 1 warm-up)")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of full size")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--tenon", default=str(ROOT / "target" / "release" / "tenon"),
                    help="the tenon binary (default: target/release/tenon)")
    ap.add_argument("--tenon-set", action="append", default=[], metavar="KEY=VALUE",
                    help="repeatable; passed to tenon as --set KEY=VALUE (docs/cli.md), "
                         "e.g. fused_aggregate=false")
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
            rows, notes = write_tables(workload, args.scale, args.seed, folder)
            print(f"# {workload}: {rows[0]:,} x {rows[1]:,} rows, generated in "
                  f"{time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
            for engine in engines:
                for r in run_engine(engine, workload, folder, args.runs, args.threads, args.tenon,
                                    args.tenon_set):
                    r.update(workload=workload, probe_rows=rows[0], build_rows=rows[1],
                             notes=notes)
                    if "median_s" in r:
                        versions.setdefault(engine, r.get("version", args.tenon))
                        print(f"#   {r['label']}: median {r['median_s']:.4f} s, count "
                              f"{r['count']:,}, sums {r['sums']}, peak RSS "
                              f"{r['peak_rss_mb'] or 0:.0f} MB", file=sys.stderr, flush=True)
                    elif "unsupported" in r:
                        print(f"#   {r['label']}: not implemented: {r['unsupported']}",
                              file=sys.stderr, flush=True)
                    else:
                        print(f"#   {r['label']}: FAILED: {' '.join(r['error'])}",
                              file=sys.stderr, flush=True)
                    results.append(r)

    print("\n".join(summary(workloads, results, args.runs, args.scale, args.threads)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "runs": args.runs, "threads": args.threads,
                       "seed": args.seed, "queries": {w: query(w) for w in workloads},
                       "duckdb_queries": {w: query(w, "duckdb") for w in workloads},
                       "versions": versions, "cpus": os.cpu_count(), "results": results},
                      f, indent=2)
    return 0 if all("median_s" in r or "unsupported" in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
