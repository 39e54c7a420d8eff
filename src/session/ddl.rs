//! Statements besides queries: `CREATE [OR REPLACE] [TEMPORARY] VIEW`,
//! `DROP VIEW`, `CREATE TABLE ... WITH (...)`, `DROP TABLE`, and scripts of
//! several statements.

use std::sync::Arc;

use tenon_planner::prepare::{BoxError, CatalogProvider, ScanSource, ScanSpec, check_statement};
use tenon_planner::sql::{
    Catalog, CreateTable, CreateView, DropObjects, ScriptStatement, SqlStatement, TableStats,
    parse_statement, split_statements,
};

use super::sources::{FileTable, Registry};
use super::{QueryOutput, Session, StatementOutput};
use crate::error::{Cause, Error};
use crate::io::file_stats;
use crate::options::parse_create_options;

/// Whether `sql` starts (after white space and comments) with CREATE or
/// DROP: the only statements besides queries. Cheap, so that a query pays
/// no second parse.
fn looks_like_ddl(sql: &str) -> bool {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    word.eq_ignore_ascii_case("create") || word.eq_ignore_ascii_case("drop")
}

/// The statement if `sql` is DDL, `None` for a query.
fn ddl_statement(sql: &str) -> Result<Option<SqlStatement>, Error> {
    if !looks_like_ddl(sql) {
        return Ok(None);
    }
    match parse_statement(sql)? {
        SqlStatement::Query => Ok(None),
        ddl => Ok(Some(ddl)),
    }
}

/// An error for DDL where only a query makes sense (`what`: EXPLAIN, ...).
pub(super) fn refuse_ddl(sql: &str, what: &str) -> Result<(), Error> {
    if looks_like_ddl(sql) {
        return Err(Error::Plan(Cause::from(format!(
            "{what} shows the plan of a query, and `{} ...` is a DDL statement, which \
             has none: run it as a statement of its own, without EXPLAIN (on the command \
             line: without --explain / --analyze; in a script, `-f FILE`, it runs in \
             order)",
            sql.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
        ))));
    }
    Ok(())
}

impl Session {
    /// Runs one statement: a query (its result) or DDL (what it did).
    ///
    /// - `CREATE [OR REPLACE] [TEMPORARY] VIEW [IF NOT EXISTS] v [(c, ...)]
    ///   AS query`: the body is planned once to check it (unknown tables,
    ///   hints, OPTIONS, views that would refer to each other in a cycle),
    ///   then kept as text and planned wherever `v` is used, as its own
    ///   query block (docs/hints.md H30, H31);
    /// - `DROP [TEMPORARY] VIEW [IF EXISTS] v [, ...]`;
    /// - `CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] t (col TYPE
    ///   [NOT NULL], ...) WITH ('connector' = 'filesystem', 'path' = '...',
    ///   'format' = 'parquet' | 'csv' | 'arrow' | 'json', ...)`: the options
    ///   are checked and the path must exist; the file is read (into the
    ///   declared schema) when a query first scans the table, and kept. Its
    ///   size for the join choice comes from the files: bytes on disk, and
    ///   for Parquet the row count of the footers. See [`crate::options`];
    /// - `DROP [TEMPORARY] TABLE [IF EXISTS] t [, ...]`.
    ///
    /// # Errors
    ///
    /// As [`Session::query`] for a query; for DDL: [`Error::Sql`] (syntax,
    /// unsupported DDL, an unknown type, and the errors of a view's body),
    /// [`Error::Hint`], [`Error::Options`], [`Error::Io`] (a table's path
    /// that does not exist), [`Error::Ddl`] (a name that is taken, an
    /// unknown name to drop).
    ///
    /// # Examples
    ///
    /// ```
    /// use tenon::{Config, Session, StatementOutput};
    ///
    /// let mut session = Session::new(Config::default())?;
    /// session.register_tpch(0.001)?;
    /// let done = session.execute("CREATE VIEW asia AS SELECT n_name FROM nation \
    ///     JOIN region ON n_regionkey = r_regionkey WHERE r_name = 'ASIA'")?;
    /// assert!(matches!(done, StatementOutput::Done(ref what) if what == "created view asia"));
    /// let StatementOutput::Rows(out) = session.execute("SELECT count(*) FROM asia")? else {
    ///     panic!("a query gives rows")
    /// };
    /// assert_eq!(out.num_rows(), 1);
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn execute(&self, sql: &str) -> Result<StatementOutput, Error> {
        super::on_planning_stack(|| match self.run_if_ddl(sql)? {
            Some(done) => Ok(StatementOutput::Done(done)),
            None => Ok(StatementOutput::Rows(self.query(sql)?)),
        })
    }

    /// Runs the statements of `script` (separated by `;`) in order and
    /// returns the last query's result (`None` when there is no query).
    ///
    /// # Errors
    ///
    /// The first failing statement's error as [`Error::Statement`], which
    /// names the statement (its number and first line); the statements
    /// before it have run. A script that cannot be split (an unclosed
    /// string or comment) is an [`Error::Sql`] with its position.
    pub fn execute_script(&self, script: &str) -> Result<Option<QueryOutput>, Error> {
        super::on_planning_stack(|| self.run_script(script))
    }

    /// [`Session::execute_script`], on the planning stack.
    fn run_script(&self, script: &str) -> Result<Option<QueryOutput>, Error> {
        let mut last = None;
        for statement in split_statements(script)? {
            match self
                .execute(&statement.text)
                .map_err(|e| e.in_statement(&statement))?
            {
                StatementOutput::Rows(out) => last = Some(out),
                StatementOutput::Done(_) => {}
            }
        }
        Ok(last)
    }

