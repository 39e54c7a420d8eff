//! Accumulators: one aggregate's running state for every group, held in
//! vectors indexed by group id.
//!
//! An accumulator goes through the phases of the aggregation
//! ([`super`](crate::exec::HashAggregate)):
//!
//! ```text
//!  sink      update(groups, values)   per batch, groups[i] = row i's group
//!            update_all(values)       per batch without GROUP BY: one group,
//!                                     Arrow's aggregate kernels over the array
//!  combine   state()                  the partial state as arrays, one row a group
//!            merge(selection, state)  another partial's state, regrouped
//!  finalize  finish()                 the output column, one row a group
//! ```
//!
//! Values arrive already cast to the accumulator's input type and already
//! filtered (`FILTER (WHERE ...)`); `None` values mean `count(*)`. The hot
//! loops are one per batch and accumulator, over plain slices: no dynamic
//! dispatch and no `ScalarValue` per row.

use std::fmt;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float64Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, ArrowNativeTypeOp, ArrowPrimitiveType, Int64Array, PrimitiveArray, UInt32Array,
};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType};

use super::lanes::{LANE_GROUPS, LANES, PASS_GROUPS, add_in_lanes, add_narrow};
use crate::exec::error::{ExecError, Result};
use crate::exec::held_form;
use crate::expr::ExprError;
use tenon_kernels::group_counts;

/// Which rows of another partial aggregate's state belong to the partition
/// being combined, and the groups they map to there.
#[derive(Debug)]
pub(super) struct Selection<'a> {
    /// The selected rows (groups) of the other partial's state.
    pub indices: &'a UInt32Array,
    /// The combined group of each selected row (aligned with `indices`).
    pub groups: &'a [u32],
    /// The combined group of every row of the other partial's state,
    /// `u32::MAX` for rows outside the partition (empty unless some
    /// accumulator needs it: DISTINCT).
    pub local_to_global: &'a [u32],
}

/// The rows of a pair state `[group ids (UInt32), values]` that belong to
/// this partition's groups, as (global groups, their values); `None` when
/// there are none (the merge of DISTINCT, array_agg and collect).
pub(super) fn pairs_in_partition(
    name: &str,
    sel: &Selection<'_>,
    state: &[ArrayRef],
) -> Result<Option<(UInt32Array, ArrayRef)>> {
    let local = primitive::<arrow_array::types::UInt32Type>(name, &state[0])?;
    let mut keep = Vec::new();
    let mut groups = Vec::new();
    for (i, &g) in local.values().iter().enumerate() {
        let global = sel
            .local_to_global
            .get(g as usize)
            .copied()
            .unwrap_or(u32::MAX);
        if global != u32::MAX {
            keep.push(i as u32);
            groups.push(global);
        }
    }
    if keep.is_empty() {
        return Ok(None);
    }
    let values = arrow_select::take::take(state[1].as_ref(), &UInt32Array::from(keep), None)
        .map_err(|e| ExecError::arrow(format!("aggregate `{name}` (combine)"), e))?;
    Ok(Some((UInt32Array::from(groups), values)))
}

/// One aggregate's state for every group; see the module docs.
pub(super) trait Accumulator: Send {
    /// Adds a batch's values: row `i` belongs to group `groups[i]`, and
    /// there are `num_groups` groups (some of them new).
    fn update(
        &mut self,
        groups: &[u32],
        values: Option<&ArrayRef>,
        num_groups: usize,
    ) -> Result<()>;

    /// Adds a batch's `rows` rows to the single group of an aggregate
    /// without GROUP BY.
    fn update_all(&mut self, values: Option<&ArrayRef>, rows: usize) -> Result<()>;

    /// The partial state of `num_groups` groups, as arrays.
    fn state(&mut self, num_groups: usize) -> Result<Vec<ArrayRef>>;

    /// Merges states already taken at the selected rows: row `i` of `state`
    /// goes to group `groups[i]`.
    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], num_groups: usize) -> Result<()>;

    /// Merges the selected rows of another partial's state.
    fn merge(&mut self, sel: &Selection<'_>, state: &[ArrayRef], num_groups: usize) -> Result<()> {
        let taken = state
            .iter()
            .map(|s| arrow_select::take::take(s.as_ref(), sel.indices, None))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ExecError::arrow("aggregate (combine)", e))?;
        self.merge_rows(sel.groups, &taken, num_groups)
    }

    /// The output column of `num_groups` groups.
    fn finish(&mut self, num_groups: usize) -> Result<ArrayRef>;

    /// Whether [`Accumulator::state`] is not one row per group but pairs
    /// whose first column (UInt32) is the group: DISTINCT.
    fn state_is_pairs(&self) -> bool {
        false
    }
}

