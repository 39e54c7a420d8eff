//! Lowering a planned query to a physical plan.
//!
//! One walk down the logical plan, carrying the set of columns the parent
//! needs (projection pushdown: a scan reads only the columns some operator
//! above it uses, a join outputs only the columns used above it). Each
//! lowered node reports which of its logical node's columns it produces
//! ([`Lowered::cols`], possibly more than were needed), and parents bind
//! their expressions to those positions.
//!
//! Joins are built from the chooser's decision, which each join node
//! carries (its decision number: [`JoinPlan::decision_of`]): strategy,
//! build side, and for NEST_LOOP the key equalities folded into the
//! predicate (with range conditions pulled out for the sorted fast path).
//! Lowering decides nothing itself.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion_common::DFSchema;
use datafusion_expr::LogicalPlan;
use datafusion_expr::logical_plan::{
    Distinct, FetchType, Filter, Limit, Projection, SkipType, Sort, TableScan, Union,
};
use datafusion_expr::type_coercion::binary::comparison_coercion;

use crate::choose::JoinPlan;
use crate::config::Config;
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::shared::SharedPlans;
use crate::exec::source::Tables;
use crate::exec::{ExecError, HashAggregate, Result, SortExec};
use crate::expr::{PhysicalExpr, QueryContext};
use crate::sql::{Expand, as_expand, as_set_operation};
use tenon_kernels::MemoryBudget;

mod join;
mod lookup;
mod multi_join;
mod ranges;
mod time_join;

/// A lowered node: the operator tree and which columns of the logical
/// node it produces, in order.
struct Lowered {
    plan: PhysicalPlan,
    cols: Vec<usize>,
}

impl Lowered {
    /// Position of logical column `c` in the output, by a lookup table.
    fn positions(&self, width: usize) -> Vec<usize> {
        let mut pos = vec![usize::MAX; width];
        for (j, &c) in self.cols.iter().enumerate() {
            pos[c] = j;
        }
        pos
    }
}

/// Binds `expr` (over the logical node's columns) to a lowered node's
/// output positions.
fn bind(expr: &PhysicalExpr, pos: &[usize]) -> PhysicalExpr {
    expr.remap_columns(&|i| pos[i])
}

/// The most of a memory limit that operators able to spill leave free for
/// the batches in flight through the pipelines (a quarter of the limit
/// below 256 MiB).
const KEPT_FOR_PIPELINES: usize = 64 << 20;

/// Lowers the planned query to a physical plan.
///
/// # Errors
///
/// [`ExecError::Unsupported`] for plan nodes and expressions tenon does not
/// run, [`ExecError::MissingTable`], and expression compile errors.
pub fn lower(
    plan: &JoinPlan,
    tables: &Tables,
    config: &Config,
    ctx: &QueryContext,
) -> Result<PhysicalPlan> {
    let mut lowering = Lowering {
        plan,
        tables,
        config,
        ctx,
        budget: match config.memory_limit {
            Some(limit) => {
                let limit = usize::try_from(limit).unwrap_or(usize::MAX);
                // What spills leaves a share free for what cannot (the
                // batches in flight through the pipelines).
                MemoryBudget::keeping(limit, (limit / 4).min(KEPT_FOR_PIPELINES))
            }
            None => MemoryBudget::unlimited(),
        },
        shared: SharedPlans::find(&plan.query.plan, config.shared_subplans),
    };
    let root = &plan.query.plan;
    let all: Vec<usize> = (0..root.schema().fields().len()).collect();
    let lowered = lowering.lower(root, &all)?;
    // The result has exactly the query's columns, in order.
    let lowered = select(lowered, &all, root.schema())?;
    let mut plan = lowered.plan;
    plan.budget = lowering.budget;
    plan.spill = crate::exec::spill::SpillSettings {
        dir: config.spill_dir.clone(),
        limit: config.spill_limit,
    };
    if config.runtime_filters {
        crate::exec::runtime_filter::plan(&mut plan, tables);
    }
    Ok(plan)
}