    /// Runs `sql` if it is DDL: `Some(what it did)`; `None` for a query.
    pub(super) fn run_if_ddl(&self, sql: &str) -> Result<Option<String>, Error> {
        let Some(statement) = ddl_statement(sql)? else {
            return Ok(None);
        };
        let done = match statement {
            SqlStatement::Query => return Ok(None),
            SqlStatement::CreateView(v) => self.create_view(v)?,
            SqlStatement::DropView(d) => self.drop_views(d)?,
            SqlStatement::CreateTable(t) => self.create_table(t)?,
            SqlStatement::DropTable(d) => self.drop_tables(d)?,
        };
        Ok(Some(done))
    }

    fn create_view(&self, create: CreateView) -> Result<String, Error> {
        let mut registry = self.write();
        let name = create.view.name.clone();
        if registry.catalog.table(&name).is_some() {
            return Err(Error::Ddl(format!(
                "cannot create view `{name}`: a table has that name (DROP TABLE {name} first, or \
                 choose another name)"
            )));
        }
        if registry.catalog.view(&name).is_some() {
            if create.if_not_exists {
                return Ok(format!("view {name} exists"));
            }
            if !create.or_replace {
                return Err(Error::Ddl(format!(
                    "view `{name}` already exists (CREATE OR REPLACE VIEW {name} replaces it; \
                     DROP VIEW {name} drops it)"
                )));
            }
        }
        // Plan a query of the view once, the view registered (so that a
        // body reaching the view again is a cycle, not an unknown table,
        // and errors in the body say which view).
        let mut catalog = registry.catalog.clone();
        catalog.register_view(create.view.clone());
        let probe = format!("SELECT * FROM \"{}\"", name.replace('"', "\"\""));
        let provider = WithCatalog {
            catalog: &catalog,
            registry: &registry,
        };
        check_statement(&probe, &provider, &self.config)?;
        registry.catalog.register_view(create.view);
        Ok(format!("created view {name}"))
    }

    fn drop_views(&self, drop: DropObjects) -> Result<String, Error> {
        let mut registry = self.write();
        for name in &drop.names {
            if registry.catalog.view(name).is_some() || drop.if_exists {
                continue;
            }
            return Err(Error::Ddl(if registry.catalog.table(name).is_some() {
                format!("`{name}` is a table, not a view: DROP TABLE {name}")
            } else {
                format!(
                    "cannot drop view `{name}`: there is no such view (views: {}; DROP VIEW IF \
                     EXISTS ignores a missing one)",
                    list(&registry.catalog.view_names())
                )
            }));
        }
        for name in &drop.names {
            registry.catalog.drop_view(name);
        }
        Ok(format!("dropped view {}", drop.names.join(", ")))
    }

    fn create_table(&self, create: CreateTable) -> Result<String, Error> {
        let name = create.name.clone();
        let options = parse_create_options(&name, &create.options)?;
        {
            let registry = self.read();
            if registry.catalog.view(&name).is_some() {
                return Err(Error::Ddl(format!(
                    "cannot create table `{name}`: a view has that name (DROP VIEW {name} first, \
                     or choose another name)"
                )));
            }
            if registry.catalog.table(&name).is_some() {
                if create.if_not_exists {
                    return Ok(format!("table {name} exists"));
                }
                if !create.or_replace {
                    return Err(Error::Ddl(format!(
                        "table `{name}` already exists (CREATE OR REPLACE TABLE {name} replaces \
                         it; DROP TABLE {name} drops it)"
                    )));
                }
            }
        }
        let stats = file_stats(&options.path, Some(options.format))?;
        let file = FileTable::declared(
            options.path,
            options.format,
            options.settings,
            create.schema,
            options.in_memory,
        );
        let stats = TableStats {
            row_count: stats.rows,
            byte_size: Some(stats.bytes),
            ..TableStats::default()
        };
        self.write().insert_lazy_file(&name, file, stats);
        Ok(format!("created table {name}"))
    }

    fn drop_tables(&self, drop: DropObjects) -> Result<String, Error> {
        let mut registry = self.write();
        for name in &drop.names {
            if registry.catalog.table(name).is_some() || drop.if_exists {
                continue;
            }
            return Err(Error::Ddl(if registry.catalog.view(name).is_some() {
                format!("`{name}` is a view, not a table: DROP VIEW {name}")
            } else {
                format!(
                    "cannot drop table `{name}`: there is no such table (tables: {}; DROP TABLE \
                     IF EXISTS ignores a missing one)",
                    list(&registry.catalog.table_names())
                )
            }));
        }
        for name in &drop.names {
            registry.remove_table(name);
        }
        Ok(format!("dropped table {}", drop.names.join(", ")))
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

impl Error {
    /// This error as the failure of `statement` of a script.
    pub fn in_statement(self, statement: &ScriptStatement) -> Error {
        Error::Statement {
            number: statement.number,
            line: statement.line,
            text: statement.first_line().chars().take(80).collect(),
            source: Box::new(self),
        }
    }
}

/// The session's tables and sources with another catalog (one with a view
/// about to be created).
struct WithCatalog<'a> {
    catalog: &'a Catalog,
    registry: &'a Registry,
}

impl CatalogProvider for WithCatalog<'_> {
    fn catalog(&self) -> &Catalog {
        self.catalog
    }

    fn scan_source(&self, scan: &ScanSpec<'_>) -> Result<Arc<dyn ScanSource>, BoxError> {
        self.registry.scan_source(scan)
    }
}
