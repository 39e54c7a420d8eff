//! Running an expansion ([`Operator::Expand`]): each input batch's
//! arguments evaluated, then the kernel's expansion (`UNNEST`) or the table
//! function's call, output pushed in batches of at most the batch size.
//!
//! Streaming, on whatever worker produced the input batch, so the expansion
//! runs in parallel over the input's morsels. A table function's rows are
//! matched to their input rows by the tags it gives them; the LEFT form
//! pads the input rows it gave nothing with one row of NULLs. What each
//! output batch is made from (parents, positions, stretches) is charged to
//! the query's budget while it is made.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, UInt32Array, new_null_array};
use arrow_buffer::NullBuffer;

use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};
use crate::sql::ExpandKind;
use crate::table_function::{TableFunction, TableFunctionRows};
use tenon_kernels::{Collection, Expand};

impl Run<'_> {
    /// Runs expansion `plan` into `sink` (which records its output rows).
    pub(super) fn expand(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        let Operator::Expand {
            input,
            args,
            kind,
            outer,
            keep,
            text,
        } = &plan.operator
        else {
            return Err(ExecError::Unsupported(
                "internal: an expansion's run got another operator".into(),
            ));
        };
        let metrics = &plan.metrics;
        let size = self.batch_size;
        let schema = &plan.schema;
        let make = |columns: Vec<ArrayRef>, rows: usize| {
            RecordBatch::try_new_with_options(
                schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )
            .map_err(|e| ExecError::arrow(format!("the expansion {text}"), e))
        };
        self.push(input, &|b: RecordBatch| {
            let start = Instant::now();
            let values = args
                .iter()
                .map(|a| a.evaluate(&b))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let carried: Vec<ArrayRef> = keep.iter().map(|&c| Arc::clone(b.column(c))).collect();
            // what one output batch is made from, at most: a 4-byte parent
            // and an 8-byte position a row, and per argument a stretch (24
            // bytes) a row when no two rows' values touch
            let _charge = self.budget_of(plan).try_reserve(
                "an expansion's output batch",
                size * (4 + 8 + 24 * values.len()),
            )?;
            let mut failed: Option<ExecError> = None;
            match kind {
                ExpandKind::Unnest { ordinality } => {
                    let collections = values
                        .into_iter()
                        .map(Collection::new)
                        .collect::<tenon_kernels::Result<Vec<_>>>()?;
                    Expand::new(*outer, *ordinality)
                        .run(&carried, &collections, size, &mut |columns| {
                            let rows = columns.first().map_or(0, |c| c.len());
                            let batch = make(columns, rows).and_then(sink);
                            batch.map_err(|e| {
                                let message = e.to_string();
                                failed = Some(e);
                                tenon_kernels::KernelError::InvalidOptions(message)
                            })
                        })
                        .map_err(|e| match failed.take() {
                            Some(original) => original,
                            None => e.into(),
                        })?;
                }
                ExpandKind::Function(f) => {
                    call(
                        f.as_ref(),
                        &values,
                        &carried,
                        *outer,
                        size,
                        text,
                        &mut |cols| {
                            let rows = cols.first().map_or(0, |c| c.len());
                            let batch = make(cols, rows)?;
                            metrics.record(&batch);
                            sink(batch)
                        },
                    )?;
                }
            }
            metrics.add_time(start.elapsed());
            Ok(())
        })
    }
}

