//! [`read_table`]: a file or a directory of files into memory.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, Field, Schema, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use rayon::prelude::*;

use super::conform::{cast_to_schema, columns_by_name, misfit_message};
use super::csv::{INFER_ROWS, read_csv};
use super::metadata::FileStamp;
use super::{FileFormat, IoError, ReadOptions};

/// A table read into memory by [`read_table`].
#[derive(Debug, Clone)]
pub struct LoadedTable {
    /// The table's schema; every batch has exactly this schema.
    pub schema: SchemaRef,
    /// The rows, in file order (a directory's files in name order), in
    /// batches of at most the requested batch size and never empty.
    pub batches: Vec<RecordBatch>,
    /// The number of rows.
    pub rows: u64,
    /// The memory the batches hold: the capacity of every Arrow buffer they
    /// reference, each allocation counted once (so a buffer shared by several
    /// columns or batches, such as an IPC message body or the slices of one
    /// batch, counts once). Allocator overhead is not included.
    pub bytes: u64,
    /// Rows left out as unreadable (CSV with `ignore_parse_errors`).
    pub skipped_rows: u64,
}

impl LoadedTable {
    /// A table of `batches`, counting its rows and bytes.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> LoadedTable {
        let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let bytes = memory_size(&batches);
        LoadedTable {
            schema,
            batches,
            rows,
            bytes,
            skipped_rows: 0,
        }
    }
}

/// The bytes held by the buffers of `batches`, each allocation counted once.
pub(super) fn memory_size(batches: &[RecordBatch]) -> u64 {
    fn add_buffer(b: &Buffer, seen: &mut HashSet<usize>, total: &mut u64) {
        if seen.insert(b.data_ptr().as_ptr() as usize) {
            // An externally owned buffer (e.g. memory-mapped) reports no
            // capacity: count the part of it that is visible.
            let size = if b.capacity() > 0 {
                b.capacity()
            } else {
                b.ptr_offset() + b.len()
            };
            *total += size as u64;
        }
    }
    fn add_data(d: &ArrayData, seen: &mut HashSet<usize>, total: &mut u64) {
        for b in d.buffers() {
            add_buffer(b, seen, total);
        }
        if let Some(n) = d.nulls() {
            add_buffer(n.buffer(), seen, total);
        }
        for c in d.child_data() {
            add_data(c, seen, total);
        }
    }
    let mut seen = HashSet::new();
    let mut total = 0;
    for batch in batches {
        for column in batch.columns() {
            add_data(&column.to_data(), &mut seen, &mut total);
        }
    }
    total
}

/// The format a path's extension announces.
pub(crate) fn format_of(path: &Path) -> Option<FileFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    FileFormat::ALL
        .into_iter()
        .find(|f| f.extensions().contains(&ext.as_str()))
}

/// Reads a table into memory from a file or a directory of files.
///
/// The format follows the extension (compared without regard to case):
///
/// - `.parquet`: row groups are read in parallel (rayon), each by its own
///   file handle; column types are those of the Arrow reader (the Arrow
///   schema stored in the file if there is one, so files written by pyarrow
///   may give Utf8, LargeUtf8, Utf8View or dictionary columns: they are kept
///   as they come). Snappy, LZ4 and ZSTD pages are supported.
/// - `.csv`: a header row, comma-separated; the column types are inferred
///   from the first 1000 rows (Int64, Float64, Boolean, Date32, timestamps,
///   else Utf8), every column nullable, and an empty field is NULL. A later
///   value that does not fit its column's type is a [`IoError::Parse`]
///   naming the line and column.
/// - `.arrow`, `.ipc`, `.feather`: the Arrow IPC file format (Feather v2),
///   or else the IPC stream format; LZ4 and ZSTD compression are supported.
/// - `.json`, `.ndjson`, `.jsonl`: one JSON object per row, either one
///   array of objects or objects one after another (NDJSON); the types are
///   inferred from the first 1000 objects (Int64, Float64, Boolean, Utf8,
///   lists and structs: dates come back as text).
///
/// A directory is read as one table: its files with a known extension, in
/// name order, read in parallel; hidden files (`.name`) and files with other
/// extensions are skipped, and a subdirectory is an error ([`IoError::Table`]:
/// tenon does not read partitioned layouts). All files must have the same
/// column names and types (a column nullable in one file is nullable in the
/// table; the schema metadata is the first file's).
///
/// Batches hold at most `batch_size` rows (a larger batch from an IPC file is
/// sliced, without copying; smaller ones are not merged); `0` counts as `1`.
///
/// This is [`read_table_with`] with the default [`ReadOptions`].
///
/// # Errors
///
/// [`IoError::NotFound`], [`IoError::UnknownFormat`] (a file with another
/// extension), [`IoError::EmptyDirectory`], [`IoError::Corrupt`],
/// [`IoError::Parse`], [`IoError::SchemaMismatch`] (naming the first file, in
/// name order, whose schema differs from the first file's) or
/// [`IoError::Io`]. A directory reports the error of the first failing file.
pub fn read_table(path: &Path, batch_size: usize) -> Result<LoadedTable, IoError> {
    read_table_with(path, &ReadOptions::new(batch_size))
}

