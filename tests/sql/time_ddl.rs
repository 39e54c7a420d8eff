//! Declaring time and versions (issue 16): `WATERMARK FOR`, `PROCTIME()`
//! columns, `PRIMARY KEY ... NOT ENFORCED` and their errors, Debezium
//! change logs read as the table's current state and as `t$versions`, and
//! temporal table functions (DDL and the Rust API).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMillisecondType;
use tenon::planner::sql::{EventTime, TableTime, TemporalFunction};
use tenon::{Error, Session};

use crate::common::*;

const WITH_CSV: &str = "'connector' = 'filesystem', 'format' = 'csv'";

fn exec(s: &Session, sql: &str) -> String {
    match s.execute(sql) {
        Ok(tenon::StatementOutput::Done(what)) => what,
        Ok(_) => panic!("{sql}: expected DDL"),
        Err(e) => panic!("{sql}\n  failed: {e}"),
    }
}

fn exec_err(s: &Session, sql: &str) -> Error {
    match s.execute(sql) {
        Ok(_) => panic!("{sql}: expected an error"),
        Err(e) => e,
    }
}

fn assert_words(e: &Error, words: &[&str]) {
    let text = e.to_string();
    for w in words {
        assert!(text.contains(w), "{text}\n  lacks: {w}");
    }
    assert_eq!(e.exit_code(), 2, "{text}");
}

/// 2024-01-01 HH:MM:00 UTC in milliseconds since the epoch.
fn ms(hour: i64, minute: i64) -> i64 {
    1_704_067_200_000 + (hour * 60 + minute) * 60_000
}

/// The seed's `currency_rates` as a Debezium change log: a snapshot row,
/// an insert nested under `payload` whose time comes from `ts_ms`, an
/// update with an ISO time, and an insert then delete of GBP.
fn rates_log(bad_line: bool) -> String {
    let mut lines = vec![
        r#"{"before":null,"after":{"currency":"EUR","conversion_rate":1.14,"update_time":"2024-01-01 11:58:00"},"op":"r","ts_ms":1}"#.to_string(),
        format!(
            r#"{{"schema":{{}},"payload":{{"before":null,"after":{{"currency":"USD","conversion_rate":"1.00"}},"op":"c","ts_ms":{}}}}}"#,
            ms(11, 50)
        ),
        r#"{"before":{"currency":"EUR","conversion_rate":1.14},"after":{"currency":"EUR","conversion_rate":1.10,"update_time":"2024-01-01T12:05:00"},"op":"u","ts_ms":2}"#.to_string(),
    ];
    if bad_line {
        lines.push("{not json".to_string());
    }
    lines.push(format!(
        r#"{{"before":null,"after":{{"currency":"GBP","conversion_rate":0.88}},"op":"c","ts_ms":{}}}"#,
        ms(12, 1)
    ));
    lines.push(String::new());
    lines.push(format!(
        r#"{{"before":{{"currency":"GBP","conversion_rate":0.88}},"after":null,"op":"d","ts_ms":{}}}"#,
        ms(12, 3)
    ));
    lines.join("\n") + "\n"
}

fn create_rates(s: &Session, path: &Path, extra: &str) -> String {
    exec(
        s,
        &format!(
            "CREATE TABLE currency_rates (\n  currency STRING,\n  conversion_rate DECIMAL(32, \
             2),\n  update_time TIMESTAMP(3),\n  WATERMARK FOR update_time AS update_time - \
             INTERVAL '15' SECOND,\n  PRIMARY KEY(currency) NOT ENFORCED\n) WITH ('connector' = \
             'filesystem', 'path' = '{}', 'format' = 'debezium-json'{extra})",
            path.display()
        ),
    )
}

const CURRENT: [&str; 2] = [
    "EUR|1.10|2024-01-01T12:05:00",
    "USD|1.00|2024-01-01T11:50:00",
];

const VERSIONS: [&str; 5] = [
    "EUR|1.14|2024-01-01T11:58:00|false",
    "USD|1.00|2024-01-01T11:50:00|false",
    "EUR|1.10|2024-01-01T12:05:00|false",
    "GBP|0.88|2024-01-01T12:01:00|false",
    "GBP|NULL|2024-01-01T12:03:00|true",
];

