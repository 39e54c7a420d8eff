//! Hash aggregation against a naive row-at-a-time oracle: NULL keys and
//! values, empty inputs, many groups, batch sizes 1 to 8192, 1 and 4
//! threads, DISTINCT, FILTER, decimal types, string / date / float keys,
//! overflow, SELECT DISTINCT, unsupported functions.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    RecordBatch, StringArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion_common::ScalarValue;
use datafusion_expr::LogicalPlan;
use datafusion_expr::logical_plan::{Aggregate, Distinct};
use tenon_planner::exec::{ExecError, HashAggregate};
use tenon_planner::expr::{ExprError, QueryContext};
use tenon_planner::sql::Catalog;

/// Table `t`: k Int64, s Utf8, d Date32, v Int64, i Int32, u UInt32,
/// f Float64, m Decimal128(10, 2), b Boolean.
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("d", DataType::Date32, true),
        Field::new("v", DataType::Int64, true),
        Field::new("i", DataType::Int32, true),
        Field::new("u", DataType::UInt32, true),
        Field::new("f", DataType::Float64, true),
        Field::new("m", DataType::Decimal128(10, 2), true),
        Field::new("b", DataType::Boolean, true),
    ]))
}

/// One row of `t`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Row {
    pub(crate) k: Option<i64>,
    pub(crate) s: Option<String>,
    pub(crate) d: Option<i32>,
    pub(crate) v: Option<i64>,
    pub(crate) i: Option<i32>,
    pub(crate) u: Option<u32>,
    pub(crate) f: Option<f64>,
    pub(crate) m: Option<i128>,
    pub(crate) b: Option<bool>,
}

fn batch(rows: &[Row]) -> RecordBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.k))),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.s.clone()))),
        Arc::new(Date32Array::from_iter(rows.iter().map(|r| r.d))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.v))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.i))),
        Arc::new(UInt32Array::from_iter(rows.iter().map(|r| r.u))),
        Arc::new(Float64Array::from_iter(rows.iter().map(|r| r.f))),
        Arc::new(
            Decimal128Array::from_iter(rows.iter().map(|r| r.m))
                .with_precision_and_scale(10, 2)
                .unwrap(),
        ),
        Arc::new(BooleanArray::from_iter(rows.iter().map(|r| r.b))),
    ];
    RecordBatch::try_new(schema(), columns).unwrap()
}

/// `rows` in batches of `size` rows.
pub(crate) fn batches(rows: &[Row], size: usize) -> Vec<RecordBatch> {
    rows.chunks(size.max(1)).map(batch).collect()
}

fn find_aggregate(plan: &LogicalPlan) -> Option<Aggregate> {
    if let LogicalPlan::Aggregate(a) = plan {
        return Some(a.clone());
    }
    plan.inputs().into_iter().find_map(find_aggregate)
}

fn aggregate_node(sql: &str) -> Aggregate {
    let mut catalog = Catalog::new();
    catalog.register_table("t", schema());
    let planned = catalog.plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    find_aggregate(&planned.plan).unwrap_or_else(|| panic!("no Aggregate in {}", planned.plan))
}

pub(crate) fn compile(sql: &str) -> Result<HashAggregate, ExecError> {
    HashAggregate::try_new(&aggregate_node(sql), &QueryContext::new())
}

/// Runs `agg` on a pool of `threads` threads.
pub(crate) fn run_on(
    agg: &HashAggregate,
    input: &[RecordBatch],
    batch_size: usize,
    threads: usize,
) -> Result<Vec<RecordBatch>, ExecError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| agg.run(input, batch_size))
}

/// Plans `sql`, runs its aggregate over `rows` (input batches of
/// `input_size` rows, output of at most `batch_size`), checks the output
/// schema and batch sizes, and returns the rows sorted, as text.
pub(crate) fn run_sql(
    sql: &str,
    rows: &[Row],
    input_size: usize,
    batch_size: usize,
    threads: usize,
) -> Vec<Vec<String>> {
    let node = aggregate_node(sql);
    let agg = HashAggregate::try_new(&node, &QueryContext::new())
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let out = run_on(&agg, &batches(rows, input_size), batch_size, threads)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    for b in &out {
        assert_eq!(b.schema().as_ref(), node.schema.as_arrow(), "{sql}");
        assert!(
            b.num_rows() <= batch_size && b.num_rows() > 0,
            "{sql}: batch of {}",
            b.num_rows()
        );
    }
    text_rows(&out)
}

