"""Registering data, running SQL with hints, results in pyarrow, Polars
and pandas, explain, settings, DDL and scripts, against answers computed
another way (pyarrow's own join, DuckDB, plain Python)."""

import collections
import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import tenon


def reference_inner_join(left, right, lkey, rkey):
    """(left key, right payload) pairs of an inner join, by nested loops."""
    by_key = collections.defaultdict(list)
    for k, p in zip(right[rkey].to_pylist(), right["p"].to_pylist()):
        if k is not None:
            by_key[k].append(p)
    out = []
    for k in left[lkey].to_pylist():
        for p in by_key.get(k, []):
            out.append((k, p))
    return sorted(out)


@pytest.mark.parametrize("hint", ["", "/*+ BROADCAST(r) */", "/*+ SHUFFLE_HASH(r) */",
                                  "/*+ SHUFFLE_MERGE(r) */", "/*+ NEST_LOOP(r) */"])
@pytest.mark.parametrize("batch_size", [1, 7, 8192])
def test_join_matches_reference(hint, batch_size):
    rng = random.Random(7)
    left = pa.table({"k": [rng.choice([None, 1, 2, 3, 4, 5]) for _ in range(200)]})
    right = pa.table({
        "k": [rng.choice([None, 1, 2, 2, 3, 9]) for _ in range(50)],
        "p": list(range(50)),
    })
    session = tenon.Session(threads=2, batch_size=batch_size)
    session.register("l", left)
    session.register("r", right)
    got = session.sql(f"SELECT {hint} l.k, r.p FROM l JOIN r ON l.k = r.k").to_arrow()
    assert sorted(zip(got["k"].to_pylist(), got["p"].to_pylist())) == \
        reference_inner_join(left, right, "k", "k")


def test_hint_decides_strategy_and_build_side():
    session = tenon.Session()
    session.register("big", pa.table({"k": list(range(1000))}))
    session.register("small", pa.table({"id": list(range(10))}))
    plan = session.sql(
        "SELECT /*+ SHUFFLE_HASH(big) */ count(*) FROM big JOIN small ON k = id"
    ).explain("dict")
    join = plan["joins"][0]
    assert join["strategy"] == "SHUFFLE_HASH"
    assert join["build"] == "big"
    assert "hint" in join["reason"].lower()
    text = session.sql("SELECT /*+ BROADCAST(small) */ count(*) FROM big JOIN small ON k = id").explain()
    assert "BROADCAST" in text


def test_explain_analyze_reports_rows(tpch):
    text = tpch.sql(
        "SELECT /*+ BROADCAST(nation) */ count(*) FROM customer JOIN nation ON c_nationkey = n_nationkey"
    ).explain_analyze()
    assert "rows=" in text
    analyzed = tpch.sql("SELECT count(*) FROM nation").explain_analyze("dict")
    assert isinstance(analyzed, dict)


def test_tpch_query_matches_duckdb(tpch):
    duckdb = pytest.importorskip("duckdb")
    sql = ("SELECT n_name, count(*) AS customers FROM customer JOIN nation "
           "ON c_nationkey = n_nationkey GROUP BY n_name ORDER BY n_name")
    got = tpch.sql(sql).to_arrow()
    con = duckdb.connect()
    for name in ["customer", "nation"]:
        table = tpch.sql(f"SELECT * FROM {name}").to_arrow()
        con.register(name, table)
    want = con.sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    assert got["n_name"].to_pylist() == want["n_name"].to_pylist()
    assert got["customers"].to_pylist() == want["customers"].to_pylist()
    assert len(got) == 25


def test_result_is_an_arrow_stream(tpch):
    result = tpch.sql("SELECT n_nationkey, n_name FROM nation ORDER BY n_nationkey")
    table = pa.table(result)
    assert table.column_names == ["n_nationkey", "n_name"] == result.columns
    assert table["n_nationkey"].to_pylist() == list(range(25))
    # Run again: a result is a planned query, run as often as asked.
    reader = pa.RecordBatchReader.from_stream(result)
    assert reader.read_all().num_rows == 25


def test_polars_in_and_out():
    pl = pytest.importorskip("polars")
    orders = pl.DataFrame({"cust": [1, 1, 2, 3], "amount": [10.0, 20.0, 5.0, 1.0]})
    customers = pl.DataFrame({"id": [1, 2], "name": ["ann", "bob"]})
    session = tenon.Session()
    session.register("orders", orders)
    session.register("customers", customers)
    out = session.sql(
        "SELECT name, sum(amount) AS total FROM orders JOIN customers ON cust = id "
        "GROUP BY name ORDER BY name"
    ).to_polars()
    assert isinstance(out, pl.DataFrame)
    assert out["name"].to_list() == ["ann", "bob"]
    assert out["total"].to_list() == [30.0, 5.0]
    # Polars reads the result stream itself.
    direct = pl.DataFrame(session.sql("SELECT cust FROM orders"))
    assert sorted(direct["cust"].to_list()) == [1, 1, 2, 3]


def test_pandas_in_and_out():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"k": [3, 1, 2], "v": ["c", "a", "b"]})
    session = tenon.Session()
    session.register("t", frame)
    out = session.sql("SELECT v FROM t ORDER BY k").to_pandas()
    assert isinstance(out, pd.DataFrame)
    assert list(out["v"]) == ["a", "b", "c"]


def test_duckdb_relation_registers():
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.sql("SELECT range AS k FROM range(100)")
    session = tenon.Session()
    session.register("d", relation)
    assert session.sql("SELECT sum(k) AS s FROM d").to_arrow()["s"].to_pylist() == [4950]


