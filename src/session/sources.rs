//! Where a session's tables get their rows: batches held in memory, or
//! files, read while the query's scans run (a [`TableSource`] the planner's
//! scan calls with the columns it uses and its filter, see
//! [`stream_table`]), or, for tables held in memory, once and kept; and
//! the scans that read a table with their own options (docs/hints.md H40).
//!
//! # Per-scan options
//!
//! The registry is the planner's
//! [`CatalogProvider`](tenon_planner::prepare::CatalogProvider): for each
//! scan the planner asks for its source, with the scan's
//! `/*+ OPTIONS(...) */`, which are checked here against the table's format
//! (H41). The planner gives a scan with options its own entry (named
//! `table /*+ OPTIONS('k'='v', ...) */`), whose source reads the file with
//! the table's options merged with the scan's (the table's declared or
//! registered schema kept), or, for `scan.batch-size` alone, the table's
//! rows in smaller batches. Other scans of the same table read the table's
//! own source. A source is opened when the plan runs: a table held in
//! memory (`'scan.in-memory' = 'true'`, `register_file_in_memory`) is read
//! by the first run that scans it and kept (an `Arc`, not a copy), charged
//! to each run's budget; a table registered in memory is scanned as it is.
//!
//! # Time columns and change logs
//!
//! A `PROCTIME()` column is in the table's schema but in no file: the
//! files are read without it and every batch of a scan gets it, one value
//! (the time the scan starts) for all its rows. A change log
//! (`'format' = 'debezium-json'`) is read whole by each scan (the state at
//! the end of the log needs every event), as its current state or as its
//! versions (`crate::io::read_change_log`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use std::time::{SystemTime, UNIX_EPOCH};

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, TimestampMillisecondArray};
use arrow_schema::{DataType, Schema, SchemaRef};
use tenon_kernels::MemoryBudget;
use tenon_planner::exec::{
    ExecError, ScanReport, ScanRequest, Sink, TableData, TableSource, Tables, held_form,
};
use tenon_planner::hints::Position;
use tenon_planner::prepare::{BoxError, CatalogProvider, OpenedScan, ScanSource, ScanSpec};
use tenon_planner::sql::{Catalog, SqlError, TableStats, TableTime, proc_time_type};

use super::held_bytes::held_bytes;
use super::learned_stats::LearnedStats;
use crate::error::Error;
use crate::io::{
    ChangeLog, ChangeLogView, FileFormat, ReadOptions, StreamReport, exec_error, read_change_log,
    read_table_with, stream_table,
};
use crate::options::{OptionsPlace, ScanSettings, apply_dynamic_options, rereads_file};

/// A file table's rows as read once, with the rows skipped.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub(crate) data: Arc<TableData>,
    /// Rows skipped as unreadable (`csv.ignore-parse-errors`).
    pub(crate) skipped: u64,
}

/// A table whose rows come from a file or a directory of files.
#[derive(Debug)]
pub(crate) struct FileTable {
    pub(crate) path: PathBuf,
    /// Read every file as this format (`CREATE TABLE`); `None`: by
    /// extension (`register_file`).
    pub(crate) read_format: Option<FileFormat>,
    /// The format OPTIONS are checked against (`None`: a directory of
    /// several formats).
    pub(crate) format: Option<FileFormat>,
    /// The table's options.
    pub(crate) settings: ScanSettings,
    /// The table's schema: declared, or found when it was registered.
    pub(crate) schema: SchemaRef,
    /// Whether the schema was found in the files (not declared).
    inferred: bool,
    /// Whether the rows are read once and kept (`register_file_in_memory`,
    /// `CREATE TABLE`); else each query reads the columns it uses.
    pub(crate) in_memory: bool,
    /// The rows read with the table's own options, once read (tables held
    /// in memory); without the PROCTIME() column, which each run adds.
    loaded: Mutex<Option<Loaded>>,
    /// The bytes the loaded rows hold, as each query is charged them:
    /// counted once (for string views that means reading every view), not
    /// at every query's start.
    held_bytes: OnceLock<u64>,
    /// What the table's time declarations change about reading it.
    pub(crate) time: TimeRead,
    /// What full reads learned of its columns (`super::learned_stats`).
    pub(crate) learned: LearnedStats,
}

