//! [`write_batches`], [`write_to`] and [`write_to_path`]: results out, in
//! six formats; [`check_writable`] tells beforehand whether a format can
//! hold a schema's columns.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::str::FromStr;

use arrow_array::RecordBatch;
use std::sync::Arc;

use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use super::IoError;
use super::destination::Destination;
use super::table::{table_text, writable_by_table};

/// How results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// A text table with borders (arrow-cast's pretty printer); an empty
    /// result still shows the header. NULL is an empty cell. A cell longer
    /// than [`MAX_TABLE_CELL_CHARS`](super::MAX_TABLE_CELL_CHARS)
    /// characters is cut short (`…`), with a note after the table.
    Table,
    /// CSV with a header row; NULL is an empty field.
    Csv,
    /// One JSON array of objects (`[]` for no rows), NULLs written out.
    Json,
    /// One JSON object per line (nothing for no rows), NULLs written out.
    Ndjson,
    /// A Parquet file, Snappy-compressed.
    Parquet,
    /// An Arrow IPC file (Feather v2), uncompressed.
    Arrow,
}

impl OutputFormat {
    /// Every format, in the order the help text lists them.
    pub const ALL: [OutputFormat; 6] = [
        OutputFormat::Table,
        OutputFormat::Csv,
        OutputFormat::Json,
        OutputFormat::Ndjson,
        OutputFormat::Parquet,
        OutputFormat::Arrow,
    ];

    /// The format's name, as [`FromStr`] takes it: `table`, `csv`, `json`,
    /// `ndjson`, `parquet` or `arrow`.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Table => "table",
            OutputFormat::Csv => "csv",
            OutputFormat::Json => "json",
            OutputFormat::Ndjson => "ndjson",
            OutputFormat::Parquet => "parquet",
            OutputFormat::Arrow => "arrow",
        }
    }

    /// Whether the format is binary (Parquet, Arrow), so not for a terminal.
    pub fn is_binary(self) -> bool {
        matches!(self, OutputFormat::Parquet | OutputFormat::Arrow)
    }

    /// The format a file name's extension suggests: `.csv`, `.json`,
    /// `.ndjson` / `.jsonl`, `.parquet`, `.arrow` / `.ipc` / `.feather`;
    /// `None` for any other (there is no extension for [`OutputFormat::Table`]).
    pub fn from_extension(path: &Path) -> Option<OutputFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(OutputFormat::Csv),
            "json" => Some(OutputFormat::Json),
            "ndjson" | "jsonl" => Some(OutputFormat::Ndjson),
            "parquet" => Some(OutputFormat::Parquet),
            "arrow" | "ipc" | "feather" => Some(OutputFormat::Arrow),
            _ => None,
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that names no [`OutputFormat`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown output format `{input}`: choose one of table, csv, json, ndjson, parquet, arrow")]
pub struct ParseOutputFormatError {
    /// What was given.
    pub input: String,
}

impl FromStr for OutputFormat {
    type Err = ParseOutputFormatError;

    /// Parses a format's [`name`](OutputFormat::name), in any case; `jsonl`
    /// is also taken for NDJSON, and `ipc` and `feather` for Arrow.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if let Some(f) = OutputFormat::ALL.iter().find(|f| f.name() == lower) {
            return Ok(*f);
        }
        match lower.as_str() {
            "jsonl" => Ok(OutputFormat::Ndjson),
            "ipc" | "feather" => Ok(OutputFormat::Arrow),
            _ => Err(ParseOutputFormatError {
                input: s.to_string(),
            }),
        }
    }
}

/// A failure inside one of the writers.
enum Failure {
    Arrow(ArrowError),
    Parquet(ParquetError),
    Io(std::io::Error),
}

impl From<ArrowError> for Failure {
    fn from(e: ArrowError) -> Self {
        Failure::Arrow(e)
    }
}

