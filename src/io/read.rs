//! [`read_table`]: a file or a directory of files into memory.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use rayon::prelude::*;

use super::IoError;

/// How many rows (CSV) or values (JSON) the schema is inferred from.
const INFER_ROWS: usize = 1000;

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
        }
    }
}

/// The bytes held by the buffers of `batches`, each allocation counted once.
fn memory_size(batches: &[RecordBatch]) -> u64 {
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

/// A file format that [`read_table`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Parquet,
    Csv,
    Ipc,
    Json,
}

/// The format a path's extension announces.
fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "parquet" => Some(Format::Parquet),
        "csv" => Some(Format::Csv),
        "arrow" | "ipc" | "feather" => Some(Format::Ipc),
        "json" | "ndjson" | "jsonl" => Some(Format::Json),
        _ => None,
    }
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
/// name order, read in parallel; hidden files (`.name`), files with other
/// extensions and subdirectories are skipped. All files must have the same
/// column names and types (a column nullable in one file is nullable in the
/// table; the schema metadata is the first file's).
///
/// Batches hold at most `batch_size` rows (a larger batch from an IPC file is
/// sliced, without copying; smaller ones are not merged); `0` counts as `1`.
///
/// # Errors
///
/// [`IoError::NotFound`], [`IoError::UnknownFormat`] (a file with another
/// extension), [`IoError::EmptyDirectory`], [`IoError::Corrupt`],
/// [`IoError::Parse`], [`IoError::SchemaMismatch`] (naming the first file, in
/// name order, whose schema differs from the first file's) or
/// [`IoError::Io`]. A directory reports the error of the first failing file.
pub fn read_table(path: &Path, batch_size: usize) -> Result<LoadedTable, IoError> {
    let batch_size = batch_size.max(1);
    let meta = fs::metadata(path).map_err(|e| IoError::io(path, e))?;
    let (schema, batches) = if meta.is_dir() {
        read_dir(path, batch_size)?
    } else {
        read_file(path, batch_size)?
    };
    Ok(LoadedTable::new(schema, batches))
}

