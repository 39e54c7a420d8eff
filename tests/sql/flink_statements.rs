//! Flink's settings and statements as the seeds write them (issue 52):
//! Flink's configuration names, `SET` / `RESET`, `CREATE TEMPORARY ...`,
//! `SHOW TABLES`, `DESCRIBE`, `EXPLAIN PLAN FOR`, temporal table functions
//! over tables without a primary key and over views, the LOOKUP hint's
//! alias rule, `csv.ignore-parse-errors`' NULL fields, and nested DDL
//! types.

use std::path::Path;

use tenon::{Config, StatementOutput};

use crate::cli_query::{fails, ok};
use crate::common::*;

fn rows_of(out: StatementOutput) -> Vec<String> {
    match out {
        StatementOutput::Rows(out) => row_strings_unsorted(&out.batches),
        StatementOutput::Done(what) => panic!("no rows: {what}"),
    }
}

/// Item 1: Flink's configuration names set tenon's settings.
#[test]
fn flink_configuration_names_set_tenon_settings() {
    let mut s = empty_session(1, 8192);
    s.set("table.optimizer.join.broadcast-threshold", "10 mb")
        .unwrap();
    s.set("table.optimizer.join-reorder-enabled", "true")
        .unwrap();
    s.set(
        "table.exec.disabled-operators",
        "NestedLoopJoin,SortMergeJoin",
    )
    .unwrap();
    s.set("table.exec.async-lookup.buffer-capacity", "12")
        .unwrap();
    s.set("table.exec.async-lookup.timeout", "3 min").unwrap();
    s.set("table.exec.async-lookup.output-mode", "ALLOW_UNORDERED")
        .unwrap();
    s.set("table.exec.state.ttl", "1 h").unwrap();
    s.set("execution.runtime-mode", "batch").unwrap();
    s.set("parallelism.default", "2").unwrap();
    let c = s.config();
    assert_eq!(c.broadcast_threshold, 10 << 20);
    assert!(c.join_reorder);
    assert_eq!(c.disabled_strategies.len(), 2);
    assert_eq!(c.lookup.capacity, 12);
    assert_eq!(c.lookup.timeout.as_secs(), 180);
    assert_eq!(c.state_ttl.as_secs(), 3600);
    assert_eq!(c.threads, 2);
    s.set("table.exec.resource.default-parallelism", "3")
        .unwrap();
    assert_eq!(s.config().threads, 3);
    let e = s.set("execution.runtime-mode", "streaming").unwrap_err();
    assert!(
        e.to_string().contains("streaming mode is not built yet"),
        "{e}"
    );
    assert_eq!(e.exit_code(), 2);
    let e = s.set("table.exec.state.ttl", "forever").unwrap_err();
    assert!(e.to_string().contains("state_ttl"), "{e}");
    let e = s
        .set("table.optimizer.join-reorder-enable", "true")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("did you mean `table.optimizer.join-reorder-enabled`"),
        "{e}"
    );
    // the planner reads them: a disabled nested loop is not chosen
    let e = s
        .set("table.exec.disabled-operators", "Shuffle")
        .unwrap_err()
        .to_string();
    assert!(e.contains("BroadcastHashJoin"), "{e}");
}