/// How a table's time declarations change its reading: a PROCTIME()
/// column that no file holds, and change logs read as versions or state.
#[derive(Debug, Default)]
pub(crate) struct TimeRead {
    /// The PROCTIME() column's index in the table's schema: every row's
    /// value is the time the scan starts.
    pub(crate) proc_time: Option<usize>,
    /// The table's files are a Debezium change log, read as this view.
    pub(crate) change_log: Option<ChangeLogRead>,
}

/// A change log's reading.
#[derive(Debug)]
pub(crate) struct ChangeLogRead {
    pub(crate) log: ChangeLog,
    pub(crate) view: ChangeLogView,
    /// The declared columns, the PROCTIME() column left out.
    pub(crate) columns: SchemaRef,
}

impl FileTable {
    /// A `CREATE TABLE` table: read by each query that scans it, or, held
    /// `in_memory` (`'scan.in-memory' = 'true'`), read on first use and kept.
    pub(crate) fn declared(
        path: PathBuf,
        format: FileFormat,
        settings: ScanSettings,
        schema: SchemaRef,
        in_memory: bool,
    ) -> Self {
        FileTable {
            path,
            read_format: Some(format),
            format: Some(format),
            settings,
            schema,
            inferred: false,
            in_memory,
            loaded: Mutex::new(None),
            held_bytes: OnceLock::new(),
            time: TimeRead::default(),
            learned: LearnedStats::default(),
        }
    }

    /// This table with a PROCTIME() column or read as a change log.
    pub(crate) fn with_time(self, time: TimeRead) -> Self {
        FileTable { time, ..self }
    }