/// Calls table function `f` for one batch: each chunk it returns joined with
/// the carried columns of its rows; with `outer`, the rows it returned
/// nothing for padded with NULLs, in row order.
fn call(
    f: &dyn TableFunction,
    args: &[ArrayRef],
    carried: &[ArrayRef],
    outer: bool,
    size: usize,
    text: &str,
    out: &mut dyn FnMut(Vec<ArrayRef>) -> Result<()>,
) -> Result<()> {
    let rows = args.first().map_or(0, |a| a.len());
    let mut failed: Option<ExecError> = None;
    // the next input row not yet given its rows (or padding)
    let mut next: u32 = 0;
    let mut null_types: Option<Vec<arrow_schema::DataType>> = None;
    let mut emit = |chunk: TableFunctionRows, next: &mut u32| -> Result<()> {
        let tags = chunk.rows.values();
        if tags.windows(2).any(|w| w[0] > w[1])
            || tags.first().is_some_and(|&t| t < next.saturating_sub(1))
        {
            return Err(ExecError::Unsupported(format!(
                "table function `{}` returned rows out of input order (its rows must ascend)",
                f.name()
            )));
        }
        if tags.last().is_some_and(|&t| t as usize >= rows) {
            return Err(ExecError::Unsupported(format!(
                "table function `{}` returned a row for input row {} of a batch of {rows}",
                f.name(),
                tags.last().copied().unwrap_or(0)
            )));
        }
        null_types.get_or_insert_with(|| {
            chunk
                .columns
                .iter()
                .map(|c| c.data_type().clone())
                .collect()
        });
        // with `outer`: the input rows before each tag that got nothing
        let (parents, columns) = if outer {
            pad(&chunk, *next)?
        } else {
            (chunk.rows.clone(), chunk.columns.clone())
        };
        if let Some(&last) = tags.last() {
            *next = (*next).max(last + 1);
        }
        let mut cols = take_all(carried, &parents)?;
        cols.extend(columns);
        out(cols)
    };
    let result = f.call(args, size, &mut |chunk| {
        emit(chunk, &mut next).map_err(|e| {
            let m = e.to_string();
            failed = Some(e);
            m
        })
    });
    if let Err(message) = result {
        return Err(failed
            .take()
            .unwrap_or_else(|| ExecError::Unsupported(format!("`{text}`: {message}"))));
    }
    if outer && (next as usize) < rows {
        // the rows after the last tagged one
        let parents = UInt32Array::from_iter_values(next..rows as u32);
        let mut cols = take_all(carried, &parents)?;
        let types = match null_types {
            Some(t) => t,
            None => f
                .columns(
                    &args
                        .iter()
                        .map(|a| a.data_type().clone())
                        .collect::<Vec<_>>(),
                )
                .map_err(ExecError::Unsupported)?
                .iter()
                .map(|c| c.data_type().clone())
                .collect(),
        };
        cols.extend(types.iter().map(|t| new_null_array(t, parents.len())));
        out(cols)?;
    }
    Ok(())
}

/// A chunk with the rows from `next` up to its first tag that it has none
/// for padded in (NULL output values), in row order.
fn pad(chunk: &TableFunctionRows, next: u32) -> Result<(UInt32Array, Vec<ArrayRef>)> {
    let tags = chunk.rows.values();
    let mut parents = Vec::with_capacity(tags.len());
    // per output row: the function's row it takes, or None (padding)
    let mut from: Vec<Option<u32>> = Vec::with_capacity(tags.len());
    let mut expect = next;
    for (i, &t) in tags.iter().enumerate() {
        while expect < t {
            parents.push(expect);
            from.push(None);
            expect += 1;
        }
        parents.push(t);
        from.push(Some(i as u32));
        expect = t + 1;
    }
    if from.iter().all(Option::is_some) {
        return Ok((chunk.rows.clone(), chunk.columns.clone()));
    }
    let nulls = NullBuffer::from(from.iter().map(Option::is_some).collect::<Vec<_>>());
    let ix = UInt32Array::new(
        from.iter()
            .map(|f| f.unwrap_or(0))
            .collect::<Vec<_>>()
            .into(),
        Some(nulls),
    );
    let columns = take_all(&chunk.columns, &ix)?;
    Ok((UInt32Array::from(parents), columns))
}

fn take_all(columns: &[ArrayRef], ix: &UInt32Array) -> Result<Vec<ArrayRef>> {
    columns
        .iter()
        .map(|c| {
            arrow_select::take::take(c, ix, None).map_err(|e| ExecError::arrow("an expansion", e))
        })
        .collect()
}
