//! The Arrow PyCapsule interface (`__arrow_c_stream__`), both ways: a
//! stream of batches handed over as a C struct in a capsule, whose buffers
//! both sides share (nothing is copied).

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tenon::QueryStream;

/// The capsule name the interface gives a stream.
const STREAM: &CStr = c"arrow_array_stream";

/// The schema and batches of `data`: anything with `__arrow_c_stream__`
/// (pyarrow tables and readers, Polars DataFrames, DuckDB relations,
/// pandas 2.2+ DataFrames), or a pandas DataFrame through pyarrow. The
/// batches share the producer's buffers.
pub(crate) fn read(data: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    let py = data.py();
    let source = if data.hasattr("__arrow_c_stream__")? {
        data.clone()
    } else if is_pandas(data)? {
        // Older pandas has no stream of its own: pyarrow converts it.
        py.import("pyarrow")?
            .getattr("Table")?
            .call_method1("from_pandas", (data,))?
    } else {
        let type_name = data.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "cannot register a {type_name}: tenon takes Arrow data through the Arrow \
             PyCapsule interface (an object with __arrow_c_stream__: a pyarrow Table or \
             RecordBatchReader, a Polars DataFrame, a DuckDB relation), or a pandas \
             DataFrame; for a file use register_file"
        )));
    };
    let capsule = source.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast_into::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_stream__ did not return a capsule"))?;
    let pointer = capsule.pointer_checked(Some(STREAM))?;
    // SAFETY: a capsule named "arrow_array_stream" holds an
    // `ArrowArrayStream` C struct (the PyCapsule interface), valid while
    // the capsule lives; `from_raw` moves it out and marks the capsule's
    // copy released, as the interface asks of the consumer.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.as_ptr().cast()) };
    let reader = ArrowArrayStreamReader::try_new(stream).map_err(arrow_error)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().map_err(arrow_error)?;
    Ok((schema, batches))
}

fn is_pandas(data: &Bound<'_, PyAny>) -> PyResult<bool> {
    let module: String = data.get_type().getattr("__module__")?.extract()?;
    Ok(module.starts_with("pandas"))
}

fn arrow_error(e: ArrowError) -> PyErr {
    PyValueError::new_err(format!("cannot read the Arrow data: {e}"))
}

/// A capsule holding a C stream of `reader`'s batches.
pub(crate) fn export<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    // Once the consumer has moved the struct out, the capsule's copy is
    // marked released and dropping it does nothing; a capsule nobody
    // consumed releases the reader when it is dropped.
    PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), STREAM)
}

/// Result batches already in memory, as an Arrow stream: what
/// `Result.to_arrow()` hands pyarrow.
#[pyclass(frozen, module = "tenon")]
pub(crate) struct Batches {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl Batches {
    /// `batches`, all of `schema`.
    pub(crate) fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        Batches { schema, batches }
    }
}

#[pymethods]
impl Batches {
    /// The batches as an Arrow C stream (the PyCapsule interface).
    #[pyo3(signature = (requested_schema = None))]
    pub(crate) fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The requested schema is a hint a producer may ignore; tenon's
        // types are the result's own.
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            Arc::clone(&self.schema),
        );
        export(py, Box::new(reader))
    }
}

/// A running query's stream as an Arrow `RecordBatchReader`: batches are
/// produced as the consumer pulls them.
pub(crate) struct StreamReader {
    schema: SchemaRef,
    stream: QueryStream,
}

impl StreamReader {
    /// `stream`, whose batches are of `schema`.
    pub(crate) fn new(schema: SchemaRef, stream: QueryStream) -> Self {
        StreamReader { schema, stream }
    }
}

impl Iterator for StreamReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.stream
            .next()
            .map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e))))
    }
}

impl RecordBatchReader for StreamReader {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}