/// The overflow error of aggregate `name`.
pub(super) fn overflow(name: &str, detail: impl fmt::Display) -> ExecError {
    ExecError::Expr(ExprError::Overflow {
        expr: name.to_string(),
        detail: detail.to_string(),
    })
}

/// `values` as a `PrimitiveArray<T>`; a mismatch is a bug in the caller.
pub(super) fn primitive<'a, T: ArrowPrimitiveType>(
    name: &str,
    values: &'a ArrayRef,
) -> Result<&'a PrimitiveArray<T>> {
    values.as_primitive_opt::<T>().ok_or_else(|| {
        ExecError::arrow(
            format!("aggregate `{name}`"),
            ArrowError::InvalidArgumentError(format!(
                "internal: expected {} values, got {}",
                T::DATA_TYPE,
                values.data_type()
            )),
        )
    })
}

/// `count(*)` and `count(x)`: rows, or non-NULL values, per group.
#[derive(Debug, Default)]
pub(super) struct CountAcc {
    counts: Vec<i64>,
}

impl CountAcc {
    pub(super) fn new() -> Self {
        CountAcc::default()
    }

    fn counts(&mut self, num_groups: usize) -> Vec<i64> {
        self.counts.resize(num_groups, 0);
        std::mem::take(&mut self.counts)
    }
}

impl Accumulator for CountAcc {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        self.counts.resize(n, 0);
        let nulls = values.and_then(|v| v.logical_nulls());
        let nulls = nulls.filter(|n| n.null_count() > 0);
        if nulls.is_none() && n <= PASS_GROUPS {
            // One vectorized pass per group (`lanes`).
            let mut rows = [0i64; PASS_GROUPS];
            group_counts(groups, &mut rows[..n]);
            for (c, r) in self.counts.iter_mut().zip(rows) {
                *c += r;
            }
            return Ok(());
        }
        if n <= LANE_GROUPS && groups.len() >= LANES * n {
            // Interleaved counts, as for sums (see LANES).
            let mut lanes = vec![0i64; LANES * n];
            for (i, &g) in groups.iter().enumerate() {
                let valid = nulls.as_ref().is_none_or(|b| b.is_valid(i));
                lanes[(i % LANES) * n + g as usize] += i64::from(valid);
            }
            for (i, c) in lanes.into_iter().enumerate() {
                self.counts[i % n] += c;
            }
            return Ok(());
        }
        match nulls {
            None => groups.iter().for_each(|&g| self.counts[g as usize] += 1),
            Some(nulls) => groups
                .iter()
                .zip(nulls.iter())
                .for_each(|(&g, valid)| self.counts[g as usize] += i64::from(valid)),
        }
        Ok(())
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, rows: usize) -> Result<()> {
        self.counts.resize(1, 0);
        let n = values.map_or(rows, |v| v.len() - v.logical_null_count());
        self.counts[0] += n as i64;
        Ok(())
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        Ok(vec![self.finish(n)?])
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.counts.resize(n, 0);
        let counts = primitive::<Int64Type>("count", &state[0])?;
        for (&g, &c) in groups.iter().zip(counts.values().iter()) {
            self.counts[g as usize] += c;
        }
        Ok(())
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        Ok(Arc::new(Int64Array::from(self.counts(n))))
    }
}

