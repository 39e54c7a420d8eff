//! A query's spill directory and its files (see the module `spill` docs).

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arrow_array::RecordBatch;
use arrow_ipc::CompressionType;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_schema::SchemaRef;

use crate::exec::plan::OperatorMetrics;
use crate::exec::{ExecError, Result};
use tenon_kernels::{MemoryBudget, MemoryReservation, batch_bytes};

/// Where a query spills and how much it may: `spill_dir` and `spill_limit`
/// of the [`Config`](crate::Config).
#[derive(Debug, Clone, Default)]
pub struct SpillSettings {
    /// The directory the query's own spill directory is made in; `None`:
    /// the system's temporary directory.
    pub dir: Option<PathBuf>,
    /// The most bytes of spill files on disk at once; `None`: no limit.
    pub limit: Option<u64>,
}

/// One query run's spill directory: made on first use, removed (with its
/// files) on drop.
#[derive(Debug)]
pub(crate) struct SpillSpace {
    parent: PathBuf,
    limit: Option<u64>,
    dir: OnceLock<std::result::Result<PathBuf, (String, std::io::ErrorKind)>>,
    files: AtomicU64,
    /// Bytes of spill files on disk now.
    on_disk: AtomicU64,
    /// Bytes written in all (what EXPLAIN ANALYZE and errors report).
    written: AtomicU64,
    /// Whether a write was refused for `spill_limit` (an error's advice).
    over_limit: AtomicBool,
}

/// What went wrong with a spill, for the advice of its error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cause {
    /// Making or writing the directory or a file: the I/O error's kind.
    Write(Option<std::io::ErrorKind>),
    /// Reading a spill file back.
    Read,
    /// Neither (a compression codec missing, a stream that did not start).
    Other,
}

/// The I/O error under an Arrow error, if it is one.
fn io_kind(e: &arrow_schema::ArrowError) -> Option<std::io::ErrorKind> {
    match e {
        arrow_schema::ArrowError::IoError(_, io) => Some(io.kind()),
        _ => None,
    }
}

/// An Arrow error's text without the dependency's prefix: an I/O error's
/// own text (`No space left on device (os error 28)`).
fn arrow_text(e: &arrow_schema::ArrowError) -> String {
    match e {
        arrow_schema::ArrowError::IoError(_, io) => io.to_string(),
        other => crate::words::without_dependency_prefixes(&other.to_string()),
    }
}

impl SpillSpace {
    /// The space of a run with `settings`; nothing is made yet.
    pub(crate) fn new(settings: &SpillSettings) -> Arc<Self> {
        Arc::new(SpillSpace {
            parent: settings.dir.clone().unwrap_or_else(std::env::temp_dir),
            limit: settings.limit,
            dir: OnceLock::new(),
            files: AtomicU64::new(0),
            on_disk: AtomicU64::new(0),
            written: AtomicU64::new(0),
            over_limit: AtomicBool::new(false),
        })
    }

    /// Bytes of spill files written by this run so far.
    pub(crate) fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// The error of a failed spill: `message`, with the directory, the
    /// bytes written so far and what to do about `cause`.
    pub(super) fn error(&self, message: impl Into<String>, cause: Cause) -> ExecError {
        use std::io::ErrorKind as K;
        let dir = match self.dir.get() {
            Some(Ok(d)) => d.display().to_string(),
            _ => self.parent.display().to_string(),
        };
        let elsewhere = "point `spill_dir` at another directory (`--set spill_dir=...`), or \
                         raise memory_limit so that less spills";
        let advice = if self.over_limit.load(Ordering::Relaxed) {
            "raise spill_limit (`--set spill_limit=...`), or raise memory_limit so that less \
             spills"
                .to_string()
        } else {
            match cause {
                Cause::Write(Some(K::StorageFull | K::QuotaExceeded | K::FileTooLarge)) => {
                    format!("free disk space there, or {elsewhere}")
                }
                Cause::Write(Some(
                    K::PermissionDenied | K::ReadOnlyFilesystem | K::NotFound | K::NotADirectory,
                )) => format!("the directory cannot be written: {elsewhere}"),
                Cause::Read => "a spill file was removed or changed while the query ran: run \
                                it again, with its spill directory left alone"
                    .to_string(),
                Cause::Write(_) | Cause::Other => elsewhere.to_string(),
            }
        };
        ExecError::Spill {
            dir,
            written: self.written(),
            message: message.into(),
            advice,
        }
    }

