//! The accumulation of a [`JoinAggregate`](super::JoinAggregate): a
//! [`PairSink`] whose workers (one per kernel thread) hold one running
//! state per call, fed chunk by chunk with the join's matched pairs.
//!
//! Per chunk and call, the column is read at the chunk's rows of its side:
//! a fixed-width column without NULLs is a branch-free gather-add over the
//! index slice (an index beyond the column is clamped and flagged, and the
//! flag checked once per chunk, so the loop has no bounds branch); with
//! NULLs the validity bit is tested per row. Probe rows of a partitioned
//! join are global rows of several batches, located row by row. At the end
//! each worker's state becomes one-row arrays in the regular accumulators'
//! state layout ([`HashAggregate::merge_states`](crate::exec::HashAggregate)).

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, Decimal128Array, Float64Array, Int64Array, PrimitiveArray,
    UInt64Array, new_null_array,
};
use arrow_schema::DataType;

use crate::exec::aggregate::Func;
use crate::exec::{ExecError, Result};
use crate::expr::ExprError;
use tenon_kernels::{JoinSide, KernelError, PairChunk, PairSink, PairWorker};

/// How one call accumulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallKind {
    /// `count(*)`: the pairs.
    Rows,
    /// `count(col)`: non-NULL values.
    Count,
    /// `sum` of signed integers, exact in 128 bits, into Int64.
    SumInt,
    /// `sum` of unsigned integers, exact in 128 bits, into UInt64.
    SumUInt,
    /// `sum` of floats in Float64.
    SumFloat,
    /// `sum` of Decimal128 values, overflow flagged.
    SumDecimal,
    /// `avg` of integers or floats: a Float64 sum and a count.
    AvgFloat,
    /// `avg` of Decimal128 values: a Decimal128 sum and a count.
    AvgDecimal,
    /// `min` of a number or decimal.
    Min,
    /// `max` of a number or decimal.
    Max,
}

/// The numeric types the fused calls read (Decimal128 included).
fn numeric(t: &DataType) -> bool {
    use DataType as D;
    matches!(
        t,
        D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Float32
            | D::Float64
            | D::Decimal128(..)
    )
}

impl CallKind {
    /// The kind of `func` over a column of `data_type` whose values the
    /// regular aggregate casts to `input` and sums into `produces`; `None`
    /// when the fusion does not take it.
    pub(super) fn of(
        func: Func,
        data_type: &DataType,
        input: &DataType,
        produces: &DataType,
    ) -> Option<Self> {
        use DataType as D;
        let signed = matches!(data_type, D::Int8 | D::Int16 | D::Int32 | D::Int64);
        let unsigned = matches!(data_type, D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64);
        let float = matches!(data_type, D::Float32 | D::Float64);
        let decimal = matches!(data_type, D::Decimal128(..));
        Some(match func {
            // Types whose validity is their null buffer (no logical NULLs).
            Func::Count => {
                if matches!(
                    data_type,
                    D::Null | D::Dictionary(..) | D::RunEndEncoded(..) | D::Union(..)
                ) {
                    return None;
                }
                CallKind::Count
            }
            Func::Sum => match produces {
                D::Int64 if signed => CallKind::SumInt,
                D::UInt64 if unsigned => CallKind::SumUInt,
                D::Float64 if float => CallKind::SumFloat,
                D::Decimal128(..) if decimal && input == data_type => CallKind::SumDecimal,
                _ => return None,
            },
            Func::Avg => match input {
                D::Float64 if signed || unsigned || float => CallKind::AvgFloat,
                D::Decimal128(..) if decimal && input == data_type => CallKind::AvgDecimal,
                _ => return None,
            },
            Func::Min | Func::Max if numeric(data_type) && input == data_type => {
                if func == Func::Min {
                    CallKind::Min
                } else {
                    CallKind::Max
                }
            }
            Func::Min | Func::Max | Func::ArrayAgg | Func::Collect => return None,
        })
    }
}

/// One call of a fused aggregation: what it computes and where it reads.
#[derive(Debug, Clone)]
pub(super) struct FusedCall {
    /// The call's text.
    pub name: Arc<str>,
    pub kind: CallKind,
    /// The join input the column is in (unused for `count(*)`).
    pub side: JoinSide,
    /// The column of that input.
    pub column: usize,
    /// The column's type.
    pub data_type: DataType,
    /// The type the regular aggregate casts the values to.
    pub input: DataType,
}

