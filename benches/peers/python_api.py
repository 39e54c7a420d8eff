"""tenon from Python against DuckDB and Polars on the same in-memory data.

fk_medium (10M probe rows, 1M build rows; benches/peers/peers.py's
generator): each engine joins two pyarrow tables already in memory and
collects the whole result (10M rows of k, a.p, b.p) as Arrow:

- tenon: ``session.sql(...).to_arrow()`` (tables registered once,
  without copying, before timing);
- DuckDB: ``con.sql(...).arrow()`` over the same pyarrow tables;
- Polars: ``a.join(b, on="k")`` over frames made from them, collected.

Runs are interleaved (one of each engine per round) and the median is
printed. With ``--tenon PATH`` it also runs ``tenon query --timing`` on the
same data (written as Arrow IPC files, held in memory) for the kernel time
the CLI measures, so that the Python package's overhead over it is known.

Usage (pip install ./python duckdb polars numpy pyarrow):

    python3 benches/peers/python_api.py --threads 2 --runs 7 --tenon target/release/tenon
"""

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (the same generator as the other peer benchmarks)

SQL = "SELECT a.k, a.p AS pa, b.p AS pb FROM probe a JOIN build b ON a.k = b.k"


def engines(probe, build, threads):
    """name -> function returning the number of result rows."""
    import duckdb
    import polars as pl

    import tenon

    session = tenon.Session(threads=threads)
    start = time.perf_counter()
    session.register("probe", probe)
    session.register("build", build)
    registered = time.perf_counter() - start
    query = session.sql(SQL)

    con = duckdb.connect()
    con.execute(f"SET threads={threads}")
    con.register("probe", probe)
    con.register("build", build)

    a, b = pl.from_arrow(probe), pl.from_arrow(build)

    def run_duckdb():
        out = con.sql(SQL).arrow()
        if hasattr(out, "read_all"):  # DuckDB 1.4+: a RecordBatchReader
            out = out.read_all()
        return out.num_rows

    def run_polars():
        return a.join(b, on="k").select("k", "p", "p_right").height

    versions = {"tenon": tenon.__version__, "duckdb": duckdb.__version__,
                "polars": pl.__version__}
    return {"tenon": lambda: query.to_arrow().num_rows, "duckdb": run_duckdb,
            "polars": run_polars}, versions, registered


def cli_time(binary, probe, build, threads, runs):
    """Median execution time `tenon query --timing` reports (planning and
    writing the output excluded) for SQL on the same data."""
    with tempfile.TemporaryDirectory() as folder:
        tables = []
        for name, table in (("probe", probe), ("build", build)):
            path = os.path.join(folder, f"{name}.arrow")
            with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
                w.write_table(table)
            tables += ["--memory-table", f"{name}={path}"]
        out = subprocess.run(
            [binary, "query", "--threads", str(threads), "--runs", str(runs), "--timing",
             "--format", "arrow", "--output", "/dev/null"] + tables + ["--", SQL],
            capture_output=True, text=True, check=True)
        found = re.search(r"elapsed_ms=([0-9.]+)", out.stderr)
        return float(found.group(1)) / 1000 if found else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--tenon", help="a tenon binary, for the CLI's own time")
    args = parser.parse_args()
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    probe, build = peers.generate("fk_medium", args.scale, 42)
    probe, build = probe.select(["k", "p"]), build.select(["k", "p"])
    run, versions, registered = engines(probe, build, args.threads)
    rows = {name: f() for name, f in run.items()}  # warm-up, and the answers
    if len(set(rows.values())) != 1:
        print(f"WARNING: engines disagree on the row count: {rows}")
    times = {name: [] for name in run}
    for _ in range(args.runs):
        for name, f in run.items():
            start = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - start)
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    print(f"# fk_medium x{args.scale}: {probe.num_rows:,} x {build.num_rows:,} rows -> "
          f"{rows['tenon']:,} rows collected as Arrow; {args.threads} threads, "
          f"median of {args.runs} interleaved runs; {cpu}")
    print(f"# tenon registered both tables in {registered * 1000:.1f} ms")
    for name, t in times.items():
        print(f"{name:8} {versions[name]:10} {statistics.median(t):.4f} s")
    if args.tenon:
        cli = cli_time(args.tenon, probe, build, args.threads, args.runs)
        py = statistics.median(times["tenon"])
        print(f"tenon CLI kernel time (query --timing): {cli:.4f} s; "
              f"the Python package adds {py - cli:+.4f} s ({py / cli:.2f}x)")


if __name__ == "__main__":
    main()