def test_record_batch_reader_registers():
    batches = [pa.record_batch({"k": [i, i + 1]}) for i in range(0, 10, 2)]
    reader = pa.RecordBatchReader.from_batches(batches[0].schema, batches)
    session = tenon.Session()
    session.register("t", reader)
    assert session.sql("SELECT count(*) AS n FROM t").to_arrow()["n"].to_pylist() == [10]


def test_register_file_lazy_and_in_memory(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"k": [1, 2, 3], "v": ["x", "y", "z"]}), path)
    session = tenon.Session()
    session.register_file("lazy", path)
    session.register_file("held", str(path), format="parquet", in_memory=True)
    for name in ["lazy", "held"]:
        out = session.sql(f"SELECT v FROM {name} WHERE k >= 2 ORDER BY v").to_arrow()
        assert out["v"].to_pylist() == ["y", "z"]
    assert session.tables() == ["held", "lazy"]
    with pytest.raises(tenon.FileError, match="extension"):
        session.register_file("wrong", path, format="csv")
    with pytest.raises(ValueError, match="unknown format"):
        session.register_file("wrong", path, format="orc")
    with pytest.raises(tenon.FileError) as missing:
        session.register_file("gone", tmp_path / "missing.parquet")
    assert missing.value.exit_code == 2


def test_settings_keywords_and_set():
    session = tenon.Session(threads=1, broadcast_threshold="1KB", hint_mode="strict")
    session.register("a", pa.table({"k": list(range(100))}))
    session.register("b", pa.table({"k": list(range(100))}))
    session.set("broadcast_threshold", "16MB")
    session.set("runtime_filters", False)
    session.set("disabled_strategies", ["NEST_LOOP"])
    with pytest.raises(tenon.ConfigError, match="no_such_setting"):
        session.set("no_such_setting", 1)
    with pytest.raises(tenon.ConfigError):
        tenon.Session(threads="many")
    with pytest.raises(tenon.HintError):
        # strict: a disabled strategy's hint cannot be applied
        session.sql("SELECT /*+ NEST_LOOP(b) */ count(*) FROM a JOIN b ON a.k = b.k").explain()


def test_ddl_views_and_scripts(tmp_path):
    path = tmp_path / "nums.csv"
    path.write_text("n\n1\n2\n3\n")
    session = tenon.Session()
    done = session.execute(
        f"CREATE TABLE nums (n BIGINT) WITH ('connector' = 'filesystem', "
        f"'path' = '{path}', 'format' = 'csv')"
    )
    assert "nums" in done
    assert session.execute("CREATE VIEW big AS SELECT n FROM nums WHERE n > 1") == "created view big"
    result = session.execute("SELECT sum(n) AS s FROM big")
    assert isinstance(result, tenon.Result)
    assert result.to_arrow()["s"].to_pylist() == [5]
    last = session.execute_script("DROP VIEW big; CREATE VIEW small AS SELECT n FROM nums "
                                  "WHERE n < 3; SELECT count(*) AS c FROM small")
    assert last.to_arrow()["c"].to_pylist() == [2]
    assert session.execute_script("DROP VIEW small") is None
    with pytest.raises(tenon.SqlError, match="statement 2"):
        session.execute_script("SELECT 1; SELEC 2")


def test_set_and_reset_statements_change_the_session_settings():
    session = tenon.Session()
    assert session.execute("SET 'table.optimizer.join.broadcast-threshold' = '10 mb'") == (
        "set broadcast_threshold to 10MB"
    )
    settings = dict(
        zip(*[session.execute("SET").to_arrow()[c].to_pylist() for c in ("key", "value")])
    )
    assert settings["broadcast_threshold"] == "10MB"
    session.execute_script("SET 'parallelism.default' = '2'; RESET 'table.optimizer.join.broadcast-threshold'")
    settings = dict(
        zip(*[session.execute("SET").to_arrow()[c].to_pylist() for c in ("key", "value")])
    )
    assert settings["threads"] == "2" and settings["broadcast_threshold"] == "256MB"
    with pytest.raises(tenon.ConfigError, match="streaming mode is not built yet"):
        session.execute("SET 'execution.runtime-mode' = 'streaming'")
    session.execute("CREATE TEMPORARY VIEW v AS SELECT 1 AS one")
    assert session.execute("SHOW TABLES").to_arrow()["table name"].to_pylist() == ["v"]
    assert session.execute("DESCRIBE v").to_arrow()["type"].to_pylist() == ["BIGINT"]


def test_errors_are_exceptions_with_the_cli_messages(tpch):
    with pytest.raises(tenon.SqlError) as e:
        tpch.sql("SELECT * FROM no_such_table")
    assert "no_such_table" in str(e.value)
    assert e.value.exit_code == 2
    assert isinstance(e.value, tenon.Error)
    with pytest.raises(tenon.HintError, match="BROADCAST"):
        tpch.sql("SELECT /*+ BROADCAST(nobody) */ count(*) FROM nation JOIN region "
                 "ON n_regionkey = r_regionkey")
    with pytest.raises(tenon.ExecutionError) as e:
        tpch.sql("SELECT CAST(n_name AS INT) FROM nation").to_arrow()
    assert e.value.exit_code == 3
    with pytest.raises(tenon.ResourceError):
        session = tenon.Session(memory_limit="64KB")
        session.register_tpch(0.01)
        session.sql("SELECT l_orderkey, count(*) FROM lineitem GROUP BY l_orderkey "
                    "ORDER BY l_orderkey").to_arrow()
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        tenon.Session().register("t", [1, 2, 3])


def test_repr_and_types():
    session = tenon.Session()
    session.register("t", pa.table({"k": [1]}))
    assert "t" in repr(session)
    assert "columns=['k']" in repr(session.sql("SELECT k FROM t"))
    assert isinstance(tenon.__version__, str)
