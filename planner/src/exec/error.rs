//! The error type of lowering and running a plan.

use crate::expr::ExprError;
use tenon_kernels::KernelError;

/// Everything lowering a logical plan to operators, or running them, can
/// fail with. Every message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// A plan node, expression or aggregate tenon does not run (yet).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An expression failed to compile or evaluate.
    #[error(transparent)]
    Expr(#[from] ExprError),
    /// A join kernel failed (memory budget, bad options).
    #[error(transparent)]
    Join(KernelError),
    /// A table the plan scans has no data registered.
    #[error("table `{0}` has no data registered: register it before running the query")]
    MissingTable(String),
    /// The memory limit was exceeded outside a join kernel.
    #[error("memory limit exceeded: {0}; raise memory_limit or reduce the input")]
    Memory(String),
    /// Writing or reading a spill file failed: a full disk, the spill
    /// limit, a directory that cannot be made or written.
    #[error("spilling to disk failed in {dir} after writing {written} bytes: {message}; {advice}")]
    Spill {
        /// The query's spill directory (or the directory it was to be made in).
        dir: String,
        /// Bytes of spill files the query had written by then.
        written: u64,
        /// What failed.
        message: String,
        /// What to do, by what failed (a full disk, a directory that cannot
        /// be written, the spill limit).
        advice: String,
    },
    /// The run was cancelled: its consumer went away (a dropped stream),
    /// or its cancel flag was set
    /// ([`execute_cancellable`](crate::exec::execute_cancellable)).
    #[error("the query was cancelled")]
    Cancelled,
    /// A LIMIT has all the rows it needs: the signal its input's producers
    /// (scans, join kernels, unions) stop on. Not a failure: the LIMIT
    /// whose token it carries catches it and ends normally; it never
    /// reaches the caller.
    #[error("internal: the stop signal of a satisfied LIMIT reached the caller")]
    LimitReached(usize),
    /// A [`TableSource`](crate::exec::TableSource) could not read its
    /// data (a file missing, corrupt, or holding a value that does not
    /// fit): the source's own error, which says what to do.
    #[error(transparent)]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// An Arrow kernel failed.
    #[error("{context} failed: {}", crate::words::without_dependency_prefixes(&source.to_string()))]
    Arrow {
        /// Which operator.
        context: String,
        /// The Arrow error.
        source: arrow_schema::ArrowError,
    },
}

impl ExecError {
    /// Wraps an Arrow error with the operator it came from.
    pub fn arrow(context: impl Into<String>, source: arrow_schema::ArrowError) -> Self {
        ExecError::Arrow {
            context: context.into(),
            source,
        }
    }
}

impl From<KernelError> for ExecError {
    /// The kernel's error, or the executor's own error that a sink or probe
    /// feed raised inside the kernel ([`KernelError::External`],
    /// see [`ExecError::into_kernel`]) given back as it was.
    fn from(e: KernelError) -> Self {
        match e {
            KernelError::External(e) => match e.downcast::<ExecError>() {
                Ok(e) => *e,
                Err(other) => ExecError::Source(other),
            },
            e => ExecError::Join(e),
        }
    }
}

impl ExecError {
    /// This error, to travel through a join kernel that a sink or probe
    /// feed of the executor raised it in; `From<KernelError>` gives it back.
    pub(crate) fn into_kernel(self) -> KernelError {
        KernelError::External(Box::new(self))
    }
}

/// Result of the executor.
pub type Result<T, E = ExecError> = std::result::Result<T, E>;
