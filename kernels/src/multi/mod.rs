//! The multi-way join: a chain of INNER and LEFT joins of several inputs
//! on one common key, run as one operator (Flink's MultiJoin, the
//! `MULTI_JOIN` hint) that keeps no intermediate result.
//!
//! A binary plan of `a JOIN b ON a.k = b.k JOIN c ON b.k = c.k` makes
//! `a ⋈ b` first, and the join with `c` holds it (a sort, a partitioned
//! or a built side) when it is not the probe side. When every join of the
//! chain is on the same key, each output row combines rows of one key of
//! every input, so no intermediate is needed: the multi-way join groups
//! the rows of every input but the first by key once ([`MultiJoin::build`],
//! each input's groups built in parallel), then streams the first input:
//! a row's key finds its group in every other input with one lookup each,
//! and the output is the combinations of those groups' rows, at most
//! `batch_size` rows a batch however many a key has.
//!
//! # Semantics
//!
//! Input `i > 0` is joined by step `i` ([`MultiJoinStep`]), INNER or LEFT,
//! whose condition equates its key with the key of the earlier inputs
//! `refers` (the inputs the ON clause names). As in the binary plan, a
//! step matches only when each input it refers to is present in the
//! combination (a LEFT step's input that had no rows is NULL, and
//! `NULL = k` is not true): an INNER step then drops the combination, a
//! LEFT one adds NULLs. A NULL key matches nothing.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, Int64Array, RecordBatch};
//! use arrow_schema::{DataType, Field, Schema};
//! use tenon_kernels::{JoinType, MemoryBudget, MultiJoin, MultiJoinStep};
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, true)]));
//! let col = |v: Vec<i64>| RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(v))]).unwrap();
//! let join = MultiJoin::new(
//!     vec![vec![0], vec![0], vec![0]],
//!     vec![MultiJoinStep::new(JoinType::Inner, vec![0]), MultiJoinStep::new(JoinType::Left, vec![1])],
//! )?;
//! let schemas = vec![schema.clone(), schema.clone(), schema.clone()];
//! // b has key 1 twice, c has key 1 once; key 2 is in a and b only
//! let tables = join.build(&schemas, vec![vec![col(vec![1, 1, 2])], vec![col(vec![1])]], &MemoryBudget::unlimited())?;
//! let mut rows = 0;
//! tables.probe(&col(vec![1, 2, 3]), &mut |b| { rows += b.num_rows(); Ok(()) })?;
//! assert_eq!(rows, 3); // (1,1,1) twice, (2,2,NULL) once; 3 matches no b
//! # Ok::<(), tenon_kernels::KernelError>(())
//! ```

mod emit;
mod index;

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;

use crate::error::{KernelError, Result};
use crate::join_type::JoinType;
use crate::kernel::compact_views;
use crate::kernel::dispatch::with_key_encoding;
use crate::keys::KeyKind;
use crate::memory::{MemoryBudget, MemoryReservation, batch_bytes};
use index::KeyIndex;

/// How one input after the first joins the chain: its join type and the
/// earlier inputs its condition names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiJoinStep {
    /// INNER or LEFT.
    pub join_type: JoinType,
    /// The earlier inputs (by position) whose key the condition equates
    /// with this input's: the step matches only where all are present.
    pub refers: Vec<usize>,
}

impl MultiJoinStep {
    /// A step of `join_type` whose condition names the inputs `refers`.
    pub fn new(join_type: JoinType, refers: Vec<usize>) -> Self {
        MultiJoinStep { join_type, refers }
    }
}

/// A configured multi-way join (module docs): the key columns of every
/// input, the steps, the output columns and the batch size.
#[derive(Debug, Clone)]
pub struct MultiJoin {
    keys: Vec<Vec<usize>>,
    steps: Vec<MultiJoinStep>,
    projections: Option<Vec<Vec<usize>>>,
    batch_size: usize,
}

