//! GROUP BY over a filter of a table held in memory, which the aggregate
//! reads narrow: string keys as one-byte dictionary codes, decimals and
//! integers in narrow integer types; and filters that evaluate an
//! expression of a dictionary column once per dictionary value, or compare
//! two narrow columns as they are held. Property test against a naive
//! reference, over batches that are and are not held as dictionaries
//! (a batch holding a string longer than 12 bytes keeps its strings), NULL
//! keys and values, and every [`CONFIGS`] thread count and batch size.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Decimal128Array, Int64Array, RecordBatch, StringViewArray};
use arrow_schema::{DataType, Field, Schema};
use proptest::prelude::*;

use crate::common::*;

/// Key values: short ones (held as a dictionary) and one too long to be.
const FLAGS: [&str; 4] = ["A", "N", "R", "longer than twelve"];

/// One row: two keys (indices into [`FLAGS`]), a price and a discount
/// (unscaled DECIMAL(15, 2)) and a day.
type Row = (Option<usize>, Option<usize>, Option<i64>, Option<i64>, i64);

fn row(long_keys: bool) -> impl Strategy<Value = Row> {
    let flags: usize = if long_keys { 4 } else { 3 };
    (
        prop::option::weighted(0.9, 0..flags),
        prop::option::weighted(0.9, 0..2usize),
        prop::option::weighted(0.9, -50_000i64..5_000_000),
        prop::option::weighted(0.9, 0i64..11),
        0i64..200,
    )
}

fn batches() -> impl Strategy<Value = Vec<Vec<Row>>> {
    prop::collection::vec(
        any::<bool>().prop_flat_map(|long| prop::collection::vec(row(long), 0..40)),
        1..5,
    )
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("f1", DataType::Utf8View, true),
        Field::new("f2", DataType::Utf8View, true),
        Field::new("p", DataType::Decimal128(15, 2), true),
        Field::new("d", DataType::Decimal128(15, 2), true),
        Field::new("day", DataType::Int64, false),
    ]))
}

fn record_batch(rows: &[Row]) -> RecordBatch {
    let flag = |i: Option<usize>| i.map(|i| FLAGS[i]);
    let decimal = |v: Vec<Option<i64>>| {
        Decimal128Array::from(v.into_iter().map(|x| x.map(i128::from)).collect::<Vec<_>>())
            .with_precision_and_scale(15, 2)
            .unwrap()
    };
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(StringViewArray::from_iter(rows.iter().map(|r| flag(r.0)))),
            Arc::new(StringViewArray::from_iter(
                rows.iter().map(|r| r.1.map(|i| ["F", "O"][i])),
            )),
            Arc::new(decimal(rows.iter().map(|r| r.2).collect())),
            Arc::new(decimal(rows.iter().map(|r| r.3).collect())),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.4))),
        ],
    )
    .unwrap()
}

/// `v` at `scale` decimals, as the row strings print decimals.
fn decimal_string(v: i128, scale: u32) -> String {
    let unit = 10i128.pow(scale);
    let sign = if v < 0 { "-" } else { "" };
    let (whole, frac) = (
        v.unsigned_abs() / unit as u128,
        v.unsigned_abs() % unit as u128,
    );
    format!("{sign}{whole}.{frac:0width$}", width = scale as usize)
}

/// count(*), sum(p), sum(p * (1 - d)), count(d) of a group.
type Sums = (i64, Option<i128>, Option<i128>, i64);

/// The naive groups of the rows with `day <= cutoff`, by `key`.
fn reference<K: Ord>(
    tables: &[Vec<Row>],
    cutoff: i64,
    key: impl Fn(&Row) -> K,
) -> BTreeMap<K, Sums> {
    let mut groups: BTreeMap<K, Sums> = BTreeMap::new();
    for r in tables.iter().flatten().filter(|r| r.4 <= cutoff) {
        let g = groups.entry(key(r)).or_insert((0, None, None, 0));
        g.0 += 1;
        if let Some(p) = r.2 {
            g.1 = Some(g.1.unwrap_or(0) + i128::from(p));
            if let Some(d) = r.3 {
                let net = i128::from(p) * (100 - i128::from(d));
                g.2 = Some(g.2.unwrap_or(0) + net);
            }
        }
        g.3 += i64::from(r.3.is_some());
    }
    groups
}

/// A group's row string after its key columns.
fn sums_string((n, p, net, nd): Sums) -> String {
    let text = |v: Option<i128>, scale| v.map_or("NULL".to_string(), |v| decimal_string(v, scale));
    format!("{n}|{}|{}|{nd}", text(p, 2), text(net, 4))
}