/// One lowering of a chosen plan.
struct Lowering<'a> {
    /// The decisions, found from each join node ([`JoinPlan::decision_of`]).
    plan: &'a JoinPlan,
    tables: &'a Tables,
    config: &'a Config,
    ctx: &'a QueryContext,
    budget: MemoryBudget,
    /// Aggregates the query computes at several places, lowered once
    /// (module `shared`).
    shared: SharedPlans,
}

/// Sorted, deduplicated union of column lists.
fn union(mut a: Vec<usize>, b: impl IntoIterator<Item = usize>) -> Vec<usize> {
    a.extend(b);
    a.sort_unstable();
    a.dedup();
    a
}

/// An Arrow schema of the given fields.
fn schema_of(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

/// A projection of `lowered` onto exactly the logical columns `want`, in
/// that order (no operator when it already is).
fn select(lowered: Lowered, want: &[usize], logical: &DFSchema) -> Result<Lowered> {
    if lowered.cols == want {
        return Ok(lowered);
    }
    let pos = lowered.positions(logical.fields().len());
    let exprs: Vec<PhysicalExpr> = want
        .iter()
        .map(|&c| column_expr(&lowered.plan.schema, pos[c], logical.field(c).name()))
        .collect();
    let fields = want
        .iter()
        .map(|&c| lowered.plan.schema.field(pos[c]).clone())
        .collect();
    Ok(Lowered {
        plan: PhysicalPlan::new(
            Operator::Project {
                input: Box::new(lowered.plan),
                exprs,
            },
            schema_of(fields),
        ),
        cols: want.to_vec(),
    })
}

/// `plan` with its columns cast to `types` (no operator when they have
/// them already).
fn cast_columns(plan: PhysicalPlan, types: &[DataType]) -> Result<PhysicalPlan> {
    let schema = plan.schema.clone();
    if schema
        .fields()
        .iter()
        .zip(types)
        .all(|(f, t)| f.data_type() == t)
    {
        return Ok(plan);
    }
    let exprs = types
        .iter()
        .enumerate()
        .map(|(i, t)| column_expr(&schema, i, schema.field(i).name()).cast_to(t))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let fields = schema
        .fields()
        .iter()
        .zip(types)
        .map(|(f, t)| Field::new(f.name(), t.clone(), true))
        .collect();
    Ok(PhysicalPlan::new(
        Operator::Project {
            input: Box::new(plan),
            exprs,
        },
        schema_of(fields),
    ))
}

/// For a match arm whose guard already found the node.
fn unreachable_node() -> Result<Lowered> {
    Err(ExecError::Unsupported(
        "internal: a plan node changed while it was lowered".into(),
    ))
}

/// A plain column reference to column `i` of a batch of `schema`.
fn column_expr(schema: &SchemaRef, i: usize, name: &str) -> PhysicalExpr {
    PhysicalExpr::column_ref(i, schema.field(i).data_type().clone(), name)
}

impl Lowering<'_> {
    /// Lowers one logical node, producing at least the columns `need`.
    fn lower(&mut self, plan: &LogicalPlan, need: &[usize]) -> Result<Lowered> {
        match plan {
            LogicalPlan::TableScan(scan) => self.scan(scan, need),
            LogicalPlan::SubqueryAlias(alias) => {
                let mut lowered = self.child(&alias.input, need)?;
                name_scan(&mut lowered.plan, &alias.alias.to_string());
                Ok(lowered)
            }
            LogicalPlan::Filter(filter) => self.filter(filter, need),
            LogicalPlan::Projection(projection) => self.projection(projection, need),
            LogicalPlan::Join(join) => self.join(join, need),
            LogicalPlan::Aggregate(agg) => {
                if let Some(reader) = self.shared.reader(plan) {
                    let cols = (0..agg.schema.fields().len()).collect();
                    return Ok(Lowered { plan: reader, cols });
                }
                let mut aggregate = HashAggregate::try_new(agg, self.ctx)?;
                let child = self.child(&agg.input, &aggregate.columns())?;
                let pos = child.positions(agg.input.schema().fields().len());
                aggregate.remap_columns(&|i| pos[i]);
                let mut out =
                    aggregated(child, aggregate, (0..agg.schema.fields().len()).collect());
                // Under a memory limit the join stays a join, which can
                // spill; the fused form holds its build side whole.
                if self.config.fused_aggregate && self.config.memory_limit.is_none() {
                    out.plan = crate::exec::join_aggregate::fuse(out.plan);
                }
                out.plan = self.shared.first_place(plan, out.plan);
                Ok(out)
            }
            LogicalPlan::Distinct(Distinct::All(input)) => {
                let mut aggregate = HashAggregate::distinct(input.schema())?;
                let all: Vec<usize> = (0..input.schema().fields().len()).collect();
                let child = self.child(input, &all)?;
                let child = select(child, &all, input.schema())?;
                aggregate.remap_columns(&|i| i);
                Ok(aggregated(child, aggregate, all))
            }
            LogicalPlan::Sort(sort) => self.sort(sort, need),
            LogicalPlan::Limit(limit) => self.limit(limit, need),
            LogicalPlan::Union(u) => self.union(u, need),
            LogicalPlan::EmptyRelation(empty) => empty_relation(empty.produce_one_row),
            LogicalPlan::Values(values) => self.values(values),
            LogicalPlan::Extension(_) if as_set_operation(plan).is_some() => {
                self.set_operation(plan)
            }
            LogicalPlan::Extension(_) if as_expand(plan).is_some() => match as_expand(plan) {
                Some(e) => self.expand(e, need),
                None => unreachable_node(),
            },
            other => Err(ExecError::Unsupported(format!(
                "{} in a query plan: tenon runs scans, filters, projections, joins, \
                 aggregates, DISTINCT, ORDER BY, LIMIT, UNION ALL, INTERSECT and EXCEPT",
                node_name(other)
            ))),
        }
    }

    /// An expansion: the `need`ed input columns carried, then all of the
    /// expansion's own.
    fn expand(&mut self, e: &Expand, need: &[usize]) -> Result<Lowered> {
        let input_schema = e.input.schema();
        let width = input_schema.fields().len();
        let args = PhysicalExpr::compile_each(e.args.iter(), input_schema, self.ctx)?;
        let carried: Vec<usize> = need.iter().copied().filter(|&c| c < width).collect();
        let child_need = union(carried.clone(), args.iter().flat_map(|a| a.columns()));
        let child = self.child(&e.input, &child_need)?;
        let pos = child.positions(width);
        let args: Vec<PhysicalExpr> = args.iter().map(|a| bind(a, &pos)).collect();
        let keep: Vec<usize> = carried.iter().map(|&c| pos[c]).collect();
        let mut fields: Vec<Field> = keep
            .iter()
            .map(|&i| child.plan.schema.field(i).clone())
            .collect();
        let total = e.schema.fields().len();
        fields.extend((width..total).map(|c| e.schema.field(c).as_ref().clone()));
        let mut cols = carried;
        cols.extend(width..total);
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Expand {
                    input: Box::new(child.plan),
                    args,
                    kind: e.kind.clone(),
                    outer: e.outer,
                    keep,
                    text: e.text.clone(),
                },
                schema_of(fields),
            ),
            cols,
        })
    }

    /// Rows for which the predicate holds, then the `need`ed columns.
    fn filter(&mut self, filter: &Filter, need: &[usize]) -> Result<Lowered> {
        let input_schema = filter.input.schema();
        let predicate = PhysicalExpr::compile(&filter.predicate, input_schema, self.ctx)?;
        let child_need = union(need.to_vec(), predicate.columns());
        let child = self.child(&filter.input, &child_need)?;
        let pos = child.positions(input_schema.fields().len());
        let predicate = bind(&predicate, &pos);
        let keep: Vec<usize> = need.iter().map(|&c| pos[c]).collect();
        let fields = keep
            .iter()
            .map(|&i| child.plan.schema.field(i).clone())
            .collect();
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Filter {
                    input: Box::new(child.plan),
                    predicate,
                    keep,
                },
                schema_of(fields),
            ),
            cols: need.to_vec(),
        })
    }

    /// The `need`ed expressions of a projection.
    fn projection(&mut self, projection: &Projection, need: &[usize]) -> Result<Lowered> {
        let input_schema = projection.input.schema();
        // one index of the input's columns for all the expressions,
        // one sort of the columns they read: linear in a wide list
        let exprs = PhysicalExpr::compile_each(
            need.iter().map(|&c| &projection.expr[c]),
            input_schema,
            self.ctx,
        )?;
        let child_need = union(Vec::new(), exprs.iter().flat_map(|e| e.columns()));
        let child = self.child(&projection.input, &child_need)?;
        let pos = child.positions(input_schema.fields().len());
        let exprs: Vec<PhysicalExpr> = exprs.iter().map(|e| bind(e, &pos)).collect();
        let fields = need
            .iter()
            .zip(&exprs)
            .map(|(&c, e)| {
                let name = projection.schema.field(c).name();
                match e.as_column() {
                    Some(i) => child.plan.schema.field(i).clone().with_name(name),
                    None => Field::new(name, e.data_type().clone(), true),
                }
            })
            .collect();
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Project {
                    input: Box::new(child.plan),
                    exprs,
                },
                schema_of(fields),
            ),
            cols: need.to_vec(),
        })
    }

    /// ORDER BY (with its fetch, if any).
    fn sort(&mut self, sort: &Sort, need: &[usize]) -> Result<Lowered> {
        let input_schema = sort.input.schema();
        let mut exec = SortExec::try_new(&sort.expr, input_schema, sort.fetch, self.ctx)?;
        let child_need = union(need.to_vec(), exec.columns());
        let child = self.child(&sort.input, &child_need)?;
        let pos = child.positions(input_schema.fields().len());
        exec.remap_columns(&|i| pos[i]);
        let schema = child.plan.schema.clone();
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Sort {
                    input: Box::new(child.plan),
                    sort: Box::new(exec),
                },
                schema,
            ),
            cols: child.cols,
        })
    }

    /// OFFSET / LIMIT; over ORDER BY, the sort keeps only the top rows.
    fn limit(&mut self, limit: &Limit, need: &[usize]) -> Result<Lowered> {
        let (skip, fetch) = limit_bounds(limit)?;
        let input = match (&*limit.input, fetch) {
            (LogicalPlan::Sort(sort), Some(n)) if sort.fetch.is_none() => {
                let mut sort = sort.clone();
                sort.fetch = Some(skip.saturating_add(n));
                LogicalPlan::Sort(sort)
            }
            (input, _) => input.clone(),
        };
        let child = self.child(&input, need)?;
        let schema = child.plan.schema.clone();
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Limit {
                    input: Box::new(child.plan),
                    skip,
                    fetch,
                },
                schema,
            ),
            cols: child.cols,
        })
    }

    /// UNION ALL: every branch with the `need`ed columns, cast to the type
    /// the branches' columns meet at.
    fn union(&mut self, u: &Union, need: &[usize]) -> Result<Lowered> {
        let mut inputs = Vec::with_capacity(u.inputs.len());
        for input in &u.inputs {
            let child = self.child(input, need)?;
            let child = select(child, need, input.schema())?;
            inputs.push(child.plan);
        }
        let types = union_types(u, &inputs, need)?;
        let inputs = inputs
            .into_iter()
            .map(|input| cast_columns(input, &types))
            .collect::<Result<Vec<_>>>()?;
        let fields = need
            .iter()
            .zip(&types)
            .map(|(&c, t)| Field::new(u.schema.field(c).name(), t.clone(), true))
            .collect();
        Ok(Lowered {
            plan: PhysicalPlan::new(Operator::Union { inputs }, schema_of(fields)),
            cols: need.to_vec(),
        })
    }

    /// `INTERSECT ALL` / `EXCEPT ALL`: both inputs with all their columns
    /// (every column takes part in the comparison).
    fn set_operation(&mut self, plan: &LogicalPlan) -> Result<Lowered> {
        let Some(set_op) = as_set_operation(plan) else {
            return Err(ExecError::Unsupported(
                "internal: not a set operation".into(),
            ));
        };
        let all: Vec<usize> = (0..plan.schema().fields().len()).collect();
        let left = self.child(&set_op.left, &all)?;
        let left = select(left, &all, set_op.left.schema())?;
        let right = self.child(&set_op.right, &all)?;
        let right = select(right, &all, set_op.right.schema())?;
        let fields = all
            .iter()
            .map(|&c| {
                let (l, r) = (left.plan.schema.field(c), right.plan.schema.field(c));
                if l.data_type() == r.data_type() {
                    Ok(l.clone().with_nullable(true))
                } else {
                    Err(ExecError::Unsupported(format!(
                        "{} gives column `{}` different types ({} and {}): \
                         cast them to one type on both sides",
                        set_op.op,
                        l.name(),
                        l.data_type(),
                        r.data_type()
                    )))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::SetOperation {
                    left: Box::new(left.plan),
                    right: Box::new(right.plan),
                    op: set_op.op,
                },
                schema_of(fields),
            ),
            cols: all,
        })
    }

    /// Lowers an input of the node being lowered, its columns cast to the
    /// types of its logical schema.
    fn child(&mut self, plan: &LogicalPlan, need: &[usize]) -> Result<Lowered> {
        let out = self.lower(plan, need)?;
        // The operator above compiles its expressions against this child's
        // logical schema. Where the lowered child produces another type
        // (DataFusion types a CASE by its first THEN while tenon coerces
        // every branch; a set operation's sides meet at the type they
        // compare in), the column is cast to the logical type here, once,
        // instead of failing in the operator above.
        let logical = plan.schema();
        let types: Vec<DataType> = out
            .cols
            .iter()
            .zip(out.plan.schema.fields())
            .map(|(&c, f)| match logical.fields().get(c) {
                Some(l) => l.data_type().clone(),
                None => f.data_type().clone(),
            })
            .collect();
        if types.len() != out.plan.schema.fields().len() {
            return Ok(out);
        }
        Ok(Lowered {
            plan: cast_columns(out.plan, &types)?,
            cols: out.cols,
        })
    }

    fn scan(&mut self, scan: &TableScan, need: &[usize]) -> Result<Lowered> {
        let name = scan.table_name.table().to_string();
        let data = self
            .tables
            .get(&name)
            .ok_or_else(|| ExecError::MissingTable(name.clone()))?;
        if !scan.filters.is_empty() {
            return Err(ExecError::Unsupported(
                "filters inside a table scan (tenon keeps them in Filter nodes)".into(),
            ));
        }
        let columns: Vec<usize> = need
            .iter()
            .map(|&c| scan.projection.as_ref().map_or(c, |p| p[c]))
            .collect();
        let fields: Vec<Field> = columns
            .iter()
            .map(|&c| data.schema.field(c).clone())
            .collect();
        let names = fields.iter().map(|f| f.name().clone()).collect();
        let mut plan = PhysicalPlan::new(
            Operator::Scan {
                table: name,
                alias: None,
                columns,
                names,
            },
            schema_of(fields),
        );
        if let Some(fetch) = scan.fetch {
            let schema = plan.schema.clone();
            plan = PhysicalPlan::new(
                Operator::Limit {
                    input: Box::new(plan),
                    skip: 0,
                    fetch: Some(fetch),
                },
                schema,
            );
        }
        Ok(Lowered {
            plan,
            cols: need.to_vec(),
        })
    }

    fn values(&mut self, values: &datafusion_expr::logical_plan::Values) -> Result<Lowered> {
        let one_row = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &RecordBatchOptions::new().with_row_count(Some(1)),
        )
        .map_err(|e| ExecError::arrow("VALUES", e))?;
        let empty = DFSchema::empty();
        let width = values.schema.fields().len();
        let mut columns: Vec<Vec<arrow_array::ArrayRef>> = vec![Vec::new(); width];
        for row in &values.values {
            for (c, e) in row.iter().enumerate() {
                let compiled = PhysicalExpr::compile(e, &empty, self.ctx)?;
                let target = values.schema.field(c).data_type();
                let array = compiled.evaluate(&one_row)?;
                let array =
                    arrow_cast::cast(&array, target).map_err(|e| ExecError::arrow("VALUES", e))?;
                columns[c].push(array);
            }
        }
        let fields: Vec<Field> = values
            .schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let schema = schema_of(fields);
        let arrays = columns
            .iter()
            .map(|parts| {
                let refs: Vec<&dyn arrow_array::Array> = parts.iter().map(|a| a.as_ref()).collect();
                arrow_select::concat::concat(&refs).map_err(|e| ExecError::arrow("VALUES", e))
            })
            .collect::<Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(values.values.len())),
        )
        .map_err(|e| ExecError::arrow("VALUES", e))?;
        Ok(literal_rows(batch, (0..width).collect()))
    }
}

