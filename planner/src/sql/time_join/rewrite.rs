//! The AST rewrite of time joins into marked ordinary joins (module docs of
//! `super`).

use std::ops::ControlFlow;

use sqlparser::ast::VisitMut;
use sqlparser::ast::{
    BinaryOperator, Expr, Ident, Join, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart,
    Query, Select, SetExpr, Spanned, Statement, TableAlias, TableFactor, TableVersion,
    TableWithJoins, VisitorMut,
};

use super::{TimeJoinKind, marker_sql};
use crate::sql::blocks::fold_ident;
use crate::sql::catalog::DELETED_COLUMN;
use crate::sql::catalog::{Catalog, CatalogTable, TemporalFunction};
use crate::sql::error::SqlError;
use crate::sql::unsupported::at;

/// Rewrites every time join of `statement` (in subqueries and CTEs too)
/// into an INNER or LEFT join carrying the marker.
///
/// # Errors
/// [`SqlError::Unsupported`] / [`SqlError::Plan`] for what tenon does not
/// run or a table that cannot be joined so: `TIMESTAMP AS OF` and other
/// table versions, RIGHT / FULL temporal joins, a temporal join against a
/// view or a table without a primary key or without an event-time
/// attribute, a `MATCH_CONDITION` that is not one comparison, `USING`.
pub(crate) fn rewrite_time_joins(
    statement: &mut Statement,
    catalog: &Catalog,
) -> Result<(), SqlError> {
    struct Rewrite<'a> {
        catalog: &'a Catalog,
        change_log: bool,
    }
    impl VisitorMut for Rewrite<'_> {
        type Break = SqlError;
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<SqlError> {
            match rewrite_body(&mut query.body, self.catalog, &mut self.change_log) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    let names_tombstone = names_tombstone(statement);
    let mut rewrite = Rewrite {
        catalog,
        change_log: false,
    };
    if let ControlFlow::Break(e) = statement.visit(&mut rewrite) {
        return Err(e);
    }
    if let Some(at_node) = names_tombstone
        && rewrite.change_log
    {
        return Err(SqlError::Unsupported(format!(
            "`{DELETED_COLUMN}`{at_node}: in a temporal join a change log's deletes end their \
             keys' validity and are never joined, so the column cannot be read there (read it \
             from the versions relation itself, `SELECT * FROM t$versions`)"
        )));
    }
    Ok(())
}

/// Where the statement names the tombstone column, if it does.
fn names_tombstone(statement: &Statement) -> Option<String> {
    struct Find(Option<String>);
    impl sqlparser::ast::Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            let ident = match expr {
                Expr::Identifier(i) => Some(i),
                Expr::CompoundIdentifier(parts) => parts.last(),
                _ => None,
            };
            if ident.is_some_and(|i| i.value.eq_ignore_ascii_case(DELETED_COLUMN)) {
                self.0 = Some(at(expr));
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut find = Find(None);
    let _ = sqlparser::ast::Visit::visit(statement, &mut find);
    find.0
}

/// Rewrites the time joins of a query body; `change_log` is set when one
/// reads a change log's versions.
fn rewrite_body(
    body: &mut SetExpr,
    catalog: &Catalog,
    change_log: &mut bool,
) -> Result<(), SqlError> {
    match body {
        SetExpr::Select(select) => rewrite_select(select, catalog, change_log),
        SetExpr::SetOperation { left, right, .. } => {
            rewrite_body(left, catalog, change_log)?;
            rewrite_body(right, catalog, change_log)
        }
        _ => Ok(()),
    }
}

/// A relation in scope on the left of a join: the name its columns are
/// qualified with, and the catalog table it reads (if it is one).
struct InScope<'a> {
    qualifier: String,
    table: Option<&'a CatalogTable>,
}

pub(crate) fn single_name(name: &ObjectName) -> Option<String> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => Some(fold_ident(ident)),
        _ => None,
    }
}

