//! Join conditions: equi keys and a residual predicate.
//!
//! `SqlToRel` leaves every ON condition in `Join.filter` with `on = []`
//! (splitting out equi keys is left to DataFusion's optimizer, which tenon
//! does not use); `USING` and `NATURAL` joins come with `on` pairs. [`split_join_condition`] reads both and returns the equi keys the
//! kernels join on and the residual predicate they test on candidate pairs
//! (J02); [`extract_join_keys`] writes that split back into every join of a
//! plan, so that `Join.on`, `Join.filter` and `Join.null_equality` are what
//! the physical planner runs.
//!
//! Rules:
//! - The condition's conjuncts are split after factoring out of each OR
//!   the conjuncts common to all its branches (as for WHERE), so a key in
//!   every branch of an OR is a key, for outer joins too.
//! - A conjunct `l = r` or `l IS NOT DISTINCT FROM r` is a key when `l` uses
//!   columns of one input only and `r` of the other only (sides are swapped
//!   as needed); anything else is residual.
//! - A join is null-equal (J01, `IS NOT DISTINCT FROM`) only if all its keys
//!   are: when `=` and `IS NOT DISTINCT FROM` conjuncts are mixed, the `=`
//!   ones are the keys and the `IS NOT DISTINCT FROM` ones stay residual.
//! - Key types are coerced as SQL compares them (DataFusion's
//!   `comparison_coercion`: Int32 with Int64 → Int64, ...): the side whose
//!   type differs from the common type is wrapped in a `CAST`, and
//!   [`EquiKey::cast`] says which.

use std::sync::Arc;

use arrow_schema::DataType;
use datafusion_common::tree_node::Transformed;
use datafusion_common::{DFSchema, NullEquality, Result};
use datafusion_expr::type_coercion::binary::comparison_coercion;
use datafusion_expr::utils::{
    conjunction, find_valid_equijoin_key_pair, split_conjunction, split_conjunction_owned,
};
use datafusion_expr::{BinaryExpr, Cast, Expr, ExprSchemable, Join, LogicalPlan, Operator};

use super::error::SqlError;
use super::implicit_join::factor_or;

/// Which side of an equi key needed a cast to the key type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCast {
    /// Both sides already had the key type.
    None,
    /// The left expression is cast to the key type.
    Left,
    /// The right expression is cast to the key type.
    Right,
    /// Both are cast (e.g. Int8 with UInt8 → Int16).
    Both,
}

/// One equi-join key pair.
#[derive(Debug, Clone, PartialEq)]
pub struct EquiKey {
    /// Expression over the left input (already cast when [`Self::cast`] says so).
    pub left: Expr,
    /// Expression over the right input (already cast when [`Self::cast`] says so).
    pub right: Expr,
    /// The type both sides are compared as.
    pub key_type: DataType,
    /// Which side was cast to `key_type`.
    pub cast: KeyCast,
}

/// A join condition split for the kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinCondition {
    /// The equi keys; empty for a join that only a nested loop can run.
    pub keys: Vec<EquiKey>,
    /// Everything else of the ON condition, tested on candidate pairs.
    pub residual: Option<Expr>,
    /// `true` when every key is `IS NOT DISTINCT FROM` (NULL matches NULL).
    pub null_equal: bool,
}

impl JoinCondition {
    /// Whether the join has equi keys (BROADCAST, SHUFFLE_HASH and
    /// SHUFFLE_MERGE need them, docs/hints.md §2).
    pub fn is_equi(&self) -> bool {
        !self.keys.is_empty()
    }
}

