//! Temporal joins through SQL (docs/time.md): event-time joins
//! (`FOR SYSTEM_TIME AS OF probe.rowtime`) against versioned tables read
//! from CSV files and Debezium change logs, processing-time joins
//! (`PROCTIME()`), temporal table functions (`LATERAL TABLE (F(t))`),
//! checked against a naive reference written here (for each probe row,
//! scan the versions in file order), and the errors of what tenon does
//! not run.

use std::path::Path;

use tenon::Session;

use crate::common::*;

/// `2024-01-01 00:MM:00` for minute `m` (empty for NULL).
fn at_minute(m: Option<i64>) -> String {
    m.map_or(String::new(), |m| {
        format!("2024-01-01 {:02}:{:02}:00", m / 60, m % 60)
    })
}

fn cell(c: Option<i64>) -> String {
    c.map_or(String::new(), |v| v.to_string())
}

/// orders: (id, k, minute); rates: (k, v, minute) with `v` its row number.
pub(crate) struct Data {
    pub(crate) orders: Vec<[Option<i64>; 3]>,
    pub(crate) rates: Vec<[Option<i64>; 3]>,
}

fn data(seed: u64, orders: usize, rates: usize) -> Data {
    data_of_keys(seed, orders, rates, 4)
}

/// Orders and rates with `keys` keys, 40 minutes (ties among the
/// versions) and a NULL one cell in eight.
pub(crate) fn data_of_keys(seed: u64, orders: usize, rates: usize, keys: i64) -> Data {
    let mut g = Lcg(seed);
    Data {
        orders: (0..orders)
            .map(|i| [Some(i as i64), g.cell(keys, 8), g.cell(40, 8)])
            .collect(),
        rates: (0..rates)
            .map(|i| [Some(g.next(keys)), Some(100 + i as i64), g.cell(40, 8)])
            .collect(),
    }
}

/// Writes `data` as `orders.csv` and `rates.csv` in `dir`.
pub(crate) fn write(dir: &Path, data: &Data) {
    let mut o = String::from("id,k,t\n");
    for r in &data.orders {
        o.push_str(&format!(
            "{},{},{}\n",
            cell(r[0]),
            cell(r[1]),
            at_minute(r[2])
        ));
    }
    std::fs::write(dir.join("orders.csv"), o).unwrap();
    let mut r = String::from("k,v,t\n");
    for x in &data.rates {
        r.push_str(&format!(
            "{},{},{}\n",
            cell(x[0]),
            cell(x[1]),
            at_minute(x[2])
        ));
    }
    std::fs::write(dir.join("rates.csv"), r).unwrap();
}

