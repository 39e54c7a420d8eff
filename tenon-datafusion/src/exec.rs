//! [`TenonJoinExec`]: one of tenon's join kernels as a DataFusion
//! `ExecutionPlan`, asking DataFusion for the distribution its strategy
//! needs.
//!
//! | strategy | left input | right input | runs |
//! |---|---|---|---|
//! | BROADCAST (build right) | any partitioning | one partition | each left partition against all of the right, collected once |
//! | BROADCAST (build left) | one partition | any partitioning | each right partition against all of the left |
//! | SHUFFLE_HASH, SHUFFLE_MERGE | hash-partitioned on the keys | the same, co-partitioned | partition `i` of both sides |
//! | NEST_LOOP | one partition | one partition | once |
//!
//! A broadcast builds the side that its join type does not preserve (a
//! LEFT join's right input, a RIGHT join's left), as tenon's H13 says, so
//! that no build row's absence of a match has to be told across
//! partitions. Each partition collects its inputs, runs the kernel on a
//! blocking thread (one thread: DataFusion's partitions are the
//! parallelism), and streams the output batches. What it collects is
//! charged to the session's `MemoryPool` before it is kept.

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, JoinType as DfJoinType, Result};
use datafusion::execution::TaskContext;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryLimit, MemoryReservation};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{
    EquivalenceProperties, Partitioning, PhysicalExpr, PhysicalExprRef,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::joins::utils::JoinFilter as DfJoinFilter;
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, ExecutionPlanProperties,
    InputDistributionRequirements, PlanProperties, SendableRecordBatchStream,
};
use futures::{StreamExt, TryStreamExt};
use tenon_kernels::{
    HashJoin, HashJoinMode, Join, JoinInput, JoinKernel, JoinSide, JoinType, KernelError,
    MemoryBudget, NestedLoopJoin, SortMergeJoin, Strategy, batch_bytes,
};
use tokio::sync::OnceCell;
use tokio::sync::mpsc::Sender;

use crate::filter::DataFusionFilter;

/// One of tenon's joins in a DataFusion plan (module docs).
#[derive(Debug)]
pub struct TenonJoinExec {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
    filter: Option<DfJoinFilter>,
    df_join_type: DfJoinType,
    /// NOT IN's null-aware anti join (kernel `LeftAntiNullAware`).
    null_aware: bool,
    null_equal: bool,
    strategy: Strategy,
    build_side: Option<JoinSide>,
    kernel: Join,
    properties: Arc<PlanProperties>,
    /// A broadcast's build side, collected by the first partition that
    /// needs it, with its charge to the memory pool.
    built: Arc<OnceCell<Arc<Broadcast>>>,
}

/// A broadcast's build side, and its charge to the memory pool.
type Broadcast = (Vec<RecordBatch>, MemoryReservation);

/// The kernel's join type of DataFusion's `t`, when a kernel runs it.
pub fn kernel_join_type(t: &DfJoinType) -> Option<JoinType> {
    Some(match t {
        DfJoinType::Inner => JoinType::Inner,
        DfJoinType::Left => JoinType::Left,
        DfJoinType::Right => JoinType::Right,
        DfJoinType::Full => JoinType::Full,
        DfJoinType::LeftSemi => JoinType::LeftSemi,
        DfJoinType::LeftAnti => JoinType::LeftAnti,
        DfJoinType::RightSemi => JoinType::RightSemi,
        DfJoinType::RightAnti => JoinType::RightAnti,
        DfJoinType::LeftMark | DfJoinType::RightMark => return None,
    })
}

/// The side a broadcast of a `t` join may build (the side `t` does not
/// preserve; `preferred` when both may be).
pub fn broadcast_side(t: JoinType, preferred: JoinSide) -> Option<JoinSide> {
    match t {
        JoinType::Inner => Some(preferred),
        JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti => Some(JoinSide::Right),
        JoinType::Right | JoinType::RightSemi | JoinType::RightAnti => Some(JoinSide::Left),
        // NOT IN: every partition of the left side sees the whole right
        JoinType::LeftAntiNullAware => Some(JoinSide::Right),
        JoinType::Full => None,
    }
}