    /// The directory, made now if this is the first spill of the run.
    fn dir(&self) -> Result<&Path> {
        let made = self.dir.get_or_init(|| {
            super::directory::make(&self.parent).map_err(|e| {
                (
                    format!("cannot make a spill directory there: {e}"),
                    e.kind(),
                )
            })
        });
        match made {
            Ok(d) => Ok(d),
            Err((e, kind)) => Err(self.error(e.clone(), Cause::Write(Some(*kind)))),
        }
    }

    /// A new, empty spill file for batches of `schema`.
    /// Its files and bytes are counted in `metrics` (the operator's).
    pub(in crate::exec) fn writer(
        self: &Arc<Self>,
        schema: &SchemaRef,
        metrics: &Arc<OperatorMetrics>,
    ) -> Result<SpillWriter> {
        let dir = self.dir()?;
        let n = self.files.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{n}.arrows"));
        let file = super::directory::create_file(&path).map_err(|e| {
            self.error(
                format!("cannot create {}: {e}", path.display()),
                Cause::Write(Some(e.kind())),
            )
        })?;
        metrics.spill.files.fetch_add(1, Ordering::Relaxed);
        let out = Counted {
            inner: BufWriter::with_capacity(1 << 16, file),
            space: Arc::clone(self),
            metrics: Arc::clone(metrics),
            bytes: 0,
        };
        Ok(SpillWriter {
            pending: None,
            stream: Stream::Unstarted(out),
            file: SpillFile {
                space: Arc::clone(self),
                path,
                schema: Arc::clone(schema),
                rows: 0,
                batches: 0,
                bytes: 0,
                disk: 0,
            },
        })
    }
}

impl Drop for SpillSpace {
    fn drop(&mut self) {
        if let Some(Ok(dir)) = self.dir.get() {
            super::directory::remove(dir);
        }
    }
}

