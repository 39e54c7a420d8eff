//! tenon's joins inside DataFusion give DataFusion's own rows: random
//! tables (NULL keys, duplicates, empty inputs) under every join type,
//! with and without a residual filter, every strategy forced and the
//! default mapping, at 1 and 4 target partitions and batch sizes 1, 2, 7
//! and 8192; and the TPC-H queries at a small scale.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::datasource::MemTable;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use proptest::prelude::*;
use tenon_datafusion::{TenonJoinRule, session_state};
use tenon_kernels::Strategy as JoinStrategy;

fn rows_of(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::new().with_null("NULL");
    let mut out = Vec::new();
    for b in batches {
        let fmts: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            out.push(
                fmts.iter()
                    .map(|f| f.value(r).to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
    }
    out.sort();
    out
}

fn table(rows: &[(Option<i64>, Option<i64>)], batch: usize) -> MemTable {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("v", DataType::Int64, true),
    ]));
    let b = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap();
    let parts: Vec<RecordBatch> = (0..b.num_rows())
        .step_by(batch.max(1))
        .map(|at| b.slice(at, batch.min(b.num_rows() - at)))
        .collect();
    // two partitions of batches, so that the plans repartition
    let (x, y) = parts.split_at(parts.len() / 2);
    MemTable::try_new(schema, vec![x.to_vec(), y.to_vec()]).unwrap()
}

fn context(rule: Option<TenonJoinRule>, partitions: usize, batch: usize) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(batch);
    match rule {
        Some(rule) => SessionContext::new_with_state(session_state(config, rule)),
        None => SessionContext::new_with_config(config),
    }
}

async fn run(ctx: &SessionContext, sql: &str) -> (Vec<String>, String) {
    let df = ctx.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let plan = df.clone().create_physical_plan().await.unwrap();
    let text = displayable(plan.as_ref()).indent(false).to_string();
    let batches = df
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}\n{text}"));
    (rows_of(&batches), text)
}

const JOINS: [&str; 8] = [
    "JOIN",
    "LEFT JOIN",
    "RIGHT JOIN",
    "FULL JOIN",
    "LEFT SEMI JOIN",
    "LEFT ANTI JOIN",
    "RIGHT SEMI JOIN",
    "RIGHT ANTI JOIN",
];

fn cell() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![1 => Just(None), 4 => (0i64..5).prop_map(Some)]
}