impl TenonJoinExec {
    /// A join of `left` and `right` on the key columns `on` (each a
    /// [`Column`] of its side), with the residual `filter`, run as
    /// `strategy`; `build_side` for BROADCAST (the side it builds and
    /// every partition of the other side reads whole).
    ///
    /// # Errors
    ///
    /// A key that is not a column, a join type no kernel runs (mark
    /// joins), a broadcast of the side the join type preserves, or
    /// SHUFFLE_HASH / SHUFFLE_MERGE / BROADCAST without keys (a NEST_LOOP
    /// tests its keys with the rest of the condition).
    #[allow(clippy::too_many_arguments)]
    pub fn try_new(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
        filter: Option<DfJoinFilter>,
        join_type: &DfJoinType,
        null_equal: bool,
        strategy: Strategy,
        build_side: Option<JoinSide>,
    ) -> Result<Self> {
        let kernel_type = kernel_join_type(join_type).ok_or_else(|| {
            DataFusionError::Plan(format!("tenon join: no kernel runs a {join_type} join"))
        })?;
        Self::with_kernel_type(
            left,
            right,
            on,
            filter,
            join_type,
            kernel_type,
            null_equal,
            strategy,
            build_side,
        )
    }

    /// SQL's `left.k NOT IN (SELECT right.k ...)`: DataFusion's null-aware
    /// anti join (a NULL among the right keys removes every left row; a
    /// left row with a NULL key goes whenever the right side has a row),
    /// run as a BROADCAST of the right side, which every partition of the
    /// left side must see whole for a NULL on it to remove every row.
    ///
    /// # Errors
    ///
    /// Not one key column a side.
    pub fn try_new_not_in(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
    ) -> Result<Self> {
        if on.len() != 1 {
            return Err(DataFusionError::Plan(format!(
                "tenon join: NOT IN compares one column, not {}",
                on.len()
            )));
        }
        Self::with_kernel_type(
            left,
            right,
            on,
            None,
            &DfJoinType::LeftAnti,
            JoinType::LeftAntiNullAware,
            false,
            Strategy::Broadcast,
            Some(JoinSide::Right),
        )
    }