#[test]
fn the_seed_change_log_reads_as_current_state_and_versions() {
    let dir = temp_dir("time-ddl-debezium");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(false)).unwrap();
    for threads in [1, 4] {
        for batch_size in [1, 2, 7, 8192] {
            let s = empty_session(threads, batch_size);
            let done = create_rates(&s, &path, "");
            assert!(done.contains("currency_rates$versions"), "{done}");
            let time = s.table_time("currency_rates").unwrap();
            assert_eq!(
                time,
                TableTime {
                    primary_key: vec!["currency".into()],
                    event_time: Some(EventTime {
                        column: "update_time".into(),
                        watermark: "update_time - INTERVAL '15' SECOND".into(),
                    }),
                    proc_time: None,
                    versions: Some("currency_rates$versions".into()),
                }
            );
            assert!(time.is_versioned());
            let versions = s.table_time("currency_rates$versions").unwrap();
            assert_eq!(
                versions,
                TableTime {
                    versions: None,
                    ..time
                }
            );
            assert_eq!(
                run(&s, "SELECT * FROM currency_rates"),
                CURRENT,
                "threads {threads}, batch size {batch_size}"
            );
            assert_eq!(
                run_ordered(
                    &s,
                    "SELECT currency, conversion_rate, update_time, __tenon_deleted \
                     FROM \"currency_rates$versions\""
                ),
                VERSIONS,
                "file order; threads {threads}, batch size {batch_size}"
            );
            // a column that is not the first, alone
            assert_eq!(
                run(&s, "SELECT conversion_rate FROM currency_rates"),
                ["1.00", "1.10"]
            );
        }
    }
    // held in memory: the same rows
    let s = empty_session(2, 8192);
    create_rates(&s, &path, ", 'scan.in-memory' = 'true'");
    assert_eq!(run(&s, "SELECT * FROM currency_rates"), CURRENT);
    assert_eq!(
        run(&s, "SELECT count(*) FROM \"currency_rates$versions\""),
        ["5"]
    );
}

#[test]
fn a_bad_line_is_an_error_naming_the_file_and_line_unless_ignored() {
    let dir = temp_dir("time-ddl-bad-line");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(true)).unwrap();
    let s = empty_session(2, 8192);
    create_rates(&s, &path, "");
    let e = query_err(&s, "SELECT * FROM currency_rates");
    assert_words(
        &e,
        &[
            &path.display().to_string(),
            "line 4",
            "not valid JSON",
            "ignore-parse-errors",
        ],
    );
    let e = query_err(&s, "SELECT count(*) FROM \"currency_rates$versions\"");
    assert_words(&e, &["line 4"]);
    // with the option the line is skipped
    let s = empty_session(2, 8192);
    create_rates(&s, &path, ", 'debezium-json.ignore-parse-errors' = 'true'");
    assert_eq!(run(&s, "SELECT * FROM currency_rates"), CURRENT);
    assert_eq!(
        run(&s, "SELECT count(*) FROM \"currency_rates$versions\""),
        ["5"]
    );
    // a line without `op`
    std::fs::write(
        &path,
        "{\"op\":\"c\",\"after\":{\"currency\":\"EUR\",\"conversion_rate\":1,\"update_time\":1}}\n\
         {\"after\":{\"currency\":\"EUR\"}}\n",
    )
    .unwrap();
    let s = empty_session(1, 2);
    create_rates(&s, &path, "");
    let e = query_err(&s, "SELECT * FROM currency_rates");
    assert_words(&e, &["line 2", "no `op` field"]);
    // a value that does not fit its column
    std::fs::write(
        &path,
        "{\"op\":\"c\",\"after\":{\"currency\":\"EUR\",\"conversion_rate\":\"lots\",\"update_time\":1}}\n",
    )
    .unwrap();
    let e = query_err(&s, "SELECT currency FROM currency_rates");
    assert_words(&e, &["line 1", "\"lots\"", "conversion_rate"]);
}

