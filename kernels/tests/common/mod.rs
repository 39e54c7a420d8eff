//! Shared helpers of the hash join tests: a row model independent of the
//! kernels ([`Value`], [`Row`]), conversions between Arrow batches and rows,
//! a residual filter written twice (over Arrow arrays for the kernel, over
//! rows for the oracle), and a runner that drives the kernel through
//! `collect` or `execute` and checks every output batch. The oracle is in
//! [`reference`]; the helpers of the hand-written cases in [`cases`].
// Every test binary compiles all of `common` but uses only part of it.
#![allow(dead_code)]

pub mod cases;
pub mod merge;
pub mod reference;

use std::sync::{Arc, Mutex, Once};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    UInt32Array,
};
use arrow_schema::{DataType, Schema, SchemaRef};
use tenon_kernels::{HashJoin, JoinFilter, JoinInput, JoinKernel, KernelError};

/// One cell, as the tests see it. Every variant compares exactly (floats by
/// their bits), so a row multiset says precisely what the kernel produced;
/// key equality with SQL float rules is [`reference::key_eq`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// Any signed integer type (Int8 to Int64).
    Int(i64),
    /// Any unsigned integer type.
    UInt(u64),
    /// A Float32, by its bits.
    F32(u32),
    /// A Float64, by its bits.
    F64(u64),
    /// A Decimal128's unscaled value.
    Dec(i128),
    /// A Date32 (days since the epoch).
    Date(i32),
    /// Utf8, LargeUtf8 or Utf8View.
    Str(String),
    /// Binary, LargeBinary or BinaryView.
    Bin(Vec<u8>),
}

/// A row: one [`Value`] per column.
pub type Row = Vec<Value>;

/// Shorthand for an integer cell.
pub fn int(v: i64) -> Value {
    Value::Int(v)
}

/// Shorthand for a string cell.
pub fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

/// Shorthand for a NULL cell.
pub const NULL: Value = Value::Null;

fn cells<T>(a: &dyn Array, f: impl Fn(usize) -> T, wrap: impl Fn(T) -> Value) -> Vec<Value> {
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                Value::Null
            } else {
                wrap(f(i))
            }
        })
        .collect()
}

/// The cells of one column, written per type (no Arrow formatting).
///
/// # Panics
///
/// On a type the tests do not use.
pub fn column_values(a: &dyn Array) -> Vec<Value> {
    use DataType::*;
    match a.data_type() {
        Boolean => {
            let x = a.as_boolean();
            cells(a, |i| x.value(i), Value::Bool)
        }
        Int8 => {
            let x = a.as_primitive::<Int8Type>();
            cells(a, |i| x.value(i) as i64, Value::Int)
        }
        Int16 => {
            let x = a.as_primitive::<Int16Type>();
            cells(a, |i| x.value(i) as i64, Value::Int)
        }
        Int32 => {
            let x = a.as_primitive::<Int32Type>();
            cells(a, |i| x.value(i) as i64, Value::Int)
        }
        Int64 => {
            let x = a.as_primitive::<Int64Type>();
            cells(a, |i| x.value(i), Value::Int)
        }
        UInt8 => {
            let x = a.as_primitive::<UInt8Type>();
            cells(a, |i| x.value(i) as u64, Value::UInt)
        }
        UInt16 => {
            let x = a.as_primitive::<UInt16Type>();
            cells(a, |i| x.value(i) as u64, Value::UInt)
        }
        UInt32 => {
            let x = a.as_primitive::<UInt32Type>();
            cells(a, |i| x.value(i) as u64, Value::UInt)
        }
        UInt64 => {
            let x = a.as_primitive::<UInt64Type>();
            cells(a, |i| x.value(i), Value::UInt)
        }
        Float32 => {
            let x = a.as_primitive::<Float32Type>();
            cells(a, |i| x.value(i).to_bits(), Value::F32)
        }
        Float64 => {
            let x = a.as_primitive::<Float64Type>();
            cells(a, |i| x.value(i).to_bits(), Value::F64)
        }
        Decimal128(_, _) => {
            let x = a.as_primitive::<Decimal128Type>();
            cells(a, |i| x.value(i), Value::Dec)
        }
        Date32 => {
            let x = a.as_primitive::<Date32Type>();
            cells(a, |i| x.value(i), Value::Date)
        }
        Utf8 => {
            let x = a.as_string::<i32>();
            cells(a, |i| x.value(i).to_string(), Value::Str)
        }
        LargeUtf8 => {
            let x = a.as_string::<i64>();
            cells(a, |i| x.value(i).to_string(), Value::Str)
        }
        Utf8View => {
            let x = a.as_string_view();
            cells(a, |i| x.value(i).to_string(), Value::Str)
        }
        Binary => {
            let x = a.as_binary::<i32>();
            cells(a, |i| x.value(i).to_vec(), Value::Bin)
        }
        LargeBinary => {
            let x = a.as_binary::<i64>();
            cells(a, |i| x.value(i).to_vec(), Value::Bin)
        }
        BinaryView => {
            let x = a.as_binary_view();
            cells(a, |i| x.value(i).to_vec(), Value::Bin)
        }
        t => panic!("the tests do not read columns of type {t}"),
    }
}

