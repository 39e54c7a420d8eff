//! Expansion: the join of each row with the elements of its own
//! collections (`CROSS JOIN UNNEST(t.arr)`, `LEFT JOIN UNNEST ... ON TRUE`,
//! `WITH ORDINALITY`, several arrays zipped).
//!
//! ```text
//!  input rows ──► per row: the length of each argument (list offsets, map
//!                 entries, a multiset's counts summed; 0 for a NULL row,
//!                 whatever values lie under it); the row's length is the
//!                 longest (zip), a LEFT expansion pads an empty row to 1
//!            ──► per chunk of at most `max_rows` output rows:
//!                   parents   0 0 0 1 1 3 ...   (input row of each output
//!                             row; only when an input column is carried)
//!                   elements  per argument, stretches: values 10..13,
//!                             1 NULL, values 17..19, ... (touching
//!                             stretches merged)
//!                   ordinal   1 2 3 1 2 1 ...
//!            ──► the carried columns gathered by `parents`; each
//!                argument's values copied a stretch at a time (one slice,
//!                no copy, when the chunk is one stretch)
//! ```
//!
//! No per-row allocation and no per-element scalar or index: a row adds
//! one stretch (merged with the previous one when they touch, so a list
//! without NULL rows is one stretch per chunk), its positions are stored
//! eight at a time, and the values are copied by stretch (a memory copy for
//! fixed-width values). A row that expands to more than `max_rows`
//! elements is split across chunks, its positions continuing, so output
//! batches stay bounded.
//!
//! What one argument expands to ([`Collection::columns`]):
//! * a list (`List`, `LargeList`, `FixedSizeList`): one column of its
//!   elements, or, for a list of structs (rows), one column per field;
//! * a map: two columns, its keys and its values, in entry order;
//! * a multiset (a map whose entries are named [`MULTISET_ELEMENT`] and
//!   [`MULTISET_COUNT`], as Flink represents a multiset): one column, each
//!   element repeated by its count, in entry order.
//!
//! A NULL collection and an empty one both have no elements. Element order
//! is the physical order of the Arrow value: an array's order, a map's and a
//! multiset's entry order.

mod chunks;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, Int64Array, StructArray, UInt32Array, make_array};
use arrow_buffer::{BooleanBufferBuilder, MutableBuffer, NullBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, Field, FieldRef};

use crate::error::{KernelError, Result};

/// The key field name of a multiset's map entries (Flink's MULTISET is a
/// map from element to count).
pub const MULTISET_ELEMENT: &str = "element";
/// The value field name of a multiset's map entries: the element's count
/// (`Int64`).
pub const MULTISET_COUNT: &str = "count";

/// The data type tenon gives a multiset of `element`: a map from element to
/// its count, entries named [`MULTISET_ELEMENT`] and [`MULTISET_COUNT`].
///
/// ```
/// use arrow_schema::DataType;
/// use tenon_kernels::{Collection, multiset_type};
///
/// let t = multiset_type(DataType::Utf8);
/// assert!(Collection::is_multiset(&t));
/// assert_eq!(Collection::columns(&t).unwrap().len(), 1);
/// ```
pub fn multiset_type(element: DataType) -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(
            vec![
                Field::new(MULTISET_ELEMENT, element, false),
                Field::new(MULTISET_COUNT, DataType::Int64, false),
            ]
            .into(),
        ),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

/// One argument of an expansion: a collection column of the input batch.
#[derive(Debug, Clone)]
pub struct Collection {
    /// The collection column (one value per input row).
    array: ArrayRef,
}

/// Where the elements of one argument lie, per input row.
#[derive(Debug)]
pub(crate) enum Layout<'a> {
    /// `offsets[row]..offsets[row + 1]` into the values.
    I32(&'a [i32]),
    /// As `I32`, 64-bit.
    I64(&'a [i64]),
    /// Row `r` holds `size` values from `(first + r) * size`.
    Fixed { size: usize, first: usize },
}

impl Layout<'_> {
    /// The value range of `row`.
    #[inline]
    pub(crate) fn range(&self, row: usize) -> (usize, usize) {
        match self {
            // offsets of a valid Arrow array are non-negative and ascending
            Layout::I32(o) => (o[row] as usize, o[row + 1] as usize),
            Layout::I64(o) => (o[row] as usize, o[row + 1] as usize),
            Layout::Fixed { size, first } => ((first + row) * size, (first + row + 1) * size),
        }
    }
}

