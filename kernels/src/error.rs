//! The error type of the join kernels.

use arrow_schema::{ArrowError, DataType};

/// Everything a join kernel can fail with.
///
/// Each message says what was wrong and what to change; none of these is a
/// panic, and no partial result is returned alongside one.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// The join was given no key pairs, or a key column index is out of range.
    #[error("invalid join keys: {0}")]
    InvalidKeys(String),

    /// The two sides of a key pair have different Arrow types.
    #[error(
        "join key {index} has type {left} on the left but {right} on the right; \
         cast one side so that both have the same type"
    )]
    KeyTypeMismatch {
        /// Position of the key pair in `on`.
        index: usize,
        /// Type of the left key column.
        left: DataType,
        /// Type of the right key column.
        right: DataType,
    },

    /// A key column has a type the hash join cannot compare.
    #[error("join key {index} has type {data_type}, which cannot be used as a join key: {hint}")]
    UnsupportedKeyType {
        /// Position of the key pair in `on`.
        index: usize,
        /// The unsupported type.
        data_type: DataType,
        /// What to do instead.
        hint: &'static str,
    },

    /// An option combination the kernel does not accept.
    #[error("invalid join options: {0}")]
    InvalidOptions(String),

    /// A side has more rows than row indices can address.
    #[error(
        "the {side} side has {rows} rows, more than the {max} rows one join input may hold; \
         split the input or filter it first"
    )]
    TooManyRows {
        /// Which side.
        side: &'static str,
        /// Its row count.
        rows: usize,
        /// The maximum.
        max: usize,
    },

    /// A memory reservation did not fit in the budget.
    #[error(
        "memory limit exceeded: {what} needs {needed} more bytes, {used} of the {limit}-byte \
         limit are in use; raise the memory limit (`--set memory_limit=...`) or read less \
         (fewer columns, a filter); for a join, build the smaller side or use the \
         partitioned (SHUFFLE_HASH) mode"
    )]
    MemoryLimitExceeded {
        /// What asked for the memory.
        what: &'static str,
        /// Bytes requested.
        needed: usize,
        /// Bytes already reserved.
        used: usize,
        /// The budget.
        limit: usize,
    },

    /// The allocator could not provide a large reservation (the process is
    /// out of memory or address space, e.g. under `ulimit -v`).
    #[error(
        "out of memory: {what} needs {needed} bytes that the system cannot provide (an \
         address-space limit such as `ulimit -v`, or too little memory); set a memory limit \
         below what the system can give (`--set memory_limit=...`) so that tenon stops \
         first, or read less (fewer columns, a filter)"
    )]
    AllocationFailed {
        /// What asked for the memory.
        what: &'static str,
        /// Bytes requested.
        needed: usize,
    },

    /// The residual filter returned something unusable.
    #[error("join filter error: {0}")]
    Filter(String),

    /// The join was stopped before it finished: the consumer of the output
    /// stopped reading (the stream was dropped), or its cancel flag was set
    /// ([`JoinOptions::cancel`](crate::JoinOptions::cancel)).
    #[error("the join was cancelled before it finished")]
    Cancelled,

    /// An error of the caller's own, raised by a sink or a probe feed and
    /// passed through the kernel unchanged: the kernel stops and returns
    /// it, so that the caller gets its error back (downcast it) with its
    /// source, not a stand-in.
    #[error(transparent)]
    External(Box<dyn std::error::Error + Send + Sync>),

    /// A worker thread panicked (a bug in tenon: please report it).
    #[error("internal error in a join worker: {0}")]
    Internal(String),

    /// An error from an Arrow kernel (gather, concatenation, row encoding).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
}

/// Result type of the kernels.
pub type Result<T, E = KernelError> = std::result::Result<T, E>;