impl MultiJoin {
    /// A multi-way join of `keys.len()` inputs, input `i`'s key being its
    /// columns `keys[i]` (the same number and types for every input), the
    /// inputs after the first joined by `steps` in order.
    ///
    /// # Errors
    ///
    /// [`KernelError::InvalidOptions`] for fewer than two inputs, a step
    /// count that is not one less than the inputs, a step neither INNER
    /// nor LEFT or referring to no earlier input, or keys of different
    /// lengths.
    pub fn new(keys: Vec<Vec<usize>>, steps: Vec<MultiJoinStep>) -> Result<Self> {
        let bad = |m: String| Err(KernelError::InvalidOptions(m));
        if keys.len() < 2 || steps.len() + 1 != keys.len() {
            return bad(format!(
                "a multi-way join needs two or more inputs and one step for each after the \
                 first (got {} inputs, {} steps)",
                keys.len(),
                steps.len()
            ));
        }
        if keys[0].is_empty() || keys.iter().any(|k| k.len() != keys[0].len()) {
            return bad("every input of a multi-way join needs the same number of key columns (at least one)".into());
        }
        for (i, s) in steps.iter().enumerate() {
            if !matches!(s.join_type, JoinType::Inner | JoinType::Left) {
                return bad(format!(
                    "a multi-way join runs INNER and LEFT joins only, not {:?}",
                    s.join_type
                ));
            }
            if s.refers.is_empty() || s.refers.iter().any(|&r| r > i) {
                return bad(format!(
                    "step {} of a multi-way join must refer to earlier inputs (0..={i})",
                    i + 1
                ));
            }
        }
        Ok(MultiJoin {
            keys,
            steps,
            projections: None,
            batch_size: 8192,
        })
    }

    /// The columns of each input the output holds, in order (default:
    /// all of every input).
    pub fn projections(mut self, projections: Vec<Vec<usize>>) -> Self {
        self.projections = Some(projections);
        self
    }