/// Item 2: `SET 'key' = 'value'`, `SET`, `RESET 'key'` and `RESET` as
/// statements: one implementation in the Session, which scripts, the
/// shell and Python use.
#[test]
fn set_and_reset_statements_change_the_session_settings() {
    let mut s = empty_session(1, 8192);
    let done = s
        .execute_mut("SET 'table.optimizer.join.broadcast-threshold' = '10 mb'")
        .unwrap();
    assert!(
        matches!(&done, StatementOutput::Done(w) if w == "set broadcast_threshold to 10MB"),
        "{done:?}"
    );
    s.execute_mut("SET memory_limit = 64MB").unwrap();
    let listed = rows_of(s.execute("SET").unwrap());
    assert_eq!(listed.len(), Config::KEYS.len());
    assert!(
        listed.contains(&"broadcast_threshold|10MB".to_string()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"memory_limit|64MB".to_string()),
        "{listed:?}"
    );
    s.execute_mut("RESET 'table.optimizer.join.broadcast-threshold'")
        .unwrap();
    assert_eq!(
        s.config().broadcast_threshold,
        Config::default().broadcast_threshold
    );
    assert_eq!(s.config().memory_limit, Some(64 << 20));
    s.execute_mut("RESET").unwrap();
    assert_eq!(s.config(), &Config::default());
    // through `&self`, a SET says what to call
    let e = s.execute("SET 'threads' = '2'").unwrap_err().to_string();
    assert!(e.contains("execute_mut"), "{e}");
    // a script's SET applies to the statements after it
    let out = s
        .execute_script(
            "SET 'parallelism.default' = '2';\nSET 'table.exec.disabled-operators' = 'HashJoin';\n\
             SELECT count(*) FROM (VALUES (1), (2)) a(k) JOIN (VALUES (1)) b(k) ON a.k = b.k;",
        )
        .unwrap()
        .unwrap();
    assert_eq!(row_strings(&out.batches), ["1"]);
    assert_eq!(s.config().threads, 2);
    assert_eq!(s.config().disabled_strategies.len(), 2);
    let e = s
        .execute_script("SET 'execution.runtime-mode' = 'streaming';\nSELECT 1")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("statement 1") && e.contains("not built yet"),
        "{e}"
    );

    // `tenon query -f`
    let dir = temp_dir("flink-set-script");
    let script = dir.join("s.sql");
    std::fs::write(
        &script,
        "SET 'table.optimizer.join.broadcast-threshold' = '1 kb';\nSET 'table.exec.state.ttl' = '2 h';\nSET;\n",
    )
    .unwrap();
    let out = ok(&["--format", "csv", "-f", &script.display().to_string()]);
    assert!(out.starts_with("key,value\n"), "{out}");
    assert!(out.contains("broadcast_threshold,1KB\n"), "{out}");
    assert!(out.contains("state_ttl,7200s\n"), "{out}");
    std::fs::write(
        &script,
        "SET 'execution.runtime-mode' = 'streaming';\nSELECT 1;\n",
    )
    .unwrap();
    let err = fails(&["-f", &script.display().to_string()], 2);
    assert!(err.contains("streaming mode is not built yet"), "{err}");

    // the shell
    let out = crate::shell::run_piped(
        &["shell"],
        "SET 'table.optimizer.join-reorder-enabled' = 'true';\n.mode csv\nSET;\nRESET;\nSET;\n",
    );
    let (stdout, stderr) = crate::shell::texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("join_reorder,true"), "{stdout}");
    assert!(stdout.contains("join_reorder,false"), "{stdout}");
}

