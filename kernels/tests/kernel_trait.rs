//! The kernel core's public API: the [`JoinKernel`] trait every kernel
//! implements (the shared options, the provided `execute` / `collect` /
//! `output_schema`), [`Join`] over any kernel, a kernel written outside the
//! crate, the [`FedProbe`] capability, and sink errors of the caller's own
//! passing through every kernel as [`KernelError::External`].

mod common;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tenon_kernels::{
    BatchSink, CmpOp, FedProbe, HashJoin, HashJoinMode, Join, JoinInput, JoinKernel, JoinOptions,
    JoinSide, JoinType, KernelError, MemoryBudget, NestedLoopJoin, RangeCondition, SortMergeJoin,
    Strategy, join_schema,
};

use common::cases::{batch, i64s};
use common::{all_rows, less_than_filter, sorted};

fn side(keys: &[Option<i64>]) -> RecordBatch {
    let payload: Vec<Option<i64>> = (0..keys.len() as i64).map(Some).collect();
    batch(vec![("k", i64s(keys)), ("v", i64s(&payload))])
}

fn inputs() -> (JoinInput, JoinInput) {
    let l = side(&[Some(1), Some(2), Some(2), None, Some(5)]);
    let r = side(&[Some(2), Some(1), Some(7), None]);
    (JoinInput::from_batch(l), JoinInput::from_batch(r))
}

/// The three kernels as the same inner join on `k`, every one a `Join`.
fn kernels() -> Vec<Join> {
    let eq = vec![
        RangeCondition::new(0, CmpOp::Le, 0),
        RangeCondition::new(0, CmpOp::Ge, 0),
    ];
    vec![
        HashJoin::new(JoinType::Inner, vec![(0, 0)])
            .mode(HashJoinMode::Broadcast)
            .into(),
        HashJoin::new(JoinType::Inner, vec![(0, 0)]).into(),
        SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).into(),
        NestedLoopJoin::new(JoinType::Inner).ranges(eq).into(),
    ]
}

#[test]
fn every_kernel_takes_the_shared_options_and_gives_the_same_rows() {
    let (l, r) = inputs();
    let budget = MemoryBudget::new(1 << 20);
    let mut expected = None;
    for join in kernels() {
        let join = join
            .batch_size(1)
            .threads(2)
            .memory(budget.clone())
            .projection(Some(vec![1]), Some(vec![1]));
        let o = join.options();
        assert_eq!((o.batch_size, o.threads), (1, 2), "{}", join.strategy());
        assert_eq!(o.left_projection.as_deref(), Some(&[1][..]));
        let schema = join.output_schema(l.schema(), r.schema()).unwrap();
        let want = join_schema(
            l.schema(),
            r.schema(),
            JoinType::Inner,
            Some(&[1]),
            Some(&[1]),
        );
        assert_eq!(schema, want.unwrap());
        let out = join.collect(l.clone(), r.clone()).unwrap();
        assert!(
            out.iter()
                .all(|b| b.num_rows() <= 1 && b.schema() == schema)
        );
        let rows = sorted(all_rows(&out));
        let streamed: Vec<RecordBatch> = join
            .execute(l.clone(), r.clone())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(sorted(all_rows(&streamed)), rows, "{}", join.strategy());
        // 1-1, 2-2, 2-2: the payloads of those pairs.
        assert_eq!(rows.len(), 3, "{}", join.strategy());
        match &expected {
            None => expected = Some(rows),
            Some(e) => assert_eq!(&rows, e, "{}", join.strategy()),
        }
    }
    assert_eq!(budget.used(), 0, "every reservation is given back");
}

#[test]
fn a_join_says_its_strategy_and_only_the_hash_join_is_fed() {
    let strategies: Vec<Strategy> = kernels().iter().map(|j| j.strategy()).collect();
    assert_eq!(
        strategies,
        [
            Strategy::Broadcast,
            Strategy::ShuffleHash,
            Strategy::ShuffleMerge,
            Strategy::NestLoop
        ]
    );
    let fed: Vec<bool> = kernels().iter().map(|j| j.fed().is_some()).collect();
    assert_eq!(fed, [true, true, false, false]);
    let hash = HashJoin::new(JoinType::Left, vec![(0, 0)]).build_side(JoinSide::Left);
    let fed = hash.fed().unwrap();
    assert_eq!(fed.build_side(), JoinSide::Left);
    let n = HashJoin::unpartitioned_rows();
    assert!(!fed.partitions_build(n) && fed.partitions_build(n + 1));
    let swapped = fed.building(JoinSide::Right, Strategy::Broadcast);
    assert_eq!(swapped.strategy(), Strategy::Broadcast);
    assert_eq!(swapped.fed().unwrap().build_side(), JoinSide::Right);
    assert_eq!(swapped.join_type(), JoinType::Left);
    // A copy of a Join is a copy of its kernel.
    assert_eq!(swapped.clone().strategy(), Strategy::Broadcast);
}

