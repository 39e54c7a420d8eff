//! Temporal table functions: `FROM probe, LATERAL TABLE (F(t))` and
//! `probe [LEFT] JOIN LATERAL TABLE (F(t)) ON ...` over a registered
//! function, rewritten as the temporal join `probe JOIN table FOR
//! SYSTEM_TIME AS OF t` that the rest of the rewrite then handles.

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Join,
    JoinConstraint, JoinOperator, ObjectName, Select, TableAlias, TableFactor, TableVersion,
};

use super::rewrite::single_name;
use crate::sql::blocks::fold_ident;
use crate::sql::catalog::{Catalog, TemporalFunction};
use crate::sql::error::SqlError;

/// The temporal table function a `LATERAL TABLE (f(t))` factor calls:
/// the function's name and its argument.
fn lateral_call(factor: &TableFactor) -> Option<(String, Expr, Option<&TableAlias>)> {
    let TableFactor::Function {
        lateral: true,
        name,
        args,
        alias,
        ..
    } = factor
    else {
        return None;
    };
    if single_name(name).is_none_or(|n| n != "table") {
        return None;
    }
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f)))] = args.as_slice() else {
        return None;
    };
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(time))] = list.args.as_slice() else {
        return None;
    };
    Some((single_name(&f.name)?, time.clone(), alias.as_ref()))
}

/// `FROM probe, LATERAL TABLE (F(t))` and `probe [LEFT] JOIN LATERAL TABLE
/// (F(t)) ON ...` over a registered temporal table function, as the
/// temporal join `probe JOIN table FOR SYSTEM_TIME AS OF t`; in the comma
/// form the key equalities move from WHERE into ON. Returns the functions
/// it rewrote, each with the qualifier of its relation: their key and
/// time column are the versions' (Flink's definition), whatever the
/// table declares.
pub(super) fn lateral_functions(
    select: &mut Select,
    catalog: &Catalog,
) -> Result<Vec<(String, TemporalFunction)>, SqlError> {
    let mut rewritten = Vec::new();
    let mut i = 0;
    while i < select.from.len() {
        // the join form
        for join in &mut select.from[i].joins {
            if let Some((f, time, alias)) = lateral_call(&join.relation)
                && let Some(function) = catalog.temporal_function(&f)
            {
                let function = function.clone();
                let (relation, qualifier) = function_relation(&function, alias, &f)?;
                join.relation = versioned_factor(relation, &time, alias, &f);
                rewritten.push((qualifier, function));
            }
        }
        // the comma form
        if i > 0
            && let Some((f, time, alias)) = lateral_call(&select.from[i].relation)
            && let Some(function) = catalog.temporal_function(&f)
        {
            let function = function.clone();
            let (relation, qualifier) = function_relation(&function, alias, &f)?;
            let relation = versioned_factor(relation, &time, alias, &f);
            let keys = take_key_equalities(select, &function, &qualifier, &f)?;
            let item = select.from.remove(i);
            let previous = &mut select.from[i - 1];
            previous.joins.push(Join {
                relation,
                global: false,
                join_operator: JoinOperator::Inner(JoinConstraint::On(keys)),
            });
            previous.joins.extend(item.joins);
            rewritten.push((qualifier, function));
            continue;
        }
        if let Some((f, _, _)) = lateral_call(&select.from[i].relation)
            && let Some(function) = catalog.temporal_function(&f)
        {
            return Err(SqlError::Unsupported(format!(
                "`LATERAL TABLE ({}(...))` first in FROM: a temporal table function joins the \
                 tables before it: write `FROM probe, LATERAL TABLE ({}(probe.time)) WHERE ...`",
                function.name, function.name
            )));
        }
        i += 1;
    }
    Ok(rewritten)
}

/// The table a temporal function reads and the qualifier of its columns.
fn function_relation(
    function: &TemporalFunction,
    alias: Option<&TableAlias>,
    called: &str,
) -> Result<(String, String), SqlError> {
    if alias.is_some_and(|a| !a.columns.is_empty()) {
        return Err(SqlError::Unsupported(format!(
            "column aliases after `LATERAL TABLE ({called}(...))`: a temporal table function's \
             columns are its table's; rename them in the SELECT list"
        )));
    }
    let qualifier = alias.map_or_else(|| called.to_string(), |a| fold_ident(&a.name));
    Ok((function.table.clone(), qualifier))
}

/// `table FOR SYSTEM_TIME AS OF time [AS alias]`, for the temporal join
/// rewrite to take over.
fn versioned_factor(
    table: String,
    time: &Expr,
    alias: Option<&TableAlias>,
    called: &str,
) -> TableFactor {
    TableFactor::Table {
        name: ObjectName::from(vec![Ident::with_quote('"', table)]),
        alias: Some(TableAlias {
            explicit: true,
            name: alias.map_or_else(|| Ident::with_quote('"', called), |a| a.name.clone()),
            columns: Vec::new(),
            at: None,
        }),
        args: None,
        with_hints: Vec::new(),
        version: Some(TableVersion::ForSystemTimeAsOf(time.clone())),
        with_ordinality: false,
        partitions: Vec::new(),
        json_path: None,
        sample: None,
        index_hints: Vec::new(),
    }
}

/// Takes the WHERE conjuncts that compare a key column of the function
/// with `=` out of `select.selection`; their conjunction.
fn take_key_equalities(
    select: &mut Select,
    function: &TemporalFunction,
    qualifier: &str,
    called: &str,
) -> Result<Expr, SqlError> {
    let is_key = |e: &Expr| match e {
        Expr::Identifier(c) => function.key.contains(&fold_ident(c)),
        Expr::CompoundIdentifier(p) if p.len() == 2 => {
            fold_ident(&p[0]) == qualifier && function.key.contains(&fold_ident(&p[1]))
        }
        _ => false,
    };
    let key_of = |e: &Expr| match e {
        Expr::Identifier(c) => fold_ident(c),
        Expr::CompoundIdentifier(p) => fold_ident(&p[1]),
        _ => String::new(),
    };
    let mut conjuncts = Vec::new();
    if let Some(w) = select.selection.take() {
        split_and(w, &mut conjuncts);
    }
    let mut keys = Vec::new();
    let mut found = Vec::new();
    let mut rest = Vec::new();
    for c in conjuncts {
        let key = match &c {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } if is_key(left) != is_key(right) => Some(if is_key(left) {
                key_of(left)
            } else {
                key_of(right)
            }),
            _ => None,
        };
        match key {
            Some(k) => {
                found.push(k);
                keys.push(c);
            }
            None => rest.push(c),
        }
    }
    select.selection = rest.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    let missing: Vec<&String> = function.key.iter().filter(|k| !found.contains(k)).collect();
    if !missing.is_empty() || keys.is_empty() {
        return Err(SqlError::Plan(format!(
            "`LATERAL TABLE ({called}(...))`: the temporal table function `{}` joins on its key \
             ({}); compare {} with `=` to a column of the tables before it in WHERE",
            function.name,
            function.key.join(", "),
            missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(keys
        .into_iter()
        .reduce(|a, b| Expr::BinaryOp {
            left: Box::new(a),
            op: BinaryOperator::And,
            right: Box::new(b),
        })
        .unwrap_or(Expr::Value(sqlparser::ast::Value::Boolean(true).into())))
}

fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(*left, out);
            split_and(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            split_and(*inner, out)
        }
        other => out.push(other),
    }
}