/// Item 3: `CREATE TEMPORARY VIEW/TABLE`, `SHOW TABLES`, `DESCRIBE t`,
/// `EXPLAIN PLAN FOR` as statements.
#[test]
fn temporary_ddl_show_tables_describe_and_explain_plan_for_are_statements() {
    let dir = temp_dir("flink-describe");
    let path = dir.join("rates.csv");
    std::fs::write(&path, "EUR,1.10,2024-01-01 00:00:00\n").unwrap();
    let mut s = empty_session(1, 8192);
    s.execute_mut(&format!(
        "CREATE TEMPORARY TABLE rates (currency STRING, rate DECIMAL(10, 2), \
         ts TIMESTAMP(3), p AS PROCTIME(), PRIMARY KEY (currency) NOT ENFORCED, \
         WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'csv', 'csv.has-header' = 'false')",
        path.display()
    ))
    .unwrap();
    s.execute_mut(
        "CREATE TEMPORARY VIEW eur AS SELECT currency, rate FROM rates WHERE currency = 'EUR'",
    )
    .unwrap();
    assert_eq!(rows_of(s.execute("SHOW TABLES").unwrap()), ["eur", "rates"]);
    assert_eq!(
        rows_of(s.execute("DESCRIBE rates").unwrap()),
        [
            "currency|STRING|false|PRI(currency)|NULL|NULL",
            "rate|DECIMAL(10, 2)|true|NULL|NULL|NULL",
            "ts|TIMESTAMP(3) *ROWTIME*|true|NULL|NULL|ts - INTERVAL '5' SECOND",
            "p|TIMESTAMP_LTZ(3) *PROCTIME*|false|NULL|AS PROCTIME()|NULL",
        ]
    );
    assert_eq!(
        rows_of(s.execute("DESC eur").unwrap()),
        [
            "currency|STRING|false|NULL|NULL|NULL",
            "rate|DECIMAL(10, 2)|true|NULL|NULL|NULL"
        ]
    );
    let e = s.execute("DESCRIBE nothing").unwrap_err().to_string();
    assert!(
        e.contains("no table or view `nothing`") && e.contains("eur, rates"),
        "{e}"
    );
    let plan = rows_of(
        s.execute("EXPLAIN PLAN FOR SELECT count(*) FROM eur")
            .unwrap(),
    );
    assert!(plan.iter().any(|l| l.contains("Aggregate")), "{plan:?}");
    // the same through `sql`, as the shell and Python plan a query
    let q = s.sql("SHOW TABLES").unwrap();
    assert_eq!(q.schema().field(0).name(), "table name");
    assert_eq!(
        row_strings_unsorted(&q.collect().unwrap()),
        ["eur", "rates"]
    );
    let out = ok(&["--format", "csv", "SHOW TABLES"]);
    assert!(out.starts_with("table name\n"), "{out}");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Item 6: a temporal table function's key is the versioning key: the
/// table needs no PRIMARY KEY, and a view works as a table does.
#[test]
fn temporal_table_function_without_primary_key_or_over_a_view() {
    let dir = temp_dir("flink-ttf-key");
    let rates = write(
        &dir,
        "rates.csv",
        "currency,rate,t\nEUR,1.10,2024-01-01 00:00:00\nEUR,1.20,2024-01-02 00:00:00\n\
         USD,1.00,2024-01-01 00:00:00\n",
    );
    let orders = write(
        &dir,
        "orders.csv",
        "id,currency,t\n1,EUR,2024-01-01 12:00:00\n2,EUR,2024-01-03 00:00:00\n3,USD,2024-01-05 00:00:00\n",
    );
    let s = empty_session(1, 8192);
    s.execute(&format!(
        "CREATE TABLE rates_history (currency STRING, rate DECIMAL(10, 2), t TIMESTAMP(3), \
         WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', 'path' = '{rates}', \
         'format' = 'csv')"
    ))
    .unwrap();
    s.execute(&format!(
        "CREATE TABLE orders (id BIGINT, currency STRING, t TIMESTAMP(3), WATERMARK FOR t AS t) \
         WITH ('connector' = 'filesystem', 'path' = '{orders}', 'format' = 'csv')"
    ))
    .unwrap();
    s.execute("CREATE TEMPORAL TABLE FUNCTION rates AS rates_history(t, currency)")
        .unwrap();
    let want = ["1|1.10", "2|1.20", "3|1.00"];
    let comma = "SELECT o.id, r.rate FROM orders o, LATERAL TABLE (rates(o.t)) r \
                 WHERE o.currency = r.currency ORDER BY o.id";
    assert_eq!(run_ordered(&s, comma), want);
    let join = "SELECT o.id, r.rate FROM orders o JOIN LATERAL TABLE (rates(o.t)) r \
                ON o.currency = r.currency ORDER BY o.id";
    assert_eq!(run_ordered(&s, join), want);
    // over a view
    s.execute("CREATE VIEW rates_view AS SELECT currency, rate, t FROM rates_history")
        .unwrap();
    s.execute("CREATE TEMPORAL TABLE FUNCTION vrates AS rates_view(t, currency)")
        .unwrap();
    let view = "SELECT o.id, r.rate FROM orders o, LATERAL TABLE (vrates(o.t)) r \
                WHERE o.currency = r.currency ORDER BY o.id";
    assert_eq!(run_ordered(&s, view), want);
    let e = s
        .execute("CREATE TEMPORAL TABLE FUNCTION bad AS rates_view(rate, currency)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a timestamp or date"), "{e}");
}

/// Item 7: the LOOKUP hint's 'table' is the alias when the table has one:
/// the table's name is ignored with the reason (lenient) or refused
/// (strict).
#[test]
fn lookup_hint_table_must_be_the_alias_when_the_table_has_one() {
    let dir = temp_dir("flink-lookup-alias");
    crate::lookup::Shop::random(1, 5, 5).write(&dir);
    let mut s = empty_session(1, 8192);
    s.execute_script(&crate::lookup::ddl(&dir)).unwrap();
    let sql = "SELECT /*+ LOOKUP('table'='customers', 'async'='true') */ o.k FROM orders AS o \
               JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.k = c.id";
    let text = s.explain(sql).unwrap().to_text();
    assert!(
        text.contains(
            "ignored: 'table' = 'customers' names the lookup table, which has the alias `c`"
        ),
        "{text}"
    );
    let by_alias = sql.replace("'table'='customers'", "'table'='c'");
    let text = s.explain(&by_alias).unwrap().to_text();
    assert!(text.contains("applied"), "{text}");
    // without an alias, the table's name
    let unaliased = "SELECT /*+ LOOKUP('table'='customers') */ o.k FROM orders AS o \
                     JOIN customers FOR SYSTEM_TIME AS OF o.p ON o.k = customers.id";
    let text = s.explain(unaliased).unwrap().to_text();
    assert!(!text.contains("ignored"), "{text}");
    s.set("hint_mode", "strict").unwrap();
    let e = s.collect(sql).unwrap_err().to_string();
    assert!(e.contains("has the alias `c`"), "{e}");
}

