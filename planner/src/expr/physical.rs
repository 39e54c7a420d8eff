//! The compiled expression: a tree of enum nodes, typed and bound to column
//! indices.

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, FieldRef};
use datafusion_common::config::ConfigOptions;
use datafusion_expr::ScalarUDF;

use crate::expr::value::Value;

/// A comparison, read as `left <op> right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
    /// `IS DISTINCT FROM` (NULL-safe `<>`).
    IsDistinctFrom,
    /// `IS NOT DISTINCT FROM` (NULL-safe `=`).
    IsNotDistinctFrom,
}

impl CompareOp {
    /// The operator with its operands swapped: `a < b` is `b > a`
    /// (equality and distinctness are their own).
    pub fn flipped(self) -> CompareOp {
        match self {
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::LtEq => CompareOp::GtEq,
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::GtEq => CompareOp::LtEq,
            other => other,
        }
    }

    /// The operator as the kernels' comparison with one value
    /// ([`tenon_kernels::compare_scalar`]); `None` for the NULL-safe ones.
    pub(crate) fn scalar_cmp(self) -> Option<tenon_kernels::ScalarCmp> {
        use tenon_kernels::{CmpOp, ScalarCmp};
        Some(match self {
            CompareOp::Eq => ScalarCmp::Eq,
            CompareOp::NotEq => ScalarCmp::NotEq,
            CompareOp::Lt => ScalarCmp::Order(CmpOp::Lt),
            CompareOp::LtEq => ScalarCmp::Order(CmpOp::Le),
            CompareOp::Gt => ScalarCmp::Order(CmpOp::Gt),
            CompareOp::GtEq => ScalarCmp::Order(CmpOp::Ge),
            CompareOp::IsDistinctFrom | CompareOp::IsNotDistinctFrom => return None,
        })
    }
}

/// An arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// `IS [NOT] TRUE`, `IS [NOT] FALSE`, `IS [NOT] UNKNOWN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // the names are the SQL predicates
pub enum TruthTest {
    /// `IS TRUE`
    IsTrue,
    /// `IS NOT TRUE`
    IsNotTrue,
    /// `IS FALSE`
    IsFalse,
    /// `IS NOT FALSE`
    IsNotFalse,
    /// `IS UNKNOWN` (`IS NULL` on a boolean)
    IsUnknown,
    /// `IS NOT UNKNOWN`
    IsNotUnknown,
}

/// A compiled expression: column references resolved to indices, every
/// node typed, and the casts of SQL type coercion made explicit.
///
/// Built by [`PhysicalExpr::compile`](crate::expr::PhysicalExpr::compile)
/// and evaluated by [`PhysicalExpr::evaluate`]. Cheap to clone (nodes are
/// shared) and `Send + Sync`, so one compiled expression serves every
/// worker thread.
#[derive(Debug, Clone)]
pub struct PhysicalExpr {
    pub(crate) node: Arc<Node>,
    pub(crate) data_type: DataType,
    /// SQL-like text of the source expression, for error messages.
    pub(crate) text: Arc<str>,
}

