//! `UNNEST` through SQL against a naive row-at-a-time reference: CROSS and
//! LEFT, ordinality on and off, zipped arrays of different lengths, maps
//! with NULL values, NULL list vs NULL element vs empty list, a sliced
//! batch (non-zero offsets), batch sizes 1, 2, 7 and 8192, threads 1 and 4.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, MapBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};

use crate::common::{empty_session, query_err, run};

/// One generated row: an id, two lists, a map (keys `10 * position`).
#[derive(Debug, Clone)]
struct NestedRow {
    id: i64,
    a: Option<Vec<Option<i64>>>,
    b: Option<Vec<Option<i64>>>,
    m: Option<Vec<Option<i64>>>,
}

/// A small deterministic generator (xorshift).
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn list(&mut self) -> Option<Vec<Option<i64>>> {
        match self.next(8) {
            0 => None,
            1 => Some(Vec::new()),
            _ => {
                let len = self.next(6) as usize;
                Some(
                    (0..len)
                        .map(|_| (self.next(5) != 0).then(|| self.next(50) as i64))
                        .collect(),
                )
            }
        }
    }
}

fn rows(seed: u64, n: usize) -> Vec<NestedRow> {
    let mut g = Gen(seed * 2654435761 + 1);
    (0..n)
        .map(|i| NestedRow {
            id: i as i64,
            a: g.list(),
            b: g.list(),
            m: g.list(),
        })
        .collect()
}

fn batch(rows: &[NestedRow]) -> RecordBatch {
    let list = |get: &dyn Fn(&NestedRow) -> &Option<Vec<Option<i64>>>| -> ArrayRef {
        let mut b = ListBuilder::new(Int64Builder::new());
        for r in rows {
            match get(r) {
                None => b.append(false),
                Some(v) => {
                    for e in v {
                        b.values().append_option(*e);
                    }
                    b.append(true);
                }
            }
        }
        Arc::new(b.finish())
    };
    let mut mb = MapBuilder::new(None, Int64Builder::new(), Int64Builder::new());
    for r in rows {
        match &r.m {
            None => mb.append(false).unwrap(),
            Some(v) => {
                for (i, e) in v.iter().enumerate() {
                    mb.keys().append_value(i as i64 * 10);
                    mb.values().append_option(*e);
                }
                mb.append(true).unwrap();
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.id))),
        list(&|r| &r.a),
        list(&|r| &r.b),
        Arc::new(mb.finish()),
    ];
    let fields: Vec<Field> = ["id", "a", "b", "m"]
        .iter()
        .zip(&columns)
        .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn cell(v: Option<i64>) -> String {
    v.map_or_else(|| "NULL".to_string(), |v| v.to_string())
}

/// The reference: per row, the zip of `lists` (NULL past each one's end),
/// a row without elements kept once with NULLs when `left`.
fn reference(
    rows: &[NestedRow],
    lists: &dyn Fn(&NestedRow) -> Vec<Arg>,
    left: bool,
    ordinality: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        // each argument: its elements, each a tuple of output cells
        let args = lists(r);
        let len = args.iter().map(|(_, a)| a.len()).max().unwrap_or(0);
        let emit = if len == 0 && left { 1 } else { len };
        for k in 0..emit {
            let mut cells = vec![r.id.to_string()];
            for (width, a) in &args {
                match a.get(k) {
                    Some(tuple) => cells.extend(tuple.iter().map(|v| cell(*v))),
                    None => cells.extend((0..*width).map(|_| "NULL".to_string())),
                }
            }
            if ordinality {
                cells.push(if len == 0 {
                    "NULL".into()
                } else {
                    (k + 1).to_string()
                });
            }
            out.push(cells.join("|"));
        }
    }
    out.sort();
    out
}

/// One argument of the reference: its column count and its elements, each
/// a tuple of cells.
type Arg = (usize, Vec<Vec<Option<i64>>>);

/// A list's elements as one-cell tuples.
fn single(l: &Option<Vec<Option<i64>>>) -> Arg {
    (
        1,
        l.clone()
            .unwrap_or_default()
            .into_iter()
            .map(|e| vec![e])
            .collect(),
    )
}

/// A map's entries as (key, value) tuples.
fn entries(l: &Option<Vec<Option<i64>>>) -> Arg {
    let e = l
        .clone()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, v)| vec![Some(i as i64 * 10), v])
        .collect();
    (2, e)
}

const SETTINGS: [(usize, usize); 7] =
    [(1, 1), (1, 2), (1, 7), (1, 8192), (4, 1), (4, 7), (4, 8192)];