/// The file under a [`SpillWriter`]: counts its bytes against the spill
/// limit as they are written.
struct Counted {
    inner: BufWriter<File>,
    space: Arc<SpillSpace>,
    metrics: Arc<OperatorMetrics>,
    bytes: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len() as u64;
        let on_disk = self.space.on_disk.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(limit) = self.space.limit
            && on_disk > limit
        {
            self.space.on_disk.fetch_sub(n, Ordering::Relaxed);
            self.space.over_limit.store(true, Ordering::Relaxed);
            return Err(std::io::Error::other(format!(
                "the query's spill files would exceed spill_limit ({limit} bytes)"
            )));
        }
        match self.inner.write(buf) {
            Ok(w) => {
                let unwritten = n - w as u64;
                self.space.on_disk.fetch_sub(unwritten, Ordering::Relaxed);
                self.space.written.fetch_add(w as u64, Ordering::Relaxed);
                self.metrics
                    .spill
                    .bytes
                    .fetch_add(w as u64, Ordering::Relaxed);
                self.bytes += w as u64;
                Ok(w)
            }
            Err(e) => {
                self.space.on_disk.fetch_sub(n, Ordering::Relaxed);
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Rows a [coalescing](SpillWriter::coalescing) writer gathers before it
/// writes them as one batch.
const COALESCE_ROWS: usize = 8192;

/// Bytes at which a coalescing writer writes what it gathered, fewer rows
/// or not (wide rows).
const COALESCE_BYTES: usize = 1 << 19;

/// Small batches a coalescing writer holds until they make one to write,
/// charged to the query's budget.
struct Pending {
    batches: Vec<RecordBatch>,
    rows: usize,
    charge: MemoryReservation,
}

/// The IPC stream of a spill file.
enum Stream {
    /// Nothing written yet: whether to compress is decided by the first
    /// batch ([`compresses`]).
    Unstarted(Counted),
    Started(Box<StreamWriter<Counted>>),
    /// Between the two (only while a stream starts, or after it failed
    /// to).
    Gone,
}

/// At most this many bytes of each buffer of a file's first batch are
/// compressed to see whether the file's data compresses.
const SAMPLE_BYTES: usize = 16 << 10;

/// Whether `batch`'s buffers compress with LZ4 to at most half their
/// size, estimated from a sample of each (its first [`SAMPLE_BYTES`],
/// weighed by the buffer's size): only then does compressing the spill
/// file pay. Random keys and numbers save a fifth and cost more time than
/// writing and reading the fifth (the page cache takes the writes);
/// strings and repeated values save more.
fn compresses(batch: &RecordBatch) -> bool {
    fn sample(data: &arrow_data::ArrayData, raw: &mut usize, packed: &mut usize) {
        // Each buffer's sample stands for the whole buffer.
        for b in data.buffers() {
            let part = &b.as_slice()[..b.len().min(SAMPLE_BYTES)];
            if part.is_empty() {
                continue;
            }
            let ratio = lz4_flex::block::compress(part).len() as f64 / part.len() as f64;
            *raw += b.len();
            *packed += (ratio * b.len() as f64) as usize;
        }
        for child in data.child_data() {
            sample(child, raw, packed);
        }
    }
    let (mut raw, mut packed) = (0usize, 0usize);
    for c in batch.columns() {
        sample(&c.to_data(), &mut raw, &mut packed);
    }
    raw > 0 && packed * 2 <= raw
}

/// A spill file being written.
pub(in crate::exec) struct SpillWriter {
    stream: Stream,
    file: SpillFile,
    pending: Option<Pending>,
}

impl SpillWriter {
    /// This writer gathering small batches (a partition's share of one
    /// batch: 8192 rows split 32 ways are 256-row pieces) into batches of
    /// about [`COALESCE_ROWS`] before writing them, while `budget` can
    /// hold them (a piece it cannot hold is written at once). Each batch
    /// written costs an IPC message and a compression frame per buffer,
    /// and reading it back an allocation per buffer: tiny batches made
    /// the spilled hash join several times slower than its writes.
    pub(in crate::exec) fn coalescing(mut self, budget: &MemoryBudget) -> Self {
        if let Ok(charge) = budget.try_reserve("spill write buffers", 0) {
            self.pending = Some(Pending {
                batches: Vec::new(),
                rows: 0,
                charge,
            });
        }
        self
    }

    /// Appends `batch` (nothing for an empty one).
    pub(in crate::exec) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        if let Some(p) = &mut self.pending {
            let bytes = batch_bytes(batch);
            if rows < COALESCE_ROWS && p.charge.grow_spillable(bytes).is_ok() {
                p.batches.push(batch.clone());
                p.rows += rows;
                if p.rows >= COALESCE_ROWS || p.charge.size() >= COALESCE_BYTES {
                    self.flush_pending()?;
                }
                return Ok(());
            }
            self.flush_pending()?;
        }
        self.write_now(batch)
    }

    /// Writes the gathered batches as one.
    fn flush_pending(&mut self) -> Result<()> {
        let Some(p) = &mut self.pending else {
            return Ok(());
        };
        if p.batches.is_empty() {
            return Ok(());
        }
        let batches = std::mem::take(&mut p.batches);
        p.rows = 0;
        let one = arrow_select::concat::concat_batches(&self.file.schema, &batches)
            .map_err(|e| ExecError::arrow("gathering rows to spill", e))?;
        drop(batches);
        if let Some(p) = &mut self.pending {
            p.charge.resize(0).ok();
        }
        self.write_now(&one)
    }

    /// The stream, started (LZ4-compressed when `first` [`compresses`])
    /// if it was not.
    fn started(&mut self, first: Option<&RecordBatch>) -> Result<&mut StreamWriter<Counted>> {
        if matches!(self.stream, Stream::Unstarted(_))
            && let Stream::Unstarted(out) = std::mem::replace(&mut self.stream, Stream::Gone)
        {
            let compression = first
                .is_some_and(compresses)
                .then_some(CompressionType::LZ4_FRAME);
            let space = &self.file.space;
            let options = IpcWriteOptions::default()
                .try_with_compression(compression)
                .map_err(|e| {
                    space.error(
                        format!("LZ4 compression is not available: {}", arrow_text(&e)),
                        Cause::Other,
                    )
                })?;
            let writer = StreamWriter::try_new_with_options(out, &self.file.schema, options)
                .map_err(|e| {
                    space.error(
                        format!("writing {}: {}", self.file.path.display(), arrow_text(&e)),
                        Cause::Write(io_kind(&e)),
                    )
                })?;
            self.stream = Stream::Started(Box::new(writer));
        }
        match &mut self.stream {
            Stream::Started(w) => Ok(w),
            _ => Err(self.file.space.error(
                format!(
                    "writing {}: the stream could not start",
                    self.file.path.display()
                ),
                Cause::Other,
            )),
        }
    }

    fn write_now(&mut self, batch: &RecordBatch) -> Result<()> {
        let compacted = compact_views(batch);
        let batch = compacted.as_ref().unwrap_or(batch);
        let path = self.file.path.display().to_string();
        let space = Arc::clone(&self.file.space);
        let writer = self.started(Some(batch))?;
        writer.write(batch).map_err(|e| {
            space.error(
                format!("writing {path}: {}", arrow_text(&e)),
                Cause::Write(io_kind(&e)),
            )
        })?;
        let disk = writer.get_ref().bytes;
        self.file.rows += batch.num_rows();
        self.file.batches += 1;
        self.file.bytes += batch_bytes(batch);
        self.file.disk = disk;
        Ok(())
    }

    /// Ends the stream and flushes it to disk.
    pub(in crate::exec) fn finish(mut self) -> Result<SpillFile> {
        self.flush_pending()?;
        let path = self.file.path.display().to_string();
        let space = Arc::clone(&self.file.space);
        let writer = self.started(None)?;
        writer.finish().and_then(|()| writer.flush()).map_err(|e| {
            space.error(
                format!("writing {path}: {}", arrow_text(&e)),
                Cause::Write(io_kind(&e)),
            )
        })?;
        self.file.disk = writer.get_ref().bytes;
        // The writer is done; the file (and its deletion on drop) lives on.
        let empty = SpillFile {
            space: Arc::clone(&self.file.space),
            path: PathBuf::new(),
            schema: Arc::clone(&self.file.schema),
            rows: 0,
            batches: 0,
            bytes: 0,
            disk: 0,
        };
        Ok(std::mem::replace(&mut self.file, empty))
    }
}

/// `batch` with its view columns (`Utf8View`, `BinaryView`) holding only
/// the bytes their rows use, when one of them holds more than twice that:
/// IPC writes every data buffer a view column references, and the rows of
/// a join's output or a slice of a table reference buffers far larger than
/// themselves. `None` when no column needs it.
fn compact_views(batch: &RecordBatch) -> Option<RecordBatch> {
    use arrow_array::cast::AsArray;
    use arrow_array::{Array, ArrayRef};
    use arrow_schema::DataType;
    let wasteful = |c: &ArrayRef| {
        let (held, used): (usize, usize) = match c.data_type() {
            DataType::Utf8View => {
                let a = c.as_string_view();
                (
                    a.data_buffers().iter().map(|b| b.len()).sum(),
                    a.views().iter().map(|v| (*v as u32) as usize).sum(),
                )
            }
            DataType::BinaryView => {
                let a = c.as_binary_view();
                (
                    a.data_buffers().iter().map(|b| b.len()).sum(),
                    a.views().iter().map(|v| (*v as u32) as usize).sum(),
                )
            }
            _ => return false,
        };
        held > 2 * used + 4096
    };
    if !batch.columns().iter().any(wasteful) {
        return None;
    }
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::Utf8View if wasteful(c) => {
                std::sync::Arc::new(c.as_string_view().gc()) as ArrayRef
            }
            DataType::BinaryView if wasteful(c) => {
                std::sync::Arc::new(c.as_binary_view().gc()) as ArrayRef
            }
            _ => c.clone(),
        })
        .collect();
    RecordBatch::try_new(batch.schema(), columns).ok()
}

