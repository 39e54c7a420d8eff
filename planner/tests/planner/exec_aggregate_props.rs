//! Hash aggregation against naive oracles on generated inputs: keys and
//! values with NULLs, short and long string keys (the inline-key cache),
//! few groups summed in interleaved lanes (and their overflow), at batch
//! sizes 1 to 8192 and 1 and 4 threads. The hand-written cases and the
//! helpers are in `exec_aggregate.rs`.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::exec_aggregate::{
    BY_K, Row, assert_overflow, batches, compile, naive_by_k, opt, run_on, run_sql, text_rows,
};

/// Row batches from proptest's (key, value) pairs.
fn kv_rows(pairs: &[(Option<i64>, Option<i64>)]) -> Vec<Row> {
    pairs
        .iter()
        .map(|&(k, v)| Row {
            k,
            v,
            ..Row::default()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn group_by_matches_btreemap_oracle(
        pairs in prop::collection::vec(
            (prop::option::weighted(0.9, -20i64..20), prop::option::weighted(0.8, -1000i64..1000)),
            0..300,
        ),
        input_size in 1usize..80,
        batch_size in prop::sample::select(vec![1usize, 2, 7, 8192]),
        threads in prop::sample::select(vec![1usize, 4]),
    ) {
        let data = kv_rows(&pairs);
        prop_assert_eq!(run_sql(BY_K, &data, input_size, batch_size, threads), naive_by_k(&data));
    }
}

/// Groups of (s, i): their row count and `v` values.
type GroupsBySI = BTreeMap<(Option<String>, Option<i32>), (usize, Vec<i64>)>;

/// Naive `SELECT s, i, count(*), sum(v) FROM t GROUP BY s, i`.
fn naive_by_s_i(rows: &[Row]) -> Vec<Vec<String>> {
    let mut groups = GroupsBySI::new();
    for r in rows {
        let e = groups.entry((r.s.clone(), r.i)).or_default();
        e.0 += 1;
        e.1.extend(r.v);
    }
    let mut out: Vec<Vec<String>> = groups
        .into_iter()
        .map(|((s, i), (n, vs))| {
            let sum = (!vs.is_empty()).then(|| vs.iter().sum::<i64>());
            vec![opt(s), opt(i), n.to_string(), opt(sum)]
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Few short string keys (the inline-key cache) mixed with long ones
    /// (batches that go around it), NULLs in keys and values.
    #[test]
    fn short_string_keys_match_btreemap_oracle(
        rows in prop::collection::vec(
            (
                prop::option::weighted(0.9, 0usize..5),
                prop::option::weighted(0.9, -2i32..2),
                prop::option::weighted(0.8, -1000i64..1000),
            ),
            0..300,
        ),
        input_size in 1usize..80,
        batch_size in prop::sample::select(vec![1usize, 2, 7, 8192]),
        threads in prop::sample::select(vec![1usize, 4]),
    ) {
        let words = ["A", "F", "", "twelve bytes", "a string of more than twelve bytes"];
        let data: Vec<Row> = rows
            .iter()
            .map(|&(s, i, v)| Row {
                s: s.map(|s| words[s].to_string()),
                i,
                v,
                ..Row::default()
            })
            .collect();
        let sql = "SELECT s, i, count(*), sum(v) FROM t GROUP BY s, i";
        prop_assert_eq!(run_sql(sql, &data, input_size, batch_size, threads), naive_by_s_i(&data));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Sums and counts of few groups (added in interleaved lanes when no
    /// order of the additions can overflow) agree with the oracle, and
    /// sums that do not fit Int64 are an error whatever the batch sizes
    /// and threads (non-negative values: every order overflows alike).
    #[test]
    fn few_group_sums_match_the_oracle_and_overflow_alike(
        pairs in prop::collection::vec(
            (
                prop::option::weighted(0.9, 0i64..3),
                prop::option::weighted(0.8, prop::sample::select(vec![0i64, 1, 7, 1 << 40, i64::MAX / 5])),
            ),
            0..200,
        ),
        input_size in prop::sample::select(vec![1usize, 2, 7, 64, 8192]),
        threads in prop::sample::select(vec![1usize, 4]),
    ) {
        let data = kv_rows(&pairs);
        let agg = compile(BY_K).unwrap();
        let fits = {
            let mut sums: BTreeMap<Option<i64>, i128> = BTreeMap::new();
            for r in &data {
                *sums.entry(r.k).or_default() += i128::from(r.v.unwrap_or(0));
            }
            sums.values().all(|&s| s <= i128::from(i64::MAX))
        };
        let result = run_on(&agg, &batches(&data, input_size), 8192, threads);
        if fits {
            let out = result.unwrap();
            prop_assert_eq!(text_rows(&out), naive_by_k(&data));
        } else {
            assert_overflow(result);
        }
    }
}
