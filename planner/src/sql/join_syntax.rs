//! Join syntax `SqlToRel` does not plan as SQL defines it, rewritten in the
//! syntax tree before it plans: `SEMI JOIN` and `ANTI JOIN` (DuckDB's
//! names of the left semi and anti joins) become `LEFT SEMI JOIN` and
//! `LEFT ANTI JOIN`; `JOIN ... USING (...)` and `NATURAL JOIN` become
//! `ON` joins with SQL's merged columns.
//!
//! # USING and NATURAL
//!
//! SQL gives a USING (or NATURAL) join one column per join column, the
//! "merged" column: the left side's value for INNER and LEFT joins, the
//! right side's for RIGHT joins and `COALESCE(left, right)` for FULL
//! joins, so that a row of either side shows its key. `SELECT *` lists the
//! merged columns first (in the USING list's order, or the left side's
//! order for NATURAL), then the left side's other columns, then the right
//! side's. `SqlToRel` resolves an unqualified join column to one side's
//! column (the one whose qualifier sorts first), which is wrong for RIGHT
//! and FULL joins, orders `SELECT *` by the tables' names, and finds the
//! column ambiguous after a second USING join.
//!
//! So each SELECT whose FROM clause holds a USING or NATURAL join is
//! rewritten while the columns of every input are known (tables and views
//! from the catalog, derived tables from their column aliases or their
//! plan, VALUES from their aliases):
//!
//! - the join's condition becomes `ON <left column> = <right column> AND
//!   ...`, where the left column of a join after another USING join is
//!   that join's merged column;
//! - an unqualified reference to a merged column in the SELECT list,
//!   WHERE, GROUP BY, HAVING, QUALIFY and the ON conditions of later joins
//!   becomes the merged column's expression (a SELECT item keeps the
//!   column's name);
//! - a plain `*` becomes the list of columns in SQL's order.
//!
//! Qualified references (`a.k`) keep meaning that side's column. A FROM
//! clause whose inputs' columns cannot be known here (a CTE without column
//! aliases, a table function, a nested join in parentheses) is left to
//! `SqlToRel` as it is.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion_expr::planner::ContextProvider;
use datafusion_sql::planner::{SqlToRel, object_name_to_table_reference};
use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident, JoinConstraint, JoinOperator, ObjectName,
    ObjectNamePart, Query, Select, SelectItem, SetExpr, Statement, TableFactor, TableWithJoins,
    VisitMut, VisitorMut, WildcardAdditionalOptions,
};

use super::error::SqlError;

/// Rewrites every SEMI, ANTI, USING and NATURAL join of `statement` (see
/// the module docs), looking up the columns of tables and views in `provider`.
///
/// # Errors
/// [`SqlError::Unsupported`] for a USING column that one side does not
/// have, or has twice.
pub(super) fn rewrite_join_syntax<P: ContextProvider>(
    statement: &mut Statement,
    provider: &P,
) -> Result<(), SqlError> {
    let mut rewriter = Rewriter {
        provider,
        ctes: Vec::new(),
    };
    match statement.visit(&mut rewriter) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// One column of a FROM clause's scope.
#[derive(Clone, Debug)]
struct ScopeColumn {
    /// The column's name as stored (what an unqualified reference matches).
    name: String,
    /// How the rewritten SQL reads it.
    expr: Expr,
    /// A merged column of a USING or NATURAL join.
    merged: bool,
}

struct Rewriter<'a, P> {
    provider: &'a P,
    /// The CTE names of the enclosing queries (a table factor with such a
    /// name is the CTE, whose columns are known only from its aliases).
    ctes: Vec<HashMap<String, Option<Vec<String>>>>,
}

impl<P: ContextProvider> VisitorMut for Rewriter<'_, P> {
    type Break = SqlError;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<SqlError> {
        let mut names = HashMap::new();
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                let columns = (!cte.alias.columns.is_empty()).then(|| {
                    cte.alias
                        .columns
                        .iter()
                        .map(|c| normalized(&c.name))
                        .collect()
                });
                names.insert(normalized(&cte.alias.name), columns);
            }
        }
        self.ctes.push(names);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<SqlError> {
        // Inner queries (derived tables, subqueries) were rewritten first.
        let result = self.rewrite_body(&mut query.body);
        self.ctes.pop();
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    }
}

