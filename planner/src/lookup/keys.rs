//! A lookup join's key, split from its ON condition: every equality of a
//! probe expression (or a constant) with a column of the lookup table is a
//! key column; the rest of the condition filters the fetched rows.

use datafusion_common::{Column, DFSchema, ScalarValue};
use datafusion_expr::utils::{conjunction, split_conjunction};
use datafusion_expr::{BinaryExpr, Expr, Operator};

/// One key column of a lookup join.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyValue {
    /// Equal to this expression over the probe input.
    Probe(Expr),
    /// Equal to this constant (`c.country = 'US'`).
    Constant(ScalarValue),
}

/// A lookup join's key and the rest of its condition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LookupKeys {
    /// Each key column of the lookup side (a column of its schema) and what
    /// it equals.
    pub keys: Vec<(Column, KeyValue)>,
    /// The rest of the condition, over the pair (probe columns first).
    pub residual: Option<Expr>,
}

/// The column `e` reads of `schema` (through a cast the planner added to
/// compare two types), if it is one.
fn column_of(e: &Expr, schema: &DFSchema) -> Option<Column> {
    match e {
        Expr::Column(c) if schema.has_column(c) => Some(c.clone()),
        Expr::Cast(c) => column_of(&c.expr, schema),
        Expr::TryCast(c) => column_of(&c.expr, schema),
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<ScalarValue> {
    match e {
        Expr::Literal(v, _) if !v.is_null() => Some(v.clone()),
        Expr::Cast(c) => literal(&c.expr),
        _ => None,
    }
}

/// Splits a lookup join's condition: `on` (the equi pairs, probe side
/// first) and `filter` (the rest) into its key and residual. A column of
/// the lookup side is a key column when `indexable` says the source can
/// look it up; an equality on another stays in the residual.
pub(crate) fn lookup_keys(
    on: &[(Expr, Expr)],
    filter: Option<&Expr>,
    lookup: &DFSchema,
    indexable: &dyn Fn(&Column) -> bool,
) -> LookupKeys {
    let mut keys: Vec<(Column, KeyValue)> = Vec::new();
    let mut rest: Vec<Expr> = Vec::new();
    for (l, r) in on {
        match column_of(r, lookup).filter(|c| indexable(c)) {
            Some(c) if !keys.iter().any(|(k, _)| *k == c) => {
                keys.push((c, KeyValue::Probe(l.clone())));
            }
            _ => rest.push(l.clone().eq(r.clone())),
        }
    }
    for conjunct in filter.map(split_conjunction).unwrap_or_default() {
        if let Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) = conjunct
        {
            let constant = match (column_of(left, lookup), column_of(right, lookup)) {
                (Some(c), None) => literal(right).map(|v| (c, v)),
                (None, Some(c)) => literal(left).map(|v| (c, v)),
                _ => None,
            };
            if let Some((c, v)) = constant
                && indexable(&c)
                && !keys.iter().any(|(k, _)| *k == c)
            {
                keys.push((c, KeyValue::Constant(v)));
                continue;
            }
        }
        rest.push(conjunct.clone());
    }
    LookupKeys {
        keys,
        residual: conjunction(rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType, Field, Schema};
    use datafusion_expr::{col, lit};

    fn schema(q: &str, cols: &[&str]) -> DFSchema {
        let s = Schema::new(
            cols.iter()
                .map(|c| Field::new(*c, DataType::Int64, true))
                .collect::<Vec<_>>(),
        );
        DFSchema::try_from_qualified_schema(q, &s).unwrap()
    }

    #[test]
    fn equalities_with_lookup_columns_and_constants_are_keys_the_rest_filters() {
        let c = schema("c", &["id", "country", "age"]);
        let on = vec![(col("o.cid"), col("c.id"))];
        let filter = col("c.country")
            .eq(lit(7i64))
            .and(col("c.age").gt(col("o.age")))
            .and(lit(3i64).eq(col("c.age")));
        let k = lookup_keys(&on, Some(&filter), &c, &|_| true);
        assert_eq!(k.keys.len(), 3);
        assert_eq!(
            k.keys[0],
            (Column::from("c.id"), KeyValue::Probe(col("o.cid")))
        );
        assert_eq!(
            k.keys[1],
            (
                Column::from("c.country"),
                KeyValue::Constant(ScalarValue::Int64(Some(7)))
            )
        );
        assert_eq!(k.residual, Some(col("c.age").gt(col("o.age"))));
        // a column the source cannot look up by stays in the residual
        let k = lookup_keys(&on, Some(&filter), &c, &|c| c.name != "id");
        assert!(k.keys.iter().all(|(c, _)| c.name != "id"));
        assert!(k.residual.unwrap().to_string().contains("o.cid = c.id"));
    }
}