/// The sink of a fused aggregation: makes the workers, and keeps the
/// states they hand back.
pub(super) struct Accumulating<'a> {
    calls: &'a [FusedCall],
    partials: Mutex<Vec<Vec<Vec<ArrayRef>>>>,
    pairs: AtomicU64,
}

impl<'a> Accumulating<'a> {
    pub(super) fn new(calls: &'a [FusedCall]) -> Self {
        Accumulating {
            calls,
            partials: Mutex::new(Vec::new()),
            pairs: AtomicU64::new(0),
        }
    }

    /// The pairs the workers saw.
    pub(super) fn pairs(&self) -> u64 {
        self.pairs.load(Ordering::Relaxed)
    }

    /// Every finished worker's state, one `Vec` of call states each.
    pub(super) fn into_states(self) -> Result<Vec<Vec<Vec<ArrayRef>>>> {
        Ok(self
            .partials
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()))
    }
}

impl PairSink for Accumulating<'_> {
    fn worker(&self) -> tenon_kernels::Result<Box<dyn PairWorker + '_>> {
        Ok(Box::new(Worker {
            sink: self,
            pairs: 0,
            states: self.calls.iter().map(|c| State::new(c.kind)).collect(),
        }))
    }
}

/// One thread's running states.
struct Worker<'a> {
    sink: &'a Accumulating<'a>,
    pairs: u64,
    states: Vec<State>,
}

impl PairWorker for Worker<'_> {
    fn consume(&mut self, chunk: &PairChunk<'_>) -> tenon_kernels::Result<()> {
        self.pairs += chunk.build_rows.len() as u64;
        for (call, state) in self.sink.calls.iter().zip(&mut self.states) {
            state
                .add(call, chunk)
                .map_err(|e| e.into_kernel_error(&call.name))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> tenon_kernels::Result<()> {
        let Worker {
            sink,
            pairs,
            states,
        } = *self;
        let arrays = sink
            .calls
            .iter()
            .zip(states)
            .map(|(call, state)| state.arrays(call, pairs))
            .collect::<Result<Vec<_>>>()
            .map_err(ExecError::into_kernel)?;
        sink.pairs.fetch_add(pairs, Ordering::Relaxed);
        sink.partials
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(arrays);
        Ok(())
    }
}

/// A number held by a `min` / `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    I(i128),
    U(u128),
    F(f64),
}

/// One call's running state in one worker.
#[derive(Debug)]
enum State {
    /// `count(*)` (counted by the worker) and `count(col)`.
    Count(i64),
    SumInt {
        sum: i128,
        seen: bool,
    },
    SumUInt {
        sum: u128,
        seen: bool,
    },
    SumFloat {
        sum: f64,
        seen: bool,
    },
    SumDecimal {
        sum: i128,
        seen: bool,
        overflow: bool,
    },
    AvgFloat {
        sum: f64,
        n: i64,
    },
    AvgDecimal {
        sum: i128,
        n: i64,
        overflow: bool,
    },
    Best(Option<Num>),
}

/// Why a chunk could not be read (a kernel or planner bug, reported).
#[derive(Debug)]
enum ReadError {
    /// A row beyond its column.
    Row,
    /// The column is missing or not of the planned type.
    Column,
}

impl ReadError {
    fn into_kernel_error(self, name: &str) -> KernelError {
        let what = match self {
            ReadError::Row => "a pair's row is beyond its column",
            ReadError::Column => "a column is missing or not of its planned type",
        };
        ExecError::Unsupported(format!(
            "internal: aggregating `{name}` from a join: {what}"
        ))
        .into_kernel()
    }
}

/// A column of one side of a chunk.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// One array, indexed by the rows.
    Array(&'a ArrayRef),
    /// Column `.1` of the probe batches, at global probe rows.
    Probe(&'a PairChunk<'a>, usize),
}

/// The column `call` reads on its side of `chunk`, and the rows.
fn source<'a>(
    chunk: &'a PairChunk<'a>,
    call: &FusedCall,
) -> Result<(Source<'a>, &'a [u32]), ReadError> {
    if call.side == chunk.build_side {
        let col = chunk
            .build
            .columns()
            .get(call.column)
            .ok_or(ReadError::Column)?;
        return Ok((Source::Array(col), chunk.build_rows));
    }
    let src = match chunk.probe_batch() {
        Some(b) => Source::Array(b.columns().get(call.column).ok_or(ReadError::Column)?),
        None => Source::Probe(chunk, call.column),
    };
    Ok((src, chunk.probe_rows))
}

