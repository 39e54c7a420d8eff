//! The oracle: a join written row at a time from the SQL definitions, with
//! nothing shared with the kernels but the `JoinType` enum.
//!
//! Every join is "for each left row, the right rows it matches", then the
//! join type decides what to output from those match lists:
//!
//! * a pair matches when every key pair is equal (SQL `=`: a NULL never
//!   matches; null-equal: NULL matches NULL, per column) and the residual
//!   filter is true (NULL counts as false);
//! * for `LeftAntiNullAware` (`l.k NOT IN (SELECT r.k FROM r WHERE f(l, r))`)
//!   a pair *conflicts* when the filter is true and `l.k IS NULL OR r.k IS
//!   NULL OR l.k = r.k`; a left row is output when it has no conflict.
//!
//! [`RefJoin::run`] finds match lists by trying every pair. [`RefJoin::run_indexed`]
//! is the same definition for inputs too large for that: it looks candidates
//! up in a map from key to rows (a superset of the matches) and then applies
//! the very same pair predicate, so it can only be as wrong as the map is
//! incomplete, which it is not.

use std::collections::HashMap;

use arrow_schema::{DataType, Schema};
use tenon_kernels::JoinType;

use super::{Row, Value};

/// A residual filter over a (left row, right row) pair; `None` is SQL NULL.
pub type RowFilter<'a> = &'a (dyn Fn(&[Value], &[Value]) -> Option<bool> + Sync);

/// SQL equality of two non-NULL key cells: exact, except that for floats
/// `-0.0 = 0.0` and NaN equals NaN (PostgreSQL/DuckDB semantics, as the
/// kernel documents).
pub fn key_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            x == y || (x.is_nan() && y.is_nan())
        }
        (Value::F32(x), Value::F32(y)) => {
            let (x, y) = (f32::from_bits(*x), f32::from_bits(*y));
            x == y || (x.is_nan() && y.is_nan())
        }
        _ => a == b,
    }
}

/// A cell made canonical so that `key_eq` cells are `==` (for the index of
/// [`RefJoin::run_indexed`] only).
fn canonical(v: &Value) -> Value {
    match v {
        Value::F64(x) => {
            let f = f64::from_bits(*x);
            if f == 0.0 {
                Value::F64(0)
            } else if f.is_nan() {
                Value::F64(f64::NAN.to_bits())
            } else {
                v.clone()
            }
        }
        Value::F32(x) => {
            let f = f32::from_bits(*x);
            if f == 0.0 {
                Value::F32(0)
            } else if f.is_nan() {
                Value::F32(f32::NAN.to_bits())
            } else {
                v.clone()
            }
        }
        _ => v.clone(),
    }
}

/// A join to compute the slow, obvious way.
#[derive(Clone, Copy)]
pub struct RefJoin<'a> {
    /// The join type.
    pub join_type: JoinType,
    /// Key pairs (left column, right column).
    pub on: &'a [(usize, usize)],
    /// `IS NOT DISTINCT FROM` keys.
    pub null_equal: bool,
    /// The residual filter, if any.
    pub filter: Option<RowFilter<'a>>,
    /// Output columns of the left side (`None`: all).
    pub left_projection: Option<&'a [usize]>,
    /// Output columns of the right side (`None`: all).
    pub right_projection: Option<&'a [usize]>,
}

impl<'a> RefJoin<'a> {
    /// A join without filter, null-equality or projection.
    pub fn new(join_type: JoinType, on: &'a [(usize, usize)]) -> Self {
        RefJoin {
            join_type,
            on,
            null_equal: false,
            filter: None,
            left_projection: None,
            right_projection: None,
        }
    }

    /// Whether the options make sense; the kernel must reject the same
    /// joins (with an error, not a panic).
    pub fn is_valid(&self) -> bool {
        if self.on.is_empty() {
            return false;
        }
        if self.join_type == JoinType::LeftAntiNullAware {
            return self.on.len() == 1 && !self.null_equal;
        }
        true
    }