#[test]
fn unnest_matches_the_reference_in_every_form_and_setting() {
    for seed in 0..4u64 {
        let all = rows(seed, 40);
        // registered sliced: the arrays start at a non-zero offset
        let data = batch(&all).slice(3, all.len() - 3);
        let rows = &all[3..];
        type Lists = fn(&NestedRow) -> Vec<Arg>;
        let cases: Vec<(&str, Lists, bool, bool)> = vec![
            (
                "SELECT id, x FROM t CROSS JOIN UNNEST(t.a) AS u(x)",
                |r| vec![single(&r.a)],
                false,
                false,
            ),
            (
                "SELECT id, x, pos FROM t, UNNEST(a) WITH ORDINALITY AS u(x, pos)",
                |r| vec![single(&r.a)],
                false,
                true,
            ),
            (
                "SELECT id, x FROM t LEFT JOIN UNNEST(t.a) AS u(x) ON TRUE",
                |r| vec![single(&r.a)],
                true,
                false,
            ),
            (
                "SELECT id, x, pos FROM t LEFT JOIN UNNEST(t.a) WITH ORDINALITY AS u(x, pos) \
                 ON TRUE",
                |r| vec![single(&r.a)],
                true,
                true,
            ),
            (
                "SELECT id, x, y, pos FROM t CROSS JOIN UNNEST(t.a, t.b) WITH ORDINALITY \
                 AS u(x, y, pos)",
                |r| vec![single(&r.a), single(&r.b)],
                false,
                true,
            ),
            (
                "SELECT id, x, y FROM t LEFT JOIN UNNEST(t.a, t.b) AS u(x, y) ON TRUE",
                |r| vec![single(&r.a), single(&r.b)],
                true,
                false,
            ),
            (
                "SELECT id, k, v FROM t CROSS JOIN UNNEST(t.m) AS u(k, v)",
                |r| vec![entries(&r.m)],
                false,
                false,
            ),
            (
                "SELECT id, k, v, x, pos FROM t LEFT JOIN UNNEST(t.m, t.a) WITH ORDINALITY \
                 AS u(k, v, x, pos) ON TRUE",
                |r| vec![entries(&r.m), single(&r.a)],
                true,
                true,
            ),
        ];
        for &(threads, batch_size) in &SETTINGS {
            let mut s = empty_session(threads, batch_size);
            s.register_batch("t", data.clone()).unwrap();
            for (sql, lists, left, ordinality) in &cases {
                let expected = reference(rows, lists, *left, *ordinality);
                assert_eq!(
                    run(&s, sql),
                    expected,
                    "{sql} seed={seed} threads={threads} batch={batch_size}"
                );
            }
        }
    }
}

#[test]
fn the_seed_examples_give_the_seed_rows() {
    let s = empty_session(2, 8192);
    assert_eq!(
        run(
            &s,
            "SELECT * FROM (VALUES('order_1')), UNNEST(ARRAY['shirt', 'pants', 'hat'])"
        ),
        vec!["order_1|hat", "order_1|pants", "order_1|shirt"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT * FROM (VALUES ('order_1'), ('order_2')) \
             CROSS JOIN UNNEST(ARRAY['shirt', 'pants', 'hat']) \
             WITH ORDINALITY AS t(product_name, index)"
        ),
        vec![
            "order_1|hat|3",
            "order_1|pants|2",
            "order_1|shirt|1",
            "order_2|hat|3",
            "order_2|pants|2",
            "order_2|shirt|1"
        ]
    );
    assert_eq!(
        run(
            &s,
            "SELECT * FROM (VALUES('order_1')) \
             CROSS JOIN UNNEST(MAP['shirt', 2, 'pants', 1, 'hat', 1]) WITH ORDINALITY"
        ),
        vec!["order_1|hat|1|3", "order_1|pants|1|2", "order_1|shirt|2|1"]
    );
    // the multiset: each element repeated by its count, entries by value
    let multiset = crate::common::run_ordered(
        &s,
        "WITH ProductMultiset AS \
         (SELECT COLLECT(product_name) AS product_multiset \
          FROM (VALUES ('shirt'), ('pants'), ('hat'), ('shirt'), ('hat')) AS t(product_name)) \
         SELECT id, product_name, ordinality \
         FROM (VALUES ('order_1'), ('order_2')) AS t(id), ProductMultiset \
         CROSS JOIN UNNEST(product_multiset) WITH ORDINALITY AS u(product_name, ordinality) \
         ORDER BY id, ordinality",
    );
    assert_eq!(
        multiset,
        vec![
            "order_1|hat|1",
            "order_1|hat|2",
            "order_1|pants|3",
            "order_1|shirt|4",
            "order_1|shirt|5",
            "order_2|hat|1",
            "order_2|hat|2",
            "order_2|pants|3",
            "order_2|shirt|4",
            "order_2|shirt|5"
        ]
    );
}

#[test]
fn an_array_of_rows_unnests_into_one_column_per_field() {
    let s = empty_session(1, 8192);
    assert_eq!(
        run(
            &s,
            "SELECT id, a, b FROM (VALUES (1), (2)) AS t(id) \
             CROSS JOIN UNNEST(ARRAY[named_struct('a', id, 'b', 'x'), \
                                     named_struct('a', id * 10, 'b', 'y')]) AS u(a, b)"
        ),
        vec!["1|10|y", "1|1|x", "2|20|y", "2|2|x"]
    );
}