/// The rows of `batches` as text (NULL as "NULL"), sorted.
pub(crate) fn text_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            rows.push(
                b.columns()
                    .iter()
                    .map(|c| ScalarValue::try_from_array(c, r).unwrap().to_string())
                    .collect(),
            );
        }
    }
    rows.sort();
    rows
}

pub(crate) fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "NULL".to_string(), |v| v.to_string())
}

/// The naive oracle of `SELECT k, count(*), count(v), sum(v), min(v), max(v) ... GROUP BY k`.
pub(crate) fn naive_by_k(rows: &[Row]) -> Vec<Vec<String>> {
    let mut groups: BTreeMap<Option<i64>, Vec<Option<i64>>> = BTreeMap::new();
    for r in rows {
        groups.entry(r.k).or_default().push(r.v);
    }
    let mut out: Vec<Vec<String>> = groups
        .into_iter()
        .map(|(k, vs)| {
            let present: Vec<i64> = vs.iter().flatten().copied().collect();
            let sum = (!present.is_empty()).then(|| present.iter().sum::<i64>());
            vec![
                opt(k),
                vs.len().to_string(),
                present.len().to_string(),
                opt(sum),
                opt(present.iter().min()),
                opt(present.iter().max()),
            ]
        })
        .collect();
    out.sort();
    out
}

pub(crate) const BY_K: &str =
    "SELECT k, count(*), count(v), sum(v), min(v), max(v) FROM t GROUP BY k";

/// Deterministic rows: `groups` keys (every 7th NULL), values with NULLs.
fn rows(n: usize, groups: i64) -> Vec<Row> {
    (0..n)
        .map(|i| {
            let i = i as i64;
            Row {
                k: (i % 7 != 3).then_some((i * 31) % groups),
                v: (i % 5 != 0).then_some(i * 3 - 100),
                ..Row::default()
            }
        })
        .collect()
}

#[test]
fn group_by_with_null_keys_and_values_matches_naive() {
    let data = rows(500, 13);
    let expected = naive_by_k(&data);
    for (input_size, batch_size, threads) in [(500, 8192, 1), (7, 3, 4), (1, 1, 2), (64, 8192, 4)] {
        assert_eq!(
            run_sql(BY_K, &data, input_size, batch_size, threads),
            expected,
            "input {input_size}, batch {batch_size}, threads {threads}"
        );
    }
}

#[test]
fn many_groups_at_batch_sizes_1_and_8192() {
    let data = rows(20_000, 10_000);
    let expected = naive_by_k(&data);
    assert!(expected.len() > 9_000);
    assert_eq!(run_sql(BY_K, &data, 8192, 8192, 4), expected);
    assert_eq!(run_sql(BY_K, &data, 1, 8192, 2), expected);
    assert_eq!(run_sql(BY_K, &data, 1000, 1, 4), expected);
}

#[test]
fn global_aggregate_over_empty_input_is_one_row() {
    let sql = "SELECT count(*), count(v), sum(v), min(v), max(v), avg(v), count(DISTINCT v) FROM t";
    let expected = vec![vec!["0", "0", "NULL", "NULL", "NULL", "NULL", "0"]];
    assert_eq!(run_sql(sql, &[], 8192, 8192, 2), expected);
    // batches without rows are no different
    let node = aggregate_node(sql);
    let agg = HashAggregate::try_new(&node, &QueryContext::new()).unwrap();
    let out = agg.run(&[batch(&[]), batch(&[])], 10).unwrap();
    assert_eq!(text_rows(&out), expected);
}

#[test]
fn global_aggregate_of_only_nulls_is_null_but_counts_rows() {
    let data = vec![Row::default(); 100];
    let sql = "SELECT count(*), count(v), sum(v), min(s), max(f), avg(m) FROM t";
    let expected = vec![vec!["100", "0", "NULL", "NULL", "NULL", "NULL"]];
    assert_eq!(run_sql(sql, &data, 7, 8192, 4), expected);
}

