//! `tenon.Result`: a query planned by `Session.sql()` (hints applied,
//! errors in the SQL already raised), run when its rows are asked for, as
//! often as they are asked for.

use std::sync::Arc;

use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tenon::{Explain, Query, QueryOutput};

use crate::arrow::{Batches, StreamReader, export};
use crate::errors::to_py;
use crate::interrupt;

/// What a result is: a planned query, or the rows of one a script ran.
enum Rows {
    Planned(Query),
    Done(QueryOutput),
}

/// A query's result. It is an Arrow stream itself (`__arrow_c_stream__`),
/// so `pyarrow.table(result)`, `polars.DataFrame(result)` and DuckDB read
/// it directly; `to_arrow()`, `to_polars()` and `to_pandas()` collect it
/// with the GIL released and stop on Ctrl-C.
#[pyclass(frozen, module = "tenon", name = "Result")]
pub(crate) struct QueryResult {
    rows: Rows,
}

impl QueryResult {
    /// A planned query, run when asked for.
    pub(crate) fn planned(query: Query) -> Self {
        QueryResult {
            rows: Rows::Planned(query),
        }
    }

    /// Rows already computed.
    pub(crate) fn done(output: QueryOutput) -> Self {
        QueryResult {
            rows: Rows::Done(output),
        }
    }

    /// The result's batches (running a planned query), waited for without
    /// the GIL.
    fn batches(&self, py: Python<'_>) -> PyResult<Batches> {
        match &self.rows {
            Rows::Planned(query) => {
                let stream = py.detach(|| query.stream()).map_err(to_py)?;
                let schema = Arc::clone(stream.schema());
                Ok(Batches::new(schema, interrupt::collect(py, stream)?))
            }
            Rows::Done(output) => Ok(Batches::new(
                Arc::clone(&output.schema),
                output.batches.clone(),
            )),
        }
    }

    fn query(&self, what: &str) -> PyResult<&Query> {
        match &self.rows {
            Rows::Planned(q) => Ok(q),
            Rows::Done(_) => Err(PyValueError::new_err(format!(
                "{what}: this result is the rows of a statement a script ran; \
                 plan the query with Session.sql() to {what} it"
            ))),
        }
    }
}

/// `explain` as `format` asks: text, a dict (from its JSON) or JSON text.
fn render(py: Python<'_>, explain: &Explain, format: &str) -> PyResult<Py<PyAny>> {
    match format {
        "text" => Ok(explain.to_text().into_pyobject(py)?.into_any().unbind()),
        "json" => Ok(explain.to_json().into_pyobject(py)?.into_any().unbind()),
        "dict" => Ok(py
            .import("json")?
            .call_method1("loads", (explain.to_json(),))?
            .unbind()),
        other => Err(crate::errors::usage::<PyValueError>(format!(
            "unknown explain format `{other}`: use 'text', 'dict' or 'json'"
        ))),
    }
}

/// `module`, or an ImportError that says what to install.
fn import<'py>(py: Python<'py>, module: &str, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|_| {
        PyImportError::new_err(format!(
            "{what} needs the `{module}` package: pip install {module}"
        ))
    })
}

#[pymethods]
impl QueryResult {
    /// The result's column names.
    #[getter]
    fn columns(&self) -> Vec<String> {
        let schema = match &self.rows {
            Rows::Planned(q) => q.schema(),
            Rows::Done(o) => Arc::clone(&o.schema),
        };
        schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// The result as an Arrow C stream: a planned query runs as the
    /// consumer pulls its batches.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        match &self.rows {
            Rows::Planned(query) => {
                let stream = py.detach(|| query.stream()).map_err(to_py)?;
                let schema = Arc::clone(stream.schema());
                export(py, Box::new(StreamReader::new(schema, stream)))
            }
            Rows::Done(o) => Batches::new(Arc::clone(&o.schema), o.batches.clone())
                .__arrow_c_stream__(py, requested_schema),
        }
    }

    /// Runs the query and returns its rows as a `pyarrow.Table`, sharing
    /// tenon's buffers (no copy).
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pyarrow = import(py, "pyarrow", "to_arrow()")?;
        let batches = Bound::new(py, self.batches(py)?)?;
        pyarrow.call_method1("table", (batches,))
    }

    /// Runs the query and returns its rows as a Polars DataFrame.
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let polars = import(py, "polars", "to_polars()")?;
        let table = self.to_arrow(py)?;
        polars.call_method1("from_arrow", (table,))
    }

    /// Runs the query and returns its rows as a pandas DataFrame.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        import(py, "pandas", "to_pandas()")?;
        self.to_arrow(py)?.call_method0("to_pandas")
    }

    /// The plan, without running: each join's strategy, build side and
    /// reason, and the operator tree. `format`: 'text' (what `tenon query
    /// --explain` prints), 'dict' or 'json'.
    #[pyo3(signature = (format = "text"))]
    fn explain(&self, py: Python<'_>, format: &str) -> PyResult<Py<PyAny>> {
        let query = self.query("explain")?;
        let explain = py.detach(|| query.explain()).map_err(to_py)?;
        render(py, &explain, format)
    }

    /// Runs the query and returns the plan with each operator's actual
    /// rows, batches, bytes and time, as `explain` does.
    #[pyo3(signature = (format = "text"))]
    fn explain_analyze(&self, py: Python<'_>, format: &str) -> PyResult<Py<PyAny>> {
        let query = self.query("explain_analyze")?;
        // Not interruptible: the plan's figures come from one whole run.
        let (explain, _) = interrupt::run(py, {
            let query = query.clone();
            move || query.explain_analyze()
        })?
        .map_err(to_py)?;
        render(py, &explain, format)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (state, calls) = match &self.rows {
            Rows::Planned(_) => (
                "planned",
                "to_arrow(), to_polars(), to_pandas() or explain()",
            ),
            Rows::Done(_) => ("computed", "to_arrow(), to_polars() or to_pandas()"),
        };
        let columns = self.columns().into_pyobject(py)?.repr()?;
        Ok(format!("tenon.Result({state}, columns={columns}; {calls})"))
    }
}