/// Reads a table into memory from a file or a directory of files, as
/// [`read_table`] does, with options:
///
/// - [`ReadOptions::format`]: read every file as that format, whatever its
///   extension (a directory's files with that format's extensions);
/// - [`ReadOptions::schema`], a declared schema: the table has exactly that
///   schema. CSV columns are taken by position (a header row is skipped
///   unread), the other formats' by name (exactly, else ignoring case);
///   every value is cast to its column's declared type, and one that does
///   not fit (or a NULL in a NOT NULL column) is an error naming the
///   column and the row ([`IoError::BadValue`]; for CSV the line,
///   [`IoError::Parse`]), or for CSV with `ignore_parse_errors` a row left
///   out and counted in [`LoadedTable::skipped_rows`];
/// - [`ReadOptions::csv`]: delimiter, quote, header row, NULL literal, bad
///   rows skipped (see [`CsvOptions`](super::CsvOptions));
/// - [`ReadOptions::parquet_batch_size`]: rows per batch of the Parquet
///   decoder.
///
/// # Errors
///
/// As [`read_table`], and [`IoError::ColumnMismatch`] when a file does not
/// have a declared column or has it in a type that cannot be cast.
pub fn read_table_with(path: &Path, options: &ReadOptions) -> Result<LoadedTable, IoError> {
    let meta = super::metadata::table_metadata(path)?;
    let (schema, batches, skipped) = if meta.is_dir() {
        read_dir(path, options)?
    } else {
        read_file(path, options)?
    };
    let mut table = LoadedTable::new(schema, batches);
    table.skipped_rows = skipped;
    Ok(table)
}

/// A file's format: the one asked for, else the one its extension says.
pub(super) fn format_for(path: &Path, options: &ReadOptions) -> Result<FileFormat, IoError> {
    options
        .format
        .or_else(|| format_of(path))
        .ok_or_else(|| IoError::UnknownFormat {
            path: path.to_path_buf(),
        })
}

