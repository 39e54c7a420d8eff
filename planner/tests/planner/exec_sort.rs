//! ORDER BY against a naive stable sort: ASC / DESC, NULLS FIRST / LAST,
//! several keys, expression keys, stability, top-k equal to sort + limit,
//! batch sizes 1 to 8192, empty inputs, LIMIT / OFFSET.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion_common::ScalarValue;
use datafusion_expr::LogicalPlan;
use datafusion_expr::logical_plan::Sort;
use proptest::prelude::*;
use tenon_planner::exec::SortExec;
use tenon_planner::expr::QueryContext;
use tenon_planner::sql::Catalog;

/// Table `t`: id Int64 (row number, for stability), a Int64, b Int64, s Utf8.
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]))
}

type Row = (Option<i64>, Option<i64>, Option<String>);

fn batch(first_id: usize, rows: &[Row]) -> RecordBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(
            (first_id..first_id + rows.len()).map(|i| i as i64),
        )),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.0))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.1))),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.2.clone()))),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

fn batches(rows: &[Row], size: usize) -> Vec<RecordBatch> {
    rows.chunks(size.max(1))
        .enumerate()
        .map(|(i, c)| batch(i * size.max(1), c))
        .collect()
}

fn find_sort(plan: &LogicalPlan) -> Option<Sort> {
    if let LogicalPlan::Sort(s) = plan {
        return Some(s.clone());
    }
    plan.inputs().into_iter().find_map(find_sort)
}

/// The Sort node of `SELECT * FROM t ORDER BY {order}`.
fn sort_node(order: &str) -> Sort {
    let mut catalog = Catalog::new();
    catalog.register_table("t", schema());
    let sql = format!("SELECT * FROM t ORDER BY {order}");
    let planned = catalog.plan(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    find_sort(&planned.plan).unwrap_or_else(|| panic!("no Sort in {}", planned.plan))
}

fn sort_exec(order: &str, fetch: Option<usize>) -> SortExec {
    let node = sort_node(order);
    SortExec::try_new(&node.expr, node.input.schema(), fetch, &QueryContext::new()).unwrap()
}

/// The `id`s of the output rows, in order, after checking batch sizes.
fn run_ids(sort: &SortExec, input: &[RecordBatch], batch_size: usize, threads: usize) -> Vec<i64> {
    let out = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| sort.run(input, batch_size))
        .unwrap();
    let mut ids = Vec::new();
    for b in &out {
        assert!(b.num_rows() > 0 && b.num_rows() <= batch_size);
        assert_eq!(b.schema(), schema());
        let col = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        ids.extend(col.values().iter().copied());
    }
    ids
}

/// One sort key of the oracle: which value, ASC?, NULLS FIRST?
type Key = (fn(&Row) -> ScalarValue, bool, bool);

fn key_a(r: &Row) -> ScalarValue {
    ScalarValue::Int64(r.0)
}
fn key_b(r: &Row) -> ScalarValue {
    ScalarValue::Int64(r.1)
}
fn key_s(r: &Row) -> ScalarValue {
    ScalarValue::Utf8(r.2.clone())
}
fn key_a_plus_b(r: &Row) -> ScalarValue {
    ScalarValue::Int64(r.0.zip(r.1).map(|(a, b)| a + b))
}

/// The naive oracle: row ids in a stable sort by `keys`.
fn naive(rows: &[Row], keys: &[Key]) -> Vec<i64> {
    let mut ids: Vec<usize> = (0..rows.len()).collect();
    ids.sort_by(|&x, &y| {
        for (key, asc, nulls_first) in keys {
            let (vx, vy) = (key(&rows[x]), key(&rows[y]));
            let ord = match (vx.is_null(), vy.is_null()) {
                (true, true) => Ordering::Equal,
                (true, false) if *nulls_first => Ordering::Less,
                (true, false) => Ordering::Greater,
                (false, true) if *nulls_first => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    let o = vx.partial_cmp(&vy).unwrap();
                    if *asc { o } else { o.reverse() }
                }
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        Ordering::Equal
    });
    ids.into_iter().map(|i| i as i64).collect()
}

fn data(n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| {
            let i = i as i64;
            (
                (i % 6 != 2).then_some((i * 37) % 11 - 5),
                (i % 5 != 1).then_some((i * 13) % 7),
                (i % 9 != 4).then(|| format!("s{}", (i * 7) % 10)),
            )
        })
        .collect()
}

#[test]
fn sql_defaults_are_asc_nulls_last_and_desc_nulls_first() {
    let node = sort_node("a, b DESC");
    let flags: Vec<(bool, bool)> = node.expr.iter().map(|e| (e.asc, e.nulls_first)).collect();
    assert_eq!(flags, vec![(true, false), (false, true)]);
}

#[test]
fn one_key_each_direction_and_null_placement() {
    let rows = data(300);
    let cases: [(&str, Key); 4] = [
        ("a ASC NULLS LAST", (key_a, true, false)),
        ("a ASC NULLS FIRST", (key_a, true, true)),
        ("a DESC NULLS FIRST", (key_a, false, true)),
        ("a DESC NULLS LAST", (key_a, false, false)),
    ];
    for (order, key) in cases {
        let sort = sort_exec(order, None);
        let expected = naive(&rows, &[key]);
        for (input_size, batch_size, threads) in [(300, 8192, 1), (1, 7, 4), (13, 1, 2)] {
            let got = run_ids(&sort, &batches(&rows, input_size), batch_size, threads);
            assert_eq!(
                got, expected,
                "{order}, input {input_size}, batch {batch_size}"
            );
        }
    }
}