/// A node producing `batch`, the logical columns `cols`.
fn literal_rows(batch: RecordBatch, cols: Vec<usize>) -> Lowered {
    let schema = batch.schema();
    Lowered {
        plan: PhysicalPlan::new(
            Operator::Values {
                batches: vec![batch],
            },
            schema,
        ),
        cols,
    }
}

/// An aggregation of `child` (GROUP BY or DISTINCT) producing the logical
/// columns `cols`.
fn aggregated(child: Lowered, aggregate: HashAggregate, cols: Vec<usize>) -> Lowered {
    let schema = aggregate.schema().clone();
    Lowered {
        plan: PhysicalPlan::new(
            Operator::Aggregate {
                input: Box::new(child.plan),
                aggregate: Box::new(aggregate),
            },
            schema,
        ),
        cols,
    }
}

/// An empty relation: no columns, and one row (`SELECT 1`) or none.
fn empty_relation(produce_one_row: bool) -> Result<Lowered> {
    let rows = usize::from(produce_one_row);
    let batch = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| ExecError::arrow("an empty relation", e))?;
    Ok(literal_rows(batch, vec![]))
}

/// The type each `need`ed column of a UNION's lowered branches `inputs`
/// meets at (a string literal or Utf8 column with a Utf8View one, Int32
/// with Int64, ...), as they would in a comparison.
fn union_types(u: &Union, inputs: &[PhysicalPlan], need: &[usize]) -> Result<Vec<DataType>> {
    let mut types: Vec<DataType> = inputs[0]
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    for (j, &c) in need.iter().enumerate() {
        for other in &inputs[1..] {
            let b = other.schema.field(j).data_type();
            if &types[j] == b {
                continue;
            }
            types[j] = comparison_coercion(&types[j], b).ok_or_else(|| {
                ExecError::Unsupported(format!(
                    "UNION branches give column `{}` types that do not meet \
                     ({} and {}): cast them to one type in every branch",
                    u.schema.field(c).name(),
                    types[j],
                    b
                ))
            })?;
        }
    }
    Ok(types)
}