/// Reads one file, in batches of at most `batch_size` rows, none empty,
/// with the number of rows skipped.
pub(super) fn read_file(
    path: &Path,
    options: &ReadOptions,
) -> Result<(SchemaRef, Vec<RecordBatch>, u64), IoError> {
    let batch_size = options.batch_size.max(1);
    // Only some columns: of the declared schema (the other formats' columns
    // are taken by name, so cutting the declared schema down is enough;
    // CSV's are positional, so the whole row is read and then cut).
    let wanted = match (&options.schema, &options.projection) {
        (Some(declared), Some(p)) => Some(Arc::new(
            declared.project(p).map_err(|e| corrupt(path, "table", e))?,
        )),
        _ => None,
    };
    let declared = wanted.as_ref().or(options.schema.as_ref());
    let (schema, batches, skipped) = match format_for(path, options)? {
        FileFormat::Csv => {
            let (schema, batches, skipped) = read_csv(
                path,
                &options.csv,
                options.schema.as_ref(),
                options.inferred,
                batch_size,
            )?;
            match (&wanted, &options.projection) {
                (Some(wanted), Some(p)) => {
                    let batches = batches
                        .iter()
                        .map(|b| b.project(p))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| corrupt(path, "CSV", e))?;
                    (Arc::clone(wanted), batches, skipped)
                }
                _ => (schema, batches, skipped),
            }
        }
        format => {
            let (schema, batches) = match format {
                FileFormat::Parquet => read_parquet(
                    path,
                    options.parquet_batch_size.unwrap_or(batch_size).max(1),
                    wanted.as_deref(),
                )?,
                FileFormat::Arrow => read_ipc(path)?,
                _ => read_json(path, batch_size)?,
            };
            match declared {
                Some(declared) => (
                    Arc::clone(declared),
                    conform(path, batches, declared, 0)?,
                    0,
                ),
                None => (schema, batches, 0),
            }
        }
    };
    Ok((schema, rechunk(batches, batch_size), skipped))
}

/// The batches of a file cast to its table's declared schema, columns taken
/// by name; the first value that does not fit is an error naming its row
/// (the batches start at row `first_row` of the file, counted from 0).
pub(super) fn conform(
    path: &Path,
    batches: Vec<RecordBatch>,
    declared: &SchemaRef,
    first_row: u64,
) -> Result<Vec<RecordBatch>, IoError> {
    let mismatch = |message: String| IoError::ColumnMismatch {
        path: path.to_path_buf(),
        message,
    };
    let mut row = first_row;
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let columns = columns_by_name(&batch, declared).map_err(mismatch)?;
        let cast = cast_to_schema(&columns, declared).map_err(mismatch)?;
        if let Some(first) = &cast.first {
            let field = declared.field(first.column);
            return Err(IoError::BadValue {
                path: path.to_path_buf(),
                row: row + first.row as u64 + 1,
                column: field.name().clone(),
                message: misfit_message(&first.misfit, field.name(), field.data_type()),
            });
        }
        row += batch.num_rows() as u64;
        out.push(cast.batch);
    }
    Ok(out)
}

/// Drops empty batches and slices those longer than `batch_size`.
fn rechunk(batches: Vec<RecordBatch>, batch_size: usize) -> Vec<RecordBatch> {
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let n = batch.num_rows();
        if n <= batch_size {
            if n > 0 {
                out.push(batch);
            }
            continue;
        }
        let mut offset = 0;
        while offset < n {
            let len = batch_size.min(n - offset);
            out.push(batch.slice(offset, len));
            offset += len;
        }
    }
    out
}

/// The data files of a directory, in name order: those with an extension
/// of `format`, or of any known format.
pub(crate) fn data_files(dir: &Path, format: Option<FileFormat>) -> Result<Vec<PathBuf>, IoError> {
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| IoError::io(dir, e))? {
        let entry = entry.map_err(|e| IoError::io(dir, e))?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        if fs::metadata(&path).map(|m| m.is_dir()).unwrap_or(false) {
            subdirs.push(path);
            continue;
        }
        match (format_of(&path), format) {
            (None, _) => continue,
            (Some(found), Some(wanted)) if found != wanted => continue,
            _ => {}
        }
        // Follows symbolic links.
        if fs::metadata(&path).map(|m| m.is_file()).unwrap_or(false) {
            files.push(path);
        }
    }
    if let Some(sub) = subdirs.first() {
        return Err(IoError::Table {
            path: dir.to_path_buf(),
            message: format!(
                "the table directory has subdirectories ({}), which tenon does not read \
                 (partitioned layouts are not supported): move their files into the \
                 directory itself, or register each subdirectory as its own table",
                sub.display()
            ),
        });
    }
    files.sort();
    Ok(files)
}

