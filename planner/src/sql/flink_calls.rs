//! Flink's function syntax that is not a plain call of a function,
//! rewritten before planning into what the planner reads (the functions
//! themselves live in `expr::flink`):
//!
//! * `IF(c, a, b)` is `CASE WHEN c THEN a ELSE b END` (only the branch a
//!   row takes is evaluated; the branches meet in one type).
//! * The unit of `TIMESTAMPADD(unit, n, ts)` and `TIMESTAMPDIFF(unit, a,
//!   b)` is a word, not a column: it becomes the text `'DAY'`.
//! * `LISTAGG(x[, sep])` is `array_to_string(array_agg(x), sep)`, `sep`
//!   `','` by default (NULLs are skipped).

use std::ops::ControlFlow;

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    CaseWhen, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, ObjectName, Statement, Value, ValueWithSpan, VisitMut, VisitorMut,
};

use super::error::SqlError;

/// Rewrites Flink's call syntax in `statement` (see the module docs).
pub(crate) fn rewrite_flink_calls(statement: &mut Statement) -> Result<(), SqlError> {
    struct Calls;
    impl VisitorMut for Calls {
        type Break = SqlError;
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<SqlError> {
            match rewrite(expr) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match VisitMut::visit(statement, &mut Calls) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// The plain arguments of a call, if it has only those.
fn plain_args(f: &mut Function) -> Option<&mut Vec<FunctionArg>> {
    match &mut f.args {
        FunctionArguments::List(FunctionArgumentList {
            args,
            duplicate_treatment: None,
            clauses,
        }) if clauses.is_empty() => Some(args),
        _ => None,
    }
}

fn arg_expr(a: &FunctionArg) -> Option<&Expr> {
    match a {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
        _ => None,
    }
}

fn text(s: &str) -> Expr {
    Expr::Value(ValueWithSpan::from(Value::SingleQuotedString(
        s.to_string(),
    )))
}

fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

fn rewrite(expr: &mut Expr) -> Result<(), SqlError> {
    let Expr::Function(f) = expr else {
        return Ok(());
    };
    if f.over.is_some() || f.name.0.len() != 1 {
        return Ok(());
    }
    let name = f.name.to_string().to_ascii_lowercase();
    match name.as_str() {
        "if" => {
            let Some(args) = plain_args(f) else {
                return Ok(());
            };
            let exprs: Vec<Expr> = args.iter().filter_map(arg_expr).cloned().collect();
            let [c, a, b] = <[Expr; 3]>::try_from(exprs).map_err(|_| {
                SqlError::Unsupported(
                    "IF takes three arguments: IF(condition, value_if_true, value_if_false)".into(),
                )
            })?;
            *expr = Expr::Case {
                case_token: AttachedToken::empty(),
                end_token: AttachedToken::empty(),
                operand: None,
                conditions: vec![CaseWhen {
                    condition: c,
                    result: a,
                }],
                else_result: Some(Box::new(b)),
            };
        }
        "timestampadd" | "timestampdiff" => {
            if let Some(args) = plain_args(f)
                && let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(unit)))) =
                    args.first_mut()
            {
                let word = unit.value.to_ascii_uppercase();
                args[0] = FunctionArg::Unnamed(FunctionArgExpr::Expr(text(&word)));
            }
        }
        "listagg" => {
            if f.filter.is_some() || !f.within_group.is_empty() {
                return Ok(());
            }
            let Some(args) = plain_args(f) else {
                return Ok(());
            };
            let exprs: Vec<Expr> = args.iter().filter_map(arg_expr).cloned().collect();
            let (value, sep) = match exprs.len() {
                1 => (exprs[0].clone(), text(",")),
                2 => (exprs[0].clone(), exprs[1].clone()),
                _ => {
                    return Err(SqlError::Unsupported(
                        "LISTAGG takes one or two arguments: LISTAGG(value[, separator])".into(),
                    ));
                }
            };
            *expr = call("array_to_string", vec![call("array_agg", vec![value]), sep]);
        }
        _ => {}
    }
    Ok(())
}
