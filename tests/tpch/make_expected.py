#!/usr/bin/env python3
"""Expected results of the 22 TPC-H queries, computed by DuckDB.

Reads the eight TPC-H tables from Parquet files exported by tenon
(`tenon query --format parquet --output DIR/<table>.parquet "SELECT * FROM
<table>"`, scale factor 0.01; see README.md), runs every `queries/qNN.sql`
with DuckDB and writes `expected/qNN.csv`. It also runs the view form of
Q15 (`queries/q15_view.sql`) and checks that it gives the same rows as
`q15.sql`.

CSV format (read by tests/sql/tpch.rs):
- the first row is the header: one `name:kind` cell per column, where kind
  says how the harness compares the column: `int` (integers), `decimal`
  (DuckDB DECIMAL, written exactly with its scale, e.g. `1234.5600`),
  `float` (DuckDB DOUBLE, written as Python's repr of the float, the
  shortest text that reads back to the same double), `str`, `date`
  (YYYY-MM-DD);
- fields are separated by `,`; a field containing `,`, `"`, CR or LF, and
  the empty string, is quoted with `"` (a `"` inside doubled);
- NULL is an empty, unquoted field, the empty string a quoted one (`""`).
  One answer holds a NULL: Q17 at SF 0.01 (no part is Brand#23 and
  MED BOX, so its sum is over no rows): its one row is an empty line;
- rows in DuckDB's result order (every query with more than one row has an
  ORDER BY); lines end with LF.

Usage: python3 tests/tpch/make_expected.py [--data /tmp/tpch01]
"""

import argparse
import datetime
import decimal
import pathlib
import sys

import duckdb

HERE = pathlib.Path(__file__).resolve().parent
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
# Types every TPC-H column must have in the exported files (by name suffix);
# the other columns are keys and counts (BIGINT or INTEGER) or text.
EXPECTED_TYPES = {
    "acctbal": "DECIMAL(15,2)",
    "supplycost": "DECIMAL(15,2)",
    "retailprice": "DECIMAL(15,2)",
    "totalprice": "DECIMAL(15,2)",
    "quantity": "DECIMAL(15,2)",
    "extendedprice": "DECIMAL(15,2)",
    "discount": "DECIMAL(15,2)",
    "tax": "DECIMAL(15,2)",
    "orderdate": "DATE",
    "shipdate": "DATE",
    "commitdate": "DATE",
    "receiptdate": "DATE",
}
INT_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
             "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}


def kind(duck_type):
    """The comparison kind of a DuckDB result type."""
    t = str(duck_type)
    if t.startswith("DECIMAL"):
        return "decimal"
    if t in ("DOUBLE", "FLOAT"):
        return "float"
    if t in INT_TYPES:
        return "int"
    if t == "VARCHAR":
        return "str"
    if t == "DATE":
        return "date"
    raise SystemExit(f"unexpected result type {t}")


def text(value):
    """One value as CSV field text (before quoting); None for NULL."""
    if value is None:
        return None
    if isinstance(value, decimal.Decimal):
        return format(value, "f")  # exact, with the column's scale, no exponent
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def field(value):
    """A CSV field: NULL empty, other values quoted when needed."""
    s = text(value)
    if s is None:
        return ""
    if s == "" or any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def statements(path):
    """The SQL statements of a file (no `;` inside string literals here)."""
    body = "\n".join(line for line in path.read_text().splitlines()
                     if not line.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def load(con, data):
    for t in TABLES:
        path = data / f"{t}.parquet"
        con.execute(f"create table {t} as select * from read_parquet('{path}')").fetchall()
        for name, typ, *_ in con.execute(f"describe {t}").fetchall():
            want = EXPECTED_TYPES.get(name.split("_", 1)[1])
            if want is not None and typ != want:
                raise SystemExit(f"{t}.{name} is {typ}, expected {want}")
        n = con.execute(f"select count(*) from {t}").fetchall()[0][0]
        print(f"{t}: {n} rows", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/tmp/tpch01", type=pathlib.Path,
                    help="directory of the exported <table>.parquet files")
    args = ap.parse_args()

    con = duckdb.connect()
    load(con, args.data)
    out = HERE / "expected"
    out.mkdir(exist_ok=True)
    results = {}
    for q in range(1, 23):
        name = f"q{q:02d}"
        (sql,) = statements(HERE / "queries" / f"{name}.sql")
        rel = con.sql(sql)
        header = [field(f"{c}:{kind(t)}") for c, t in zip(rel.columns, rel.types)]
        rows = rel.fetchall()
        results[name] = rows
        lines = [",".join(header)] + [",".join(field(v) for v in r) for r in rows]
        (out / f"{name}.csv").write_text("\n".join(lines) + "\n")
        print(f"{name}: {len(rows)} rows", file=sys.stderr)

    # The view form of Q15 must agree with the WITH form.
    create, query, drop = statements(HERE / "queries" / "q15_view.sql")
    con.execute(create).fetchall()
    view_rows = con.sql(query).fetchall()
    con.execute(drop).fetchall()
    if view_rows != results["q15"]:
        raise SystemExit(f"q15_view.sql gives {view_rows}, q15.sql {results['q15']}")


if __name__ == "__main__":
    main()
