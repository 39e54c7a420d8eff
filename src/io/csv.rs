//! Reading CSV with options: delimiter, quote, header row, a NULL literal,
//! a declared schema, and bad rows skipped and counted or reported by line.
//!
//! Records are split by the `csv` crate (quoted fields may hold delimiters,
//! quotes as `""` and line breaks), each field kept as text in a per-column
//! string builder, and every `batch_size` rows the columns are cast to the
//! table's types (`super::conform`). A row is *bad* when it has another
//! number of fields than the table has columns, is not UTF-8, or holds a
//! value that does not fit its column (or a NULL in a NOT NULL column).

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;

use super::conform::{Misfit, cast_to_schema, misfit_message};
use super::{CsvOptions, IoError};

/// How many rows the schema of a CSV file without a declared one is
/// inferred from.
pub(crate) const INFER_ROWS: usize = 1000;

fn open(path: &Path) -> Result<File, IoError> {
    File::open(path).map_err(|e| IoError::io(path, e))
}

/// Infers a schema from the first [`INFER_ROWS`] rows (arrow-csv's rules:
/// Int64, Float64, Boolean, Date32, timestamps, else Utf8; all nullable).
pub(crate) fn infer_schema(path: &Path, options: &CsvOptions) -> Result<SchemaRef, IoError> {
    use arrow_csv::reader::Format;
    let mut input = BufReader::new(open(path)?);
    let format = Format::default()
        .with_header(options.has_header)
        .with_delimiter(options.delimiter)
        .with_quote(options.quote);
    let (schema, _) = format
        .infer_schema(&mut input, Some(INFER_ROWS))
        .map_err(|e| inference_error(path, options, &e))?;
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
    Ok(Arc::new(schema))
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

/// An error of arrow-csv's schema inference, in the words of the reader's
/// own errors: a row with another number of fields names its line.
fn inference_error(path: &Path, options: &CsvOptions, e: &arrow_schema::ArrowError) -> IoError {
    if let arrow_schema::ArrowError::IoError(m, source) = e {
        return IoError::io(path, std::io::Error::new(source.kind(), m.clone()));
    }
    let raw = e.to_string();
    let line = number_after(&raw, "line ");
    let message = match (
        number_after(&raw, "Expected "),
        number_after(&raw, "found "),
    ) {
        (Some(want), Some(got)) if raw.contains("unequal lengths") => format!(
            "the row has {got} fields but the {} has {want} (quote fields that contain {})",
            if options.has_header {
                "header"
            } else {
                "first row"
            },
            delimiter_name(options.delimiter)
        ),
        _ if raw.contains("UTF-8") || raw.contains("utf-8") => {
            "invalid UTF-8: the file must be UTF-8 text (convert it, e.g. with iconv)".to_string()
        }
        _ => raw,
    };
    IoError::Parse {
        path: path.to_path_buf(),
        line,
        column: None,
        message,
    }
}

/// A CSV file being read into batches.
struct CsvRead<'a> {
    path: &'a Path,
    options: &'a CsvOptions,
    schema: SchemaRef,
    /// Whether the schema was declared (else inferred): chooses the words
    /// of messages.
    declared: bool,
    builders: Vec<StringBuilder>,
    /// The file line of each buffered row.
    lines: Vec<u64>,
    skipped: u64,
}

impl CsvRead<'_> {
    fn parse_error(&self, line: u64, column: Option<String>, message: String) -> IoError {
        IoError::Parse {
            path: self.path.to_path_buf(),
            line: Some(line),
            column,
            message,
        }
    }

    /// What to do about a bad row: count it, or fail naming it.
    fn bad_row(&mut self, error: IoError) -> Result<(), IoError> {
        if self.options.ignore_parse_errors {
            self.skipped += 1;
            Ok(())
        } else {
            Err(error)
        }
    }

    /// The message for a row with `got` fields.
    fn field_count_message(&self, got: usize) -> String {
        let want = self.schema.fields().len();
        if self.options.has_header && !self.declared {
            format!(
                "the row has {got} fields but the header has {want} (quote fields that contain {})",
                delimiter_name(self.options.delimiter)
            )
        } else {
            format!(
                "the row has {got} fields but the table has {want} columns (check \
                 'csv.field-delimiter'; quote fields that contain {})",
                delimiter_name(self.options.delimiter)
            )
        }
    }

    /// Casts the buffered rows to the schema: the batch of the good rows
    /// (`None`: no row, or none good); the bad ones skipped or reported.
    fn flush(&mut self) -> Result<Option<RecordBatch>, IoError> {
        if self.lines.is_empty() {
            return Ok(None);
        }
        let columns: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let lines = std::mem::take(&mut self.lines);
        let cast = cast_to_schema(&columns, &self.schema).map_err(|m| IoError::Parse {
            path: self.path.to_path_buf(),
            line: None,
            column: None,
            message: m,
        })?;
        if let Some(first) = &cast.first
            && !self.options.ignore_parse_errors
        {
            let field = self.schema.field(first.column);
            let message = match (&first.misfit, self.declared) {
                (Misfit::Value(v), false) => format!(
                    "cannot read `{v}` as {} (the column types are inferred from the first \
                         {INFER_ROWS} rows: fix the value, or declare the types with CREATE TABLE \
                         ... WITH ('format' = 'csv', ...), or convert the file to Parquet)",
                    field.data_type()
                ),
                (misfit, _) => format!(
                    "{} (fix the value, or read such values as NULL with \
                         'csv.ignore-parse-errors' = 'true')",
                    misfit_message(misfit, field.name(), field.data_type())
                ),
            };
            return Err(self.parse_error(lines[first.row], Some(field.name().clone()), message));
        }
        let batch = if self.options.skip_bad_rows {
            self.skipped += cast.bad_rows() as u64;
            cast.without_bad_rows()
        } else {
            self.skipped += cast.rows_bad_in_not_null_columns() as u64;
            cast.with_bad_values_null()
        }
        .map_err(|e| IoError::Parse {
            path: self.path.to_path_buf(),
            line: None,
            column: None,
            message: e.to_string(),
        })?;
        Ok((batch.num_rows() > 0).then_some(batch))
    }
}

