//! Very wide tables (issue 14: `SELECT *` planned in time quadratic in the
//! columns). `SELECT *` over tens of thousands of columns plans and runs in
//! time linear in the columns, and gives the columns, in the order and
//! under the names, that the plain path gives.
//!
//! No test here times anything: the wide queries run under a generous
//! deadline (minutes) that only turns the quadratic path (minutes per query
//! at these widths in a debug build) into a failure.

use std::sync::Arc;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use tenon::Session;

use crate::common::{CONFIGS, collect, query_err, row_strings_unsorted, run, run_ordered, session};

/// Runs `f` on its own thread; fails when it has not finished within
/// `limit` (a deadline for a quadratic path, not a timing).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?}: quadratic in the columns?")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// A table of `width` BIGINT columns `{prefix}0 ...`, `rows` rows; cell
/// (row r, column i) is `r * 1_000_000 + i`.
fn wide_batch(prefix: &str, width: usize, rows: usize) -> RecordBatch {
    let fields: Vec<Field> = (0..width)
        .map(|i| Field::new(format!("{prefix}{i}"), DataType::Int64, true))
        .collect();
    let columns: Vec<ArrayRef> = (0..width)
        .map(|i| {
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|r| (r * 1_000_000 + i) as i64),
            )) as ArrayRef
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("a wide batch")
}

/// A session with the wide tables `w` (columns `c*`) and `v` (`d*`).
fn wide_session(width: usize, rows: usize) -> Session {
    let mut s = crate::common::empty_session(1, 8192);
    s.register_batch("w", wide_batch("c", width, rows))
        .expect("register w");
    s.register_batch("v", wide_batch("d", width, rows))
        .expect("register v");
    s
}

/// The column names of a result.
fn names(batches: &[RecordBatch]) -> Vec<String> {
    batches.first().map_or_else(Vec::new, |b| {
        b.schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    })
}

/// Asserts that `batches` hold `rows` rows of the wide table's cells for
/// the columns `columns` (table column indices), rows in order.
fn assert_cells(batches: &[RecordBatch], columns: &[usize], rows: &[usize]) {
    let got: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(got, rows.len(), "row count");
    let mut r = 0;
    for b in batches {
        for row in 0..b.num_rows() {
            for (j, &c) in columns.iter().enumerate() {
                let v = b.column(j).as_primitive::<Int64Type>().value(row);
                assert_eq!(v, (rows[r] * 1_000_000 + c) as i64, "row {r} column {j}");
            }
            r += 1;
        }
    }
}

#[test]
fn select_star_over_twenty_thousand_columns_is_linear_in_columns() {
    const WIDTH: usize = 20_000;
    let batches = within(
        Duration::from_secs(180),
        "SELECT * over 20,000 columns",
        || {
            let s = wide_session(WIDTH, 3);
            collect(&s, "SELECT * FROM w")
        },
    );
    let expected: Vec<String> = (0..WIDTH).map(|i| format!("c{i}")).collect();
    assert_eq!(names(&batches), expected);
    assert_cells(&batches, &(0..WIDTH).collect::<Vec<_>>(), &[0, 1, 2]);
}

#[test]
fn select_star_over_wide_tables_with_where_order_by_distinct_views_and_joins_is_linear_in_columns()
{
    const WIDTH: usize = 10_000;
    let all: Vec<usize> = (0..WIDTH).collect();
    let results = within(Duration::from_secs(300), "wide SELECT * queries", || {
        let s = wide_session(WIDTH, 4);
        s.execute("CREATE VIEW wv AS SELECT * FROM w")
            .expect("CREATE VIEW");
        [
            "SELECT * FROM w WHERE c1 > 1000000 ORDER BY c0 DESC LIMIT 2",
            "SELECT DISTINCT * FROM w",
            "SELECT * FROM wv WHERE c9999 < 2000000",
            "SELECT * FROM w JOIN v ON w.c0 + 7 = v.d7 WHERE w.c0 = 2000000",
            "SELECT *, c3 + 1 AS next FROM w WHERE c0 = 0",
        ]
        .map(|sql| collect(&s, sql))
    });
    let [ordered, distinct, view, join, extra] = results;
    assert_cells(&ordered, &all, &[3, 2]);
    assert_eq!(names(&ordered)[WIDTH - 1], format!("c{}", WIDTH - 1));
    assert_eq!(distinct.iter().map(RecordBatch::num_rows).sum::<usize>(), 4);
    assert_eq!(names(&distinct).len(), WIDTH);
    assert_cells(&view, &all, &[0, 1]);
    assert_eq!(names(&view).len(), WIDTH);
    let join_names = names(&join);
    assert_eq!(join_names.len(), 2 * WIDTH);
    assert_eq!((&join_names[0][..], &join_names[WIDTH][..]), ("c0", "d0"));
    assert_eq!(row_strings_unsorted(&join).len(), 1);
    assert_eq!(names(&extra).len(), WIDTH + 1);
    assert_eq!(names(&extra)[WIDTH], "next");
    let next = extra[0].column(WIDTH).as_primitive::<Int64Type>().value(0);
    assert_eq!(next, 4);
}

