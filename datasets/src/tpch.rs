//! The eight TPC-H tables, generated in memory with `tpchgen` and
//! `tpchgen-arrow`.
//!
//! [`tpch_tables`] generates region, nation, supplier, customer, part,
//! partsupp, orders and lineitem at a scale factor (1.0 is the 1 GB data set:
//! 6,001,215 lineitem rows), with the column names and types tpchgen-arrow
//! gives: lower-case names with the table's prefix (`n_nationkey`,
//! `l_extendedprice`), keys and counts as Int64 (Int32 for a few small
//! numbers such as `p_size`), text as Utf8View, money as Decimal128(15, 2)
//! and dates as Date32. The data is the specification's (the same rows as
//! `dbgen`), so the official query answers hold.
//!
//! # Cost
//!
//! Every table's comment column draws from tpchgen's text pool: 300 MiB of
//! generated text, built once per process on first use (about a second in
//! a release build, several in a debug one), even for the tiniest scale. Call [`tpch_tables_cached`] rather than [`tpch_tables`] wherever
//! the same scale may be asked for twice (tests above all): it generates each
//! scale once per process. The pool itself stays in memory until the process
//! ends.
//!
//! ```no_run
//! use tenon_datasets::tpch::tpch_tables_cached;
//!
//! let tables = tpch_tables_cached(0.01);
//! let (name, batches) = &tables[1];
//! assert_eq!(*name, "nation");
//! assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 25);
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::RecordBatch;
use rayon::prelude::*;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};
use tpchgen_arrow::{
    CustomerArrow, LineItemArrow, NationArrow, OrderArrow, PartArrow, PartSuppArrow, RegionArrow,
    SupplierArrow,
};

/// The TPC-H tables' names, in the order [`tpch_tables`] returns them.
pub const TPCH_TABLE_NAMES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

/// The number of rows in each generated batch (the last batch of each
/// generated part of a table may be shorter).
pub const TPCH_BATCH_SIZE: usize = 8192;

/// About how many rows one parallel generation task produces.
const ROWS_PER_TASK: f64 = 262_144.0;

/// A table's generation unit: the rows per scale factor 1 of the generator
/// that parts are counted in, and the table rows per unit (partsupp has 4
/// rows per part, lineitem 1 to 7 per order, 4 on average).
fn units(table: usize) -> (f64, f64) {
    match TPCH_TABLE_NAMES[table] {
        "supplier" => (10_000.0, 1.0),
        "customer" => (150_000.0, 1.0),
        "part" => (200_000.0, 1.0),
        "partsupp" => (200_000.0, 4.0),
        "orders" => (1_500_000.0, 1.0),
        "lineitem" => (1_500_000.0, 4.0),
        _ => (1.0, 25.0), // region and nation: fixed, tiny
    }
}

/// Into how many parts a table is generated at `scale`: about
/// [`ROWS_PER_TASK`] rows each, at most one part per generation unit.
fn part_count(table: usize, scale: f64) -> i32 {
    let (base, per_unit) = units(table);
    let unit_rows = (base * scale).floor().max(1.0);
    let parts = (unit_rows * per_unit / ROWS_PER_TASK).ceil();
    parts.clamp(1.0, unit_rows.min(4096.0)) as i32
}

