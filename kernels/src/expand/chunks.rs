//! The index vectors of an expansion, chunk by chunk (module docs of
//! `super`).

use arrow_array::{Int64Array, UInt32Array};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};

use super::{Collection, Layout, indices, ordinals};

/// A stretch of one argument's output values in a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    /// The values `start..end`.
    Range(usize, usize),
    /// `n` NULLs (a LEFT expansion's padding, a zipped argument's end).
    Nulls(usize),
    /// `n` copies of the value at `index` (a multiset's element).
    Repeat(usize, usize),
}

/// Which values one output column of a chunk takes.
#[derive(Debug)]
pub(crate) enum Elements {
    /// `len` values from `start`: a slice, no copy.
    Run { start: usize, len: usize },
    /// One index per output row (the parents of carried columns).
    Indices(UInt32Array),
    /// Stretches copied one after another (an argument's elements: whole
    /// runs of values are copied, not gathered value by value).
    Pieces {
        pieces: Vec<Piece>,
        /// The number of values.
        len: usize,
        /// Whether a [`Piece::Nulls`] is among them.
        nulls: bool,
    },
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

/// The parents being filled: one input row index per output row.
struct Parents {
    /// Whether they are needed (some input column is carried); when not,
    /// nothing is recorded.
    used: bool,
    values: Vec<u32>,
    /// Whether the values so far ascend by one (a slice of the input).
    run: bool,
}

impl Parents {
    fn new(used: bool, capacity: usize) -> Self {
        Parents {
            used,
            values: Vec::with_capacity(capacity),
            run: true,
        }
    }

    /// Appends `n` copies of `row`.
    #[inline]
    fn extend_repeat(&mut self, row: u32, n: usize) {
        if n == 0 || !self.used {
            return;
        }
        if n > 1 || self.values.last().is_some_and(|&l| l + 1 != row) {
            self.run = false;
        }
        self.values.extend(std::iter::repeat_n(row, n));
    }

    fn finish(self) -> Elements {
        if self.run {
            let start = self.values.first().map_or(0, |&v| v as usize);
            return Elements::Run {
                start,
                len: self.values.len(),
            };
        }
        Elements::Indices(indices(self.values))
    }
}

/// One argument's pieces being filled, touching stretches merged.
struct PieceColumn {
    pieces: Vec<Piece>,
    len: usize,
    nulls: bool,
}

impl PieceColumn {
    fn new() -> Self {
        PieceColumn {
            pieces: Vec::new(),
            len: 0,
            nulls: false,
        }
    }

    /// Appends the values `start..end`.
    #[inline]
    fn extend_range(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        self.len += end - start;
        if let Some(Piece::Range(_, last)) = self.pieces.last_mut()
            && *last == start
        {
            *last = end;
            return;
        }
        self.pieces.push(Piece::Range(start, end));
    }

    /// Appends `n` copies of the value at `index`.
    #[inline]
    fn extend_repeat(&mut self, index: usize, n: usize) {
        match n {
            0 => {}
            1 => self.extend_range(index, index + 1),
            _ => {
                self.len += n;
                self.pieces.push(Piece::Repeat(index, n));
            }
        }
    }

    /// Appends `n` NULLs.
    #[inline]
    fn extend_null(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.len += n;
        self.nulls = true;
        if let Some(Piece::Nulls(last)) = self.pieces.last_mut() {
            *last += n;
            return;
        }
        self.pieces.push(Piece::Nulls(n));
    }