#[test]
fn select_star_over_a_hundred_thousand_columns_of_a_tiny_table_ends() {
    const WIDTH: usize = 100_000;
    let (names, rows) = within(
        Duration::from_secs(300),
        "SELECT * over 100,000 columns",
        || {
            let s = wide_session(WIDTH, 1);
            let batches = collect(&s, "SELECT * FROM w");
            (
                names(&batches),
                batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
            )
        },
    );
    assert_eq!(names.len(), WIDTH);
    assert_eq!(names[WIDTH - 1], format!("c{}", WIDTH - 1));
    assert_eq!(rows, 1);
}

/// `SELECT *` is expanded by tenon (`planner/src/sql/wildcard.rs`) where
/// that gives what `SqlToRel`'s own expansion gives: each query here gives
/// the rows and column names of the same query with the columns spelled
/// out, under every thread count and batch size.
#[test]
fn select_star_expanded_by_tenon_gives_the_columns_sqltorel_gives() {
    let pairs = [
        ("SELECT * FROM a", "SELECT a.k, a.v, a.s FROM a"),
        (
            "SELECT *, v + 1 AS w FROM a WHERE k > 1",
            "SELECT k, v, s, v + 1 AS w FROM a WHERE k > 1",
        ),
        (
            "SELECT * FROM a JOIN b USING (k)",
            "SELECT a.k, a.v, a.s, b.v, b.s FROM a JOIN b USING (k)",
        ),
        (
            "SELECT * FROM a LEFT JOIN b ON a.k = b.k",
            "SELECT a.k, a.v, a.s, b.k, b.v, b.s FROM a LEFT JOIN b ON a.k = b.k",
        ),
        ("SELECT DISTINCT * FROM b", "SELECT DISTINCT k, v, s FROM b"),
        (
            "SELECT * FROM a WHERE k IN (SELECT k FROM b)",
            "SELECT k, v, s FROM a WHERE k IN (SELECT k FROM b)",
        ),
        (
            "WITH x AS (SELECT * FROM a) SELECT * FROM x WHERE v > 10",
            "WITH x AS (SELECT k, v, s FROM a) SELECT k, v, s FROM x WHERE v > 10",
        ),
        (
            "SELECT * FROM (SELECT * FROM b) t LIMIT 100",
            "SELECT t.k, t.v, t.s FROM (SELECT k, v, s FROM b) t",
        ),
    ];
    let ordered = [
        (
            "SELECT * FROM a ORDER BY v DESC NULLS LAST, s",
            "SELECT k, v, s FROM a ORDER BY v DESC NULLS LAST, s",
        ),
        (
            "SELECT * FROM a ORDER BY 2 LIMIT 3",
            "SELECT k, v, s FROM a ORDER BY v LIMIT 3",
        ),
        (
            "SELECT * FROM b ORDER BY k + v, s NULLS FIRST LIMIT 5 OFFSET 1",
            "SELECT k, v, s FROM b ORDER BY k + v, s NULLS FIRST LIMIT 5 OFFSET 1",
        ),
    ];
    for &(threads, batch) in &CONFIGS {
        let s = session(threads, batch);
        for (star, spelled) in pairs {
            assert_eq!(run(&s, star), run(&s, spelled), "{star}");
            assert_eq!(
                names(&collect(&s, star)),
                names(&collect(&s, spelled)),
                "{star}"
            );
        }
        for (star, spelled) in ordered {
            assert_eq!(run_ordered(&s, star), run_ordered(&s, spelled), "{star}");
        }
    }
}

/// A `*` that `SqlToRel` refuses is refused in its words, never in those
/// of tenon's marker.
#[test]
fn select_star_errors_do_not_name_tenons_wildcard_marker() {
    let s = session(1, 8192);
    for sql in [
        "SELECT *, * FROM a",
        "SELECT *, count(*) FROM a",
        "SELECT *, k FROM a",
        "SELECT * FROM a GROUP BY k",
    ] {
        let e = query_err(&s, sql).to_string();
        assert!(!e.contains("__tenon"), "{sql}: {e}");
    }
    let explain = s.explain("SELECT * FROM a").expect("EXPLAIN").to_text();
    assert!(!explain.contains("__tenon"), "{explain}");
}