#[test]
fn group_by_over_empty_input_has_no_rows() {
    assert!(run_sql(BY_K, &[], 8192, 8192, 2).is_empty());
}

#[test]
fn global_aggregate_matches_naive() {
    let data = rows(1000, 50);
    let present: Vec<i64> = data.iter().filter_map(|r| r.v).collect();
    let expected = vec![vec![
        "1000".to_string(),
        present.len().to_string(),
        present.iter().sum::<i64>().to_string(),
        present.iter().min().unwrap().to_string(),
        present.iter().max().unwrap().to_string(),
    ]];
    let sql = "SELECT count(*), count(v), sum(v), min(v), max(v) FROM t";
    for (input_size, threads) in [(1000, 1), (1, 2), (33, 4)] {
        assert_eq!(run_sql(sql, &data, input_size, 8192, threads), expected);
    }
}

#[test]
fn count_sum_avg_distinct_with_and_without_group_by() {
    let data: Vec<Row> = (0..400)
        .map(|i| Row {
            k: Some(i % 4),
            v: (i % 9 != 0).then_some(i % 10),
            ..Row::default()
        })
        .collect();
    let mut per_k: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for r in &data {
        let set = per_k.entry(r.k.unwrap()).or_default();
        if let Some(v) = r.v {
            set.insert(v);
        }
    }
    let expected: Vec<Vec<String>> = per_k
        .iter()
        .map(|(k, set)| {
            let sum: i64 = set.iter().sum();
            vec![
                k.to_string(),
                set.len().to_string(),
                sum.to_string(),
                (sum as f64 / set.len() as f64).to_string(),
            ]
        })
        .collect();
    let sql = "SELECT k, count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT v) FROM t GROUP BY k";
    for (input_size, threads) in [(400, 1), (3, 4), (1, 2)] {
        assert_eq!(run_sql(sql, &data, input_size, 8192, threads), expected);
    }
    let all: BTreeSet<i64> = data.iter().filter_map(|r| r.v).collect();
    let sql = "SELECT count(DISTINCT v), sum(DISTINCT v), count(v) FROM t";
    let expected = vec![vec![
        all.len().to_string(),
        all.iter().sum::<i64>().to_string(),
        data.iter().filter(|r| r.v.is_some()).count().to_string(),
    ]];
    for (input_size, threads) in [(400, 1), (5, 4)] {
        assert_eq!(run_sql(sql, &data, input_size, 8192, threads), expected);
    }
}

#[test]
fn output_types_follow_datafusion_signatures() {
    let node = aggregate_node(
        "SELECT count(*), sum(i), sum(u), sum(f), sum(m), avg(i), avg(m), min(m), max(s), min(d) FROM t",
    );
    let types: Vec<DataType> = node
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    assert_eq!(
        types,
        vec![
            DataType::Int64,
            DataType::Int64,
            DataType::UInt64,
            DataType::Float64,
            DataType::Decimal128(20, 2),
            DataType::Float64,
            DataType::Decimal128(14, 6),
            DataType::Decimal128(10, 2),
            DataType::Utf8,
            DataType::Date32,
        ]
    );
    // run_sql checks the output batches against the schema
    let data: Vec<Row> = (0..10)
        .map(|x| Row {
            i: Some(x),
            u: Some(x as u32 * 2),
            f: Some(f64::from(x) / 2.0),
            m: Some(i128::from(x) * 101), // 1.01 * x
            s: Some(format!("s{x}")),
            d: Some(9000 + x),
            ..Row::default()
        })
        .collect();
    let out = run_sql(
        "SELECT count(*), sum(i), sum(u), sum(f), sum(m), avg(i), avg(m), min(m), max(s), min(d) FROM t",
        &data,
        3,
        8192,
        2,
    );
    assert_eq!(
        out,
        vec![vec![
            "10",
            "45",
            "90",
            "22.5",
            "45.45",
            "4.5",
            "4.545000",
            "0.00",
            "s9",
            "1994-08-23"
        ]]
    );
}

