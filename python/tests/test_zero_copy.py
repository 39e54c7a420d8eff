"""Nothing is copied on the way in or out: the buffers of a registered
pyarrow column reach a projection's result unchanged."""

import time

import pyarrow as pa
import pytest

import tenon


def buffer_range(chunked):
    """(first byte, end) of each chunk's values buffer."""
    out = []
    for chunk in chunked.chunks:
        values = chunk.buffers()[1]
        out.append((values.address, values.address + values.size))
    return out


@pytest.mark.parametrize("rows", [1, 10_000, 1_000_000])
def test_projection_returns_the_registered_buffers(rows):
    table = pa.table({"k": pa.array(range(rows), pa.int64()), "v": pa.array(range(rows), pa.float64())})
    inputs = buffer_range(table["k"]) + buffer_range(table["v"])
    session = tenon.Session(threads=2)
    session.register("t", table)
    out = session.sql("SELECT k, v FROM t").to_arrow()
    assert out.num_rows == rows
    for column in ["k", "v"]:
        for chunk in out[column].chunks:
            address = chunk.buffers()[1].address
            assert any(lo <= address < hi for lo, hi in inputs), \
                f"{column}: an output buffer at {address:#x} is not inside an input buffer"
    assert sorted(out["k"].to_pylist()) == list(range(rows))


def test_registering_a_large_table_copies_nothing():
    # 80 MB of values: registering reads them once for statistics, but
    # allocates no copy of them.
    rows = 10_000_000
    table = pa.table({"k": pa.array(range(rows), pa.int64())})
    before = pa.total_allocated_bytes()
    session = tenon.Session(threads=2)
    start = time.perf_counter()
    session.register("t", table)
    elapsed = time.perf_counter() - start
    # (pyarrow allocates a few hundred bytes for the stream it exports; a
    # copy would be 80 MB.)
    assert pa.total_allocated_bytes() - before < 64 * 1024
    out = session.sql("SELECT k FROM t").to_arrow()
    assert pa.total_allocated_bytes() - before < 64 * 1024, "the result was copied into pyarrow's pool"
    assert out.num_rows == rows
    print(f"registered {rows} BIGINT rows in {elapsed * 1000:.1f} ms")
