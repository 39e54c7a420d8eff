#!/usr/bin/env python3
"""Runs the Flink function cases through Flink's Table API (batch mode) and
writes Flink's answers to tests/flink/function_answers.txt, which the Rust
test tests/sql/flink_functions.rs compares tenon's answers with.

CI does not run Flink: the answers are checked in. To make them again:

    python3 -m venv /tmp/flinkvenv && /tmp/flinkvenv/bin/pip install apache-flink
    /tmp/flinkvenv/bin/python tests/flink/make_function_answers.py

(Flink 2.3 needs Java 17 on the PATH.) Every case is
`SELECT id, CAST((expr) AS STRING) FROM <ROWS> ORDER BY id` (an aggregate
case, its name ending `:agg`, is `SELECT 0, CAST((expr) AS STRING) FROM <ROWS>`), in
the session time zone UTC. Each answer line is the case's name, its
expression and one value per row, tab-separated: NULL as `NULL`, a query
Flink refuses as `!ERROR` (tenon must refuse it too).
"""

import os
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment

ROWS = (
    "(VALUES "
    "(1, CAST('2024-01-15 09:05:07.123' AS TIMESTAMP(3)), '2024-01-15 09:05:07', "
    "CAST(1705309507 AS BIGINT), 'a,b,c', '{\"a\":{\"b\":7},\"c\":[1,\"x\"]}', "
    "CAST('2024-02-29' AS DATE)), "
    "(2, CAST('2023-12-31 23:59:59.000' AS TIMESTAMP(3)), '2023-12-31 23:59:59', "
    "CAST(0 AS BIGINT), 'x', '{\"a\":1}', CAST('2023-01-01' AS DATE)), "
    "(3, CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS STRING), CAST(NULL AS BIGINT), "
    "CAST(NULL AS STRING), CAST(NULL AS STRING), CAST(NULL AS DATE))"
    ") AS t(id, ts, s, n, txt, j, d)"
)