impl<P: ContextProvider> Rewriter<'_, P> {
    fn rewrite_body(&self, body: &mut SetExpr) -> Result<(), SqlError> {
        match body {
            SetExpr::Select(select) => self.rewrite_select(select),
            SetExpr::SetOperation { left, right, .. } => {
                self.rewrite_body(left)?;
                self.rewrite_body(right)
            }
            _ => Ok(()),
        }
    }

    fn rewrite_select(&self, select: &mut Select) -> Result<(), SqlError> {
        for join in select.from.iter_mut().flat_map(|t| t.joins.iter_mut()) {
            let op = &mut join.join_operator;
            match op {
                JoinOperator::Semi(c) => *op = JoinOperator::LeftSemi(c.clone()),
                JoinOperator::Anti(c) => *op = JoinOperator::LeftAnti(c.clone()),
                _ => {}
            }
        }
        if !select
            .from
            .iter()
            .any(|t| t.joins.iter().any(|j| using_or_natural(&j.join_operator)))
        {
            return Ok(());
        }
        let mut scopes = Vec::with_capacity(select.from.len());
        for from in &mut select.from {
            scopes.push(self.rewrite_from(from)?);
        }
        let merged: HashMap<String, Expr> = scopes
            .iter()
            .flatten()
            .flatten()
            .filter(|c| c.merged)
            .map(|c| (c.name.clone(), c.expr.clone()))
            .collect();
        // `*` in SQL's order, when every input's columns are known.
        let all: Option<Vec<ScopeColumn>> =
            scopes.into_iter().try_fold(Vec::new(), |mut all, scope| {
                all.extend(scope?);
                Some(all)
            });
        let mut projection = Vec::with_capacity(select.projection.len());
        for item in std::mem::take(&mut select.projection) {
            match item {
                SelectItem::Wildcard(options)
                    if options == WildcardAdditionalOptions::default() && all.is_some() =>
                {
                    for c in all.iter().flatten() {
                        projection.push(if c.merged && !is_column(&c.expr) {
                            SelectItem::ExprWithAlias {
                                expr: c.expr.clone(),
                                alias: quoted(&c.name),
                            }
                        } else {
                            SelectItem::UnnamedExpr(c.expr.clone())
                        });
                    }
                }
                SelectItem::UnnamedExpr(Expr::Identifier(id))
                    if merged.contains_key(&normalized(&id)) =>
                {
                    projection.push(SelectItem::ExprWithAlias {
                        expr: merged[&normalized(&id)].clone(),
                        alias: id,
                    });
                }
                SelectItem::UnnamedExpr(mut e) => {
                    replace_merged(&mut e, &merged);
                    projection.push(SelectItem::UnnamedExpr(e));
                }
                SelectItem::ExprWithAlias { mut expr, alias } => {
                    replace_merged(&mut expr, &merged);
                    projection.push(SelectItem::ExprWithAlias { expr, alias });
                }
                other => projection.push(other),
            }
        }
        select.projection = projection;
        for e in [
            &mut select.selection,
            &mut select.having,
            &mut select.qualify,
        ]
        .into_iter()
        .flatten()
        {
            replace_merged(e, &merged);
        }
        if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
            for e in exprs {
                replace_merged(e, &merged);
            }
        }
        Ok(())
    }

    /// Rewrites the USING and NATURAL joins of one FROM item; its scope
    /// when every input's columns are known (else the item is left as it
    /// is and `None` returned).
    fn rewrite_from(
        &self,
        from: &mut TableWithJoins,
    ) -> Result<Option<Vec<ScopeColumn>>, SqlError> {
        let Some(mut scope) = self.factor_scope(&from.relation) else {
            return Ok(None);
        };
        let mut joins = from.joins.clone();
        for join in &mut joins {
            let Some(right) = self.factor_scope(&join.relation) else {
                return Ok(None);
            };
            // (A semi or anti join outputs one side: such a FROM item is
            // left to SqlToRel.)
            let Some((Some(kind), constraint)) = split_operator(&mut join.join_operator) else {
                return Ok(None);
            };
            let names: Vec<String> = match constraint {
                JoinConstraint::Using(columns) => {
                    let mut names = Vec::with_capacity(columns.len());
                    for c in columns.iter() {
                        match c.0.as_slice() {
                            [ObjectNamePart::Identifier(id)] => names.push(normalized(id)),
                            _ => {
                                return Err(SqlError::Unsupported(format!(
                                    "USING ({c}): name the join column without a qualifier"
                                )));
                            }
                        }
                    }
                    names
                }
                JoinConstraint::Natural => {
                    let mut names: Vec<String> = Vec::new();
                    for c in &scope {
                        if !names.contains(&c.name) && right.iter().any(|r| r.name == c.name) {
                            names.push(c.name.clone());
                        }
                    }
                    names
                }
                JoinConstraint::On(on) => {
                    let merged: HashMap<String, Expr> = scope
                        .iter()
                        .filter(|c| c.merged && !right.iter().any(|r| r.name == c.name))
                        .map(|c| (c.name.clone(), c.expr.clone()))
                        .collect();
                    replace_merged(on, &merged);
                    scope.extend(right);
                    continue;
                }
                JoinConstraint::None => {
                    scope.extend(right);
                    continue;
                }
            };
            let mut conditions = Vec::with_capacity(names.len());
            let mut merged = Vec::with_capacity(names.len());
            for name in &names {
                let left = one_named(&scope, name, "left")?;
                let r = one_named(&right, name, "right")?;
                conditions.push(Expr::BinaryOp {
                    left: Box::new(left.expr.clone()),
                    op: BinaryOperator::Eq,
                    right: Box::new(r.expr.clone()),
                });
                let expr = match kind {
                    Kind::Left => left.expr.clone(),
                    Kind::Right => r.expr.clone(),
                    Kind::Full => coalesce(&left.expr, &r.expr)?,
                };
                merged.push(ScopeColumn {
                    name: name.clone(),
                    expr,
                    merged: true,
                });
            }
            *constraint = JoinConstraint::On(
                conditions
                    .into_iter()
                    .reduce(|a, b| Expr::BinaryOp {
                        left: Box::new(a),
                        op: BinaryOperator::And,
                        right: Box::new(b),
                    })
                    .unwrap_or(Expr::Value(sqlparser::ast::Value::Boolean(true).into())),
            );
            let rest = |cols: Vec<ScopeColumn>| {
                cols.into_iter()
                    .filter(|c| !names.contains(&c.name))
                    .collect::<Vec<_>>()
            };
            let left_rest = rest(std::mem::take(&mut scope));
            scope = merged;
            scope.extend(left_rest);
            scope.extend(rest(right));
        }
        from.joins = joins;
        Ok(Some(scope))
    }

    /// The columns of one table factor, each read through its qualifier;
    /// `None` when they cannot be known here.
    fn factor_scope(&self, factor: &TableFactor) -> Option<Vec<ScopeColumn>> {
        let (qualifier, names): (Vec<Ident>, Vec<String>) = match factor {
            TableFactor::Table {
                name,
                alias,
                args: None,
                version: None,
                ..
            } => {
                let alias_columns = alias
                    .as_ref()
                    .filter(|a| !a.columns.is_empty())
                    .map(|a| a.columns.iter().map(|c| normalized(&c.name)).collect());
                let qualifier = match alias {
                    Some(a) => vec![a.name.clone()],
                    None => name
                        .0
                        .iter()
                        .map(|p| p.as_ident().cloned())
                        .collect::<Option<Vec<_>>>()?,
                };
                let names = match alias_columns {
                    Some(columns) => columns,
                    None => self.table_columns(name)?,
                };
                (qualifier, names)
            }
            TableFactor::Derived {
                lateral: false,
                subquery,
                alias: Some(alias),
                ..
            } => {
                let names = if alias.columns.is_empty() {
                    let plan = SqlToRel::new(self.provider)
                        .sql_statement_to_plan(Statement::Query(subquery.clone()))
                        .ok()?;
                    plan.schema()
                        .fields()
                        .iter()
                        .map(|f| f.name().clone())
                        .collect()
                } else {
                    alias.columns.iter().map(|c| normalized(&c.name)).collect()
                };
                (vec![alias.name.clone()], names)
            }
            _ => return None,
        };
        Some(
            names
                .into_iter()
                .map(|name| {
                    let mut parts = qualifier.clone();
                    parts.push(quoted(&name));
                    ScopeColumn {
                        name,
                        expr: Expr::CompoundIdentifier(parts),
                        merged: false,
                    }
                })
                .collect(),
        )
    }

    /// The columns of a table or view of the catalog (`None` for a CTE
    /// without column aliases, or a name the catalog does not know: the
    /// planner then says what is wrong).
    fn table_columns(&self, name: &ObjectName) -> Option<Vec<String>> {
        if let [ObjectNamePart::Identifier(id)] = name.0.as_slice() {
            let key = normalized(id);
            for level in self.ctes.iter().rev() {
                if let Some(columns) = level.get(&key) {
                    return columns.clone();
                }
            }
        }
        let reference = object_name_to_table_reference(name.clone(), true).ok()?;
        let source = self.provider.get_table_source(reference).ok()?;
        Some(
            source
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect(),
        )
    }
}