/// The node kinds. Casts of coercion are [`Node::Cast`] nodes; BETWEEN,
/// simple CASE and the like are compiled into the nodes below.
#[derive(Debug)]
pub(crate) enum Node {
    Column(usize),
    Literal(Value),
    Cast {
        input: PhysicalExpr,
        safe: bool,
    },
    Compare {
        op: CompareOp,
        left: PhysicalExpr,
        right: PhysicalExpr,
    },
    Arith {
        op: ArithOp,
        left: PhysicalExpr,
        right: PhysicalExpr,
    },
    And(PhysicalExpr, PhysicalExpr),
    Or(PhysicalExpr, PhysicalExpr),
    Not(PhysicalExpr),
    IsNull(PhysicalExpr),
    IsNotNull(PhysicalExpr),
    Truth(TruthTest, PhysicalExpr),
    Negate(PhysicalExpr),
    Between {
        input: PhysicalExpr,
        low: PhysicalExpr,
        high: PhysicalExpr,
        negated: bool,
    },
    Like {
        input: PhysicalExpr,
        pattern: PhysicalExpr,
        negated: bool,
        case_insensitive: bool,
    },
    Concat(PhysicalExpr, PhysicalExpr),
    InList {
        input: PhysicalExpr,
        list: Vec<PhysicalExpr>,
        negated: bool,
    },
    /// Searched CASE (a simple CASE is compiled into `base = value` tests).
    Case {
        branches: Vec<(PhysicalExpr, PhysicalExpr)>,
        otherwise: Option<PhysicalExpr>,
    },
    Coalesce(Vec<PhysicalExpr>),
    NullIf(PhysicalExpr, PhysicalExpr),
    /// A DataFusion scalar function (SUBSTR, UPPER, ABS, date_part, ...),
    /// called with arguments already cast to its signature.
    Function {
        func: Arc<ScalarUDF>,
        args: Vec<PhysicalExpr>,
        arg_fields: Vec<FieldRef>,
        return_field: FieldRef,
        config: Arc<ConfigOptions>,
    },
}

impl Node {
    /// The direct children.
    pub(crate) fn children(&self) -> Vec<&PhysicalExpr> {
        match self {
            Node::Column(_) | Node::Literal(_) => vec![],
            Node::Cast { input, .. }
            | Node::Not(input)
            | Node::IsNull(input)
            | Node::IsNotNull(input)
            | Node::Truth(_, input)
            | Node::Negate(input) => vec![input],
            Node::Compare { left, right, .. }
            | Node::Arith { left, right, .. }
            | Node::And(left, right)
            | Node::Or(left, right)
            | Node::Concat(left, right)
            | Node::NullIf(left, right) => vec![left, right],
            Node::Between {
                input, low, high, ..
            } => vec![input, low, high],
            Node::Like { input, pattern, .. } => vec![input, pattern],
            Node::InList { input, list, .. } => std::iter::once(input).chain(list).collect(),
            Node::Case {
                branches,
                otherwise,
            } => branches
                .iter()
                .flat_map(|(w, t)| [w, t])
                .chain(otherwise)
                .collect(),
            Node::Coalesce(args) | Node::Function { args, .. } => args.iter().collect(),
        }
    }

    /// The same node with every child replaced by `f(child)`.
    fn map_children(&self, f: &mut impl FnMut(&PhysicalExpr) -> PhysicalExpr) -> Node {
        match self {
            Node::Column(i) => Node::Column(*i),
            Node::Literal(v) => Node::Literal(v.clone()),
            Node::Cast { input, safe } => Node::Cast {
                input: f(input),
                safe: *safe,
            },
            Node::Compare { op, left, right } => Node::Compare {
                op: *op,
                left: f(left),
                right: f(right),
            },
            Node::Arith { op, left, right } => Node::Arith {
                op: *op,
                left: f(left),
                right: f(right),
            },
            Node::And(l, r) => Node::And(f(l), f(r)),
            Node::Or(l, r) => Node::Or(f(l), f(r)),
            Node::Not(x) => Node::Not(f(x)),
            Node::IsNull(x) => Node::IsNull(f(x)),
            Node::IsNotNull(x) => Node::IsNotNull(f(x)),
            Node::Truth(t, x) => Node::Truth(*t, f(x)),
            Node::Negate(x) => Node::Negate(f(x)),
            Node::Between {
                input,
                low,
                high,
                negated,
            } => Node::Between {
                input: f(input),
                low: f(low),
                high: f(high),
                negated: *negated,
            },
            Node::Like {
                input,
                pattern,
                negated,
                case_insensitive,
            } => Node::Like {
                input: f(input),
                pattern: f(pattern),
                negated: *negated,
                case_insensitive: *case_insensitive,
            },
            Node::Concat(l, r) => Node::Concat(f(l), f(r)),
            Node::InList {
                input,
                list,
                negated,
            } => Node::InList {
                input: f(input),
                list: list.iter().map(&mut *f).collect(),
                negated: *negated,
            },
            Node::Case {
                branches,
                otherwise,
            } => Node::Case {
                branches: branches.iter().map(|(w, t)| (f(w), f(t))).collect(),
                otherwise: otherwise.as_ref().map(&mut *f),
            },
            Node::Coalesce(args) => Node::Coalesce(args.iter().map(&mut *f).collect()),
            Node::NullIf(l, r) => Node::NullIf(f(l), f(r)),
            Node::Function {
                func,
                args,
                arg_fields,
                return_field,
                config,
            } => Node::Function {
                func: Arc::clone(func),
                args: args.iter().map(&mut *f).collect(),
                arg_fields: arg_fields.clone(),
                return_field: Arc::clone(return_field),
                config: Arc::clone(config),
            },
        }
    }
}

