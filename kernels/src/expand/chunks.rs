//! The index vectors of an expansion, chunk by chunk (module docs of
//! `super`).

use arrow_array::{Int64Array, UInt32Array};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};

use super::{Collection, Layout, indices, ordinals};

/// Which values one output column of a chunk takes.
#[derive(Debug)]
pub(crate) enum Elements {
    /// `len` values from `start`: a slice, no gather.
    Run { start: usize, len: usize },
    /// One index per output row (NULL: a NULL value).
    Indices(UInt32Array),
}

/// One chunk of output rows.
#[derive(Debug)]
pub(crate) struct Chunk {
    /// The number of output rows.
    pub(crate) rows: usize,
    /// The input row of each output row (empty when no input column is
    /// carried).
    pub(crate) parents: Elements,
    /// Per argument, the element of each output row.
    pub(crate) elements: Vec<Elements>,
    /// The 1-based position of each output row in its input row.
    pub(crate) ordinal: Option<Int64Array>,
}

/// An index vector being filled, its validity made only once a NULL comes.
struct Column {
    values: Vec<u32>,
    valid: Option<BooleanBufferBuilder>,
    /// Whether the values so far are one ascending run.
    run: bool,
}

impl Column {
    fn new(capacity: usize) -> Self {
        Column {
            values: Vec::with_capacity(capacity),
            valid: None,
            run: true,
        }
    }

    /// Appends `start..end`.
    #[inline]
    fn extend_range(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        if self.run
            && let Some(&last) = self.values.last()
            && last as usize + 1 != start
        {
            self.run = false;
        }
        // value indices fit u32: checked in `Collection::new`
        self.values.extend(start as u32..end as u32);
        if let Some(v) = &mut self.valid {
            v.append_n(end - start, true);
        }
    }

    /// Appends `n` copies of `value`.
    #[inline]
    fn extend_repeat(&mut self, value: u32, n: usize) {
        if n == 0 {
            return;
        }
        if n > 1 || self.values.last().is_some_and(|&l| l + 1 != value) {
            self.run = false;
        }
        self.values.extend(std::iter::repeat_n(value, n));
        if let Some(v) = &mut self.valid {
            v.append_n(n, true);
        }
    }

    /// Appends `n` NULLs.
    fn extend_null(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.run = false;
        let len = self.values.len();
        let valid = self.valid.get_or_insert_with(|| {
            let mut b = BooleanBufferBuilder::new(len + n);
            b.append_n(len, true);
            b
        });
        valid.append_n(n, false);
        self.values.resize(len + n, 0);
    }

    fn finish(mut self) -> Elements {
        if self.valid.is_none() && self.run {
            let start = self.values.first().map_or(0, |&v| v as usize);
            return Elements::Run {
                start,
                len: self.values.len(),
            };
        }
        let nulls = self.valid.as_mut().map(|v| NullBuffer::new(v.finish()));
        Elements::Indices(indices(self.values, nulls))
    }
}

/// The chunks of one batch's expansion.
pub(crate) struct Chunks<'a> {
    args: &'a [Collection],
    layouts: Vec<Layout<'a>>,
    /// Per argument, a multiset's counts per entry.
    counts: Vec<Option<Vec<i64>>>,
    outer: bool,
    ordinality: bool,
    /// Whether the parents are needed (some input column is carried).
    with_parents: bool,
    max_rows: usize,
    rows: usize,
    /// The next input row.
    row: usize,
    /// Elements of `row` already emitted.
    done: usize,
    /// Per argument, the length of `row` (scratch).
    lens: Vec<usize>,
}

impl<'a> Chunks<'a> {
    pub(crate) fn new(
        args: &'a [Collection],
        outer: bool,
        ordinality: bool,
        with_parents: bool,
        max_rows: usize,
    ) -> Self {
        Chunks {
            args,
            layouts: args.iter().map(Collection::layout).collect(),
            counts: args.iter().map(Collection::counts).collect(),
            outer,
            ordinality,
            with_parents,
            max_rows,
            rows: args.first().map_or(0, Collection::len),
            row: 0,
            done: 0,
            lens: vec![0; args.len()],
        }
    }

