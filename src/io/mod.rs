//! Reading tables from files and writing results, in the common Arrow formats.
//!
//! - [`read_table`] loads a `.parquet`, `.csv`, Arrow IPC (`.arrow`, `.ipc`,
//!   `.feather`) or JSON (`.json`, `.ndjson`, `.jsonl`) file, or a directory
//!   of such files, into memory as a [`LoadedTable`]; [`read_table_with`]
//!   does the same with [`ReadOptions`]: a format whatever the extension, a
//!   declared schema the values are cast to, CSV options ([`CsvOptions`]),
//!   a Parquet batch size, only some columns. [`file_stats`] tells a
//!   table's size on disk (and per column, from Parquet footers),
//!   [`table_schema`] its schema, without reading its rows.
//! - [`read_change_log`] reads a Debezium change log (`'format' =
//!   'debezium-json'`) as the versions of its primary key, or as the table
//!   as of the end of the log.
//! - [`write_batches`] writes record batches to any [`std::io::Write`] in one
//!   of the [`OutputFormat`]s (a text table, CSV, JSON, NDJSON, Parquet or an
//!   Arrow IPC file); [`write_to_path`] and [`write_to`] do the same to a
//!   [`Destination`]: a regular file is replaced atomically (complete or
//!   absent, never half written), a device or FIFO is written directly,
//!   `-` is stdout. [`check_writable`] tells beforehand whether a format
//!   can hold a result's columns.
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

mod conform;
mod csv;
mod debezium;
#[cfg(test)]
mod declared_tests;
mod destination;
mod footer_stats;
mod late;
mod metadata;
mod pages;
mod printable;
mod read;
#[cfg(test)]
mod registration_tests;
mod scan;
mod table;
#[cfg(test)]
mod tests;
mod write;

use std::path::{Path, PathBuf};

use arrow_schema::SchemaRef;

pub use debezium::{
    ChangeLog, ChangeLogRows, ChangeLogView, DELETED_COLUMN, read_change_log, versions_schema,
};
pub use destination::{Destination, remove_unfinished_files};
pub use footer_stats::{ParquetFooters, parquet_footers};
pub use metadata::{FileStamp, FileStats, TableStamp, file_stats, table_schema};
pub(crate) use read::format_of;
pub use read::{LoadedTable, read_table, read_table_with};
pub use scan::{Push, StreamReport, exec_error, stream_table};
pub use table::MAX_TABLE_CELL_CHARS;
pub use write::{
    OutputFormat, ParseOutputFormatError, check_writable, write_batches, write_to, write_to_path,
};

/// A file format [`read_table_with`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// Apache Parquet.
    Parquet,
    /// Comma- (or otherwise) separated values.
    Csv,
    /// The Arrow IPC file (Feather v2) or stream format.
    Arrow,
    /// JSON: one object per row, in an array or one after another.
    Json,
}

impl FileFormat {
    /// Every format.
    pub const ALL: [FileFormat; 4] = [
        FileFormat::Parquet,
        FileFormat::Csv,
        FileFormat::Arrow,
        FileFormat::Json,
    ];

    /// The format's name as `'format' = '...'` spells it.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Parquet => "parquet",
            FileFormat::Csv => "csv",
            FileFormat::Arrow => "arrow",
            FileFormat::Json => "json",
        }
    }

    /// The format named `name` (case-insensitive; `ipc` and `feather` are
    /// `arrow`).
    pub fn from_name(name: &str) -> Option<FileFormat> {
        match name.to_ascii_lowercase().as_str() {
            "parquet" => Some(FileFormat::Parquet),
            "csv" => Some(FileFormat::Csv),
            "arrow" | "ipc" | "feather" => Some(FileFormat::Arrow),
            "json" | "ndjson" => Some(FileFormat::Json),
            _ => None,
        }
    }

    /// The file extensions of the format, lower case, without the dot.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            FileFormat::Parquet => &["parquet"],
            FileFormat::Csv => &["csv"],
            FileFormat::Arrow => &["arrow", "ipc", "feather"],
            FileFormat::Json => &["json", "ndjson", "jsonl"],
        }
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read CSV files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// The field delimiter (default `,`).
    pub delimiter: u8,
    /// The quote character (default `"`; a quote inside a quoted field is
    /// written twice).
    pub quote: u8,
    /// Whether the first line is a header row (default `true`): it names
    /// the columns of a schema that is inferred, and is skipped when the
    /// schema is declared.
    pub has_header: bool,
    /// A field equal to this text is NULL, besides an empty field (which
    /// always is).
    pub null_literal: Option<String>,
    /// Go on past what cannot be read instead of failing on the first
    /// (default `false`), as Flink's `csv.ignore-parse-errors`: a value
    /// that does not fit its column is NULL ("fields are set to null in
    /// case of errors"), and its row is kept, unless the column is NOT
    /// NULL; rows that cannot be read as rows (another number of fields
    /// than columns, not UTF-8) and rows with a bad value in a NOT NULL
    /// column are left out and counted.
    pub ignore_parse_errors: bool,
    /// With `ignore_parse_errors`: leave out and count every row with a
    /// value that does not fit, instead of keeping it with that value NULL
    /// (tenon's `csv.skip-bad-rows`; default `false`).
    pub skip_bad_rows: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            quote: b'"',
            has_header: true,
            null_literal: None,
            ignore_parse_errors: false,
            skip_bad_rows: false,
        }
    }
}