    /// The columns the files give: the schema without the PROCTIME()
    /// column.
    fn file_schema(&self) -> SchemaRef {
        match self.time.proc_time {
            None => Arc::clone(&self.schema),
            Some(p) => {
                let fields = self
                    .schema
                    .fields()
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != p)
                    .map(|(_, f)| Arc::clone(f))
                    .collect::<Vec<_>>();
                Arc::new(Schema::new(fields))
            }
        }
    }

    /// A file registered with `register_file` (its schema found in the
    /// files): read by every query that scans it, only the columns the
    /// query uses.
    pub(crate) fn lazy(path: PathBuf, format: Option<FileFormat>, schema: SchemaRef) -> Self {
        FileTable {
            path,
            read_format: None,
            format,
            settings: ScanSettings::default(),
            schema,
            inferred: true,
            in_memory: false,
            loaded: Mutex::new(None),
            held_bytes: OnceLock::new(),
            time: TimeRead::default(),
            learned: LearnedStats::default(),
        }
    }

    /// A file registered with `register_file_in_memory`, already read.
    pub(crate) fn read_already(path: PathBuf, format: Option<FileFormat>, loaded: Loaded) -> Self {
        FileTable {
            path,
            read_format: None,
            format,
            settings: ScanSettings::default(),
            schema: Arc::clone(&loaded.data.schema),
            inferred: true,
            in_memory: true,
            loaded: Mutex::new(Some(loaded)),
            held_bytes: OnceLock::new(),
            time: TimeRead::default(),
            learned: LearnedStats::default(),
        }
    }

    /// How to read the table with `settings`, into its schema: only the
    /// table columns `projection` (all without one).
    fn read_options(
        &self,
        settings: &ScanSettings,
        batch_size: usize,
        projection: Option<Vec<usize>>,
    ) -> ReadOptions {
        ReadOptions {
            batch_size: settings.scan_batch_size.unwrap_or(batch_size),
            format: self.read_format,
            schema: Some(self.file_schema()),
            csv: settings.csv.clone(),
            parquet_batch_size: settings.parquet_batch_size,
            projection,
            inferred: self.inferred,
        }
    }

    /// Reads the whole table with `settings`, into its schema without the
    /// PROCTIME() column (a table held in memory).
    fn read(&self, settings: &ScanSettings, batch_size: usize) -> Result<Loaded, Error> {
        let size = settings.scan_batch_size.unwrap_or(batch_size).max(1);
        if let Some(c) = &self.time.change_log {
            let rows = read_change_log(&self.path, &c.columns, &c.log, c.view)?;
            let data = TableData::new(self.file_schema(), vec![rows.batch]);
            return Ok(Loaded {
                data: Arc::new(rebatch(&data, size)),
                skipped: rows.skipped,
            });
        }
        let stamp = self.learns().then(|| self.stamp()).flatten();
        let t = read_table_with(&self.path, &self.read_options(settings, batch_size, None))?;
        self.learn_whole(&t.batches, stamp);
        // Held in the compact form, but for a table with a PROCTIME()
        // column, whose batches `data_for` rebuilds in the table's schema.
        let batches = match self.time.proc_time {
            None => held_form::compact(t.batches),
            Some(_) => t.batches,
        };
        Ok(Loaded {
            data: Arc::new(TableData::new(self.file_schema(), batches)),
            skipped: t.skipped_rows,
        })
    }

    /// The rows read with the table's own options: read on the first call,
    /// then kept.
    pub(crate) fn data(&self, batch_size: usize) -> Result<Loaded, Error> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = loaded.as_ref() {
            return Ok(l.clone());
        }
        let l = self.read(&self.settings, batch_size)?;
        *loaded = Some(l.clone());
        Ok(l)
    }

    /// Whether the rows are held already.
    fn is_loaded(&self) -> bool {
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// The rows one query needs: the kept rows of a table in memory,
    /// charged to `budget` while the query runs, else a source that reads
    /// them with `settings` while the scans run.
    fn data_for(
        self: &Arc<Self>,
        settings: &ScanSettings,
        batch_size: usize,
        budget: &MemoryBudget,
    ) -> Result<Loaded, Error> {
        if !self.in_memory {
            return Ok(self.streamed(settings, true));
        }
        let l = self.data(batch_size)?;
        let (data, bytes) = match self.time.proc_time {
            None => {
                let bytes = *self.held_bytes.get_or_init(|| held_bytes(&l.data));
                (l.data, bytes)
            }
            Some(p) => {
                let now = proc_time_now();
                let batches = l
                    .data
                    .batches
                    .iter()
                    .map(|b| {
                        let positions = identity(b.num_columns(), p);
                        with_proc_columns(b, &self.schema, &positions, now)
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| Error::from(ExecError::arrow("the PROCTIME() column", e)))?;
                let data = TableData::new(Arc::clone(&self.schema), batches);
                let bytes = held_bytes(&data);
                (Arc::new(data), bytes)
            }
        };
        Ok(Loaded {
            data: charged(&data, bytes, budget)?,
            skipped: l.skipped,
        })
    }
}

impl FileTable {
    /// The table as a source its scans read with `settings` while they
    /// run (nothing is read now); `learn`: the settings are the table's
    /// own (but maybe the batch size), so a full read learns statistics.
    fn streamed(self: &Arc<Self>, settings: &ScanSettings, learn: bool) -> Loaded {
        let source = FileScan {
            file: Arc::clone(self),
            settings: settings.clone(),
            learn,
        };
        Loaded {
            data: Arc::new(TableData::from_source(
                Arc::clone(&self.schema),
                Arc::new(source),
            )),
            skipped: 0,
        }
    }
}

/// A file table read while its scans run: each scan reads the columns it
/// uses, skipping the Parquet row groups its filter cannot match.
#[derive(Debug)]
struct FileScan {
    file: Arc<FileTable>,
    /// The table's options, merged with the scan's.
    settings: ScanSettings,
    /// Whether a full read learns the table's statistics.
    learn: bool,
}

impl TableSource for FileScan {
    fn scan(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
        report: &mut ScanReport,
    ) -> Result<(), ExecError> {
        let Some(p) = self.file.time.proc_time else {
            return self.scan_files(
                request.columns,
                (request.filter, request.predicate),
                request,
                sink,
                report,
            );
        };
        // The file columns the request needs (at least one, for the row
        // count), and where each requested column comes from.
        let now = proc_time_now();
        let mut files: Vec<usize> = request
            .columns
            .iter()
            .filter(|&&c| c != p)
            .map(|&c| if c > p { c - 1 } else { c })
            .collect();
        if files.is_empty() {
            files.push(0);
        }
        let wanted: SchemaRef = Arc::new(
            self.file
                .schema
                .project(request.columns)
                .map_err(|e| ExecError::arrow("the PROCTIME() column", e))?,
        );
        let positions: Vec<Option<usize>> = request
            .columns
            .iter()
            .map(|&c| {
                (c != p).then(|| {
                    let f = if c > p { c - 1 } else { c };
                    files.iter().position(|&x| x == f).unwrap_or(0)
                })
            })
            .collect();
        let push = |batch: RecordBatch| -> Result<(), ExecError> {
            let batch = with_proc_columns(&batch, &wanted, &positions, now)
                .map_err(|e| ExecError::arrow("the PROCTIME() column", e))?;
            sink(batch)
        };
        self.scan_files(&files, (None, None), request, &push, report)
    }
}

impl FileScan {
    /// Reads the file columns `columns` into `sink` (a change log whole,
    /// other files as [`stream_table`] reads them, with the filter above
    /// the scan: what statistics can refute, and the predicate over
    /// `columns`).
    fn scan_files(
        &self,
        columns: &[usize],
        (filter, predicate): (
            Option<&tenon_planner::expr::ScanFilter>,
            Option<&tenon_planner::expr::PhysicalExpr>,
        ),
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
        report: &mut ScanReport,
    ) -> Result<(), ExecError> {
        if let Some(c) = &self.file.time.change_log {
            let rows =
                read_change_log(&self.file.path, &c.columns, &c.log, c.view).map_err(exec_error)?;
            report.skipped_rows = c.log.ignore_parse_errors.then_some(rows.skipped);
            let batch = rows
                .batch
                .project(columns)
                .map_err(|e| ExecError::arrow("a change log's scan", e))?;
            let _charge = request
                .budget
                .try_reserve("the rows of a change log", batch.get_array_memory_size())
                .map_err(ExecError::from)?;
            let size = self
                .settings
                .scan_batch_size
                .unwrap_or(request.batch_size)
                .max(1);
            let mut offset = 0;
            while offset < batch.num_rows() {
                let len = size.min(batch.num_rows() - offset);
                sink(batch.slice(offset, len))?;
                offset += len;
            }
            return Ok(());
        }
        let options =
            self.file
                .read_options(&self.settings, request.batch_size, Some(columns.to_vec()));
        let mut read = StreamReport::default();
        let result = self.file.read_learning(self.learn, columns, sink, |sink| {
            let r = stream_table(
                &self.file.path,
                &options,
                filter,
                predicate,
                request.budget,
                sink,
                &mut read,
            );
            (r, read.pruned)
        });
        report.skipped_rows = self
            .settings
            .csv
            .ignore_parse_errors
            .then_some(read.skipped_rows);
        report.row_groups = read.row_groups;
        report.pages = read.pages;
        report.late_rows = read.late_rows;
        result
    }
}

/// The value of a PROCTIME() column: now, in milliseconds since the epoch.
fn proc_time_now() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

/// The positions of [`with_proc_columns`] for a whole row: the `n` file
/// columns in order, the PROCTIME() column at `at`.
fn identity(n: usize, at: usize) -> Vec<Option<usize>> {
    let mut positions: Vec<Option<usize>> = (0..n).map(Some).collect();
    positions.insert(at, None);
    positions
}

/// A batch of `schema` from `batch`'s columns at `positions`, `None` being
/// the PROCTIME() column, every row `now`.
fn with_proc_columns(
    batch: &RecordBatch,
    schema: &SchemaRef,
    positions: &[Option<usize>],
    now: i64,
) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let rows = batch.num_rows();
    let proc: ArrayRef = Arc::new(
        TimestampMillisecondArray::from_value(now, rows).with_timezone_opt(
            match proc_time_type() {
                DataType::Timestamp(_, tz) => tz,
                _ => None,
            },
        ),
    );
    let columns = positions
        .iter()
        .map(|p| match p {
            Some(i) => Arc::clone(batch.column(*i)),
            None => Arc::clone(&proc),
        })
        .collect();
    RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
}

