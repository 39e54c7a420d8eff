//! A `--query` file as a script: DDL statements (`CREATE VIEW`, `CREATE
//! TABLE ... WITH`, `DROP VIEW`, `DROP TABLE`, `ANALYZE`) around the one
//! query that is benched, as TPC-H's `q15_view.sql` has them (CREATE VIEW,
//! the query, DROP VIEW).
//!
//! The statements before the query run as the session runs a script
//! ([`tenon::Session::execute`], in order) before the query is planned,
//! and again before it is measured; those after it run after it. Each
//! file runs in a scope of its own: what it creates and does not drop is
//! dropped when it ends, and it may not drop or replace what was there
//! before it (the tables of the options and the views and tables of
//! `-f`). So every file sees the same session whichever files run before
//! it, running the file twice (planned, then measured) gives the same
//! plan, and `--workload FILE#joinN` alone (as `--against`'s turns and the
//! counted runs of `--measure instructions` run it) benches what the whole
//! run benches.

use std::collections::BTreeSet;
use std::path::Path;

use tenon::planner::sql::{ScriptStatement, SqlStatement, parse_statement, split_statements};
use tenon::{Error, Session};

use crate::cli::CliError;

/// A query file's statements: the query and the DDL around it.
#[derive(Debug, Clone)]
pub(super) struct QueryScript {
    /// The DDL before the query, in order.
    before: Vec<ScriptStatement>,
    /// The query benched.
    pub query: ScriptStatement,
    /// The DDL after the query, in order.
    after: Vec<ScriptStatement>,
}

/// The session's tables and views when a file starts.
#[derive(Debug)]
pub(super) struct Scope {
    tables: BTreeSet<String>,
    views: BTreeSet<String>,
}

