//! The one error type of the embedding API and the command line.

use tenon_kernels::KernelError;
use tenon_planner::choose::PlanError;
use tenon_planner::config::ConfigError;
use tenon_planner::exec::ExecError;
use tenon_planner::hints::HintError;
use tenon_planner::prepare::{BoxError, PrepareError};
use tenon_planner::sql::SqlError;
use tenon_planner::words::without_dependency_prefixes;

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
    Plan(#[source] Cause),
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
        /// Its error (also [`std::error::Error::source`], which gives this
        /// `Box<Error>`).
        source: Box<Error>,
    },
    /// A file could not be read or written.
    #[error("{}", without_dependency_prefixes(&.0.to_string()))]
    Io(#[from] IoError),
    /// An external database could not be reached, or refused the
    /// connection (a lookup table's): the URL and the database's error.
    #[error("{0}")]
    Connector(String),
    /// A resource ran out: the memory limit, threads.
    #[error("{0}")]
    Resource(#[source] Cause),
    /// The query failed while running (overflow, division by zero, a bad
    /// cast of a value).
    #[error("query failed: {0}")]
    Execution(#[source] Cause),
    /// The query was cancelled ([`CancelHandle::cancel`](crate::CancelHandle::cancel):
    /// Ctrl-C in the shell or in Python).
    #[error("the query was cancelled")]
    Cancelled,
}

impl Error {
    /// The command line's exit code for this error (docs/cli.md): 2 for bad
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
            Error::Resource(_) | Error::Execution(_) | Error::Connector(_) => 3,
            // As a shell's for a command that SIGINT stopped.
            Error::Cancelled => 130,
        }
    }

    /// The error of lowering (`planning`: before anything runs) or
    /// running a plan: the one mapping of the executor's errors.
    pub(crate) fn exec(e: ExecError, planning: bool) -> Self {
        match e {
            ExecError::Memory(_)
            | ExecError::Spill { .. }
            | ExecError::Join(
                KernelError::MemoryLimitExceeded { .. } | KernelError::AllocationFailed { .. },
            ) => Error::Resource(Cause::Exec(e)),
            // A table source's own error (a file that does not read).
            ExecError::Source(source) => Error::from_boxed(source, planning),
            ExecError::Unsupported(_) | ExecError::MissingTable(_) => Error::Plan(Cause::Exec(e)),
            ExecError::Cancelled | ExecError::Join(KernelError::Cancelled) => Error::Cancelled,
            other if planning => Error::Plan(Cause::Exec(other)),
            other => Error::Execution(Cause::Exec(other)),
        }
    }

    /// A boxed error a catalog or a table source gave: the session's own
    /// error as it was, another as a planning or execution failure.
    fn from_boxed(source: BoxError, planning: bool) -> Self {
        match source.downcast::<Error>() {
            Ok(e) => *e,
            Err(other) if planning => Error::Plan(Cause::Other(other)),
            Err(other) => Error::Execution(Cause::Other(other)),
        }
    }
}

/// Why a planning, resource or execution failure happened: the planner's
/// or executor's error itself (reachable through
/// [`std::error::Error::source`], with its own sources), or tenon's own
/// message. Displays as its inner error.
#[derive(Debug, thiserror::Error)]
pub enum Cause {
    /// The executor's error (lowering or running a plan).
    #[error("{}", without_dependency_prefixes(&.0.to_string()))]
    Exec(#[source] ExecError),
    /// Another component's error (a table source's).
    #[error("{}", without_dependency_prefixes(&.0.to_string()))]
    Other(#[source] BoxError),
    /// tenon's own message.
    #[error("{0}")]
    Message(String),
    /// tenon's own message about another component's error.
    #[error("{message}: {}", without_dependency_prefixes(&source.to_string()))]
    Context {
        /// What failed.
        message: String,
        /// Why.
        source: BoxError,
    },
}

impl Cause {
    /// `message`, caused by `source`.
    pub(crate) fn context(
        message: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Cause::Context {
            message: message.to_string(),
            source: Box::new(source),
        }
    }
}

impl From<String> for Cause {
    fn from(message: String) -> Self {
        Cause::Message(message)
    }
}

impl From<&str> for Cause {
    fn from(message: &str) -> Self {
        Cause::Message(message.to_string())
    }
}

impl From<ExecError> for Error {
    fn from(e: ExecError) -> Self {
        Error::exec(e, false)
    }
}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::Sql(e) => Error::Sql(e),
            PlanError::Hint(e) => Error::Hint(e),
        }
    }
}

impl From<PrepareError> for Error {
    fn from(e: PrepareError) -> Self {
        match e {
            PrepareError::Plan(e) => e.into(),
            PrepareError::Source(source) => Error::from_boxed(source, true),
            PrepareError::Lower(e) => Error::exec(e, true),
        }
    }
}