/// Which side a merged column takes its value from.
#[derive(Clone, Copy)]
enum Kind {
    /// The left side's (INNER, LEFT).
    Left,
    /// The right side's (RIGHT).
    Right,
    /// `COALESCE(left, right)` (FULL).
    Full,
}

fn using_or_natural(op: &JoinOperator) -> bool {
    let mut op = op.clone();
    matches!(
        split_operator(&mut op),
        Some((_, JoinConstraint::Using(_) | JoinConstraint::Natural))
    )
}

/// The merged-column kind of a join operator (`None` for the semi and anti
/// joins, which output one side) and its constraint; `None` for the
/// operators without one.
fn split_operator(op: &mut JoinOperator) -> Option<(Option<Kind>, &mut JoinConstraint)> {
    Some(match op {
        JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => {
            (Some(Kind::Left), c)
        }
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (Some(Kind::Left), c),
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (Some(Kind::Right), c),
        JoinOperator::FullOuter(c) => (Some(Kind::Full), c),
        JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c) => (None, c),
        _ => return None,
    })
}

/// The one column of `scope` named `name`.
fn one_named<'s>(
    scope: &'s [ScopeColumn],
    name: &str,
    side: &str,
) -> Result<&'s ScopeColumn, SqlError> {
    let mut found = scope.iter().filter(|c| c.name == name);
    match (found.next(), found.next()) {
        (Some(c), None) => Ok(c),
        (None, _) => Err(SqlError::Unsupported(format!(
            "USING / NATURAL join: the {side} side has no column `{name}`; name a column \
             both sides have, or write the condition with ON"
        ))),
        (Some(_), Some(_)) => Err(SqlError::Unsupported(format!(
            "USING / NATURAL join: the {side} side has more than one column `{name}`; write \
             the condition with ON and qualified columns"
        ))),
    }
}