#[test]
fn a_change_log_needs_a_key_and_its_versions_go_with_it() {
    let dir = temp_dir("time-ddl-needs-key");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(false)).unwrap();
    let s = empty_session(2, 8192);
    let e = exec_err(
        &s,
        &format!(
            "CREATE TABLE r (currency STRING, conversion_rate DECIMAL(32, 2)) WITH ('connector' \
             = 'filesystem', 'path' = '{}', 'format' = 'debezium-json')",
            path.display()
        ),
    );
    assert_words(&e, &["needs a primary key", "which rows a change replaces"]);
    let e = exec_err(
        &s,
        &format!(
            "CREATE TABLE r (currency STRING PRIMARY KEY NOT ENFORCED) WITH ('connector' = \
             'filesystem', 'path' = '{}', 'format' = 'debezium-json', 'csv.has-header' = 'true')",
            path.display()
        ),
    );
    assert_words(&e, &["unknown option 'csv.has-header'"]);

    create_rates(&s, &path, "");
    let e = exec_err(&s, "DROP TABLE \"currency_rates$versions\"");
    assert_words(&e, &["versions of the change log `currency_rates`"]);
    let done = exec(&s, "DROP TABLE currency_rates");
    assert!(done.contains("currency_rates$versions"), "{done}");
    assert!(s.table_names().is_empty(), "{:?}", s.table_names());
    // replacing a change log replaces its versions
    create_rates(&s, &path, "");
    exec(
        &s,
        &format!(
            "CREATE OR REPLACE TABLE currency_rates (currency STRING PRIMARY KEY NOT ENFORCED, \
             conversion_rate DECIMAL(32, 2)) WITH ('connector' = 'filesystem', 'path' = '{}', \
             'format' = 'debezium-json')",
            path.display()
        ),
    );
    // without an event-time column the rows are those of the log, unchanged
    assert_eq!(
        run(&s, "SELECT * FROM \"currency_rates$versions\""),
        [
            "EUR|1.10|false",
            "EUR|1.14|false",
            "GBP|0.88|false",
            "GBP|NULL|true",
            "USD|1.00|false"
        ]
    );
    assert!(!s.table_time("currency_rates").unwrap().is_versioned());
}

#[test]
fn plain_tables_declare_time_keys_and_types() {
    let dir = temp_dir("time-ddl-plain");
    let path = dir.join("orders.csv");
    std::fs::write(
        &path,
        "order_id,price,currency,order_time\no_001,11.11,EUR,2024-01-01 12:00:00\n\
         o_002,12.51,EUR,2024-01-01 12:06:00\n",
    )
    .unwrap();
    let s = empty_session(2, 8192);
    exec(
        &s,
        &format!(
            "CREATE TABLE orders (\n  order_id STRING,\n  price DECIMAL(32,2),\n  currency \
             STRING,\n  order_time TIMESTAMP(3),\n  WATERMARK FOR order_time AS order_time - \
             INTERVAL '15' SECOND\n) WITH ({WITH_CSV}, 'path' = '{}')",
            path.display()
        ),
    );
    let time = s.table_time("orders").unwrap();
    assert_eq!(time.event_time.unwrap().column, "order_time");
    assert!(time.primary_key.is_empty() && time.versions.is_none());
    assert_eq!(
        run(&s, "SELECT * FROM orders"),
        [
            "o_001|11.11|EUR|2024-01-01T12:00:00",
            "o_002|12.51|EUR|2024-01-01T12:06:00"
        ]
    );
    // a plain table with a key and a watermark is versioned, without a
    // versions relation
    exec(
        &s,
        &format!(
            "CREATE TABLE keyed (order_id STRING PRIMARY KEY NOT ENFORCED, price DECIMAL(32, 2), \
             currency STRING, order_time TIMESTAMP_LTZ(3), WATERMARK FOR order_time AS \
             order_time) WITH ({WITH_CSV}, 'path' = '{}')",
            path.display()
        ),
    );
    let time = s.table_time("keyed").unwrap();
    assert!(time.is_versioned() && time.versions.is_none());
    assert_eq!(s.table_names(), ["keyed", "orders"]);
    assert_eq!(
        run(&s, "SELECT order_time FROM keyed"),
        ["2024-01-01T12:00:00Z", "2024-01-01T12:06:00Z"]
    );
}