#[test]
fn decimal_average_truncates_like_datafusion() {
    // 0.01 + 0.01 + 0.02 = 0.04 / 3 = 0.013333(33..) at scale 6
    let data: Vec<Row> = [1, 1, 2]
        .iter()
        .map(|&m| Row {
            m: Some(m),
            ..Row::default()
        })
        .collect();
    assert_eq!(
        run_sql("SELECT avg(m) FROM t", &data, 1, 10, 2),
        vec![vec!["0.013333"]]
    );
    let data: Vec<Row> = [-1, -1, -2]
        .iter()
        .map(|&m| Row {
            m: Some(m),
            ..Row::default()
        })
        .collect();
    assert_eq!(
        run_sql("SELECT avg(m) FROM t", &data, 1, 10, 2),
        vec![vec!["-0.013333"]]
    );
}

#[test]
fn string_date_and_composite_group_keys() {
    let data: Vec<Row> = (0..300)
        .map(|i| Row {
            s: (i % 11 != 0).then(|| format!("name-{}", i % 6)),
            d: (i % 13 != 0).then_some(10_000 + (i % 4)),
            v: Some(i64::from(i)),
            ..Row::default()
        })
        .collect();
    let mut by_s: BTreeMap<Option<String>, (usize, i64)> = BTreeMap::new();
    let mut by_sd: BTreeMap<(Option<String>, Option<i32>), usize> = BTreeMap::new();
    for r in &data {
        let e = by_s.entry(r.s.clone()).or_default();
        e.0 += 1;
        e.1 += r.v.unwrap();
        *by_sd.entry((r.s.clone(), r.d)).or_default() += 1;
    }
    let mut expected: Vec<Vec<String>> = by_s
        .iter()
        .map(|(s, (c, sum))| vec![opt(s.clone()), c.to_string(), sum.to_string()])
        .collect();
    expected.sort();
    assert_eq!(
        run_sql(
            "SELECT s, count(*), sum(v) FROM t GROUP BY s",
            &data,
            17,
            8192,
            4
        ),
        expected
    );

    let date = |d: i32| ScalarValue::Date32(Some(d)).to_string();
    let mut expected: Vec<Vec<String>> = by_sd
        .iter()
        .map(|((s, d), c)| vec![opt(s.clone()), d.map_or("NULL".into(), date), c.to_string()])
        .collect();
    expected.sort();
    assert_eq!(
        run_sql(
            "SELECT s, d, count(*) FROM t GROUP BY s, d",
            &data,
            5,
            8192,
            4
        ),
        expected
    );
    assert_eq!(
        run_sql(
            "SELECT s, d, count(*) FROM t GROUP BY s, d",
            &data,
            300,
            7,
            1
        ),
        expected
    );
}

#[test]
fn float_keys_group_zeros_together_and_nans_together() {
    let fs = [0.0, -0.0, f64::NAN, -f64::NAN, 1.5, 0.0];
    let data: Vec<Row> = fs
        .iter()
        .map(|&f| Row {
            f: Some(f),
            ..Row::default()
        })
        .collect();
    let out = run_sql("SELECT f, count(*) FROM t GROUP BY f", &data, 1, 10, 2);
    assert_eq!(
        out,
        vec![vec!["0", "3"], vec!["1.5", "1"], vec!["NaN", "2"]]
    );
}

