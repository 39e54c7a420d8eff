#!/usr/bin/env python3
"""Random valid queries and DuckDB's answers for tests/sql/differential_duckdb.rs.

Deterministic (a fixed seed): generates queries from a small grammar over
the tables defined below (NULLs, duplicates, negative numbers, -0.0 and NaN
floats, empty strings, dates, decimals), keeps those DuckDB runs and whose
result types the harness compares (no BOOLEAN or TIMESTAMP columns), and
writes:

- tables/<name>.csv: each table, in tests/tpch's CSV format except the
  header, whose cells are `name:SQLTYPE` (BIGINT, DOUBLE, VARCHAR, DATE,
  DECIMAL(10,2)); NULL is an empty unquoted field, '' a quoted one;
- cases.sql: one block per query, `-- case N [ordered] [hint=a,b]` then
  the query on one line ending with `;`. `ordered`: the query's ORDER BY
  orders its rows totally (it sorts by every output column, NULLS placed
  explicitly), so the rows compare in order; else as multisets.
  `hint=...`: the outer query's join inputs, which the Rust test names in
  the join hints it adds after the leading SELECT;
- answers.txt: `== case N` then DuckDB's answer in tests/tpch's expected
  CSV format (a `name:kind` header, then the rows).

The grammar: joins of every type (INNER, LEFT, RIGHT, FULL, CROSS, a third
table), [NOT] EXISTS, [NOT] IN, scalar subqueries (uncorrelated, and
correlated by an equality), GROUP BY with count/sum/min/max/avg/count
DISTINCT and HAVING, UNION/INTERSECT/EXCEPT with and without ALL,
DISTINCT, CASE, COALESCE, string functions (upper, lower, length, substr,
trim, replace, ||, LIKE), dates (comparison with literals, BETWEEN,
extract), IN lists, ORDER BY ... LIMIT / OFFSET.

Usage: pip install duckdb==2.0.1; python3 tests/differential/make_cases.py [--count 800]
"""

import argparse
import datetime
import decimal
import math
import pathlib
import random
import sys

import duckdb

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tpch"))
from make_expected import field, kind  # noqa: E402  (one home for the CSV format)

D = datetime.date
M = decimal.Decimal
NAN = float("nan")

# name -> (alias, [(column, SQL type)], rows)
TABLES = {
    "t1": ("a", [("id", "BIGINT"), ("k", "BIGINT"), ("x", "DOUBLE"), ("s", "VARCHAR"),
                 ("d", "DATE"), ("m", "DECIMAL(10,2)")], [
        (1, 1, 1.5, "apple", D(1995, 3, 15), M("2.00")),
        (2, 1, -0.0, "Apple", D(1995, 3, 15), M("0.00")),
        (3, 2, 0.0, "", D(1996, 1, 1), M("0.00")),
        (4, 2, NAN, "banana", D(1994, 12, 31), M("-3.25")),
        (5, None, -7.25, "cherry", None, M("10.10")),
        (6, 3, None, None, D(2000, 2, 29), None),
        (7, -4, 1e6, "a%b", D(1970, 1, 1), M("99.99")),
        (8, 1, 1.5, "apple", D(1995, 3, 15), M("2.00")),
        (9, 5, -1.5, "date", D(1992, 6, 30), M("-0.01")),
        (10, None, NAN, "", D(1996, 1, 1), M("1.00")),
    ]),
    "t2": ("b", [("id", "BIGINT"), ("k", "BIGINT"), ("y", "DOUBLE"), ("s", "VARCHAR"),
                 ("d", "DATE")], [
        (1, 1, 0.0, "apple", D(1995, 3, 15)),
        (2, 1, 2.5, "fig", D(1993, 7, 1)),
        (3, 2, -0.0, "banana", D(1996, 1, 1)),
        (4, 2, 2.5, None, None),
        (5, 3, NAN, "", D(1994, 1, 1)),
        (6, None, -1.0, "grape", D(1995, 3, 15)),
        (7, 6, 100.0, "apple", D(1998, 12, 1)),
        (8, 2, -0.0, "banana", D(1996, 1, 1)),
        (9, -4, None, "kiwi", D(1970, 1, 1)),
    ]),
    "t3": ("c", [("k", "BIGINT"), ("g", "VARCHAR"), ("n", "BIGINT")], [
        (1, "x", 10),
        (2, "y", -20),
        (2, "y", -20),
        (3, None, 0),
        (None, "z", 5),
        (7, "", None),
        (-4, "x", 1),
    ]),
}

