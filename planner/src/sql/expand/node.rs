//! The logical node of an expansion.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use std::collections::HashMap;

use datafusion_common::{DFSchema, DFSchemaRef};
use datafusion_expr::{Expr, LogicalPlan, UserDefinedLogicalNodeCore};

use crate::table_function::TableFunction;

/// What an [`Expand`] joins each row with.
#[derive(Debug, Clone)]
pub enum ExpandKind {
    /// `UNNEST(a, b, ...)`: the elements of the collections, zipped.
    Unnest {
        /// `WITH ORDINALITY`: one more column, the 1-based position.
        ordinality: bool,
    },
    /// `LATERAL TABLE(f(...))`: the rows the function returns.
    Function(Arc<dyn TableFunction>),
}

impl PartialEq for ExpandKind {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ExpandKind::Unnest { ordinality: a }, ExpandKind::Unnest { ordinality: b }) => a == b,
            (ExpandKind::Function(a), ExpandKind::Function(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for ExpandKind {}

/// The logical node of `input CROSS JOIN UNNEST(...)`, `input LEFT JOIN
/// UNNEST(...) ON TRUE` and the `LATERAL TABLE(f(...))` forms: the columns
/// of `input`, then the expansion's own (qualified by its alias).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expand {
    /// The rows expanded.
    pub input: LogicalPlan,
    /// The arguments, over `input`'s columns.
    pub args: Vec<Expr>,
    /// What each row is joined with.
    pub kind: ExpandKind,
    /// LEFT: a row without elements (or function rows) is kept once with
    /// NULLs.
    pub outer: bool,
    /// The SQL text of the factor, for EXPLAIN and messages.
    pub text: String,
    /// The name its columns are qualified with (its alias).
    pub alias: String,
    /// The input's columns, then the expansion's.
    pub schema: DFSchemaRef,
}

impl Hash for Expand {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
        self.outer.hash(state);
        self.args.hash(state);
    }
}

impl PartialOrd for Expand {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        // Plans have no useful order; only the text is compared.
        if self == other {
            Some(Ordering::Equal)
        } else {
            self.text.partial_cmp(&other.text).filter(|o| o.is_ne())
        }
    }
}

impl Expand {
    /// The number of columns the expansion adds to its input's.
    pub fn added_columns(&self) -> usize {
        self.schema.fields().len() - self.input.schema().fields().len()
    }
}

impl UserDefinedLogicalNodeCore for Expand {
    fn name(&self) -> &str {
        "Expand"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    fn expressions(&self) -> Vec<Expr> {
        self.args.clone()
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let join = if self.outer {
            "LEFT JOIN"
        } else {
            "CROSS JOIN"
        };
        write!(f, "{join} {}", self.text)
    }

    fn with_exprs_and_inputs(
        &self,
        exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> datafusion_common::Result<Self> {
        let Some(input) = inputs.pop().filter(|_| inputs.is_empty()) else {
            return datafusion_common::internal_err!("an expansion has one input");
        };
        // the input's columns as they are now, then the expansion's own
        let own: Vec<_> = self
            .schema
            .iter()
            .skip(self.input.schema().fields().len())
            .map(|(q, f)| (q.cloned(), Arc::clone(f)))
            .collect();
        let own = DFSchema::new_with_metadata(own, HashMap::new())?;
        let schema = Arc::new(input.schema().join(&own)?);
        Ok(Expand {
            input,
            args: exprs,
            kind: self.kind.clone(),
            outer: self.outer,
            text: self.text.clone(),
            alias: self.alias.clone(),
            schema,
        })
    }
}