/// `data`, whose rows hold `bytes` ([`held_bytes`]), charged to `budget`
/// while the copy lives.
fn charged(
    data: &Arc<TableData>,
    bytes: u64,
    budget: &MemoryBudget,
) -> Result<Arc<TableData>, Error> {
    let reservation = budget
        .try_reserve("the rows of a table held in memory", bytes as usize)
        .map_err(|e| Error::from(ExecError::from(e)))?;
    let mut copy = TableData::clone(data);
    copy.charge = Some(Arc::new(reservation));
    Ok(Arc::new(copy))
}

/// A session's tables: the catalog (schemas, statistics, views), the rows
/// of those in memory, and the file tables.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub(crate) catalog: Catalog,
    /// The rows of tables in memory and of files read at registration.
    pub(crate) tables: Tables,
    /// Every table read from files.
    pub(crate) files: HashMap<String, Arc<FileTable>>,
}

impl Registry {
    /// Registers rows held in memory (replacing a table or view of that
    /// name).
    pub(crate) fn insert_data(&mut self, name: &str, mut data: TableData, stats: TableStats) {
        data.batches = held_form::compact(std::mem::take(&mut data.batches));
        self.insert_data_as_given(name, data, stats);
    }

    /// As `insert_data`, keeping the caller's buffers (no narrower copy).
    pub(crate) fn insert_data_as_given(&mut self, name: &str, data: TableData, stats: TableStats) {
        self.drop_versions_of(name);
        self.catalog.drop_view(name);
        self.catalog
            .register_table_with_stats(name, data.schema.clone(), stats);
        self.tables.insert(name.to_string(), Arc::new(data));
        self.files.remove(name);
    }