/// Reads every data file of a directory as one table.
fn read_dir(
    dir: &Path,
    options: &ReadOptions,
) -> Result<(SchemaRef, Vec<RecordBatch>, u64), IoError> {
    let files = data_files(dir, options.format)?;
    if files.is_empty() {
        return Err(IoError::EmptyDirectory {
            path: dir.to_path_buf(),
        });
    }
    let results: Vec<_> = files.par_iter().map(|f| read_file(f, options)).collect();
    if let Some(declared) = &options.schema {
        // every file is cast to the declared schema already
        let mut batches = Vec::new();
        let mut skipped = 0;
        for result in results {
            let (_, more, n) = result?;
            batches.extend(more);
            skipped += n;
        }
        return Ok((Arc::clone(declared), batches, skipped));
    }
    let mut results = files.iter().zip(results);
    let Some((first_path, first)) = results.next() else {
        return Err(IoError::EmptyDirectory {
            path: dir.to_path_buf(),
        });
    };
    let (first_schema, mut batches, mut skipped) = first?;
    let mut nullable: Vec<bool> = first_schema
        .fields()
        .iter()
        .map(|f| f.is_nullable())
        .collect();
    for (path, result) in results {
        let (schema, more, n) = result?;
        skipped += n;
        if let Some(detail) = schema_difference(&first_schema, &schema) {
            return Err(IoError::SchemaMismatch {
                path: path.clone(),
                first: first_path.clone(),
                detail,
            });
        }
        for (n, f) in nullable.iter_mut().zip(schema.fields()) {
            *n |= f.is_nullable();
        }
        batches.extend(more);
    }
    let fields: Vec<Field> = first_schema
        .fields()
        .iter()
        .zip(&nullable)
        .map(|(f, &n)| f.as_ref().clone().with_nullable(n))
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(
        fields,
        first_schema.metadata().clone(),
    ));
    let batches = batches
        .into_iter()
        .map(|b| {
            if b.schema() == schema {
                Ok(b)
            } else {
                RecordBatch::try_new(schema.clone(), b.columns().to_vec())
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| IoError::SchemaMismatch {
            path: dir.to_path_buf(),
            first: first_path.clone(),
            detail: e.to_string(),
        })?;
    Ok((schema, batches, skipped))
}

/// How `other` differs from `first` in column names or types, if it does.
pub(crate) fn schema_difference(first: &Schema, other: &Schema) -> Option<String> {
    let names = |s: &Schema| {
        s.fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if first.fields().len() != other.fields().len() {
        return Some(format!(
            "{} columns ({}) instead of {} ({})",
            other.fields().len(),
            names(other),
            first.fields().len(),
            names(first)
        ));
    }
    for (i, (a, b)) in first.fields().iter().zip(other.fields()).enumerate() {
        if a.name() != b.name() {
            return Some(format!(
                "column {} is named `{}` instead of `{}`",
                i + 1,
                b.name(),
                a.name()
            ));
        }
        if a.data_type() != b.data_type() {
            return Some(format!(
                "column `{}` has type {} instead of {}",
                a.name(),
                b.data_type(),
                a.data_type()
            ));
        }
    }
    None
}

/// A failure decoding a Parquet file's pages: when the file is no longer
/// the one whose footer was read (`stamp`: replaced or rewritten while
/// being read), that, not the decoder's confusion.
pub(crate) fn parquet_error(
    path: &Path,
    stamp: Option<FileStamp>,
    e: impl std::fmt::Display,
) -> IoError {
    let now = FileStamp::of(path);
    IoError::Corrupt {
        path: path.to_path_buf(),
        format: "Parquet",
        message: if stamp.is_some() && now != stamp {
            "the file changed while it was being read (replaced or rewritten): \
             read it again once it is complete"
                .to_string()
        } else {
            e.to_string()
        },
    }
}

pub(crate) fn open(path: &Path) -> Result<File, IoError> {
    File::open(path).map_err(|e| IoError::io(path, e))
}

pub(crate) fn corrupt(path: &Path, format: &'static str, e: impl std::fmt::Display) -> IoError {
    IoError::Corrupt {
        path: path.to_path_buf(),
        format,
        message: e.to_string(),
    }
}

/// The columns of a Parquet file named as `only`'s are (exactly, else
/// ignoring case, as [`conform`] takes them).
pub(super) fn projection_mask(meta: &ArrowReaderMetadata, only: &Schema) -> ProjectionMask {
    let schema = meta.schema();
    let roots: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| {
            let name = schema.field(i).name();
            only.fields()
                .iter()
                .any(|f| f.name() == name || f.name().eq_ignore_ascii_case(name))
        })
        .collect();
    ProjectionMask::roots(meta.parquet_schema(), roots)
}

/// Reads a Parquet file, its row groups in parallel.
///
/// Each row group gets its own file handle: clones of one `File` share the
/// read position, which concurrent readers would fight over.
/// With `only`, the file's columns of those names (exactly, else ignoring
/// case, as [`conform`] takes them) are decoded, the others skipped.
fn read_parquet(
    path: &Path,
    batch_size: usize,
    only: Option<&Schema>,
) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    let file = open(path)?;
    let stamp = FileStamp::of(path);
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
        .map_err(|e| corrupt(path, "Parquet", e))?;
    let schema = meta.schema().clone();
    let groups = meta.metadata().num_row_groups();
    let mask = only.map(|only| projection_mask(&meta, only));
    let read_group = |group: usize| -> Result<Vec<RecordBatch>, IoError> {
        let file = open(path)?;
        let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta.clone())
            .with_row_groups(vec![group])
            .with_batch_size(batch_size);
        if let Some(mask) = &mask {
            builder = builder.with_projection(mask.clone());
        }
        builder
            .build()
            .map_err(|e| parquet_error(path, stamp, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| parquet_error(path, stamp, e))
    };
    let parts = (0..groups)
        .into_par_iter()
        .map(read_group)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((schema, parts.into_iter().flatten().collect()))
}