/// Generates part `part` (1-based) of `part_count` of table `table`.
fn generate_part(table: usize, scale: f64, part: i32, parts: i32) -> Vec<RecordBatch> {
    fn collect<E: std::fmt::Debug>(
        it: impl Iterator<Item = Result<RecordBatch, E>>,
    ) -> Vec<RecordBatch> {
        it.map(|b| b.expect("tpchgen-arrow builds valid batches"))
            .collect()
    }
    let b = TPCH_BATCH_SIZE;
    match TPCH_TABLE_NAMES[table] {
        "region" => {
            collect(RegionArrow::new(RegionGenerator::new(scale, part, parts)).with_batch_size(b))
        }
        "nation" => {
            collect(NationArrow::new(NationGenerator::new(scale, part, parts)).with_batch_size(b))
        }
        "supplier" => collect(
            SupplierArrow::new(SupplierGenerator::new(scale, part, parts)).with_batch_size(b),
        ),
        "customer" => collect(
            CustomerArrow::new(CustomerGenerator::new(scale, part, parts)).with_batch_size(b),
        ),
        "part" => {
            collect(PartArrow::new(PartGenerator::new(scale, part, parts)).with_batch_size(b))
        }
        "partsupp" => collect(
            PartSuppArrow::new(PartSuppGenerator::new(scale, part, parts)).with_batch_size(b),
        ),
        "orders" => {
            collect(OrderArrow::new(OrderGenerator::new(scale, part, parts)).with_batch_size(b))
        }
        "lineitem" => collect(
            LineItemArrow::new(LineItemGenerator::new(scale, part, parts)).with_batch_size(b),
        ),
        other => unreachable!("no TPC-H table {other}"),
    }
}

/// An empty batch of table `table`'s schema.
fn empty(table: usize) -> RecordBatch {
    let schema = match TPCH_TABLE_NAMES[table] {
        "region" => RegionArrow::schema_ref(),
        "nation" => NationArrow::schema_ref(),
        "supplier" => SupplierArrow::schema_ref(),
        "customer" => CustomerArrow::schema_ref(),
        "part" => PartArrow::schema_ref(),
        "partsupp" => PartSuppArrow::schema_ref(),
        "orders" => OrderArrow::schema_ref(),
        _ => LineItemArrow::schema_ref(),
    };
    RecordBatch::new_empty(schema)
}

