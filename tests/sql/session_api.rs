//! The embedding API: the planned query handle (`Session::sql`), joins built
//! in Rust (`Session::table`), typed settings, and errors that keep their
//! sources.

use std::error::Error as _;

use tenon::kernels::{JoinSide, JoinType, Strategy};
use tenon::planner::exec::ExecError;
use tenon::{Cause, Config, Error, HintMode, Session};

use crate::common::*;

// ------------------------------------------------------------ the handle

const JOIN: &str = "SELECT /*+ SHUFFLE_HASH(b) */ a.k, a.v, b.v FROM a JOIN b ON a.k = b.k";

#[test]
fn a_query_collects_twice_with_the_same_rows() {
    for &(t, bs) in &CONFIGS {
        let s = session(t, bs);
        let q = s.sql(JOIN).expect("plans");
        let first = row_strings(&q.collect().expect("first run"));
        let second = row_strings(&q.collect().expect("second run"));
        assert_eq!(first, second, "threads={t} batch={bs}");
        assert_eq!(first, run(&s, JOIN));
        assert_eq!(first.len(), 11, "{first:?}");
    }
}

#[test]
fn a_query_streams_what_it_collects_and_streams_again() {
    let s = session(4, 2);
    let q = s.sql(JOIN).expect("plans");
    let collected = row_strings(&q.collect().expect("runs"));
    for _ in 0..2 {
        let stream = q.stream().expect("starts");
        assert_eq!(stream.schema().fields().len(), 3);
        let batches: Vec<_> = stream.map(|b| b.expect("a batch")).collect();
        assert!(batches.iter().all(|b| b.num_rows() <= 2));
        assert_eq!(row_strings(&batches), collected);
    }
}

/// Explaining and running do not plan again: the query runs on what it
/// planned even after its table is dropped (planning again would fail),
/// and keeps the rows it planned on after the table is replaced.
#[test]
fn explain_then_collect_does_not_plan_again() {
    let mut s = session(1, 8192);
    let q = s.sql(JOIN).expect("plans");
    let explained = q.explain().expect("explains").to_text();
    assert_eq!(explained, s.explain(JOIN).expect("explains").to_text());
    let rows = row_strings(&q.collect().expect("runs"));
    s.execute("DROP TABLE b").expect("drops");
    assert!(matches!(s.sql(JOIN), Err(Error::Sql(_))));
    assert_eq!(q.explain().expect("still explains").to_text(), explained);
    assert_eq!(row_strings(&q.collect().expect("still runs")), rows);
    // a replaced table: the query keeps the rows it was planned on
    s.register_batch("b", table_a().renamed("b").batch())
        .expect("registers");
    assert_eq!(row_strings(&q.collect().expect("runs")), rows);
    assert_ne!(run(&s, JOIN), rows);
    // a clone is the same plan; planning the text again is another
    let again = s.sql(JOIN).expect("plans");
    assert!(q.same_plan(&q.clone()));
    assert!(!q.same_plan(&again));
}

/// EXPLAIN ANALYZE of a query run before shows that run's figures, not
/// the sum of every run.
#[test]
fn explain_analyze_shows_one_runs_figures() {
    let s = session(1, 8192);
    let q = s.sql(JOIN).expect("plans");
    let (first, out) = q.explain_analyze().expect("runs");
    assert_eq!(out.num_rows(), 11);
    q.collect().expect("runs");
    let (second, _) = q.explain_analyze().expect("runs");
    let rows = |text: &str| -> Vec<String> {
        text.split_whitespace()
            .filter(|w| w.starts_with("[rows=") || w.starts_with("batches="))
            .map(str::to_string)
            .collect()
    };
    assert!(!rows(first.tree()).is_empty(), "{}", first.tree());
    assert_eq!(rows(first.tree()), rows(second.tree()));
}

#[test]
fn a_ddl_statement_runs_once_and_gives_an_empty_query() {
    let s = session(1, 8192);
    let q = s.sql("CREATE VIEW w AS SELECT k FROM a").expect("runs");
    assert_eq!(s.view_names(), ["w"]);
    assert!(q.collect().expect("nothing to run").is_empty());
    assert_eq!(q.schema().fields().len(), 0);
    assert_eq!(q.stream().expect("empty").count(), 0);
    assert!(matches!(q.explain(), Err(Error::Plan(_))));
}

// ------------------------------------------------------------ the builder