fn side() -> impl Strategy<Value = Vec<(Option<i64>, Option<i64>)>> {
    proptest::collection::vec((cell(), cell()), 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_join_type_and_strategy_gives_datafusions_rows(
        a in side(),
        b in side(),
        join in 0..JOINS.len(),
        filtered in any::<bool>(),
        narrow in any::<bool>(),
        strategy in prop_oneof![
            Just(None),
            Just(Some(JoinStrategy::Broadcast)),
            Just(Some(JoinStrategy::ShuffleHash)),
            Just(Some(JoinStrategy::ShuffleMerge)),
            Just(Some(JoinStrategy::NestLoop)),
        ],
        partitions in prop_oneof![Just(1usize), Just(4)],
        batch in prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let join = JOINS[join];
        // narrow: fewer columns than the join makes
        let cols = match (join, narrow) {
            ("LEFT SEMI JOIN" | "LEFT ANTI JOIN", false) => "a.k, a.v",
            ("LEFT SEMI JOIN" | "LEFT ANTI JOIN", true) => "a.v",
            ("RIGHT SEMI JOIN" | "RIGHT ANTI JOIN", false) => "b.k, b.v",
            ("RIGHT SEMI JOIN" | "RIGHT ANTI JOIN", true) => "b.v",
            (_, false) => "a.k, a.v, b.k, b.v",
            (_, true) => "b.v, a.v",
        };
        let condition = if filtered { "a.k = b.k AND a.v < b.v" } else { "a.k = b.k" };
        let sql = format!("SELECT {cols} FROM a {join} b ON {condition}");
        let rule = match strategy {
            Some(s) => TenonJoinRule::new().with_strategy(s),
            None => TenonJoinRule::new(),
        };
        let (want, got, plan) = runtime.block_on(async {
            let plain = context(None, partitions, batch);
            let tenon = context(Some(rule), partitions, batch);
            for ctx in [&plain, &tenon] {
                ctx.register_table("a", Arc::new(table(&a, batch))).unwrap();
                ctx.register_table("b", Arc::new(table(&b, batch))).unwrap();
            }
            let (want, _) = run(&plain, &sql).await;
            let (got, plan) = run(&tenon, &sql).await;
            (want, got, plan)
        });
        prop_assert!(plan.contains("TenonJoinExec"), "{}\n{}", sql, plan);
        // a forced strategy runs (BROADCAST falls back to SHUFFLE_HASH
        // where the join type preserves both sides)
        if let Some(s) = strategy.filter(|s| *s != JoinStrategy::Broadcast) {
            let name = format!("strategy={s}");
            prop_assert!(plan.contains(&name), "{}\n{}", sql, plan);
        }
        prop_assert_eq!(got, want, "{}\n{}", sql, plan);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_queries_give_datafusions_rows_with_tenon_joins() {
    let tables = tenon_datasets::tpch::tpch_tables(0.01);
    let plain = context(None, 2, 8192);
    let tenon = context(Some(TenonJoinRule::new()), 2, 8192);
    for ctx in [&plain, &tenon] {
        for (name, batches) in &tables {
            let schema = batches[0].schema();
            let t = MemTable::try_new(schema, vec![batches.clone()]).unwrap();
            ctx.register_table(*name, Arc::new(t)).unwrap();
        }
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/tpch/queries");
    let mut replaced = 0;
    for n in 1..=22 {
        let sql = std::fs::read_to_string(format!("{dir}/q{n:02}.sql")).unwrap();
        let Ok(df) = plain.sql(&sql).await else {
            continue; // a query DataFusion's SQL does not take as written
        };
        let want = rows_of(&df.collect().await.unwrap());
        let (got, plan) = run(&tenon, &sql).await;
        assert_eq!(got, want, "q{n:02}\n{plan}");
        replaced += usize::from(plan.contains("TenonJoinExec"));
    }
    assert!(replaced >= 15, "only {replaced} queries ran tenon's joins");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// NOT IN (DataFusion's null-aware anti join) runs tenon's
    /// `LeftAntiNullAware` kernel, broadcasting the subquery's side, with
    /// DataFusion's rows: NULLs on either side, duplicates, empty inputs,
    /// 1 and 4 partitions, batch sizes 1, 2, 7 and 8192.
    #[test]
    fn not_in_gives_datafusions_rows(
        a in side(),
        b in side(),
        filtered in any::<bool>(),
        partitions in prop_oneof![Just(1usize), Just(4)],
        batch in prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let sql = if filtered {
            "SELECT a.k, a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b WHERE b.v > 0)"
        } else {
            "SELECT a.k, a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b)"
        };
        let (want, got, plan) = runtime.block_on(async {
            let plain = context(None, partitions, batch);
            let tenon = context(Some(TenonJoinRule::new()), partitions, batch);
            for ctx in [&plain, &tenon] {
                ctx.register_table("a", Arc::new(table(&a, batch))).unwrap();
                ctx.register_table("b", Arc::new(table(&b, batch))).unwrap();
            }
            let (want, _) = run(&plain, sql).await;
            let (got, plan) = run(&tenon, sql).await;
            (want, got, plan)
        });
        prop_assert!(plan.contains("(NOT IN, null-aware)"), "{}\n{}", sql, plan);
        prop_assert_eq!(got, want, "{}\n{}", sql, plan);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_in_over_a_subquery_with_a_null_gives_no_row() {
    let a = [(Some(1), Some(1)), (Some(2), Some(2)), (None, Some(3))];
    let b = [(Some(2), Some(0)), (None, Some(0))];
    let tenon = context(Some(TenonJoinRule::new()), 2, 8192);
    tenon
        .register_table("a", Arc::new(table(&a, 8192)))
        .unwrap();
    tenon
        .register_table("b", Arc::new(table(&b, 8192)))
        .unwrap();
    let (got, plan) = run(
        &tenon,
        "SELECT a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b)",
    )
    .await;
    assert!(plan.contains("(NOT IN, null-aware)"), "{plan}");
    assert!(got.is_empty(), "{got:?}");
    let (got, _) = run(
        &tenon,
        "SELECT a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b WHERE b.k IS NOT NULL)",
    )
    .await;
    assert_eq!(got, ["1"]);
}

/// `SELECT count(*) FROM a JOIN b ON a.k = b.k` under `strategy`, in a
/// session whose memory pool holds `limit` bytes.
async fn count_in_pool(
    limit: usize,
    partitions: usize,
    strategy: JoinStrategy,
    a: &[(Option<i64>, Option<i64>)],
    b: &[(Option<i64>, Option<i64>)],
) -> datafusion::error::Result<Vec<String>> {
    use datafusion::execution::SessionStateBuilder;
    use datafusion::execution::runtime_env::RuntimeEnvBuilder;
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(limit, 1.0)
        .build_arc()?;
    let state = SessionStateBuilder::new()
        .with_config(SessionConfig::new().with_target_partitions(partitions))
        .with_runtime_env(runtime)
        .with_default_features()
        .with_physical_optimizer_rules(tenon_datafusion::physical_optimizer_rules(
            TenonJoinRule::new().with_strategy(strategy),
        ))
        .build();
    let ctx = SessionContext::new_with_state(state);
    ctx.register_table("a", Arc::new(table(a, 8192)))?;
    ctx.register_table("b", Arc::new(table(b, 8192)))?;
    let batches = ctx
        .sql("SELECT count(*) FROM a JOIN b ON a.k = b.k")
        .await?
        .collect()
        .await?;
    Ok(rows_of(&batches))
}

/// A join whose inputs do not fit the session's memory pool fails with
/// DataFusion's resources error naming tenon's join, as its collected
/// batches are charged while they arrive; the same join fits a larger pool.
#[tokio::test]
async fn collected_inputs_are_charged_to_the_memory_pool() {
    let rows: Vec<_> = (0..200_000).map(|i| (Some(i % 1000), Some(i))).collect();
    for (limit, fits) in [(1usize << 20, false), (256 << 20, true)] {
        for strategy in [JoinStrategy::Broadcast, JoinStrategy::ShuffleHash] {
            match (
                fits,
                count_in_pool(limit, 2, strategy, &rows, &rows[..2000]).await,
            ) {
                (true, Ok(r)) => assert_eq!(r, ["400000"], "{strategy}"),
                (false, Err(e)) => {
                    let e = e.to_string();
                    assert!(
                        e.contains("Resources exhausted") && e.contains("TenonJoinExec"),
                        "{strategy}: {e}"
                    );
                }
                (fits, r) => panic!("{strategy} in {limit} bytes (fits: {fits}): {r:?}"),
            }
        }
    }
}

/// The kernel's own tables come from what the pool has left: a build side
/// that fits (1.6 MB of keys in 2.5 MiB; the probe side streams through)
/// with a hash table that does not fails with DataFusion's resources error
/// from tenon's kernel; 24 MiB fits all.
#[tokio::test]
async fn the_kernels_tables_are_bounded_by_the_memory_pool() {
    // keys too sparse for a direct index: a hash table
    let rows: Vec<_> = (0..200_000)
        .map(|i| (Some(i * 1_000_003), Some(i)))
        .collect();
    for (kib, fits) in [(2560usize, false), (24 << 10, true)] {
        for strategy in [JoinStrategy::Broadcast, JoinStrategy::ShuffleHash] {
            match (
                fits,
                count_in_pool(kib << 10, 1, strategy, &rows, &rows).await,
            ) {
                (true, Ok(r)) => assert_eq!(r, ["200000"], "{strategy}"),
                (false, Err(e)) => {
                    let e = e.to_string();
                    assert!(
                        e.contains("Resources exhausted: TenonJoinExec")
                            && e.contains("memory limit exceeded"),
                        "{strategy}: {e}"
                    );
                }
                (fits, r) => panic!("{strategy} in {kib} KiB (fits: {fits}): {r:?}"),
            }
        }
    }
}