/// Generates the eight TPC-H tables at scale factor `scale`, in the order of
/// [`TPCH_TABLE_NAMES`] (region, nation, supplier, customer, part, partsupp,
/// orders, lineitem), each as batches of at most [`TPCH_BATCH_SIZE`] rows.
///
/// Every table has at least one batch (an empty one if a tiny scale gives
/// it no rows), so `batches[0].schema()` is always its schema. Region (5
/// rows) and nation (25) do not depend on the scale.
///
/// The tables, and the large ones in parts of about 256 Ki rows, are
/// generated in parallel on rayon's pool; the result does not depend on the
/// number of threads. The first call in a process also builds tpchgen's text
/// pool (see the [module docs](self)): prefer [`tpch_tables_cached`].
///
/// # Panics
///
/// If `scale` is not a finite number greater than 0.
pub fn tpch_tables(scale: f64) -> Vec<(&'static str, Vec<RecordBatch>)> {
    assert!(
        scale.is_finite() && scale > 0.0,
        "the TPC-H scale factor must be a number greater than 0, not {scale}"
    );
    let tasks: Vec<(usize, i32, i32)> = (0..TPCH_TABLE_NAMES.len())
        .flat_map(|t| {
            let parts = part_count(t, scale);
            (1..=parts).map(move |p| (t, p, parts))
        })
        .collect();
    // Largest tables first, so that the small ones fill the gaps at the end.
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.reverse();
    let mut generated: Vec<(usize, Vec<RecordBatch>)> = order
        .into_par_iter()
        .map(|i| {
            let (t, p, parts) = tasks[i];
            (i, generate_part(t, scale, p, parts))
        })
        .collect();
    generated.sort_by_key(|(i, _)| *i);
    let mut tables: Vec<(&'static str, Vec<RecordBatch>)> = TPCH_TABLE_NAMES
        .iter()
        .map(|&name| (name, Vec::new()))
        .collect();
    for (i, batches) in generated {
        let (t, _, _) = tasks[i];
        tables[t]
            .1
            .extend(batches.into_iter().filter(|b| b.num_rows() > 0));
    }
    for (t, (_, batches)) in tables.iter_mut().enumerate() {
        if batches.is_empty() {
            batches.push(empty(t));
        }
    }
    tables
}

type Generated = Arc<OnceLock<Vec<(&'static str, Vec<RecordBatch>)>>>;

/// The scales generated so far in this process, by the bits of the scale.
static CACHE: Mutex<Option<HashMap<u64, Generated>>> = Mutex::new(None);

/// [`tpch_tables`], generated once per scale per process and shared.
///
/// The first call for a scale generates the tables (concurrent callers for
/// the same scale wait for it, other scales generate alongside); later calls
/// return the same batches (cloning a batch clones only references). The
/// tables stay in memory until the process ends, so keep large scales out
/// of long-lived processes that do not need them again.
///
/// # Panics
///
/// As [`tpch_tables`].
pub fn tpch_tables_cached(scale: f64) -> Vec<(&'static str, Vec<RecordBatch>)> {
    let slot: Generated = {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get_or_insert_with(HashMap::new)
            .entry(scale.to_bits())
            .or_default()
            .clone()
    };
    slot.get_or_init(|| tpch_tables(scale)).clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::DataType;

    fn rows(batches: &[RecordBatch]) -> usize {
        batches.iter().map(|b| b.num_rows()).sum()
    }

    #[test]
    fn row_counts_types_and_cache_at_scale_0_01() {
        let tables = tpch_tables_cached(0.01);
        let names: Vec<&str> = tables.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, TPCH_TABLE_NAMES);
        let counts: Vec<usize> = tables.iter().map(|(_, b)| rows(b)).collect();
        // region, nation, supplier, customer, part, partsupp, orders: exact
        // by the specification; lineitem: dbgen's count at SF 0.01.
        assert_eq!(counts, [5, 25, 100, 1_500, 2_000, 8_000, 15_000, 60_175]);
        for (name, batches) in &tables {
            let schema = batches[0].schema();
            for b in batches {
                assert_eq!(b.schema(), schema, "{name}");
                assert!(b.num_rows() <= TPCH_BATCH_SIZE && b.num_rows() > 0);
            }
        }
        let nation = tables[1].1[0].schema();
        assert_eq!(nation.field(0).name(), "n_nationkey");
        assert_eq!(nation.field(0).data_type(), &DataType::Int64);
        assert_eq!(nation.field(1).data_type(), &DataType::Utf8View);
        let lineitem = tables[7].1[0].schema();
        assert_eq!(
            lineitem
                .field_with_name("l_extendedprice")
                .unwrap()
                .data_type(),
            &DataType::Decimal128(15, 2)
        );
        assert_eq!(
            lineitem.field_with_name("l_shipdate").unwrap().data_type(),
            &DataType::Date32
        );
        // The cache hands out the same buffers.
        let again = tpch_tables_cached(0.01);
        assert_eq!(again.len(), 8);
        assert!(Arc::ptr_eq(
            again[7].1[0].column(0),
            tables[7].1[0].column(0)
        ));
    }

    #[test]
    fn parts_concatenate_to_the_whole_table() {
        // Orders at SF 0.01 in 3 parts equal one part (the data does not
        // depend on how generation is split). Orders has few tasks at this
        // scale, so force the split by hand.
        let whole = generate_part(6, 0.01, 1, 1);
        let parts: Vec<RecordBatch> = (1..=3).flat_map(|p| generate_part(6, 0.01, p, 3)).collect();
        let key = |bs: &[RecordBatch]| -> Vec<i64> {
            bs.iter()
                .flat_map(|b| {
                    b.column(0)
                        .as_any()
                        .downcast_ref::<arrow_array::Int64Array>()
                        .unwrap()
                        .values()
                        .to_vec()
                })
                .collect()
        };
        assert_eq!(key(&whole), key(&parts));
        assert_eq!(rows(&whole), 15_000);
    }

    #[test]
    fn part_counts() {
        assert_eq!(part_count(0, 0.01), 1);
        assert_eq!(part_count(7, 0.01), 1);
        assert_eq!(part_count(7, 1.0), 23);
        assert_eq!(part_count(2, 0.0001), 1);
    }
}
