//! What a table's files say without reading their rows: the schema (from
//! Parquet footers and Arrow IPC headers; inferred from the first rows of
//! CSV and JSON, as reading them does), and a stamp that tells whether a
//! file changed.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use arrow_schema::{Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};

use super::csv::infer_schema;
use super::read::{corrupt, data_files, json_table_schema, open, schema_difference};
use super::{CsvOptions, FileFormat, IoError, format_of};

/// A file's size and modification time: a file replaced or rewritten has
/// another stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl FileStamp {
    /// The stamp of `path` now (`None`: it cannot be read).
    pub fn of(path: &Path) -> Option<FileStamp> {
        let meta = fs::metadata(path).ok()?;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// The stamps of a table's files (a file's, or each data file's of a
/// directory, in name order): a table whose file was replaced or
/// rewritten, or whose directory gained or lost a file, has another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStamp(Vec<(PathBuf, Option<FileStamp>)>);

impl TableStamp {
    /// The stamp of the table at `path` now, its directory's data files
    /// those of `format` (`None`: of any known format); `None` when the
    /// path or the directory cannot be read.
    pub fn of(path: &Path, format: Option<FileFormat>) -> Option<TableStamp> {
        let files = if fs::metadata(path).ok()?.is_dir() {
            data_files(path, format).ok()?
        } else {
            vec![path.to_path_buf()]
        };
        Some(TableStamp(
            files
                .into_iter()
                .map(|f| {
                    let stamp = FileStamp::of(&f);
                    (f, stamp)
                })
                .collect(),
        ))
    }
}

/// The schema of a table file or directory, as [`read_table`](super::read_table)
/// would read it, without reading its rows (CSV and JSON: inferred from
/// their first rows). A directory's files must agree as `read_table`
/// requires; a column nullable in one file is nullable in the table.
///
/// # Errors
///
/// As `read_table`, and [`IoError::Table`] for two columns of one name
/// (SQL could not tell them apart: rename one in the file).
pub fn table_schema(path: &Path) -> Result<SchemaRef, IoError> {
    let meta = table_metadata(path)?;
    let schema = if meta.is_dir() {
        let files = data_files(path, None)?;
        let Some(first_path) = files.first() else {
            return Err(IoError::EmptyDirectory {
                path: path.to_path_buf(),
            });
        };
        let first = file_schema(first_path)?;
        let mut nullable: Vec<bool> = first.fields().iter().map(|f| f.is_nullable()).collect();
        for file in &files[1..] {
            let other = file_schema(file)?;
            if let Some(detail) = schema_difference(&first, &other) {
                return Err(IoError::SchemaMismatch {
                    path: file.clone(),
                    first: first_path.clone(),
                    detail,
                });
            }
            for (n, f) in nullable.iter_mut().zip(other.fields()) {
                *n |= f.is_nullable();
            }
        }
        let fields: Vec<Field> = first
            .fields()
            .iter()
            .zip(&nullable)
            .map(|(f, &n)| f.as_ref().clone().with_nullable(n))
            .collect();
        Arc::new(Schema::new_with_metadata(fields, first.metadata().clone()))
    } else {
        file_schema(path)?
    };
    check_unique_names(path, &schema)?;
    Ok(schema)
}

/// One file's schema, by its extension's format.
fn file_schema(path: &Path) -> Result<SchemaRef, IoError> {
    match format_of(path) {
        Some(FileFormat::Parquet) => {
            let meta = ArrowReaderMetadata::load(&open(path)?, ArrowReaderOptions::new())
                .map_err(|e| corrupt(path, "Parquet", e))?;
            Ok(meta.schema().clone())
        }
        Some(FileFormat::Arrow) => ipc_schema(path),
        Some(FileFormat::Csv) => infer_schema(path, &CsvOptions::default()),
        Some(FileFormat::Json) => json_table_schema(path),
        None => Err(IoError::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// The schema in an Arrow IPC file's header (or an IPC stream's first
/// message).
fn ipc_schema(path: &Path) -> Result<SchemaRef, IoError> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    use std::io::BufReader;
    let file_error = match FileReader::try_new(BufReader::new(open(path)?), None) {
        Ok(reader) => return Ok(reader.schema()),
        Err(e) => e,
    };
    match StreamReader::try_new(BufReader::new(open(path)?), None) {
        Ok(reader) => Ok(reader.schema()),
        Err(stream_error) => Err(corrupt(
            path,
            "Arrow IPC",
            format!("as an IPC file: {file_error}; as an IPC stream: {stream_error}"),
        )),
    }
}

/// Two columns of one name (compared as SQL compares unquoted names,
/// ignoring case) are an error naming them. One pass with a map of the
/// names seen: linear in the columns (a table may have 100,000).
fn check_unique_names(path: &Path, schema: &Schema) -> Result<(), IoError> {
    let fields = schema.fields();
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(fields.len());
    for (i, f) in fields.iter().enumerate() {
        if let Some(&j) = seen.get(&f.name().to_ascii_lowercase()) {
            return Err(IoError::Table {
                path: PathBuf::from(path),
                message: format!(
                    "columns {} (`{}`) and {} (`{}`) have the same name, which queries could \
                     not tell apart: rename one of them in the file",
                    j + 1,
                    fields[j].name(),
                    i + 1,
                    f.name()
                ),
            });
        }
        seen.insert(f.name().to_ascii_lowercase(), i);
    }
    Ok(())
}

/// What a table's files say about its size, without reading its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStats {
    /// Bytes on disk of the data files.
    pub bytes: u64,
    /// The number of rows, when every file is Parquet (from the footers).
    pub rows: Option<u64>,
}

/// The size on disk of a file or of a directory's data files (those of
/// `format`, or of any known format), and the row count when every file is
/// Parquet (read from the footers only).
///
/// # Errors
///
/// [`IoError::NotFound`], [`IoError::EmptyDirectory`], [`IoError::Io`],
/// [`IoError::Corrupt`] (a Parquet footer that does not read).
pub fn file_stats(path: &Path, format: Option<FileFormat>) -> Result<FileStats, IoError> {
    let meta = table_metadata(path)?;
    let files = if meta.is_dir() {
        let files = data_files(path, format)?;
        if files.is_empty() {
            return Err(IoError::EmptyDirectory {
                path: path.to_path_buf(),
            });
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut stats = FileStats {
        bytes: 0,
        rows: Some(0),
    };
    for file in &files {
        stats.bytes += fs::metadata(file).map_err(|e| IoError::io(file, e))?.len();
        let parquet = format.or_else(|| format_of(file)) == Some(FileFormat::Parquet);
        stats.rows = match (stats.rows, parquet) {
            (Some(n), true) => {
                let meta = ArrowReaderMetadata::load(&open(file)?, ArrowReaderOptions::new())
                    .map_err(|e| corrupt(file, "Parquet", e))?;
                Some(n + meta.metadata().file_metadata().num_rows().max(0) as u64)
            }
            _ => None,
        };
    }
    Ok(stats)
}

/// What kind of file a table's `path` is: a regular file or a directory
/// (symbolic links followed).
///
/// # Errors
/// [`IoError::NotFound`] or [`IoError::Io`] when it cannot be looked at;
/// [`IoError::Table`] for anything else (a FIFO, a device, a socket): a
/// table is read more than once (its schema, its statistics, each query),
/// which such a file cannot give, and reading it would wait for a writer.
pub(crate) fn table_metadata(path: &Path) -> Result<fs::Metadata, IoError> {
    let meta = fs::metadata(path).map_err(|e| IoError::io(path, e))?;
    if meta.is_dir() || meta.is_file() {
        return Ok(meta);
    }
    #[cfg(unix)]
    let kind = {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            "a FIFO (named pipe)"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        }
    };
    #[cfg(not(unix))]
    let kind = "not a regular file";
    Err(IoError::Table {
        path: path.to_path_buf(),
        message: format!(
            "{kind}: a table is read more than once (its columns, its statistics, each \
             query), so tenon reads regular files and directories only; copy the data into a \
             file first (such as `cat {} > table.csv`)",
            path.display()
        ),
    })
}