/// Gives the scan under an alias (and under the filters pushed down to
/// it) the alias, for EXPLAIN.
fn name_scan(plan: &mut PhysicalPlan, name: &str) {
    match &mut plan.operator {
        Operator::Scan { alias, .. } => *alias = Some(name.to_string()),
        Operator::Filter { input, .. } => name_scan(input, name),
        _ => {}
    }
}

/// OFFSET and LIMIT as numbers.
fn limit_bounds(limit: &Limit) -> Result<(usize, Option<usize>)> {
    let bad = || {
        ExecError::Unsupported("LIMIT / OFFSET must be non-negative integer literals".to_string())
    };
    let skip = match limit.get_skip_type().map_err(|_| bad())? {
        SkipType::Literal(n) => n,
        SkipType::UnsupportedExpr => return Err(bad()),
    };
    let fetch = match limit.get_fetch_type().map_err(|_| bad())? {
        FetchType::Literal(n) => n,
        FetchType::UnsupportedExpr => return Err(bad()),
    };
    Ok((skip, fetch))
}

/// A plan node's kind, for messages.
fn node_name(plan: &LogicalPlan) -> String {
    let text = plan.display().to_string();
    let kind = text.split(':').next().unwrap_or("this plan node").trim();
    format!("{kind} (`{}`)", text.chars().take(80).collect::<String>())
}
