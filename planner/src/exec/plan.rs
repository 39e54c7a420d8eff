//! The physical plan: a tree of operators over Arrow batches, each with the
//! exact Arrow schema of the batches it produces, and its EXPLAIN text.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::choose::JoinChoice;
use crate::exec::runtime_filter::RuntimeFilters;
use crate::exec::{HashAggregate, JoinAggregate, SortExec};
use crate::expr::PhysicalExpr;
use tenon_kernels::{Join, JoinKernel, MemoryBudget};

/// One operator of a physical plan.
///
/// Operators are *streaming* (they turn each input batch into an output
/// batch: [`Operator::Scan`], [`Operator::Filter`], [`Operator::Project`],
/// [`Operator::Limit`], which also stops its input once satisfied, and the
/// probe side of a join) or *pipeline breakers* (they need all of an input
/// first: a join's inputs, [`Operator::Aggregate`] (and
/// [`Operator::JoinAggregate`], which runs its join), [`Operator::Sort`]; a
/// sort with a fetch keeps only about `fetch` rows of it). The executor fuses each run of
/// streaming operators into the pipeline that feeds the next breaker.
#[derive(Debug)]
pub enum Operator {
    /// The batches of a registered table, reduced to some of its columns.
    Scan {
        /// The name of the data the scan reads in the executor's
        /// [`Tables`](crate::exec::Tables): the table's name in the catalog,
        /// or, for a scan with its own dynamic options (docs/hints.md H40), the
        /// entry the session made for it, named
        /// `table /*+ OPTIONS('k'='v', ...) */`.
        table: String,
        /// The alias the query gives it, if any (for EXPLAIN).
        alias: Option<String>,
        /// The table columns produced, in order.
        columns: Vec<usize>,
        /// The table columns' names (for EXPLAIN).
        names: Vec<String>,
    },
    /// Literal rows (`VALUES`, or the one empty row of `SELECT 1`).
    Values {
        /// The rows, as batches.
        batches: Vec<RecordBatch>,
    },
    /// Rows for which `predicate` is true, then the columns in `keep`.
    Filter {
        /// The input.
        input: Box<PhysicalPlan>,
        /// The predicate over the input's columns.
        predicate: PhysicalExpr,
        /// Input columns kept after filtering.
        keep: Vec<usize>,
    },
    /// One output column per expression.
    Project {
        /// The input.
        input: Box<PhysicalPlan>,
        /// The expressions over the input's columns.
        exprs: Vec<PhysicalExpr>,
    },
    /// Each input row joined with the elements of its collections
    /// (`UNNEST`) or the rows a table function returns for it: streaming,
    /// in output batches of at most the batch size (module `expand`).
    Expand {
        /// The input.
        input: Box<PhysicalPlan>,
        /// The arguments, over the input's columns.
        args: Vec<PhysicalExpr>,
        /// What each row is joined with.
        kind: crate::sql::ExpandKind,
        /// LEFT: a row without elements is kept once with NULLs.
        outer: bool,
        /// The input columns carried to the output, before the
        /// expansion's own.
        keep: Vec<usize>,
        /// The SQL text, for EXPLAIN.
        text: String,
    },
    /// A join run by one of the kernels.
    Join {
        /// The left input.
        left: Box<PhysicalPlan>,
        /// The right input.
        right: Box<PhysicalPlan>,
        /// The configured kernel.
        join: Join,
        /// What the chooser decided for it (strategy, build side, reason,
        /// the run-time adaptation it allows).
        decision: JoinChoice,
    },
    /// A chain of INNER and LEFT joins on one common key, run as one
    /// multi-way join (a `MULTI_JOIN` hint, docs/hints.md H50): the inputs
    /// after the first are collected and grouped by key, then the first
    /// streams through them; no intermediate join result is made.
    MultiJoin {
        /// The inputs, in chain order.
        inputs: Vec<PhysicalPlan>,
        /// The configured kernel.
        join: Box<tenon_kernels::MultiJoin>,
        /// The decisions of the joins it runs, bottom-up (EXPLAIN's join
        /// list).
        decisions: Vec<JoinChoice>,
        /// What it joins, for EXPLAIN.
        text: String,
    },
    /// Each input row joined with the rows a lookup source returns for its
    /// key (a lookup join, module `lookup`): streaming, one request per
    /// input batch.
    Lookup {
        /// The probe input.
        input: Box<PhysicalPlan>,
        /// The configured lookup join.
        join: Box<crate::exec::lookup::LookupJoin>,
        /// What the chooser decided for it (EXPLAIN's join list).
        decision: JoinChoice,
    },
    /// Grouping and aggregate functions.
    Aggregate {
        /// The input.
        input: Box<PhysicalPlan>,
        /// The compiled aggregation.
        aggregate: Box<HashAggregate>,
    },
    /// An aggregate without GROUP BY fused into the INNER join that is its
    /// input: the join runs with a pair consumer that aggregates as it
    /// probes, without output batches (see [`JoinAggregate`]).
    JoinAggregate {
        /// The join ([`Operator::Join`]) whose pairs are aggregated.
        input: Box<PhysicalPlan>,
        /// The fused aggregation.
        aggregate: Box<JoinAggregate>,
    },
    /// ORDER BY, with an optional row limit (top-k).
    Sort {
        /// The input.
        input: Box<PhysicalPlan>,
        /// The compiled sort.
        sort: Box<SortExec>,
    },
    /// OFFSET / LIMIT.
    Limit {
        /// The input.
        input: Box<PhysicalPlan>,
        /// Rows skipped.
        skip: usize,
        /// Rows kept after skipping (`None`: all).
        fetch: Option<usize>,
    },
    /// UNION ALL of inputs with the same columns.
    Union {
        /// The inputs.
        inputs: Vec<PhysicalPlan>,
    },
    /// `INTERSECT ALL` / `EXCEPT ALL` of two inputs with the same columns
    /// (a pipeline breaker on both).
    SetOperation {
        /// The rows kept from.
        left: Box<PhysicalPlan>,
        /// The rows counted against them.
        right: Box<PhysicalPlan>,
        /// Which operation.
        op: crate::sql::SetOperator,
    },
    /// A subplan the query uses at several places (a CTE read twice, as
    /// TPC-H Q15's view is), computed once before the rest of the plan
    /// runs; every place it is used replays its batches. The first place
    /// holds the subplan (`input`); the others are `Shared` nodes with the
    /// same `id` and no input. Runtime join filters from outside do not
    /// reach into the subplan: they are tested on the replayed rows of
    /// the place they belong to (module `shared`).
    Shared {
        /// Its number in the plan (0, 1, ...).
        id: usize,
        /// The subplan, at the first place that uses it.
        input: Option<Box<PhysicalPlan>>,
    },
}