#[test]
fn ddl_errors_say_what_to_write() {
    let s = empty_session(1, 8192);
    let with = format!("WITH ({WITH_CSV}, 'path' = '/nonexistent.csv')");
    for (columns, words) in [
        (
            "k STRING, PRIMARY KEY (k)",
            &["does not enforce keys", "NOT ENFORCED"][..],
        ),
        (
            "k STRING, t TIMESTAMP(3) METADATA FROM `values.source.timestamp` VIRTUAL",
            &["filesystem table has no metadata columns", "ts_ms"][..],
        ),
        (
            "k STRING, n INT, WATERMARK FOR n AS n",
            &["`n` is INT", "TIMESTAMP(p), TIMESTAMP_LTZ(p) or DATE"][..],
        ),
        (
            "k STRING, c AS k || 'x'",
            &["computed columns other than PROCTIME() are not supported"][..],
        ),
        (
            "k STRING, PRIMARY KEY (z) NOT ENFORCED",
            &["`z` is not a column"][..],
        ),
    ] {
        let e = exec_err(&s, &format!("CREATE TABLE t ({columns}) {with}"));
        assert!(matches!(e, Error::Sql(_)), "{e:?}");
        assert_words(&e, words);
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn a_proctime_column_holds_one_value_for_every_row() {
    let dir = temp_dir("time-ddl-proctime");
    let path = dir.join("o.csv");
    let mut csv = String::from("amount,currency\n");
    for i in 0..50 {
        csv.push_str(&format!("{i},EUR\n"));
    }
    std::fs::write(&path, csv).unwrap();
    for (threads, batch_size, extra) in [
        (1, 1, ""),
        (4, 7, ""),
        (4, 2, ", 'scan.in-memory' = 'true'"),
    ] {
        let s = empty_session(threads, batch_size);
        exec(
            &s,
            &format!(
                "CREATE TABLE orders (proc_time AS PROCTIME(), amount INT, currency STRING) \
                 WITH ({WITH_CSV}, 'path' = '{}'{extra})",
                path.display()
            ),
        );
        assert_eq!(
            s.table_time("orders").unwrap().proc_time.as_deref(),
            Some("proc_time")
        );
        for _ in 0..2 {
            let before = now_ms();
            let batches = collect(&s, "SELECT proc_time, amount FROM orders");
            let after = now_ms();
            let mut values = Vec::new();
            for b in &batches {
                assert_eq!(
                    b.schema().field(0).data_type(),
                    &tenon::planner::sql::proc_time_type()
                );
                let a = b.column(0).as_primitive::<TimestampMillisecondType>();
                values.extend(a.values().iter().copied());
            }
            assert_eq!(values.len(), 50);
            assert!(values.iter().all(|&v| v == values[0]), "{values:?}");
            assert!(before <= values[0] && values[0] <= after);
        }
        // the column alone, and no column at all
        assert_eq!(run(&s, "SELECT count(proc_time) FROM orders"), ["50"]);
        assert_eq!(run(&s, "SELECT count(*) FROM orders"), ["50"]);
        assert_eq!(
            run(&s, "SELECT sum(amount) FROM orders WHERE currency = 'EUR'"),
            ["1225"]
        );
    }
}

#[test]
fn temporal_table_functions_by_ddl_and_api() {
    let dir = temp_dir("time-ddl-ttf");
    let path = dir.join("rates.csv");
    std::fs::write(
        &path,
        "r_currency,r_rate,r_time\nEuro,114,2024-01-01 10:15:00\n",
    )
    .unwrap();
    let s = empty_session(2, 8192);
    exec(
        &s,
        &format!(
            "CREATE TABLE rates_history (r_currency STRING, r_rate DECIMAL(10, 0), r_time \
             TIMESTAMP(3), r_proc AS PROCTIME(), WATERMARK FOR r_time AS r_time) WITH \
             ({WITH_CSV}, 'path' = '{}')",
            path.display()
        ),
    );
    let done = exec(
        &s,
        "CREATE TEMPORAL TABLE FUNCTION Rates AS rates_history(r_time, r_currency)",
    );
    assert_eq!(done, "created temporal table function rates");
    assert_eq!(
        s.temporal_function("rates"),
        Some(TemporalFunction {
            name: "rates".into(),
            table: "rates_history".into(),
            time: "r_time".into(),
            key: vec!["r_currency".into()],
        })
    );
    let e = exec_err(
        &s,
        "CREATE TEMPORAL TABLE FUNCTION rates AS rates_history(r_time, r_currency)",
    );
    assert_words(&e, &["exists", "OR REPLACE"]);
    exec(
        &s,
        "CREATE OR REPLACE TEMPORAL TABLE FUNCTION rates AS rates_history(r_proc, r_currency)",
    );
    assert_eq!(s.temporal_function("rates").unwrap().time, "r_proc");
    for (sql, words) in [
        (
            "CREATE TEMPORAL TABLE FUNCTION f AS nope(r_time, r_currency)",
            &["there is no table or view `nope`", "rates_history"][..],
        ),
        (
            "CREATE TEMPORAL TABLE FUNCTION f AS rates_history(r_time, currency)",
            &["`currency` is not a column of rates_history"][..],
        ),
        (
            "CREATE TEMPORAL TABLE FUNCTION f AS rates_history(r_rate, r_currency)",
            &[
                "`r_rate` is not a time attribute",
                "WATERMARK FOR r_rate",
                "PROCTIME()",
            ][..],
        ),
        (
            "CREATE TEMPORAL TABLE FUNCTION f AS rates_history(r_time)",
            &["key columns", "line 1"][..],
        ),
        (
            "DROP TEMPORAL TABLE FUNCTION f",
            &["no such function", "rates"][..],
        ),
    ] {
        let e = exec_err(&s, sql);
        assert_words(&e, words);
    }
    // the API, with the same checks
    s.register_temporal_table_function("r2", "rates_history", "r_time", &["r_currency"])
        .unwrap();
    for (table, time, key, words) in [
        (
            "missing",
            "r_time",
            &["r_currency"][..],
            &["no table or view `missing`"][..],
        ),
        (
            "rates_history",
            "r_time",
            &[][..],
            &["needs key columns"][..],
        ),
        (
            "rates_history",
            "r_currency",
            &["r_rate"][..],
            &["not a time attribute"][..],
        ),
        (
            "rates_history",
            "r_time",
            &["r_time"][..],
            &["cannot be a key column"][..],
        ),
        (
            "rates_history",
            "r_time",
            &["R_CURRENCY"][..],
            &["`R_CURRENCY` is not a column"][..],
        ),
    ] {
        let e = s
            .register_temporal_table_function("r3", table, time, key)
            .unwrap_err();
        assert_words(&e, words);
    }
    exec(&s, "DROP TEMPORAL TABLE FUNCTION IF EXISTS r2, never_was");
    assert!(s.temporal_function("r2").is_none());
    // dropping the table drops its functions
    let done = exec(&s, "DROP TABLE rates_history");
    assert!(done.contains("temporal table function rates"), "{done}");
    assert!(s.temporal_function("rates").is_none());
}

#[test]
fn the_ddl_runs_from_a_script() {
    let dir = temp_dir("time-ddl-script");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(false)).unwrap();
    let mut s = empty_session(2, 8192);
    let script = format!(
        "CREATE TABLE currency_rates (currency STRING, conversion_rate DECIMAL(32, 2), \
         update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY \
         KEY(currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' \
         = 'debezium-json');\n\
         CREATE TEMPORAL TABLE FUNCTION rates AS currency_rates(update_time, currency);\n\
         SELECT currency FROM currency_rates ORDER BY currency;",
        path.display()
    );
    let out = s.execute_script(&script).unwrap().unwrap();
    assert_eq!(row_strings_unsorted(&out.batches), ["EUR", "USD"]);
    assert!(s.temporal_function("rates").is_some());
}

#[test]
fn a_change_log_with_a_proctime_column() {
    let dir = temp_dir("time-ddl-log-proctime");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(false)).unwrap();
    for batch_size in [1, 8192] {
        let s = empty_session(4, batch_size);
        exec(
            &s,
            &format!(
                "CREATE TABLE r (p AS PROCTIME(), currency STRING PRIMARY KEY NOT ENFORCED, \
                 conversion_rate DECIMAL(32, 2)) WITH ('connector' = 'filesystem', 'path' = \
                 '{}', 'format' = 'debezium-json')",
                path.display()
            ),
        );
        assert!(s.table_time("r").unwrap().is_versioned());
        assert_eq!(
            run(
                &s,
                "SELECT currency, conversion_rate, count(p) FROM r GROUP BY 1, 2"
            ),
            ["EUR|1.10|1", "USD|1.00|1"]
        );
        let out = collect(&s, "SELECT * FROM \"r$versions\"");
        let names: Vec<String> = out[0]
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(
            names,
            ["p", "currency", "conversion_rate", "__tenon_deleted"]
        );
        assert_eq!(
            run(
                &s,
                "SELECT currency, conversion_rate, __tenon_deleted, p IS NOT NULL FROM \
                 \"r$versions\""
            ),
            [
                "EUR|1.10|false|true",
                "EUR|1.14|false|true",
                "GBP|0.88|false|true",
                "GBP|NULL|true|true",
                "USD|1.00|false|true"
            ]
        );
    }
}

