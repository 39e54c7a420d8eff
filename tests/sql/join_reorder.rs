//! `join_reorder` (issue 21): off keeps the written join order; on rebuilds
//! chains of INNER joins by estimates, with the same rows (all 22 TPC-H
//! queries against their expected answers) and hints that keep naming
//! tables.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};

use crate::common::*;
use crate::tpch::{compare, expected, output_rows, query_text, session as tpch_session};

#[test]
fn every_tpch_query_gives_its_answer_with_joins_reordered() {
    let mut s = tpch_session();
    s.set("join_reorder", "on").unwrap();
    for n in 1..=22 {
        let q = format!("q{n:02}");
        let out = s
            .query(&query_text(&q))
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        let (columns, want) = expected(&q);
        let (types, got) = output_rows(&out);
        if let Err(m) = compare(&q, &columns, &want, &types, &got) {
            panic!("join_reorder=on: {m}");
        }
    }
}

/// `n` rows of `(k, v)`: `k` = i % keys.
fn table(n: i64, keys: i64) -> RecordBatch {
    RecordBatch::try_from_iter([
        (
            "k",
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % keys))) as _,
        ),
        ("v", Arc::new(Int64Array::from_iter_values(0..n)) as _),
    ])
    .unwrap()
}

#[test]
fn on_joins_the_smallest_result_first_and_hints_keep_their_tables() {
    let mut s = empty_session(2, 8192);
    // big x mid is 100,000 x 1,000 over 100 keys (a million rows); mid x
    // small is 1,000 rows over 10 of them: on joins mid and small first
    s.register_batch("big", table(100_000, 100)).unwrap();
    s.register_batch("mid", table(1_000, 100)).unwrap();
    s.register_batch("small", table(10, 10)).unwrap();
    let sql = "SELECT count(*), sum(big.v), sum(small.v) FROM big JOIN mid ON big.k = mid.k \
               JOIN small ON mid.k = small.k";
    let first_join = |s: &tenon::Session, sql: &str| {
        let text = s.explain(sql).unwrap().to_text();
        text.lines().next().unwrap_or_default().to_string()
    };
    let written = first_join(&s, sql);
    assert!(written.contains("INNER JOIN big, mid"), "{written}");
    let rows = run(&s, sql);
    s.set("join_reorder", "on").unwrap();
    let reordered = first_join(&s, sql);
    assert!(reordered.contains("INNER JOIN mid, small"), "{reordered}");
    assert_eq!(run(&s, sql), rows);
    // SELECT * keeps the written column order
    let star = "SELECT * FROM big JOIN mid ON big.k = mid.k JOIN small ON mid.k = small.k \
                ORDER BY big.v, mid.v, small.v LIMIT 3";
    let on = run(&s, star);
    s.set("join_reorder", "off").unwrap();
    assert_eq!(on, run(&s, star));
    // a hint names a table wherever its join lands
    s.set("join_reorder", "on").unwrap();
    let hinted = format!("SELECT /*+ SHUFFLE_HASH(small) */ {}", &sql[7..]);
    let text = s.explain(&hinted).unwrap().to_text();
    assert!(
        text.contains("SHUFFLE_HASH, build small (hint SHUFFLE_HASH(small) applied)"),
        "{text}"
    );
    assert_eq!(run(&s, &hinted), rows);
    // outer joins end a chain and stay where they are
    let outer = "SELECT count(*) FROM big LEFT JOIN mid ON big.k = mid.k \
                 JOIN small ON mid.k = small.k";
    let on = run(&s, outer);
    s.set("join_reorder", "off").unwrap();
    assert_eq!(on, run(&s, outer));
    assert!(s.set("join_reorder", "sometimes").is_err());
}