fn delimiter_name(d: u8) -> String {
    match d {
        b',' => "commas".to_string(),
        b'\t' => "tabs".to_string(),
        other => format!("`{}`", other as char),
    }
}

/// Reads a CSV file: with `declared`, into that schema (columns by
/// position; a header row, if `options.has_header`, is skipped unread);
/// else into the schema inferred from its first [`INFER_ROWS`] rows.
/// Returns the schema, the batches (at most `batch_size` rows each) and the
/// number of rows skipped as bad (`options.ignore_parse_errors`).
///
/// An empty field is NULL, and so is a field equal to
/// `options.null_literal`.
///
/// # Errors
/// [`IoError::Parse`] naming the line (and the column, for a value) of the
/// first bad row, unless bad rows are skipped; [`IoError::Io`] /
/// [`IoError::NotFound`].
pub(crate) fn read_csv(
    path: &Path,
    options: &CsvOptions,
    declared: Option<&SchemaRef>,
    inferred: bool,
    batch_size: usize,
) -> Result<(SchemaRef, Vec<RecordBatch>, u64), IoError> {
    let mut batches = Vec::new();
    let (schema, skipped) = for_each_csv_batch(
        path,
        options,
        declared,
        inferred,
        batch_size,
        &mut |b| {
            batches.push(b);
            Ok(())
        },
        &|e| e,
    )?;
    Ok((schema, batches, skipped))
}

/// Reads a CSV file as [`read_csv`] does, handing each batch to `each` as
/// soon as its rows are cast (a file is never held whole: a scan streams
/// it), and stops at `each`'s first error. `io` turns the file's own
/// errors into `E`. Returns the schema and the number of rows skipped.
///
/// # Errors
/// As [`read_csv`] (through `io`), or `each`'s.
pub(crate) fn for_each_csv_batch<E>(
    path: &Path,
    options: &CsvOptions,
    declared: Option<&SchemaRef>,
    inferred: bool,
    batch_size: usize,
    each: &mut dyn FnMut(RecordBatch) -> Result<(), E>,
    io: &dyn Fn(IoError) -> E,
) -> Result<(SchemaRef, u64), E> {
    let read = read_records(path, options, declared, inferred, batch_size, each, io)?;
    Ok((read.schema, read.skipped))
}

fn read_records<'a, E>(
    path: &'a Path,
    options: &'a CsvOptions,
    declared: Option<&SchemaRef>,
    inferred: bool,
    batch_size: usize,
    each: &mut dyn FnMut(RecordBatch) -> Result<(), E>,
    io: &dyn Fn(IoError) -> E,
) -> Result<CsvRead<'a>, E> {
    let schema = match declared {
        Some(s) => Arc::clone(s),
        None => infer_schema(path, options).map_err(io)?,
    };
    let width = schema.fields().len();
    let mut read = CsvRead {
        path,
        options,
        schema,
        declared: declared.is_some() && !inferred,
        // small to start (they grow as rows come): 40,000 columns of
        // default-sized builders would reserve 200 MB before the first row
        builders: (0..width)
            .map(|_| StringBuilder::with_capacity(16, 256))
            .collect(),
        lines: Vec::new(),
        skipped: 0,
    };
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(options.delimiter)
        .quote(options.quote)
        .has_headers(false)
        .flexible(true)
        .from_reader(open(path).map_err(io)?);
    let mut record = ::csv::ByteRecord::new();
    let mut header = options.has_header;
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                return Err(io(match e.into_kind() {
                    ::csv::ErrorKind::Io(e) => IoError::io(path, e),
                    other => read.parse_error(line, None, format!("{other:?}")),
                }));
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        if header {
            header = false;
            continue;
        }
        if record.len() != width {
            // rows before it are reported first
            if let Some(b) = read.flush().map_err(io)? {
                each(b)?;
            }
            let e = read.parse_error(line, None, read.field_count_message(record.len()));
            read.bad_row(e).map_err(io)?;
            continue;
        }
        let fields: Result<Vec<&str>, _> = record.iter().map(std::str::from_utf8).collect();
        let Ok(fields) = fields else {
            if let Some(b) = read.flush().map_err(io)? {
                each(b)?;
            }
            let e = read.parse_error(
                line,
                None,
                "invalid UTF-8: the file must be UTF-8 text (convert it, e.g. with iconv)"
                    .to_string(),
            );
            read.bad_row(e).map_err(io)?;
            continue;
        };
        for (builder, field) in read.builders.iter_mut().zip(fields) {
            if field.is_empty() || options.null_literal.as_deref() == Some(field) {
                builder.append_null();
            } else {
                builder.append_value(field);
            }
        }
        read.lines.push(line);
        if read.lines.len() >= batch_size.max(1)
            && let Some(b) = read.flush().map_err(io)?
        {
            each(b)?;
        }
    }
    if let Some(b) = read.flush().map_err(io)? {
        each(b)?;
    }
    Ok(read)
}