impl Collection {
    /// The collection `array`, checked to be a list, map or multiset.
    ///
    /// # Errors
    /// [`KernelError::InvalidOptions`] naming the type of anything else.
    pub fn new(array: ArrayRef) -> Result<Self> {
        Self::columns(array.data_type())?;
        let c = Collection { array };
        let values = c.element_arrays().first().map_or(0, |v| v.len());
        if values > u32::MAX as usize {
            return Err(KernelError::TooManyRows {
                side: "collection values",
                rows: values,
                max: u32::MAX as usize,
            });
        }
        Ok(c)
    }

    /// Whether `t` is a multiset (module docs).
    pub fn is_multiset(t: &DataType) -> bool {
        match t {
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(fs) => {
                    fs.len() == 2
                        && fs[0].name() == MULTISET_ELEMENT
                        && fs[1].name() == MULTISET_COUNT
                        && matches!(fs[1].data_type(), DataType::Int64 | DataType::Int32)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The columns an argument of type `t` expands to (module docs), all
    /// nullable.
    ///
    /// # Errors
    /// [`KernelError::InvalidOptions`] for a type that is not a list, map or
    /// multiset, saying what it is.
    pub fn columns(t: &DataType) -> Result<Vec<FieldRef>> {
        let nullable = |f: &Field| Arc::new(f.clone().with_nullable(true));
        match t {
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                match f.data_type() {
                    DataType::Struct(fs) => Ok(fs.iter().map(|f| nullable(f)).collect()),
                    _ => Ok(vec![nullable(f)]),
                }
            }
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(fs) if fs.len() == 2 => {
                    if Self::is_multiset(t) {
                        Ok(vec![nullable(&fs[0])])
                    } else {
                        Ok(vec![nullable(&fs[0]), nullable(&fs[1])])
                    }
                }
                other => Err(KernelError::InvalidOptions(format!(
                    "a map whose entries are {other}, not a struct of a key and a value"
                ))),
            },
            other => Err(KernelError::InvalidOptions(format!(
                "{other} is not a collection: only an array (list), a map or a multiset can be \
                 unnested"
            ))),
        }
    }

    /// The per-row layout of the elements.
    pub(crate) fn layout(&self) -> Layout<'_> {
        let a = &self.array;
        match a.data_type() {
            DataType::List(_) => Layout::I32(a.as_list::<i32>().value_offsets()),
            DataType::LargeList(_) => Layout::I64(a.as_list::<i64>().value_offsets()),
            DataType::FixedSizeList(_, size) => Layout::Fixed {
                size: usize::try_from(*size).unwrap_or(0),
                first: a.offset(),
            },
            // checked in `new`: a map
            _ => Layout::I32(a.as_map().value_offsets()),
        }
    }

    /// The multiset's counts, one per entry (`None` for a list or a map).
    pub(crate) fn counts(&self) -> Option<Vec<i64>> {
        if !Self::is_multiset(self.array.data_type()) {
            return None;
        }
        let counts = self.array.as_map().values().to_data();
        let counts = make_array(counts);
        let counts: Vec<i64> = match counts.data_type() {
            DataType::Int32 => counts
                .as_primitive::<Int32Type>()
                .iter()
                .map(|c| i64::from(c.unwrap_or(0)))
                .collect(),
            _ => counts
                .as_primitive::<Int64Type>()
                .iter()
                .map(|c| c.unwrap_or(0))
                .collect(),
        };
        Some(counts)
    }

    /// The NULL rows (they have no elements).
    pub(crate) fn nulls(&self) -> Option<NullBuffer> {
        self.array.nulls().cloned()
    }

    /// The number of input rows.
    pub fn len(&self) -> usize {
        self.array.len()
    }

    /// Whether there are no input rows.
    pub fn is_empty(&self) -> bool {
        self.array.is_empty()
    }

    /// The element arrays the index vectors point into: the list's values,
    /// or the map's keys (and values, unless a multiset).
    fn element_arrays(&self) -> Vec<ArrayRef> {
        let a = &self.array;
        match a.data_type() {
            DataType::List(_) => vec![Arc::clone(a.as_list::<i32>().values())],
            DataType::LargeList(_) => vec![Arc::clone(a.as_list::<i64>().values())],
            DataType::FixedSizeList(_, _) => vec![Arc::clone(a.as_fixed_size_list().values())],
            _ => {
                let m = a.as_map();
                if Self::is_multiset(a.data_type()) {
                    vec![Arc::clone(m.keys())]
                } else {
                    vec![Arc::clone(m.keys()), Arc::clone(m.values())]
                }
            }
        }
    }

