//! Statements besides queries: `CREATE [OR REPLACE] [TEMPORARY] VIEW`,
//! `DROP VIEW`, `CREATE TABLE ... WITH (...)` (with its time and version
//! declarations, and change logs), `DROP TABLE`, `CREATE / DROP TEMPORAL
//! TABLE FUNCTION`, and scripts of several statements.

use std::sync::Arc;

use arrow_schema::{DataType, Schema, SchemaRef};

use tenon_planner::prepare::{BoxError, CatalogProvider, ScanSource, ScanSpec, check_statement};
use tenon_planner::sql::{
    Catalog, CreateTable, CreateTemporalFunction, CreateView, DropObjects, ScriptStatement,
    SqlStatement, TableStats, TableTime, TemporalFunction, parse_statement, split_statements,
};

use super::sources::{ChangeLogRead, FileTable, Registry, TimeRead};
use super::{QueryOutput, Session, StatementOutput};
use crate::error::{Cause, Error};
use crate::io::{ChangeLog, ChangeLogView, file_stats, versions_schema};
use crate::options::parse_create_options;
use tenon_planner::config::Config;

/// Whether `sql` starts (after white space and comments) with CREATE, DROP,
/// ANALYZE, SET, RESET, SHOW, DESCRIBE or EXPLAIN: the only statements
/// besides queries. Cheap, so that a query pays
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
    [
        "create", "drop", "analyze", "set", "reset", "show", "describe", "desc", "explain",
    ]
    .iter()
    .any(|w| word.eq_ignore_ascii_case(w))
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
    ///   for Parquet the row count of the footers. See [`crate::options`].
    ///   The columns may declare time and versions (`WATERMARK FOR`, `AS
    ///   PROCTIME()`, `PRIMARY KEY ... NOT ENFORCED`: see
    ///   [`Session::table_time`]); `'format' = 'debezium-json'` registers a
    ///   change log as `t` (its state at the end of the log) and
    ///   `t$versions` (every change, see [`crate::io::read_change_log`]);
    /// - `DROP [TEMPORARY] TABLE [IF EXISTS] t [, ...]` (a change log's
    ///   versions and the temporal table functions over the table with it);
    /// - `CREATE [OR REPLACE] TEMPORAL TABLE FUNCTION f AS t(time, key,
    ///   ...)` and `DROP TEMPORAL TABLE FUNCTION [IF EXISTS] f [, ...]`
    ///   (see [`Session::register_temporal_table_function`]).
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
            Some(done) => Ok(done),
            None => Ok(StatementOutput::Rows(self.query(sql)?)),
        })
    }

    /// Runs one statement as [`Session::execute`] does, and also those
    /// that change the session's settings, which take it mutably:
    /// `SET 'key' = 'value'` (tenon's name of a setting or Flink's, as
    /// [`Session::set`]) and `RESET 'key'` / `RESET` (one setting, or all,
    /// back to its default).
    ///
    /// # Errors
    ///
    /// As [`Session::execute`]; [`Error::Config`] for an unknown key or a
    /// bad value (the settings are then as they were).
    ///
    /// # Examples
    ///
    /// ```
    /// use tenon::{Config, Session, StatementOutput};
    ///
    /// let mut session = Session::new(Config::default())?;
    /// session.execute_mut("SET 'table.optimizer.join.broadcast-threshold' = '10 mb'")?;
    /// assert_eq!(session.config().broadcast_threshold, 10 << 20);
    /// session.execute_mut("RESET 'table.optimizer.join.broadcast-threshold'")?;
    /// assert_eq!(session.config(), &Config::default());
    /// let StatementOutput::Rows(settings) = session.execute_mut("SET")? else { panic!() };
    /// assert_eq!(settings.num_rows(), Config::KEYS.len());
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn execute_mut(&mut self, sql: &str) -> Result<StatementOutput, Error> {
        if looks_like_ddl(sql) {
            match parse_statement(sql)? {
                SqlStatement::Set(Some((key, value))) => {
                    self.set(&key, &value)?;
                    return Ok(StatementOutput::Done(format!(
                        "set {} to {}",
                        Config::canonical_key(&key)?,
                        self.config.value(&key)?
                    )));
                }
                SqlStatement::Reset(key) => {
                    return self.reset(key.as_deref()).map(StatementOutput::Done);
                }
                _ => {}
            }
        }
        self.execute(sql)
    }

    /// `RESET 'key'` (one setting) or `RESET` (every setting) back to
    /// its default: what it did.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for an unknown key.
    pub fn reset(&mut self, key: Option<&str>) -> Result<String, Error> {
        let mut config = self.config.clone();
        let done = match key {
            Some(key) => {
                config.reset(key)?;
                format!("reset {}", Config::canonical_key(key)?)
            }
            None => {
                config = Config::default();
                "reset every setting".to_string()
            }
        };
        self.apply(config)?;
        Ok(done)
    }

    /// Runs the statements of `script` (separated by `;`) in order, as
    /// [`Session::execute_mut`] runs each (`SET` and `RESET` included),
    /// and returns the last query's result (`None` when there is no
    /// query).
    ///
    /// # Errors
    ///
    /// The first failing statement's error as [`Error::Statement`], which
    /// names the statement (its number and first line); the statements
    /// before it have run. A script that cannot be split (an unclosed
    /// string or comment) is an [`Error::Sql`] with its position.
    pub fn execute_script(&mut self, script: &str) -> Result<Option<QueryOutput>, Error> {
        super::on_planning_stack(|| self.run_script(script))
    }

    /// [`Session::execute_script`], on the planning stack.
    fn run_script(&mut self, script: &str) -> Result<Option<QueryOutput>, Error> {
        let mut last = None;
        for statement in split_statements(script)? {
            match self
                .execute_mut(&statement.text)
                .map_err(|e| e.in_statement(&statement))?
            {
                StatementOutput::Rows(out) => last = Some(out),
                StatementOutput::Done(_) => {}
            }
        }
        Ok(last)
    }

    /// Runs `sql` if it is not a query: `Some(what it did)` for DDL,
    /// `Some(rows)` for `SET`, `SHOW TABLES`, `DESCRIBE`, `EXPLAIN`;
    /// `None` for a query.
    pub(super) fn run_if_ddl(&self, sql: &str) -> Result<Option<StatementOutput>, Error> {
        let Some(statement) = ddl_statement(sql)? else {
            return Ok(None);
        };
        if let Some(rows) = self.listing(&statement)? {
            return Ok(Some(StatementOutput::Rows(rows)));
        }
        let done = match statement {
            SqlStatement::CreateView(v) => self.create_view(v)?,
            SqlStatement::DropView(d) => self.drop_views(d)?,
            SqlStatement::CreateTable(t) => self.create_table(t)?,
            SqlStatement::DropTable(d) => self.drop_tables(d)?,
            SqlStatement::CreateTemporalFunction(f) => self.create_temporal_function(f)?,
            SqlStatement::DropTemporalFunction(d) => self.drop_temporal_functions(d)?,
            SqlStatement::Analyze(name) => self.analyze_table(&name)?,
            SqlStatement::Set(_) | SqlStatement::Reset(_) => {
                return Err(Error::Plan(Cause::from(format!(
                    "`{}` changes the session's settings, which needs the session mutably: \
                     run it with Session::execute_mut or Session::execute_script (or call \
                     Session::set / Session::reset)",
                    sql.trim()
                ))));
            }
            // queries and the statements that give rows are above
            _ => return Ok(None),
        };
        Ok(Some(StatementOutput::Done(done)))
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

    /// Whether table `name` may be created: `Some(message)` when it exists
    /// and `IF NOT EXISTS` makes that fine; an error when its name (or the
    /// name of its `versions` relation) is taken.
    fn check_new_table(
        &self,
        name: &str,
        create: &CreateTable,
        versions: Option<&String>,
    ) -> Result<Option<String>, Error> {
        let registry = self.read();
        if registry.catalog.view(name).is_some() {
            return Err(Error::Ddl(format!(
                "cannot create table `{name}`: a view has that name (DROP VIEW {name} first, \
                     or choose another name)"
            )));
        }
        if let Some(owner) = versions_owner(&registry.catalog, name) {
            return Err(Error::Ddl(format!(
                "cannot create table `{name}`: it is the versions of the change log \
                     `{owner}` (choose another name)"
            )));
        }
        if registry.catalog.table(name).is_some() {
            if create.if_not_exists {
                return Ok(Some(format!("table {name} exists")));
            }
            if !create.or_replace {
                return Err(Error::Ddl(format!(
                    "table `{name}` already exists (CREATE OR REPLACE TABLE {name} replaces \
                         it; DROP TABLE {name} drops it)"
                )));
            }
        }
        if let Some(v) = versions {
            let own = registry
                .catalog
                .table(name)
                .is_some_and(|t| t.time.versions.as_ref() == Some(v));
            if !own && (registry.catalog.table(v).is_some() || registry.catalog.view(v).is_some()) {
                return Err(Error::Ddl(format!(
                    "cannot create table `{name}`: its versions relation `{v}` would replace \
                         a table or view of that name (drop it first, or choose another name)"
                )));
            }
        }
        Ok(None)
    }

    /// `CREATE TABLE ... WITH ('connector' = 'jdbc', ...)`: a lookup
    /// table (module `crate::lookup`).
    fn create_lookup_table(&self, create: CreateTable) -> Result<String, Error> {
        let name = create.name.clone();
        if let Some(exists) = self.check_new_table(&name, &create, None)? {
            return Ok(exists);
        }
        let table = crate::lookup::open(&name, &create.schema, &create.time, &create.options)?;
        self.write().insert_lookup(&name, &create.schema, table);
        Ok(format!("created lookup table {name}"))
    }

    fn create_table(&self, create: CreateTable) -> Result<String, Error> {
        if crate::lookup::is_lookup(&create.options) {
            return self.create_lookup_table(create);
        }
        let name = create.name.clone();
        let options = parse_create_options(&name, &create.options)?;
        let mut time = create.time.clone();
        if options.change_log.is_some() {
            if time.primary_key.is_empty() {
                return Err(Error::Ddl(format!(
                    "cannot create table `{name}`: a 'debezium-json' table is a change log, and a \
                     change log needs a primary key to know which rows a change replaces: \
                     declare one, e.g. `PRIMARY KEY (id) NOT ENFORCED`"
                )));
            }
            time.versions = Some(format!("{name}$versions"));
        }
        if let Some(exists) = self.check_new_table(&name, &create, time.versions.as_ref())? {
            return Ok(exists);
        }
        let stats = file_stats(&options.path, Some(options.format))?;
        let stats = TableStats {
            row_count: stats.rows,
            byte_size: Some(stats.bytes),
            ..TableStats::default()
        };
        let schema = create.schema;
        let proc_time = time
            .proc_time
            .as_ref()
            .and_then(|p| schema.index_of(p).ok());
        // the declared columns the files hold (all but PROCTIME())
        let columns = Arc::new(Schema::new(
            schema
                .fields()
                .iter()
                .enumerate()
                .filter(|(i, _)| Some(*i) != proc_time)
                .map(|(_, f)| Arc::clone(f))
                .collect::<Vec<_>>(),
        ));
        let index_in = |s: &Schema, c: &str| s.index_of(c).ok();
        let change_log = options.change_log.map(|ignore_parse_errors| ChangeLog {
            key: time
                .primary_key
                .iter()
                .filter_map(|k| index_in(&columns, k))
                .collect(),
            time: time
                .event_time
                .as_ref()
                .and_then(|e| index_in(&columns, &e.column)),
            ignore_parse_errors,
        });
        let file = |schema: SchemaRef, view: ChangeLogView| {
            FileTable::declared(
                options.path.clone(),
                options.format,
                options.settings.clone(),
                schema,
                options.in_memory,
            )
            .with_time(TimeRead {
                proc_time,
                change_log: change_log.clone().map(|log| ChangeLogRead {
                    log,
                    view,
                    columns: Arc::clone(&columns),
                }),
            })
        };
        let mut registry = self.write();
        registry.insert_file_with_time(
            &name,
            file(Arc::clone(&schema), ChangeLogView::Current),
            stats.clone(),
            time.clone(),
        );
        if let Some(versions) = time.versions.take() {
            let key: Vec<usize> = time
                .primary_key
                .iter()
                .filter_map(|k| index_in(&schema, k))
                .collect();
            let versions_schema = versions_schema(&schema, &key);
            registry.insert_file_with_time(
                &versions,
                file(versions_schema, ChangeLogView::Versions),
                stats,
                time,
            );
            return Ok(format!(
                "created table {name} (and its versions, {versions})"
            ));
        }
        Ok(format!("created table {name}"))
    }

    fn drop_tables(&self, drop: DropObjects) -> Result<String, Error> {
        let mut registry = self.write();
        for name in &drop.names {
            if let Some(owner) = versions_owner(&registry.catalog, name) {
                return Err(Error::Ddl(format!(
                    "`{name}` is the versions of the change log `{owner}`: DROP TABLE {owner} \
                     drops both"
                )));
            }
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
        let mut also = Vec::new();
        for name in &drop.names {
            let versions = registry
                .catalog
                .table(name)
                .and_then(|t| t.time.versions.clone());
            registry.remove_table(name);
            for table in std::iter::once(name).chain(versions.as_ref()) {
                for f in registry.catalog.temporal_function_names() {
                    if registry
                        .catalog
                        .temporal_function(&f)
                        .is_some_and(|f| &f.table == table)
                    {
                        registry.catalog.drop_temporal_function(&f);
                        also.push(format!("temporal table function {f}"));
                    }
                }
            }
            if let Some(v) = versions {
                registry.remove_table(&v);
                also.insert(0, v);
            }
        }
        let mut done = format!("dropped table {}", drop.names.join(", "));
        if !also.is_empty() {
            done.push_str(&format!(" (and {})", also.join(", ")));
        }
        Ok(done)
    }

    /// Registers a temporal table function (Flink's
    /// `createTemporalTableFunction(time, key)`): `name(t)` in `LATERAL
    /// TABLE (name(t))` is, for each key, the version of `table` valid at
    /// time `t`. The DDL form is `CREATE TEMPORAL TABLE FUNCTION name AS
    /// table(time_column, key_column, ...)`. Names are matched exactly (SQL
    /// folds unquoted names to lower case).
    ///
    /// # Errors
    ///
    /// [`Error::Ddl`] when a function of that name exists, the table does
    /// not exist, a column is not the table's, there is no key column, or
    /// `time_column` is not a time attribute of the table (its `WATERMARK
    /// FOR` column or its `PROCTIME()` column).
    ///
    /// # Examples
    ///
    /// ```
    /// use tenon::{Config, Session};
    ///
    /// let dir = std::env::temp_dir().join(format!("tenon-doc-ttf-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("rates.csv");
    /// std::fs::write(&path, "currency,rate,t\nEUR,1.14,2024-01-01 12:00:00\n").unwrap();
    /// let session = Session::new(Config::default())?;
    /// session.execute(&format!(
    ///     "CREATE TABLE rates_history (currency STRING, rate DECIMAL(10, 2), t TIMESTAMP(3), \
    ///      WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', 'path' = '{}', \
    ///      'format' = 'csv')",
    ///     path.display()
    /// ))?;
    /// session.register_temporal_table_function("rates", "rates_history", "t", &["currency"])?;
    /// let e = session
    ///     .register_temporal_table_function("r2", "rates_history", "rate", &["currency"])
    ///     .unwrap_err();
    /// assert!(e.to_string().contains("not a time attribute"), "{e}");
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn register_temporal_table_function(
        &self,
        name: &str,
        table: &str,
        time_column: &str,
        key_columns: &[&str],
    ) -> Result<(), Error> {
        let function = TemporalFunction {
            name: name.to_string(),
            table: table.to_string(),
            time: time_column.to_string(),
            key: key_columns.iter().map(|k| k.to_string()).collect(),
        };
        self.add_temporal_function(function, false)
    }

    /// What table `name` declares about time and versions (`None`: no
    /// such table): its primary key, event-time attribute, PROCTIME()
    /// column and, for a change log, its versions relation.
    pub fn table_time(&self, name: &str) -> Option<TableTime> {
        self.read().catalog.table(name).map(|t| t.time.clone())
    }

    /// The temporal table function registered as `name`, if any.
    pub fn temporal_function(&self, name: &str) -> Option<TemporalFunction> {
        self.read().catalog.temporal_function(name).cloned()
    }

    fn create_temporal_function(&self, create: CreateTemporalFunction) -> Result<String, Error> {
        let name = create.function.name.clone();
        self.add_temporal_function(create.function, create.or_replace)?;
        Ok(format!("created temporal table function {name}"))
    }

    fn add_temporal_function(&self, f: TemporalFunction, or_replace: bool) -> Result<(), Error> {
        let fail = |why: String| {
            Err(Error::Ddl(format!(
                "cannot create temporal table function `{}`: {why}",
                f.name
            )))
        };
        // a view's columns, as a query of it gives them (planned before
        // the registry is locked for writing)
        let view_schema = if self.read().catalog.view(&f.table).is_some() {
            let sql = format!("SELECT * FROM \"{}\"", f.table.replace('"', "\"\""));
            Some(self.sql(&sql)?.schema())
        } else {
            None
        };
        let mut registry = self.write();
        let catalog = &registry.catalog;
        let name = &f.name;
        if name.is_empty() {
            return fail("it needs a name".into());
        }
        if catalog.temporal_function(name).is_some() && !or_replace {
            return fail(format!(
                "one of that name exists (DROP TEMPORAL TABLE FUNCTION {name} drops it; CREATE \
                 OR REPLACE TEMPORAL TABLE FUNCTION replaces it)"
            ));
        }
        let (schema, time) = match (catalog.table(&f.table), &view_schema) {
            (Some(table), _) => (Arc::clone(&table.schema), Some(&table.time)),
            (None, Some(schema)) if catalog.view(&f.table).is_some() => (Arc::clone(schema), None),
            _ => {
                return fail(format!(
                    "there is no table or view `{}` (tables and views: {})",
                    f.table,
                    list(&catalog.relation_names())
                ));
            }
        };
        let columns: Vec<String> = schema.fields().iter().map(|c| c.name().clone()).collect();
        for c in std::iter::once(&f.time).chain(&f.key) {
            if !columns.contains(c) {
                return fail(format!(
                    "`{c}` is not a column of {} (columns: {})",
                    f.table,
                    columns.join(", ")
                ));
            }
        }
        match time {
            // a table's time attribute: its event time or PROCTIME()
            Some(time) if !time.is_time_attribute(&f.time) => {
                return fail(format!(
                    "`{}` is not a time attribute of {}: declare `WATERMARK FOR {} AS ...` \
                     (event time) or a `... AS PROCTIME()` column (processing time) in its \
                     CREATE TABLE, and name that column",
                    f.time, f.table, f.time
                ));
            }
            // a view's: a column of a time type (its versions' time)
            None if !schema.field_with_name(&f.time).is_ok_and(|c| {
                matches!(
                    c.data_type(),
                    DataType::Timestamp(..) | DataType::Date32 | DataType::Date64
                )
            }) =>
            {
                return fail(format!(
                    "`{}` of view {} is not a timestamp or date: the versions' time is a \
                     TIMESTAMP column",
                    f.time, f.table
                ));
            }
            _ => {}
        }
        if f.key.is_empty() {
            return fail(format!(
                "it needs key columns: the columns of {} whose values tell which rows are \
                 versions of one another",
                f.table
            ));
        }
        if f.key.contains(&f.time) {
            return fail(format!(
                "`{}` is its time attribute and cannot be a key column too",
                f.time
            ));
        }
        registry.catalog.register_temporal_function(f);
        Ok(())
    }

    fn drop_temporal_functions(&self, drop: DropObjects) -> Result<String, Error> {
        let mut registry = self.write();
        for name in &drop.names {
            if registry.catalog.temporal_function(name).is_none() && !drop.if_exists {
                return Err(Error::Ddl(format!(
                    "cannot drop temporal table function `{name}`: there is no such function \
                     (temporal table functions: {}; DROP TEMPORAL TABLE FUNCTION IF EXISTS \
                     ignores a missing one)",
                    list(&registry.catalog.temporal_function_names())
                )));
            }
        }
        for name in &drop.names {
            registry.catalog.drop_temporal_function(name);
        }
        Ok(format!(
            "dropped temporal table function {}",
            drop.names.join(", ")
        ))
    }
}

/// The change log whose versions relation `name` is, if it is one.
fn versions_owner(catalog: &Catalog, name: &str) -> Option<String> {
    catalog.table_names().into_iter().find(|t| {
        t != name
            && catalog
                .table(t)
                .is_some_and(|t| t.time.versions.as_deref() == Some(name))
    })
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
            // a URL's or an option's password is never shown
            text: crate::lookup::mask_secrets(statement.first_line())
                .chars()
                .take(80)
                .collect(),
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
