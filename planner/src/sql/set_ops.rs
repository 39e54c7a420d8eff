//! `INTERSECT ALL` and `EXCEPT ALL`, planned by tenon.
//!
//! `SqlToRel` plans `a INTERSECT ALL b` as a semi join and `a EXCEPT ALL b`
//! as an anti join of `a` with `b` on every column (NULL equal to NULL),
//! without making `a` distinct. That is right for the distinct forms (whose
//! left input is made distinct first) but wrong for the ALL forms, which
//! work on *multisets*: a row that occurs `l` times in `a` and `r` times in
//! `b` occurs `min(l, r)` times in `a INTERSECT ALL b` and `max(l - r, 0)`
//! times in `a EXCEPT ALL b` (SQL:2016 7.17; PostgreSQL and DuckDB), where
//! the join keeps all `l` copies or none.
//!
//! [`plan_set_operations_all`] finds those joins (the only semi / anti
//! joins with NULL-equal keys and no filter that `SqlToRel` makes, and
//! their left input is not a `DISTINCT`) and replaces each by a
//! [`SetOperation`] node, which the executor runs by counting the rows of
//! `b` and letting each row of `a` consume one count. Rows are compared as
//! GROUP BY compares them: NULL equal to NULL, `-0.0` equal to `0.0`, every
//! NaN equal to every NaN.
//!
//! A left input that is a `DISTINCT` (the distinct forms, or `SELECT
//! DISTINCT ... INTERSECT ALL ...`) has one copy of each row, where the
//! semi / anti join is exact, so those joins stay joins.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use datafusion_common::tree_node::Transformed;
use datafusion_common::{DFSchemaRef, DataFusionError, NullEquality};
use datafusion_expr::logical_plan::{Distinct, Extension, Projection, Union};
use datafusion_expr::type_coercion::binary::comparison_coercion;
use datafusion_expr::{Expr, JoinType, LogicalPlan, UserDefinedLogicalNodeCore};

use crate::sql::SqlError;

/// Which multiset operation a [`SetOperation`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd)]
pub enum SetOperator {
    /// `INTERSECT ALL`: `min(l, r)` copies of each row.
    IntersectAll,
    /// `EXCEPT ALL`: `max(l - r, 0)` copies of each row.
    ExceptAll,
}

impl fmt::Display for SetOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetOperator::IntersectAll => "INTERSECT ALL",
            SetOperator::ExceptAll => "EXCEPT ALL",
        })
    }
}

/// The logical node of `left INTERSECT ALL right` / `left EXCEPT ALL
/// right`: the columns of `left`; both inputs have the same column types.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SetOperation {
    /// Which operation.
    pub op: SetOperator,
    /// The rows kept from (their copies counted against `right`).
    pub left: LogicalPlan,
    /// The rows counted.
    pub right: LogicalPlan,
}

impl PartialOrd for SetOperation {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        // Plans have no useful order; only the operator is compared.
        if self == other {
            Some(Ordering::Equal)
        } else {
            self.op.partial_cmp(&other.op).filter(|o| o.is_ne())
        }
    }
}

impl UserDefinedLogicalNodeCore for SetOperation {
    fn name(&self) -> &str {
        "SetOperation"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.left, &self.right]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.left.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        Vec::new()
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.op)
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> datafusion_common::Result<Self> {
        if inputs.len() != 2 {
            return datafusion_common::internal_err!("a set operation has two inputs");
        }
        let right = inputs.pop().unwrap_or_else(|| self.right.clone());
        let left = inputs.pop().unwrap_or_else(|| self.left.clone());
        Ok(SetOperation {
            op: self.op,
            left,
            right,
        })
    }
}

/// The [`SetOperation`] of an extension node, if it is one.
pub fn as_set_operation(plan: &LogicalPlan) -> Option<&SetOperation> {
    match plan {
        LogicalPlan::Extension(e) => e.node.as_any().downcast_ref::<SetOperation>(),
        _ => None,
    }
}

/// Replaces the semi / anti joins `SqlToRel` makes of `INTERSECT ALL` /
/// `EXCEPT ALL` by [`SetOperation`] nodes (see the module docs); run on
/// `SqlToRel`'s plan, before tenon's own rewrites make semi and anti joins.
///
/// # Errors
/// [`SqlError::Plan`] when the two inputs' column types have no common type.
pub fn plan_set_operations_all(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let rewritten = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Join(join) = &node else {
            return Ok(Transformed::no(node));
        };
        let op = match join.join_type {
            JoinType::LeftSemi => SetOperator::IntersectAll,
            JoinType::LeftAnti => SetOperator::ExceptAll,
            _ => return Ok(Transformed::no(node)),
        };
        let width = join.left.schema().fields().len();
        let set_op_join = join.null_equality == NullEquality::NullEqualsNull
            && join.filter.is_none()
            && join.on.len() == width
            && join.right.schema().fields().len() == width
            && !matches!(join.left.as_ref(), LogicalPlan::Distinct(Distinct::All(_)));
        if !set_op_join {
            return Ok(Transformed::no(node));
        }
        let (left, right) = common_types(&join.left, &join.right)?;
        Ok(Transformed::yes(LogicalPlan::Extension(Extension {
            node: Arc::new(SetOperation { op, left, right }),
        })))
    });
    match rewritten {
        Ok(t) => Ok(t.data),
        Err(e) => Err(SqlError::Plan(e.to_string())),
    }
}

