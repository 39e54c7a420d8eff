//! Distribution and determinism properties of every workload, at small scales.

use std::collections::{HashMap, HashSet};

use arrow_array::{Array, Int64Array, RecordBatch};
use arrow_schema::DataType;

use super::*;
use crate::columns::scramble;

/// The `Int64` column `name` of `batch`.
fn ints<'a>(batch: &'a RecordBatch, name: &str) -> &'a [i64] {
    let column = batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"));
    column
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("Int64 column")
        .values()
}

/// How many rows of `batch` carry each key.
fn key_counts(batch: &RecordBatch) -> HashMap<i64, usize> {
    let mut counts = HashMap::new();
    for &key in ints(batch, "k") {
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// Number of rows of the equi-join on `k`.
fn equi_join_rows(tables: &Tables) -> usize {
    let build = key_counts(&tables.build);
    ints(&tables.probe, "k")
        .iter()
        .map(|k| build.get(k).copied().unwrap_or(0))
        .sum()
}

/// The keys of ids `0..n`.
fn keys_of_first_ids(n: usize) -> HashSet<i64> {
    (0..n as u64).map(scramble).collect()
}

#[test]
fn row_counts_follow_scale_rounding_with_at_least_one_row() {
    for workload in Workload::ALL {
        let (probe, build) = workload.full_size();
        let tables = generate(workload, 0.00123, 1);
        let expected = |full: usize| ((full as f64 * 0.00123).round() as usize).max(1);
        assert_eq!(tables.probe.num_rows(), expected(probe), "{workload}");
        assert_eq!(tables.build.num_rows(), expected(build), "{workload}");
        let tiny = generate(workload, 1e-12, 1);
        assert_eq!(
            (tiny.probe.num_rows(), tiny.build.num_rows()),
            (1, 1),
            "{workload}"
        );
    }
}

#[test]
fn every_side_has_k_p_s_and_the_workload_extra_column() {
    for workload in Workload::ALL {
        let tables = generate(workload, 0.0005, 4);
        let extra = match workload {
            Workload::Band | Workload::Interval | Workload::Asof => Some("t"),
            Workload::Nlj => Some("v"),
            _ => None,
        };
        for batch in [&tables.probe, &tables.build] {
            let schema = batch.schema();
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            let mut expected = vec!["k", "p", "s"];
            expected.extend(extra);
            assert_eq!(names, expected, "{workload}");
            for field in schema.fields() {
                let data_type = if field.name() == "s" {
                    DataType::Utf8
                } else {
                    DataType::Int64
                };
                assert_eq!(field.data_type(), &data_type, "{workload}");
                assert!(!field.is_nullable());
            }
            assert!(batch.columns().iter().all(|c| c.null_count() == 0));
            let p = ints(batch, "p");
            assert!(
                p.iter().enumerate().all(|(i, &v)| v == i as i64),
                "{workload}"
            );
        }
    }
}

#[test]
fn fk_small_every_probe_key_is_in_build() {
    let tables = generate(Workload::FkSmall, 0.01, 7);
    assert_eq!(
        (tables.probe.num_rows(), tables.build.num_rows()),
        (100_000, 10)
    );
    let build: HashSet<i64> = ints(&tables.build, "k").iter().copied().collect();
    let probe = key_counts(&tables.probe);
    assert!(probe.keys().all(|k| build.contains(k)));
    assert_eq!(probe.len(), build.len(), "every build key is used");
    assert_eq!(equi_join_rows(&tables), 100_000);
}

#[test]
fn fk_medium_every_probe_key_is_in_build() {
    let tables = generate(Workload::FkMedium, 0.001, 8);
    assert_eq!(
        (tables.probe.num_rows(), tables.build.num_rows()),
        (10_000, 1_000)
    );
    assert_eq!(equi_join_rows(&tables), 10_000);
}

#[test]
fn fk_build_sides_hold_each_id_once_in_shuffled_order() {
    for workload in [
        Workload::FkSmall,
        Workload::FkMedium,
        Workload::FkLarge,
        Workload::Zipf,
        Workload::LowMatch,
    ] {
        // fk_small needs scale 0.01 for 10 build rows (2 rows could stay in order).
        let scale = if workload == Workload::FkSmall {
            0.01
        } else {
            0.002
        };
        let tables = generate(workload, scale, 9);
        let keys = ints(&tables.build, "k");
        let set: HashSet<i64> = keys.iter().copied().collect();
        assert_eq!(set.len(), keys.len(), "{workload}: build keys are unique");
        assert_eq!(
            set,
            keys_of_first_ids(keys.len()),
            "{workload}: build ids are 0..n"
        );
        let in_id_order: Vec<i64> = (0..keys.len() as u64).map(scramble).collect();
        assert_ne!(
            keys,
            in_id_order.as_slice(),
            "{workload}: build rows are shuffled"
        );
    }
}

#[test]
fn fk_large_is_one_to_one() {
    let tables = generate(Workload::FkLarge, 0.001, 10);
    let probe = ints(&tables.probe, "k");
    let build = ints(&tables.build, "k");
    assert_eq!((probe.len(), build.len()), (10_000, 10_000));
    let mut sorted_probe = probe.to_vec();
    let mut sorted_build = build.to_vec();
    sorted_probe.sort_unstable();
    sorted_build.sort_unstable();
    assert_eq!(sorted_probe, sorted_build, "same keys, each exactly once");
    assert_ne!(probe, build, "the two sides are shuffled independently");
    assert_eq!(equi_join_rows(&tables), 10_000);
}

#[test]
fn zipf_top_rank_is_most_frequent() {
    let seed = 11;
    let tables = generate(Workload::Zipf, 0.001, seed);
    let build_rows = tables.build.num_rows();
    assert_eq!((tables.probe.num_rows(), build_rows), (10_000, 1_000));
    let rank_keys = zipf_rank_keys(build_rows, seed);
    let counts = key_counts(&tables.probe);
    let count_of_rank = |rank: usize| counts.get(&rank_keys[rank]).copied().unwrap_or(0);
    let (&hottest, &top) = counts.iter().max_by_key(|&(_, c)| *c).unwrap();
    assert_eq!(hottest, rank_keys[0]);
    // P(rank 0) = 1 / H(1000, 1.1) ≈ 18%; rank 1 is 2^1.1 ≈ 2.14 times rarer.
    let expected = ZipfTable::new(build_rows, ZIPF_EXPONENT).probability(0) * 10_000.0;
    assert!(
        (top as f64 - expected).abs() < 5.0 * expected.sqrt(),
        "{top} vs {expected}"
    );
    let ratio = top as f64 / count_of_rank(1) as f64;
    assert!((1.8..2.5).contains(&ratio), "rank 0 / rank 1 = {ratio}");
    assert!(count_of_rank(1) > count_of_rank(10));
    // Every probe key is a build key.
    let build: HashSet<i64> = ints(&tables.build, "k").iter().copied().collect();
    assert!(counts.keys().all(|k| build.contains(k)));
}

#[test]
fn zipf_hot_keys_are_not_the_smallest_ids() {
    let rank_keys = zipf_rank_keys(1_000, 11);
    let smallest_ids = keys_of_first_ids(10);
    let hot_in_smallest = rank_keys[..10]
        .iter()
        .filter(|k| smallest_ids.contains(k))
        .count();
    assert!(
        hot_in_smallest < 10,
        "the 10 hottest keys are not ids 0..10"
    );
    let all: HashSet<i64> = rank_keys.iter().copied().collect();
    assert_eq!(
        all,
        keys_of_first_ids(1_000),
        "ranks map onto every build id once"
    );
}

#[test]
fn low_match_matches_about_one_percent() {
    let tables = generate(Workload::LowMatch, 0.01, 12);
    let (probe_rows, build_rows) = (tables.probe.num_rows(), tables.build.num_rows());
    assert_eq!((probe_rows, build_rows), (100_000, 10_000));
    let build: HashSet<i64> = ints(&tables.build, "k").iter().copied().collect();
    let probe = ints(&tables.probe, "k");
    let matching: Vec<usize> = (0..probe_rows)
        .filter(|&i| build.contains(&probe[i]))
        .collect();
    // Exactly one row of every full block of 100.
    assert_eq!(matching.len(), probe_rows / 100);
    assert!(
        matching
            .iter()
            .enumerate()
            .all(|(block, &row)| row / 100 == block)
    );
    assert!(matching.iter().all(|&row| low_match_row_matches(row, 12)));
    // Misses come from ids build_rows..build_rows + probe_rows.
    let misses = keys_of_first_ids(build_rows + probe_rows);
    assert!(probe.iter().all(|k| misses.contains(k)));
    assert_eq!(equi_join_rows(&tables), probe_rows / 100);
}

#[test]
fn m2n_has_100k_distinct_keys_at_full_scale_ratio() {
    // Scale 0.01: 10K x 10K rows over 1K ids (the 1M : 100K ratio).
    let tables = generate(Workload::M2n, 0.01, 13);
    assert_eq!(
        (tables.probe.num_rows(), tables.build.num_rows()),
        (10_000, 10_000)
    );
    let ids = keys_of_first_ids(1_000);
    for batch in [&tables.probe, &tables.build] {
        let counts = key_counts(batch);
        assert!(counts.keys().all(|k| ids.contains(k)));
        // With 10 rows per id on average, all but a handful of ids appear.
        assert!(counts.len() >= 990, "{} distinct keys", counts.len());
    }
    // Expected output: 10K * 10K / 1K = 100K rows (10 per probe row).
    let rows = equi_join_rows(&tables) as f64;
    assert!((rows / 100_000.0 - 1.0).abs() < 0.05, "{rows} join rows");
}

#[test]
fn band_gives_100_equi_pairs_per_row_and_one_percent_within_the_band() {
    // Scale 0.05: 5K x 5K rows over 50 ids.
    let tables = generate(Workload::Band, 0.05, 14);
    assert_eq!(
        (tables.probe.num_rows(), tables.build.num_rows()),
        (5_000, 5_000)
    );
    let mut build_times: HashMap<i64, Vec<i64>> = HashMap::new();
    for (&k, &t) in ints(&tables.build, "k")
        .iter()
        .zip(ints(&tables.build, "t"))
    {
        assert!((0..BAND_T_RANGE as i64).contains(&t));
        build_times.entry(k).or_default().push(t);
    }
    assert!(
        build_times
            .keys()
            .all(|k| keys_of_first_ids(50).contains(k))
    );
    let (mut equi, mut band) = (0usize, 0usize);
    for (&k, &t) in ints(&tables.probe, "k")
        .iter()
        .zip(ints(&tables.probe, "t"))
    {
        assert!((0..BAND_T_RANGE as i64).contains(&t));
        let times = build_times.get(&k).map(Vec::as_slice).unwrap_or_default();
        equi += times.len();
        band += times
            .iter()
            .filter(|&&bt| t >= bt - 10 && t <= bt + 10)
            .count();
    }
    // Expected: 5K * 5K / 50 = 500K equi pairs, 0.99988% of them in the band.
    assert!(
        (equi as f64 / 500_000.0 - 1.0).abs() < 0.05,
        "{equi} equi pairs"
    );
    let expected_band = 500_000.0 * (21.0 * 2095.0 - 110.0) / (2095.0 * 2095.0);
    assert!(
        (band as f64 / expected_band - 1.0).abs() < 0.1,
        "{band} band rows"
    );
}

#[test]
fn asof_has_ten_trades_per_quote_over_scaled_symbols_within_one_day() {
    // Scale 0.005: 50K trades and 5K quotes over 5 ids.
    let tables = generate(Workload::Asof, 0.005, 16);
    assert_eq!(
        (tables.probe.num_rows(), tables.build.num_rows()),
        (50_000, 5_000)
    );
    for batch in [&tables.probe, &tables.build] {
        assert!(
            ints(batch, "t")
                .iter()
                .all(|t| (0..DAY_US as i64).contains(t))
        );
        let counts = key_counts(batch);
        assert!(counts.keys().all(|k| keys_of_first_ids(5).contains(k)));
        // About a fifth of the rows per id.
        let expected = batch.num_rows() as f64 / 5.0;
        assert_eq!(counts.len(), 5);
        assert!(
            counts
                .values()
                .all(|&n| (n as f64 / expected - 1.0).abs() < 0.1),
            "{counts:?}"
        );
    }
    // Times spread over the day: the mean is near noon.
    let t = ints(&tables.probe, "t");
    let mean = t.iter().map(|&v| v as f64).sum::<f64>() / t.len() as f64;
    assert!((mean / (DAY_US as f64 / 2.0) - 1.0).abs() < 0.02, "{mean}");
}

#[test]
fn nlj_v_less_than_holds_for_about_half_the_pairs() {
    let tables = generate(Workload::Nlj, 0.05, 15);
    let a = ints(&tables.probe, "v");
    let mut b = ints(&tables.build, "v").to_vec();
    assert_eq!((a.len(), b.len()), (1_000, 1_000));
    assert!(
        a.iter()
            .chain(&b)
            .all(|v| (0..NLJ_V_RANGE as i64).contains(v))
    );
    b.sort_unstable();
    let less: usize = a
        .iter()
        .map(|v| b.len() - b.partition_point(|x| x <= v))
        .sum();
    let fraction = less as f64 / 1_000_000.0;
    assert!((fraction - 0.5).abs() < 0.03, "{fraction}");
    // k: row i holds id i on both sides, so the equi-join on k is 1:1.
    assert_eq!(equi_join_rows(&tables), 1_000);
}

#[test]
fn same_seed_same_data() {
    for workload in Workload::ALL {
        assert_eq!(
            generate(workload, 0.001, 42),
            generate(workload, 0.001, 42),
            "{workload}"
        );
    }
}

#[test]
fn different_seeds_give_different_keys() {
    // Scale 0.01 so that fk_small has more than one build key.
    for workload in Workload::ALL {
        let a = generate(workload, 0.01, 1);
        let b = generate(workload, 0.01, 2);
        let random = if workload == Workload::Nlj { "v" } else { "k" };
        assert!(
            ints(&a.probe, random) != ints(&b.probe, random),
            "{workload}"
        );
        assert!(a.build != b.build, "{workload}");
    }
}

#[test]
fn generation_is_independent_of_thread_count() {
    let run = |threads: usize, workload: Workload| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| generate(workload, 0.006, 16))
    };
    for workload in [
        Workload::FkMedium,
        Workload::FkLarge,
        Workload::Zipf,
        Workload::LowMatch,
        Workload::M2n,
    ] {
        assert_eq!(run(1, workload), run(3, workload), "{workload}");
    }
}

#[test]
#[should_panic(expected = "scale must be a finite positive number")]
fn generate_rejects_zero_scale() {
    generate(Workload::FkSmall, 0.0, 1);
}