impl From<ParquetError> for Failure {
    fn from(e: ParquetError) -> Self {
        Failure::Parquet(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

impl Failure {
    /// The [`IoError::Write`]; `seen` is the output's own error, if it gave
    /// one (some writers keep only its text).
    fn into_io_error(
        self,
        format: OutputFormat,
        path: Option<&Path>,
        seen: Option<std::io::Error>,
    ) -> IoError {
        let (message, io_error) = match self {
            Failure::Io(e) => (e.to_string(), Some(e)),
            Failure::Arrow(ArrowError::IoError(m, e)) => (format!("{m}: {e}"), Some(e)),
            Failure::Arrow(e) => (e.to_string(), None),
            Failure::Parquet(ParquetError::External(e)) => match e.downcast::<std::io::Error>() {
                Ok(e) => (e.to_string(), Some(*e)),
                Err(e) => (e.to_string(), None),
            },
            Failure::Parquet(e) => (e.to_string(), None),
        };
        // The output's own error says it best ("No space left on device"),
        // without the writer's prefix ("Csv error: ...").
        let message = match &seen {
            Some(e) => e.to_string(),
            None => message,
        };
        IoError::Write {
            path: path.map(Path::to_path_buf),
            format,
            message,
            io_error: io_error.or(seen),
        }
    }
}

/// Passes writes through to the output and keeps a copy of the first error
/// the output gave: the CSV writer turns I/O errors into text, which would
/// hide a closed pipe.
struct Watch<'a> {
    out: &'a mut dyn Write,
    error: Option<std::io::Error>,
}

impl Watch<'_> {
    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r
            && self.error.is_none()
        {
            self.error = Some(std::io::Error::new(e.kind(), e.to_string()));
        }
        r
    }
}

impl Write for Watch<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.out.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.out.flush();
        self.note(r)
    }
}

/// [`write_any`] with its failure as an [`IoError`], after
/// [`check_writable`] (so that nothing is written of a result the format
/// cannot hold).
fn write_watched(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
    out: &mut dyn Write,
    path: Option<&Path>,
) -> Result<(), IoError> {
    check_writable(schema, format)?;
    super::printable::check_printable(batches, schema, format)?;
    let mut watch = Watch { out, error: None };
    write_any(batches, schema, format, &mut watch)
        .map_err(|e| e.into_io_error(format, path, watch.error.take()))
}

/// Checks that `format` can hold every column of `schema` (CSV holds no
/// nested values; the text formats need a way to print each type; Parquet
/// needs a Parquet type for each), before anything is written.
///
/// # Errors
///
/// [`IoError::Unwritable`] naming the first column that does not fit, and
/// the formats that can hold all the columns.
pub fn check_writable(schema: &SchemaRef, format: OutputFormat) -> Result<(), IoError> {
    let Some((column, data_type, why)) = unwritable(schema, format) else {
        return Ok(());
    };
    let alternatives: Vec<&str> = OutputFormat::ALL
        .iter()
        .filter(|f| **f != format && unwritable(schema, **f).is_none())
        .map(|f| f.name())
        .collect();
    Err(IoError::Unwritable {
        format,
        column,
        data_type,
        why,
        alternatives: alternatives.join(", "),
    })
}

/// The first column of `schema` that `format` cannot hold: its name, its
/// type and why.
fn unwritable(schema: &SchemaRef, format: OutputFormat) -> Option<(String, String, String)> {
    if format == OutputFormat::Parquet
        && let Some(f) = schema.fields().iter().find(|f| has_union(f.data_type()))
    {
        // the Parquet writer does not map unions (it panics: ARROW-8817)
        return Some((
            f.name().clone(),
            f.data_type().to_string(),
            "Parquet has no union values".to_string(),
        ));
    }
    if format == OutputFormat::Parquet {
        // The writer maps the whole schema up front: a column it cannot
        // map fails here, with the column named in its message.
        return ArrowWriter::try_new(std::io::sink(), schema.clone(), None)
            .err()
            .map(|e| {
                let (name, ty) = schema
                    .fields()
                    .iter()
                    .find(|f| {
                        let one = arrow_schema::Schema::new(vec![f.as_ref().clone()]);
                        ArrowWriter::try_new(std::io::sink(), one.into(), None).is_err()
                    })
                    .map(|f| (f.name().clone(), f.data_type().to_string()))
                    .unwrap_or_default();
                (name, ty, e.to_string())
            });
    }
    schema.fields().iter().find_map(|field| {
        let why = match format {
            OutputFormat::Csv if matches!(field.data_type(), DataType::Union(..)) => {
                Some("CSV has no union values".to_string())
            }
            OutputFormat::Csv | OutputFormat::Table => writable_by_table(field.data_type()).err(),
            OutputFormat::Json | OutputFormat::Ndjson => {
                let empty = arrow_array::new_empty_array(field.data_type());
                let options = arrow_json::writer::EncoderOptions::default();
                arrow_json::writer::make_encoder(field, empty.as_ref(), &options)
                    .err()
                    .map(|e| e.to_string())
            }
            OutputFormat::Parquet | OutputFormat::Arrow => None,
        }?;
        Some((field.name().clone(), field.data_type().to_string(), why))
    })
}

