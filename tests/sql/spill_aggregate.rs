//! GROUP BY under a memory limit spills the rows whose groups do not fit
//! and aggregates them a partition at a time (issue 20), with the rows of
//! the unlimited run.
//!
//! The property test draws a table of up to 3,000 rows (integer keys of
//! few or many values, string keys, float keys with NaN and -0.0, NULLs in
//! each), a GROUP BY over one or two of them with count, sum, min, max,
//! avg and count(DISTINCT), a (threads, batch size) setting and a limit of
//! 1%, 10% or 50% of the table's size (at least 16KB).

use std::sync::Arc;

use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use proptest::prelude::*;

use crate::common::*;

fn table(n: usize, seed: u64) -> RecordBatch {
    let mut next = xorshift(seed);
    let (mut few, mut many, mut s, mut f, mut v) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..n {
        let r = next();
        few.push((!r.is_multiple_of(13)).then_some((r >> 8) as i64 % 7));
        many.push((!r.is_multiple_of(17)).then_some((r >> 12) as i64 % 100_000));
        s.push((!r.is_multiple_of(11)).then(|| format!("key-{:05}", (r >> 20) % 2_000)));
        f.push(match (r >> 30) % 8 {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(-0.0),
            3 => Some(0.0),
            _ => Some(((r >> 34) % 50) as f64 / 4.0),
        });
        v.push((!r.is_multiple_of(5)).then_some((r >> 40) as i64 % 1000 - 500));
    }
    RecordBatch::try_from_iter([
        ("few", Arc::new(Int64Array::from(few)) as _),
        ("many", Arc::new(Int64Array::from(many)) as _),
        ("s", Arc::new(StringArray::from(s)) as _),
        ("f", Arc::new(Float64Array::from(f)) as _),
        ("v", Arc::new(Int64Array::from(v)) as _),
    ])
    .unwrap()
}

const GROUPS: [&str; 6] = ["many", "s", "f", "few, s", "many, f", "s, many"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(48)))]

    #[test]
    fn a_spilled_group_by_gives_the_unlimited_rows(
        n in 0usize..3000,
        seed in any::<u64>(),
        group in 0..GROUPS.len(),
        distinct in any::<bool>(),
        setting in 0..SPILL_SETTINGS.len(),
        percent in prop_oneof![Just(1u64), Just(10), Just(50)],
    ) {
        let t = table(n, seed);
        let (threads, batch) = SPILL_SETTINGS[setting];
        let extra = if distinct { ", count(DISTINCT v), count(DISTINCT few)" } else { "" };
        let sql = format!(
            "SELECT {g}, count(*), count(v), sum(v), min(v), max(f), avg(v){extra} \
             FROM t GROUP BY {g}",
            g = GROUPS[group]
        );
        let expected = run(&session_of_t(&t, threads, batch), &sql);
        let dir = temp_dir(&format!("spill-agg-{seed:x}"));
        let mut s = session_of_t(&t, threads, batch);
        // (at least 16KB, 64KB with DISTINCT aggregates: a GROUP BY needs
        // room for a few of its groups at its deepest split, a sixteenth
        // of the limit at most, docs/cli.md; a group's DISTINCT sets take
        // more than 1KB)
        let floor = if distinct { 64 << 10 } else { 16 << 10 };
        let limit = (t.get_array_memory_size() as u64 * percent / 100).max(floor);
        s.set("memory_limit", &limit.to_string()).unwrap();
        s.set("spill_dir", dir.to_str().unwrap()).unwrap();
        let zero = |rows: Vec<String>| -> Vec<String> {
            let mut rows: Vec<String> = rows.into_iter().map(|r| r.replace("-0.0", "0.0")).collect();
            rows.sort();
            rows
        };
        prop_assert_eq!(zero(run(&s, &sql)), zero(expected), "{} at {}", sql, limit);
        prop_assert!(left_in(&dir).is_empty(), "{:?}", left_in(&dir));
    }
}

#[test]
fn explain_analyze_shows_a_spilled_group_by() {
    let dir = temp_dir("spill-agg-analyze");
    let t = table(50_000, 3);
    let mut s = session_of_t(&t, 2, 1024);
    s.set("memory_limit", "64KB").unwrap();
    s.set("spill_dir", dir.to_str().unwrap()).unwrap();
    let sql = "SELECT many, s, count(*), sum(v) FROM t GROUP BY many, s";
    let (explain, out) = s.explain_analyze(sql).unwrap();
    let agg = explain
        .tree()
        .lines()
        .find(|l| l.contains("Aggregate:"))
        .unwrap();
    assert!(agg.contains("spilled: files="), "{}", explain.tree());
    assert!(out.spilled_bytes > 0);
    let unlimited = session_of_t(&t, 2, 1024);
    assert_eq!(row_strings(&out.batches), run(&unlimited, sql));
    assert!(left_in(&dir).is_empty(), "{:?}", left_in(&dir));
}

/// The case CI's random inputs found (2026-12-07): count(DISTINCT) over
/// nearly one row a group, 4 threads, batches of 7. At a 16KB limit its
/// deepest split has 1KB or less, which one group's DISTINCT sets may not
/// fit (then the query fails with the limit's error, in 2 of 30 runs);
/// at 64KB it always gives the unlimited rows.
#[test]
fn distinct_groups_at_the_smallest_limit() {
    let t = table(2933, 8866127486514557961);
    let sql = "SELECT s, many, count(*), count(v), sum(v), min(v), max(f), avg(v), \
               count(DISTINCT v), count(DISTINCT few) FROM t GROUP BY s, many";
    let expected = run(&session_of_t(&t, 4, 7), sql);
    let sort = |mut rows: Vec<String>| {
        rows.sort();
        rows
    };
    for _ in 0..5 {
        let dir = temp_dir("spill-agg-distinct-floor");
        let mut s = session_of_t(&t, 4, 7);
        s.set("memory_limit", "64KB").unwrap();
        s.set("spill_dir", dir.to_str().unwrap()).unwrap();
        assert_eq!(sort(run(&s, sql)), sort(expected.clone()));
        assert!(left_in(&dir).is_empty(), "{:?}", left_in(&dir));
    }
}
