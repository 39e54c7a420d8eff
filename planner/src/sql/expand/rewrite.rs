//! The AST rewrite of `UNNEST(...)` and `LATERAL TABLE(f(...))` factors
//! into calls of the marker table function (module docs of `super`).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, JoinConstraint, JoinOperator,
    ObjectName, Query, SelectItem, SetExpr, Statement, TableAlias, TableFactor, TableWithJoins,
    Value, VisitMut, VisitorMut,
};

use super::EXPAND_MARKER;
use crate::sql::blocks::fold_ident;
use crate::sql::catalog::Catalog;
use crate::sql::error::SqlError;
use crate::sql::time_join::single_name;
use crate::sql::unsupported::at;

/// Rewrites every expanding factor of `statement` (in subqueries and CTEs
/// too) into a lateral call of the marker table function.
///
/// # Errors
/// [`SqlError::Unsupported`] for `WITH OFFSET`, a table function that is
/// not registered (listing those that are), a LEFT form without `ON TRUE`,
/// RIGHT / FULL / NATURAL / USING forms.
pub(crate) fn rewrite_expansions(
    statement: &mut Statement,
    catalog: &Catalog,
) -> Result<(), SqlError> {
    struct Rewrite<'a> {
        catalog: &'a Catalog,
    }
    impl VisitorMut for Rewrite<'_> {
        type Break = SqlError;
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<SqlError> {
            match rewrite_body(&mut query.body, self.catalog) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match statement.visit(&mut Rewrite { catalog }) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

fn rewrite_body(body: &mut SetExpr, catalog: &Catalog) -> Result<(), SqlError> {
    match body {
        SetExpr::Select(select) => {
            for item in &mut select.from {
                rewrite_item(item, catalog)?;
            }
            Ok(())
        }
        SetExpr::SetOperation { left, right, .. } => {
            rewrite_body(left, catalog)?;
            rewrite_body(right, catalog)
        }
        _ => Ok(()),
    }
}

fn rewrite_item(item: &mut TableWithJoins, catalog: &Catalog) -> Result<(), SqlError> {
    rewrite_factor(&mut item.relation, catalog)?;
    for join in &mut item.joins {
        let expanding = rewrite_factor(&mut join.relation, catalog)?;
        if let Some(what) = expanding {
            check_join(&join.join_operator, &what)?;
        }
    }
    Ok(())
}

/// Rewrites one factor if it expands; returns what it is, for messages.
fn rewrite_factor(factor: &mut TableFactor, catalog: &Catalog) -> Result<Option<String>, SqlError> {
    if let TableFactor::NestedJoin {
        table_with_joins, ..
    } = factor
    {
        rewrite_item(table_with_joins, catalog)?;
        return Ok(None);
    }
    if let TableFactor::UNNEST {
        alias,
        array_exprs,
        with_offset,
        with_ordinality,
        ..
    } = factor
    {
        if *with_offset {
            return Err(SqlError::Unsupported(format!(
                "`UNNEST(...) WITH OFFSET`{}: write `WITH ORDINALITY` for the 1-based position \
                 of each element",
                at(&*factor)
            )));
        }
        if array_exprs.is_empty() {
            return Err(SqlError::Unsupported(
                "`UNNEST()` with no argument: name the array, map or multiset to unnest".into(),
            ));
        }
        let text = format!("UNNEST({})", list(array_exprs));
        *factor = marker_factor("unnest", *with_ordinality, alias.take(), array_exprs, &text)?;
        return Ok(Some(text));
    }
    let call = match lateral_table_call(factor)? {
        Some(call) => Some(call),
        None => bare_table_call(factor, catalog)?,
    };
    let Some((name, args, alias)) = call else {
        return Ok(None);
    };
    if catalog.table_function(&name).is_none() {
        return Err(SqlError::Unsupported(format!(
            "`LATERAL TABLE({name}(...))`: there is no table function `{name}` (known: {}; a \
             program registers its own with Catalog::register_table_function)",
            catalog.table_function_names().join(", ")
        )));
    }
    let text = format!("LATERAL TABLE({name}({}))", list(&args));
    *factor = marker_factor(&format!("function:{name}"), false, alias, &args, &text)?;
    Ok(Some(text))
}

fn list(exprs: &[Expr]) -> String {
    exprs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table function call: its name, its arguments, the factor's alias.
type LateralCall = (String, Vec<Expr>, Option<TableAlias>);

/// `LATERAL TABLE(f(a, b))`: the function's name, its arguments and the
/// factor's alias. The temporal table functions are rewritten before this
/// (module `time_join`), so any function left here is a table function.
fn lateral_table_call(factor: &mut TableFactor) -> Result<Option<LateralCall>, SqlError> {
    let TableFactor::Function {
        lateral: true,
        name,
        args,
        alias,
        ..
    } = factor
    else {
        return Ok(None);
    };
    if single_name(name).is_none_or(|n| n != "table") {
        return Ok(None);
    }
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f)))] = args.as_slice() else {
        return Err(SqlError::Unsupported(format!(
            "`{factor}`: write `LATERAL TABLE(function(arguments))`"
        )));
    };
    let Some(called) = single_name(&f.name) else {
        return Err(SqlError::Unsupported(format!(
            "`LATERAL TABLE({})`: a table function has a plain name",
            f.name
        )));
    };
    let exprs = match &f.args {
        FunctionArguments::None => Vec::new(),
        FunctionArguments::List(l) => plain_arguments(&l.args, &called)?,
        FunctionArguments::Subquery(_) => {
            return Err(SqlError::Unsupported(format!(
                "a subquery as the argument of table function `{called}`"
            )));
        }
    };
    Ok(Some((called, exprs, alias.take())))
}