/// An identifier as the planner compares it: unquoted ones in lower case.
fn normalized(id: &Ident) -> String {
    match id.quote_style {
        Some(_) => id.value.clone(),
        None => id.value.to_lowercase(),
    }
}

fn quoted(name: &str) -> Ident {
    Ident::with_quote('"', name)
}

fn is_column(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
}

fn coalesce(left: &Expr, right: &Expr) -> Result<Expr, SqlError> {
    let sql = format!("COALESCE({left}, {right})");
    Ok(super::dialect::parser().try_with_sql(&sql)?.parse_expr()?)
}

/// Replaces the unqualified references to `merged` columns in `expr`
/// (not inside its subqueries, which have scopes of their own).
fn replace_merged(expr: &mut Expr, merged: &HashMap<String, Expr>) {
    struct Replace<'m> {
        merged: &'m HashMap<String, Expr>,
        depth: usize,
    }
    impl VisitorMut for Replace<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if self.depth == 0
                && let Expr::Identifier(id) = expr
                && let Some(m) = self.merged.get(&normalized(id))
            {
                *expr = m.clone();
            }
            ControlFlow::Continue(())
        }
    }
    if merged.is_empty() {
        return;
    }
    let _ = expr.visit(&mut Replace { merged, depth: 0 });
}