/// Reads an Arrow IPC file, or else an IPC stream.
fn read_ipc(path: &Path) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    let as_file = FileReader::try_new(BufReader::new(open(path)?), None);
    let file_error = match as_file {
        Ok(reader) => {
            let schema = reader.schema();
            let batches = reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| corrupt(path, "Arrow IPC", e))?;
            return Ok((schema, batches));
        }
        Err(e) => e,
    };
    match StreamReader::try_new(BufReader::new(open(path)?), None) {
        Ok(reader) => {
            let schema = reader.schema();
            let batches = reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| corrupt(path, "Arrow IPC", e))?;
            Ok((schema, batches))
        }
        Err(stream_error) => Err(corrupt(
            path,
            "Arrow IPC",
            format!("as an IPC file: {file_error}; as an IPC stream: {stream_error}"),
        )),
    }
}

/// Turns a JSON array of values into the values one after another, as the
/// bytes pass, which arrow-json reads like NDJSON: the outer `[` and `]`
/// and the commas between the elements become whitespace (brackets and
/// commas inside strings and nested values are left alone).
struct ArrayToValues<R> {
    inner: R,
    depth: u32,
    in_string: bool,
    escaped: bool,
}

impl<R: Read> Read for ArrayToValues<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for b in &mut buf[..n] {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if *b == b'\\' {
                    self.escaped = true;
                } else if *b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match *b {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth == 1 && *b == b'[' {
                        *b = b' ';
                    }
                }
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 && *b == b']' {
                        *b = b'\n';
                    }
                }
                b',' if self.depth == 1 => *b = b'\n',
                _ => {}
            }
        }
        Ok(n)
    }
}