/// Gives every `UNION [ALL]` the column types its branches meet at
/// (`comparison_coercion`, the rule the lowering of a union applies to its
/// branches), each branch cast where it differs, and the nodes above it
/// their schemas again: a union's type is the same at the top of a query,
/// under ORDER BY and inside a subquery. (`SqlToRel` types a union as its
/// first branch, so `SELECT NULL a UNION ALL SELECT 11` was a column of
/// type Null, and an unsigned column with a negative one cast to the
/// unsigned type above it.)
///
/// # Errors
/// [`SqlError::Unsupported`] when two branches' types do not meet.
pub fn union_common_types(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let mut changed = false;
    let rewritten = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Union(union) = &node else {
            return if changed {
                node.recompute_schema().map(Transformed::yes)
            } else {
                Ok(Transformed::no(node))
            };
        };
        let Some(first) = union.inputs.first() else {
            return Ok(Transformed::no(node));
        };
        let mut types: Vec<_> = first
            .schema()
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        for input in &union.inputs[1..] {
            for (j, f) in input.schema().fields().iter().enumerate() {
                let Some(t) = types.get_mut(j) else { continue };
                if t == f.data_type() {
                    continue;
                }
                *t = comparison_coercion(t, f.data_type()).ok_or_else(|| {
                    DataFusionError::External(Box::new(SqlError::Unsupported(format!(
                        "UNION branches give column `{}` types that do not meet ({} and {}): \
                         cast them to one type in every branch",
                        union.schema.field(j).name(),
                        t,
                        f.data_type()
                    ))))
                })?;
            }
        }
        let same = union.inputs.iter().all(|i| {
            i.schema()
                .fields()
                .iter()
                .zip(&types)
                .all(|(f, t)| f.data_type() == t)
        });
        if same
            && union
                .schema
                .fields()
                .iter()
                .zip(&types)
                .all(|(f, t)| f.data_type() == t)
        {
            return if changed {
                node.recompute_schema().map(Transformed::yes)
            } else {
                Ok(Transformed::no(node))
            };
        }
        changed = true;
        let inputs = union
            .inputs
            .iter()
            .map(|i| cast_to(i, &types).map(Arc::new))
            .collect::<datafusion_common::Result<Vec<_>>>()?;
        Ok(Transformed::yes(LogicalPlan::Union(
            Union::try_new_with_loose_types(inputs)?,
        )))
    });
    match rewritten {
        Ok(t) => Ok(t.data),
        Err(DataFusionError::External(e)) => match e.downcast::<SqlError>() {
            Ok(e) => Err(*e),
            Err(e) => Err(SqlError::Plan(e.to_string())),
        },
        Err(e) => Err(SqlError::Plan(e.to_string())),
    }
}

/// Both inputs with their columns cast, where they differ, to the type
/// the two sides' columns compare in.
fn common_types(
    left: &LogicalPlan,
    right: &LogicalPlan,
) -> datafusion_common::Result<(LogicalPlan, LogicalPlan)> {
    let (ls, rs) = (left.schema(), right.schema());
    let mut types = Vec::with_capacity(ls.fields().len());
    for (i, (l, r)) in ls.fields().iter().zip(rs.fields()).enumerate() {
        if l.data_type() == r.data_type() {
            types.push(l.data_type().clone());
            continue;
        }
        match comparison_coercion(l.data_type(), r.data_type()) {
            Some(t) => types.push(t),
            None => {
                return datafusion_common::plan_err!(
                    "INTERSECT/EXCEPT column {} is {} on the left and {} on the right, \
                     which do not compare: cast one side",
                    i + 1,
                    l.data_type(),
                    r.data_type()
                );
            }
        }
    }
    Ok((cast_to(left, &types)?, cast_to(right, &types)?))
}

/// `plan` with column `i` cast to `types[i]` (itself when none differs).
fn cast_to(
    plan: &LogicalPlan,
    types: &[arrow_schema::DataType],
) -> datafusion_common::Result<LogicalPlan> {
    let schema = plan.schema();
    if schema
        .fields()
        .iter()
        .zip(types)
        .all(|(f, t)| f.data_type() == t)
    {
        return Ok(plan.clone());
    }
    let exprs = schema
        .iter()
        .zip(types)
        .map(|((q, f), t)| {
            let col = Expr::Column(datafusion_common::Column::new(q.cloned(), f.name()));
            if f.data_type() == t {
                col
            } else {
                datafusion_expr::cast(col, t.clone()).alias_qualified(q.cloned(), f.name())
            }
        })
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(
        exprs,
        Arc::new(plan.clone()),
    )?))
}