impl PhysicalExpr {
    pub(crate) fn new(node: Node, data_type: DataType, text: impl Into<Arc<str>>) -> Self {
        PhysicalExpr {
            node: Arc::new(node),
            data_type,
            text: text.into(),
        }
    }

    /// The type of the values the expression produces.
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// Whether the expression is a constant (a literal after folding).
    pub fn is_literal(&self) -> bool {
        matches!(*self.node, Node::Literal(_))
    }

    /// A reference to input column `index` of type `data_type`, shown as
    /// `name`.
    pub fn column_ref(index: usize, data_type: DataType, name: &str) -> PhysicalExpr {
        PhysicalExpr::new(Node::Column(index), data_type, Arc::from(name))
    }

    /// The input column index when the expression is a plain column
    /// reference (no cast, no computation).
    pub fn as_column(&self) -> Option<usize> {
        match *self.node {
            Node::Column(i) => Some(i),
            _ => None,
        }
    }

    /// The indices of the input columns the expression reads, ascending and
    /// without repeats.
    pub fn columns(&self) -> Vec<usize> {
        fn walk(e: &PhysicalExpr, out: &mut Vec<usize>) {
            if let Node::Column(i) = *e.node {
                out.push(i);
            }
            for c in e.node.children() {
                walk(c, out);
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The same expression reading column `map(i)` wherever it read column
    /// `i` (used to evaluate on a batch of only the referenced columns).
    pub fn remap_columns(&self, map: &impl Fn(usize) -> usize) -> PhysicalExpr {
        let node = match &*self.node {
            Node::Column(i) => Node::Column(map(*i)),
            other => other.map_children(&mut |c| c.remap_columns(map)),
        };
        PhysicalExpr::new(node, self.data_type.clone(), Arc::clone(&self.text))
    }

    /// Evaluates the expression on `batch`: one value per row.
    ///
    /// # Errors
    ///
    /// Division by zero, overflow, a failing cast or function, or a batch
    /// whose columns do not have the types the expression was compiled for;
    /// each error names the (sub)expression.
    pub fn evaluate(&self, batch: &RecordBatch) -> crate::expr::Result<arrow_array::ArrayRef> {
        let rows = batch.num_rows();
        self.evaluate_value(batch)?
            .into_array(rows)
            .map_err(|e| crate::expr::ExprError::arrow(&self.text, e))
    }

    /// Evaluates a predicate on `batch`. NULL means "unknown"; callers that
    /// filter rows keep only `true`.
    ///
    /// # Errors
    ///
    /// As [`PhysicalExpr::evaluate`], and a non-boolean expression.
    pub fn evaluate_predicate(
        &self,
        batch: &RecordBatch,
    ) -> crate::expr::Result<arrow_array::BooleanArray> {
        let rows = batch.num_rows();
        self.evaluate_value(batch)?
            .into_boolean(rows)
            .map_err(|e| crate::expr::ExprError::arrow(&self.text, e))
    }
}

impl fmt::Display for PhysicalExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