/// Calls `f` with the value of every non-NULL row of `rows` in `src`.
#[inline(always)]
fn each<T: ArrowPrimitiveType>(
    src: Source<'_>,
    rows: &[u32],
    mut f: impl FnMut(T::Native),
) -> Result<(), ReadError> {
    match src {
        Source::Array(a) => {
            let a = a.as_primitive_opt::<T>().ok_or(ReadError::Column)?;
            let values: &[T::Native] = a.values();
            let Some(last) = values.len().checked_sub(1) else {
                return if rows.is_empty() {
                    Ok(())
                } else {
                    Err(ReadError::Row)
                };
            };
            let mut beyond = false;
            match a.nulls().filter(|n| n.null_count() > 0) {
                None => {
                    for &r in rows {
                        let r = r as usize;
                        beyond |= r > last;
                        f(values[r.min(last)]);
                    }
                }
                Some(nulls) => {
                    for &r in rows {
                        let r = r as usize;
                        beyond |= r > last;
                        let r = r.min(last);
                        if nulls.is_valid(r) {
                            f(values[r]);
                        }
                    }
                }
            }
            if beyond { Err(ReadError::Row) } else { Ok(()) }
        }
        Source::Probe(chunk, column) => {
            let batches = chunk.probe_batches();
            let mut current = usize::MAX;
            let mut array: Option<&PrimitiveArray<T>> = None;
            for &r in rows {
                let (b, i) = chunk.locate_probe(r);
                if b != current {
                    current = b;
                    array = batches
                        .get(b)
                        .and_then(|batch| batch.columns().get(column))
                        .and_then(|c| c.as_primitive_opt::<T>());
                }
                let a = array.ok_or(ReadError::Column)?;
                if i >= a.len() {
                    return Err(ReadError::Row);
                }
                if a.is_valid(i) {
                    f(a.value(i));
                }
            }
            Ok(())
        }
    }
}

/// The non-NULL rows of `rows` in `src`.
fn count_valid(src: Source<'_>, rows: &[u32]) -> Result<i64, ReadError> {
    match src {
        Source::Array(a) => match a.nulls().filter(|n| n.null_count() > 0) {
            None => Ok(rows.len() as i64),
            Some(nulls) => {
                let mut n = 0i64;
                for &r in rows {
                    let r = r as usize;
                    if r >= nulls.len() {
                        return Err(ReadError::Row);
                    }
                    n += i64::from(nulls.is_valid(r));
                }
                Ok(n)
            }
        },
        Source::Probe(chunk, column) => {
            let batches = chunk.probe_batches();
            let mut n = 0i64;
            for &r in rows {
                let (b, i) = chunk.locate_probe(r);
                let col = batches
                    .get(b)
                    .and_then(|batch| batch.columns().get(column))
                    .ok_or(ReadError::Column)?;
                if i >= col.len() {
                    return Err(ReadError::Row);
                }
                n += i64::from(col.is_valid(i));
            }
            Ok(n)
        }
    }
}

/// The values a fused call reads, widened for its state.
trait Widen: Copy {
    fn to_i128(self) -> i128;
    fn to_u128(self) -> u128;
    fn to_f64(self) -> f64;
}

