//! `LIMIT` and `OFFSET` literals beyond 2^63-1 (`LIMIT
//! 18446744073709551615`, a common "no limit"): datafusion-sql reads them
//! as no integer and refuses them. No result has that many rows, so such
//! a literal is rewritten before planning to 2^63-1, which means the same:
//! every row for a LIMIT, none for an OFFSET.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, LimitClause, Query, Value, ValueWithSpan, VisitMut, VisitorMut};

/// `expr` as the largest LIMIT datafusion-sql reads, if it is a whole
/// number literal beyond it.
fn clamp(expr: &mut Expr) {
    let Expr::Value(ValueWithSpan {
        value: Value::Number(n, _),
        ..
    }) = expr
    else {
        return;
    };
    let text = n.to_string();
    let whole = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if whole
        && text.parse::<i64>().is_err()
        && let Ok(max) = i64::MAX.to_string().parse()
    {
        *n = max;
    }
}

/// Rewrites every LIMIT and OFFSET literal of `statement` beyond 2^63-1.
pub(crate) fn clamp_limits(statement: &mut sqlparser::ast::Statement) {
    struct Limits;
    impl VisitorMut for Limits {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            match &mut query.limit_clause {
                Some(LimitClause::LimitOffset { limit, offset, .. }) => {
                    if let Some(l) = limit {
                        clamp(l);
                    }
                    if let Some(o) = offset {
                        clamp(&mut o.value);
                    }
                }
                Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
                    clamp(offset);
                    clamp(limit);
                }
                None => {}
            }
            ControlFlow::Continue(())
        }
    }
    let _ = VisitMut::visit(statement, &mut Limits);
}