    /// The output columns of this argument for one chunk: its element
    /// arrays gathered by `elements` (or sliced, when they are a run), a
    /// struct split into its fields.
    pub(crate) fn gather(&self, elements: &chunks::Elements) -> Result<Vec<ArrayRef>> {
        let mut out = Vec::new();
        for values in self.element_arrays() {
            let gathered = match elements {
                chunks::Elements::Run { start, len } => values.slice(*start, *len),
                chunks::Elements::Indices(ix) => arrow_select::take::take(&values, ix, None)?,
                chunks::Elements::Pieces { pieces, len, nulls } => {
                    copy_pieces(&values, pieces, *len, *nulls)?
                }
            };
            if matches!(self.array.data_type(), DataType::List(f) | DataType::LargeList(f)
                | DataType::FixedSizeList(f, _) if matches!(f.data_type(), DataType::Struct(_)))
            {
                out.extend(struct_fields(&gathered));
            } else {
                out.push(gathered);
            }
        }
        Ok(out)
    }
}

/// The fields of a struct array as columns, a NULL struct making each of
/// its fields NULL.
fn struct_fields(a: &ArrayRef) -> Vec<ArrayRef> {
    let s: &StructArray = a.as_struct();
    s.columns()
        .iter()
        .map(|c| match s.nulls() {
            None => Arc::clone(c),
            Some(outer) => {
                let nulls = NullBuffer::union(Some(outer), c.nulls());
                // `build` validates the data again (no unchecked path)
                match c.to_data().into_builder().nulls(nulls).build() {
                    Ok(d) => make_array(d),
                    Err(_) => Arc::clone(c),
                }
            }
        })
        .collect()
}

/// An expansion: each input row joined with the elements of its
/// collections (module docs).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, ListArray, types::Int64Type};
/// use tenon_kernels::{Collection, Expand};
///
/// let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
/// let arr = ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
///     Some(vec![Some(10), Some(11)]),
///     Some(vec![]),
///     None,
/// ]);
/// let arg = Collection::new(Arc::new(arr)).unwrap();
/// let mut rows = Vec::new();
/// Expand::new(true, true)
///     .run(&[ids], &[arg], 8192, &mut |cols| {
///         rows.push(cols);
///         Ok(())
///     })
///     .unwrap();
/// // LEFT with ordinality: (1, 10, 1), (1, 11, 2), (2, NULL, NULL), (3, NULL, NULL)
/// assert_eq!(rows[0][0].len(), 4);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Expand {
    /// Keep a row without elements once, with NULL elements (LEFT).
    outer: bool,
    /// Add the 1-based position of each element in its row.
    ordinality: bool,
}

impl Expand {
    /// An expansion, `outer` for the LEFT form, `ordinality` for `WITH
    /// ORDINALITY`.
    pub fn new(outer: bool, ordinality: bool) -> Self {
        Expand { outer, ordinality }
    }