macro_rules! widen {
    ($($t:ty),*) => {$(
        impl Widen for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
widen!(i8, i16, i32, i64, i128, u8, u16, u32, u64, f32, f64);

/// Runs `$body` with `$T` the Arrow type of the numeric `$dt`
/// (see [`numeric`]), or gives `$other`.
macro_rules! with_numeric {
    ($dt:expr, $T:ident => $body:expr, $other:expr) => {
        match $dt {
            DataType::Int8 => {
                type $T = Int8Type;
                $body
            }
            DataType::Int16 => {
                type $T = Int16Type;
                $body
            }
            DataType::Int32 => {
                type $T = Int32Type;
                $body
            }
            DataType::Int64 => {
                type $T = Int64Type;
                $body
            }
            DataType::UInt8 => {
                type $T = UInt8Type;
                $body
            }
            DataType::UInt16 => {
                type $T = UInt16Type;
                $body
            }
            DataType::UInt32 => {
                type $T = UInt32Type;
                $body
            }
            DataType::UInt64 => {
                type $T = UInt64Type;
                $body
            }
            DataType::Float32 => {
                type $T = Float32Type;
                $body
            }
            DataType::Float64 => {
                type $T = Float64Type;
                $body
            }
            DataType::Decimal128(..) => {
                type $T = Decimal128Type;
                $body
            }
            _ => $other,
        }
    };
}

/// `v` as tenon orders floats: every NaN one NaN above `+inf`, `-0.0`
/// as `0.0` (as the regular `min` / `max` canonicalize them).
fn canonical(v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// Whether `v` replaces `best` in a `min` (`max` when `max`).
fn better(v: Num, best: Num, max: bool) -> bool {
    let order = match (v, best) {
        (Num::I(a), Num::I(b)) => a.cmp(&b),
        (Num::U(a), Num::U(b)) => a.cmp(&b),
        (Num::F(a), Num::F(b)) => a.total_cmp(&b),
        _ => return false,
    };
    if max { order.is_gt() } else { order.is_lt() }
}

impl State {
    fn new(kind: CallKind) -> Self {
        match kind {
            CallKind::Rows | CallKind::Count => State::Count(0),
            CallKind::SumInt => State::SumInt {
                sum: 0,
                seen: false,
            },
            CallKind::SumUInt => State::SumUInt {
                sum: 0,
                seen: false,
            },
            CallKind::SumFloat => State::SumFloat {
                sum: 0.0,
                seen: false,
            },
            CallKind::SumDecimal => State::SumDecimal {
                sum: 0,
                seen: false,
                overflow: false,
            },
            CallKind::AvgFloat => State::AvgFloat { sum: 0.0, n: 0 },
            CallKind::AvgDecimal => State::AvgDecimal {
                sum: 0,
                n: 0,
                overflow: false,
            },
            CallKind::Min | CallKind::Max => State::Best(None),
        }
    }

    /// Adds the chunk's values of `call`'s column.
    fn add(&mut self, call: &FusedCall, chunk: &PairChunk<'_>) -> Result<(), ReadError> {
        if call.kind == CallKind::Rows {
            return Ok(()); // the worker counts the pairs
        }
        let (src, rows) = source(chunk, call)?;
        let max = call.kind == CallKind::Max;
        match self {
            State::Count(n) => *n += count_valid(src, rows)?,
            State::SumInt { sum, seen } => with_numeric!(&call.data_type, T => {
                let mut s = 0i128;
                let mut any = false;
                each::<T>(src, rows, |v| {
                    s += v.to_i128();
                    any = true;
                })?;
                *sum += s;
                *seen |= any;
            }, return Err(ReadError::Column)),
            State::SumUInt { sum, seen } => with_numeric!(&call.data_type, T => {
                let mut s = 0u128;
                let mut any = false;
                each::<T>(src, rows, |v| {
                    s += v.to_u128();
                    any = true;
                })?;
                *sum += s;
                *seen |= any;
            }, return Err(ReadError::Column)),
            State::SumFloat { sum, seen } => with_numeric!(&call.data_type, T => {
                let mut any = false;
                each::<T>(src, rows, |v| {
                    *sum += v.to_f64();
                    any = true;
                })?;
                *seen |= any;
            }, return Err(ReadError::Column)),
            State::SumDecimal {
                sum,
                seen,
                overflow,
            } => {
                let mut any = false;
                let mut o = false;
                each::<Decimal128Type>(src, rows, |v| {
                    let (s, flag) = sum.overflowing_add(v);
                    *sum = s;
                    o |= flag;
                    any = true;
                })?;
                *seen |= any;
                *overflow |= o;
            }
            State::AvgFloat { sum, n } => with_numeric!(&call.data_type, T => {
                let mut count = 0i64;
                each::<T>(src, rows, |v| {
                    *sum += v.to_f64();
                    count += 1;
                })?;
                *n += count;
            }, return Err(ReadError::Column)),
            State::AvgDecimal { sum, n, overflow } => {
                let mut count = 0i64;
                let mut o = false;
                each::<Decimal128Type>(src, rows, |v| {
                    let (s, flag) = sum.overflowing_add(v);
                    *sum = s;
                    o |= flag;
                    count += 1;
                })?;
                *n += count;
                *overflow |= o;
            }
            State::Best(best) => {
                let t = &call.data_type;
                let num = |v: i128, u: u128, f: f64| match t {
                    DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                        Num::U(u)
                    }
                    DataType::Float32 | DataType::Float64 => Num::F(canonical(f)),
                    _ => Num::I(v),
                };
                with_numeric!(t, T => {
                    each::<T>(src, rows, |v| {
                        let v = num(v.to_i128(), v.to_u128(), v.to_f64());
                        match best {
                            Some(b) if !better(v, *b, max) => {}
                            _ => *best = Some(v),
                        }
                    })?;
                }, return Err(ReadError::Column))
            }
        }
        Ok(())
    }

    /// The state as the regular accumulator's one-row state arrays (see
    /// [`HashAggregate::merge_states`](crate::exec::HashAggregate)).
    fn arrays(self, call: &FusedCall, pairs: u64) -> Result<Vec<ArrayRef>> {
        let too_large = |what: String| {
            ExecError::Expr(ExprError::Overflow {
                expr: call.name.to_string(),
                detail: what,
            })
        };
        let one = |a: ArrayRef| Ok(vec![a]);
        match self {
            State::Count(n) => {
                let n = if call.kind == CallKind::Rows {
                    i64::try_from(pairs).map_err(|_| too_large(format!("{pairs} rows")))?
                } else {
                    n
                };
                one(Arc::new(Int64Array::from(vec![n])))
            }
            State::SumInt { sum, seen } => {
                let v = seen
                    .then(|| i64::try_from(sum))
                    .transpose()
                    .map_err(|_| too_large(format!("the sum {sum} does not fit Int64")))?;
                one(Arc::new(Int64Array::from(vec![v])))
            }
            State::SumUInt { sum, seen } => {
                let v = seen
                    .then(|| u64::try_from(sum))
                    .transpose()
                    .map_err(|_| too_large(format!("the sum {sum} does not fit UInt64")))?;
                one(Arc::new(UInt64Array::from(vec![v])))
            }
            State::SumFloat { sum, seen } => {
                one(Arc::new(Float64Array::from(vec![seen.then_some(sum)])))
            }
            State::SumDecimal {
                sum,
                seen,
                overflow,
            } => {
                if overflow {
                    return Err(too_large(format!(
                        "the sum does not fit {}",
                        DataType::Decimal128(38, decimal_scale(&call.input))
                    )));
                }
                let a = Decimal128Array::from(vec![seen.then_some(sum)])
                    .with_data_type(DataType::Decimal128(38, decimal_scale(&call.input)));
                one(Arc::new(a))
            }
            State::AvgFloat { sum, n } => Ok(vec![
                Arc::new(Float64Array::from(vec![(n > 0).then_some(sum)])),
                Arc::new(Int64Array::from(vec![n])),
            ]),
            State::AvgDecimal { sum, n, overflow } => {
                let t = DataType::Decimal128(38, decimal_scale(&call.input));
                if overflow {
                    return Err(too_large(format!("the sum does not fit {t}")));
                }
                Ok(vec![
                    Arc::new(Decimal128Array::from(vec![(n > 0).then_some(sum)]).with_data_type(t)),
                    Arc::new(Int64Array::from(vec![n])),
                ])
            }
            State::Best(best) => one(best_array(best, &call.input)?),
        }
    }
}

/// The scale of a decimal type (0 for others).
fn decimal_scale(t: &DataType) -> i8 {
    match t {
        DataType::Decimal128(_, s) => *s,
        _ => 0,
    }
}

/// A `min` / `max` as a one-row array of `t` (NULL for no value).
fn best_array(best: Option<Num>, t: &DataType) -> Result<ArrayRef> {
    let wide: ArrayRef = match best {
        None => return Ok(new_null_array(t, 1)),
        Some(Num::I(v)) if matches!(t, DataType::Decimal128(..)) => {
            return Ok(Arc::new(
                Decimal128Array::from(vec![v]).with_data_type(t.clone()),
            ));
        }
        // The value came from a column of `t`, so it fits `t`.
        Some(Num::I(v)) => Arc::new(Int64Array::from(vec![v as i64])),
        Some(Num::U(v)) => Arc::new(UInt64Array::from(vec![v as u64])),
        Some(Num::F(v)) => Arc::new(Float64Array::from(vec![v])),
    };
    arrow_cast::cast(&wide, t).map_err(|e| ExecError::arrow("aggregate from a join (min/max)", e))
}
