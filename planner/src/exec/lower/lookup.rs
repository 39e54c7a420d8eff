//! Lowering a lookup join (`FOR SYSTEM_TIME AS OF l.proctime` against a
//! lookup table) onto [`Operator::Lookup`]: the key split from the ON
//! condition (`crate::lookup::lookup_keys`), the probe keys cast to their
//! key columns' types, the table columns to fetch (the keys', then what
//! the output and the residual read), and the residual bound to the pair
//! of a probe batch and its fetched rows.

use arrow_schema::{DataType, Field};
use datafusion_common::Column;
use datafusion_expr::logical_plan::Join as LogicalJoin;
use datafusion_expr::{Cast, Expr, ExprSchemable, LogicalPlan};

use super::{Lowered, Lowering, schema_of, union};
use crate::choose::JoinChoice;
use crate::exec::lookup::{LookupJoin, LookupMetrics};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, Result};
use crate::expr::PhysicalExpr;
use crate::lookup::{KeyValue, LookupOptions, lookup_keys};
use crate::sql::TimeJoin;
use tenon_kernels::JoinType;

/// The lookup table under a join's right input: its name and, per column
/// of the input, the table column it is.
fn lookup_scan(plan: &LogicalPlan) -> Option<(String, Vec<usize>)> {
    match plan {
        LogicalPlan::SubqueryAlias(a) => lookup_scan(&a.input),
        LogicalPlan::TableScan(scan) if scan.filters.is_empty() && scan.fetch.is_none() => {
            let width = scan.projected_schema.fields().len();
            let columns = match &scan.projection {
                Some(p) => p.clone(),
                None => (0..width).collect(),
            };
            Some((scan.table_name.table().to_string(), columns))
        }
        _ => None,
    }
}