    fn finish(self) -> Elements {
        match self.pieces.as_slice() {
            [] => Elements::Run { start: 0, len: 0 },
            [Piece::Range(start, end)] => Elements::Run {
                start: *start,
                len: end - start,
            },
            _ => Elements::Pieces {
                pieces: self.pieces,
                len: self.len,
                nulls: self.nulls,
            },
        }
    }
}

/// The chunks of one batch's expansion.
pub(crate) struct Chunks<'a> {
    args: &'a [Collection],
    layouts: Vec<Layout<'a>>,
    /// Per argument, its NULL rows (read once, not per row).
    nulls: Vec<Option<NullBuffer>>,
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
            nulls: args.iter().map(Collection::nulls).collect(),
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
        if self.nulls[a].as_ref().is_some_and(|n| n.is_null(row)) {
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
    fn push_elements(&self, col: &mut PieceColumn, a: usize, row: usize, from: usize, to: usize) {
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
                    col.extend_repeat(start + e, n);
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
        let mut out = Builders {
            parents: Parents::new(self.with_parents, if self.with_parents { cap } else { 0 }),
            elements: self.args.iter().map(|_| PieceColumn::new()).collect(),
            ordinal: self.ordinality.then(|| Ordinals::new(cap)),
        };
        let room = match (self.args.len(), self.counts.first(), self.layouts.first()) {
            // one list or map: the common case, its loop monomorphized
            (1, Some(None), Some(Layout::I32(o))) => {
                let o = *o;
                self.fill_one(&mut out, |r| (o[r] as usize, o[r + 1] as usize))
            }
            (1, Some(None), Some(Layout::I64(o))) => {
                let o = *o;
                self.fill_one(&mut out, |r| (o[r] as usize, o[r + 1] as usize))
            }
            _ => self.fill(&mut out),
        };
        Some(Chunk {
            rows: self.max_rows - room,
            parents: out.parents.finish(),
            elements: out.elements.into_iter().map(PieceColumn::finish).collect(),
            ordinal: out.ordinal.map(Ordinals::finish),
        })
    }

    /// Fills `out` from one list or map argument whose row `r` holds the
    /// values `range(r)`; returns the room left.
    #[inline]
    fn fill_one(&mut self, out: &mut Builders, range: impl Fn(usize) -> (usize, usize)) -> usize {
        let nulls = self.nulls[0].clone();
        let (mut row, mut done, mut room) = (self.row, self.done, self.max_rows);
        while row < self.rows && room > 0 {
            let (start, end) = range(row);
            let len = if nulls.as_ref().is_some_and(|n| n.is_null(row)) {
                0
            } else {
                end - start
            };
            if len == 0 {
                if self.outer {
                    out.pad(row);
                    room -= 1;
                }
                row += 1;
                continue;
            }
            let take = (len - done).min(room);
            let (from, to) = (done, done + take);
            out.parents.extend_repeat(row as u32, take);
            out.elements[0].extend_range(start + from, start + to);
            if let Some(o) = &mut out.ordinal {
                o.extend_range(from, to);
            }
            room -= take;
            if to == len {
                row += 1;
                done = 0;
            } else {
                done = to;
            }
        }
        (self.row, self.done) = (row, done);
        room
    }

    /// Fills `out` from any arguments (zipped, multisets); returns the room
    /// left.
    fn fill(&mut self, out: &mut Builders) -> usize {
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
                    out.pad(row);
                    room -= 1;
                }
                self.row += 1;
                continue;
            }
            let take = (len - self.done).min(room);
            let (from, to) = (self.done, self.done + take);
            out.parents.extend_repeat(row as u32, take);
            for (a, col) in out.elements.iter_mut().enumerate() {
                let la = self.lens[a];
                let valid_to = to.min(la);
                if from < valid_to {
                    self.push_elements(col, a, row, from, valid_to);
                }
                col.extend_null(take - valid_to.saturating_sub(from));
            }
            if let Some(o) = &mut out.ordinal {
                o.extend_range(from, to);
            }
            room -= take;
            if to == len {
                self.row += 1;
                self.done = 0;
            } else {
                self.done = to;
            }
        }
        room
    }
}

/// The columns of one chunk being filled.
struct Builders {
    parents: Parents,
    elements: Vec<PieceColumn>,
    ordinal: Option<Ordinals>,
}

impl Builders {
    /// A LEFT expansion's row for input `row` without elements: NULL
    /// elements, NULL position.
    fn pad(&mut self, row: usize) {
        // rows fit u32: checked in `Expand::run`
        self.parents.extend_repeat(row as u32, 1);
        for col in &mut self.elements {
            col.extend_null(1);
        }
        if let Some(o) = &mut self.ordinal {
            o.push_null();
        }
    }
}

/// Positions written a block at a time: at most this many in one store.
const BLOCK: usize = 8;

/// The ordinality column being filled.
struct Ordinals {
    /// The positions; past `len`, scratch room of at least [`BLOCK`].
    values: Vec<i64>,
    len: usize,
    /// The positions of the NULLs (padding), made into a validity bitmap
    /// once, at the end.
    null_at: Vec<usize>,
}

impl Ordinals {
    fn new(capacity: usize) -> Self {
        Ordinals {
            values: vec![0; capacity + BLOCK],
            len: 0,
            null_at: Vec::new(),
        }
    }

    /// Appends the positions of elements `from..to` of a row (1-based).
    #[inline]
    fn extend_range(&mut self, from: usize, to: usize) {
        let n = to - from;
        if self.len + n.max(BLOCK) > self.values.len() {
            self.values.resize(self.len + n.max(BLOCK), 0);
        }
        let first = from as i64 + 1;
        let at = self.len;
        if n <= BLOCK {
            // one fixed-size store (what lies past `n` is overwritten next)
            let block: [i64; BLOCK] = std::array::from_fn(|i| first + i as i64);
            self.values[at..at + BLOCK].copy_from_slice(&block);
        } else {
            for (i, v) in self.values[at..at + n].iter_mut().enumerate() {
                *v = first + i as i64;
            }
        }
        self.len += n;
    }

    /// Appends a NULL position.
    fn push_null(&mut self) {
        let len = self.len;
        self.null_at.push(len);
        if len + BLOCK >= self.values.len() {
            self.values.resize(len + 1 + BLOCK, 0);
        }
        self.values[len] = 0;
        self.len += 1;
    }

    fn finish(mut self) -> Int64Array {
        self.values.truncate(self.len);
        let nulls = (!self.null_at.is_empty()).then(|| {
            let mut valid = BooleanBufferBuilder::new(self.len);
            valid.append_n(self.len, true);
            for &at in &self.null_at {
                valid.set_bit(at, false);
            }
            NullBuffer::new(valid.finish())
        });
        ordinals(self.values, nulls)
    }
}
