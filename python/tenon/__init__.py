"""tenon: an Arrow-native, vectorized join engine, from Python.

    import pyarrow as pa, tenon

    session = tenon.Session(threads=2)
    session.register("orders", pa.table({"cust": [1, 1, 2]}))
    session.register("customers", pa.table({"id": [1, 2], "name": ["a", "b"]}))
    result = session.sql(
        "SELECT /*+ BROADCAST(customers) */ name, count(*) AS n "
        "FROM orders JOIN customers ON cust = id GROUP BY name"
    )
    result.explain("dict")["joins"][0]["strategy"]   # 'BROADCAST'
    result.to_arrow()                                # a pyarrow.Table

Tables come from anything that speaks the Arrow PyCapsule interface
(pyarrow, Polars, DuckDB, pandas), without copying their buffers, from
files (``register_file``) and from the built-in TPC-H generator
(``register_tpch``). Queries run with the GIL released; Ctrl-C stops a
running query and raises ``KeyboardInterrupt``. Errors are subclasses of
``tenon.Error`` with the command line's messages.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _tenon
from ._tenon import (
    BenchError,
    ConfigError,
    ConnectorError,
    DdlError,
    Error,
    ExecutionError,
    FileError,
    HintError,
    OptionsError,
    PlanError,
    ResourceError,
    Result,
    Session,
    SqlError,
    __version__,
)

__all__ = [
    "BenchError",
    "ConfigError",
    "ConnectorError",
    "DdlError",
    "Error",
    "ExecutionError",
    "FileError",
    "HintError",
    "OptionsError",
    "PlanError",
    "ResourceError",
    "Result",
    "Session",
    "SqlError",
    "__version__",
    "bench",
]


def _strings(value: Union[str, Iterable[str], None]) -> List[str]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(v) for v in value]


def bench(
    workloads: Union[str, Iterable[str], None] = None,
    *,
    strategies: Optional[str] = None,
    scale: Optional[float] = None,
    runs: Optional[int] = None,
    threads: Optional[int] = None,
    batch_size: Optional[int] = None,
    seed: Optional[int] = None,
    data: Optional[str] = None,
    queries: Union[str, Iterable[str], None] = None,
    tables: Optional[Dict[str, str]] = None,
    memory_tables: Optional[Dict[str, str]] = None,
    settings: Optional[Dict[str, Any]] = None,
    baseline: Optional[str] = None,
    max_regression: Optional[float] = None,
    svg: Optional[str] = None,
    as_frame: Optional[str] = None,
) -> Any:
    """Runs ``tenon bench`` and returns its report.

    The arguments are ``tenon bench``'s options (docs/cli.md):
    ``workloads`` (``--workload``: fk_small, fk_medium, zipf, low_match,
    m2n, band, nlj, unnest ...; default all), ``strategies`` ("all",
    "default", or names like "BROADCAST,SHUFFLE_HASH"), ``scale``,
    ``runs``, ``threads``, ``batch_size``, ``seed``, ``data`` (a directory
    of ``tenon gen`` files), ``queries`` (SQL files or directories:
    ``bench --query``, each query under each strategy its joins can take)
    with ``tables`` / ``memory_tables`` ({name: path}), ``settings``
    ({key: value}: ``--set``), ``baseline`` and ``max_regression`` (a
    regression past it raises ``BenchError``), ``svg`` (a chart).

    Returns the JSON report (``--json``) as a dict, or, with
    ``as_frame="polars"`` or ``"pandas"``, a DataFrame with one row per
    timed run: workload, strategy, run, seconds, peak_memory_bytes.
    """
    if as_frame not in (None, "polars", "pandas"):
        raise ValueError("as_frame is None, 'polars' or 'pandas'")
    args: List[str] = []
    for w in _strings(workloads):
        args += ["--workload", w]
    for flag, value in [
        ("--strategies", strategies),
        ("--scale", scale),
        ("--runs", runs),
        ("--threads", threads),
        ("--batch-size", batch_size),
        ("--seed", seed),
        ("--data", data),
        ("--baseline", baseline),
        ("--max-regression", max_regression),
        ("--svg", svg),
    ]:
        if value is not None:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    for q in _strings(queries):
        args += ["--query", q]
    for name, path in (tables or {}).items():
        args += ["--table", f"{name}={os.fspath(path)}"]
    for name, path in (memory_tables or {}).items():
        args += ["--memory-table", f"{name}={os.fspath(path)}"]
    for key, value in (settings or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        args += ["--set", f"{key}={value}"]
    with tempfile.TemporaryDirectory(prefix="tenon-bench-") as tmp:
        path = os.path.join(tmp, "report.json")
        args += ["--json", path]
        try:
            _tenon._bench(args)
        except BenchError:
            # A regression past max_regression still wrote its report.
            raise
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    if as_frame is None:
        return report
    return _frame(report, as_frame)


def _frame(report: Dict[str, Any], kind: str) -> Any:
    rows: Dict[str, list] = {
        "workload": [],
        "strategy": [],
        "run": [],
        "seconds": [],
        "peak_memory_bytes": [],
    }
    for w in report.get("workloads", []):
        for s in w.get("strategies", []):
            for i, seconds in enumerate(s.get("runs_s", [])):
                rows["workload"].append(w.get("workload") or w.get("query"))
                rows["strategy"].append(s.get("strategy"))
                rows["run"].append(i)
                rows["seconds"].append(seconds)
                rows["peak_memory_bytes"].append(s.get("peak_memory_bytes"))
    if kind == "polars":
        import polars

        return polars.DataFrame(rows)
    import pandas

    return pandas.DataFrame(rows)