/// The caller's own error type, as an executor's would be.
#[derive(Debug, PartialEq)]
struct Stop(&'static str);

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped: {}", self.0)
    }
}

impl std::error::Error for Stop {}

fn external(e: KernelError) -> Stop {
    match e {
        KernelError::External(e) => *e.downcast::<Stop>().expect("the caller's own error"),
        other => panic!("a stand-in reached the caller: {other}"),
    }
}

#[test]
fn a_sink_error_of_the_callers_own_comes_back_unchanged_from_every_kernel() {
    let (l, r) = inputs();
    let stop = |_: RecordBatch| Err(KernelError::External(Box::new(Stop("the sink"))));
    for join in kernels() {
        let err = join.for_each(&l, &r, &stop).unwrap_err();
        assert_eq!(external(err), Stop("the sink"), "{}", join.strategy());
        // Also through the residual filter's path (payload l.v < r.v keeps
        // the pair of keys 1).
        let filtered = join.clone().filter(less_than_filter(1, 1));
        let err = filtered.for_each(&l, &r, &stop).unwrap_err();
        assert_eq!(external(err), Stop("the sink"), "{}", join.strategy());
    }
    let fed = HashJoin::new(JoinType::Inner, vec![(0, 0)]).mode(HashJoinMode::Broadcast);
    let probe = JoinInput::new(l.schema().clone(), vec![]);
    let err = fed
        .for_each_fed(
            &probe,
            &r,
            &|_push| Err(KernelError::External(Box::new(Stop("the feed")))),
            &|_| Ok(()),
        )
        .unwrap_err();
    assert_eq!(external(err), Stop("the feed"));
    let err = fed
        .for_each_fed(&probe, &r, &|push| push(l.batches()[0].clone()), &stop)
        .unwrap_err();
    assert_eq!(external(err), Stop("the sink"));
}

/// A kernel written outside the crate: the left rows whose key is larger
/// than every right key (the options' projection and batch size honoured
/// by the core's layout through `output_schema`). One struct, one impl.
#[derive(Debug, Clone)]
struct AboveAll {
    options: JoinOptions,
}

impl JoinKernel for AboveAll {
    fn options(&self) -> &JoinOptions {
        &self.options
    }

    fn options_mut(&mut self) -> &mut JoinOptions {
        &mut self.options
    }

    fn join_type(&self) -> JoinType {
        JoinType::LeftSemi
    }

    fn strategy(&self) -> Strategy {
        Strategy::NestLoop
    }

    fn for_each(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        sink: &BatchSink<'_>,
    ) -> Result<(), KernelError> {
        use arrow_array::cast::AsArray;
        use arrow_array::types::Int64Type;
        let max = right
            .batches()
            .iter()
            .flat_map(|b| {
                b.column(0)
                    .as_primitive::<Int64Type>()
                    .iter()
                    .flatten()
                    .collect::<Vec<_>>()
            })
            .max();
        let schema: SchemaRef = self.output_schema(left.schema(), right.schema())?;
        for b in left.batches() {
            let keys = b.column(0).as_primitive::<Int64Type>();
            let keep: arrow_array::BooleanArray = keys
                .iter()
                .map(|k| Some(k.is_some_and(|k| max.is_none_or(|m| k > m))))
                .collect();
            let kept = arrow_select::filter::filter_record_batch(b, &keep)?;
            sink(RecordBatch::try_new(
                schema.clone(),
                kept.columns().to_vec(),
            )?)?;
        }
        Ok(())
    }
}

#[test]
fn a_kernel_from_outside_the_crate_gets_execute_collect_and_the_builders() {
    let (l, _) = inputs();
    let r = JoinInput::from_batch(side(&[Some(2), Some(1), None]));
    let kernel = AboveAll {
        options: JoinOptions::default(),
    }
    .threads(1);
    let join = Join::new(kernel.clone());
    let out = join.collect(l.clone(), r.clone()).unwrap();
    // Left row 4 (key 5, payload 4) is the only key above 2.
    assert_eq!(all_rows(&out), vec![vec![common::int(5), common::int(4)]]);
    let streamed: usize = kernel
        .execute(l.clone(), r.clone())
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(streamed, 1);
    assert!(join.fed().is_none());
    // A bad projection is the core's error, as for any kernel.
    let bad = kernel.projection(Some(vec![3]), None);
    let err = bad.collect(l, r).unwrap_err().to_string();
    assert!(err.contains("left projection names column 3"), "{err}");
}