#[test]
fn several_keys_strings_and_stability() {
    let rows = data(500);
    let sort = sort_exec("s DESC NULLS FIRST, b ASC NULLS FIRST", None);
    // equal (s, b) pairs abound: the id order among them is the stability check
    let expected = naive(&rows, &[(key_s, false, true), (key_b, true, true)]);
    for (input_size, threads) in [(500, 1), (3, 4), (64, 2)] {
        assert_eq!(
            run_ids(&sort, &batches(&rows, input_size), 8192, threads),
            expected
        );
    }
}

#[test]
fn expression_keys_are_evaluated() {
    let rows = data(200);
    let sort = sort_exec("a + b DESC NULLS LAST, id", None);
    let expected = naive(&rows, &[(key_a_plus_b, false, false)]);
    assert_eq!(run_ids(&sort, &batches(&rows, 9), 8192, 2), expected);
}

#[test]
fn top_k_equals_full_sort_then_limit() {
    let rows = data(1000);
    let keys: [Key; 2] = [(key_a, false, true), (key_s, true, false)];
    let full = naive(&rows, &keys);
    for k in [1, 3, 10, 99, 250, 999, 1000, 5000] {
        let sort = sort_exec("a DESC NULLS FIRST, s", Some(k));
        assert!(sort.describe().ends_with(&format!("fetch={k}")));
        for (input_size, batch_size, threads) in
            [(1000, 8192, 1), (1, 8192, 4), (7, 2, 4), (100, 5, 2)]
        {
            let got = run_ids(&sort, &batches(&rows, input_size), batch_size, threads);
            assert_eq!(
                got,
                full[..k.min(1000)],
                "k {k}, input {input_size}, threads {threads}"
            );
        }
    }
}

#[test]
fn empty_input_and_fetch_zero_give_no_batches() {
    let sort = sort_exec("a", None);
    assert!(sort.run(&[], 10).unwrap().is_empty());
    assert!(sort.run(&[batch(0, &[])], 10).unwrap().is_empty());
    let sort = sort_exec("a", Some(0));
    assert!(sort.run(&batches(&data(10), 3), 10).unwrap().is_empty());
}

#[test]
fn describe_shows_keys_and_fetch() {
    assert_eq!(
        sort_exec("a DESC, s NULLS FIRST", Some(5)).describe(),
        "Sort: t.a DESC NULLS FIRST, t.s ASC NULLS FIRST fetch=5"
    );
    assert_eq!(sort_exec("b", None).describe(), "Sort: t.b ASC NULLS LAST");
}

#[test]
fn limit_skips_and_fetches_across_batches() {
    let rows = data(20);
    let ids = |out: Vec<RecordBatch>| -> Vec<i64> {
        out.iter()
            .flat_map(|b| {
                let c = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                c.values().to_vec()
            })
            .collect()
    };
    let input = batches(&rows, 3);
    assert_eq!(
        ids(SortExec::limit(input.clone(), 4, Some(5))),
        vec![4, 5, 6, 7, 8]
    );
    assert_eq!(ids(SortExec::limit(input.clone(), 0, Some(2))), vec![0, 1]);
    assert_eq!(ids(SortExec::limit(input.clone(), 18, None)), vec![18, 19]);
    assert!(SortExec::limit(input.clone(), 25, None).is_empty());
    assert!(SortExec::limit(input.clone(), 0, Some(0)).is_empty());
    assert_eq!(ids(SortExec::limit(input, 0, None)).len(), 20);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn sort_matches_naive_stable_sort(
        rows in prop::collection::vec(
            (prop::option::weighted(0.8, -5i64..5), prop::option::weighted(0.8, -3i64..3),
             prop::option::weighted(0.9, "[a-c]{0,2}")),
            0..200,
        ),
        a_asc in any::<bool>(),
        a_nulls_first in any::<bool>(),
        s_asc in any::<bool>(),
        s_nulls_first in any::<bool>(),
        fetch in prop::option::of(0usize..60),
        input_size in 1usize..50,
        batch_size in prop::sample::select(vec![1usize, 2, 7, 8192]),
        threads in prop::sample::select(vec![1usize, 4]),
    ) {
        let dir = |asc: bool, first: bool| {
            format!("{} NULLS {}", if asc { "ASC" } else { "DESC" }, if first { "FIRST" } else { "LAST" })
        };
        let order = format!("a {}, s {}", dir(a_asc, a_nulls_first), dir(s_asc, s_nulls_first));
        let sort = sort_exec(&order, fetch);
        let mut expected = naive(&rows, &[(key_a, a_asc, a_nulls_first), (key_s, s_asc, s_nulls_first)]);
        if let Some(k) = fetch {
            expected.truncate(k);
        }
        prop_assert_eq!(run_ids(&sort, &batches(&rows, input_size), batch_size, threads), expected);
    }
}