    /// Expands the rows of `columns` (the input's columns to carry, all of
    /// one length) with the collections `args` (of that length too),
    /// calling `sink` with the output columns of each chunk of at most
    /// `max_rows` rows: the gathered `columns`, each argument's element
    /// columns ([`Collection::columns`]), then the ordinality (`Int64`).
    ///
    /// # Errors
    /// [`KernelError::InvalidOptions`] when the lengths differ or there is
    /// no argument, Arrow's gather errors, and `sink`'s.
    pub fn run(
        &self,
        columns: &[ArrayRef],
        args: &[Collection],
        max_rows: usize,
        sink: &mut dyn FnMut(Vec<ArrayRef>) -> Result<()>,
    ) -> Result<()> {
        let Some(rows) = args.first().map(Collection::len) else {
            return Err(KernelError::InvalidOptions(
                "an expansion needs at least one collection".into(),
            ));
        };
        if args.iter().any(|a| a.len() != rows) || columns.iter().any(|c| c.len() != rows) {
            return Err(KernelError::InvalidOptions(
                "the columns and collections of an expansion differ in length".into(),
            ));
        }
        if rows > u32::MAX as usize {
            return Err(KernelError::TooManyRows {
                side: "expanded",
                rows,
                max: u32::MAX as usize,
            });
        }
        let mut chunks = chunks::Chunks::new(
            args,
            self.outer,
            self.ordinality,
            !columns.is_empty(),
            max_rows.max(1),
        );
        while let Some(chunk) = chunks.next_chunk() {
            if chunk.rows == 0 {
                continue;
            }
            let mut out = Vec::with_capacity(columns.len() + args.len() + 1);
            for c in columns {
                out.push(match &chunk.parents {
                    chunks::Elements::Run { start, len } => c.slice(*start, *len),
                    chunks::Elements::Indices(ix) => arrow_select::take::take(c, ix, None)?,
                    chunks::Elements::Pieces { pieces, len, nulls } => {
                        copy_pieces(c, pieces, *len, *nulls)?
                    }
                });
            }
            for (arg, elements) in args.iter().zip(&chunk.elements) {
                out.extend(arg.gather(elements)?);
            }
            if let Some(ordinal) = chunk.ordinal {
                out.push(Arc::new(ordinal) as ArrayRef);
            }
            sink(out)?;
        }
        Ok(())
    }
}

/// [`copy_pieces`] of fixed-width values without NULLs into a column with
/// NULLs (a LEFT expansion's padding): the bytes of each stretch copied,
/// the validity made all-valid once and cleared at the NULL pieces (not
/// appended stretch by stretch).
fn copy_fixed_width(
    values: &ArrayRef,
    width: usize,
    pieces: &[chunks::Piece],
    len: usize,
) -> Result<ArrayRef> {
    let data = values.to_data();
    let bytes = &data.buffers()[0].as_slice()[data.offset() * width..];
    let mut out = MutableBuffer::with_capacity(len * width);
    let mut valid = BooleanBufferBuilder::new(len);
    valid.append_n(len, true);
    let mut at = 0;
    for piece in pieces {
        match *piece {
            chunks::Piece::Range(start, end) => {
                out.extend_from_slice(&bytes[start * width..end * width]);
                at += end - start;
            }
            chunks::Piece::Nulls(n) => {
                out.extend_zeros(n * width);
                for i in at..at + n {
                    valid.set_bit(i, false);
                }
                at += n;
            }
            chunks::Piece::Repeat(index, n) => {
                for _ in 0..n {
                    out.extend_from_slice(&bytes[index * width..(index + 1) * width]);
                }
                at += n;
            }
        }
    }
    let data = ArrayDataBuilder::new(values.data_type().clone())
        .len(len)
        .add_buffer(out.into())
        .nulls(Some(NullBuffer::new(valid.finish())))
        .build()?;
    Ok(make_array(data))
}

/// An index vector with no NULLs, for the gathers.
pub(crate) fn indices(v: Vec<u32>) -> UInt32Array {
    UInt32Array::new(v.into(), None)
}

/// The values of `pieces` copied one stretch at a time (a memory copy per
/// stretch for fixed-width values, not an index per value).
///
/// # Errors
/// Arrow's, when the copied values overflow their offsets (over 2 GiB of
/// strings in one chunk).
fn copy_pieces(
    values: &ArrayRef,
    pieces: &[chunks::Piece],
    len: usize,
    nulls: bool,
) -> Result<ArrayRef> {
    if nulls
        && values.null_count() == 0
        && let Some(width) = values.data_type().primitive_width()
    {
        return copy_fixed_width(values, width, pieces, len);
    }
    let data = values.to_data();
    let mut out = MutableArrayData::new(vec![&data], nulls, len);
    for piece in pieces {
        match *piece {
            chunks::Piece::Range(start, end) => out.try_extend(0, start, end)?,
            chunks::Piece::Nulls(n) => out.try_extend_nulls(n)?,
            chunks::Piece::Repeat(index, n) => {
                for _ in 0..n {
                    out.try_extend(0, index, index + 1)?;
                }
            }
        }
    }
    Ok(make_array(out.freeze()))
}

/// An ordinality column.
pub(crate) fn ordinals(v: Vec<i64>, nulls: Option<NullBuffer>) -> Int64Array {
    Int64Array::new(v.into(), nulls)
}

#[cfg(test)]
mod tests;
