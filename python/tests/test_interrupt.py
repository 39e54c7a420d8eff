"""Queries run with the GIL released, and Ctrl-C stops a running query
with KeyboardInterrupt."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import tenon

# A join that takes seconds at TPC-H scale 0.01: every pair of lineitem
# rows with a smaller quantity (3.6e9 pairs, a band of them kept).
LONG = ("SELECT count(*) FROM lineitem a JOIN lineitem b "
        "ON a.l_quantity < b.l_quantity AND a.l_discount + b.l_tax < b.l_discount + 0.05")


def test_threads_share_a_session():
    import pyarrow as pa

    session = tenon.Session(threads=2)
    session.register_tpch(0.01)
    counts = {}

    def query(i):
        counts[i] = session.sql(
            "SELECT count(*) AS n FROM lineitem JOIN orders ON l_orderkey = o_orderkey"
        ).to_arrow()["n"][0].as_py()

    def register():
        for j in range(5):
            session.register(f"x{j}", pa.table({"k": list(range(1000))}))

    threads = [threading.Thread(target=query, args=(i,)) for i in range(4)]
    threads.append(threading.Thread(target=register))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts == {i: 60175 for i in range(4)}
    assert {f"x{j}" for j in range(5)} <= set(session.tables())


def test_other_threads_run_while_a_query_runs(tpch):
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    tpch.sql("SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
             "JOIN customer ON o_custkey = c_custkey").to_arrow()
    elapsed = time.perf_counter() - start
    stop.set()
    counter.join()
    # Had the query held the GIL, the counter would not have run at all.
    assert ticks > 0, f"no tick in {elapsed:.3f} s"


import pytest


@pytest.mark.parametrize("call", ["q.to_arrow()", "s.execute_script('SELECT 1; ' + LONG + ';')"])
def test_ctrl_c_stops_a_running_query(call):
    script = textwrap.dedent(f"""
        import sys, time, tenon
        LONG = {LONG!r}
        s = tenon.Session(threads=2)
        s.register_tpch(0.01)
        q = s.sql(LONG)
        print("running", flush=True)
        start = time.perf_counter()
        try:
            {call}
            print("finished", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted after {{time.perf_counter() - start:.2f}} s", flush=True)
            # The session goes on working.
            print(s.sql("SELECT count(*) AS n FROM nation").to_arrow()["n"][0], flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "running"
    time.sleep(1.0)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    waited = time.perf_counter() - sent
    assert "interrupted after" in out, (out, err)
    assert out.strip().endswith("25"), out
    assert waited < 5, f"the interrupt took {waited:.2f} s"