INT_COLS = {"t1": ["id", "k"], "t2": ["id", "k"], "t3": ["k", "n"]}
FLOAT_COLS = {"t1": ["x"], "t2": ["y"], "t3": []}
STR_COLS = {"t1": ["s"], "t2": ["s"], "t3": ["g"]}
DATE_COLS = {"t1": ["d"], "t2": ["d"], "t3": []}
DEC_COLS = {"t1": ["m"], "t2": [], "t3": []}
DATES = ["1995-03-15", "1996-01-01", "1994-01-01", "1970-01-01", "2000-02-29"]
STRS = ["apple", "", "banana", "a%b", "kiwi", "Apple"]


class Gen:
    def __init__(self, rng):
        self.r = rng

    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p):
        return self.r.random() < p

    # -- scalar expressions over the in-scope tables [(table, alias)] --

    def col(self, scope, cols):
        opts = [f"{a}.{c}" for t, a in scope for c in cols[t]]
        return self.pick(opts) if opts else None

    def int_lit(self):
        return str(self.pick([0, 1, 2, 3, -4, 5, 10, -20]))

    def int_expr(self, scope, depth=0):
        c = self.col(scope, INT_COLS)
        r = self.r.random()
        if depth > 1 or r < 0.4:
            return c
        if r < 0.5:
            return f"{c} + {self.int_lit()}"
        if r < 0.6:
            return f"{c} * 2"
        if r < 0.65:
            return f"abs({c})"
        if r < 0.7:
            return f"{c} % 3"
        if r < 0.8:
            return f"coalesce({c}, {self.int_lit()})"
        if r < 0.9:
            return (f"CASE WHEN {self.pred(scope, depth + 1)} THEN {self.int_expr(scope, depth + 1)} "
                    f"ELSE {self.int_lit()} END")
        s = self.col(scope, STR_COLS)
        if s:
            return f"length({s})"
        d = self.col(scope, DATE_COLS)
        if d:
            return f"extract({self.pick(['year', 'month', 'day'])} FROM {d})"
        return c

    def str_expr(self, scope, depth=0):
        c = self.col(scope, STR_COLS)
        r = self.r.random()
        if depth > 1 or r < 0.45:
            return c
        return self.pick([
            f"upper({c})", f"lower({c})", f"substr({c}, 2, 3)", f"{c} || '-'",
            f"coalesce({c}, 'none')", f"trim({c})", f"replace({c}, 'a', 'o')",
            f"CASE WHEN {self.pred(scope, depth + 1)} THEN {c} ELSE 'other' END",
        ])

    def float_expr(self, scope):
        c = self.col(scope, FLOAT_COLS)
        return self.pick([c, c, f"{c} * 2.0", f"abs({c})", f"coalesce({c}, -1.0)"])

    def pred(self, scope, depth=0):
        r = self.r.random()
        if depth < 2 and r < 0.12:
            op = self.pick(["AND", "OR"])
            return f"({self.pred(scope, depth + 1)} {op} {self.pred(scope, depth + 1)})"
        if depth < 2 and r < 0.17:
            return f"NOT ({self.pred(scope, depth + 1)})"
        kinds = ["int", "int", "null", "inlist", "between"]
        if self.col(scope, STR_COLS):
            kinds += ["str", "like"]
        if self.col(scope, FLOAT_COLS):
            kinds += ["float", "float"]
        if self.col(scope, DATE_COLS):
            kinds += ["date"]
        if self.col(scope, DEC_COLS):
            kinds += ["dec"]
        k = self.pick(kinds)
        cmp = self.pick(["=", "<>", "<", "<=", ">", ">="])
        if k == "int":
            rhs = self.int_lit() if self.chance(0.6) else self.int_expr(scope, 2)
            return f"{self.int_expr(scope, depth + 1)} {cmp} {rhs}"
        if k == "null":
            c = self.col(scope, self.pick([INT_COLS, STR_COLS]) if self.col(scope, STR_COLS) else INT_COLS)
            return f"{c} IS {self.pick(['', 'NOT '])}NULL"
        if k == "inlist":
            lits = ", ".join(self.int_lit() for _ in range(self.r.randint(1, 4)))
            if self.chance(0.2):
                lits += ", NULL"
            return f"{self.col(scope, INT_COLS)} {self.pick(['', 'NOT '])}IN ({lits})"
        if k == "between":
            lo = self.r.randint(-5, 3)
            return f"{self.col(scope, INT_COLS)} BETWEEN {lo} AND {lo + self.r.randint(0, 5)}"
        if k == "str":
            return f"{self.str_expr(scope, depth + 1)} {cmp} '{self.pick(STRS)}'"
        if k == "like":
            return f"{self.col(scope, STR_COLS)} {self.pick(['', 'NOT '])}LIKE '{self.pick(['a%', '%an%', '_pple', '%'])}'"
        if k == "float":
            c = self.col(scope, FLOAT_COLS)
            rhs = self.pick(["0.0", "-0.0", "1.5", "-1.5", "CAST('NaN' AS DOUBLE)", c])
            return f"{c} {cmp} {rhs}"
        if k == "date":
            c = self.col(scope, DATE_COLS)
            if self.chance(0.3):
                return f"{c} BETWEEN DATE '1994-01-01' AND DATE '{self.pick(DATES)}'"
            return f"{c} {cmp} DATE '{self.pick(DATES)}'"
        c = self.col(scope, DEC_COLS)
        return f"{c} {cmp} {self.pick(['0', '2.00', '-0.01', '1.5'])}"

    def item(self, scope):
        k = self.pick(["int", "int", "str", "str", "float", "date", "dec"])
        if k == "float" and self.col(scope, FLOAT_COLS):
            return self.float_expr(scope)
        if k == "date" and self.col(scope, DATE_COLS):
            return self.col(scope, DATE_COLS)
        if k == "dec" and self.col(scope, DEC_COLS):
            return self.pick([self.col(scope, DEC_COLS), f"{self.col(scope, DEC_COLS)} * 2"])
        if k == "str" and self.col(scope, STR_COLS):
            return self.str_expr(scope)
        return self.int_expr(scope)

    def items(self, scope, n=None):
        n = n or self.r.randint(1, 4)
        return [f"{self.item(scope)} AS c{i}" for i in range(n)]

    def order_limit(self, n_items, sql):
        """ORDER BY every output column (a total order), maybe LIMIT."""
        keys = list(range(1, n_items + 1))
        self.r.shuffle(keys)
        order = ", ".join(f"{k} {self.pick(['ASC', 'DESC'])} NULLS {self.pick(['FIRST', 'LAST'])}"
                          for k in keys)
        sql += f" ORDER BY {order}"
        if self.chance(0.7):
            sql += f" LIMIT {self.r.randint(0, 6)}"
            if self.chance(0.3):
                sql += f" OFFSET {self.r.randint(1, 3)}"
        return sql

    # -- query shapes: (sql, ordered, hint aliases) --

    def from_join(self):
        """A FROM clause with joins; the tables in scope; the join inputs."""
        t1, t2 = self.r.sample(["t1", "t2", "t3"], 2)
        a1, a2 = TABLES[t1][0], TABLES[t2][0]
        jt = self.pick(["JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                        "LEFT OUTER JOIN", "CROSS JOIN"])
        scope = [(t1, a1), (t2, a2)]
        sql = f"{t1} {a1} {jt} {t2} {a2}"
        if jt != "CROSS JOIN":
            on = f"{a1}.k = {a2}.k"
            if self.chance(0.15):
                on = f"{a1}.k IS NOT DISTINCT FROM {a2}.k"
            if self.chance(0.3):
                on += f" AND {self.pred(scope, 2)}"
            sql += f" ON {on}"
        if self.chance(0.25):
            (t3,) = [t for t in ["t1", "t2", "t3"] if t not in (t1, t2)]
            a3 = TABLES[t3][0]
            jt3 = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
            sql += f" {jt3} {t3} {a3} ON {a3}.k = {self.pick([a1, a2])}.k"
            scope.append((t3, a3))
        return sql, scope

    def join_query(self):
        frm, scope = self.from_join()
        items = self.items(scope)
        distinct = "DISTINCT " if self.chance(0.2) else ""
        sql = f"SELECT {distinct}{', '.join(items)} FROM {frm}"
        if self.chance(0.5):
            sql += f" WHERE {self.pred(scope)}"
        ordered = self.chance(0.4)
        if ordered:
            sql = self.order_limit(len(items), sql)
        return sql, ordered, [a for _, a in scope], len(items)

    def agg_query(self):
        if self.chance(0.5):
            frm, scope = self.from_join()
        else:
            t = self.pick(["t1", "t2", "t3"])
            frm, scope = f"{t} {TABLES[t][0]}", [(t, TABLES[t][0])]
        groups = [self.pick([self.int_expr(scope, 2), self.str_expr(scope, 2) or self.int_expr(scope, 2)])
                  for _ in range(self.r.randint(0, 2))]
        aggs = []
        for _ in range(self.r.randint(1, 3)):
            f = self.pick(["count(*)", "count", "sum", "min", "max", "avg", "count_distinct"])
            if f == "count(*)":
                aggs.append(f)
                continue
            pools = [INT_COLS, FLOAT_COLS, DEC_COLS] if f in ("sum", "avg") else [INT_COLS, FLOAT_COLS, DEC_COLS, STR_COLS, DATE_COLS]
            arg = None
            while arg is None:
                arg = self.col(scope, self.pick(pools))
            aggs.append(f"count(DISTINCT {arg})" if f == "count_distinct" else f"{f}({arg})")
        items = [f"{g} AS g{i}" for i, g in enumerate(groups)] + [f"{a} AS a{i}" for i, a in enumerate(aggs)]
        sql = f"SELECT {', '.join(items)} FROM {frm}"
        if self.chance(0.4):
            sql += f" WHERE {self.pred(scope)}"
        if groups:
            sql += " GROUP BY " + ", ".join(groups)
            if self.chance(0.3):
                sql += f" HAVING count(*) {self.pick(['>', '>=', '='])} {self.r.randint(0, 2)}"
        # Not ordered by a float sum or average: engines may differ in its last
        # digits, and so in the order of near-equal values.
        ordered = self.chance(0.3) and not any(
            a.startswith(("sum(", "avg(")) and a.endswith((".x)", ".y)")) for a in aggs)
        if ordered:
            sql = self.order_limit(len(items), sql)
        hint = [a for _, a in scope] if len(scope) > 1 else []
        return sql, ordered, hint, len(items)

    def set_query(self):
        shape = self.pick(["k", "s", "ks", "kd", "x"])
        def side():
            cands = [t for t in ["t1", "t2", "t3"]
                     if ("s" not in shape or STR_COLS[t]) and ("d" not in shape or DATE_COLS[t])
                     and ("x" not in shape or FLOAT_COLS[t])]
            t = self.pick(cands)
            a = TABLES[t][0]
            cols = []
            for ch in shape:
                if ch == "k":
                    cols.append(f"{a}.k")
                elif ch == "s":
                    cols.append(self.pick([f"{a}.{STR_COLS[t][0]}", f"upper({a}.{STR_COLS[t][0]})"])
                                if self.chance(0.9) else "'apple'")
                elif ch == "d":
                    cols.append(f"{a}.{DATE_COLS[t][0]}")
                else:
                    cols.append(f"{a}.{FLOAT_COLS[t][0]}")
            sql = f"SELECT {', '.join(cols)} FROM {t} {a}"
            if self.chance(0.4):
                sql += f" WHERE {self.pred([(t, a)])}"
            return sql
        op = self.pick(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"])
        sql = f"{side()} {op} {side()}"
        if self.chance(0.2):
            sql = f"SELECT count(*) AS n FROM ({sql}) u"
            return sql, False, [], 1
        ordered = self.chance(0.3)
        if ordered:
            sql = f"SELECT * FROM ({sql}) u"
            sql = self.order_limit(len(shape), sql)
        return sql, ordered, [], len(shape)

    def subquery_query(self):
        t1, t2 = self.r.sample(["t1", "t2", "t3"], 2)
        a1, a2 = TABLES[t1][0], TABLES[t2][0]
        outer, inner = [(t1, a1)], [(t2, a2)]
        shape = self.pick(["exists", "in", "scalar_where", "scalar_select", "corr_scalar"])
        items = self.items(outer)
        if shape == "exists":
            cond = f"{a2}.k = {a1}.k"
            if self.chance(0.4):
                cond += f" AND {self.pred(inner, 2)}"
            where = f"{self.pick(['', 'NOT '])}EXISTS (SELECT 1 FROM {t2} {a2} WHERE {cond})"
        elif shape == "in":
            sub = f"SELECT {a2}.k FROM {t2} {a2}"
            if self.chance(0.5):
                sub += f" WHERE {self.pred(inner, 2)}"
            where = f"{a1}.k {self.pick(['', 'NOT '])}IN ({sub})"
        elif shape == "scalar_where":
            where = f"{a1}.k {self.pick(['<', '>=', '='])} (SELECT {self.pick(['max', 'min', 'sum'])}({a2}.k) FROM {t2} {a2})"
        elif shape == "scalar_select":
            items.append(f"(SELECT {self.pick(['max', 'min', 'count'])}({a2}.k) FROM {t2} {a2}) AS sq")
            where = self.pred(outer)
        else:
            col = self.pick(INT_COLS[t2])
            items.append(f"(SELECT {self.pick(['max', 'min', 'sum'])}({a2}.{col}) FROM {t2} {a2} WHERE {a2}.k = {a1}.k) AS sq")
            where = self.pred(outer)
        sql = f"SELECT {', '.join(items)} FROM {t1} {a1} WHERE {where}"
        ordered = self.chance(0.3)
        if ordered:
            sql = self.order_limit(len(items), sql)
        return sql, ordered, [], len(items)

    def single_query(self):
        t = self.pick(["t1", "t2", "t3"])
        scope = [(t, TABLES[t][0])]
        items = self.items(scope, self.r.randint(1, 5))
        distinct = "DISTINCT " if self.chance(0.25) else ""
        sql = f"SELECT {distinct}{', '.join(items)} FROM {t} {TABLES[t][0]}"
        if self.chance(0.7):
            sql += f" WHERE {self.pred(scope)}"
        ordered = self.chance(0.4)
        if ordered:
            sql = self.order_limit(len(items), sql)
        return sql, ordered, [], len(items)

    def query(self):
        shape = self.pick([self.join_query] * 3 + [self.agg_query] * 3 + [self.set_query] * 2
                          + [self.subquery_query] * 2 + [self.single_query])
        return shape()


def table_csv(name):
    alias, cols, rows = TABLES[name]
    lines = [",".join(field(f"{c}:{t}") for c, t in cols)]
    lines += [",".join(field(v) for v in r) for r in rows]
    return "\n".join(lines) + "\n"


def load(con):
    for name, (_, cols, rows) in TABLES.items():
        con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in cols)})")
        con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in cols)})", rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=800, help="queries to write")
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()

    con = duckdb.connect()
    load(con)
    (HERE / "tables").mkdir(exist_ok=True)
    for name in TABLES:
        (HERE / "tables" / f"{name}.csv").write_text(table_csv(name))

    g = Gen(random.Random(args.seed))
    cases, answers, seen, rejected = [], [], set(), 0
    while len(cases) < args.count:
        sql, ordered, hint, _ = g.query()
        if sql in seen:
            continue
        seen.add(sql)
        try:
            rel = con.sql(sql)
            header = [field(f"c{i}:{kind(t)}") for i, t in enumerate(rel.types)]
            rows = rel.fetchall()
        except (duckdb.Error, SystemExit):
            rejected += 1
            continue
        n = len(cases)
        flags = (" ordered" if ordered else "") + (f" hint={','.join(hint)}" if hint else "")
        cases.append(f"-- case {n}{flags}\n{sql};\n")
        lines = [",".join(header)] + [",".join(field(v) for v in r) for r in rows]
        answers.append(f"== case {n}\n" + "\n".join(lines) + "\n")
    (HERE / "cases.sql").write_text("".join(cases))
    (HERE / "answers.txt").write_text("".join(answers))
    print(f"{len(cases)} cases written, {rejected} generated queries DuckDB refused or "
          "whose result types the harness does not compare", file=sys.stderr)


if __name__ == "__main__":
    main()