#[test]
fn the_command_line_runs_the_time_ddl_in_a_script() {
    let dir = temp_dir("time-ddl-cli");
    let log = dir.join("rates.json");
    std::fs::write(&log, rates_log(false)).unwrap();
    let script = dir.join("q.sql");
    std::fs::write(
        &script,
        format!(
            "CREATE TABLE currency_rates (currency STRING, conversion_rate DECIMAL(32, 2), \
             update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time - INTERVAL '15' \
             SECOND, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', \
             'path' = '{}', 'format' = 'debezium-json');\n\
             CREATE TEMPORAL TABLE FUNCTION rates AS currency_rates(update_time, currency);\n\
             SELECT currency, count(*) AS versions FROM currency_rates$versions GROUP BY \
             currency ORDER BY currency;\n",
            log.display()
        ),
    )
    .unwrap();
    let script = script.display().to_string();
    let out = crate::cli_query::ok(&["--format", "csv", "-f", &script]);
    assert_eq!(out, "currency,versions\nEUR,2\nGBP,2\nUSD,1\n");
    std::fs::write(&log, rates_log(true)).unwrap();
    let err = crate::cli_query::fails(&["--format", "csv", "-f", &script], 2);
    assert!(
        err.contains("line 4") && err.contains("rates.json"),
        "{err}"
    );
}