/// A session with `orders`, the versioned `rates` and the unversioned
/// `plain` over the files in `dir`.
pub(crate) fn session_over(dir: &Path, threads: usize, batch: usize) -> Session {
    let s = empty_session(threads, batch);
    let ddl = [
        format!(
            "CREATE TABLE orders (id BIGINT, k BIGINT, t TIMESTAMP(3), pt AS PROCTIME(), \
             WATERMARK FOR t AS t - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', \
             'path' = '{}', 'format' = 'csv')",
            dir.join("orders.csv").display()
        ),
        format!(
            "CREATE TABLE rates (k BIGINT, v BIGINT, t TIMESTAMP(3), PRIMARY KEY (k) NOT \
             ENFORCED, WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', 'path' = '{}', \
             'format' = 'csv')",
            dir.join("rates.csv").display()
        ),
        format!(
            "CREATE TABLE plain (k BIGINT, v BIGINT, t TIMESTAMP(3)) WITH ('connector' = \
             'filesystem', 'path' = '{}', 'format' = 'csv')",
            dir.join("rates.csv").display()
        ),
    ];
    for sql in ddl {
        s.execute(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    s
}

/// The version of each order as of its time (`latest`: the latest
/// version), the residual `v % 3 <> 0` tested on it after the choice when
/// `residual`: `id|v` per order (`id|NULL` padded for LEFT), sorted.
pub(crate) fn reference(d: &Data, left: bool, residual: bool, latest: bool) -> Vec<String> {
    let mut out = Vec::new();
    for o in &d.orders {
        let mut best: Option<&[Option<i64>; 3]> = None;
        if let (Some(k), Some(t)) = (o[1], o[2].or(latest.then_some(i64::MAX))) {
            for r in &d.rates {
                let (Some(rk), Some(rt)) = (r[0], r[2]) else {
                    continue;
                };
                if rk == k && (latest || rt <= t) && best.is_none_or(|b| rt >= b[2].unwrap_or(0)) {
                    best = Some(r);
                }
            }
        }
        let best = best.filter(|b| !residual || b[1].is_some_and(|v| v % 3 != 0));
        match best {
            Some(b) => out.push(format!("{}|{}", cell(o[0]), cell(b[1]))),
            None if left => out.push(format!("{}|NULL", cell(o[0]))),
            None => {}
        }
    }
    out.sort();
    out
}

#[test]
fn event_time_temporal_join_matches_the_reference() {
    let mut failures = Vec::new();
    for (seed, (n, m)) in [(1, (40, 30)), (2, (30, 50)), (3, (0, 5)), (4, (10, 0))] {
        let dir = temp_dir(&format!("temporal-{seed}"));
        let d = data(seed, n, m);
        write(dir.as_ref(), &d);
        for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
            let s = session_over(dir.as_ref(), threads, batch);
            for left in [false, true] {
                for residual in [false, true] {
                    let expected = reference(&d, left, residual, false);
                    for hint in ["", "/*+ BROADCAST(r) */", "/*+ SHUFFLE_MERGE(r) */"] {
                        let sql = format!(
                            "SELECT {hint} o.id, r.v FROM orders o {}JOIN rates FOR SYSTEM_TIME \
                             AS OF o.t AS r ON o.k = r.k{}",
                            if left { "LEFT " } else { "" },
                            if residual { " AND r.v % 3 <> 0" } else { "" }
                        );
                        let got = run(&s, &sql);
                        if got != expected {
                            failures.push(format!(
                                "seed {seed} threads {threads} batch {batch}: {sql}\n  got \
                                 {got:?}\n  want {expected:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn where_conditions_filter_after_the_version_is_chosen() {
    let dir = temp_dir("temporal-where");
    let d = data(7, 30, 30);
    write(dir.as_ref(), &d);
    let s = session_over(dir.as_ref(), 4, 3);
    // a WHERE condition on the versioned side is not pushed below the join:
    // it filters the joined rows (INNER: the same as the post-choice residual)
    let expected = reference(&d, false, true, false);
    let sql = "SELECT o.id, r.v FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.t AS r \
               ON o.k = r.k WHERE r.v % 3 <> 0";
    assert_eq!(run(&s, sql), expected, "{sql}");
}

#[test]
fn processing_time_joins_the_latest_version() {
    let dir = temp_dir("temporal-proctime");
    let d = data(8, 30, 30);
    write(dir.as_ref(), &d);
    for (threads, batch) in [(1, 1), (4, 8192)] {
        let s = session_over(dir.as_ref(), threads, batch);
        for left in [false, true] {
            let sql = format!(
                "SELECT o.id, r.v FROM orders o {}JOIN rates FOR SYSTEM_TIME AS OF o.pt AS r \
                 ON o.k = r.k",
                if left { "LEFT " } else { "" }
            );
            assert_eq!(run(&s, &sql), reference(&d, left, false, true), "{sql}");
            let text = s.explain(&sql).unwrap().to_text();
            assert!(text.contains("processing-time temporal join"), "{text}");
        }
    }
}

#[test]
fn processing_time_without_an_event_time_joins_the_last_row_of_each_key() {
    let dir = temp_dir("temporal-proctime-only");
    let d = data(11, 30, 30);
    write(dir.as_ref(), &d);
    let s = session_over(dir.as_ref(), 4, 2);
    s.execute(&format!(
        "CREATE TABLE latest (k BIGINT, v BIGINT, t TIMESTAMP(3), pt AS PROCTIME(), PRIMARY KEY \
         (k) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv')",
        dir.as_ref().join("rates.csv").display()
    ))
    .unwrap();
    // the last row of each key in file order, whatever its `t`
    let mut expected: Vec<String> = d
        .orders
        .iter()
        .map(|o| {
            let last = d
                .rates
                .iter()
                .rev()
                .find(|r| o[1].is_some() && r[0] == o[1]);
            format!(
                "{}|{}",
                cell(o[0]),
                last.map_or("NULL".into(), |r| cell(r[1]))
            )
        })
        .collect();
    expected.sort();
    let sql = "SELECT o.id, r.v FROM orders o LEFT JOIN latest FOR SYSTEM_TIME AS OF o.pt AS r \
               ON o.k = r.k";
    assert_eq!(run(&s, sql), expected, "{sql}");
    // an event-time probe needs the versions' event time
    let e = query_err(
        &s,
        "SELECT o.id FROM orders o JOIN latest FOR SYSTEM_TIME AS OF o.t AS r ON o.k = r.k",
    )
    .to_string();
    assert!(e.contains("has no event-time attribute"), "{e}");
}

#[test]
fn temporal_table_function_is_a_temporal_join() {
    let dir = temp_dir("temporal-function");
    let d = data(9, 30, 30);
    write(dir.as_ref(), &d);
    let s = session_over(dir.as_ref(), 2, 4);
    s.execute("CREATE TEMPORAL TABLE FUNCTION rates_at AS rates(t, k)")
        .unwrap();
    let sql = "SELECT id, v FROM orders o, LATERAL TABLE (rates_at(o.t)) WHERE rates_at.k = o.k";
    assert_eq!(run(&s, sql), reference(&d, false, false, false), "{sql}");
    let sql = "SELECT id, r.v FROM orders o, LATERAL TABLE (rates_at(o.t)) AS r \
               WHERE o.k = r.k AND r.v % 3 <> 0";
    assert_eq!(run(&s, sql), reference(&d, false, true, false), "{sql}");
    let sql = "SELECT id, r.v FROM orders o LEFT JOIN LATERAL TABLE (rates_at(o.t)) AS r \
               ON o.k = r.k";
    assert_eq!(run(&s, sql), reference(&d, true, false, false), "{sql}");
    let e = query_err(&s, "SELECT id FROM orders o, LATERAL TABLE (rates_at(o.t))").to_string();
    assert!(e.contains("compare `k` with `=`"), "{e}");
}

#[test]
fn the_seed_example_runs_from_files() {
    let dir = temp_dir("temporal-seed");
    let dir: &Path = dir.as_ref();
    std::fs::write(
        dir.join("orders.csv"),
        "order_id,price,currency,order_time\n\
         o_001,11.11,EUR,2024-01-01 12:00:00\n\
         o_002,12.51,EUR,2024-01-01 12:06:00\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("rates.json"),
        r#"{"before": null, "after": {"currency": "EUR", "conversion_rate": 1.14, "update_time": "2024-01-01 12:00:00"}, "op": "c", "ts_ms": 1704110400000}
{"before": {"currency": "EUR", "conversion_rate": 1.14, "update_time": "2024-01-01 12:00:00"}, "after": {"currency": "EUR", "conversion_rate": 1.10, "update_time": "2024-01-01 12:05:00"}, "op": "u", "ts_ms": 1704110700000}
{"before": null, "after": {"currency": "USD", "conversion_rate": 1.00, "update_time": "2024-01-01 11:00:00"}, "op": "c", "ts_ms": 1704106800000}
{"before": {"currency": "USD", "conversion_rate": 1.00, "update_time": "2024-01-01 11:00:00"}, "after": null, "op": "d", "ts_ms": 1704110520000}
"#,
    )
    .unwrap();
    let s = empty_session(2, 8192);
    s.execute(&format!(
        "CREATE TABLE orders (order_id STRING, price DECIMAL(32,2), currency STRING, \
         order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '15' \
         SECOND) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv')",
        dir.join("orders.csv").display()
    ))
    .unwrap();
    s.execute(&format!(
        "CREATE TABLE currency_rates (currency STRING, conversion_rate DECIMAL(32, 2), \
         update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time - INTERVAL '15' \
         SECOND, PRIMARY KEY(currency) NOT ENFORCED) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'debezium-json')",
        dir.join("rates.json").display()
    ))
    .unwrap();
    let sql = "SELECT order_id, price, orders.currency, conversion_rate, order_time FROM orders \
               LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time \
               ON orders.currency = currency_rates.currency";
    assert_eq!(
        run(&s, sql),
        [
            "o_001|11.11|EUR|1.14|2024-01-01T12:00:00",
            "o_002|12.51|EUR|1.10|2024-01-01T12:06:00",
        ]
    );
    // a probe after the delete finds nothing; `*` does not show the tombstones
    let sql = "SELECT * FROM (VALUES (TIMESTAMP '2024-01-01 11:30:00', 'USD'), \
               (TIMESTAMP '2024-01-01 12:30:00', 'USD')) AS p(t, c) \
               LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF p.t AS r ON p.c = r.currency";
    assert_eq!(
        run(&s, sql),
        [
            "2024-01-01T11:30:00|USD|USD|1.00|2024-01-01T11:00:00",
            "2024-01-01T12:30:00|USD|NULL|NULL|NULL",
        ]
    );
    // a derived table's `*` does not show them either
    let sql = "SELECT * FROM (SELECT * FROM orders LEFT JOIN currency_rates FOR SYSTEM_TIME \
               AS OF orders.order_time ON orders.currency = currency_rates.currency) AS j";
    let batches = collect(&s, sql);
    let names: Vec<String> = batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names.len(), 7, "{names:?}");
    assert_eq!(row_strings(&batches).len(), 2);
    // a temporal join cannot read the tombstones: deletes are never joined
    let sql = "SELECT r.__tenon_deleted FROM orders LEFT JOIN currency_rates FOR SYSTEM_TIME \
               AS OF orders.order_time AS r ON orders.currency = r.currency";
    let e = query_err(&s, sql).to_string();
    assert!(e.contains("deletes end their keys' validity"), "{e}");
}

#[test]
fn temporal_bad_input_is_a_clear_error() {
    let dir = temp_dir("temporal-errors");
    write(dir.as_ref(), &data(10, 3, 3));
    let s = session_over(dir.as_ref(), 1, 8192);
    s.execute("CREATE VIEW rv AS SELECT * FROM rates").unwrap();
    let cases = [
        (
            "SELECT * FROM orders o JOIN plain FOR SYSTEM_TIME AS OF o.t AS r ON o.k = r.k",
            "has no primary key",
        ),
        (
            "SELECT * FROM orders o JOIN rv FOR SYSTEM_TIME AS OF o.t AS r ON o.k = r.k",
            "reads view `rv`",
        ),
        (
            "SELECT * FROM orders o RIGHT JOIN rates FOR SYSTEM_TIME AS OF o.t AS r ON o.k = r.k",
            "temporal joins are INNER or LEFT",
        ),
        (
            "SELECT * FROM orders o FULL JOIN rates FOR SYSTEM_TIME AS OF o.t AS r ON o.k = r.k",
            "temporal joins are INNER or LEFT",
        ),
        (
            "SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.t AS r ON o.id = r.v",
            "missing: `k`",
        ),
        (
            "SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.id AS r ON o.k = r.k",
            "must be of the versions' time type",
        ),
        (
            "SELECT * FROM orders o JOIN (SELECT * FROM rates) FOR SYSTEM_TIME AS OF o.t AS r \
             ON o.k = r.k",
            "FOR SYSTEM_TIME AS OF after a subquery (line 1, column 51)",
        ),
        (
            "SELECT * FROM orders o JOIN rates TIMESTAMP AS OF o.t AS r ON o.k = r.k",
            "FOR SYSTEM_TIME AS OF",
        ),
        (
            "SELECT * FROM rates FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'",
            "a table version is read only by a join",
        ),
        (
            "SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.t AS r USING (k)",
            "without ON",
        ),
        (
            "SELECT __tenon_time_join('asof') FROM rates",
            "names starting with __tenon_ are tenon's own",
        ),
    ];
    for (sql, words) in cases {
        let e = query_err(&s, sql).to_string();
        assert!(e.contains(words), "{sql}\n  error: {e}\n  lacks: {words}");
    }
}