/// The sum of an Int64 array's non-NULL values, computed exactly and
/// branch free (so it vectorizes, unlike a checked add per value): the high
/// and low 32-bit halves are summed separately (neither can overflow over
/// 2^20 values, nor over a block of 64 values masked by its validity bits) and combined in i128; a NULL's value is masked
/// to 0 by its validity bit. `None` for other types; an error when the sum
/// does not fit i64.
fn exact_i64_sum<T: ArrowPrimitiveType>(
    values: &PrimitiveArray<T>,
) -> Option<std::result::Result<Option<T::Native>, ArrowError>> {
    let ints = values.as_any().downcast_ref::<Int64Array>()?;
    if ints.null_count() == ints.len() {
        return Some(Ok(None));
    }
    let split = |block: &[i64], mask: u64| {
        let (mut hi, mut lo) = (0i64, 0i64);
        for (i, &v) in block.iter().enumerate() {
            let v = v & ((mask >> i) & 1).wrapping_neg() as i64;
            hi += v >> 32;
            lo += v & 0xFFFF_FFFF;
        }
        ((hi as i128) << 32) + lo as i128
    };
    let blocks = ints.values().chunks_exact(64);
    let rest = blocks.remainder();
    let mut total: i128 = 0;
    match ints.nulls() {
        None => {
            for chunk in ints.values().chunks(1 << 20) {
                let (mut hi, mut lo) = (0i64, 0i64);
                for &v in chunk {
                    hi += v >> 32;
                    lo += v & 0xFFFF_FFFF;
                }
                total += ((hi as i128) << 32) + lo as i128;
            }
        }
        Some(nulls) => {
            let bits = nulls.inner().bit_chunks();
            for (block, mask) in blocks.zip(bits.iter()) {
                total += split(block, mask);
            }
            total += split(rest, bits.remainder_bits());
        }
    }
    let Ok(sum) = i64::try_from(total) else {
        return Some(Err(ArrowError::ArithmeticOverflow(format!(
            "the sum of a batch, {total}, does not fit Int64"
        ))));
    };
    let one = Int64Array::from(vec![sum]);
    let one = one.as_any().downcast_ref::<PrimitiveArray<T>>()?;
    Some(Ok(Some(one.value(0))))
}

/// `sum(x)` in `T` (Int64, UInt64, Float64 or Decimal128): integer and
/// decimal overflow is an error; no non-NULL value is NULL.
pub(super) struct SumAcc<T: ArrowPrimitiveType> {
    name: Arc<str>,
    /// The type of the sums (a decimal's precision and scale).
    data_type: DataType,
    sums: Vec<T::Native>,
    seen: Vec<bool>,
    /// An upper bound of the magnitude of every sum (and of every partial
    /// sum, in any order of the additions): the magnitudes of everything
    /// added, summed; saturates.
    bound: u128,
}

/// Addition that reports overflow instead of failing, so that a loop of
/// additions has no branch per row: the flags are OR-ed and checked once
/// per batch (the sums are discarded with an error when one is set).
pub(super) trait FlaggedAdd: Copy {
    /// The largest magnitude a sum may reach with every addition exact
    /// in any order (integers: the type's maximum; `None` for floats, whose
    /// sums depend on the order of the additions).
    const EXACT_BOUND: Option<u128>;

    /// The (wrapped) sum and whether it overflowed.
    fn flagged_add(self, other: Self) -> (Self, bool);

    /// The magnitude of the value (integers; 0 for floats).
    fn magnitude(self) -> u128;

    /// An upper bound of the largest magnitude among `values` (integers;
    /// 0 for floats): their largest, unless a cheaper bound exists.
    fn magnitude_bound(values: &[Self]) -> u128 {
        values.iter().fold(0u128, |m, v| m.max(v.magnitude()))
    }

    /// Whether a batch whose sums stay within `i64` may be added in `i64`
    /// lanes ([`FlaggedAdd::low_i64`], [`FlaggedAdd::from_i64`]): `i128`
    /// (decimals), whose additions cost twice as much.
    const NARROWS: bool = false;

    /// The value's low 64 bits (exact when its magnitude fits in `i64`;
    /// used only when [`FlaggedAdd::NARROWS`]).
    fn low_i64(self) -> i64;

    /// `v` in this type (used only when [`FlaggedAdd::NARROWS`]).
    fn from_i64(v: i64) -> Self;
}

macro_rules! flagged_int {
    ($($t:ty),*) => {$(
        impl FlaggedAdd for $t {
            const EXACT_BOUND: Option<u128> = Some(<$t>::MAX as u128);

            #[inline(always)]
            fn flagged_add(self, other: Self) -> (Self, bool) {
                self.overflowing_add(other)
            }

            #[inline(always)]
            fn magnitude(self) -> u128 {
                u128::from(self.unsigned_abs())
            }

            fn low_i64(self) -> i64 {
                self as i64
            }

            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    )*};
}
flagged_int!(i64);

impl FlaggedAdd for i128 {
    const EXACT_BOUND: Option<u128> = Some(i128::MAX as u128);
    const NARROWS: bool = true;

    #[inline(always)]
    fn flagged_add(self, other: Self) -> (Self, bool) {
        self.overflowing_add(other)
    }

    #[inline(always)]
    fn magnitude(self) -> u128 {
        self.unsigned_abs()
    }

    /// Less than twice the largest, branch-free (`expr::decimal`).
    fn magnitude_bound(values: &[Self]) -> u128 {
        crate::expr::decimal::magnitude_bound(values)
    }

    #[inline(always)]
    fn low_i64(self) -> i64 {
        self as i64
    }

    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        i128::from(v)
    }
}