#[test]
fn element_access_is_one_based_and_out_of_range_is_null() {
    let s = empty_session(1, 8192);
    assert_eq!(
        run(
            &s,
            "SELECT a[1], a[3], a[4], a[-1], a[i], m['k'], m['zz'], cardinality(a) \
             FROM (VALUES (ARRAY[10, 20, 30], MAP['k', 5], 2)) AS t(a, m, i)"
        ),
        vec!["10|30|NULL|NULL|20|5|NULL|3"]
    );
    let e = query_err(&s, "SELECT a[0] FROM (VALUES (ARRAY[1])) AS t(a)").to_string();
    assert!(e.contains("1-based"), "{e}");
}

#[test]
fn bad_expansions_are_clear_errors() {
    let s = empty_session(1, 8192);
    let cases = [
        (
            "SELECT * FROM (VALUES (1)) AS t(x) CROSS JOIN UNNEST(t.x) AS u(y)",
            "Int64, not an array, a map or a multiset",
        ),
        (
            "SELECT * FROM (VALUES (1)) AS t(x), LATERAL TABLE(nope(x)) AS u(y)",
            "no table function `nope` (known: generate_series, range, string_to_table",
        ),
        (
            "SELECT * FROM (VALUES (1)) AS t(x), LATERAL TABLE(generate_series(1, x)) AS u(a, b)",
            "gives 1 column (generate_series), but the alias names 2",
        ),
        (
            "SELECT * FROM (VALUES (1)) AS t(x) \
             LEFT JOIN LATERAL TABLE(generate_series(1, x)) AS u(a) ON u.a > 1",
            "needs `ON TRUE`",
        ),
        (
            "SELECT * FROM (VALUES (1)) AS t(x) \
             CROSS JOIN UNNEST(ARRAY[1]) WITH ORDINALITY AS u(p, p)",
            "two of its columns are named `p`",
        ),
        (
            "SELECT * FROM (VALUES (1)) AS t(x) CROSS JOIN UNNEST(ARRAY[1]) WITH OFFSET",
            "WITH ORDINALITY",
        ),
        (
            "SELECT /*+ BROADCAST(u) */ * FROM (VALUES (1)) AS t(x) \
             CROSS JOIN UNNEST(ARRAY[1]) AS u(y)",
            "names `u`, which is `UNNEST(ARRAY[1])`, not a table",
        ),
    ];
    for (sql, words) in cases {
        let e = query_err(&s, sql).to_string();
        assert!(
            e.contains(words),
            "{sql}\n  error: {e}\n  expected: {words}"
        );
    }
}

#[test]
fn expansions_give_bounded_batches_and_continuing_positions() {
    for &(threads, batch_size) in &[(1usize, 7usize), (4, 1000)] {
        let s = empty_session(threads, batch_size);
        let batches = crate::common::collect(
            &s,
            "SELECT x, pos FROM (VALUES (20000)) AS t(n), \
             LATERAL TABLE(generate_series(1, n)) AS g(x) \
             CROSS JOIN UNNEST(ARRAY[x, x]) WITH ORDINALITY AS u(y, pos)",
        );
        assert!(batches.iter().all(|b| b.num_rows() <= batch_size));
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 40_000);
        let long = crate::common::collect(
            &s,
            "SELECT count(*), sum(pos), max(pos) FROM (VALUES (1)) AS t(n) \
             CROSS JOIN UNNEST(generate_series(1, 30000)) WITH ORDINALITY AS u(x, pos)",
        );
        assert_eq!(
            crate::common::row_strings(&long),
            vec![format!("30000|{}|30000", 30000 * 30001 / 2)]
        );
    }
}

#[test]
fn table_functions_join_each_row_with_its_rows() {
    let s = empty_session(4, 2);
    assert_eq!(
        run(
            &s,
            "SELECT id, g FROM (VALUES (1), (3), (0)) AS t(id), \
             LATERAL TABLE(generate_series(1, id)) AS s(g)"
        ),
        vec!["1|1", "3|1", "3|2", "3|3"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT id, g FROM (VALUES (1), (3), (0)) AS t(id) \
             LEFT JOIN LATERAL TABLE(generate_series(2, id)) AS s(g) ON TRUE"
        ),
        vec!["0|NULL", "1|NULL", "3|2", "3|3"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT p FROM LATERAL TABLE(string_to_table('a,b,,c', ',')) AS s(p)"
        ),
        vec!["", "a", "b", "c"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT d FROM LATERAL TABLE(generate_series(DATE '2024-01-30', DATE '2024-04-30', \
             INTERVAL '1' MONTH)) AS s(d)"
        ),
        vec!["2024-01-30", "2024-02-29", "2024-03-29", "2024-04-29"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT g FROM LATERAL TABLE(generate_series(10, 1, -4)) AS s(g)"
        ),
        vec!["10", "2", "6"]
    );
    let e = query_err(
        &s,
        "SELECT g FROM LATERAL TABLE(generate_series(1, 5, 0)) AS s(g)",
    );
    assert!(e.to_string().contains("step of row 1 is 0"), "{e}");
}
