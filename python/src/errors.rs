//! tenon's errors as Python exceptions: one class per kind of error, all
//! under `tenon.Error`, with the message the command line prints. A
//! cancelled query (Ctrl-C) is Python's own `KeyboardInterrupt`.

use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::{PyErr, create_exception};

create_exception!(
    tenon,
    Error,
    PyException,
    "Every error of tenon's. `exit_code` is the command line's exit code for it."
);
create_exception!(
    tenon,
    SqlError,
    Error,
    "The SQL does not parse or plan: syntax (with line and column), unknown tables or columns."
);
create_exception!(
    tenon,
    HintError,
    Error,
    "A join hint is malformed, unknown, misplaced, or (hint_mode=strict) cannot be applied."
);
create_exception!(
    tenon,
    PlanError,
    Error,
    "The query uses something tenon does not run, or an expression does not type-check."
);
create_exception!(
    tenon,
    ConfigError,
    Error,
    "An unknown setting or a bad value."
);
create_exception!(
    tenon,
    OptionsError,
    Error,
    "A table option (CREATE TABLE ... WITH, /*+ OPTIONS(...) */) is unknown or has a bad value."
);
create_exception!(
    tenon,
    DdlError,
    Error,
    "A DDL statement cannot be done: a name that is taken, or nothing of that name to drop."
);
create_exception!(
    tenon,
    FileError,
    Error,
    "A file could not be read or written."
);
create_exception!(
    tenon,
    ConnectorError,
    Error,
    "An external database (a lookup table's) could not be reached."
);
create_exception!(
    tenon,
    ResourceError,
    Error,
    "A resource ran out: the memory limit, spill space, threads."
);
create_exception!(
    tenon,
    ExecutionError,
    Error,
    "The query failed while running (overflow, division by zero, a bad cast)."
);
create_exception!(
    tenon,
    BenchError,
    Error,
    "`tenon.bench()` failed: bad options, a failed run, or a regression past max_regression."
);

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("SqlError", py.get_type::<SqlError>())?;
    m.add("HintError", py.get_type::<HintError>())?;
    m.add("PlanError", py.get_type::<PlanError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("OptionsError", py.get_type::<OptionsError>())?;
    m.add("DdlError", py.get_type::<DdlError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("ConnectorError", py.get_type::<ConnectorError>())?;
    m.add("ResourceError", py.get_type::<ResourceError>())?;
    m.add("ExecutionError", py.get_type::<ExecutionError>())?;
    m.add("BenchError", py.get_type::<BenchError>())?;
    Ok(())
}

/// The Python exception of `e`: its class by kind (a script statement's by
/// its cause's), its message as the command line prints it, and
/// `exit_code`.
pub(crate) fn to_py(e: tenon::Error) -> PyErr {
    let message = e.to_string();
    let code = e.exit_code();
    let mut kind = &e;
    while let tenon::Error::Statement { source, .. } = kind {
        kind = source.as_ref();
    }
    let err = match kind {
        tenon::Error::Cancelled => return PyKeyboardInterrupt::new_err(message),
        tenon::Error::Sql(_) => SqlError::new_err(message),
        tenon::Error::Hint(_) => HintError::new_err(message),
        tenon::Error::Plan(_) => PlanError::new_err(message),
        tenon::Error::Config(_) => ConfigError::new_err(message),
        tenon::Error::Options(_) => OptionsError::new_err(message),
        tenon::Error::Ddl(_) => DdlError::new_err(message),
        tenon::Error::Io(_) => FileError::new_err(message),
        tenon::Error::Connector(_) => ConnectorError::new_err(message),
        tenon::Error::Resource(_) => ResourceError::new_err(message),
        _ => ExecutionError::new_err(message),
    };
    with_exit_code(err, code)
}

/// A `tenon.bench()` failure: `tenon bench`'s exit code and message.
pub(crate) fn bench_error(code: u8, message: String) -> PyErr {
    with_exit_code(BenchError::new_err(message), i32::from(code))
}

/// A tenon error that is the caller's fault, raised before anything runs
/// (a bad argument of the Python API), as the class `E`.
pub(crate) fn usage<E: pyo3::PyTypeInfo>(message: impl Into<String>) -> PyErr {
    with_exit_code(PyErr::new::<E, _>(message.into()), 2)
}

fn with_exit_code(err: PyErr, code: i32) -> PyErr {
    Python::attach(|py| {
        // Setting an attribute on a fresh exception object cannot fail
        // but for memory; the exception is raised either way.
        let _ = err.value(py).setattr("exit_code", code);
    });
    err
}