fn scope_of<'a>(factor: &TableFactor, catalog: &'a Catalog, out: &mut Vec<InScope<'a>>) {
    match factor {
        TableFactor::Table { name, alias, .. } => {
            let table = single_name(name).and_then(|n| catalog.table(&n));
            let qualifier = match alias {
                Some(a) => fold_ident(&a.name),
                None => single_name(name).unwrap_or_default(),
            };
            out.push(InScope { qualifier, table });
        }
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            scope_of(&table_with_joins.relation, catalog, out);
            for j in &table_with_joins.joins {
                scope_of(&j.relation, catalog, out);
            }
        }
        TableFactor::Derived { alias: Some(a), .. } => out.push(InScope {
            qualifier: fold_ident(&a.name),
            table: None,
        }),
        _ => {}
    }
}

fn rewrite_select(
    select: &mut Select,
    catalog: &Catalog,
    change_log: &mut bool,
) -> Result<(), SqlError> {
    let functions = super::lateral::lateral_functions(select, catalog)?;
    let mut scope = Vec::new();
    for item in &mut select.from {
        rewrite_joins(item, catalog, &functions, &mut scope, change_log)?;
    }
    Ok(())
}

fn rewrite_joins<'a>(
    item: &mut TableWithJoins,
    catalog: &'a Catalog,
    functions: &[(String, TemporalFunction)],
    scope: &mut Vec<InScope<'a>>,
    change_log: &mut bool,
) -> Result<(), SqlError> {
    if let TableFactor::NestedJoin {
        table_with_joins, ..
    } = &mut item.relation
    {
        rewrite_joins(table_with_joins, catalog, functions, scope, change_log)?;
    } else {
        scope_of(&item.relation, catalog, scope);
    }
    for join in &mut item.joins {
        if let TableFactor::NestedJoin {
            table_with_joins, ..
        } = &mut join.relation
        {
            let mut inner = Vec::new();
            rewrite_joins(table_with_joins, catalog, functions, &mut inner, change_log)?;
        }
        if matches!(join.join_operator, JoinOperator::AsOf { .. }) {
            asof_join(join)?;
        } else if let TableFactor::Table {
            version: Some(_), ..
        } = &join.relation
        {
            *change_log |= temporal_join(join, catalog, functions, scope)?;
        }
        scope_of(&join.relation, catalog, scope);
    }
    if let TableFactor::Table {
        version: Some(v),
        name,
        ..
    } = &item.relation
    {
        return Err(SqlError::Unsupported(format!(
            "`{name} {v}`{}: a table version is read only by a join: write \
             `FROM probe [LEFT] JOIN {name} FOR SYSTEM_TIME AS OF probe.time ON ...` (to read \
             the table as it is, drop the clause)",
            at(v_span(v))
        )));
    }
    Ok(())
}

fn v_span(v: &TableVersion) -> &Expr {
    match v {
        TableVersion::ForSystemTimeAsOf(e)
        | TableVersion::TimestampAsOf(e)
        | TableVersion::VersionAsOf(e) => e,
        TableVersion::Function(e) => e,
        TableVersion::Changes { .. } => &NO_EXPR,
    }
}

static NO_EXPR: Expr = Expr::Value(sqlparser::ast::ValueWithSpan {
    value: sqlparser::ast::Value::Null,
    span: sqlparser::tokenizer::Span::empty(),
});

/// Parses tenon-generated SQL for an expression.
fn parse_expr(sql: &str) -> Result<Expr, SqlError> {
    Ok(crate::sql::dialect::parser()
        .try_with_sql(sql)?
        .parse_expr()?)
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(Expr::Nested(Box::new(a))),
        op: BinaryOperator::And,
        right: Box::new(b),
    }
}

/// Whether the time expression names a PROCTIME() column of a relation in
/// scope.
fn is_proc_time(time: &Expr, scope: &[InScope<'_>]) -> bool {
    let proc = |s: &InScope<'_>, column: &str| {
        s.table
            .and_then(|t| t.time.proc_time.as_deref())
            .is_some_and(|p| p == column)
    };
    match time {
        Expr::Identifier(c) => {
            let c = fold_ident(c);
            scope.iter().any(|s| proc(s, &c))
        }
        Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
            let (q, c) = (fold_ident(&parts[0]), fold_ident(&parts[1]));
            scope.iter().any(|s| s.qualifier == q && proc(s, &c))
        }
        _ => false,
    }
}