/// Sorted row strings of the groups, each key printed by `key`.
fn rows<K>(groups: BTreeMap<K, Sums>, key: impl Fn(&K) -> String) -> Vec<String> {
    let mut rows: Vec<String> = groups
        .into_iter()
        .map(|(k, sums)| format!("{}|{}", key(&k), sums_string(sums)))
        .collect();
    rows.sort();
    rows
}

/// The aggregates of every query.
const SUMS: &str = "count(*), sum(p), sum(p * (1 - d)), count(d)";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn grouping_a_held_table_read_narrow_matches_the_reference(
        tables in batches(),
        cutoff in 0i64..220,
    ) {
        let flag = |i: &Option<usize>, names: &[&str]| i.map_or("NULL".into(), |i| names[i].to_string());
        let by_flags = rows(reference(&tables, cutoff, |r| (r.0, r.1)), |(f1, f2)| {
            format!("{}|{}", flag(f1, &FLAGS), flag(f2, &["F", "O"]))
        });
        // Over 16 groups: the sums' path for many groups.
        let by_day = rows(reference(&tables, cutoff, |r| r.4), |d| d.to_string());
        // No GROUP BY: one row, also over no rows.
        let all = reference(&tables, cutoff, |_| ()).remove(&()).unwrap_or((0, None, None, 0));
        let queries = [
            (format!("SELECT f1, f2, {SUMS} FROM t WHERE day <= {cutoff} GROUP BY f1, f2"), by_flags),
            (format!("SELECT day, {SUMS} FROM t WHERE day <= {cutoff} GROUP BY day"), by_day),
            (format!("SELECT {SUMS} FROM t WHERE day <= {cutoff}"), vec![sums_string(all)]),
        ];
        let batches: Vec<RecordBatch> = tables.iter().map(|t| record_batch(t)).collect();
        for &(threads, batch_size) in &CONFIGS {
            let mut s = empty_session(threads, batch_size);
            s.register_batches("t", schema(), batches.clone()).unwrap();
            for (sql, expected) in &queries {
                prop_assert_eq!(
                    &run(&s, sql),
                    expected,
                    "{} threads={} batch={}",
                    sql,
                    threads,
                    batch_size
                );
            }
        }
    }
}

/// A row's naive test: `None` is SQL's NULL.
type RowTest = fn(&Row) -> Option<bool>;

/// The filters of [`filters_over_a_held_table_match_the_reference`], each
/// with its naive test of a row (SQL's three-valued logic: `None` is
/// NULL, which a WHERE drops).
fn filters() -> Vec<(&'static str, RowTest)> {
    fn f1(r: &Row) -> Option<&'static str> {
        r.0.map(|i| FLAGS[i])
    }
    vec![
        // Evaluated once per dictionary value, then looked up per row.
        ("f1 IN ('A', 'R')", |r| f1(r).map(|f| f == "A" || f == "R")),
        ("f1 NOT IN ('A', 'R')", |r| {
            f1(r).map(|f| f != "A" && f != "R")
        }),
        ("f1 = 'N' OR f1 IS NULL", |r| {
            Some(f1(r).is_none_or(|f| f == "N"))
        }),
        ("f1 LIKE '%R%'", |r| f1(r).map(|f| f.contains('R'))),
        ("f1 < 'N'", |r| f1(r).map(|f| f < "N")),
        ("CASE WHEN f1 = 'A' THEN 1 ELSE 2 END = 2", |r| {
            Some(f1(r) != Some("A"))
        }),
        // Two columns held narrow for one type, in narrow types that may
        // differ (p up to 5,000,000, d up to 10).
        ("p < d", |r| Some(r.2? < r.3?)),
        ("d >= p", |r| Some(r.3? >= r.2?)),
        ("p = d", |r| Some(r.2? == r.3?)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn filters_over_a_held_table_match_the_reference(tables in batches()) {
        let batches: Vec<RecordBatch> = tables.iter().map(|t| record_batch(t)).collect();
        let expected: Vec<Vec<String>> = filters()
            .iter()
            .map(|(_, test)| {
                let kept: Vec<&Row> =
                    tables.iter().flatten().filter(|r| test(r) == Some(true)).collect();
                let sum: i64 = kept.iter().map(|r| r.4).sum();
                let sum = if kept.is_empty() { "NULL".to_string() } else { sum.to_string() };
                vec![format!("{}|{sum}", kept.len())]
            })
            .collect();
        for &(threads, batch_size) in &CONFIGS {
            let mut s = empty_session(threads, batch_size);
            s.register_batches("t", schema(), batches.clone()).unwrap();
            for ((filter, _), want) in filters().iter().zip(&expected) {
                let sql = format!("SELECT count(*), sum(day) FROM t WHERE {filter}");
                prop_assert_eq!(
                    &run(&s, &sql),
                    want,
                    "{} threads={} batch={}",
                    sql,
                    threads,
                    batch_size
                );
            }
        }
    }
}