/// Reads one file, in batches of at most `batch_size` rows, none empty.
fn read_file(path: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    let format = format_of(path).ok_or_else(|| IoError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    let (schema, batches) = match format {
        Format::Parquet => read_parquet(path, batch_size)?,
        Format::Csv => read_csv(path, batch_size)?,
        Format::Ipc => read_ipc(path)?,
        Format::Json => read_json(path, batch_size)?,
    };
    Ok((schema, rechunk(batches, batch_size)))
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

/// The data files of a directory, in name order.
fn data_files(dir: &Path) -> Result<Vec<PathBuf>, IoError> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| IoError::io(dir, e))? {
        let entry = entry.map_err(|e| IoError::io(dir, e))?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        if format_of(&path).is_none() {
            continue;
        }
        // Follows symbolic links; a subdirectory named `x.parquet` is skipped.
        if fs::metadata(&path).map(|m| m.is_file()).unwrap_or(false) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads every data file of a directory as one table.
fn read_dir(dir: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    let files = data_files(dir)?;
    if files.is_empty() {
        return Err(IoError::EmptyDirectory {
            path: dir.to_path_buf(),
        });
    }
    let results: Vec<_> = files.par_iter().map(|f| read_file(f, batch_size)).collect();
    let mut results = files.iter().zip(results);
    let (first_path, first) = results.next().expect("at least one file");
    let (first_schema, mut batches) = first?;
    let mut nullable: Vec<bool> = first_schema
        .fields()
        .iter()
        .map(|f| f.is_nullable())
        .collect();
    for (path, result) in results {
        let (schema, more) = result?;
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
    Ok((schema, batches))
}

/// How `other` differs from `first` in column names or types, if it does.
fn schema_difference(first: &Schema, other: &Schema) -> Option<String> {
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

fn open(path: &Path) -> Result<File, IoError> {
    File::open(path).map_err(|e| IoError::io(path, e))
}

fn corrupt(path: &Path, format: &'static str, e: impl std::fmt::Display) -> IoError {
    IoError::Corrupt {
        path: path.to_path_buf(),
        format,
        message: e.to_string(),
    }
}

/// Reads a Parquet file, its row groups in parallel.
///
/// Each row group gets its own file handle: clones of one `File` share the
/// read position, which concurrent readers would fight over.
fn read_parquet(path: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    let file = open(path)?;
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
        .map_err(|e| corrupt(path, "Parquet", e))?;
    let schema = meta.schema().clone();
    let groups = meta.metadata().num_row_groups();
    let read_group = |group: usize| -> Result<Vec<RecordBatch>, IoError> {
        let file = open(path)?;
        ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta.clone())
            .with_row_groups(vec![group])
            .with_batch_size(batch_size)
            .build()
            .map_err(|e| corrupt(path, "Parquet", e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| corrupt(path, "Parquet", e))
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

/// Reads a CSV file with a header row, inferring the schema.
fn read_csv(path: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), IoError> {
    use arrow_csv::reader::{Format as CsvFormat, ReaderBuilder};
    let mut input = BufReader::new(open(path)?);
    let format = CsvFormat::default().with_header(true);
    let (schema, _) = format
        .infer_schema(&mut input, Some(INFER_ROWS))
        .map_err(|e| csv_error(path, &e, None))?;
    if schema.fields().is_empty() {
        return Err(IoError::Parse {
            path: path.to_path_buf(),
            line: Some(1),
            column: None,
            message: "the file is empty: a CSV file must start with a header row of column names"
                .to_string(),
        });
    }
    input
        .seek(SeekFrom::Start(0))
        .map_err(|e| IoError::io(path, e))?;
    let schema = Arc::new(schema);
    let reader = ReaderBuilder::new(schema.clone())
        .with_format(format)
        .with_batch_size(batch_size)
        .build_buffered(input)
        .map_err(|e| csv_error(path, &e, Some(&schema)))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| csv_error(path, &e, Some(&schema)))?;
    Ok((schema, batches))
}

/// The number that follows `key` in `message`, if any.
fn number_after(message: &str, key: &str) -> Option<u64> {
    let at = message.find(key)? + key.len();
    let digits: String = message[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The text between `start` and the next `end` in `message`.
fn between<'m>(message: &'m str, start: &str, end: &str) -> Option<&'m str> {
    let from = message.find(start)? + start.len();
    let len = message[from..].find(end)?;
    Some(&message[from..from + len])
}

/// A CSV reader error as an [`IoError::Parse`] with the file's line and the
/// column's name where the message tells them, in plainer words.
///
/// The line numbers of arrow-csv's messages count differently by source:
/// those of a value that does not parse ("for column C at line N") count
/// records from 0 with the header as record 0, so the file's line is N + 1;
/// those of the record splitter and of the csv crate (wrong number of
/// fields, invalid UTF-8) are already the file's 1-based lines. Both assume
/// that no quoted field spans lines.
fn csv_error(path: &Path, e: &ArrowError, schema: Option<&Schema>) -> IoError {
    if let ArrowError::IoError(m, source) = e {
        return IoError::io(path, std::io::Error::new(source.kind(), m.clone()));
    }
    let raw = match e {
        ArrowError::ParseError(m) | ArrowError::CsvError(m) => m.clone(),
        other => other.to_string(),
    };
    let line = number_after(&raw, "line ");
    let column_index =
        number_after(&raw, "for column ").or_else(|| number_after(&raw, "parsing column "));
    let (line, column, message) = if let Some(index) = column_index {
        let column = schema
            .and_then(|s| s.fields().get(index as usize))
            .map(|f| f.name().clone());
        let what = match (
            between(&raw, "value '", "' as type '"),
            between(&raw, "as type '", "'"),
        ) {
            (Some(value), Some(ty)) => format!("cannot read `{value}` as {ty}"),
            _ => raw.clone(),
        };
        let message = format!(
            "{what} (the column types are inferred from the first {INFER_ROWS} rows: \
             fix the value, or give the file explicit types by converting it to Parquet)"
        );
        (line.map(|l| l + 1), column, message)
    } else if raw.contains("number of fields") || raw.contains("unequal lengths") {
        let expected = number_after(&raw, "expected ").or_else(|| number_after(&raw, "Expected "));
        let got = number_after(&raw, "got more than ")
            .map(|n| format!("more than {n}"))
            .or_else(|| number_after(&raw, "got ").map(|n| n.to_string()))
            .or_else(|| number_after(&raw, "found ").map(|n| n.to_string()));
        let message = match (expected, got) {
            (Some(e), Some(g)) => format!(
                "the row has {g} fields but the header has {e} (quote fields that contain commas)"
            ),
            _ => raw.clone(),
        };
        (line, None, message)
    } else if raw.contains("UTF-8") {
        (
            line,
            None,
            "invalid UTF-8: the file must be UTF-8 text (convert it, e.g. with iconv)".to_string(),
        )
    } else {
        (line, None, raw)
    };
    IoError::Parse {
        path: path.to_path_buf(),
        line,
        column,
        message,
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
fn json_values(path: &Path) -> Result<Box<dyn BufRead + Send>, IoError> {
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

fn json_error(path: &Path, e: ArrowError) -> IoError {
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
fn json_key_order(path: &Path) -> Result<Vec<String>, IoError> {
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
    let (schema, _) = arrow_json::reader::infer_json_schema(json_values(path)?, Some(INFER_ROWS))
        .map_err(|e| json_error(path, e))?;
    let order: HashMap<String, usize> = json_key_order(path)?
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let mut fields: Vec<_> = schema.fields().iter().cloned().collect();
    fields.sort_by_key(|f| order.get(f.name()).copied().unwrap_or(usize::MAX));
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let reader = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(batch_size)
        .build(json_values(path)?)
        .map_err(|e| json_error(path, e))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| json_error(path, e))?;
    Ok((schema, batches))
}
