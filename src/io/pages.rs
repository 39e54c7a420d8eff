//! Page-level pruning of a Parquet row group: with the file's page index
//! (column index: each data page's minimum, maximum and NULL count;
//! offset index: where each page starts, in rows), the pages of a filter
//! column whose statistics prove that the filter above the scan keeps
//! none of their rows become rows the scan never decodes.
//!
//! The refutation is [`ScanFilter::skippable`]'s, the same that skips row
//! groups, applied to one column's pages at a time (the columns' pages do
//! not line up, so each column's refuted pages are turned into row ranges
//! and the ranges of every column are united: a row is left out when any
//! conjunct of the filter refutes its page). The rows left are a
//! [`RowSelection`]; the reader then skips the pages no selected row lies
//! in without decompressing them (through the offset index), and decodes
//! only the selected rows of the others.
//!
//! A file without a page index (or a column chunk without one) is read by
//! row groups only, as before.

use arrow_array::UInt64Array;
use arrow_schema::Schema;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, RowSelection, RowSelector};
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use tenon_planner::expr::{ColumnStatistics, ScanFilter};

/// What the page index says about one row group.
#[derive(Debug, Clone)]
pub(super) struct PagePlan {
    /// The rows to decode (`None`: all of them).
    pub(super) selection: Option<RowSelection>,
    /// Whether the page index proves that the filter keeps no row.
    pub(super) empty: bool,
    /// Data pages of the columns read that hold a selected row.
    pub(super) pages_read: u64,
    /// Data pages of the columns read.
    pub(super) pages: u64,
}

/// The first row of each page of one column chunk, and the row group's
/// row count after the last: page `p` holds rows `starts[p]..starts[p+1]`.
fn page_bounds(index: &OffsetIndexMetaData, rows: u64) -> Vec<u64> {
    let mut bounds: Vec<u64> = index
        .page_locations()
        .iter()
        .map(|p| (p.first_row_index.max(0) as u64).min(rows))
        .collect();
    bounds.push(rows);
    bounds
}

/// The data pages of the columns `mask` reads in row group `group`, when
/// the file has an offset index.
pub(super) fn pages_in(
    meta: &ArrowReaderMetadata,
    group: usize,
    mask: &ProjectionMask,
) -> Option<u64> {
    let chunks = meta.metadata().offset_index()?.get(group)?;
    Some(
        chunks
            .iter()
            .enumerate()
            .filter(|(leaf, _)| mask.leaf_included(*leaf))
            .map(|(_, c)| c.page_locations().len() as u64)
            .sum(),
    )
}

/// Row group `group`'s pages: those of the columns `mask` reads, and the
/// rows `filter` can keep by the pages' statistics (`schema`: the table's
/// columns, which the filter's columns index). `None` when the file has
/// no offset index.
pub(super) fn plan_pages(
    meta: &ArrowReaderMetadata,
    group: usize,
    filter: Option<&ScanFilter>,
    schema: &Schema,
    mask: &ProjectionMask,
) -> Option<PagePlan> {
    let offsets = meta.metadata().offset_index()?;
    let chunks = offsets.get(group)?;
    let rows = meta.metadata().row_groups().get(group)?.num_rows().max(0) as u64;
    let mut skipped: Vec<(u64, u64)> = Vec::new();
    if let (Some(filter), Some(columns)) = (filter, meta.metadata().column_index()) {
        for c in filter.columns() {
            let Some(field) = schema.fields().get(c) else {
                continue;
            };
            let Some((converter, leaf)) = converter(meta, field) else {
                continue;
            };
            let Some(chunk) = chunks.get(leaf) else {
                continue;
            };
            if columns.get(group).and_then(|g| g.get(leaf)).is_none() {
                continue;
            }
            let bounds = page_bounds(chunk, rows);
            let n = bounds.len() - 1;
            if n == 0 {
                continue;
            }
            let groups = [group];
            let (Ok(mins), Ok(maxes), Ok(nulls)) = (
                converter.data_page_mins(columns, offsets, &groups),
                converter.data_page_maxes(columns, offsets, &groups),
                converter.data_page_null_counts(columns, offsets, &groups),
            ) else {
                continue;
            };
            let nulls: &UInt64Array = &nulls;
            let stats = ColumnStatistics {
                mins,
                maxes,
                null_counts: nulls.iter().collect(),
                row_counts: bounds.windows(2).map(|w| w[1] - w[0]).collect(),
            };
            // `skippable` checks that every array has one entry a page.
            let skip = filter.skippable(n, &|col| (col == c).then(|| stats.clone()));
            for (p, &s) in skip.iter().enumerate() {
                if s && bounds[p] < bounds[p + 1] {
                    skipped.push((bounds[p], bounds[p + 1]));
                }
            }
        }
    }
    let skipped = merge(skipped);
    let empty = rows > 0 && skipped.first() == Some(&(0, rows));
    let mut pages = 0u64;
    let mut pages_read = 0u64;
    for (leaf, chunk) in chunks.iter().enumerate() {
        if !mask.leaf_included(leaf) {
            continue;
        }
        let bounds = page_bounds(chunk, rows);
        for w in bounds.windows(2) {
            pages += 1;
            if !empty && !covered(&skipped, w[0], w[1]) {
                pages_read += 1;
            }
        }
    }
    let selection = (!skipped.is_empty() && !empty).then(|| selection(&skipped, rows));
    Some(PagePlan {
        selection,
        empty,
        pages_read,
        pages,
    })
}