# (name, expression[, "agg"])
CASES = [
    # DATE_FORMAT with Java patterns
    ("date_format_minutes", "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')"),
    ("date_format_millis", "DATE_FORMAT(ts, 'yyyy/MM/dd HH:mm:ss.SSS')"),
    ("date_format_unpadded", "DATE_FORMAT(ts, 'yy-M-d H:m:s')"),
    ("date_format_12h", "DATE_FORMAT(ts, 'hh:mm a')"),
    ("date_format_names", "DATE_FORMAT(ts, 'EEE, d MMM yyyy')"),
    ("date_format_long_names", "DATE_FORMAT(ts, 'EEEE MMMM')"),
    ("date_format_day_of_year", "DATE_FORMAT(ts, 'D')"),
    ("date_format_quoted", "DATE_FORMAT(ts, '''day'' dd ''at'' HH')"),
    ("date_format_compact", "DATE_FORMAT(ts, 'yyyyMMddHHmmss')"),
    ("date_format_of_string", "DATE_FORMAT(s, 'yyyyMMdd')"),
    ("date_format_seed", "IF(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm') = '2024-01-15 09:05', 'match', 'no match')"),
    ("date_format_of_date", "DATE_FORMAT(d, 'yyyy/MM/dd')"),
    # timestamps as text
    ("cast_timestamp3", "ts"),
    ("cast_timestamp0", "CAST(ts AS TIMESTAMP(0))"),
    ("cast_timestamp6", "CAST(ts AS TIMESTAMP(6))"),
    ("cast_date", "d"),
    ("concat_timestamp", "CONCAT('at ', CAST(ts AS STRING))"),
    # TIMESTAMPADD / TIMESTAMPDIFF
    ("timestampadd_minute", "TIMESTAMPADD(MINUTE, -2, ts)"),
    ("timestampadd_hour", "TIMESTAMPADD(HOUR, 25, ts)"),
    ("timestampadd_day", "TIMESTAMPADD(DAY, 1, ts)"),
    ("timestampadd_week", "TIMESTAMPADD(WEEK, 1, ts)"),
    ("timestampadd_month", "TIMESTAMPADD(MONTH, 1, ts)"),
    ("timestampadd_quarter", "TIMESTAMPADD(QUARTER, 1, ts)"),
    ("timestampadd_year_leap", "TIMESTAMPADD(YEAR, 1, CAST(d AS TIMESTAMP(3)))"),
    ("timestampadd_date", "TIMESTAMPADD(DAY, 1, d)"),
    ("timestampdiff_day", "TIMESTAMPDIFF(DAY, ts, CAST('2024-03-01 00:00:00' AS TIMESTAMP(3)))"),
    ("timestampdiff_month", "TIMESTAMPDIFF(MONTH, ts, CAST('2024-03-15 09:05:07' AS TIMESTAMP(3)))"),
    ("timestampdiff_second_negative", "TIMESTAMPDIFF(SECOND, CAST('2024-03-01 00:00:00' AS TIMESTAMP(3)), ts)"),
    ("timestampdiff_year", "TIMESTAMPDIFF(YEAR, CAST(d AS TIMESTAMP(3)), ts)"),
    ("timestampdiff_hour", "TIMESTAMPDIFF(HOUR, ts, CAST(d AS TIMESTAMP(3)))"),
    # UNIX_TIMESTAMP / FROM_UNIXTIME / TO_TIMESTAMP / TO_DATE
    ("unix_timestamp_text", "UNIX_TIMESTAMP(s)"),
    ("unix_timestamp_pattern", "UNIX_TIMESTAMP(DATE_FORMAT(ts, 'yyyyMMdd'), 'yyyyMMdd')"),
    ("unix_timestamp_bad_text", "UNIX_TIMESTAMP(txt)"),
    ("unix_timestamp_fraction", "UNIX_TIMESTAMP(CAST(ts AS STRING))"),
    ("from_unixtime", "FROM_UNIXTIME(n)"),
    ("from_unixtime_pattern", "FROM_UNIXTIME(n, 'yyyy-MM-dd')"),
    ("to_timestamp", "TO_TIMESTAMP(s)"),
    ("to_timestamp_pattern", "TO_TIMESTAMP(DATE_FORMAT(ts, 'dd/MM/yyyy HH:mm'), 'dd/MM/yyyy HH:mm')"),
    ("to_timestamp_bad_text", "TO_TIMESTAMP(txt)"),
    ("to_timestamp_fraction", "TO_TIMESTAMP(CAST(ts AS STRING))"),
    ("to_date", "TO_DATE(CAST(d AS STRING))"),
    ("to_date_of_timestamp_text", "TO_DATE(s)"),
    ("to_date_pattern", "TO_DATE(DATE_FORMAT(ts, 'yyyyMMdd'), 'yyyyMMdd')"),
    # date parts
    ("year", "YEAR(d)"),
    ("quarter", "QUARTER(d)"),
    ("month", "MONTH(d)"),
    ("week", "WEEK(d)"),
    ("dayofyear", "DAYOFYEAR(d)"),
    ("dayofmonth", "DAYOFMONTH(d)"),
    ("dayofweek", "DAYOFWEEK(d)"),
    ("hour", "HOUR(ts)"),
    ("minute", "MINUTE(ts)"),
    ("second", "SECOND(ts)"),
    ("year_of_timestamp", "YEAR(ts)"),
    # conditionals and casts
    ("if_text", "IF(n > 0, 'positive', 'not positive')"),
    ("if_number", "IF(id = 1, n, -1)"),
    ("ifnull_text", "IFNULL(txt, 'none')"),
    ("ifnull_timestamp_text", "IFNULL(ts, '2099-01-01 00:00:00')"),
    ("try_cast_int", "TRY_CAST(txt AS INT)"),
    ("try_cast_timestamp", "TRY_CAST(s AS TIMESTAMP(3))"),
    # strings
    ("concat_ws", "CONCAT_WS('-', txt, 'z', s)"),
    ("split_index", "SPLIT_INDEX(txt, ',', 1)"),
    ("split_index_past_end", "SPLIT_INDEX(txt, ',', 5)"),
    ("regexp_extract_group", "REGEXP_EXTRACT(txt, '([a-z]),([a-z])', 2)"),
    ("regexp_extract_whole", "REGEXP_EXTRACT(s, '[0-9]+', 0)"),
    ("regexp_extract_default_group", "REGEXP_EXTRACT(s, '[0-9]+')"),
    ("regexp_extract_no_match", "REGEXP_EXTRACT(txt, '[0-9]+', 0)"),
    ("json_value", "JSON_VALUE(j, '$.a.b')"),
    ("json_value_array", "JSON_VALUE(j, '$.c[1]')"),
    ("json_value_object", "JSON_VALUE(j, '$.a')"),
    ("json_value_missing", "JSON_VALUE(j, '$.zz')"),
    # aggregates
    ("listagg", "LISTAGG(txt)", "agg"),
    ("listagg_separator", "LISTAGG(txt, '|')", "agg"),
]


def query(case):
    expr = case[1]
    if len(case) > 2 and case[2] == "agg":
        return f"SELECT 0, CAST(({expr}) AS STRING) FROM {ROWS}"
    return f"SELECT id, CAST(({expr}) AS STRING) FROM {ROWS} ORDER BY id"


def main():
    env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    env.get_config().set("table.local-time-zone", "UTC")
    env.get_config().set("parallelism.default", "1")
    import pyflink
    version = getattr(pyflink, "__version__", None)
    if version is None:
        from pyflink.version import __version__ as version
    lines = [
        f"# Flink {version}'s answers to the function cases of tests/sql/flink_functions.rs,",
        "# made by tests/flink/make_function_answers.py (batch mode, time zone UTC).",
        "# name<TAB>expression<TAB>value per row (NULL; !ERROR: Flink refuses the query)",
        f"@rows\t{ROWS}",
    ]
    for case in CASES:
        name, expr = case[0], case[1]
        try:
            with env.execute_sql(query(case)).collect() as results:
                values = ["NULL" if r[1] is None else str(r[1]) for r in results]
        except Exception as e:  # Flink refuses the query
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{name}: Flink refuses it: {first[:300]}", file=sys.stderr)
            values = ["!ERROR"]
        kind = ":agg" if len(case) > 2 else ""
        lines.append("\t".join([name + kind, expr] + values))
        print(lines[-1], file=sys.stderr)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "function_answers.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