/// INNER or LEFT, and the ON condition, of a temporal join.
fn temporal_kind(join: &Join, what: &str) -> Result<(bool, Expr), SqlError> {
    let (left, constraint) = match &join.join_operator {
        JoinOperator::Join(c) | JoinOperator::Inner(c) => (false, c),
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (true, c),
        JoinOperator::Right(_) | JoinOperator::RightOuter(_) | JoinOperator::FullOuter(_) => {
            return Err(SqlError::Unsupported(format!(
                "a RIGHT or FULL join with {what}{}: temporal joins are INNER or LEFT (Flink \
                 runs only these): write `probe [LEFT] JOIN versioned FOR SYSTEM_TIME AS OF ...`",
                at(join)
            )));
        }
        _ => {
            return Err(SqlError::Unsupported(format!(
                "{what}{} in a join that is not [INNER] JOIN or LEFT JOIN: temporal joins are \
                 INNER or LEFT",
                at(join)
            )));
        }
    };
    match constraint {
        JoinConstraint::On(e) => Ok((left, e.clone())),
        _ => Err(SqlError::Unsupported(format!(
            "{what}{} without ON: a temporal join needs `ON probe.key = versioned.key` over \
             the versioned table's primary key (USING and NATURAL are not taken)",
            at(join)
        ))),
    }
}

/// A versioned table for a temporal join: the relation to read (its
/// versions relation for a change log), the tombstone, and its versions'
/// time column with the watermark it declares.
struct Versioned {
    relation: String,
    tombstone: bool,
    event_time: Option<String>,
    watermark: Option<String>,
}

/// The versions of a temporal table function's relation (a table or a
/// view): keyed by the function's key (the join's ON compares it), timed
/// by the function's time column (Flink's `createTemporalTableFunction(
/// time, key)`); the table's own PRIMARY KEY is not needed.
fn function_versions(catalog: &Catalog, f: &TemporalFunction) -> Versioned {
    let table = catalog.table(&f.table);
    let versions = table
        .and_then(|t| t.time.versions.as_ref())
        .filter(|v| catalog.table(v).is_some());
    let watermark = table
        .and_then(|t| t.time.event_time.as_ref())
        .filter(|e| e.column == f.time)
        .map(|e| e.watermark.clone());
    Versioned {
        relation: versions.cloned().unwrap_or_else(|| f.table.clone()),
        tombstone: versions.is_some(),
        event_time: Some(f.time.clone()),
        watermark,
    }
}

fn versioned(
    catalog: &Catalog,
    name: &str,
    what: &str,
    node: &impl Spanned,
) -> Result<Versioned, SqlError> {
    let Some(table) = catalog.table(name) else {
        if catalog.view(name).is_some() {
            return Err(SqlError::Unsupported(format!(
                "{what}{} reads view `{name}`: versions belong to a versioned table (a table \
                 with PRIMARY KEY ... NOT ENFORCED and WATERMARK FOR its time column), not to a \
                 view or subquery",
                at(node)
            )));
        }
        return Err(SqlError::UnknownTable {
            name: name.to_string(),
            known: catalog.relation_names(),
        });
    };
    if table.time.primary_key.is_empty() {
        return Err(SqlError::Plan(format!(
            "{what}{}: table `{name}` has no primary key, so tenon cannot tell which rows are \
             versions of one key: declare `PRIMARY KEY (key) NOT ENFORCED` in its CREATE TABLE \
             (with `WATERMARK FOR time_column AS ...` for its versions' time)",
            at(node)
        )));
    }
    let (relation, tombstone, table) = match &table.time.versions {
        Some(versions) => (
            versions.clone(),
            catalog.table(versions).is_some(),
            catalog.table(versions).unwrap_or(table),
        ),
        None => (name.to_string(), false, table),
    };
    Ok(Versioned {
        relation,
        tombstone,
        event_time: table.time.event_time.as_ref().map(|e| e.column.clone()),
        watermark: table.time.event_time.as_ref().map(|e| e.watermark.clone()),
    })
}