    /// Registers a file table read on first use, with statistics from the
    /// files.
    pub(crate) fn insert_lazy_file(&mut self, name: &str, file: FileTable, stats: TableStats) {
        self.insert_file_with_time(name, file, stats, TableTime::default());
    }

    /// Registers a file table read on first use, with statistics from the
    /// files and what it declares about time and versions.
    pub(crate) fn insert_file_with_time(
        &mut self,
        name: &str,
        mut file: FileTable,
        stats: TableStats,
        time: TableTime,
    ) {
        file.learned = LearnedStats::new(&stats, file.schema.fields().len());
        self.drop_versions_of(name);
        self.catalog.drop_view(name);
        self.catalog
            .register_table_with_time(name, Arc::clone(&file.schema), stats, time);
        self.tables.remove(name);
        self.files.insert(name.to_string(), Arc::new(file));
    }

    /// Removes the versions relation of the change log `name`, if it is
    /// one (before `name` is replaced: the versions go with their table).
    pub(super) fn drop_versions_of(&mut self, name: &str) {
        let versions = self
            .catalog
            .table(name)
            .and_then(|t| t.time.versions.clone());
        if let Some(v) = versions {
            self.remove_table(&v);
        }
    }

    /// Removes a table; whether there was one.
    pub(crate) fn remove_table(&mut self, name: &str) -> bool {
        let found = self.catalog.drop_table(name).is_some();
        self.tables.remove(name);
        self.files.remove(name);
        found
    }
}

/// Where the rows of one entry of a query's scans come from.
#[derive(Debug)]
enum SessionScan {
    /// Rows registered in memory, scanned as they are.
    Memory(Arc<TableData>),
    /// A file table, read with its own options.
    File(Arc<FileTable>),
    /// A scan with its own options.
    Options {
        base: Base,
        settings: ScanSettings,
        /// Whether the file is read again (else the table's rows are cut
        /// into batches of `scan.batch-size`).
        reread: bool,
    },
}

#[derive(Debug)]
enum Base {
    File(Arc<FileTable>),
    Memory(Arc<TableData>),
}

/// A session error carried through the executor's error type (turned back
/// by `From<ExecError> for Error`).
fn carried(e: Error) -> ExecError {
    ExecError::Source(Box::new(e))
}

impl ScanSource for SessionScan {
    fn lookup(&self) -> Option<Arc<dyn tenon_planner::lookup::LookupSource>> {
        match self {
            SessionScan::Memory(d)
            | SessionScan::Options {
                base: Base::Memory(d),
                ..
            } => d.lookup.clone(),
            _ => None,
        }
    }

    fn schema(&self) -> SchemaRef {
        match self {
            SessionScan::File(f)
            | SessionScan::Options {
                base: Base::File(f),
                ..
            } => Arc::clone(&f.schema),
            SessionScan::Memory(d)
            | SessionScan::Options {
                base: Base::Memory(d),
                ..
            } => Arc::clone(&d.schema),
        }
    }

