//! `tenon.Session`: tables (Arrow data, files, TPC-H), settings, and SQL
//! with join hints, as `tenon query` runs it.

use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use tenon::io::FileFormat;
use tenon::planner::sql::{SqlStatement, parse_statement, split_statements};
use tenon::{Config, QueryOutput, Session, StatementOutput};

use crate::errors::{ConfigError, FileError, to_py, usage};
use crate::interrupt;
use crate::result::QueryResult;

/// A tenon session: the tables it knows, its settings, its worker
/// threads. Safe to share between Python threads; queries run with the
/// GIL released.
#[pyclass(frozen, module = "tenon", name = "Session")]
pub(crate) struct PySession {
    inner: Arc<RwLock<Session>>,
}

impl PySession {
    /// Runs a statement that is not a query on the session: those that
    /// change its settings (`SET`, `RESET`) holding it alone, the others
    /// beside running queries; Ctrl-C stops it.
    fn run_statement(
        &self,
        py: Python<'_>,
        sql: &str,
    ) -> PyResult<Result<StatementOutput, tenon::Error>> {
        let inner = Arc::clone(&self.inner);
        let sql = sql.to_string();
        let changes_settings = parse_statement(&sql).is_ok_and(|s| s.changes_settings());
        interrupt::run(py, move || {
            if changes_settings {
                let mut session = inner.write().unwrap_or_else(|e| e.into_inner());
                session.execute_mut(&sql)
            } else {
                let session = inner.read().unwrap_or_else(|e| e.into_inner());
                session.execute(&sql)
            }
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, Session> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Session> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// A setting's value as `--set` takes it: text as it is, `True`/`False`
/// as `true`/`false`, numbers as Python writes them, `None` as `none`.
fn setting_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_none() {
        Ok("none".to_string())
    } else if let Ok(b) = value.cast::<PyBool>() {
        Ok(if b.is_true() { "true" } else { "false" }.to_string())
    } else if let Ok(s) = value.extract::<String>() {
        Ok(s)
    } else if value.extract::<f64>().is_ok() {
        Ok(value.str()?.to_string())
    } else if let Ok(items) = value.extract::<Vec<String>>() {
        // disabled_strategies=["NEST_LOOP", "SHUFFLE_MERGE"]
        Ok(items.join(","))
    } else {
        Err(usage::<ConfigError>(format!(
            "a setting's value is text, a number, a bool or a list of names, not a {}",
            value.get_type().name()?
        )))
    }
}

#[pymethods]
impl PySession {
    /// A session with no tables. Keyword arguments are settings, as
    /// `set()` takes them: `Session(threads=2, broadcast_threshold="16MB")`.
    #[new]
    #[pyo3(signature = (**settings))]
    fn new(py: Python<'_>, settings: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut config = Config::default();
        if let Some(settings) = settings {
            for (key, value) in settings.iter() {
                let key: String = key.extract()?;
                let value = setting_text(&value)?;
                config
                    .set(&key, &value)
                    .map_err(|e| to_py(tenon::Error::Config(e)))?;
            }
        }
        let session = py.detach(|| Session::new(config)).map_err(to_py)?;
        Ok(PySession {
            inner: Arc::new(RwLock::new(session)),
        })
    }

    /// Changes one setting, as `tenon query --set KEY=VALUE` does:
    /// threads, batch_size, broadcast_threshold ("16MB"), hint_mode,
    /// disabled_strategies, memory_limit, spill_dir, ... (docs/cli.md).
    fn set(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = setting_text(value)?;
        self.write().set(key, &value).map_err(to_py)
    }

    /// Registers Arrow data as table `name`: anything with
    /// `__arrow_c_stream__` (a pyarrow Table or RecordBatchReader, a
    /// Polars DataFrame, a DuckDB relation) or a pandas DataFrame. The
    /// table shares the data's buffers: nothing is copied. It replaces a
    /// table or view of that name.
    fn register(&self, py: Python<'_>, name: &str, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let (schema, batches) = crate::arrow::read(data)?;
        let inner = Arc::clone(&self.inner);
        let name = name.to_string();
        interrupt::run(py, move || {
            let mut session = inner.write().unwrap_or_else(|e| e.into_inner());
            session.register_batches_as_given(&name, schema, batches)
        })?
        .map_err(to_py)
    }

    /// Registers a Parquet, CSV, Arrow IPC or JSON file (or a directory of
    /// them) as table `name`. Read lazily by each query's scans, or once
    /// and kept with `in_memory=True`. `format` ('parquet', 'csv',
    /// 'arrow', 'json'), when given, must be what the file's extension
    /// says: tenon picks the reader by extension.
    #[pyo3(signature = (name, path, format = None, in_memory = false))]
    fn register_file(
        &self,
        py: Python<'_>,
        name: &str,
        path: PathBuf,
        format: Option<&str>,
        in_memory: bool,
    ) -> PyResult<()> {
        if let Some(format) = format {
            check_format(&path, format)?;
        }
        let inner = Arc::clone(&self.inner);
        let name = name.to_string();
        interrupt::run(py, move || {
            let mut session = inner.write().unwrap_or_else(|e| e.into_inner());
            if in_memory {
                session.register_file_in_memory(&name, &path)
            } else {
                session.register_file(&name, &path)
            }
        })?
        .map_err(to_py)
    }

    /// Registers the eight TPC-H tables at `scale` (1.0 is about 1 GB),
    /// generated in memory.
    #[pyo3(signature = (scale = 0.01))]
    fn register_tpch(&self, py: Python<'_>, scale: f64) -> PyResult<()> {
        let inner = Arc::clone(&self.inner);
        interrupt::run(py, move || {
            let mut session = inner.write().unwrap_or_else(|e| e.into_inner());
            session.register_tpch(scale)
        })?
        .map_err(to_py)
    }

    /// Plans one query (hints applied; bad SQL or hints raise here) and
    /// returns its `Result`, which runs when its rows are asked for.
    fn sql(&self, py: Python<'_>, sql: &str) -> PyResult<QueryResult> {
        let session = self.read();
        let query = py.detach(|| session.sql(sql)).map_err(to_py)?;
        Ok(QueryResult::planned(query))
    }

    /// Runs one statement. DDL (`CREATE TABLE ... WITH`, `CREATE VIEW`,
    /// `DROP ...`, `ANALYZE TABLE`) and `SET 'key' = 'value'` / `RESET`
    /// return what they did as text; a query, `SET` alone, `SHOW TABLES`,
    /// `DESCRIBE t` and `EXPLAIN PLAN FOR` return a `Result`, as `sql()`
    /// does.
    fn execute(&self, py: Python<'_>, sql: &str) -> PyResult<Py<PyAny>> {
        if parse_statement(sql).is_ok_and(|s| s.gives_rows()) {
            let result = self.sql(py, sql)?;
            return Ok(Bound::new(py, result)?.into_any().unbind());
        }
        let done = self.run_statement(py, sql)?.map_err(to_py)?;
        match done {
            StatementOutput::Done(what) => Ok(what.into_pyobject(py)?.into_any().unbind()),
            StatementOutput::Rows(output) => Ok(Bound::new(py, QueryResult::done(output))?
                .into_any()
                .unbind()),
        }
    }

    /// Runs the statements of `script` (separated by `;`) in order and
    /// returns the last query's rows as a `Result` (None without a query),
    /// as `Session::execute_script` does. A failing statement raises,
    /// naming it; the ones before it have run. Ctrl-C stops the running
    /// query and the script.
    fn execute_script(&self, py: Python<'_>, script: &str) -> PyResult<Option<QueryResult>> {
        let statements = split_statements(script).map_err(|e| to_py(e.into()))?;
        let mut last = None;
        for statement in &statements {
            let in_statement = |e: tenon::Error| to_py(e.in_statement(statement));
            if matches!(parse_statement(&statement.text), Ok(SqlStatement::Query)) {
                // Run here, so that Ctrl-C cancels it.
                let started = Instant::now();
                let stream = {
                    let session = self.read();
                    py.detach(|| session.sql(&statement.text).and_then(|q| q.stream()))
                }
                .map_err(in_statement)?;
                let schema = Arc::clone(stream.schema());
                let batches = interrupt::collect_or_error(py, stream)?.map_err(in_statement)?;
                last = Some(QueryOutput {
                    schema,
                    batches,
                    elapsed: started.elapsed(),
                    reads_files: false,
                    peak_memory: 0,
                    spilled_bytes: 0,
                });
            } else {
                match self
                    .run_statement(py, &statement.text)?
                    .map_err(in_statement)?
                {
                    StatementOutput::Rows(output) => last = Some(output),
                    StatementOutput::Done(_) => {}
                }
            }
        }
        Ok(last.map(QueryResult::done))
    }

    /// The names of the tables and views.
    fn tables(&self) -> Vec<String> {
        let session = self.read();
        let mut names = session.table_names();
        names.extend(session.view_names());
        names.sort();
        names
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let tables = self.tables().into_pyobject(py)?.repr()?;
        Ok(format!("tenon.Session(tables={tables})"))
    }
}

/// Checks that `format` names a format and is the one `path`'s extension
/// announces.
fn check_format(path: &std::path::Path, format: &str) -> PyResult<()> {
    let Some(wanted) = FileFormat::from_name(format) else {
        return Err(usage::<PyValueError>(format!(
            "unknown format `{format}`: use 'parquet', 'csv', 'arrow' or 'json'"
        )));
    };
    if path.is_dir() {
        return Ok(());
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !wanted.extensions().contains(&ext.as_str()) {
        return Err(usage::<FileError>(format!(
            "{}: format='{format}' but the file's extension is `.{ext}`: tenon reads a \
             file by its extension, so name it .{}",
            path.display(),
            wanted.extensions().first().copied().unwrap_or("?")
        )));
    }
    Ok(())
}