/// Rewrites one temporal join; whether it reads a change log's versions.
fn temporal_join(
    join: &mut Join,
    catalog: &Catalog,
    functions: &[(String, TemporalFunction)],
    scope: &[InScope<'_>],
) -> Result<bool, SqlError> {
    let TableFactor::Table {
        name,
        alias,
        version: Some(version),
        args,
        ..
    } = &join.relation
    else {
        return Ok(false);
    };
    let TableVersion::ForSystemTimeAsOf(time) = version else {
        return Err(SqlError::Unsupported(format!(
            "`{version}`{}: tenon reads versions with `FOR SYSTEM_TIME AS OF probe.time` in a \
             join (SQL:2011, as Flink)",
            at(v_span(version))
        )));
    };
    let what = format!("`{name} FOR SYSTEM_TIME AS OF {time}`");
    if args.is_some() {
        return Err(SqlError::Unsupported(format!(
            "{what}{}: a table function cannot be versioned",
            at(time)
        )));
    }
    let Some(table_name) = single_name(name) else {
        return Err(SqlError::Unsupported(format!(
            "{what}: tenon has one namespace, name the table without a schema or catalog"
        )));
    };
    let (left, on) = temporal_kind(join, &what)?;
    if let Some(source) = catalog.table(&table_name).and_then(|t| t.lookup.clone()) {
        if !is_proc_time(time, scope) {
            return Err(SqlError::Plan(format!(
                "{what}{}: `{table_name}` is a lookup table ({source}), whose rows are fetched \
                 when each probe row is processed: join it `FOR SYSTEM_TIME AS OF` a PROCTIME() \
                 column of the probe side (declare `proc_time AS PROCTIME()` in the probe \
                 table's CREATE TABLE)",
                at(time)
            )));
        }
        let qualifier = match alias {
            Some(a) => fold_ident(&a.name),
            None => table_name.clone(),
        };
        let clause = format!("FOR SYSTEM_TIME AS OF {time}");
        let marker = parse_expr(&marker_sql(
            TimeJoinKind::Lookup,
            ">=",
            &clause,
            &source,
            None,
            None,
            None,
        ))?;
        rejoin(
            join,
            plain_relation(&table_name, qualifier),
            left,
            and(on, marker),
        );
        return Ok(false);
    }
    let qualifier = match alias {
        Some(a) => fold_ident(&a.name),
        None => table_name.clone(),
    };
    let function = functions
        .iter()
        .find(|(q, f)| *q == qualifier && f.table == table_name)
        .map(|(_, f)| f);
    let table = match function {
        Some(f) => function_versions(catalog, f),
        None => versioned(catalog, &table_name, &what, time)?,
    };
    let kind = if is_proc_time(time, scope) {
        TimeJoinKind::Latest
    } else {
        TimeJoinKind::Temporal
    };
    let event_time = table.event_time.clone();
    if kind == TimeJoinKind::Temporal && event_time.is_none() {
        return Err(SqlError::Plan(format!(
            "{what}{}: table `{table_name}` has no event-time attribute to find the version \
             valid at `{time}`: declare `WATERMARK FOR time_column AS time_column` in its \
             CREATE TABLE (or join on a PROCTIME() column of the probe side for the latest \
             versions)",
            at(time)
        )));
    }
    let clause = format!("FOR SYSTEM_TIME AS OF {time}");
    let left_time = time.to_string();
    let right_time = event_time.map(|c| format!("{}.{}", quoted(&qualifier), quoted(&c)));
    let tombstone = table
        .tombstone
        .then(|| format!("{}.{}", quoted(&qualifier), quoted(DELETED_COLUMN)));
    let note = table.watermark.as_ref().map_or(String::new(), |w| {
        format!(
            "the watermark `{w}` of `{table_name}` has no effect in batch: every version is \
             known before the join runs"
        )
    });
    let marker = parse_expr(&marker_sql(
        kind,
        ">=",
        &clause,
        &note,
        (kind == TimeJoinKind::Temporal).then_some(left_time.as_str()),
        right_time.as_deref(),
        tombstone.as_deref(),
    ))?;
    rejoin(
        join,
        plain_relation(&table.relation, qualifier),
        left,
        and(on, marker),
    );
    Ok(table.tombstone)
}

/// The table `relation` under the alias `qualifier` (quoted: both are
/// folded names already).
fn plain_relation(relation: &str, qualifier: String) -> TableFactor {
    TableFactor::Table {
        name: ObjectName::from(vec![Ident::with_quote('"', relation.to_string())]),
        alias: Some(TableAlias {
            explicit: true,
            name: Ident::with_quote('"', qualifier),
            columns: Vec::new(),
            at: None,
        }),
        args: None,
        with_hints: Vec::new(),
        version: None,
        with_ordinality: false,
        partitions: Vec::new(),
        json_path: None,
        sample: None,
        index_hints: Vec::new(),
    }
}

/// `join` as an INNER (or, `left`, LEFT) join of `relation` ON `on`.
fn rejoin(join: &mut Join, relation: TableFactor, left: bool, on: Expr) {
    let condition = JoinConstraint::On(on);
    join.relation = relation;
    join.join_operator = if left {
        JoinOperator::LeftOuter(condition)
    } else {
        JoinOperator::Inner(condition)
    };
}

fn asof_join(join: &mut Join) -> Result<(), SqlError> {
    let JoinOperator::AsOf {
        match_condition,
        constraint,
    } = &join.join_operator
    else {
        return Ok(());
    };
    if let TableFactor::Table {
        version: Some(v), ..
    } = &join.relation
    {
        return Err(SqlError::Unsupported(format!(
            "`{v}` on the right side of an ASOF JOIN{}: an as-of join finds the closest row by \
             its MATCH_CONDITION; use one of the two",
            at(v_span(v))
        )));
    }
    let mut condition = match_condition;
    while let Expr::Nested(inner) = condition {
        condition = inner;
    }
    let clause = format!("MATCH_CONDITION ({match_condition})");
    let Expr::BinaryOp { left, op, right } = condition else {
        return Err(bad_match(&clause, match_condition));
    };
    let op = match op {
        BinaryOperator::GtEq => ">=",
        BinaryOperator::Gt => ">",
        BinaryOperator::LtEq => "<=",
        BinaryOperator::Lt => "<",
        _ => return Err(bad_match(&clause, match_condition)),
    };
    let marker = parse_expr(&marker_sql(
        TimeJoinKind::Asof,
        op,
        &clause,
        "",
        Some(&left.to_string()),
        Some(&right.to_string()),
        None,
    ))?;
    let on = match constraint {
        JoinConstraint::On(e) => and(e.clone(), marker),
        JoinConstraint::None => marker,
        _ => {
            return Err(SqlError::Unsupported(format!(
                "ASOF JOIN with USING or NATURAL{}: write the equality conditions as `ON l.key \
                 = r.key`",
                at(match_condition)
            )));
        }
    };
    join.join_operator = JoinOperator::LeftOuter(JoinConstraint::On(on));
    Ok(())
}

fn bad_match(clause: &str, node: &Expr) -> SqlError {
    SqlError::Unsupported(format!(
        "{clause}{}: the match condition of an as-of join is one comparison of a time of \
         each side with >=, >, <= or < (`MATCH_CONDITION (l.t >= r.t)`); put other \
         conditions in ON",
        at(node)
    ))
}

/// For SQL that does not parse: the error to report when it puts `FOR
/// SYSTEM_TIME AS OF` after a parenthesized subquery (which sqlparser
/// reports as a `FOR UPDATE` it expected).
pub(crate) fn version_after_subquery(sql: &str) -> Option<SqlError> {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::Token;
    let tokens = crate::sql::sql_tokens(sql).ok()?;
    let words: Vec<_> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    words.windows(3).find_map(|w| {
        let is = |t: &Token, k: Keyword| matches!(t, Token::Word(x) if x.keyword == k);
        (w[0].token == Token::RParen
            && is(&w[1].token, Keyword::FOR)
            && is(&w[2].token, Keyword::SYSTEM_TIME))
        .then(|| {
            let at = w[1].span.start;
            SqlError::Unsupported(format!(
                "FOR SYSTEM_TIME AS OF after a subquery (line {}, column {}): versions belong to \
                 a versioned table (PRIMARY KEY ... NOT ENFORCED and WATERMARK FOR its time \
                 column), so name the table: `JOIN versioned FOR SYSTEM_TIME AS OF probe.time \
                 AS v ON ...`",
                at.line, at.column
            ))
        })
    })
}
