//! H15 rule 3a through SQL: with the keys' distinct counts in the catalog,
//! a many-to-many join, and a band join over keys that match several rows
//! a row, run as SHUFFLE_MERGE; foreign-key joins, tables without distinct
//! counts, a disabled SHUFFLE_MERGE and hints keep the other rules.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use tenon_kernels::Strategy;
use tenon_planner::choose::plan_joins;
use tenon_planner::config::Config;
use tenon_planner::sql::{Catalog, TableStats};
use tenon_planner::statistics::{ColumnStats, ScalarValue};

/// A table of `rows` rows whose `k` has `keys` distinct values (and `t`
/// spans 0..1000); `keys` `None`: no column statistics.
fn table(c: &mut Catalog, name: &str, rows: u64, keys: Option<u64>) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("t", DataType::Int64, true),
    ]));
    let column = |d: u64| ColumnStats {
        null_count: Some(0),
        min: Some(ScalarValue::Int64(Some(0))),
        max: Some(ScalarValue::Int64(Some(999))),
        distinct_count: Some(d),
    };
    let stats = TableStats {
        row_count: Some(rows),
        byte_size: Some(rows * 16),
        columns: keys.map_or_else(Vec::new, |d| vec![column(d), column(1000)]),
        ..Default::default()
    };
    c.register_table_with_stats(name, schema, stats);
}

fn decide(c: &Catalog, sql: &str, config: &Config) -> (Strategy, String) {
    let plan = plan_joins(sql, c, config).unwrap_or_else(|e| panic!("{sql}: {e}"));
    (plan.joins[0].strategy, plan.joins[0].reason.clone())
}

#[test]
fn h15_3a_many_matches_a_row_run_as_shuffle_merge() {
    let mut c = Catalog::new();
    // 1M x 1M over 100K key values: 10 matches a row
    table(&mut c, "m1", 1_000_000, Some(100_000));
    table(&mut c, "m2", 1_000_000, Some(100_000));
    // a foreign key: 1M rows over the 1K unique keys of `dim`
    table(&mut c, "fact", 1_000_000, Some(1_000));
    table(&mut c, "dim", 1_000, Some(1_000));
    // 1M x 1M over 400K values: 2.5 a row
    table(&mut c, "w1", 1_000_000, Some(400_000));
    table(&mut c, "w2", 1_000_000, Some(400_000));
    // the same shapes without statistics
    table(&mut c, "n1", 1_000_000, None);
    table(&mut c, "n2", 1_000_000, None);
    let config = Config::default();

    let (s, why) = decide(&c, "SELECT * FROM m1 JOIN m2 ON m1.k = m2.k", &config);
    assert_eq!(s, Strategy::ShuffleMerge, "{why}");
    assert!(why.contains("about 10 rows a row"), "{why}");
    let (s, why) = decide(&c, "SELECT * FROM fact JOIN dim ON fact.k = dim.k", &config);
    assert_eq!(s, Strategy::Broadcast, "{why}");
    // 2.5 a row: a hash join, unless a band condition is left for the
    // merge's search
    let (s, why) = decide(&c, "SELECT * FROM w1 JOIN w2 ON w1.k = w2.k", &config);
    assert_ne!(s, Strategy::ShuffleMerge, "{why}");
    let band = "SELECT * FROM w1 JOIN w2 ON w1.k = w2.k AND w1.t BETWEEN w2.t - 5 AND w2.t + 5";
    let (s, why) = decide(&c, band, &config);
    assert_eq!(s, Strategy::ShuffleMerge, "{why}");
    assert!(why.contains("band condition"), "{why}");
    let below = "SELECT * FROM w1 JOIN w2 ON w1.k = w2.k AND w1.t < w2.t";
    assert_eq!(decide(&c, below, &config).0, Strategy::ShuffleMerge);
    // a condition on one side only is no band
    let one_side = "SELECT * FROM w1 JOIN w2 ON w1.k = w2.k AND w1.t < 5";
    assert_ne!(decide(&c, one_side, &config).0, Strategy::ShuffleMerge);
    // without distinct counts the estimate is a foreign-key join's
    let (s, why) = decide(&c, "SELECT * FROM n1 JOIN n2 ON n1.k = n2.k", &config);
    assert_ne!(s, Strategy::ShuffleMerge, "{why}");
    // a disabled SHUFFLE_MERGE and a hint keep their meaning
    let no_merge = Config {
        disabled_strategies: vec![Strategy::ShuffleMerge],
        ..Config::default()
    };
    let (s, _) = decide(&c, "SELECT * FROM m1 JOIN m2 ON m1.k = m2.k", &no_merge);
    assert_ne!(s, Strategy::ShuffleMerge);
    let hinted = "SELECT /*+ BROADCAST(m2) */ * FROM m1 JOIN m2 ON m1.k = m2.k";
    assert_eq!(decide(&c, hinted, &config).0, Strategy::Broadcast);
}