impl FlaggedAdd for u64 {
    const EXACT_BOUND: Option<u128> = Some(u64::MAX as u128);

    #[inline(always)]
    fn flagged_add(self, other: Self) -> (Self, bool) {
        self.overflowing_add(other)
    }

    #[inline(always)]
    fn magnitude(self) -> u128 {
        u128::from(self)
    }

    fn low_i64(self) -> i64 {
        self as i64
    }

    fn from_i64(v: i64) -> Self {
        v as u64
    }
}

impl FlaggedAdd for f64 {
    const EXACT_BOUND: Option<u128> = None;

    #[inline(always)]
    fn flagged_add(self, other: Self) -> (Self, bool) {
        (self + other, false)
    }

    fn magnitude(self) -> u128 {
        0
    }

    fn low_i64(self) -> i64 {
        self as i64
    }

    fn from_i64(v: i64) -> Self {
        v as f64
    }
}

impl<T: ArrowPrimitiveType<Native: FlaggedAdd>> SumAcc<T> {
    pub(super) fn new(name: Arc<str>, data_type: DataType) -> Self {
        SumAcc {
            name,
            data_type,
            sums: Vec::new(),
            seen: Vec::new(),
            bound: 0,
        }
    }

    /// Whether the values can be added in any order, with wrapping
    /// additions that are exact: few groups, integer sums, and a bound on
    /// every sum below the type's maximum (then no order of additions
    /// overflows, and the flagged additions of [`SumAcc::add`] would not
    /// have either: both give the same sums). When they can: a bound on
    /// the magnitude of any sum of this batch's values alone.
    fn exact_in_any_order(&mut self, values: &[T::Native], n: usize) -> Option<u128> {
        let max = T::Native::EXACT_BOUND?;
        if n > LANE_GROUPS || values.len() < LANES * n {
            // Groups only grow: past LANE_GROUPS the bound is never needed
            // again.
            if n > LANE_GROUPS {
                self.bound = u128::MAX;
            } else {
                self.note_added(values);
            }
            return None;
        }
        let batch = self.note_added(values);
        (self.bound <= max).then_some(batch)
    }

    /// Adds the magnitudes of `values` to the bound; returns the batch's
    /// own part of it.
    fn note_added(&mut self, values: &[T::Native]) -> u128 {
        if self.bound == u128::MAX {
            return u128::MAX;
        }
        let largest = T::Native::magnitude_bound(values);
        let batch = largest.saturating_mul(values.len() as u128);
        self.bound = self.bound.saturating_add(batch);
        batch
    }

