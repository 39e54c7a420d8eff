"""tenon.bench() runs `tenon bench` and returns its report."""

import pytest

import tenon


def test_bench_report_as_dict():
    report = tenon.bench("fk_small", scale=0.001, runs=2, threads=1,
                         strategies="BROADCAST,SHUFFLE_HASH")
    assert report["schema"] == "tenon-bench/1"
    (workload,) = report["workloads"]
    assert workload["workload"] == "fk_small"
    assert [s["strategy"] for s in workload["strategies"]] == ["BROADCAST", "SHUFFLE_HASH"]
    for s in workload["strategies"]:
        assert len(s["runs_s"]) == 2 and all(t > 0 for t in s["runs_s"])


def test_bench_as_frame():
    pl = pytest.importorskip("polars")
    frame = tenon.bench(["fk_small"], scale=0.001, runs=1, strategies="BROADCAST",
                        as_frame="polars")
    assert isinstance(frame, pl.DataFrame)
    assert frame.columns == ["workload", "strategy", "run", "seconds", "peak_memory_bytes"]
    assert frame["strategy"].to_list() == ["BROADCAST"]


def test_bench_bad_options_raise():
    with pytest.raises(tenon.BenchError, match="no_such_workload") as e:
        tenon.bench("no_such_workload")
    assert e.value.exit_code == 2
    with pytest.raises(ValueError):
        tenon.bench("fk_small", as_frame="excel")