    /// The length of argument `a` in `row`: its elements, a multiset's
    /// counts summed; 0 for NULL.
    #[inline]
    fn len_of(&self, a: usize, row: usize) -> usize {
        if self.args[a].is_null(row) {
            return 0;
        }
        let (start, end) = self.layouts[a].range(row);
        match &self.counts[a] {
            None => end - start,
            Some(counts) => counts[start..end]
                .iter()
                .map(|&c| usize::try_from(c).unwrap_or(0))
                .sum(),
        }
    }

    /// Appends the elements `from..to` of argument `a` in `row`.
    fn push_elements(&self, col: &mut Column, a: usize, row: usize, from: usize, to: usize) {
        let (start, end) = self.layouts[a].range(row);
        match &self.counts[a] {
            None => col.extend_range(start + from, start + to),
            Some(counts) => {
                // walk the entries to the `from`-th element, then repeat
                let mut seen = 0usize;
                let mut need = to - from;
                for (e, &c) in counts[start..end].iter().enumerate() {
                    let c = usize::try_from(c).unwrap_or(0);
                    if seen + c <= from {
                        seen += c;
                        continue;
                    }
                    let skip = from.saturating_sub(seen);
                    let n = (c - skip).min(need);
                    col.extend_repeat((start + e) as u32, n);
                    need -= n;
                    seen += c;
                    if need == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// The next chunk, or `None` after the last row.
    pub(crate) fn next_chunk(&mut self) -> Option<Chunk> {
        if self.row >= self.rows {
            return None;
        }
        let cap = self.max_rows.min(1 << 16);
        let mut parents = Column::new(if self.with_parents { cap } else { 0 });
        let mut elements: Vec<Column> = self.args.iter().map(|_| Column::new(cap)).collect();
        let mut ordinal: Vec<i64> = Vec::new();
        let mut ordinal_valid: Option<BooleanBufferBuilder> = None;
        let mut room = self.max_rows;
        while self.row < self.rows && room > 0 {
            let row = self.row;
            let mut len = 0;
            for a in 0..self.args.len() {
                self.lens[a] = self.len_of(a, row);
                len = len.max(self.lens[a]);
            }
            if len == 0 {
                if self.outer {
                    if self.with_parents {
                        parents.extend_repeat(row as u32, 1);
                    }
                    for col in &mut elements {
                        col.extend_null(1);
                    }
                    if self.ordinality {
                        let n = ordinal.len();
                        ordinal_valid
                            .get_or_insert_with(|| {
                                let mut b = BooleanBufferBuilder::new(n + 1);
                                b.append_n(n, true);
                                b
                            })
                            .append(false);
                        ordinal.push(0);
                    }
                    room -= 1;
                }
                self.row += 1;
                continue;
            }
            let take = (len - self.done).min(room);
            let (from, to) = (self.done, self.done + take);
            if self.with_parents {
                parents.extend_repeat(row as u32, take);
            }
            for (a, col) in elements.iter_mut().enumerate() {
                let la = self.lens[a];
                let valid_to = to.min(la);
                if from < valid_to {
                    self.push_elements(col, a, row, from, valid_to);
                }
                col.extend_null(take - valid_to.saturating_sub(from));
            }
            if self.ordinality {
                ordinal.extend((from as i64 + 1)..=(to as i64));
                if let Some(v) = &mut ordinal_valid {
                    v.append_n(take, true);
                }
            }
            room -= take;
            if to == len {
                self.row += 1;
                self.done = 0;
            } else {
                self.done = to;
            }
        }
        let ordinal = self.ordinality.then(|| {
            let nulls = ordinal_valid.as_mut().map(|v| NullBuffer::new(v.finish()));
            ordinals(ordinal, nulls)
        });
        Some(Chunk {
            rows: self.max_rows - room,
            parents: parents.finish(),
            elements: elements.into_iter().map(Column::finish).collect(),
            ordinal,
        })
    }
}