/// The join types the builder's test covers, with the SQL that writes
/// them and the reference's.
const TYPES: [(JoinType, &str, RefJoin); 6] = [
    (JoinType::Inner, "JOIN", RefJoin::Inner),
    (JoinType::Left, "LEFT JOIN", RefJoin::Left),
    (JoinType::Right, "RIGHT JOIN", RefJoin::Right),
    (JoinType::Full, "FULL OUTER JOIN", RefJoin::Full),
    (JoinType::LeftSemi, "LEFT SEMI JOIN", RefJoin::Semi),
    (JoinType::LeftAnti, "LEFT ANTI JOIN", RefJoin::Anti),
];

const STRATEGIES: [Strategy; 4] = [
    Strategy::Broadcast,
    Strategy::ShuffleHash,
    Strategy::ShuffleMerge,
    Strategy::NestLoop,
];

/// For every join type and strategy: the builder's EXPLAIN is the hinted
/// SQL's, and its rows are the SQL's and the reference join's, in every
/// thread count and batch size.
#[test]
fn a_built_join_is_planned_and_runs_as_its_hinted_sql() {
    let (ta, tb) = (table_a(), table_b());
    for &(t, bs) in &CONFIGS {
        let s = session(t, bs);
        for (jt, words, reference) in TYPES {
            let expected = ref_join(&ta.rel(), &tb.rel(), reference, |l, r| eq(l[0], r[0]));
            for strategy in STRATEGIES {
                let join = s
                    .table("a")
                    .and_then(|a| a.join(s.table("b")?, jt, ["k"], ["k"]))
                    .expect("builds")
                    .strategy(strategy);
                let sql = format!(
                    "SELECT /*+ {}(b) */ * FROM a {words} b ON a.k = b.k",
                    strategy.name()
                );
                let built = join.explain().expect("explains");
                let written = s.explain(&sql).expect("explains");
                assert_eq!(built.to_text(), written.to_text(), "{sql}");
                let rows = row_strings(&join.collect().expect("runs"));
                assert_eq!(rows, run(&s, &sql), "{sql} threads={t} batch={bs}");
                assert_eq!(rows, expected.strings(), "{sql} threads={t} batch={bs}");
            }
        }
    }
}

#[test]
fn a_built_join_without_a_strategy_is_the_default_choice() {
    let s = session(1, 8192);
    let join = s
        .table("a")
        .and_then(|a| a.join(s.table("b")?, JoinType::Inner, ["k", "v"], ["k", "v"]))
        .expect("builds");
    assert_eq!(
        join.explain().expect("explains").to_text(),
        s.explain("SELECT * FROM a JOIN b ON a.k = b.k AND a.v = b.v")
            .expect("explains")
            .to_text()
    );
    // the hint may name the left input instead
    let left = join
        .clone()
        .strategy_on(Strategy::Broadcast, JoinSide::Left);
    assert_eq!(
        left.explain().expect("explains").joins[0].build.as_deref(),
        Some("a")
    );
}

/// A strategy that cannot run as asked falls back as the hint does, and is
/// the hint's error in strict mode.
#[test]
fn a_built_strategy_falls_back_or_fails_as_its_hint() {
    let mut s = session(1, 8192);
    s.set_disabled_strategies([Strategy::Broadcast])
        .expect("sets");
    let sql = "SELECT /*+ BROADCAST(b) */ * FROM a JOIN b ON a.k = b.k";
    fn build(s: &Session) -> tenon::JoinBuilder<'_> {
        s.table("a")
            .and_then(|a| a.join(s.table("b")?, JoinType::Inner, ["k"], ["k"]))
            .expect("builds")
            .strategy(Strategy::Broadcast)
    }
    let lenient = build(&s).explain().expect("falls back");
    assert_ne!(lenient.joins[0].strategy, Strategy::Broadcast);
    assert_eq!(
        lenient.to_text(),
        s.explain(sql).expect("falls back").to_text()
    );
    s.set_hint_mode(HintMode::Strict).expect("sets");
    let built = build(&s).explain().unwrap_err();
    let written = s.explain(sql).unwrap_err();
    assert!(matches!(built, Error::Hint(_)), "{built:?}");
    assert_eq!(built.to_string(), written.to_string());
}