/// A reader of a JSON file's values: an array's elements, or NDJSON as is.
pub(crate) fn json_values(path: &Path) -> Result<Box<dyn BufRead + Send>, IoError> {
    let mut input = BufReader::new(open(path)?);
    let first = loop {
        let buf = input.fill_buf().map_err(|e| IoError::io(path, e))?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => break Some(buf[i]),
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    if first == Some(b'[') {
        Ok(Box::new(BufReader::new(ArrayToValues {
            inner: input,
            depth: 0,
            in_string: false,
            escaped: false,
        })))
    } else {
        Ok(Box::new(input))
    }
}

pub(crate) fn json_error(path: &Path, e: ArrowError) -> IoError {
    if let ArrowError::IoError(m, source) = e {
        return IoError::io(path, std::io::Error::new(source.kind(), m));
    }
    let message = match e {
        ArrowError::JsonError(m) | ArrowError::ParseError(m) => m,
        other => other.to_string(),
    };
    IoError::Parse {
        path: path.to_path_buf(),
        line: None,
        column: None,
        message: format!(
            "{message} (expected one JSON object per row, in one array or one after another; \
             types are inferred from the first {INFER_ROWS} objects)"
        ),
    }
}

/// The keys of the first [`INFER_ROWS`] objects of a JSON file, in the
/// order they first appear.
///
/// arrow-json infers the schema through `serde_json` maps, which sort their
/// keys; this puts the columns back in the file's order. Keys are taken as
/// written (escapes are not decoded), so an escaped key keeps its sorted
/// place.
pub(crate) fn json_key_order(path: &Path) -> Result<Vec<String>, IoError> {
    let mut input = json_values(path)?;
    let mut keys = Vec::new();
    let mut seen = HashSet::new();
    let (mut depth, mut in_string, mut escaped) = (0u32, false, false);
    // The string being read at depth 1, and one just read there: a key if
    // a colon follows.
    let mut current: Option<Vec<u8>> = None;
    let mut candidate: Option<Vec<u8>> = None;
    let mut objects = 0;
    while objects < INFER_ROWS {
        let buf = input.fill_buf().map_err(|e| IoError::io(path, e))?;
        if buf.is_empty() {
            break;
        }
        for &b in buf {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                    candidate = current.take();
                    continue;
                }
                if let Some(c) = current.as_mut() {
                    c.push(b);
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                continue;
            }
            if b == b':' {
                if let Some(key) = candidate.take() {
                    let key = String::from_utf8_lossy(&key).into_owned();
                    if seen.insert(key.clone()) {
                        keys.push(key);
                    }
                }
                continue;
            }
            candidate = None;
            match b {
                b'"' => {
                    in_string = true;
                    if depth == 1 {
                        current = Some(Vec::new());
                    }
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        objects += 1;
                    }
                }
                _ => {}
            }
        }
        let n = buf.len();
        input.consume(n);
    }
    Ok(keys)
}

/// Reads a JSON array of objects or NDJSON, inferring the schema.
fn read_json(path: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    let schema = json_table_schema(path)?;
    let reader = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(batch_size)
        .build(json_values(path)?)
        .map_err(|e| json_error(path, e))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| json_error(path, e))?;
    Ok((schema, batches))
}

/// The schema of a JSON file registered as a table: [`json_schema`], which
/// must have a column.
///
/// # Errors
/// A file without any key to read a column from (empty, `[]`, `{}`).
pub(crate) fn json_table_schema(path: &Path) -> Result<SchemaRef, IoError> {
    let schema = json_schema(path)?;
    if schema.fields().is_empty() {
        // nothing to read columns from: an empty file, `[]`, or objects
        // without keys
        return Err(IoError::Parse {
            path: path.to_path_buf(),
            line: None,
            column: None,
            message: "no columns: the file holds no JSON object with a key, so tenon cannot \
                      tell its columns (give it at least one row, or declare the table with \
                      CREATE TABLE and its columns)"
                .into(),
        });
    }
    Ok(schema)
}

/// The schema of a JSON file, inferred from its first objects, its columns
/// in the order the keys first appear.
pub(crate) fn json_schema(path: &Path) -> Result<SchemaRef, IoError> {
    let (schema, _) = arrow_json::reader::infer_json_schema(json_values(path)?, Some(INFER_ROWS))
        .map_err(|e| json_error(path, e))?;
    let order: HashMap<String, usize> = json_key_order(path)?
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let mut fields: Vec<_> = schema.fields().iter().cloned().collect();
    fields.sort_by_key(|f| order.get(f.name()).copied().unwrap_or(usize::MAX));
    Ok(Arc::new(Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    )))
}