/// A finished spill file; deleted (and its bytes given back to the spill
/// limit) when dropped.
#[derive(Debug)]
pub(in crate::exec) struct SpillFile {
    space: Arc<SpillSpace>,
    path: PathBuf,
    schema: SchemaRef,
    rows: usize,
    batches: usize,
    /// Bytes its batches take in memory ([`batch_bytes`]).
    bytes: usize,
    /// Bytes on disk.
    disk: u64,
}

impl SpillFile {
    /// Rows in the file.
    pub(in crate::exec) fn rows(&self) -> usize {
        self.rows
    }

    /// Batches in the file.
    pub(in crate::exec) fn batches(&self) -> usize {
        self.batches
    }

    /// Bytes its batches take in memory once read back.
    pub(in crate::exec) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The schema of its batches.
    pub(in crate::exec) fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Its batches, in the order they were written.
    pub(in crate::exec) fn read(&self) -> Result<impl Iterator<Item = Result<RecordBatch>> + '_> {
        let failed = |e: String| {
            self.space.error(
                format!("reading back {}: {e}", self.path.display()),
                Cause::Read,
            )
        };
        let file = File::open(&self.path).map_err(|e| failed(e.to_string()))?;
        let reader = StreamReader::try_new(BufReader::with_capacity(1 << 16, file), None)
            .map_err(|e| failed(arrow_text(&e)))?;
        Ok(reader.map(move |b| b.map_err(|e| failed(arrow_text(&e)))))
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if self.path.as_os_str().is_empty() {
            return;
        }
        let _ = std::fs::remove_file(&self.path);
        self.space.on_disk.fetch_sub(
            self.disk.min(self.space.on_disk.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int64Array, StringArray};

    fn random_numbers(n: usize) -> RecordBatch {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let values = (0..n).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i64
        });
        let column: ArrayRef = Arc::new(Int64Array::from_iter_values(values));
        RecordBatch::try_from_iter([("k", column)]).unwrap()
    }

    fn repeated_strings(n: usize) -> RecordBatch {
        let values = (0..n).map(|i| format!("status {}", ["OPEN", "SHIPPED"][i % 2]));
        let column: ArrayRef = Arc::new(StringArray::from_iter_values(values));
        RecordBatch::try_from_iter([("s", column)]).unwrap()
    }

    #[test]
    fn a_file_is_compressed_only_when_its_first_batch_compresses() {
        assert!(!compresses(&random_numbers(8192)));
        assert!(compresses(&repeated_strings(8192)));
        let dir = std::env::temp_dir().join(format!("tenon-spill-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let space = SpillSpace::new(&SpillSettings {
            dir: Some(dir.clone()),
            limit: None,
        });
        let metrics = Arc::new(OperatorMetrics::default());
        for batch in [random_numbers(8192), repeated_strings(8192)] {
            let mut w = space.writer(&batch.schema(), &metrics).unwrap();
            w.write(&batch).unwrap();
            w.write(&batch.slice(0, 100)).unwrap();
            let f = w.finish().unwrap();
            let back: Vec<RecordBatch> = f.read().unwrap().collect::<Result<_>>().unwrap();
            assert_eq!(back, vec![batch.clone(), batch.slice(0, 100)]);
            let packed = f.disk * 2 < f.bytes() as u64;
            assert_eq!(packed, compresses(&batch), "{} on disk", f.disk);
        }
        // a file without batches reads back as none
        let f = space
            .writer(&random_numbers(1).schema(), &metrics)
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(f.read().unwrap().count(), 0);
        drop(f);
        drop(space);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }
}
