//! Where a session's tables get their rows: batches held in memory, or
//! files, read while the query's scans run (a [`TableSource`] the planner's
//! scan calls with the columns it uses and its filter, see
//! [`stream_table`]), or, for tables held in memory, once and kept; and
//! the scans that read a table with their own options (HINTS.md H40).
//!
//! # Per-scan options
//!
//! A query's plan names each scan's data by a name the executor looks up
//! in [`Tables`]. A scan with `/*+ OPTIONS(...) */` gets its own entry: the
//! planner's [`ScanOptions`](tenon_planner::choose::ScanOptions) are checked
//! against the table's format (H41), the `TableScan` at that path is
//! renamed to `table /*+ OPTIONS('k'='v', ...) */` (the schema and
//! everything above stay as planned), and when the query runs that entry
//! is filled: a source reading the file with the table's options merged
//! with the scan's (the table's declared or registered schema kept), or,
//! for `scan.batch-size` alone, the table's rows in smaller batches. Other
//! scans of the same table keep the table's own entry. A table held in
//! memory (`'scan.in-memory' = 'true'`, `register_file_in_memory`) is read
//! by the first query that scans it and kept (an `Arc`, not a copy). A
//! query without OPTIONS that reads no file table has no entries at all
//! and runs on the session's tables as they are: nothing is copied or
//! read.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use tenon_planner::choose::JoinPlan;
use tenon_planner::exec::{
    ExecError, Operator, PhysicalPlan, ScanReport, ScanRequest, Sink, TableData, TableSource,
    Tables,
};
use tenon_planner::kernels::MemoryBudget;
use tenon_planner::sql::{Catalog, SqlError, TableStats};

use crate::error::Error;
use crate::io::{FileFormat, ReadOptions, StreamReport, read_table_with, stream_table};
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
    read_format: Option<FileFormat>,
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
    /// in memory).
    loaded: Mutex<Option<Loaded>>,
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
            schema: Some(Arc::clone(&self.schema)),
            csv: settings.csv.clone(),
            parquet_batch_size: settings.parquet_batch_size,
            projection,
            inferred: self.inferred,
        }
    }

    /// Reads the whole table with `settings`, into its schema (a table held
    /// in memory).
    fn read(&self, settings: &ScanSettings, batch_size: usize) -> Result<Loaded, Error> {
        let t = read_table_with(&self.path, &self.read_options(settings, batch_size, None))?;
        Ok(Loaded {
            data: Arc::new(TableData::new(Arc::clone(&self.schema), t.batches)),
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
            return Ok(self.streamed(settings));
        }
        let l = self.data(batch_size)?;
        Ok(Loaded {
            data: charged(&l.data, budget)?,
            skipped: l.skipped,
        })
    }
}