impl Lowering<'_> {
    pub(super) fn lookup_join(
        &mut self,
        join: &LogicalJoin,
        time: TimeJoin,
        choice: JoinChoice,
        need: &[usize],
        options: LookupOptions,
    ) -> Result<Lowered> {
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let lw = lschema.fields().len();
        let outer = match choice.join_type {
            JoinType::Inner => false,
            JoinType::Left => true,
            other => {
                return Err(ExecError::Unsupported(format!(
                    "internal: the lookup join {} as a {other} join",
                    time.clause
                )));
            }
        };
        let (table, table_columns) = lookup_scan(&join.right).ok_or_else(|| {
            ExecError::Unsupported(format!(
                "the lookup join {}: its right side must be the lookup table itself (not a \
                 view, subquery or filtered table); put conditions on it in ON",
                time.clause
            ))
        })?;
        let data = self
            .tables
            .get(&table)
            .ok_or_else(|| ExecError::MissingTable(table.clone()))?;
        // an equality on a column the source cannot look up by filters the
        // fetched rows instead (LookupSource::can_look_up_by)
        let source = data.lookup.clone();
        let indexable = |column: &Column| {
            let table_column = rschema
                .index_of_column(column)
                .ok()
                .and_then(|rc| table_columns.get(rc));
            match (&source, table_column) {
                (Some(s), Some(&c)) => s.can_look_up_by(c),
                _ => true,
            }
        };
        let split = lookup_keys(&join.on, time.residual.as_ref(), rschema, &indexable);
        let mut probe_exprs = Vec::new();
        let (mut probe_cols, mut constant_cols) = (Vec::new(), Vec::new());
        let mut constants = Vec::new();
        let mut texts = Vec::new();
        for (column, value) in &split.keys {
            let rc = rschema.index_of_column(column).map_err(|e| {
                ExecError::Unsupported(format!("the lookup key column `{column}`: {e}"))
            })?;
            let to: &DataType = rschema.field(rc).data_type();
            match value {
                KeyValue::Probe(e) => {
                    texts.push(format!("{e} = {column}"));
                    let t = e.get_type(lschema).map_err(|err| {
                        ExecError::Unsupported(format!("the type of `{e}`: {err}"))
                    })?;
                    let e = if &t == to {
                        e.clone()
                    } else {
                        Expr::Cast(Cast::new(Box::new(e.clone()), to.clone()))
                    };
                    probe_exprs.push(PhysicalExpr::compile(&e, lschema, self.ctx)?);
                    probe_cols.push(rc);
                }
                KeyValue::Constant(v) => {
                    texts.push(format!("{column} = {v}"));
                    let v = v.cast_to(to).map_err(|e| {
                        ExecError::Unsupported(format!(
                            "the lookup key `{column} = {v}`: the constant does not fit the \
                             column's type {to}: {e}"
                        ))
                    })?;
                    constants.push(v);
                    constant_cols.push(rc);
                }
            }
        }
        if let Some(s) = source.as_ref().filter(|_| probe_cols.is_empty()) {
            let able: Vec<&str> = (0..data.schema.fields().len())
                .filter(|&c| s.can_look_up_by(c))
                .map(|c| data.schema.field(c).name().as_str())
                .collect();
            return Err(ExecError::Unsupported(format!(
                "the lookup join {}: {} looks rows up only by {}, and ON compares none of \
                 those with a probe column (`probe.x = lookup.{}`); equalities on other \
                 columns only filter the fetched rows",
                time.clause,
                s.describe(),
                if able.is_empty() {
                    "no column".to_string()
                } else {
                    able.join(", ")
                },
                able.first().copied().unwrap_or("key")
            )));
        }
        if probe_cols.is_empty() {
            return Err(ExecError::Unsupported(format!(
                "the lookup join {} has no equality of a probe column with a column of the \
                 lookup table: a lookup fetches each probe row's rows by its key, so ON needs \
                 `probe.x = lookup.key`",
                time.clause
            )));
        }
        let combined = lschema.join(rschema).map_err(|e| {
            ExecError::Unsupported(format!("the join's inputs have clashing columns: {e}"))
        })?;
        let residual = split
            .residual
            .as_ref()
            .map(|r| PhysicalExpr::compile(r, &combined, self.ctx))
            .transpose()?;
        let residual_cols = residual.as_ref().map(|r| r.columns()).unwrap_or_default();
        // the right input's columns to fetch: the probe keys', then the rest
        let mut fetched: Vec<usize> = probe_cols.clone();
        for c in need
            .iter()
            .chain(&residual_cols)
            .filter(|&&c| c >= lw)
            .map(|&c| c - lw)
        {
            if !fetched.contains(&c) {
                fetched.push(c);
            }
        }
        let left_need = union(
            need.iter().copied().filter(|&c| c < lw).collect(),
            residual_cols
                .iter()
                .copied()
                .filter(|&c| c < lw)
                .chain(probe_exprs.iter().flat_map(|e| e.columns())),
        );
        let left = self.child(&join.left, &left_need)?;
        let lpos = left.positions(lw);
        let left_width = left.plan.schema.fields().len();
        let probe_keys: Vec<PhysicalExpr> = probe_exprs
            .iter()
            .map(|e| e.remap_columns(&|c| lpos[c]))
            .collect();
        let residual = residual.map(|r| {
            r.remap_columns(&|c| {
                if c < lw {
                    lpos[c]
                } else {
                    left_width + fetched.iter().position(|&f| f == c - lw).unwrap_or(0)
                }
            })
        });
        let left_out: Vec<usize> = need.iter().copied().filter(|&c| c < lw).collect();
        let right_out: Vec<usize> = need.iter().copied().filter(|&c| c >= lw).collect();
        let keep: Vec<usize> = left_out.iter().map(|&c| lpos[c]).collect();
        let output_fetched: Vec<usize> = right_out
            .iter()
            .map(|&c| fetched.iter().position(|&f| f == c - lw).unwrap_or(0))
            .collect();
        let mut fields: Vec<Field> = keep
            .iter()
            .map(|&i| left.plan.schema.field(i).clone())
            .collect();
        fields.extend(right_out.iter().map(|&c| {
            let f = rschema.field(c - lw).as_ref().clone();
            if outer { f.with_nullable(true) } else { f }
        }));
        let key_columns: Vec<usize> = probe_cols
            .iter()
            .chain(&constant_cols)
            .map(|&c| table_columns[c])
            .collect();
        let fetch: Vec<usize> = fetched.iter().map(|&c| table_columns[c]).collect();
        let fetch_types = fetch
            .iter()
            .map(|&c| data.schema.field(c).data_type().clone())
            .collect();
        let lookup = LookupJoin {
            source: time.note.clone(),
            table,
            probe_keys,
            constants,
            key_columns,
            fetch,
            fetch_types,
            residual,
            outer,
            keep,
            output_fetched,
            options,
            text: texts.join(", "),
            metrics: LookupMetrics::default(),
        };
        let mut cols = left_out;
        cols.extend(right_out);
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Lookup {
                    input: Box::new(left.plan),
                    join: Box::new(lookup),
                    decision: choice,
                },
                schema_of(fields),
            ),
            cols,
        })
    }
}