    fn add(&mut self, groups: &[u32], values: &ArrayRef, n: usize) -> Result<()> {
        self.sums.resize(n, T::Native::ZERO);
        self.seen.resize(n, false);
        if values.data_type() != &self.data_type
            && held_form::is_narrow_form(values.data_type(), &self.data_type)
        {
            // A held table's values in a narrow integer type (`lanes`).
            let (sums, seen) = (&mut self.sums, &mut self.seen);
            let exact = T::Native::EXACT_BOUND;
            match add_narrow(groups, values, sums, seen, &mut self.bound, exact) {
                Some(false) => return Ok(()),
                Some(true) => {
                    return Err(self.overflow(ArrowError::ArithmeticOverflow(
                        "overflow adding to a sum".into(),
                    )));
                }
                None => {}
            }
        }
        let values = primitive::<T>(&self.name, values)?;
        if let Some(batch) = self.exact_in_any_order(values.values(), n) {
            let nulls = values.nulls().filter(|n| n.null_count() > 0);
            let (sums, seen) = (&mut self.sums, &mut self.seen);
            if T::Native::NARROWS && batch <= i64::MAX as u128 {
                // Decimals whose batch sums fit in i64 (TPC-H Q1's prices):
                // half the bytes and cost of an i128 addition per row.
                let (to, from) = (T::Native::low_i64, T::Native::from_i64);
                add_in_lanes(groups, values.values(), nulls, sums, seen, to, from);
            } else {
                add_in_lanes(groups, values.values(), nulls, sums, seen, |v| v, |l| l);
            }
            return Ok(());
        }
        let (sums, seen) = (&mut self.sums, &mut self.seen);
        let mut overflow = false;
        let mut add = |g: u32, v: T::Native| {
            let g = g as usize;
            let (sum, o) = sums[g].flagged_add(v);
            sums[g] = sum;
            overflow |= o;
            seen[g] = true;
        };
        match values.nulls().filter(|n| n.null_count() > 0) {
            None => groups
                .iter()
                .zip(values.values().iter())
                .for_each(|(&g, &v)| add(g, v)),
            Some(nulls) => groups
                .iter()
                .zip(values.values().iter())
                .zip(nulls.iter())
                .for_each(|((&g, &v), valid)| {
                    if valid {
                        add(g, v)
                    }
                }),
        }
        if overflow {
            return Err(self.overflow(ArrowError::ArithmeticOverflow(
                "overflow adding to a sum".into(),
            )));
        }
        Ok(())
    }

    fn overflow(&self, e: ArrowError) -> ExecError {
        overflow(
            &self.name,
            format!("{e}: the sum does not fit {}", self.data_type),
        )
    }

    /// The sums of `n` groups, NULL where no value was added.
    fn array(&mut self, n: usize) -> PrimitiveArray<T> {
        self.sums.resize(n, T::Native::ZERO);
        self.seen.resize(n, false);
        let seen = std::mem::take(&mut self.seen);
        let nulls = Some(NullBuffer::from(seen)).filter(|n| n.null_count() > 0);
        let sums = ScalarBuffer::from(std::mem::take(&mut self.sums));
        PrimitiveArray::<T>::new(sums, nulls).with_data_type(self.data_type.clone())
    }
}

impl<T: ArrowPrimitiveType<Native: FlaggedAdd>> Accumulator for SumAcc<T> {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        match values {
            Some(v) => self.add(groups, v, n),
            None => Ok(()),
        }
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, _rows: usize) -> Result<()> {
        let Some(values) = values else { return Ok(()) };
        // A held table's narrow values: one widening, then Arrow's sum.
        let widened;
        let values = if values.data_type() != &self.data_type
            && held_form::is_narrow_form(values.data_type(), &self.data_type)
        {
            widened = held_form::widened(values, &self.data_type)?;
            &widened
        } else {
            values
        };
        let values = primitive::<T>(&self.name, values)?;
        self.sums.resize(1, T::Native::ZERO);
        self.seen.resize(1, false);
        let batch_sum = match exact_i64_sum::<T>(values) {
            Some(s) => s.map_err(|e| self.overflow(e))?,
            None => arrow_arith::aggregate::sum_checked(values).map_err(|e| self.overflow(e))?,
        };
        if let Some(s) = batch_sum {
            self.bound = self.bound.saturating_add(s.magnitude());
            self.sums[0] = self.sums[0].add_checked(s).map_err(|e| self.overflow(e))?;
            self.seen[0] = true;
        }
        Ok(())
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        Ok(vec![Arc::new(self.array(n))])
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.add(groups, &state[0], n)
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        Ok(Arc::new(self.array(n)))
    }
}

/// How an average is computed from a sum of type `Self` and a count.
pub(super) trait Average: ArrowPrimitiveType<Native: FlaggedAdd> + Sized {
    /// The averages, NULL where the count is 0.
    fn average(
        name: &str,
        sums: &PrimitiveArray<Self>,
        counts: &[i64],
        out: &DataType,
    ) -> Result<ArrayRef>;
}

impl Average for Float64Type {
    fn average(
        _: &str,
        sums: &PrimitiveArray<Self>,
        counts: &[i64],
        _: &DataType,
    ) -> Result<ArrayRef> {
        let avg: Vec<f64> = sums
            .values()
            .iter()
            .zip(counts)
            .map(|(&s, &c)| if c == 0 { 0.0 } else { s / c as f64 })
            .collect();
        let nulls = NullBuffer::from(counts.iter().map(|&c| c > 0).collect::<Vec<_>>());
        let nulls = Some(nulls).filter(|n| n.null_count() > 0);
        Ok(Arc::new(PrimitiveArray::<Float64Type>::new(
            avg.into(),
            nulls,
        )))
    }
}