/// What running one operator produced (EXPLAIN ANALYZE).
#[derive(Debug, Default)]
pub struct OperatorMetrics {
    /// Output rows.
    pub rows: AtomicU64,
    /// Output batches.
    pub batches: AtomicU64,
    /// Bytes of the output batches' buffers.
    pub bytes: AtomicU64,
    /// Nanoseconds of the operator's own work. Streaming operators: summed
    /// over the threads that ran it; joins: the kernel's wall time, which
    /// includes the streaming operators fused above it; breakers: wall time
    /// of their final step.
    pub nanos: AtomicU64,
    /// For a scan whose rows were read with `csv.ignore-parse-errors`: the
    /// rows the reader skipped (set by whoever read them; shown by EXPLAIN
    /// ANALYZE).
    pub skipped_rows: OnceLock<u64>,
    /// For a scan of Parquet files read while the query runs: the row
    /// groups read and the row groups the files hold (fewer read: the
    /// others' statistics proved the filter above keeps none of their
    /// rows, or a satisfied LIMIT stopped the read).
    pub row_groups: OnceLock<(u64, u64)>,
    /// For a scan of Parquet files with a page index read while the query
    /// runs: the data pages of the columns read that were decoded (or may
    /// have been) and those the files hold (fewer: the page index proved
    /// the filter above keeps none of the others' rows, or their row
    /// groups were not read).
    pub pages: OnceLock<(u64, u64)>,
    /// For a scan that decoded Parquet rows late (the filter's columns
    /// first, the others only for the rows it keeps): the rows the filter
    /// kept and the rows it was evaluated on.
    pub late_rows: OnceLock<(u64, u64)>,
    /// For a join whose default build side was changed once both inputs'
    /// sizes were known: what was built instead, and why.
    pub adapted: OnceLock<String>,
    /// For an operator that tests runtime join filters on its output: the
    /// rows they dropped (not passed on; counted in `rows`).
    pub runtime_filtered: AtomicU64,
    /// For a hash join that made runtime filters: what each held, and the
    /// rows it tested and passed.
    pub runtime_filters: OnceLock<String>,
    /// What the operator wrote to disk when it did not fit the memory
    /// limit (all zero when it did).
    pub spill: SpillMetrics,
    /// The memory the operator reserved from the query's budget, now and
    /// at most (its collected inputs, tables, groups, sort buffers).
    pub memory: Arc<tenon_kernels::MemoryTracker>,
}