/// Whether a union hides in `t` (at any depth).
fn has_union(t: &DataType) -> bool {
    match t {
        DataType::Union(..) => true,
        DataType::Struct(fs) => fs.iter().any(|f| has_union(f.data_type())),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => has_union(f.data_type()),
        DataType::Dictionary(_, v) => has_union(v),
        _ => false,
    }
}

/// `batch` with exactly `schema` (renamed columns, declared nullability),
/// or an error if its columns do not fit.
fn conform<'a>(
    batch: &'a RecordBatch,
    schema: &SchemaRef,
) -> Result<Cow<'a, RecordBatch>, Failure> {
    if batch.schema_ref() == schema {
        return Ok(Cow::Borrowed(batch));
    }
    Ok(Cow::Owned(RecordBatch::try_new(
        schema.clone(),
        batch.columns().to_vec(),
    )?))
}

/// `batches` (of `schema`) with their timestamp columns as text in the
/// timestamp text format (`tenon_planner::expr::time_text`), and their
/// schema: how the text formats write timestamps.
fn timestamps_as_text<'a>(
    batches: Vec<Cow<'a, RecordBatch>>,
    schema: &SchemaRef,
) -> Result<(Vec<Cow<'a, RecordBatch>>, SchemaRef), ArrowError> {
    let is_timestamp =
        |f: &arrow_schema::FieldRef| matches!(f.data_type(), DataType::Timestamp(..));
    if !schema.fields().iter().any(is_timestamp) {
        return Ok((batches, schema.clone()));
    }
    let fields: Vec<arrow_schema::Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if is_timestamp(f) {
                arrow_schema::Field::new(f.name(), DataType::Utf8, f.is_nullable())
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    let text_schema: SchemaRef = Arc::new(arrow_schema::Schema::new(fields));
    let mut out = Vec::with_capacity(batches.len());
    for b in batches {
        let mut columns = Vec::with_capacity(b.num_columns());
        for (i, c) in b.columns().iter().enumerate() {
            let column = tenon_planner::expr::time_text::timestamp_text(c.as_ref())
                .map_err(|e| {
                    ArrowError::ComputeError(format!("column `{}`: {e}", schema.field(i).name()))
                })?
                .unwrap_or_else(|| Arc::clone(c));
            columns.push(column);
        }
        out.push(Cow::Owned(RecordBatch::try_new_with_options(
            text_schema.clone(),
            columns,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
        )?));
    }
    Ok((out, text_schema))
}

/// `batch` with its nested columns (lists, maps, structs) as their text,
/// `[1, NULL]`, `{a: 1}`: how CSV holds them.
fn nested_as_text(batch: &RecordBatch) -> Result<Cow<'_, RecordBatch>, ArrowError> {
    if !batch
        .schema()
        .fields()
        .iter()
        .any(|f| f.data_type().is_nested())
    {
        return Ok(Cow::Borrowed(batch));
    }
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        if f.data_type().is_nested() {
            fields.push(arrow_schema::Field::new(f.name(), DataType::Utf8, true));
            columns.push(super::table::nested_text(c.as_ref())?);
        } else {
            fields.push(f.as_ref().clone());
            columns.push(Arc::clone(c));
        }
    }
    Ok(Cow::Owned(RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(fields)),
        columns,
    )?))
}