    fn filter_true(&self, l: &Row, r: &Row) -> bool {
        self.filter.is_none_or(|f| f(l, r) == Some(true))
    }

    /// Whether `l` and `r` form a matching pair (keys and filter).
    fn is_match(&self, l: &Row, r: &Row) -> bool {
        let keys = self.on.iter().all(|&(a, b)| match (&l[a], &r[b]) {
            (Value::Null, Value::Null) => self.null_equal,
            (Value::Null, _) | (_, Value::Null) => false,
            (x, y) => key_eq(x, y),
        });
        keys && self.filter_true(l, r)
    }

    /// NOT IN: whether `r` rules `l` out.
    ///
    /// With no key (nested loop), the filter is the whole `NOT IN`
    /// comparison: a pair conflicts when it is TRUE or NULL (unknown).
    fn conflicts(&self, l: &Row, r: &Row) -> bool {
        let Some(&(a, b)) = self.on.first() else {
            return self.filter.is_none_or(|f| f(l, r) != Some(false));
        };
        let unknown_or_equal = match (&l[a], &r[b]) {
            (Value::Null, _) | (_, Value::Null) => true,
            (x, y) => key_eq(x, y),
        };
        unknown_or_equal && self.filter_true(l, r)
    }

    fn pair_predicate(&self, l: &Row, r: &Row) -> bool {
        if self.join_type == JoinType::LeftAntiNullAware {
            self.conflicts(l, r)
        } else {
            self.is_match(l, r)
        }
    }

    /// The join's output rows, trying every pair.
    ///
    /// # Panics
    ///
    /// When the join is not [`valid`](Self::is_valid).
    pub fn run(&self, left: &[Row], right: &[Row], widths: (usize, usize)) -> Vec<Row> {
        assert!(self.is_valid(), "the oracle runs valid joins only");
        self.run_any(left, right, widths)
    }

    /// [`run`](Self::run) without the validity check, for the nested-loop
    /// join, whose `on` may be empty (every pair is a candidate; the filter
    /// decides). NOT IN with no key: a left row survives when no right row
    /// passes the filter.
    pub fn run_any(&self, left: &[Row], right: &[Row], widths: (usize, usize)) -> Vec<Row> {
        let matches: Vec<Vec<usize>> = left
            .iter()
            .map(|l| {
                (0..right.len())
                    .filter(|&j| self.pair_predicate(l, &right[j]))
                    .collect()
            })
            .collect();
        self.assemble(left, right, widths, &matches)
    }

    /// The same output as [`run`](Self::run), finding candidate pairs with a
    /// map from key to rows (for inputs of many thousand rows).
    ///
    /// # Panics
    ///
    /// When the join is not [`valid`](Self::is_valid).
    pub fn run_indexed(&self, left: &[Row], right: &[Row], widths: (usize, usize)) -> Vec<Row> {
        assert!(self.is_valid(), "the oracle runs valid joins only");
        let key_of = |r: &Row, cols: &mut dyn Iterator<Item = usize>| -> Vec<Value> {
            cols.map(|c| canonical(&r[c])).collect()
        };
        let mut index: HashMap<Vec<Value>, Vec<usize>> = HashMap::new();
        let mut right_null_rows = Vec::new();
        for (j, r) in right.iter().enumerate() {
            let k = key_of(r, &mut self.on.iter().map(|p| p.1));
            if k.contains(&Value::Null) {
                right_null_rows.push(j);
            }
            index.entry(k).or_default().push(j);
        }
        let all: Vec<usize> = (0..right.len()).collect();
        let matches: Vec<Vec<usize>> = left
            .iter()
            .map(|l| {
                let k = key_of(l, &mut self.on.iter().map(|p| p.0));
                let mut cands: Vec<usize> = if self.join_type == JoinType::LeftAntiNullAware {
                    if k.contains(&Value::Null) {
                        all.clone()
                    } else {
                        let mut c = index.get(&k).cloned().unwrap_or_default();
                        c.extend(&right_null_rows);
                        c
                    }
                } else {
                    index.get(&k).cloned().unwrap_or_default()
                };
                cands.sort_unstable();
                cands.dedup();
                cands.retain(|&j| self.pair_predicate(l, &right[j]));
                cands
            })
            .collect();
        self.assemble(left, right, widths, &matches)
    }