/// The rows of a batch.
pub fn batch_rows(batch: &RecordBatch) -> Vec<Row> {
    let cols: Vec<Vec<Value>> = batch
        .columns()
        .iter()
        .map(|c| column_values(c.as_ref()))
        .collect();
    (0..batch.num_rows())
        .map(|r| cols.iter().map(|c| c[r].clone()).collect())
        .collect()
}

/// The rows of several batches, in order.
pub fn all_rows(batches: &[RecordBatch]) -> Vec<Row> {
    batches.iter().flat_map(batch_rows).collect()
}

/// Rows sorted, so that two multisets compare with `==`.
pub fn sorted(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort();
    rows
}

/// One column built from cells (the types the property tests generate).
///
/// # Panics
///
/// On a cell that does not fit the type.
pub fn array_from_values(dt: &DataType, vals: &[&Value]) -> ArrayRef {
    match dt {
        DataType::Int32 => Arc::new(
            vals.iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::Int(x) => Some(i32::try_from(*x).expect("an i32")),
                    v => panic!("{v:?} in an Int32 column"),
                })
                .collect::<Int32Array>(),
        ),
        DataType::Int64 => Arc::new(
            vals.iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::Int(x) => Some(*x),
                    v => panic!("{v:?} in an Int64 column"),
                })
                .collect::<Int64Array>(),
        ),
        DataType::Float64 => Arc::new(
            vals.iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::F64(x) => Some(f64::from_bits(*x)),
                    v => panic!("{v:?} in a Float64 column"),
                })
                .collect::<Float64Array>(),
        ),
        DataType::Utf8 => Arc::new(
            vals.iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::Str(x) => Some(x.as_str()),
                    v => panic!("{v:?} in a Utf8 column"),
                })
                .collect::<StringArray>(),
        ),
        t => panic!("the tests do not build columns of type {t}"),
    }
}

/// A batch of `schema` holding `rows`.
pub fn batch_from_rows(schema: &SchemaRef, rows: &[Row]) -> RecordBatch {
    let cols = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(c, f)| {
            let vals: Vec<&Value> = rows.iter().map(|r| &r[c]).collect();
            array_from_values(f.data_type(), &vals)
        })
        .collect();
    RecordBatch::try_new(schema.clone(), cols).expect("a valid batch")
}

/// Splits `rows` into batches: `sizes[i]` rows for the i-th batch (fewer
/// when rows run out; zero-row batches are kept), the rest in a last batch.
/// With `slice`, batches are slices of one batch (non-zero offsets);
/// otherwise each is built on its own.
pub fn split_batches(
    schema: &SchemaRef,
    rows: &[Row],
    sizes: &[usize],
    slice: bool,
) -> Vec<RecordBatch> {
    let whole = batch_from_rows(schema, rows);
    let mut out = Vec::new();
    let mut at = 0;
    let mut push = |start: usize, len: usize| {
        out.push(if slice {
            whole.slice(start, len)
        } else {
            batch_from_rows(schema, &rows[start..start + len])
        })
    };
    for &n in sizes {
        let n = n.min(rows.len() - at);
        push(at, n);
        at += n;
    }
    if at < rows.len() {
        push(at, rows.len() - at);
    }
    out
}

/// The test filter `left.p < right.p` over Int64 columns `lcol` (left) and
/// `rcol` (right), NULL when either side is NULL: the kernel's version, over
/// Arrow arrays.
pub fn less_than_filter(lcol: usize, rcol: usize) -> Arc<dyn JoinFilter> {
    let f = move |l: &RecordBatch,
                  r: &RecordBatch,
                  li: &UInt32Array,
                  ri: &UInt32Array|
          -> tenon_kernels::Result<BooleanArray> {
        assert_eq!(li.len(), ri.len(), "the filter got unequal index arrays");
        assert_eq!(li.null_count() + ri.null_count(), 0, "NULL filter indices");
        let lv = l.column(lcol).as_primitive::<Int64Type>();
        let rv = r.column(rcol).as_primitive::<Int64Type>();
        Ok(li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&a, &b)| {
                let (a, b) = (a as usize, b as usize);
                assert!(a < lv.len() && b < rv.len(), "filter index out of range");
                if lv.is_null(a) || rv.is_null(b) {
                    None
                } else {
                    Some(lv.value(a) < rv.value(b))
                }
            })
            .collect())
    };
    Arc::new(f)
}