// ------------------------------------------------- change logs, property

/// One generated change event: key, op (0 create, 1 update, 2 delete),
/// the row's rate and time (ms), the event's `ts_ms`.
type Event = (u8, u8, Option<i32>, Option<i64>, Option<i64>);

/// A version as the reference and the session give it: key, rate, time,
/// deleted.
type VersionRow = (String, Option<i32>, Option<i64>, bool);

fn event_line(&(key, op, rate, time, ts): &Event) -> String {
    let mut row = serde_json::json!({ "currency": format!("K{key}"), "rate": rate });
    if let Some(t) = time {
        row["t"] = serde_json::json!(t);
    }
    let mut event = match op {
        0 => serde_json::json!({ "op": "c", "before": null, "after": row }),
        1 => serde_json::json!({ "op": "u", "before": row.clone(), "after": row }),
        _ => serde_json::json!({ "op": "d", "before": row, "after": null }),
    };
    if let Some(ts) = ts {
        event["ts_ms"] = serde_json::json!(ts);
    }
    event.to_string()
}

/// The reference: every version in file order.
fn reference_versions(events: &[Event]) -> Vec<VersionRow> {
    events
        .iter()
        .map(|&(key, op, rate, time, ts)| {
            let deleted = op == 2;
            let t = if deleted { ts.or(time) } else { time.or(ts) };
            (
                format!("K{key}"),
                if deleted { None } else { rate },
                t,
                deleted,
            )
        })
        .collect()
}

/// The reference: each key's last version unless it is a delete.
fn reference_current(events: &[Event]) -> Vec<VersionRow> {
    let versions = reference_versions(events);
    let mut out: Vec<VersionRow> = versions
        .iter()
        .enumerate()
        .filter(|(i, v)| !v.3 && !versions[i + 1..].iter().any(|w| w.0 == v.0))
        .map(|(_, v)| v.clone())
        .collect();
    out.sort();
    out
}