    /// [`TenonJoinExec::try_new`] with the kernel's join type given.
    #[allow(clippy::too_many_arguments)]
    fn with_kernel_type(
        left: Arc<dyn ExecutionPlan>,
        right: Arc<dyn ExecutionPlan>,
        on: Vec<(PhysicalExprRef, PhysicalExprRef)>,
        filter: Option<DfJoinFilter>,
        join_type: &DfJoinType,
        kernel_type: JoinType,
        null_equal: bool,
        strategy: Strategy,
        build_side: Option<JoinSide>,
    ) -> Result<Self> {
        let plan_err = |m: String| DataFusionError::Plan(format!("tenon join: {m}"));
        let mut keys = Vec::with_capacity(on.len());
        for (l, r) in &on {
            let column = |e: &PhysicalExprRef| e.downcast_ref::<Column>().map(Column::index);
            match (column(l), column(r)) {
                (Some(a), Some(b)) => keys.push((a, b)),
                _ => return Err(plan_err(format!("the key {l} = {r} is not two columns"))),
            }
        }
        let build_side = match strategy {
            Strategy::Broadcast => {
                let side = build_side.unwrap_or(JoinSide::Right);
                if broadcast_side(kernel_type, side) != Some(side) {
                    return Err(plan_err(format!(
                        "BROADCAST cannot build the {side:?} input of a {join_type} join"
                    )));
                }
                Some(side)
            }
            Strategy::ShuffleHash => Some(build_side.unwrap_or(JoinSide::Right)),
            Strategy::ShuffleMerge => None,
            Strategy::NestLoop => Some(JoinSide::Right),
        };
        if strategy != Strategy::NestLoop && keys.is_empty() {
            return Err(plan_err(format!("{strategy} needs equality keys")));
        }
        let kernel_filter = match (strategy, filter.clone()) {
            // the nested loop tests the keys with the rest of the condition
            (Strategy::NestLoop, f) if !keys.is_empty() => {
                Some(DataFusionFilter::with_keys(f, keys.clone(), null_equal).into_kernel_filter())
            }
            (_, f) => f.map(|f| DataFusionFilter::new(f).into_kernel_filter()),
        };
        let kernel: Join = match strategy {
            Strategy::Broadcast | Strategy::ShuffleHash => {
                let mode = if strategy == Strategy::Broadcast {
                    HashJoinMode::Broadcast
                } else {
                    HashJoinMode::Partitioned
                };
                let j = HashJoin::new(kernel_type, keys)
                    .mode(mode)
                    .build_side(build_side.unwrap_or(JoinSide::Right))
                    .null_equal(null_equal)
                    .threads(1);
                match kernel_filter {
                    Some(f) => j.filter(f).into(),
                    None => j.into(),
                }
            }
            Strategy::ShuffleMerge => {
                let j = SortMergeJoin::new(kernel_type, keys)
                    .null_equal(null_equal)
                    .threads(1);
                match kernel_filter {
                    Some(f) => j.filter(f).into(),
                    None => j.into(),
                }
            }
            Strategy::NestLoop => {
                let j = NestedLoopJoin::new(kernel_type)
                    .build_side(JoinSide::Right)
                    .threads(1);
                match kernel_filter {
                    Some(f) => j.filter(f).into(),
                    None => j.into(),
                }
            }
        };
        let schema = kernel
            .output_schema(&left.schema(), &right.schema())
            .map_err(|e| plan_err(e.to_string()))?;
        let partitions = match (strategy, build_side) {
            (Strategy::NestLoop, _) => 1,
            (Strategy::Broadcast, Some(JoinSide::Left)) => {
                right.output_partitioning().partition_count()
            }
            _ => left.output_partitioning().partition_count(),
        };
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(partitions.max(1)),
            EmissionType::Final,
            Boundedness::Bounded,
        );
        Ok(TenonJoinExec {
            left,
            right,
            on,
            filter,
            df_join_type: *join_type,
            null_aware: kernel_type == JoinType::LeftAntiNullAware,
            null_equal,
            strategy,
            build_side,
            kernel,
            properties: Arc::new(properties),
            built: Arc::new(OnceCell::new()),
        })
    }

    /// The strategy it runs.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The side it builds (`None` for SHUFFLE_MERGE).
    pub fn build_side(&self) -> Option<JoinSide> {
        self.build_side
    }

    /// Whether it is NOT IN's null-aware anti join
    /// ([`TenonJoinExec::try_new_not_in`]).
    pub fn null_aware(&self) -> bool {
        self.null_aware
    }

    /// The join type.
    pub fn join_type(&self) -> &DfJoinType {
        &self.df_join_type
    }

    /// The equi keys, (left, right).
    pub fn on(&self) -> &[(PhysicalExprRef, PhysicalExprRef)] {
        &self.on
    }

    /// The residual condition.
    pub fn filter(&self) -> Option<&DfJoinFilter> {
        self.filter.as_ref()
    }

    /// Whether NULL keys equal each other (`IS NOT DISTINCT FROM`).
    pub fn null_equal(&self) -> bool {
        self.null_equal
    }

    fn broadcast_build(&self) -> Option<JoinSide> {
        (self.strategy == Strategy::Broadcast)
            .then_some(self.build_side)
            .flatten()
    }
}

impl DisplayAs for TenonJoinExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "TenonJoinExec: strategy={}, join_type={}",
            self.strategy, self.df_join_type
        )?;
        if self.null_aware {
            write!(f, " (NOT IN, null-aware)")?;
        }
        if let Some(side) = self
            .build_side
            .filter(|_| self.strategy != Strategy::ShuffleMerge)
        {
            write!(f, ", build={}", format!("{side:?}").to_lowercase())?;
        }
        if !self.on.is_empty() {
            let on: Vec<String> = self.on.iter().map(|(l, r)| format!("({l}, {r})")).collect();
            write!(f, ", on=[{}]", on.join(", "))?;
        }
        if let Some(filter) = &self.filter {
            write!(f, ", filter={filter}")?;
        }
        Ok(())
    }
}