/// What an operator spilled (EXPLAIN ANALYZE).
#[derive(Debug, Default)]
pub struct SpillMetrics {
    /// Spill files written.
    pub files: AtomicU64,
    /// Bytes written to them.
    pub bytes: AtomicU64,
    /// Partitions written to disk (a hash join's and their splits).
    pub partitions: AtomicU64,
    /// The deepest recursion level reached (1: the partitions of the first
    /// split were joined as they were).
    pub depth: AtomicU64,
    /// Partitions joined in blocks, as they could not be split further.
    pub blocks: AtomicU64,
}

impl SpillMetrics {
    /// Whether anything was spilled.
    pub fn spilled(&self) -> bool {
        self.files.load(Ordering::Relaxed) > 0
    }

    /// `spilled: files=.. bytes=.. partitions=.. depth=.. block_joins=..`.
    pub fn text(&self) -> String {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "spilled: files={} bytes={} partitions={} depth={} block_joins={}",
            l(&self.files),
            l(&self.bytes),
            l(&self.partitions),
            l(&self.depth),
            l(&self.blocks)
        )
    }
}

impl OperatorMetrics {
    /// Counts one output batch.
    pub(crate) fn record(&self, batch: &RecordBatch) {
        self.rows
            .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.bytes
            .fetch_add(batch.get_array_memory_size() as u64, Ordering::Relaxed);
    }

    /// Adds time spent.
    pub(crate) fn add_time(&self, d: std::time::Duration) {
        self.nanos
            .fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }
}

/// A node of the physical plan: an operator, the schema of its output and
/// its metrics.
#[derive(Debug)]
pub struct PhysicalPlan {
    /// The operator.
    pub operator: Operator,
    /// The schema of every batch it produces.
    pub schema: SchemaRef,
    /// Filled while it runs.
    pub metrics: Arc<OperatorMetrics>,
    /// The query's memory budget (set on the root by [`lower`](crate::exec::lower),
    /// shared with its join kernels): the data a query reads from files is
    /// charged to it too.
    pub budget: MemoryBudget,
    /// Where and how much the query may spill (set on the root by
    /// [`lower`](crate::exec::lower) from the config).
    pub spill: crate::exec::spill::SpillSettings,
    /// The runtime join filters the node makes (a hash join) or tests on
    /// its output (module `runtime_filter`).
    pub runtime_filters: RuntimeFilters,
}

impl PhysicalPlan {
    /// A node producing batches of `schema`.
    pub fn new(operator: Operator, schema: SchemaRef) -> Self {
        PhysicalPlan {
            operator,
            schema,
            metrics: Arc::default(),
            budget: MemoryBudget::unlimited(),
            spill: Default::default(),
            runtime_filters: RuntimeFilters::default(),
        }
    }

    /// Bytes of spill files this node and the nodes below it wrote in the
    /// last run.
    pub fn spilled_bytes(&self) -> u64 {
        self.metrics.spill.bytes.load(Ordering::Relaxed)
            + self
                .children()
                .iter()
                .map(|c| c.spilled_bytes())
                .sum::<u64>()
    }

    /// The node's inputs, to change them.
    pub(crate) fn children_mut(&mut self) -> Vec<&mut PhysicalPlan> {
        match &mut self.operator {
            Operator::Scan { .. } | Operator::Values { .. } => vec![],
            Operator::Filter { input, .. }
            | Operator::Project { input, .. }
            | Operator::Expand { input, .. }
            | Operator::Lookup { input, .. }
            | Operator::Aggregate { input, .. }
            | Operator::JoinAggregate { input, .. }
            | Operator::Sort { input, .. }
            | Operator::Limit { input, .. } => vec![input],
            Operator::Shared { input, .. } => input.iter_mut().map(|i| &mut **i).collect(),
            Operator::Join { left, right, .. } | Operator::SetOperation { left, right, .. } => {
                vec![left, right]
            }
            Operator::Union { inputs } | Operator::MultiJoin { inputs, .. } => {
                inputs.iter_mut().collect()
            }
        }
    }