/// Item 5: `csv.ignore-parse-errors` keeps a row whose field does not
/// parse, with that field NULL (Flink's meaning); `csv.skip-bad-rows`
/// drops it.
#[test]
fn csv_ignore_parse_errors_keeps_the_row_with_the_field_null() {
    let dir = temp_dir("flink-csv-null");
    let path = write(&dir, "p.csv", "k,v\n1,10\n2,bad\n3,30\nx,40\n4\n");
    let s = empty_session(1, 8192);
    let create = |name: &str, extra: &str| {
        s.execute(&format!(
            "CREATE TABLE {name} (k BIGINT NOT NULL, v INT) WITH ('connector' = 'filesystem', \
             'path' = '{path}', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true'{extra})"
        ))
        .unwrap();
    };
    create("p", "");
    // `2,bad` kept with v NULL; `x,40` dropped (k is NOT NULL); `4` dropped
    // (one field)
    assert_eq!(
        run_ordered(&s, "SELECT k, v FROM p ORDER BY k"),
        ["1|10", "2|NULL", "3|30"]
    );
    create("q", ", 'csv.skip-bad-rows' = 'true'");
    assert_eq!(
        run_ordered(&s, "SELECT k, v FROM q ORDER BY k"),
        ["1|10", "3|30"]
    );
    let e = s
        .execute(&format!(
            "CREATE TABLE r (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{path}', \
             'format' = 'csv', 'csv.skip-bad-rows' = 'maybe')"
        ))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'true' or 'false'"), "{e}");
}

/// Item 4: `MAP<K, V>`, `MULTISET<T>`, `ROW<...>` and `ARRAY<...>`
/// nested in CREATE TABLE.
#[test]
fn ddl_nested_types_map_multiset_row_and_array() {
    let dir = temp_dir("flink-nested-ddl");
    let path = write(
        &dir,
        "n.json",
        "{\"id\": 1, \"r\": {\"x\": 5, \"tags\": [\"p\", \"q\"]}, \"r2\": {\"a\": 1.5, \"b\": \"z\"}}\n",
    );
    let mut s = empty_session(1, 8192);
    s.execute_mut(&format!(
        "CREATE TABLE n (id BIGINT, m MAP<STRING, INT>, r ROW<x INT NOT NULL, tags ARRAY<STRING>>, \
         l ARRAY<MAP<STRING, BIGINT>>, ms MULTISET<STRING>, r2 ROW(a DECIMAL(10, 2), b STRING)) \
         WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"
    ))
    .unwrap();
    let types: Vec<String> = rows_of(s.execute("DESCRIBE n").unwrap())
        .into_iter()
        .map(|r| r.split('|').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        types,
        [
            "id BIGINT",
            "m MAP<STRING NOT NULL, INT>",
            "r ROW<`x` INT NOT NULL, `tags` ARRAY<STRING>>",
            "l ARRAY<MAP<STRING NOT NULL, BIGINT>>",
            "ms MAP<STRING NOT NULL, BIGINT NOT NULL>",
            "r2 ROW<`a` DECIMAL(10, 2), `b` STRING>",
        ]
    );
    // rows of nested declared types read from JSON (whose reader makes
    // structs and lists, not maps)
    s.execute_mut(&format!(
        "CREATE TABLE rows_only (id BIGINT, r ROW<x INT NOT NULL, tags ARRAY<STRING>>, \
         r2 ROW(a DECIMAL(10, 2), b STRING)) WITH ('connector' = 'filesystem', \
         'path' = '{path}', 'format' = 'json')"
    ))
    .unwrap();
    assert_eq!(
        run(&s, "SELECT id, r.x, r.tags[2], r2.a, r2.b FROM rows_only"),
        ["1|5|q|1.50|z"]
    );
    let e = s
        .execute("CREATE TABLE bad (m MAP<STRING>) WITH ('connector' = 'filesystem', 'path' = 'x', 'format' = 'json')")
        .unwrap_err()
        .to_string();
    assert!(e.contains("MAP"), "{e}");
}