#[test]
fn a_built_join_names_an_unknown_column_or_table() {
    let s = session(1, 8192);
    let err = s
        .table("a")
        .and_then(|a| a.join(s.table("b")?, JoinType::Inner, ["k"], ["kk"]))
        .unwrap_err();
    assert!(matches!(err, Error::Sql(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("`b.kk`") && text.contains("b.k"), "{text}");
    let err = s.table("nowhere").unwrap_err();
    assert!(err.to_string().contains("`nowhere`"), "{err}");
    let err = s
        .table("a")
        .and_then(|a| a.join(s.table("b")?, JoinType::Inner, ["k", "v"], ["k"]))
        .unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(
        err.to_string().contains("one right key per left key"),
        "{err}"
    );
}

#[test]
fn a_built_join_quotes_names_that_sql_would_fold() {
    let mut s = empty_session(1, 8192);
    s.register_batch("Orders", table_a().batch())
        .expect("registers");
    s.register_batch("Cust", table_b().batch())
        .expect("registers");
    let join = s
        .table("Orders")
        .and_then(|a| a.join(s.table("Cust")?, JoinType::Left, ["k"], ["k"]))
        .expect("builds");
    assert_eq!(
        row_strings(&join.collect().expect("runs")),
        ref_join(
            &table_a().rel(),
            &table_b().rel(),
            RefJoin::Left,
            |l, r| eq(l[0], r[0])
        )
        .strings()
    );
}

// ------------------------------------------------------------ settings

/// Each typed setting errors exactly as `set` does for the same bad value,
/// and leaves the session as it was.
#[test]
fn typed_settings_error_as_set_does() {
    let mut s = empty_session(1, 8192);
    let before = s.config().clone();
    let pairs: [(Error, &str, &str); 4] = [
        (s.set_threads(100_000).unwrap_err(), "threads", "100000"),
        (s.set_batch_size(0).unwrap_err(), "batch_size", "0"),
        (
            s.set_batch_size(2 << 20).unwrap_err(),
            "batch_size",
            "2097152",
        ),
        (
            s.set_memory_limit(Some(0)).unwrap_err(),
            "memory_limit",
            "0",
        ),
    ];
    for (typed, key, value) in pairs {
        let text = s.set(key, value).unwrap_err();
        assert!(matches!(typed, Error::Config(_)), "{typed:?}");
        assert_eq!(typed.to_string(), text.to_string(), "{key}={value}");
        assert_eq!(typed.exit_code(), 2);
    }
    assert_eq!(s.config(), &before);
}

/// The on/off settings' typed methods set what their `set` strings do,
/// and a bad string names the key and leaves the session as it was.
#[test]
fn typed_switches_set_what_set_does() {
    let mut typed = empty_session(1, 8192);
    typed.set_fused_aggregate(false).expect("sets");
    typed.set_runtime_filters(false).expect("sets");
    typed.set_shared_subplans(false).expect("sets");
    let mut text = empty_session(1, 8192);
    text.set("fused_aggregate", "off").expect("sets");
    text.set("RUNTIME_FILTERS", "False").expect("sets");
    text.set("shared_subplans", "0").expect("sets");
    assert_eq!(typed.config(), text.config());
    assert!(!typed.config().fused_aggregate && !typed.config().runtime_filters);
    assert!(!typed.config().shared_subplans);
    let before = text.config().clone();
    let e = text.set("runtime_filters", "maybe").unwrap_err();
    assert!(e.to_string().contains("runtime_filters"), "{e}");
    assert!(e.to_string().contains("true or false"), "{e}");
    assert_eq!(text.config(), &before);
    typed.set_fused_aggregate(true).expect("sets");
    typed.set_runtime_filters(true).expect("sets");
    typed.set_shared_subplans(true).expect("sets");
    assert_eq!(
        typed.config(),
        &tenon::Config {
            threads: 1,
            ..tenon::Config::default()
        }
    );
}

/// Each typed setting sets what its `set` string does.
#[test]
fn typed_settings_set_what_set_does() {
    let mut typed = empty_session(1, 8192);
    typed.set_broadcast_threshold(10 << 20).expect("sets");
    typed.set_memory_limit(Some(2 << 30)).expect("sets");
    typed.set_hint_mode(HintMode::Strict).expect("sets");
    typed
        .set_disabled_strategies([
            Strategy::NestLoop,
            Strategy::ShuffleMerge,
            Strategy::NestLoop,
        ])
        .expect("sets");
    typed.set_threads(2).expect("sets");
    typed.set_batch_size(7).expect("sets");
    let mut text = empty_session(1, 8192);
    for (k, v) in [
        ("broadcast_threshold", "10MB"),
        ("memory_limit", "2GB"),
        ("hint_mode", "strict"),
        ("disabled_strategies", "NEST_LOOP,SHUFFLE_MERGE,NEST_LOOP"),
        ("threads", "2"),
        ("batch_size", "7"),
    ] {
        text.set(k, v).expect("sets");
    }
    assert_eq!(typed.config(), text.config());
    typed.set_memory_limit(None).expect("sets");
    assert_eq!(typed.config().memory_limit, None);
    // the new batch size and threads are the ones queries run with
    let q = {
        typed
            .register_batch("a", table_a().batch())
            .expect("registers");
        typed.sql("SELECT * FROM a").expect("plans")
    };
    assert!(q.collect().expect("runs").iter().all(|b| b.num_rows() <= 7));
    let _ = Config::default();
}

// ------------------------------------------------------------ errors

/// The error a cause was built from, through `source()`.
fn exec_source(e: &Error) -> &ExecError {
    let cause = e
        .source()
        .unwrap_or_else(|| panic!("{e:?} has a source"))
        .downcast_ref::<Cause>()
        .unwrap_or_else(|| panic!("{e:?}: its source is a Cause"));
    match cause {
        Cause::Exec(x) => x,
        other => panic!("{other:?} is not the executor's"),
    }
}

#[test]
fn execution_and_resource_errors_keep_their_source() {
    let s = session(1, 8192);
    let e = query_err(&s, "SELECT v / 0 FROM a");
    assert!(matches!(e, Error::Execution(_)), "{e:?}");
    assert!(matches!(exec_source(&e), ExecError::Expr(_)), "{e:?}");
    // the message is the one it always was: the source's, after the prefix
    assert_eq!(e.to_string(), format!("query failed: {}", exec_source(&e)));

    let mut s = session(1, 8192);
    s.set_memory_limit(Some(1024)).expect("sets");
    // (an as-of join without equality keys does not spill)
    let e = query_err(
        &s,
        "SELECT * FROM a ASOF JOIN b MATCH_CONDITION (a.v >= b.v)",
    );
    assert!(matches!(e, Error::Resource(_)), "{e:?}");
    assert!(
        matches!(exec_source(&e), ExecError::Memory(_) | ExecError::Join(_)),
        "{e:?}"
    );
    assert_eq!(e.to_string(), exec_source(&e).to_string());
}

#[test]
fn a_script_statements_error_is_its_source() {
    let mut s = session(1, 8192);
    let e = s
        .execute_script("SELECT 1;\nSELECT * FROM nowhere")
        .unwrap_err();
    assert!(matches!(e, Error::Statement { number: 2, .. }), "{e:?}");
    let inner: &Error = e
        .source()
        .and_then(|x| x.downcast_ref::<Box<Error>>())
        .expect("the statement's own error");
    assert!(matches!(inner, Error::Sql(_)), "{inner:?}");
    assert!(e.to_string().ends_with(&inner.to_string()), "{e}");
}

// ------------------------------------------- the held form of a table

/// A table of narrow values (held in narrower integer types) and one
/// batch of wide ones: its rows come back in the table's own types, equal
/// to those registered, through a scan, a filter, a join and an aggregate.
#[test]
fn a_table_held_in_narrow_types_answers_in_its_own_types() {
    use std::sync::Arc;

    use arrow_array::{Date32Array, Decimal128Array, Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("price", DataType::Decimal128(15, 2), true),
        Field::new("day", DataType::Date32, true),
    ]));
    let batch = |keys: Vec<Option<i64>>, prices: Vec<Option<i128>>, days: Vec<Option<i32>>| {
        let prices = Decimal128Array::from(prices)
            .with_precision_and_scale(15, 2)
            .unwrap();
        RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(Int64Array::from(keys)),
                Arc::new(prices),
                Arc::new(Date32Array::from(days)),
            ],
        )
        .unwrap()
    };
    let narrow = batch(
        vec![Some(1), Some(2), None, Some(3)],
        vec![Some(150), None, Some(-7), Some(99_999)],
        vec![Some(8_035), Some(10_591), None, Some(0)],
    );
    let wide = batch(
        vec![Some(1 << 40), Some(2)],
        vec![Some(1 << 70), Some(250)],
        vec![Some(100_000), Some(-1)],
    );
    for &(threads, batch_size) in &CONFIGS {
        let mut s = empty_session(threads, batch_size);
        s.register_batches("t", narrow.schema(), vec![narrow.clone(), wide.clone()])
            .unwrap();
        let all = collect(&s, "SELECT * FROM t");
        assert!(all.iter().all(|b| b.schema() == narrow.schema()));
        assert_eq!(
            row_strings(&all),
            row_strings(&[narrow.clone(), wide.clone()]),
            "threads={threads} batch={batch_size}"
        );
        assert_eq!(
            run(
                &s,
                "SELECT k, price FROM t WHERE price > 1.5 AND day < DATE '1999-01-01'"
            ),
            ["2|2.50", "3|999.99"]
        );
        assert_eq!(
            run(
                &s,
                "SELECT a.k, sum(b.price) FROM t a JOIN t b ON a.k = b.k GROUP BY a.k"
            ),
            [
                "1099511627776|11805916207174113034.24",
                "1|1.50",
                "2|5.00",
                "3|999.99"
            ]
        );
    }
}