impl Average for Decimal128Type {
    /// The decimal average: the sum rescaled to the output scale, divided
    /// by the count rounding half away from zero (as DuckDB and the SQL
    /// standard's rounding do: 2.00, 0.00, 0.00 average `0.666667` at
    /// scale 6, -2.00, 0.00, 0.00 `-0.666667`), then checked against the
    /// output precision. `out` is the Decimal128 output type.
    fn average(
        name: &str,
        sums: &PrimitiveArray<Self>,
        counts: &[i64],
        out: &DataType,
    ) -> Result<ArrayRef> {
        let (DataType::Decimal128(_, in_scale), DataType::Decimal128(precision, scale)) =
            (sums.data_type(), out)
        else {
            return Err(ExecError::arrow(
                format!("aggregate `{name}`"),
                ArrowError::InvalidArgumentError(format!(
                    "internal: decimal average from {} to {out}",
                    sums.data_type()
                )),
            ));
        };
        let shift = u32::try_from(i32::from(*scale) - i32::from(*in_scale)).unwrap_or(0);
        let mul = 10_i128.pow(shift);
        let max = 10_i128.pow(u32::from(*precision)) - 1;
        let too_large = |v: i128| overflow(name, format!("the average {v} does not fit {out}"));
        let mut avg = Vec::with_capacity(counts.len());
        for (&s, &c) in sums.values().iter().zip(counts) {
            if c == 0 {
                avg.push(0);
                continue;
            }
            let v = divide_rounding_half_away(s.checked_mul(mul).ok_or_else(|| too_large(s))?, c);
            if v.unsigned_abs() > max.unsigned_abs() {
                return Err(too_large(v));
            }
            avg.push(v);
        }
        let nulls = NullBuffer::from(counts.iter().map(|&c| c > 0).collect::<Vec<_>>());
        let nulls = Some(nulls).filter(|n| n.null_count() > 0);
        let avg =
            PrimitiveArray::<Decimal128Type>::new(avg.into(), nulls).with_data_type(out.clone());
        Ok(Arc::new(avg))
    }
}

/// `n / d` rounded half away from zero, for a count `d > 0`.
fn divide_rounding_half_away(n: i128, d: i64) -> i128 {
    let d = i128::from(d);
    let (q, r) = (n / d, n % d);
    // |r| < d <= i64::MAX, so 2 |r| cannot overflow.
    if 2 * r.unsigned_abs() >= d.unsigned_abs() {
        q + n.signum()
    } else {
        q
    }
}

/// `avg(x)`: a sum in `T` (Float64 or Decimal128) and a count.
pub(super) struct AvgAcc<T: ArrowPrimitiveType> {
    name: Arc<str>,
    sum: SumAcc<T>,
    count: CountAcc,
    /// The type of the averages.
    out: DataType,
}

impl<T: ArrowPrimitiveType<Native: FlaggedAdd>> AvgAcc<T> {
    /// An average of values of `input` type into `out`.
    pub(super) fn new(name: Arc<str>, input: DataType, out: DataType) -> Self {
        AvgAcc {
            sum: SumAcc::new(Arc::clone(&name), input),
            name,
            count: CountAcc::new(),
            out,
        }
    }
}

impl<T: Average> Accumulator for AvgAcc<T> {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, n: usize) -> Result<()> {
        self.sum.update(groups, values, n)?;
        self.count.update(groups, values, n)
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, rows: usize) -> Result<()> {
        self.sum.update_all(values, rows)?;
        self.count.update_all(values, rows)
    }

    fn state(&mut self, n: usize) -> Result<Vec<ArrayRef>> {
        let mut state = self.sum.state(n)?;
        state.extend(self.count.state(n)?);
        Ok(state)
    }

    fn merge_rows(&mut self, groups: &[u32], state: &[ArrayRef], n: usize) -> Result<()> {
        self.sum.merge_rows(groups, &state[..1], n)?;
        self.count.merge_rows(groups, &state[1..], n)
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        let sums = self.sum.array(n);
        let counts = self.count.counts(n);
        T::average(&self.name, &sums, &counts, &self.out)
    }
}

#[cfg(test)]
mod tests;