    /// Rows per output batch (at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        self.keys.len()
    }

    fn projection(&self, i: usize, schema: &Schema) -> Vec<usize> {
        match &self.projections {
            Some(p) => p.get(i).cloned().unwrap_or_default(),
            None => (0..schema.fields().len()).collect(),
        }
    }

    /// The output schema over the inputs' `schemas`: each input's
    /// projected fields in input order, those of LEFT steps nullable.
    ///
    /// # Errors
    ///
    /// A wrong number of schemas, or a projection or key column out of
    /// range.
    pub fn output_schema(&self, schemas: &[SchemaRef]) -> Result<SchemaRef> {
        self.check_schemas(schemas)?;
        let mut fields: Vec<Field> = Vec::new();
        for (i, s) in schemas.iter().enumerate() {
            let outer = i > 0 && self.steps[i - 1].join_type == JoinType::Left;
            for c in self.projection(i, s) {
                let f = s.field(c).clone();
                let nullable = f.is_nullable() || outer;
                fields.push(f.with_nullable(nullable));
            }
        }
        Ok(Arc::new(Schema::new(fields)))
    }

    /// The key types, checked equal for every input.
    fn check_schemas(&self, schemas: &[SchemaRef]) -> Result<Vec<DataType>> {
        if schemas.len() != self.keys.len() {
            return Err(KernelError::InvalidOptions(format!(
                "a multi-way join of {} inputs got {} schemas",
                self.keys.len(),
                schemas.len()
            )));
        }
        let width_ok = |s: &Schema, cols: &[usize]| cols.iter().all(|&c| c < s.fields().len());
        for (i, s) in schemas.iter().enumerate() {
            if !width_ok(s, &self.keys[i]) || !width_ok(s, &self.projection(i, s)) {
                return Err(KernelError::InvalidOptions(format!(
                    "a key or output column of input {i} of a multi-way join is out of range"
                )));
            }
        }
        let types = |i: usize| -> Vec<DataType> {
            self.keys[i]
                .iter()
                .map(|&c| schemas[i].field(c).data_type().clone())
                .collect()
        };
        let first = types(0);
        for i in 1..schemas.len() {
            let t = types(i);
            if let Some(k) = (0..t.len()).find(|&k| t[k] != first[k]) {
                return Err(KernelError::KeyTypeMismatch {
                    index: k,
                    left: first[k].clone(),
                    right: t[k].clone(),
                });
            }
        }
        Ok(first)
    }

    /// Groups every input but the first by key (`built[i - 1]` holds input
    /// `i`'s batches), in parallel, charging what it keeps to `memory`;
    /// [`MultiJoinTables::probe`] then streams the first input.
    ///
    /// # Errors
    ///
    /// Schemas or keys that do not fit the join, key types no kernel
    /// supports, or the budget's refusal.
    pub fn build(
        &self,
        schemas: &[SchemaRef],
        built: Vec<Vec<RecordBatch>>,
        memory: &MemoryBudget,
    ) -> Result<MultiJoinTables> {
        let types = self.check_schemas(schemas)?;
        if built.len() + 1 != self.keys.len() {
            return Err(KernelError::InvalidOptions(format!(
                "a multi-way join of {} inputs got {} built inputs",
                self.keys.len(),
                built.len()
            )));
        }
        let kind = KeyKind::for_join(&types, false)?;
        let out_schema = self.output_schema(schemas)?;
        let mut charge = memory.try_reserve("a multi-way join's grouped inputs", 0)?;
        // One batch per input, of its key and output columns.
        let mut batches = Vec::with_capacity(built.len());
        for (i, input) in built.into_iter().enumerate() {
            let schema = &schemas[i + 1];
            let bytes: usize = input.iter().map(batch_bytes).sum();
            charge.grow(bytes)?;
            let one = arrow_select::concat::concat_batches(schema, &input)?;
            drop(input);
            if one.num_rows() >= u32::MAX as usize {
                return Err(KernelError::TooManyRows {
                    side: "a multi-way join's built input",
                    rows: one.num_rows(),
                    max: u32::MAX as usize - 1,
                });
            }
            batches.push(compact_views(one)?);
        }
        let inner = with_key_encoding!(&kind, S => {
            let indexes: Vec<Result<KeyIndex<S>>> = batches
                .into_par_iter()
                .enumerate()
                .map(|(i, b)| {
                    let cols: Vec<ArrayRef> = self.keys[i + 1].iter().map(|&c| b.column(c).clone()).collect();
                    KeyIndex::<S>::build(b, &cols, &kind)
                })
                .collect();
            let indexes = indexes.into_iter().collect::<Result<Vec<_>>>()?;
            charge.grow(indexes.iter().map(KeyIndex::index_bytes).sum())?;
            Box::new(emit::Tables::<S> {
                indexes,
                join: self.clone(),
                schemas: schemas.to_vec(),
                out_schema: Arc::clone(&out_schema),
                kind: kind.clone(),
            }) as Box<dyn emit::Probe>
        });
        Ok(MultiJoinTables {
            inner,
            _charge: charge,
        })
    }
}

/// A multi-way join's grouped inputs, ready to stream the first input
/// through ([`MultiJoin::build`]). Probing is read-only: several threads
/// may probe batches at once.
pub struct MultiJoinTables {
    inner: Box<dyn emit::Probe>,
    _charge: MemoryReservation,
}

impl std::fmt::Debug for MultiJoinTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiJoinTables").finish_non_exhaustive()
    }
}

impl MultiJoinTables {
    /// Joins `batch` (rows of the first input) with the grouped inputs,
    /// passing the output to `emit` in batches of at most the batch size.
    ///
    /// # Errors
    ///
    /// A batch not of the first input's schema, or `emit`'s error (which
    /// stops the probe).
    pub fn probe(
        &self,
        batch: &RecordBatch,
        emit: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        self.inner.probe(batch, emit)
    }

    /// The output schema.
    pub fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }
}