impl FileTable {
    /// The table as a source its scans read with `settings` while they
    /// run (nothing is read now).
    fn streamed(self: &Arc<Self>, settings: &ScanSettings) -> Loaded {
        let source = FileScan {
            file: Arc::clone(self),
            settings: settings.clone(),
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
}

impl TableSource for FileScan {
    fn scan(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
        report: &mut ScanReport,
    ) -> Result<(), ExecError> {
        let options = self.file.read_options(
            &self.settings,
            request.batch_size,
            Some(request.columns.to_vec()),
        );
        let mut read = StreamReport::default();
        let result = stream_table(
            &self.file.path,
            &options,
            request.filter,
            request.budget,
            sink,
            &mut read,
        );
        report.skipped_rows = self
            .settings
            .csv
            .ignore_parse_errors
            .then_some(read.skipped_rows);
        report.row_groups = read.row_groups;
        result
    }
}

/// `data` with its bytes charged to `budget` while the copy lives.
fn charged(data: &Arc<TableData>, budget: &MemoryBudget) -> Result<Arc<TableData>, Error> {
    let bytes: u64 = data
        .batches
        .iter()
        .flat_map(|b| b.columns().iter().map(value_bytes))
        .sum();
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
    pub(crate) fn insert_data(&mut self, name: &str, data: TableData) {
        let stats = stats_of(&data);
        self.catalog.drop_view(name);
        self.catalog
            .register_table_with_stats(name, data.schema.clone(), stats);
        self.tables.insert(name.to_string(), Arc::new(data));
        self.files.remove(name);
    }

    /// Registers a file table read on first use, with statistics from the
    /// files.
    pub(crate) fn insert_lazy_file(&mut self, name: &str, file: FileTable, stats: TableStats) {
        self.catalog.drop_view(name);
        self.catalog
            .register_table_with_stats(name, Arc::clone(&file.schema), stats);
        self.tables.remove(name);
        self.files.insert(name.to_string(), Arc::new(file));
    }

    /// Removes a table; whether there was one.
    pub(crate) fn remove_table(&mut self, name: &str) -> bool {
        let found = self.catalog.drop_table(name).is_some();
        self.tables.remove(name);
        self.files.remove(name);
        found
    }
}

/// The statistics of rows in memory: their count and bytes per column.
pub(crate) fn stats_of(data: &TableData) -> TableStats {
    let column_bytes: Vec<u64> = (0..data.schema.fields().len())
        .map(|c| data.batches.iter().map(|b| value_bytes(b.column(c))).sum())
        .collect();
    TableStats {
        row_count: Some(data.num_rows() as u64),
        byte_size: Some(column_bytes.iter().sum()),
        sorted_on: Vec::new(),
        column_bytes,
    }
}

/// Where one entry of a query's tables comes from.
#[derive(Debug)]
enum ScanSource {
    /// A file table not held in memory, read with its own options.
    Registered(Arc<FileTable>),
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

/// The entries a query needs beyond the session's tables in memory (module
/// docs); empty for most queries.
#[derive(Debug, Default)]
pub(crate) struct ScanSources {
    entries: Vec<(String, ScanSource)>,
}

/// The entry name of a scan with options: `t /*+ OPTIONS('k'='v') */`.
fn entry_name(table: &str, options: &[(String, String)]) -> String {
    let pairs: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("'{}'='{}'", k.replace('\'', "''"), v.replace('\'', "''")))
        .collect();
    format!("{table} /*+ OPTIONS({}) */", pairs.join(", "))
}

/// Checks the query's OPTIONS against its tables (H41), gives each scan with
/// options its own entry (renaming its `TableScan` in `joins`), and lists
/// the file tables not in memory it reads.
///
/// # Errors
///
/// [`Error::Options`] for an unknown key or a bad value.
pub(crate) fn plan_sources(
    joins: &mut JoinPlan,
    registry: &Registry,
) -> Result<ScanSources, Error> {
    let mut sources = ScanSources::default();
    for scan in joins.scan_options.clone() {
        let place = OptionsPlace::Hint {
            table: scan.table.clone(),
            line: scan.position.line,
            column: scan.position.column,
        };
        let (base, format, settings) = if let Some(file) = registry.files.get(&scan.table) {
            (Base::File(Arc::clone(file)), file.format, &file.settings)
        } else if let Some(data) = registry.tables.get(&scan.table) {
            (
                Base::Memory(Arc::clone(data)),
                None,
                &ScanSettings::default(),
            )
        } else {
            return Err(Error::Sql(SqlError::UnknownTable {
                name: scan.table.clone(),
                known: registry.catalog.relation_names(),
            }));
        };
        let settings = apply_dynamic_options(settings, format, &place, &scan.options)?;
        let reread = matches!(base, Base::File(_)) && rereads_file(&scan.options);
        let key = entry_name(&scan.table, &scan.options);
        let path = scan.path.clone();
        joins.rename_scan(&path, &key)?;
        if !sources.entries.iter().any(|(k, _)| *k == key) {
            sources.entries.push((
                key,
                ScanSource::Options {
                    base,
                    settings,
                    reread,
                },
            ));
        }
    }
    // file tables (never in `tables`): their scans need an entry
    if registry.files.is_empty() {
        return Ok(sources);
    }
    for name in joins.scanned_tables() {
        if registry.tables.contains_key(&name) {
            continue;
        }
        if let Some(file) = registry.files.get(&name) {
            sources
                .entries
                .push((name, ScanSource::Registered(Arc::clone(file))));
        }
    }
    Ok(sources)
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

impl ScanSources {
    /// Whether the query runs on the session's tables as they are.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether running the query reads files (a table not held in memory,
    /// a scan whose OPTIONS re-read the file, or a table held in memory
    /// not read yet).
    pub(crate) fn reads_files(&self) -> bool {
        self.entries.iter().any(|(_, source)| match source {
            ScanSource::Registered(f)
            | ScanSource::Options {
                base: Base::File(f),
                reread: false,
                ..
            } => !f.in_memory || !f.is_loaded(),
            ScanSource::Options { reread, .. } => *reread,
        })
    }

    /// The tables to lower the plan against: every entry present with its
    /// schema (its rows are read when the query runs).
    pub(crate) fn lowering_tables(&self, tables: &Tables) -> Tables {
        let mut out = tables.clone();
        for (key, source) in &self.entries {
            let schema = match source {
                ScanSource::Registered(f)
                | ScanSource::Options {
                    base: Base::File(f),
                    ..
                } => Arc::clone(&f.schema),
                ScanSource::Options {
                    base: Base::Memory(d),
                    ..
                } => Arc::clone(&d.schema),
            };
            out.insert(key.clone(), Arc::new(TableData::new(schema, Vec::new())));
        }
        out
    }

    /// The tables to run the plan on: the session's, and every entry read.
    /// Scans whose rows were read with `csv.ignore-parse-errors` get the
    /// number of rows skipped in their metrics (EXPLAIN ANALYZE).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when a file cannot be read (or, without
    /// `csv.ignore-parse-errors`, holds a value that does not fit).
    pub(crate) fn materialize(
        &self,
        tables: &Tables,
        batch_size: usize,
        plan: &PhysicalPlan,
    ) -> Result<Tables, Error> {
        let mut out = tables.clone();
        let mut skipped: HashMap<&str, u64> = HashMap::new();
        let budget = &plan.budget;
        for (key, source) in &self.entries {
            let (loaded, ignores) = match source {
                ScanSource::Registered(f) => (
                    f.data_for(&f.settings, batch_size, budget)?,
                    f.in_memory && f.settings.csv.ignore_parse_errors,
                ),
                ScanSource::Options {
                    base: Base::File(f),
                    settings,
                    reread: true,
                } => (f.streamed(settings), false),
                ScanSource::Options {
                    base: Base::File(f),
                    settings,
                    reread: false,
                } if !f.in_memory => {
                    let own = ScanSettings {
                        scan_batch_size: settings.scan_batch_size,
                        ..f.settings.clone()
                    };
                    (f.streamed(&own), false)
                }
                ScanSource::Options {
                    base: Base::File(f),
                    settings,
                    reread: false,
                } => {
                    let l = f.data_for(&f.settings, batch_size, budget)?;
                    let size = settings.scan_batch_size.unwrap_or(batch_size);
                    (
                        Loaded {
                            data: Arc::new(rebatch(&l.data, size)),
                            skipped: l.skipped,
                        },
                        f.settings.csv.ignore_parse_errors,
                    )
                }
                ScanSource::Options {
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
            if ignores {
                skipped.insert(key.as_str(), loaded.skipped);
            }
            out.insert(key.clone(), loaded.data);
        }
        if !skipped.is_empty() {
            note_skipped(plan, &skipped);
        }
        Ok(out)
    }
}

/// Sets the skipped-row count of the scans of `skipped`'s entries.
fn note_skipped(plan: &PhysicalPlan, skipped: &HashMap<&str, u64>) {
    if let Operator::Scan { table, .. } = &plan.operator
        && let Some(&n) = skipped.get(table.as_str())
    {
        let _ = plan.metrics.skipped_rows.set(n);
    }
    for child in plan.children() {
        note_skipped(child, skipped);
    }
}

/// The bytes `column`'s rows hold: for string and binary views, the views
/// and the out-of-line values they point to (not the whole buffers, which
/// the batches of a Parquet file share: counting those per batch made
/// TPC-H's `customer` look three times its size); for other types, the
/// memory of the rows the array covers.
fn value_bytes(column: &ArrayRef) -> u64 {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    let views = |lengths: &mut dyn Iterator<Item = u32>, n: usize| -> u64 {
        16 * n as u64 + lengths.filter(|&len| len > 12).map(u64::from).sum::<u64>()
    };
    match column.data_type() {
        DataType::Utf8View => {
            let a = column.as_string_view();
            views(&mut a.views().iter().map(|v| *v as u32), a.len())
        }
        DataType::BinaryView => {
            let a = column.as_binary_view();
            views(&mut a.views().iter().map(|v| *v as u32), a.len())
        }
        _ => column
            .to_data()
            .get_slice_memory_size()
            .unwrap_or_else(|_| column.get_array_memory_size()) as u64,
    }
}