/// Splits the condition of a join (`on` pairs, which count as `=`, and the
/// `filter`) into equi keys and a residual.
///
/// # Errors
/// [`SqlError::Plan`] when a key pair's types cannot be compared (Utf8 with
/// Int32, ...) or an expression's type cannot be found.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion_common::DFSchema;
/// use datafusion_expr::col;
/// use tenon_planner::sql::{split_join_condition, KeyCast};
///
/// let a = DFSchema::try_from_qualified_schema("a", &Schema::new(vec![Field::new("id", DataType::Int32, true)])).unwrap();
/// let b = DFSchema::try_from_qualified_schema("b", &Schema::new(vec![
///     Field::new("id", DataType::Int64, true),
///     Field::new("v", DataType::Int64, true),
/// ])).unwrap();
/// let on = col("b.id").eq(col("a.id")).and(col("b.v").gt(col("a.id")));
/// let split = split_join_condition(&[], Some(&on), &a, &b).unwrap();
/// assert_eq!(split.keys.len(), 1);
/// assert_eq!(split.keys[0].key_type, DataType::Int64);
/// assert_eq!(split.keys[0].cast, KeyCast::Left);
/// assert!(split.residual.is_some());
/// assert!(!split.null_equal);
/// ```
pub fn split_join_condition(
    on: &[(Expr, Expr)],
    filter: Option<&Expr>,
    left: &DFSchema,
    right: &DFSchema,
) -> Result<JoinCondition, SqlError> {
    let mut equal = Vec::new();
    let mut not_distinct = Vec::new();
    let mut residual = Vec::new();
    for (l, r) in on {
        equal.push((l.clone(), r.clone(), l.clone().eq(r.clone())));
    }
    // Conjuncts common to every branch of a top-level OR come out of it
    // first (`(k AND a) OR (k AND b)` is `k AND (a OR b)`), so a key
    // written in every branch is a key: valid for the ON of every join
    // type, as it only rewrites the predicate on a pair of rows.
    let conjuncts: Vec<Expr> = filter
        .map(|f| {
            split_conjunction(f)
                .into_iter()
                .flat_map(|c| split_conjunction_owned(factor_or(c.clone())))
                .collect()
        })
        .unwrap_or_default();
    for conjunct in &conjuncts {
        let pair = match conjunct {
            Expr::BinaryExpr(BinaryExpr {
                left: l,
                op,
                right: r,
            }) if matches!(op, Operator::Eq | Operator::IsNotDistinctFrom)
                && !conjunct.is_volatile() =>
            {
                find_valid_equijoin_key_pair(l, r, left, right)?.map(|p| (*op, p))
            }
            _ => None,
        };
        match pair {
            Some((Operator::Eq, (l, r))) => equal.push((l, r, conjunct.clone())),
            Some((_, (l, r))) => not_distinct.push((l, r, conjunct.clone())),
            None => residual.push(conjunct.clone()),
        }
    }
    let null_equal = equal.is_empty() && !not_distinct.is_empty();
    let keys = if null_equal {
        not_distinct
    } else {
        residual.extend(not_distinct.into_iter().map(|(_, _, c)| c));
        equal
    };
    let keys = keys
        .into_iter()
        .map(|(l, r, _)| coerce_key(l, r, left, right))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(JoinCondition {
        keys,
        residual: conjunction(residual),
        null_equal,
    })
}

fn coerce_key(l: Expr, r: Expr, left: &DFSchema, right: &DFSchema) -> Result<EquiKey, SqlError> {
    let lt = l.get_type(left)?;
    let rt = r.get_type(right)?;
    if lt == rt {
        return Ok(EquiKey {
            left: l,
            right: r,
            key_type: lt,
            cast: KeyCast::None,
        });
    }
    let Some(common) = comparison_coercion(&lt, &rt) else {
        return Err(SqlError::Plan(format!(
            "cannot join on {l} = {r}: {lt} and {rt} cannot be compared"
        )));
    };
    let cast_left = lt != common;
    let cast_right = rt != common;
    let wrap = |e: Expr, cast: bool| {
        if cast {
            Expr::Cast(Cast::new(Box::new(e), common.clone()))
        } else {
            e
        }
    };
    Ok(EquiKey {
        left: wrap(l, cast_left),
        right: wrap(r, cast_right),
        key_type: common.clone(),
        cast: match (cast_left, cast_right) {
            (true, true) => KeyCast::Both,
            (true, false) => KeyCast::Left,
            (false, true) => KeyCast::Right,
            (false, false) => KeyCast::None,
        },
    })
}

/// The split of one `LogicalPlan::Join`'s condition.
///
/// # Errors
/// As [`split_join_condition`].
pub fn join_condition(join: &Join) -> Result<JoinCondition, SqlError> {
    split_join_condition(
        &join.on,
        join.filter.as_ref(),
        join.left.schema(),
        join.right.schema(),
    )
}

/// Rewrites every join of `plan` (subqueries included) so that `on` holds
/// its equi keys (cast to their key type), `filter` its residual and
/// `null_equality` whether NULL keys match (see the module docs).
///
/// # Errors
/// As [`split_join_condition`].
pub fn extract_join_keys(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let rewritten = plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Join(join) = node else {
            return Ok(Transformed::no(node));
        };
        let split = join_condition(&join)
            .map_err(|e| datafusion_common::DataFusionError::External(Box::new(e)))?;
        // Keys DataFusion set itself (INTERSECT / EXCEPT: NULLs equal) keep
        // their NULL semantics.
        let kept_null_equal =
            join.null_equality == NullEquality::NullEqualsNull && !join.on.is_empty();
        let null_equality = if split.null_equal || kept_null_equal {
            NullEquality::NullEqualsNull
        } else {
            NullEquality::NullEqualsNothing
        };
        let rebuilt = Join::try_new(
            Arc::clone(&join.left),
            Arc::clone(&join.right),
            split.keys.into_iter().map(|k| (k.left, k.right)).collect(),
            split.residual,
            join.join_type,
            join.join_constraint,
            null_equality,
            join.null_aware,
        )?;
        Ok(Transformed::yes(LogicalPlan::Join(rebuilt)))
    })?;
    Ok(rewritten.data)
}