impl QueryScript {
    /// Splits `text` (the file at `path`) into its query and its DDL.
    ///
    /// # Errors
    ///
    /// A usage error naming the file: it cannot be split or a statement
    /// does not parse, it holds no query or more than one, or a statement
    /// a query file cannot hold (temporal table functions: put them in
    /// `-f FILE`).
    pub(super) fn parse(path: &Path, text: &str) -> Result<QueryScript, CliError> {
        let in_file = |e: Error| CliError {
            code: e.exit_code() as u8,
            message: format!("--query {}: {e}", path.display()),
        };
        let statements = split_statements(text).map_err(|e| in_file(e.into()))?;
        let mut queries = Vec::new();
        for (i, s) in statements.iter().enumerate() {
            let kind =
                parse_statement(&s.text).map_err(|e| in_file(Error::from(e).in_statement(s)))?;
            match kind {
                SqlStatement::Query => queries.push(i),
                SqlStatement::CreateTemporalFunction(_) | SqlStatement::DropTemporalFunction(_) => {
                    return Err(CliError::usage(format!(
                        "--query {}: statement {} (line {}) `{}`: a query file runs views, \
                         tables and ANALYZE around its query; put temporal table functions in \
                         -f FILE",
                        path.display(),
                        s.number,
                        s.line,
                        s.first_line()
                    )));
                }
                _ => {}
            }
        }
        let at = |i: usize| {
            let s = &statements[i];
            format!(
                "statement {} (line {}) `{}`",
                s.number,
                s.line,
                s.first_line()
            )
        };
        match queries.as_slice() {
            [] => Err(CliError::usage(format!(
                "--query {}: holds no query{}; a query file holds one query to bench (with the \
                 CREATE VIEW / CREATE TABLE / DROP statements it needs around it)",
                path.display(),
                if statements.is_empty() {
                    String::new()
                } else {
                    format!(", only {} DDL statement(s)", statements.len())
                }
            ))),
            &[q] => {
                let mut statements = statements;
                let after = statements.split_off(q + 1);
                let query = statements.pop().ok_or_else(|| {
                    CliError::exec(format!("--query {}: internal: no query", path.display()))
                })?;
                Ok(QueryScript {
                    before: statements,
                    query,
                    after,
                })
            }
            many => Err(CliError::usage(format!(
                "--query {}: holds {} queries ({}); a query file holds one query to bench: put \
                 each in a file of its own (a directory of them runs them all)",
                path.display(),
                many.len(),
                many.iter().map(|&i| at(i)).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// Whether the file has statements besides its query.
    pub(super) fn has_ddl(&self) -> bool {
        !self.before.is_empty() || !self.after.is_empty()
    }

    /// Runs the statements before the query in `session`; the scope to
    /// give [`QueryScript::leave`].
    ///
    /// # Errors
    ///
    /// A statement's error naming the file and the statement (its exit
    /// code), or a usage error for one that drops or replaces what was
    /// there before the file.
    pub(super) fn enter(&self, session: &Session, path: &Path) -> Result<Scope, CliError> {
        let scope = Scope {
            tables: session.table_names().into_iter().collect(),
            views: session.view_names().into_iter().collect(),
        };
        run(session, path, &self.before, &scope)?;
        Ok(scope)
    }

    /// Runs the statements after the query, then drops what the file
    /// created and left.
    ///
    /// # Errors
    ///
    /// As [`QueryScript::enter`]; dropping what is left fails only on a
    /// bug (exit 3), and then before the statements' error is reported.
    pub(super) fn leave(
        &self,
        session: &Session,
        path: &Path,
        scope: Scope,
    ) -> Result<(), CliError> {
        let result = run(session, path, &self.after, &scope);
        // what the file left, dropped even when a statement failed
        // (names listed again after each drop: dropping a change log's
        // table drops its `t$versions` too)
        let left = |names: Vec<String>, had: &BTreeSet<String>| {
            names.into_iter().find(|n| !had.contains(n))
        };
        while let Some(v) = left(session.view_names(), &scope.views) {
            drop_object(session, path, "VIEW", &v)?;
        }
        while let Some(t) = left(session.table_names(), &scope.tables) {
            drop_object(session, path, "TABLE", &t)?;
        }
        result
    }
}

/// Runs `statements` of the file at `path`, refusing any that would drop
/// or replace a table or view of `scope`.
fn run(
    session: &Session,
    path: &Path,
    statements: &[ScriptStatement],
    scope: &Scope,
) -> Result<(), CliError> {
    for s in statements {
        let kind = parse_statement(&s.text).map_err(|e| CliError {
            code: 2,
            message: format!(
                "--query {}: {}",
                path.display(),
                Error::from(e).in_statement(s)
            ),
        })?;
        let touched: Vec<(&str, &String)> = match &kind {
            SqlStatement::DropView(d) => d.names.iter().map(|n| ("view", n)).collect(),
            SqlStatement::DropTable(d) => d.names.iter().map(|n| ("table", n)).collect(),
            SqlStatement::CreateView(c) if c.or_replace => vec![("view", &c.view.name)],
            SqlStatement::CreateTable(t) if t.or_replace => vec![("table", &t.name)],
            _ => Vec::new(),
        };
        for (what, name) in touched {
            let before = match what {
                "view" => scope.views.contains(name),
                _ => scope.tables.contains(name),
            };
            if before {
                return Err(CliError::usage(format!(
                    "--query {}: statement {} (line {}) `{}` drops or replaces the {what} \
                     `{name}`, which the file did not create (it comes from the options or \
                     -f): a query file may drop only what it creates itself, so that every \
                     file sees the same tables; give the file's {what} another name",
                    path.display(),
                    s.number,
                    s.line,
                    s.first_line()
                )));
            }
        }
        session.execute(&s.text).map_err(|e| CliError {
            code: e.exit_code() as u8,
            message: format!("--query {}: {}", path.display(), e.in_statement(s)),
        })?;
    }
    Ok(())
}

/// Drops the view or table `name` the file at `path` left.
fn drop_object(session: &Session, path: &Path, kind: &str, name: &str) -> Result<(), CliError> {
    let sql = format!("DROP {kind} \"{}\"", name.replace('"', "\"\""));
    session.execute(&sql).map(|_| ()).map_err(|e| {
        CliError::exec(format!(
            "--query {}: dropping the {} `{name}` it left: {e}",
            path.display(),
            kind.to_lowercase()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_its_query_and_the_ddl_around_it() {
        let path = Path::new("q15_view.sql");
        let s = QueryScript::parse(
            path,
            "-- c\ncreate view v as select 1 as x;\nselect x from v;\ndrop view v;\n",
        )
        .unwrap();
        assert_eq!((s.before.len(), s.after.len()), (1, 1));
        assert!(s.query.text.trim().starts_with("select x from v"));
        assert!(s.has_ddl());
        let two = QueryScript::parse(path, "select 1;\nselect 2").unwrap_err();
        assert_eq!(two.code, 2);
        assert!(
            two.message.contains("q15_view.sql")
                && two.message.contains("holds 2 queries")
                && two.message.contains("line 2"),
            "{}",
            two.message
        );
        let none = QueryScript::parse(path, "drop view v").unwrap_err();
        assert!(none.message.contains("holds no query"), "{}", none.message);
    }
}