#[test]
fn min_max_over_strings_booleans_floats() {
    let data: Vec<Row> = (0..50)
        .map(|i| Row {
            k: Some(i % 2),
            s: (i % 3 != 0).then(|| format!("v{:02}", (i * 7) % 50)),
            b: (i % 4 != 0).then_some(i % 5 == 0),
            f: Some(f64::from(i as i32) - 20.0),
            ..Row::default()
        })
        .collect();
    let mut expected = Vec::new();
    for k in 0..2 {
        let g: Vec<&Row> = data.iter().filter(|r| r.k == Some(k)).collect();
        let s: Vec<&String> = g.iter().filter_map(|r| r.s.as_ref()).collect();
        let b: Vec<bool> = g.iter().filter_map(|r| r.b).collect();
        let f: Vec<f64> = g.iter().filter_map(|r| r.f).collect();
        expected.push(vec![
            k.to_string(),
            s.iter().min().unwrap().to_string(),
            s.iter().max().unwrap().to_string(),
            b.iter().all(|&x| x).to_string(),
            b.iter().any(|&x| x).to_string(),
            f.iter().copied().fold(f64::INFINITY, f64::min).to_string(),
            f.iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max)
                .to_string(),
        ]);
    }
    let sql = "SELECT k, min(s), max(s), min(b), max(b), min(f), max(f) FROM t GROUP BY k";
    assert_eq!(run_sql(sql, &data, 3, 8192, 4), expected);
    let sql = "SELECT min(s), max(s), min(b), max(b), min(f), max(f) FROM t";
    let all: Vec<Vec<String>> = vec![{
        let s: Vec<&String> = data.iter().filter_map(|r| r.s.as_ref()).collect();
        vec![
            s.iter().min().unwrap().to_string(),
            s.iter().max().unwrap().to_string(),
            "false".into(),
            "true".into(),
            "-20".into(),
            "29".into(),
        ]
    }];
    assert_eq!(run_sql(sql, &data, 7, 8192, 4), all);
}

#[test]
fn filter_clause_counts_only_matching_rows_and_guards_the_argument() {
    let data: Vec<Row> = (0..100)
        .map(|i| Row {
            k: Some(i % 3),
            v: Some(i % 5),
            ..Row::default()
        })
        .collect();
    let sql = "SELECT k, count(*) FILTER (WHERE v > 2), sum(100 / v) FILTER (WHERE v <> 0) FROM t GROUP BY k";
    let mut expected = Vec::new();
    for k in 0..3 {
        let g: Vec<i64> = data
            .iter()
            .filter(|r| r.k == Some(k))
            .map(|r| r.v.unwrap())
            .collect();
        let count = g.iter().filter(|&&v| v > 2).count();
        let sum: i64 = g.iter().filter(|&&v| v != 0).map(|v| 100 / v).sum();
        expected.push(vec![k.to_string(), count.to_string(), sum.to_string()]);
    }
    assert_eq!(run_sql(sql, &data, 9, 8192, 4), expected);
    let sql = "SELECT count(*) FILTER (WHERE v > 2), sum(100 / v) FILTER (WHERE v <> 0) FROM t";
    let v: Vec<i64> = data.iter().map(|r| r.v.unwrap()).collect();
    let expected = vec![vec![
        v.iter().filter(|&&x| x > 2).count().to_string(),
        v.iter()
            .filter(|&&x| x != 0)
            .map(|x| 100 / x)
            .sum::<i64>()
            .to_string(),
    ]];
    assert_eq!(run_sql(sql, &data, 9, 8192, 4), expected);
}

pub(crate) fn assert_overflow(result: Result<Vec<RecordBatch>, ExecError>) {
    match result {
        Err(ExecError::Expr(ExprError::Overflow { expr, .. })) => {
            assert!(expr.contains("sum"), "{expr}")
        }
        other => panic!("expected an overflow error, got {other:?}"),
    }
}

#[test]
fn integer_sum_overflow_is_an_error() {
    let data: Vec<Row> = [i64::MAX, 1, 5]
        .iter()
        .map(|&v| Row {
            k: Some(1),
            v: Some(v),
            ..Row::default()
        })
        .collect();
    for sql in ["SELECT sum(v) FROM t", "SELECT k, sum(v) FROM t GROUP BY k"] {
        let agg = compile(sql).unwrap();
        assert_overflow(run_on(&agg, &batches(&data, 3), 10, 1));
        assert_overflow(run_on(&agg, &batches(&data, 1), 10, 1));
    }
    // two partial sums that each fit, but not together (combine step)
    // 4 chunks of 64 rows: each partial sum is 0.3 * i64::MAX, the total 1.2
    let data: Vec<Row> = (0..256)
        .map(|i| Row {
            k: Some(1),
            v: Some(if i < 240 { i64::MAX / 200 } else { 0 }),
            ..Row::default()
        })
        .collect();
    let agg = compile("SELECT k, sum(v) FROM t GROUP BY k").unwrap();
    assert_overflow(run_on(&agg, &batches(&data, 64), 10, 4));
}