/// Every batch of `plan`'s partition `partition`, each charged to
/// `reservation` as it arrives: a memory pool with a limit stops the
/// collection at the batch that exceeds it, not after all of it is held.
async fn collect_partition(
    plan: Arc<dyn ExecutionPlan>,
    partition: usize,
    ctx: Arc<TaskContext>,
    reservation: &MemoryReservation,
) -> Result<Vec<RecordBatch>> {
    let mut stream = plan.execute(partition, ctx)?;
    let mut out = Vec::new();
    while let Some(batch) = stream.try_next().await? {
        reservation.try_grow(batch_bytes(&batch))?;
        out.push(batch);
    }
    Ok(out)
}

/// Every batch of every partition of `plan`, charged as
/// [`collect_partition`] charges them.
async fn collect_all(
    plan: Arc<dyn ExecutionPlan>,
    ctx: Arc<TaskContext>,
    reservation: &MemoryReservation,
) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    for p in 0..plan.output_partitioning().partition_count() {
        out.extend(collect_partition(Arc::clone(&plan), p, Arc::clone(&ctx), reservation).await?);
    }
    Ok(out)
}

impl ExecutionPlan for TenonJoinExec {
    fn name(&self) -> &str {
        "TenonJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn input_distribution_requirements(&self) -> InputDistributionRequirements {
        let keys = || -> (Vec<PhysicalExprRef>, Vec<PhysicalExprRef>) {
            self.on
                .iter()
                .map(|(l, r)| (Arc::clone(l), Arc::clone(r)))
                .unzip()
        };
        match (self.strategy, self.broadcast_build()) {
            (Strategy::NestLoop, _) => InputDistributionRequirements::new(vec![
                Distribution::SinglePartition,
                Distribution::SinglePartition,
            ]),
            (Strategy::Broadcast, Some(JoinSide::Left)) => {
                InputDistributionRequirements::new(vec![
                    Distribution::SinglePartition,
                    Distribution::UnspecifiedDistribution,
                ])
            }
            (Strategy::Broadcast, _) => InputDistributionRequirements::new(vec![
                Distribution::UnspecifiedDistribution,
                Distribution::SinglePartition,
            ]),
            _ => {
                let (l, r) = keys();
                InputDistributionRequirements::co_partitioned(vec![
                    Distribution::KeyPartitioned(l),
                    Distribution::KeyPartitioned(r),
                ])
            }
        }
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.left, &self.right]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        for (l, r) in &self.on {
            if f(l)? == TreeNodeRecursion::Stop || f(r)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        if let Some(filter) = &self.filter {
            return f(filter.expression());
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [left, right]: [Arc<dyn ExecutionPlan>; 2] = children
            .try_into()
            .map_err(|_| DataFusionError::Internal("TenonJoinExec takes two children".into()))?;
        if self.null_aware {
            return Ok(Arc::new(TenonJoinExec::try_new_not_in(
                left,
                right,
                self.on.clone(),
            )?));
        }
        Ok(Arc::new(TenonJoinExec::try_new(
            left,
            right,
            self.on.clone(),
            self.filter.clone(),
            &self.df_join_type,
            self.null_equal,
            self.strategy,
            self.build_side,
        )?))
    }

    fn execute(
        &self,
        partition: usize,
        ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let job = Job {
            left: Arc::clone(&self.left),
            right: Arc::clone(&self.right),
            broadcast: self.broadcast_build(),
            built: Arc::clone(&self.built),
            kernel: self.kernel.clone(),
            partition,
            ctx,
        };
        // A few output batches ahead of the reader; dropping the stream
        // aborts the collection and makes the kernel's next output fail,
        // which stops it.
        let mut builder = RecordBatchReceiverStream::builder(self.schema(), 2);
        let tx = builder.tx();
        builder.spawn(job.run(tx));
        Ok(builder.build())
    }
}

/// One partition of a [`TenonJoinExec`] at work.
struct Job {
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    broadcast: Option<JoinSide>,
    built: Arc<OnceCell<Arc<Broadcast>>>,
    kernel: Join,
    partition: usize,
    ctx: Arc<TaskContext>,
}

impl Job {
    /// Collects the side the kernel holds whole (a broadcast's shared by
    /// every partition), streams the other side through the kernel batch
    /// by batch when the kernel takes it so (the hash joins), else
    /// collects it too, and sends the output to `tx` as it comes.
    async fn run(self, tx: Sender<Result<RecordBatch>>) -> Result<()> {
        let Job {
            left,
            right,
            broadcast,
            built,
            kernel,
            partition,
            ctx,
        } = self;
        let (lschema, rschema) = (left.schema(), right.schema());
        let reservation =
            MemoryConsumer::new(format!("TenonJoinExec[{partition}]")).register(ctx.memory_pool());
        let held = |side: JoinSide| {
            let plan = match side {
                JoinSide::Left => Arc::clone(&left),
                JoinSide::Right => Arc::clone(&right),
            };
            let (ctx, built, reservation) = (Arc::clone(&ctx), Arc::clone(&built), &reservation);
            async move {
                if broadcast != Some(side) {
                    return collect_partition(plan, partition, ctx, reservation).await;
                }
                let shared = built
                    .get_or_try_init(|| async {
                        let r = MemoryConsumer::new("TenonJoinExec broadcast")
                            .register(ctx.memory_pool());
                        let batches = collect_all(plan, Arc::clone(&ctx), &r).await?;
                        Ok::<_, DataFusionError>(Arc::new((batches, r)))
                    })
                    .await?;
                Ok(shared.0.clone())
            }
        };
        // The kernel's own tables (a hash table, sorted copies) come from
        // a budget of what the pool has left when it starts: a kernel that
        // needs more fails as DataFusion's operators do.
        let pool = ctx.memory_pool();
        let free = match pool.memory_limit() {
            MemoryLimit::Finite(limit) => limit.saturating_sub(pool.reserved()),
            _ => usize::MAX,
        };
        let kernel = kernel.memory(MemoryBudget::new(free));
        let out = tx.clone();
        let sink =
            move |b: RecordBatch| out.blocking_send(Ok(b)).map_err(|_| KernelError::Cancelled);
        let fed_build = kernel
            .fed()
            .map(|f| f.build_side())
            .filter(|side| broadcast.is_none() || broadcast == Some(*side));
        let joined = match fed_build {
            Some(build) => {
                let held_batches = held(build).await?;
                let probe_plan = match build {
                    JoinSide::Left => right,
                    JoinSide::Right => left,
                };
                let mut probe = probe_plan.execute(partition, Arc::clone(&ctx))?;
                let (ptx, prx) = tokio::sync::mpsc::channel::<RecordBatch>(2);
                let feeder = async move {
                    while let Some(batch) = probe.next().await {
                        if ptx.send(batch?).await.is_err() {
                            break; // the kernel stopped
                        }
                    }
                    Ok::<_, DataFusionError>(())
                };
                let (l, r) = match build {
                    JoinSide::Left => (
                        JoinInput::new(lschema, held_batches),
                        JoinInput::new(rschema, Vec::new()),
                    ),
                    JoinSide::Right => (
                        JoinInput::new(lschema, Vec::new()),
                        JoinInput::new(rschema, held_batches),
                    ),
                };
                let prx = std::sync::Mutex::new(prx);
                let kernel_task = tokio::task::spawn_blocking(move || {
                    let fed = kernel.fed().expect("a fed kernel");
                    fed.for_each_fed(
                        &l,
                        &r,
                        &|probe| {
                            let mut prx = prx.lock().unwrap_or_else(|e| e.into_inner());
                            while let Some(batch) = prx.blocking_recv() {
                                probe(batch)?;
                            }
                            Ok(())
                        },
                        &sink,
                    )
                });
                // the probe side's error first: the kernel then saw its
                // input end early, and what it sent is not the answer
                feeder.await?;
                kernel_task.await
            }
            None => {
                let l = held(JoinSide::Left).await?;
                let r = held(JoinSide::Right).await?;
                tokio::task::spawn_blocking(move || {
                    kernel.for_each(
                        &JoinInput::new(lschema, l),
                        &JoinInput::new(rschema, r),
                        &sink,
                    )
                })
                .await
            }
        };
        match joined.map_err(|e| DataFusionError::External(Box::new(e)))? {
            Ok(()) | Err(KernelError::Cancelled) => Ok(()),
            Err(e @ KernelError::MemoryLimitExceeded { .. }) => Err(
                DataFusionError::ResourcesExhausted(format!("TenonJoinExec[{partition}]: {e}")),
            ),
            Err(e) => Err(DataFusionError::External(Box::new(e))),
        }
    }
}