/// Writes `batches` to `out` in `format`.
///
/// Each batch is given `schema` (its column names and nullability; the types
/// must match). The bytes go out as they are produced, except that a Parquet
/// row group is encoded in memory first and the IPC footer comes last;
/// binary formats are written as bytes even to a terminal
/// ([`OutputFormat::is_binary`] tells a caller which ones those are).
///
/// # Errors
///
/// [`IoError::Unwritable`] (before anything is written): a type the format
/// cannot hold (CSV has no unions). [`IoError::Write`]: batches that
/// do not fit `schema`, or a failing `out` ([`IoError::is_broken_pipe`]
/// tells a closed pipe). What was written before such a failure stays
/// written: use [`write_to`] or [`write_to_path`] for a file.
pub fn write_batches(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), IoError> {
    write_watched(batches, schema, format, out, None)
}

fn write_any(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let batches = batches
        .iter()
        .map(|b| conform(b, schema))
        .collect::<Result<Vec<_>, _>>()?;
    // The text formats write timestamps in tenon's one timestamp format.
    let (batches, text_schema) = if format.is_binary() {
        (batches, schema.clone())
    } else {
        timestamps_as_text(batches, schema)?
    };
    let schema = &text_schema;
    match format {
        OutputFormat::Table => {
            let owned: Vec<RecordBatch> = batches.into_iter().map(Cow::into_owned).collect();
            out.write_all(table_text(&owned, schema)?.as_bytes())?;
        }
        OutputFormat::Csv => {
            let mut w = arrow_csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut *out);
            if batches.is_empty() {
                // The header comes with the first batch, even an empty one.
                w.write(&RecordBatch::new_empty(schema.clone()))?;
            }
            for b in &batches {
                w.write(nested_as_text(b)?.as_ref())?;
            }
        }
        OutputFormat::Json => {
            let mut w = arrow_json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, arrow_json::writer::JsonArray>(&mut *out);
            for b in &batches {
                w.write(b)?;
            }
            w.finish()?;
            drop(w);
            writeln!(out)?;
        }
        OutputFormat::Ndjson => {
            let mut w = arrow_json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, arrow_json::writer::LineDelimited>(&mut *out);
            for b in &batches {
                w.write(b)?;
            }
            w.finish()?;
        }
        OutputFormat::Parquet => {
            // ArrowWriter needs a `Send` writer, which `out` need not be: it
            // writes into a Vec that is drained into `out` after every batch
            // (the writer counts the bytes it has written itself, so taking
            // them out of the Vec does not disturb it).
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build();
            let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))?;
            for b in &batches {
                w.write(b)?;
                let done = std::mem::take(w.inner_mut());
                out.write_all(&done)?;
            }
            let rest = w.into_inner()?;
            out.write_all(&rest)?;
        }
        OutputFormat::Arrow => {
            let mut w = arrow_ipc::writer::FileWriter::try_new(&mut *out, schema)?;
            for b in &batches {
                w.write(b)?;
            }
            w.finish()?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Writes `batches` to `destination` in `format` and
/// [finishes](Destination::finish) it: a file is replaced only when the
/// whole result was written.
///
/// # Errors
///
/// As [`write_batches`], with the destination's path; a file destination
/// is then left as it was.
pub fn write_to(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
    mut destination: Destination,
) -> Result<(), IoError> {
    let path = destination.path().map(Path::to_path_buf);
    write_watched(
        batches,
        schema,
        format,
        destination.writer(),
        path.as_deref(),
    )?;
    destination.finish()
}

/// Writes `batches` to `path` in `format`: a regular file (or a new one) is
/// replaced atomically, a device or FIFO is written directly, `-` is stdout
/// ([`Destination`] says how each is told and written).
///
/// A file's data goes to a temporary file in the same directory
/// (`.{file name}.tenon-tmp-{pid}-{n}`), which is flushed and synced to disk
/// and then renamed over `path`. On any error the temporary file is
/// removed, so `path` is either the complete new file or what it was before
/// (absent, or the old file), never a partial file.
///
/// # Errors
///
/// As [`write_batches`] (checked before the file is created), with the
/// path; also a directory that does not exist or cannot be written to, and
/// a `path` that names a directory or anything else that is neither a
/// regular file, a character device nor a FIFO.
pub fn write_to_path(
    batches: &[RecordBatch],
    schema: &SchemaRef,
    format: OutputFormat,
    path: &Path,
) -> Result<(), IoError> {
    check_writable(schema, format)?;
    write_to(batches, schema, format, Destination::open(path, format)?)
}