/// The oracle's version of [`less_than_filter`], over rows.
pub fn less_than_rows(lcol: usize, rcol: usize) -> impl Fn(&[Value], &[Value]) -> Option<bool> {
    move |l, r| match (&l[lcol], &r[rcol]) {
        (Value::Int(a), Value::Int(b)) => Some(a < b),
        (Value::Null, _) | (_, Value::Null) => None,
        (a, b) => panic!("the test filter compares integers, got {a:?} and {b:?}"),
    }
}

/// Runs `join` with `collect`, or with `execute` reading the whole stream.
///
/// # Errors
///
/// The kernel's error (for `execute`, the first error out of the stream).
pub fn run_kernel(
    join: &HashJoin,
    left: &JoinInput,
    right: &JoinInput,
    via_stream: bool,
) -> Result<Vec<RecordBatch>, KernelError> {
    if via_stream {
        let stream = join.execute(left.clone(), right.clone())?;
        let schema = stream.schema().clone();
        let batches = stream.collect::<Result<Vec<_>, _>>()?;
        for b in &batches {
            assert_eq!(
                b.schema(),
                schema,
                "a batch differs from the stream's schema"
            );
        }
        Ok(batches)
    } else {
        join.collect(left.clone(), right.clone())
    }
}

/// Fields as (name, type, nullable), for schema comparisons that ignore
/// metadata.
pub fn field_shapes(schema: &Schema) -> Vec<(String, DataType, bool)> {
    schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
        .collect()
}

/// Checks the output batches of a join (schema, at most `batch_size` rows
/// each, every NOT NULL column free of NULLs) and returns their rows.
///
/// # Errors
///
/// A description of the first violation.
pub fn check_batches(
    batches: &[RecordBatch],
    expected: &[(String, DataType, bool)],
    batch_size: usize,
) -> Result<Vec<Row>, String> {
    for (i, b) in batches.iter().enumerate() {
        if b.num_rows() > batch_size {
            return Err(format!(
                "output batch {i} has {} rows, more than batch_size {batch_size}",
                b.num_rows()
            ));
        }
        let got = field_shapes(&b.schema());
        if got != expected {
            return Err(format!(
                "output batch {i} has schema {got:?}, expected {expected:?}"
            ));
        }
        for (c, f) in b.schema().fields().iter().enumerate() {
            if !f.is_nullable() && b.column(c).null_count() > 0 {
                return Err(format!(
                    "output batch {i} has NULLs in NOT NULL column {}",
                    f.name()
                ));
            }
        }
    }
    Ok(all_rows(batches))
}

/// A readable difference of two row multisets (empty when equal).
pub fn multiset_diff(actual: &[Row], expected: &[Row]) -> String {
    let (a, e) = (sorted(actual.to_vec()), sorted(expected.to_vec()));
    if a == e {
        return String::new();
    }
    let (mut missing, mut extra) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < e.len() {
        match (a.get(i), e.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                extra.push(x.clone());
                i += 1;
            }
            (Some(_), Some(y)) => {
                missing.push(y.clone());
                j += 1;
            }
            (Some(x), None) => {
                extra.push(x.clone());
                i += 1;
            }
            (None, Some(y)) => {
                missing.push(y.clone());
                j += 1;
            }
            (None, None) => unreachable!(),
        }
    }
    format!(
        "{} rows, expected {}; missing {missing:?}; unexpected {extra:?}",
        a.len(),
        e.len()
    )
}

static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Installs (once) a panic hook that keeps panics of the kernel's worker
/// threads (unnamed rayon threads, the stream's `tenon-join` thread) off
/// stderr, remembering the last one with its location for
/// [`last_worker_panic`]. Panics of test threads print as usual.
pub fn quiet_worker_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let name = std::thread::current().name().map(str::to_string);
            let worker = name.as_deref().is_none_or(|n| n == "tenon-join");
            if !worker {
                return default(info);
            }
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = format!("{msg} (at {at})");
        }));
    });
}

/// The last panic of a kernel worker thread, with its location.
pub fn last_worker_panic() -> String {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A panic payload as text.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}