    /// The node's inputs.
    pub fn children(&self) -> Vec<&PhysicalPlan> {
        match &self.operator {
            Operator::Scan { .. } | Operator::Values { .. } => vec![],
            Operator::Filter { input, .. }
            | Operator::Project { input, .. }
            | Operator::Expand { input, .. }
            | Operator::Lookup { input, .. }
            | Operator::Aggregate { input, .. }
            | Operator::JoinAggregate { input, .. }
            | Operator::Sort { input, .. }
            | Operator::Limit { input, .. } => vec![input],
            Operator::Shared { input, .. } => input.iter().map(|i| &**i).collect(),
            Operator::Join { left, right, .. } | Operator::SetOperation { left, right, .. } => {
                vec![left, right]
            }
            Operator::Union { inputs } | Operator::MultiJoin { inputs, .. } => {
                inputs.iter().collect()
            }
        }
    }

    /// Every join of the plan, in the order the executor's tree walk meets
    /// them (inputs before the join).
    pub fn joins(&self) -> Vec<&JoinChoice> {
        let mut out = Vec::new();
        fn walk<'a>(p: &'a PhysicalPlan, out: &mut Vec<&'a JoinChoice>) {
            for c in p.children() {
                walk(c, out);
            }
            match &p.operator {
                Operator::Join { decision, .. } | Operator::Lookup { decision, .. } => {
                    out.push(decision)
                }
                Operator::MultiJoin { decisions, .. } => out.extend(decisions),
                _ => {}
            }
        }
        walk(self, &mut out);
        out
    }

    /// One line describing the operator (no metrics).
    pub fn describe(&self) -> String {
        let cols = |names: Vec<String>| names.join(", ");
        match &self.operator {
            Operator::Scan {
                table,
                alias,
                names,
                ..
            } => {
                let alias = match alias {
                    Some(a) if a != table => format!(" AS {a}"),
                    _ => String::new(),
                };
                format!("Scan: {table}{alias} [{}]", cols(names.clone()))
            }
            Operator::Values { batches } => format!(
                "Values: {} row(s)",
                batches.iter().map(|b| b.num_rows()).sum::<usize>()
            ),
            Operator::Filter { predicate, .. } => format!("Filter: {predicate}"),
            Operator::Expand {
                kind, outer, text, ..
            } => {
                let what = match kind {
                    crate::sql::ExpandKind::Unnest { .. } => "unnest".to_string(),
                    crate::sql::ExpandKind::Function(f) => format!("table function {}", f.name()),
                };
                let join = if *outer { "LEFT" } else { "CROSS" };
                format!("Expand: {what} ({join} JOIN {text})")
            }
            Operator::Project { exprs, .. } => format!(
                "Project: [{}]",
                cols(exprs.iter().map(|e| e.to_string()).collect())
            ),
            Operator::Join {
                decision,
                join,
                left,
                right,
            } => {
                let d = decision;
                let mut s = format!("Join: {} {}", d.strategy, d.join_type);
                if let Some(side) = d.build_side {
                    let _ = write!(
                        s,
                        " build={}",
                        d.build
                            .clone()
                            .unwrap_or_else(|| format!("{side:?}").to_lowercase())
                    );
                }
                if !d.keys.is_empty() {
                    let _ = write!(s, " on=[{}]", d.keys.join(", "));
                }
                if let Some(f) = &d.filter {
                    let _ = write!(s, " filter={f}");
                }
                if let Some(t) = &d.time_join {
                    let _ = write!(s, " [{t}]");
                }
                let ranges = join.range_conditions();
                if !ranges.is_empty() {
                    let texts: Vec<String> = ranges
                        .iter()
                        .map(|c| range_text(c, &left.schema, &right.schema))
                        .collect();
                    let _ = write!(s, " ranges=[{}]", texts.join(", "));
                }
                let _ = write!(s, " ({})", d.reason);
                s
            }
            Operator::Lookup { join, .. } => join.describe(),
            Operator::MultiJoin { text, .. } => format!("MultiJoin: {text}"),
            Operator::Aggregate { aggregate, .. } => aggregate.describe(),
            Operator::JoinAggregate { aggregate, .. } => aggregate.describe(),
            Operator::Sort { sort, .. } => sort.describe(),
            Operator::Limit { skip, fetch, .. } => match fetch {
                Some(n) => format!("Limit: skip={skip} fetch={n}"),
                None => format!("Limit: skip={skip}"),
            },
            Operator::Union { .. } => "Union".to_string(),
            Operator::SetOperation { op, .. } => format!("SetOperation: {op}"),
            Operator::Shared { id, input: Some(_) } => {
                format!("Shared: #{id} (computed once, before the rest of the plan)")
            }
            Operator::Shared { id, input: None } => {
                format!("Shared: #{id} (the rows of the first Shared #{id}, read again)")
            }
        }
    }

    /// The plan as an indented tree, one operator per line; with
    /// `analyze`, each line ends with the operator's metrics.
    pub fn to_text(&self, analyze: bool) -> String {
        let mut out = String::new();
        self.write_tree(&mut out, 0, analyze);
        out
    }

    fn write_tree(&self, out: &mut String, depth: usize, analyze: bool) {
        let _ = write!(
            out,
            "{}{}{}",
            "  ".repeat(depth),
            self.describe(),
            self.runtime_filter_text()
        );
        if analyze {
            let m = &self.metrics;
            let _ = write!(
                out,
                "  [rows={} batches={} bytes={} time={:.3}ms]",
                m.rows.load(Ordering::Relaxed),
                m.batches.load(Ordering::Relaxed),
                m.bytes.load(Ordering::Relaxed),
                m.nanos.load(Ordering::Relaxed) as f64 / 1e6
            );
            if let Some(skipped) = m.skipped_rows.get() {
                let _ = write!(out, " skipped_rows={skipped} (csv.ignore-parse-errors)");
            }
            if let Some((read, total)) = m.row_groups.get() {
                let _ = write!(out, " row_groups={read}/{total}");
            }
            if let Some((read, total)) = m.pages.get() {
                let _ = write!(out, " pages={read}/{total}");
            }
            if let Some((kept, evaluated)) = m.late_rows.get() {
                let _ = write!(out, " late_rows={kept}/{evaluated}");
            }
            if let Some(adapted) = m.adapted.get() {
                let _ = write!(out, " adapted: {adapted}");
            }
            if let Operator::Lookup { join, .. } = &self.operator {
                let _ = write!(out, " {}", join.metrics);
            }
            let peak = m.memory.peak();
            if peak > 0 {
                let _ = write!(out, " peak_memory={peak}");
            }
            if m.spill.spilled() {
                let _ = write!(out, " {}", m.spill.text());
            }
            out.push_str(&self.runtime_filter_figures());
        }
        out.push('\n');
        for c in self.children() {
            c.write_tree(out, depth + 1, analyze);
        }
    }
}

/// A kernel's range condition with its columns' names, and its offset in
/// the column type's unit: `left.t < right.t + 600000000us`.
fn range_text(c: &tenon_kernels::RangeCondition, left: &SchemaRef, right: &SchemaRef) -> String {
    use arrow_schema::{DataType, TimeUnit};
    let name = |s: &SchemaRef, i: usize| {
        s.fields()
            .get(i)
            .map_or_else(|| format!("#{i}"), |f| f.name().clone())
    };
    let mut text = format!(
        "left.{} {} right.{}",
        name(left, c.left),
        c.op,
        name(right, c.right)
    );
    if c.offset != 0 {
        let unit = match left.fields().get(c.left).map(|f| f.data_type()) {
            Some(DataType::Timestamp(u, _) | DataType::Duration(u)) => match u {
                TimeUnit::Second => "s",
                TimeUnit::Millisecond => "ms",
                TimeUnit::Microsecond => "us",
                TimeUnit::Nanosecond => "ns",
            },
            Some(DataType::Date32) => " days",
            Some(DataType::Date64) => "ms",
            _ => "",
        };
        let sign = if c.offset < 0 { '-' } else { '+' };
        let _ = write!(text, " {sign} {}{unit}", c.offset.unsigned_abs());
    }
    text
}