/// How [`read_table_with`] reads a table.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// Rows per batch of the table (`0` counts as `1`).
    pub batch_size: usize,
    /// The format of every file; `None`: each file's extension says.
    pub format: Option<FileFormat>,
    /// The declared schema, `None` to take the files' own (inferred for
    /// CSV and JSON).
    pub schema: Option<SchemaRef>,
    /// How to read CSV.
    pub csv: CsvOptions,
    /// Rows per batch of the Parquet decoder (default: `batch_size`).
    pub parquet_batch_size: Option<usize>,
    /// Read only these columns of the declared [`ReadOptions::schema`], in
    /// this order (`None`: all). Parquet files decode only those columns;
    /// the other formats are parsed whole and cut down file by file.
    pub projection: Option<Vec<usize>>,
    /// The declared schema is the one [`table_schema`] found for the files
    /// (its messages then say that the types were inferred), not one a
    /// user declared.
    pub inferred: bool,
}

impl ReadOptions {
    /// The defaults: formats by extension, the files' own schema, CSV with
    /// a header row and `,`, batches of `batch_size` rows.
    pub fn new(batch_size: usize) -> Self {
        ReadOptions {
            batch_size,
            format: None,
            schema: None,
            csv: CsvOptions::default(),
            parquet_batch_size: None,
            projection: None,
            inferred: false,
        }
    }
}

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
    /// A value of a file that does not fit its table's declared column (or
    /// a NULL in a NOT NULL column).
    #[error("{}, row {row}, column `{column}`: {message}", path.display())]
    BadValue {
        /// The file.
        path: PathBuf,
        /// The 1-based row of the file.
        row: u64,
        /// The column's name.
        column: String,
        /// What is wrong.
        message: String,
    },
    /// A file does not have a column its table declares, or has it in a
    /// type that cannot be cast to the declared one.
    #[error(
        "{}: the file does not fit the table's declared columns: {message}",
        path.display()
    )]
    ColumnMismatch {
        /// The file.
        path: PathBuf,
        /// Which column, and what the file has instead.
        message: String,
    },
    /// A table's files cannot be one table as they are: columns of the
    /// same name, a directory with subdirectories.
    #[error("{}: {message}", path.display())]
    Table {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong, and what to do.
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
    /// The output format cannot hold a column of the result (CSV has no
    /// nested values); found before anything was written.
    #[error(
        "the {format} format cannot hold column `{column}` of type {data_type}: {why}; nothing \
         was written (choose another format{}{alternatives})",
        if alternatives.is_empty() { "" } else { ": " }
    )]
    Unwritable {
        /// The format asked for.
        format: OutputFormat,
        /// The first column it cannot hold.
        column: String,
        /// That column's type.
        data_type: String,
        /// Why.
        why: String,
        /// The formats that can hold every column, comma-separated.
        alternatives: String,
    },
    /// A value of the result cannot be printed as text (a timestamp outside
    /// the years a calendar can show); found before anything was written.
    #[error(
        "cannot print column `{column}` in {format} output: row {row}: {why}; nothing was \
         written (write parquet or arrow, which hold any value, or convert the column in the \
         query, such as CAST(... AS BIGINT))"
    )]
    Unprintable {
        /// The format asked for.
        format: OutputFormat,
        /// The column.
        column: String,
        /// The row, counted from 1 over the whole result.
        row: usize,
        /// What is wrong with the value.
        why: String,
    },
}

impl IoError {
    /// Whether writing (the output) failed, rather than reading an input.
    pub fn is_write(&self) -> bool {
        matches!(self, IoError::Write { .. } | IoError::Unprintable { .. })
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
    pub(crate) fn io(path: &Path, source: std::io::Error) -> IoError {
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