    /// Output rows from each left row's list of matching right rows.
    fn assemble(
        &self,
        left: &[Row],
        right: &[Row],
        (lw, rw): (usize, usize),
        matches: &[Vec<usize>],
    ) -> Vec<Row> {
        let lcols: Vec<usize> = self
            .left_projection
            .map_or_else(|| (0..lw).collect(), |p| p.to_vec());
        let rcols: Vec<usize> = self
            .right_projection
            .map_or_else(|| (0..rw).collect(), |p| p.to_vec());
        let lpart = |i: Option<usize>| -> Vec<Value> {
            lcols
                .iter()
                .map(|&c| i.map_or(Value::Null, |i| left[i][c].clone()))
                .collect()
        };
        let rpart = |j: Option<usize>| -> Vec<Value> {
            rcols
                .iter()
                .map(|&c| j.map_or(Value::Null, |j| right[j][c].clone()))
                .collect()
        };
        let mut right_matched = vec![false; right.len()];
        for m in matches {
            for &j in m {
                right_matched[j] = true;
            }
        }
        let pair = |i: Option<usize>, j: Option<usize>| -> Row {
            let mut row = lpart(i);
            row.extend(rpart(j));
            row
        };
        let mut out = Vec::new();
        let jt = self.join_type;
        // Matching pairs.
        if matches!(
            jt,
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full
        ) {
            for (i, m) in matches.iter().enumerate() {
                for &j in m {
                    out.push(pair(Some(i), Some(j)));
                }
            }
        }
        // Left rows by whether they matched.
        for (i, m) in matches.iter().enumerate() {
            let matched = !m.is_empty();
            match jt {
                JoinType::Left | JoinType::Full if !matched => out.push(pair(Some(i), None)),
                JoinType::LeftSemi if matched => out.push(lpart(Some(i))),
                JoinType::LeftAnti | JoinType::LeftAntiNullAware if !matched => {
                    out.push(lpart(Some(i)))
                }
                _ => {}
            }
        }
        // Right rows by whether they matched.
        for (j, &matched) in right_matched.iter().enumerate() {
            match jt {
                JoinType::Right | JoinType::Full if !matched => out.push(pair(None, Some(j))),
                JoinType::RightSemi if matched => out.push(rpart(Some(j))),
                JoinType::RightAnti if !matched => out.push(rpart(Some(j))),
                _ => {}
            }
        }
        out
    }

    /// The output schema as (name, type, nullable): the output sides'
    /// (projected) fields, made nullable on a NULL-extended side.
    pub fn schema(&self, left: &Schema, right: &Schema) -> Vec<(String, DataType, bool)> {
        let jt = self.join_type;
        let (has_left, has_right, left_ext, right_ext) = match jt {
            JoinType::Inner => (true, true, false, false),
            JoinType::Left => (true, true, false, true),
            JoinType::Right => (true, true, true, false),
            JoinType::Full => (true, true, true, true),
            JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftAntiNullAware => {
                (true, false, false, false)
            }
            JoinType::RightSemi | JoinType::RightAnti => (false, true, false, false),
        };
        let side = |schema: &Schema, proj: Option<&[usize]>, extended: bool| {
            let cols: Vec<usize> =
                proj.map_or_else(|| (0..schema.fields().len()).collect(), |p| p.to_vec());
            cols.into_iter()
                .map(|c| {
                    let f = schema.field(c);
                    (
                        f.name().clone(),
                        f.data_type().clone(),
                        f.is_nullable() || extended,
                    )
                })
                .collect::<Vec<_>>()
        };
        let mut out = Vec::new();
        if has_left {
            out.extend(side(left, self.left_projection, left_ext));
        }
        if has_right {
            out.extend(side(right, self.right_projection, right_ext));
        }
        out
    }
}