/// The arguments of table function `called`, each a plain expression.
fn plain_arguments(args: &[FunctionArg], called: &str) -> Result<Vec<Expr>, SqlError> {
    args.iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e.clone()),
            other => Err(SqlError::Unsupported(format!(
                "argument `{other}` of table function `{called}`: pass plain expressions"
            ))),
        })
        .collect()
}

/// `generate_series(1, 3)` in FROM without `LATERAL TABLE`: a registered
/// table function called as a table (as PostgreSQL and DuckDB write it),
/// the same as its `LATERAL TABLE` form.
fn bare_table_call(
    factor: &mut TableFactor,
    catalog: &Catalog,
) -> Result<Option<LateralCall>, SqlError> {
    let TableFactor::Table {
        name,
        args: Some(args),
        alias,
        ..
    } = factor
    else {
        return Ok(None);
    };
    let Some(called) = single_name(name).filter(|n| catalog.table_function(n).is_some()) else {
        return Ok(None);
    };
    let exprs = plain_arguments(&args.args, &called)?;
    Ok(Some((called, exprs, alias.take())))
}

/// The join forms an expansion may take: CROSS, comma, INNER (its ON
/// condition filters the expanded rows), LEFT ... ON TRUE.
fn check_join(op: &JoinOperator, what: &str) -> Result<(), SqlError> {
    let on_true = |c: &JoinConstraint| matches!(c, JoinConstraint::On(Expr::Value(v)) if v.value == Value::Boolean(true));
    match op {
        JoinOperator::CrossJoin(_) => Ok(()),
        JoinOperator::Inner(c) | JoinOperator::Join(c) => match c {
            JoinConstraint::On(_) | JoinConstraint::None => Ok(()),
            _ => Err(SqlError::Unsupported(format!(
                "`JOIN {what}` with USING or NATURAL: an expansion joins each row with its own \
                 elements; write `CROSS JOIN {what}` and filter in WHERE"
            ))),
        },
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) if on_true(c) => Ok(()),
        JoinOperator::Left(_) | JoinOperator::LeftOuter(_) => Err(SqlError::Unsupported(format!(
            "`LEFT JOIN {what}` needs `ON TRUE` (as in Flink): the left row is joined with its \
             own rows, so there is nothing to match; filter the rows in WHERE or a subquery"
        ))),
        _ => Err(SqlError::Unsupported(format!(
            "`{what}` in a RIGHT, FULL, SEMI or ANTI join: an expansion is joined with CROSS \
             JOIN, a comma, INNER JOIN or LEFT JOIN ... ON TRUE"
        ))),
    }
}

/// The marker call replacing an expanding factor: `LATERAL
/// __tenon_expand('<kind>', <ordinality>, '<text>', <n names>, '<name>'...,
/// (SELECT <arg>)...) AS <alias>`.
fn marker_factor(
    kind: &str,
    ordinality: bool,
    alias: Option<TableAlias>,
    exprs: &[Expr],
    text: &str,
) -> Result<TableFactor, SqlError> {
    let string = |s: &str| Expr::Value(Value::SingleQuotedString(s.to_string()).with_empty_span());
    let number = |n: usize| Expr::Value(Value::Number(n.to_string(), false).with_empty_span());
    let names: Vec<String> = alias
        .as_ref()
        .map(|a| a.columns.iter().map(|c| fold_ident(&c.name)).collect())
        .unwrap_or_default();
    let mut args = vec![
        string(kind),
        Expr::Value(Value::Boolean(ordinality).with_empty_span()),
        string(text),
        number(names.len()),
    ];
    args.extend(names.iter().map(|n| string(n)));
    for e in exprs {
        args.push(Expr::Subquery(Box::new(select_of(e)?)));
    }
    let qualifier = match &alias {
        Some(a) => a.name.clone(),
        None => Ident::new(kind.strip_prefix("function:").unwrap_or(kind)),
    };
    Ok(TableFactor::Function {
        lateral: true,
        name: ObjectName::from(vec![Ident::new(EXPAND_MARKER)]),
        args: args
            .into_iter()
            .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
            .collect(),
        with_ordinality: false,
        alias: Some(TableAlias {
            explicit: true,
            name: qualifier,
            columns: Vec::new(),
            at: None,
        }),
    })
}

/// `SELECT <e>` as a query: planned as a scalar subquery, it gives the
/// argument's type (its outer column references carry theirs).
///
/// `ARRAY[...]` becomes `make_array(...)`: datafusion-sql plans an array
/// literal's elements without the outer columns in scope.
fn select_of(e: &Expr) -> Result<Query, SqlError> {
    let mut query = *crate::sql::dialect::parser()
        .try_with_sql("SELECT 1")?
        .parse_query()?;
    let mut e = e.clone();
    let template = crate::sql::dialect::parser()
        .try_with_sql("make_array(1)")?
        .parse_expr()?;
    let _ = e.visit(&mut ArrayLiterals { template });
    if let SetExpr::Select(select) = query.body.as_mut() {
        select.projection = vec![SelectItem::UnnamedExpr(e)];
    }
    Ok(query)
}

/// Rewrites `ARRAY[a, b]` into `make_array(a, b)` (`template` is a parsed
/// `make_array(1)`).
struct ArrayLiterals {
    template: Expr,
}

impl VisitorMut for ArrayLiterals {
    type Break = ();
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Array(array) = expr
            && let Expr::Function(mut f) = self.template.clone()
            && let FunctionArguments::List(list) = &mut f.args
        {
            list.args = array
                .elem
                .drain(..)
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect();
            *expr = Expr::Function(f);
        }
        ControlFlow::Continue(())
    }
}
