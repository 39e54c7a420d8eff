//! What Parquet footers say of a table's columns, without reading a row,
//! from one read of each file's footer: each column's uncompressed bytes
//! (the planner's estimate of its size in memory), its null count (the row groups' sum), minimum and maximum (over the
//! row groups' bounds), and its distinct count when the writer stored one
//! and the table is one row group (distinct counts of several groups do
//! not add up). Writers that store no statistics for a column leave it
//! unknown; `ANALYZE TABLE` computes what the footers lack.

use std::path::Path;

use arrow_array::{Array, ArrayRef};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use tenon_planner::statistics::{ColumnStats, ScalarValue, bounds};

use super::pages::converter;
use super::read::{corrupt, data_files, open};
use super::{FileFormat, IoError, format_of};

/// What the footers of a Parquet table say of its columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParquetFooters {
    /// The uncompressed bytes of each column of the files' schema (summed
    /// over the files and row groups).
    pub column_bytes: Vec<u64>,
    /// The statistics of each column of the table's schema, in its order.
    pub columns: Vec<ColumnStats>,
}

/// What the Parquet footers of `path` (a file or a directory of them) say
/// of the columns of `schema` (module docs); `None` when a file is not
/// Parquet.
///
/// # Errors
///
/// A file that cannot be read or whose footer is corrupt.
pub fn parquet_footers(
    path: &Path,
    schema: &arrow_schema::Schema,
) -> Result<Option<ParquetFooters>, IoError> {
    let files = if super::metadata::table_metadata(path)?.is_dir() {
        data_files(path, None)?
    } else {
        vec![path.to_path_buf()]
    };
    let mut columns: Vec<Option<Summary>> = vec![Some(Summary::default()); schema.fields().len()];
    let mut groups = 0usize;
    let mut column_bytes: Vec<u64> = Vec::new();
    for file in &files {
        if format_of(file) != Some(FileFormat::Parquet) {
            return Ok(None);
        }
        let meta = ArrowReaderMetadata::load(&open(file)?, ArrowReaderOptions::new())
            .map_err(|e| corrupt(file, "Parquet", e))?;
        let row_groups = meta.metadata().row_groups();
        groups += row_groups.len();
        let descr = meta.metadata().file_metadata().schema_descr();
        column_bytes.resize(column_bytes.len().max(meta.schema().fields().len()), 0);
        for group in row_groups {
            for (leaf, column) in group.columns().iter().enumerate() {
                if let Some(t) = column_bytes.get_mut(descr.get_column_root_idx(leaf)) {
                    *t += column.uncompressed_size().max(0) as u64;
                }
            }
        }
        for (field, summary) in schema.fields().iter().zip(columns.iter_mut()) {
            let Some(s) = summary else { continue };
            match converter(&meta, field) {
                Some((conv, leaf)) => {
                    let counted = (|| {
                        let mins = conv.row_group_mins(row_groups.iter()).ok()?;
                        let maxes = conv.row_group_maxes(row_groups.iter()).ok()?;
                        let nulls = conv.row_group_null_counts(row_groups.iter()).ok()?;
                        // a group without bounds (or null count) leaves the
                        // column's unknown
                        if mins.null_count() > 0 || maxes.null_count() > 0 {
                            s.bounded = false;
                        }
                        s.add_bounds(&mins, &maxes);
                        if nulls.null_count() > 0 {
                            s.nulls = None;
                        } else if let Some(n) = &mut s.nulls {
                            *n += nulls.values().iter().sum::<u64>();
                        }
                        s.distinct = row_groups
                            .iter()
                            .map(|g| g.column(leaf).statistics()?.distinct_count_opt())
                            .next()
                            .flatten();
                        Some(())
                    })();
                    if counted.is_none() {
                        *summary = None;
                    }
                }
                None => *summary = None,
            }
        }
    }
    let columns = columns
        .into_iter()
        .map(|s| s.map_or_else(ColumnStats::default, |s| s.finish(groups == 1)))
        .collect();
    Ok(Some(ParquetFooters {
        column_bytes,
        columns,
    }))
}

/// One column's footer statistics so far.
#[derive(Debug, Clone)]
struct Summary {
    nulls: Option<u64>,
    bounded: bool,
    lo: Option<ScalarValue>,
    hi: Option<ScalarValue>,
    distinct: Option<u64>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            nulls: Some(0),
            bounded: true,
            lo: None,
            hi: None,
            distinct: None,
        }
    }
}

impl Summary {
    fn add_bounds(&mut self, mins: &ArrayRef, maxes: &ArrayRef) {
        use std::cmp::Ordering::{Greater, Less};
        let lower = |new: &ScalarValue, old: &Option<ScalarValue>| {
            old.as_ref()
                .is_none_or(|o| new.partial_cmp(o) == Some(Less))
        };
        let higher = |new: &ScalarValue, old: &Option<ScalarValue>| {
            old.as_ref()
                .is_none_or(|o| new.partial_cmp(o) == Some(Greater))
        };
        if let Some((lo, _)) = bounds(mins.as_ref())
            && lower(&lo, &self.lo)
        {
            self.lo = Some(lo);
        }
        if let Some((_, hi)) = bounds(maxes.as_ref())
            && higher(&hi, &self.hi)
        {
            self.hi = Some(hi);
        }
    }

    fn finish(self, one_group: bool) -> ColumnStats {
        let bounded = self.bounded && self.lo.is_some() && self.hi.is_some();
        ColumnStats {
            null_count: self.nulls,
            min: if bounded { self.lo } else { None },
            max: if bounded { self.hi } else { None },
            distinct_count: if one_group { self.distinct } else { None },
        }
    }
}