#[test]
fn decimal_sum_overflow_is_an_error() {
    let mut catalog = Catalog::new();
    let schema = Arc::new(Schema::new(vec![Field::new(
        "m",
        DataType::Decimal128(38, 0),
        true,
    )]));
    catalog.register_table("w", schema.clone());
    let planned = catalog.plan("SELECT sum(m) FROM w").unwrap();
    let node = find_aggregate(&planned.plan).unwrap();
    let agg = HashAggregate::try_new(&node, &QueryContext::new()).unwrap();
    let big = 10_i128.pow(38) - 1;
    let column = Decimal128Array::from(vec![big, 1])
        .with_precision_and_scale(38, 0)
        .unwrap();
    let input = RecordBatch::try_new(schema, vec![Arc::new(column)]).unwrap();
    assert_overflow(agg.run(&[input], 10));
}

#[test]
fn unsupported_functions_name_themselves_and_what_is_supported() {
    let err = compile("SELECT k, stddev(v) FROM t GROUP BY k").unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ExecError::Unsupported(_)), "{text}");
    assert!(
        text.contains("stddev") && text.contains("count") && text.contains("array_agg"),
        "{text}"
    );
}

#[test]
fn select_distinct_groups_every_column() {
    let mut catalog = Catalog::new();
    catalog.register_table("t", schema());
    let planned = catalog.plan("SELECT DISTINCT k, s FROM t").unwrap();
    let LogicalPlan::Distinct(Distinct::All(input)) = &planned.plan else {
        panic!("{}", planned.plan)
    };
    let agg = HashAggregate::distinct(input.schema()).unwrap();
    assert_eq!(agg.describe(), "Aggregate (DISTINCT): group=[t.k, t.s]");
    let data: Vec<Row> = (0..200)
        .map(|i| Row {
            k: (i % 5 != 0).then_some(i % 3),
            s: (i % 7 != 0).then(|| format!("x{}", i % 2)),
            ..Row::default()
        })
        .collect();
    let expected: BTreeSet<Vec<String>> = data
        .iter()
        .map(|r| vec![opt(r.k), opt(r.s.clone())])
        .collect();
    // the Distinct's input is the projection (k, s)
    let input: Vec<RecordBatch> = batches(&data, 9)
        .iter()
        .map(|b| b.project(&[0, 1]).unwrap())
        .collect();
    let out = run_on(&agg, &input, 4, 4).unwrap();
    assert!(out.iter().all(|b| b.num_rows() <= 4));
    let got: Vec<Vec<String>> = text_rows(&out);
    assert_eq!(got, expected.into_iter().collect::<Vec<_>>());
}

#[test]
fn describe_names_groups_and_aggregates() {
    let agg = compile("SELECT k, count(*), sum(v), avg(DISTINCT v) FROM t GROUP BY k").unwrap();
    assert_eq!(
        agg.describe(),
        "Aggregate: group=[t.k] aggs=[count(*), sum(t.v), avg(DISTINCT t.v)]"
    );
    let agg = compile("SELECT count(*) FROM t").unwrap();
    assert_eq!(agg.describe(), "Aggregate: group=[] aggs=[count(*)]");
}

#[test]
fn group_by_expressions_and_int32_sums_are_coerced() {
    let data: Vec<Row> = (0..60)
        .map(|x| Row {
            k: Some(x),
            i: Some(i32::MAX),
            ..Row::default()
        })
        .collect();
    // sum over Int32 is an Int64 sum: no overflow at 2^31
    let out = run_sql(
        "SELECT k % 2, sum(i) FROM t GROUP BY k % 2",
        &data,
        7,
        8192,
        4,
    );
    let sum = (30 * i64::from(i32::MAX)).to_string();
    assert_eq!(
        out,
        vec![
            vec!["0".to_string(), sum.clone()],
            vec!["1".to_string(), sum]
        ]
    );
}