    fn open(&self, batch_size: usize, budget: &MemoryBudget) -> Result<OpenedScan, ExecError> {
        let (loaded, ignores) = match self {
            SessionScan::Memory(d) => {
                return Ok(OpenedScan {
                    data: Arc::clone(d),
                    skipped_rows: None,
                });
            }
            SessionScan::File(f) => (
                f.data_for(&f.settings, batch_size, budget)
                    .map_err(carried)?,
                f.in_memory && f.settings.csv.ignore_parse_errors,
            ),
            SessionScan::Options {
                base: Base::File(f),
                settings,
                reread: true,
            } => (f.streamed(settings, false), false),
            SessionScan::Options {
                base: Base::File(f),
                settings,
                reread: false,
            } if !f.in_memory => {
                let own = ScanSettings {
                    scan_batch_size: settings.scan_batch_size,
                    ..f.settings.clone()
                };
                (f.streamed(&own, true), false)
            }
            SessionScan::Options {
                base: Base::File(f),
                settings,
                reread: false,
            } => {
                let l = f
                    .data_for(&f.settings, batch_size, budget)
                    .map_err(carried)?;
                let size = settings.scan_batch_size.unwrap_or(batch_size);
                (
                    Loaded {
                        data: Arc::new(rebatch(&l.data, size)),
                        skipped: l.skipped,
                    },
                    f.settings.csv.ignore_parse_errors,
                )
            }
            SessionScan::Options {
                base: Base::Memory(d),
                settings,
                ..
            } => {
                let size = settings.scan_batch_size.unwrap_or(batch_size);
                (
                    Loaded {
                        data: Arc::new(rebatch(d, size)),
                        skipped: 0,
                    },
                    false,
                )
            }
        };
        Ok(OpenedScan {
            data: loaded.data,
            skipped_rows: ignores.then_some(loaded.skipped),
        })
    }

    /// A table not held in memory, a scan whose OPTIONS re-read the file,
    /// or a table held in memory not read yet.
    fn reads_files(&self) -> bool {
        match self {
            SessionScan::Memory(_) => false,
            SessionScan::File(f)
            | SessionScan::Options {
                base: Base::File(f),
                reread: false,
                ..
            } => !f.in_memory || !f.is_loaded(),
            SessionScan::Options { reread, .. } => *reread,
        }
    }
}

/// The session's side of planning (module docs): its catalog, and each
/// scan's source, its OPTIONS checked against the table (H41).
impl CatalogProvider for Registry {
    fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn scan_source(&self, scan: &ScanSpec<'_>) -> Result<Arc<dyn ScanSource>, BoxError> {
        let table = scan.table;
        let (base, format, settings) = if let Some(file) = self.files.get(table) {
            (Base::File(Arc::clone(file)), file.format, &file.settings)
        } else if let Some(data) = self.tables.get(table) {
            (
                Base::Memory(Arc::clone(data)),
                None,
                &ScanSettings::default(),
            )
        } else {
            return Err(Box::new(Error::Sql(SqlError::UnknownTable {
                name: table.to_string(),
                known: self.catalog.relation_names(),
            })));
        };
        if scan.options.is_empty() {
            return Ok(Arc::new(match base {
                Base::File(f) => SessionScan::File(f),
                Base::Memory(d) => SessionScan::Memory(d),
            }));
        }
        let position = scan.position.unwrap_or(Position::new(0, 0));
        let place = OptionsPlace::Hint {
            table: table.to_string(),
            line: position.line,
            column: position.column,
        };
        let settings = apply_dynamic_options(settings, format, &place, scan.options)
            .map_err(|e| -> BoxError { Box::new(Error::from(e)) })?;
        let reread = matches!(base, Base::File(_)) && rereads_file(scan.options);
        Ok(Arc::new(SessionScan::Options {
            base,
            settings,
            reread,
        }))
    }
}

/// `data` in batches of at most `size` rows (slices, no copy).
fn rebatch(data: &TableData, size: usize) -> TableData {
    let size = size.max(1);
    let mut batches: Vec<RecordBatch> = Vec::new();
    for b in &data.batches {
        let mut offset = 0;
        while offset < b.num_rows() {
            let len = size.min(b.num_rows() - offset);
            batches.push(b.slice(offset, len));
            offset += len;
        }
    }
    TableData {
        batches,
        ..data.clone()
    }
}
