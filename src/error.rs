//! The one error type of the embedding API and the command line.

use tenon_planner::config::ConfigError;
use tenon_planner::exec::ExecError;
use tenon_planner::hints::HintError;
use tenon_planner::kernels::KernelError;
use tenon_planner::sql::SqlError;

use crate::io::IoError;
use crate::options::OptionsError;

/// Everything a [`Session`](crate::Session) can fail with. The variants
/// tell apart what the user gave (SQL, hints, settings, files: fix the
/// input) from what happened while running (resources, execution).
///
/// ```
/// use tenon::{Config, Error, Session};
///
/// let session = Session::new(Config::default()).unwrap();
/// let err = session.collect("SELECT * FROM nowhere").unwrap_err();
/// assert!(matches!(err, Error::Sql(_)));
/// assert_eq!(err.exit_code(), 2);
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The SQL does not parse or plan (syntax with line and column,
    /// unknown tables or columns, two hint blocks).
    #[error(transparent)]
    Sql(#[from] SqlError),
    /// A hint is malformed, unknown, misplaced, names tables that are not
    /// inputs of its block, or (strict mode) cannot be applied.
    #[error(transparent)]
    Hint(#[from] HintError),
    /// The query plans but uses something tenon does not run, or an
    /// expression does not type-check.
    #[error("cannot plan the query: {0}")]
    Plan(String),
    /// An unknown setting or a bad value.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A table option (`CREATE TABLE ... WITH`, `/*+ OPTIONS(...) */`) is
    /// unknown for its table, or has a bad value.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// A DDL statement cannot be done: its name is taken, or the table or
    /// view to drop does not exist.
    #[error("{0}")]
    Ddl(String),
    /// A statement of a script failed: which one, and why.
    #[error("statement {number} (line {line}: `{text}`): {source}")]
    Statement {
        /// Its number in the script, from 1.
        number: usize,
        /// The script line it starts on.
        line: u64,
        /// Its first line.
        text: String,
        /// Its error.
        source: Box<Error>,
    },
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A resource ran out: the memory limit, threads.
    #[error("{0}")]
    Resource(String),
    /// The query failed while running (overflow, division by zero, a bad
    /// cast of a value).
    #[error("query failed: {0}")]
    Execution(String),
}

impl Error {
    /// The command line's exit code for this error (CLI.md): 2 for bad
    /// input (SQL, hints, settings, table options, DDL, input files), 3 for
    /// execution failures (memory limit, runtime errors, writing the
    /// output); a script statement's error has its cause's code.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Sql(_)
            | Error::Hint(_)
            | Error::Plan(_)
            | Error::Config(_)
            | Error::Options(_)
            | Error::Ddl(_) => 2,
            Error::Statement { source, .. } => source.exit_code(),
            Error::Io(e) if e.is_write() => 3,
            Error::Io(_) => 2,
            Error::Resource(_) | Error::Execution(_) => 3,
        }
    }

    /// An error found while lowering a plan (before anything runs).
    pub(crate) fn planning(e: ExecError) -> Self {
        match e {
            ExecError::Memory(_) | ExecError::Join(KernelError::MemoryLimitExceeded { .. }) => {
                Error::Resource(e.to_string())
            }
            other => Error::Plan(other.to_string()),
        }
    }
}

impl From<ExecError> for Error {
    fn from(e: ExecError) -> Self {
        match e {
            ExecError::Memory(_) | ExecError::Join(KernelError::MemoryLimitExceeded { .. }) => {
                Error::Resource(e.to_string())
            }
            ExecError::Unsupported(_) | ExecError::MissingTable(_) => Error::Plan(e.to_string()),
            // A table source's own error (a file that does not read).
            ExecError::Source(source) => match source.downcast::<Error>() {
                Ok(e) => *e,
                Err(other) => Error::Execution(other.to_string()),
            },
            other => Error::Execution(other.to_string()),
        }
    }
}