/// The statistics converter of the file's column named as table column
/// `field` (exactly, else ignoring case), when it has the column's type,
/// with the column's leaf in the file.
pub(super) fn converter<'a>(
    meta: &'a ArrowReaderMetadata,
    field: &arrow_schema::Field,
) -> Option<(StatisticsConverter<'a>, usize)> {
    let schema: &Schema = meta.schema();
    let name = field.name();
    let found = schema
        .fields()
        .iter()
        .find(|f| f.name() == name)
        .or_else(|| {
            schema
                .fields()
                .iter()
                .find(|f| f.name().eq_ignore_ascii_case(name))
        })?;
    if found.data_type() != field.data_type() {
        return None;
    }
    let converter = StatisticsConverter::try_new(found.name(), schema, meta.parquet_schema())
        .ok()?
        .with_missing_null_counts_as_zero(false);
    let leaf = converter.parquet_column_index()?;
    Some((converter, leaf))
}

/// Row ranges sorted, overlapping and touching ones joined.
fn merge(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Whether rows `start..end` lie within one of the merged ranges `skipped`
/// (an empty page is never counted as read).
fn covered(skipped: &[(u64, u64)], start: u64, end: u64) -> bool {
    if start >= end {
        return true;
    }
    let i = skipped.partition_point(|r| r.1 <= start);
    skipped.get(i).is_some_and(|r| r.0 <= start && end <= r.1)
}

/// The rows of `0..rows` outside the merged ranges `skipped`.
fn selection(skipped: &[(u64, u64)], rows: u64) -> RowSelection {
    let mut selectors = Vec::with_capacity(2 * skipped.len() + 1);
    let mut at = 0u64;
    for &(start, end) in skipped {
        if start > at {
            selectors.push(RowSelector::select((start - at) as usize));
        }
        if end > start {
            selectors.push(RowSelector::skip((end - start) as usize));
        }
        at = at.max(end);
    }
    if rows > at {
        selectors.push(RowSelector::select((rows - at) as usize));
    }
    RowSelection::from(selectors)
}

/// The row of a row group (counted from its first, 0) that is the `k`-th
/// of the rows `selection` selects (`None`: every row is selected).
pub(super) fn selected_row(selection: Option<&RowSelection>, k: u64) -> u64 {
    let Some(selection) = selection else {
        return k;
    };
    let mut row = 0u64;
    let mut left = k;
    for s in selection.iter() {
        let n = s.row_count as u64;
        if s.skip {
            row += n;
        } else if left < n {
            return row + left;
        } else {
            left -= n;
            row += n;
        }
    }
    row + left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_select_the_rest() {
        let m = merge(vec![(10, 20), (0, 5), (5, 7), (15, 30), (40, 41)]);
        assert_eq!(m, [(0, 7), (10, 30), (40, 41)]);
        assert!(covered(&m, 12, 30));
        assert!(!covered(&m, 6, 12));
        assert!(!covered(&m, 30, 40));
        let s = selection(&m, 50);
        // rows 7..10, 30..40 and 41..50
        assert_eq!(s.row_count(), 3 + 10 + 9);
        assert_eq!(selected_row(Some(&s), 0), 7);
        assert_eq!(selected_row(Some(&s), 3), 30);
        assert_eq!(selected_row(Some(&s), 12), 39);
        assert_eq!(selected_row(Some(&s), 13), 41);
        assert_eq!(selected_row(None, 17), 17);
    }
}