fn version_rows(batches: &[arrow_array::RecordBatch], deleted: bool) -> Vec<VersionRow> {
    let mut out = Vec::new();
    for b in batches {
        let key = b.column(0).as_string_view();
        let rate = b.column(1).as_primitive::<arrow_array::types::Int32Type>();
        let t = b.column(2).as_primitive::<TimestampMillisecondType>();
        for i in 0..b.num_rows() {
            use arrow_array::Array;
            out.push((
                key.value(i).to_string(),
                (!rate.is_null(i)).then(|| rate.value(i)),
                (!t.is_null(i)).then(|| t.value(i)),
                deleted && b.column(3).as_boolean().value(i),
            ));
        }
    }
    out
}

fn events() -> impl proptest::strategy::Strategy<Value = Vec<Event>> {
    use proptest::prelude::*;
    proptest::collection::vec(
        (
            0u8..4,
            0u8..3,
            proptest::option::of(0i32..100),
            proptest::option::of(0i64..1_000_000),
            proptest::option::of(0i64..1_000_000),
        )
            .prop_map(|(k, op, rate, time, ts)| {
                // every event has a time: its row's or its ts_ms
                let ts = if time.is_none() { ts.or(Some(7)) } else { ts };
                (k, op, rate, time, ts)
            }),
        0..24,
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// A generated change log reads as the reference's versions (in file
    /// order) and state, for threads 1 and 4 and batch sizes 1, 2, 7, 8192.
    #[test]
    fn change_logs_match_the_reference(events in events()) {
        let dir = temp_dir("time-ddl-prop");
        let path = dir.join("log.json");
        let lines: Vec<String> = events.iter().map(event_line).collect();
        std::fs::write(&path, lines.join("\n")).unwrap();
        for (threads, batch_size) in [(1, 1), (1, 7), (4, 2), (4, 8192)] {
            let s = empty_session(threads, batch_size);
            exec(&s, &format!(
                "CREATE TABLE r (currency STRING PRIMARY KEY NOT ENFORCED, rate INT, t \
                 TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', 'path' = \
                 '{}', 'format' = 'debezium-json')",
                path.display()
            ));
            let mut current = version_rows(&collect(&s, "SELECT * FROM r"), false);
            current.sort();
            proptest::prop_assert_eq!(&current, &reference_current(&events));
            let versions = version_rows(
                &collect(&s, "SELECT currency, rate, t, __tenon_deleted FROM r$versions"),
                true,
            );
            let mut expected = reference_versions(&events);
            if threads == 1 {
                proptest::prop_assert_eq!(&versions, &expected);
            } else {
                let mut versions = versions;
                versions.sort();
                expected.sort();
                proptest::prop_assert_eq!(&versions, &expected);
            }
        }
    }
}

#[test]
fn replacing_a_change_log_by_another_table_drops_its_versions() {
    let dir = temp_dir("time-ddl-replace");
    let path = dir.join("rates.json");
    std::fs::write(&path, rates_log(false)).unwrap();
    let csv = dir.join("r.csv");
    std::fs::write(&csv, "currency\nEUR\n").unwrap();
    let mut s = empty_session(1, 8192);
    create_rates(&s, &path, "");
    assert_eq!(
        s.table_names(),
        ["currency_rates", "currency_rates$versions"]
    );
    // registering a file under the name replaces the table and its versions
    s.register_file("currency_rates", &csv).unwrap();
    assert_eq!(s.table_names(), ["currency_rates"]);
    exec(&s, "DROP TABLE currency_rates");
    create_rates(&s, &path, "");
    exec(
        &s,
        &format!(
            "CREATE OR REPLACE TABLE currency_rates (currency STRING) WITH ({WITH_CSV}, 'path' = \
             '{}')",
            csv.display()
        ),
    );
    assert_eq!(s.table_names(), ["currency_rates"]);
    assert_eq!(run(&s, "SELECT * FROM currency_rates"), ["EUR"]);
    let e = query_err(&s, "SELECT * FROM currency_rates$versions");
    assert!(e.to_string().contains("unknown table"), "{e}");
}
