//! Reading tables from files and writing results, in the common Arrow formats.
//!
//! - [`read_table`] loads a `.parquet`, `.csv`, Arrow IPC (`.arrow`, `.ipc`,
//!   `.feather`) or JSON (`.json`, `.ndjson`, `.jsonl`) file, or a directory
//!   of such files, into memory as a [`LoadedTable`].
//! - [`write_batches`] writes record batches to any [`std::io::Write`] in one
//!   of the [`OutputFormat`]s (a text table, CSV, JSON, NDJSON, Parquet or an
//!   Arrow IPC file); [`write_to_path`] does the same to a file atomically:
//!   the destination is either complete or absent, never half written.
//!
//! Every failure is an [`IoError`] that names the file (and, for a parse
//! error, the line and column) and says what to do about it.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use arrow_schema::{DataType, Field, Schema};
//! use tenon::io::{OutputFormat, write_batches};
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![1, 2]))]).unwrap();
//! let mut out = Vec::new();
//! write_batches(&[batch], &schema, OutputFormat::Csv, &mut out).unwrap();
//! assert_eq!(String::from_utf8(out).unwrap(), "k\n1\n2\n");
//! ```

mod read;
#[cfg(test)]
mod tests;
mod write;

use std::path::{Path, PathBuf};

pub use read::{LoadedTable, read_table};
pub use write::{OutputFormat, ParseOutputFormatError, write_batches, write_to_path};

/// The file extensions [`read_table`] knows (compared without regard to case).
pub const SUPPORTED_EXTENSIONS: &[&str] = &[
    "parquet", "csv", "arrow", "ipc", "feather", "json", "ndjson", "jsonl",
];

/// The supported extensions as one human-readable list, for error messages.
fn extension_list() -> String {
    SUPPORTED_EXTENSIONS
        .iter()
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// " (line 3, column `a`)" or the parts of it that are known.
fn location(line: &Option<u64>, column: &Option<String>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(", line {l}, column `{c}`"),
        (Some(l), None) => format!(", line {l}"),
        (None, Some(c)) => format!(", column `{c}`"),
        (None, None) => String::new(),
    }
}

/// Where a write went: the path, or the output stream.
fn target(path: &Option<PathBuf>) -> String {
    match path {
        Some(p) => p.display().to_string(),
        None => "the output".to_string(),
    }
}

/// A failure to read or write a table.
///
/// Each variant names the file it concerns; the message says what to check.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IoError {
    /// The path does not exist.
    #[error("{}: no such file or directory (check the path and the current directory)", path.display())]
    NotFound {
        /// The path that was asked for.
        path: PathBuf,
    },
    /// The file's extension is not one of [`SUPPORTED_EXTENSIONS`].
    #[error(
        "{}: unknown file format: expected one of the extensions {} (rename or convert the file)",
        path.display(),
        extension_list()
    )]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A directory holds no file with a supported extension.
    #[error(
        "{}: the directory has no data files (expected files ending in {}; hidden files are skipped)",
        path.display(),
        extension_list()
    )]
    EmptyDirectory {
        /// The directory.
        path: PathBuf,
    },
    /// The file is not a readable file of its format (bad magic bytes, a
    /// truncated footer, a corrupt page...).
    #[error(
        "{}: not a readable {format} file: {message} (is the file complete, and really {format}?)",
        path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The format its extension announced: `Parquet`, `Arrow IPC`, ...
        format: &'static str,
        /// What the reader said.
        message: String,
    },
    /// A text file (CSV, JSON) has a value or row that cannot be parsed.
    #[error("{}{}: {message}", path.display(), location(line, column))]
    Parse {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the file (a CSV header is line 1), when known.
        line: Option<u64>,
        /// The column's name, when known.
        column: Option<String>,
        /// What went wrong, and what to do about it.
        message: String,
    },
    /// A file of a directory has another schema than the directory's first file.
    #[error(
        "{}: its schema differs from that of {}, the first file of the directory: {detail} \
         (all files of a directory must have the same column names and types)",
        path.display(),
        first.display()
    )]
    SchemaMismatch {
        /// The first file (in name order) whose schema differs.
        path: PathBuf,
        /// The directory's first file, whose schema is the table's.
        first: PathBuf,
        /// The difference.
        detail: String,
    },
    /// The operating system refused a read (permissions, a directory where a
    /// file was expected, a device error...).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Writing the output failed; a destination file was not created.
    #[error("cannot write {format} to {}: {message}", target(path))]
    Write {
        /// The destination file, or `None` for a stream.
        path: Option<PathBuf>,
        /// The format being written.
        format: OutputFormat,
        /// What went wrong.
        message: String,
        /// The operating system's error, if that is what failed (its text
        /// is already in `message`).
        io_error: Option<std::io::Error>,
    },
}

impl IoError {
    /// Whether writing (the output) failed, rather than reading an input.
    pub fn is_write(&self) -> bool {
        matches!(self, IoError::Write { .. })
    }

    /// Whether this is a write to a closed pipe (`tenon ... | head`), which a
    /// command line tool usually ends on quietly.
    pub fn is_broken_pipe(&self) -> bool {
        let source = match self {
            IoError::Io { source, .. } => Some(source),
            IoError::Write { io_error, .. } => io_error.as_ref(),
            _ => None,
        };
        source.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// An [`IoError::Io`], or [`IoError::NotFound`] when the OS says so.
    fn io(path: &Path, source: std::io::Error) -> IoError {
        if source.kind() == std::io::ErrorKind::NotFound {
            IoError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            IoError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}
