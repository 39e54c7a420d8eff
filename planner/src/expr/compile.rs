//! Compilation: a DataFusion logical [`Expr`] over a [`DFSchema`] to a
//! typed, bound [`PhysicalExpr`].
//!
//! Each node is compiled after its children: columns are resolved to
//! indices, operand types are brought together by the rules of
//! [`coerce`](super::coerce) (explicit CAST nodes, or converted constants),
//! and a node whose inputs are all constants is folded into a constant.

use std::borrow::Cow;

use arrow_array::new_empty_array;
use arrow_schema::DataType;
use datafusion_common::{DFSchema, ScalarValue};
use datafusion_expr::binary::{BinaryTypeCoercer, comparison_coercion, like_coercion};
use datafusion_expr::expr::{BinaryExpr, Case, InList, Like};
use datafusion_expr::type_coercion::other::{
    get_coerce_type_for_case_expression, get_coerce_type_for_case_when, get_coerce_type_for_list,
};
use datafusion_expr::{Expr, Operator};

use crate::expr::coerce::{
    cast_to, comparison_operands, comparison_type, exact_literal, fold, is_string,
};
use crate::expr::column_index::ColumnIndex;
use crate::expr::context::QueryContext;
use crate::expr::error::{ExprError, Result};
use crate::expr::physical::{ArithOp, CompareOp, Node, PhysicalExpr, TruthTest};
use crate::expr::value::Value;
use crate::expr::{interval, scalar_fn};

impl PhysicalExpr {
    /// Compiles a DataFusion expression over `schema` (the columns of the
    /// batches it will be evaluated on, in order): resolves columns to
    /// indices, infers types and inserts the casts SQL coercion needs.
    ///
    /// `NOW()`, `CURRENT_DATE` and `CURRENT_TIME` become constants from
    /// `ctx` (one value per query).
    ///
    /// # Errors
    ///
    /// An unknown column, operand types that do not fit their operator (the
    /// message names the expression and both types), a constant that does
    /// not convert, or an expression kind tenon does not evaluate
    /// (aggregates, subqueries, window functions, placeholders).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, cast::AsArray};
    /// use arrow_schema::{DataType, Field, Schema};
    /// use datafusion_common::DFSchema;
    /// use datafusion_expr::{col, lit};
    /// use tenon_planner::expr::{PhysicalExpr, QueryContext};
    ///
    /// let schema = Arc::new(Schema::new(vec![
    ///     Field::new("a", DataType::Int32, true),
    ///     Field::new("b", DataType::Int64, true),
    /// ]));
    /// let df_schema = DFSchema::try_from_qualified_schema("t", &schema)?;
    /// let batch = RecordBatch::try_new(schema, vec![
    ///     Arc::new(Int32Array::from(vec![Some(1), Some(2), None])),
    ///     Arc::new(Int64Array::from(vec![10, 20, 30])),
    /// ])?;
    ///
    /// // Int32 + Int64 is Int64; NULL propagates.
    /// let expr = PhysicalExpr::compile(&(col("a") + col("b")), &df_schema, &QueryContext::new())?;
    /// assert_eq!(expr.data_type(), &DataType::Int64);
    /// let sum = expr.evaluate(&batch)?;
    /// assert_eq!(sum.as_ref(), &Int64Array::from(vec![Some(11), Some(22), None]) as &dyn Array);
    ///
    /// // A predicate: NULL (unknown) rows are neither true nor false.
    /// let pred = PhysicalExpr::compile(&col("a").gt(lit(1)), &df_schema, &QueryContext::new())?;
    /// let keep = pred.evaluate_predicate(&batch)?;
    /// assert_eq!(keep.iter().collect::<Vec<_>>(), vec![Some(false), Some(true), None]);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn compile(expr: &Expr, schema: &DFSchema, ctx: &QueryContext) -> Result<PhysicalExpr> {
        Compiler {
            schema,
            ctx,
            index: None,
        }
        .compile(expr)
    }

    /// Compiles each of `exprs` over `schema`, as [`PhysicalExpr::compile`]
    /// does, finding columns through one [`ColumnIndex`] of the schema: for
    /// the many expressions of a wide projection, time linear in their
    /// number rather than in their number times the schema's width.
    pub(crate) fn compile_each<'e>(
        exprs: impl IntoIterator<Item = &'e Expr>,
        schema: &DFSchema,
        ctx: &QueryContext,
    ) -> Result<Vec<PhysicalExpr>> {
        let index = ColumnIndex::new(schema);
        let compiler = Compiler {
            schema,
            ctx,
            index: Some(&index),
        };
        exprs.into_iter().map(|e| compiler.compile(e)).collect()
    }
}

/// The longest text (in bytes) an expression is shown with in messages and
/// plans; longer ones end in `…`. Bounded, the texts of all the nodes of an
/// expression take time linear in its size.
const TEXT_LIMIT: usize = 4096;

/// A `fmt::Write` that keeps the first [`TEXT_LIMIT`] bytes and then fails,
/// which stops the formatting.
struct BoundedText(String, bool);

impl std::fmt::Write for BoundedText {
    fn write_str(&mut self, piece: &str) -> std::fmt::Result {
        if self.1 {
            return Err(std::fmt::Error);
        }
        let room = TEXT_LIMIT.saturating_sub(self.0.len());
        if piece.len() <= room {
            self.0.push_str(piece);
            return Ok(());
        }
        let mut end = room;
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.0.push_str(&piece[..end]);
        self.0.push('…');
        self.1 = true;
        Err(std::fmt::Error)
    }
}

/// SQL-like text of `expr` (DataFusion's `human_display`), bounded.
fn expr_text(expr: &Expr) -> String {
    let mut out = BoundedText(String::new(), false);
    // an error only means the text reached the limit
    let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{}", expr.human_display()));
    // DataFusion plans `count(*)` as `count(Int64(1))`: show what was written
    out.0.replace("count(Int64(1))", "count(*)")
}

/// The text of `left op right` from its operands' texts, as
/// [`expr_text`] shows a binary expression, bounded.
fn binary_text(left: &str, op: Operator, right: &str) -> String {
    let mut out = BoundedText(String::new(), false);
    let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{left} {op} {right}"));
    out.0
}

/// The text of an operand of `op` in parentheses where SQL needs them to
/// keep its meaning: an operator that binds less tightly than `op`, or as
/// tightly on the right (`(a - 1) / 0`, `a - (b - c)`).
fn operand_text<'t>(operand: &Expr, text: &'t str, op: Operator, right: bool) -> Cow<'t, str> {
    if let Expr::BinaryExpr(child) = operand {
        let (inner, outer) = (child.op.precedence(), op.precedence());
        if inner < outer || (right && inner == outer) {
            return Cow::Owned(format!("({text})"));
        }
    }
    Cow::Borrowed(text)
}

pub(crate) struct Compiler<'a> {
    pub(crate) schema: &'a DFSchema,
    pub(crate) ctx: &'a QueryContext,
    /// The schema's columns by name, when compiling many expressions.
    pub(crate) index: Option<&'a ColumnIndex<'a>>,
}

impl Compiler<'_> {
    pub(crate) fn compile(&self, expr: &Expr) -> Result<PhysicalExpr> {
        if let Expr::BinaryExpr(b) = expr {
            // the text from the operands' texts: formatting each node of a
            // chain of `n` operators anew would take `n²` time
            let l = self.compile(&b.left)?;
            let r = self.compile(&b.right)?;
            let text = binary_text(
                &operand_text(&b.left, &l.text, b.op, false),
                b.op,
                &operand_text(&b.right, &r.text, b.op, true),
            );
            return Ok(fold(self.binary(b, l, r, &text)?));
        }
        let text = expr_text(expr);
        let boolean = DataType::Boolean;
        let out = match expr {
            Expr::Alias(a) => return self.compile(&a.expr),
            Expr::Column(c) => {
                let found = match self.index {
                    Some(index) => index.index_of(c),
                    None => self.schema.maybe_index_of_column(c),
                };
                let i = found
                    .map_or_else(|| self.schema.index_of_column(c), Ok)
                    .map_err(|e| ExprError::UnknownColumn {
                        column: c.flat_name(),
                        expr: text.clone(),
                        detail: e.strip_backtrace(),
                    })?;
                let t = self.schema.field(i).data_type().clone();
                PhysicalExpr::new(Node::Column(i), t, text)
            }
            Expr::Literal(v, _) => literal(v, interval::literal_text(v).unwrap_or(text))?,
            Expr::Like(l) => self.like(l, &text)?,
            Expr::Not(e) => {
                let e = as_boolean(self.compile(e)?, &text)?;
                PhysicalExpr::new(Node::Not(e), boolean, text)
            }
            Expr::IsNull(e) => PhysicalExpr::new(Node::IsNull(self.compile(e)?), boolean, text),
            Expr::IsNotNull(e) => {
                PhysicalExpr::new(Node::IsNotNull(self.compile(e)?), boolean, text)
            }
            Expr::IsTrue(e) => self.truth(TruthTest::IsTrue, e, text)?,
            Expr::IsNotTrue(e) => self.truth(TruthTest::IsNotTrue, e, text)?,
            Expr::IsFalse(e) => self.truth(TruthTest::IsFalse, e, text)?,
            Expr::IsNotFalse(e) => self.truth(TruthTest::IsNotFalse, e, text)?,
            Expr::IsUnknown(e) => self.truth(TruthTest::IsUnknown, e, text)?,
            Expr::IsNotUnknown(e) => self.truth(TruthTest::IsNotUnknown, e, text)?,
            Expr::Negative(e) => {
                let e = self.compile(e)?;
                let t = e.data_type().clone();
                if arrow_arith::numeric::neg(&new_empty_array(&t)).is_err() {
                    return Err(ExprError::type_error(
                        &text,
                        format!("cannot negate a value of type {t}; negation needs a number"),
                    ));
                }
                PhysicalExpr::new(Node::Negate(e), t, text)
            }
            Expr::Between(b) => {
                let input = self.compile(&b.expr)?;
                let low = self.compile(&b.low)?;
                let high = self.compile(&b.high)?;
                let t_low = comparison_type(&input, &low, &text)?;
                let t_high = comparison_type(&input, &high, &text)?;
                let t = comparison_coercion(&t_low, &t_high).ok_or_else(|| {
                    ExprError::type_error(
                        &text,
                        format!("cannot compare {t_low} with {t_high}; cast the bounds"),
                    )
                })?;
                // Bounds the input's own type holds exactly: compared in
                // it, without a cast of the input (`comparison_operands`).
                let own = input.data_type();
                let exact = exact_literal(&low, own, &t).zip(exact_literal(&high, own, &t));
                let (input, low, high) = match exact {
                    Some((low, high)) => (input, low, high),
                    None => (
                        cast_to(input, &t, &text)?,
                        cast_to(low, &t, &text)?,
                        cast_to(high, &t, &text)?,
                    ),
                };
                PhysicalExpr::new(
                    Node::Between {
                        input,
                        low,
                        high,
                        negated: b.negated,
                    },
                    boolean,
                    text,
                )
            }
            Expr::Case(c) => self.case(c, &text)?,
            Expr::Cast(c) => self.explicit_cast(&c.expr, c.field.data_type(), false, text)?,
            Expr::TryCast(c) => self.explicit_cast(&c.expr, c.field.data_type(), true, text)?,
            Expr::ScalarFunction(f) => scalar_fn::compile(self, f, text)?,
            Expr::InList(l) => self.in_list(l, &text)?,
            Expr::ScalarVariable(..) => {
                return Err(ExprError::unsupported(
                    text,
                    "session variables are not supported",
                ));
            }
            Expr::Placeholder(_) => {
                return Err(ExprError::unsupported(
                    text,
                    "bind the parameter's value before compiling the expression",
                ));
            }
            Expr::AggregateFunction(_) => {
                return Err(ExprError::unsupported(
                    text,
                    "an aggregate is computed by the aggregate operator, not by a row \
                     expression",
                ));
            }
            Expr::WindowFunction(_) => {
                return Err(ExprError::unsupported(
                    text,
                    "window functions are not supported",
                ));
            }
            Expr::Exists(_)
            | Expr::InSubquery(_)
            | Expr::ScalarSubquery(_)
            | Expr::SetComparison(_)
            | Expr::OuterReferenceColumn(..) => {
                return Err(ExprError::unsupported(
                    text,
                    "a subquery is not supported in this place: tenon runs subqueries in WHERE \
                     (`x IN (SELECT ...)`, `EXISTS (SELECT ...)`, `NOT ...` of those, as \
                     conjuncts) and as scalar values (`(SELECT max(x) FROM t)`)",
                ));
            }
            Expr::SimilarTo(_) => {
                return Err(ExprError::unsupported(
                    text,
                    "SIMILAR TO is not supported; use LIKE",
                ));
            }
            _ => {
                return Err(ExprError::unsupported(
                    text,
                    "this kind of expression is not evaluated by tenon",
                ));
            }
        };
        Ok(fold(out))
    }

    fn binary(
        &self,
        b: &BinaryExpr,
        l: PhysicalExpr,
        r: PhysicalExpr,
        text: &str,
    ) -> Result<PhysicalExpr> {
        use Operator as O;
        let compare = |op| -> Result<PhysicalExpr> {
            let (l, r) = comparison_operands(l.clone(), r.clone(), text)?;
            Ok(PhysicalExpr::new(
                Node::Compare {
                    op,
                    left: l,
                    right: r,
                },
                DataType::Boolean,
                text,
            ))
        };
        let arith = |op| self.arith(op, b.op, l.clone(), r.clone(), text);
        match b.op {
            O::Eq => compare(CompareOp::Eq),
            O::NotEq => compare(CompareOp::NotEq),
            O::Lt => compare(CompareOp::Lt),
            O::LtEq => compare(CompareOp::LtEq),
            O::Gt => compare(CompareOp::Gt),
            O::GtEq => compare(CompareOp::GtEq),
            O::IsDistinctFrom => compare(CompareOp::IsDistinctFrom),
            O::IsNotDistinctFrom => compare(CompareOp::IsNotDistinctFrom),
            O::And | O::Or => {
                let (l, r) = (as_boolean(l, text)?, as_boolean(r, text)?);
                let node = if b.op == O::And {
                    Node::And(l, r)
                } else {
                    Node::Or(l, r)
                };
                Ok(PhysicalExpr::new(node, DataType::Boolean, text))
            }
            O::Plus => arith(ArithOp::Add),
            O::Minus => arith(ArithOp::Sub),
            O::Multiply => arith(ArithOp::Mul),
            O::Divide => arith(ArithOp::Div),
            O::Modulo => arith(ArithOp::Rem),
            O::StringConcat => {
                let (lt, rt) = (l.data_type().clone(), r.data_type().clone());
                let coercer = BinaryTypeCoercer::new(&lt, &b.op, &rt);
                let (types, ret) = coercer
                    .get_input_types()
                    .and_then(|t| Ok((t, coercer.get_result_type()?)))
                    .map_err(|_| {
                        ExprError::type_error(
                            text,
                            format!("cannot concatenate {lt} with {rt}; cast both to strings"),
                        )
                    })?;
                if !is_string(&ret) {
                    return Err(ExprError::unsupported(
                        text,
                        format!("|| on {lt} and {rt} is supported for strings only"),
                    ));
                }
                let l = cast_to(l, &types.0, text)?;
                let r = cast_to(r, &types.1, text)?;
                Ok(PhysicalExpr::new(Node::Concat(l, r), ret, text))
            }
            O::LikeMatch => self.like_node(l, r, false, false, None, text),
            O::NotLikeMatch => self.like_node(l, r, true, false, None, text),
            O::ILikeMatch => self.like_node(l, r, false, true, None, text),
            O::NotILikeMatch => self.like_node(l, r, true, true, None, text),
            other => Err(ExprError::unsupported(
                text,
                format!("the operator {other} is not supported"),
            )),
        }
    }

    fn arith(
        &self,
        op: ArithOp,
        operator: Operator,
        l: PhysicalExpr,
        r: PhysicalExpr,
        text: &str,
    ) -> Result<PhysicalExpr> {
        let (l, r) = interval::date_operands(operator, l, r, text)?;
        let (lt, rt) = (l.data_type().clone(), r.data_type().clone());
        // date - date is a number of days (DataFusion types it Int64).
        if operator == Operator::Minus
            && matches!(lt, DataType::Date32)
            && matches!(rt, DataType::Date32)
        {
            let l = cast_to(l, &DataType::Int64, text)?;
            let r = cast_to(r, &DataType::Int64, text)?;
            let node = Node::Arith {
                op: ArithOp::Sub,
                left: l,
                right: r,
            };
            return Ok(PhysicalExpr::new(node, DataType::Int64, text));
        }
        let coercer = BinaryTypeCoercer::new(&lt, &operator, &rt);
        let types = coercer
            .get_input_types()
            .and_then(|t| Ok((t, coercer.get_result_type()?)));
        let ((li, ri), ret) = types.map_err(|_| {
            ExprError::type_error(
                text,
                format!("cannot apply {operator} to {lt} and {rt}; cast one side to a number"),
            )
        })?;
        let l = cast_to(l, &li, text)?;
        let r = cast_to(r, &ri, text)?;
        let node = Node::Arith {
            op,
            left: l,
            right: r,
        };
        Ok(PhysicalExpr::new(node, ret, text))
    }

    fn like(&self, like: &Like, text: &str) -> Result<PhysicalExpr> {
        let input = self.compile(&like.expr)?;
        let pattern = self.compile(&like.pattern)?;
        self.like_node(
            input,
            pattern,
            like.negated,
            like.case_insensitive,
            like.escape_char,
            text,
        )
    }

    fn like_node(
        &self,
        input: PhysicalExpr,
        pattern: PhysicalExpr,
        negated: bool,
        case_insensitive: bool,
        escape: Option<char>,
        text: &str,
    ) -> Result<PhysicalExpr> {
        let (it, pt) = (input.data_type().clone(), pattern.data_type().clone());
        let t = like_coercion(&it, &pt)
            .filter(|t| is_string(t) || t.is_null())
            .ok_or_else(|| {
                ExprError::type_error(
                    text,
                    format!("LIKE needs strings, got {it} LIKE {pt}; cast to a string type"),
                )
            })?;
        let t = if t.is_null() { DataType::Utf8 } else { t };
        let pattern = match escape {
            None | Some('\\') => pattern,
            Some(c) => {
                // Arrow's LIKE escapes with '\': rewrite a constant pattern.
                let Node::Literal(v) = &*pattern.node else {
                    return Err(ExprError::unsupported(
                        text,
                        format!("ESCAPE '{c}' needs a constant pattern"),
                    ));
                };
                let value = ScalarValue::try_from_array(v.inner().as_ref(), 0)
                    .map_err(|e| ExprError::datafusion(text, e))?;
                let rewritten = match value.try_as_str() {
                    Some(Some(p)) => Some(rewrite_escape(p, c)),
                    _ => None,
                };
                literal(&ScalarValue::Utf8(rewritten), pattern.text.to_string())?
            }
        };
        let node = Node::Like {
            input: cast_to(input, &t, text)?,
            pattern: cast_to(pattern, &t, text)?,
            negated,
            case_insensitive,
        };
        Ok(PhysicalExpr::new(node, DataType::Boolean, text))
    }

    fn truth(&self, test: TruthTest, e: &Expr, text: String) -> Result<PhysicalExpr> {
        let e = as_boolean(self.compile(e)?, &text)?;
        Ok(PhysicalExpr::new(
            Node::Truth(test, e),
            DataType::Boolean,
            text,
        ))
    }

    fn explicit_cast(
        &self,
        e: &Expr,
        to: &DataType,
        safe: bool,
        text: String,
    ) -> Result<PhysicalExpr> {
        let e = self.compile(e)?;
        if e.data_type() == to {
            return Ok(e);
        }
        if !arrow_cast::can_cast_types(e.data_type(), to) {
            return Err(ExprError::type_error(
                &text,
                format!("cannot cast {} to {to}", e.data_type()),
            ));
        }
        Ok(PhysicalExpr::new(
            Node::Cast { input: e, safe },
            to.clone(),
            text,
        ))
    }

    fn case(&self, case: &Case, text: &str) -> Result<PhysicalExpr> {
        let base = case.expr.as_ref().map(|e| self.compile(e)).transpose()?;
        let mut whens = Vec::with_capacity(case.when_then_expr.len());
        let mut thens = Vec::with_capacity(case.when_then_expr.len());
        for (w, t) in &case.when_then_expr {
            whens.push(self.compile(w)?);
            thens.push(self.compile(t)?);
        }
        let conditions = match base {
            Some(base) => {
                let when_types: Vec<DataType> =
                    whens.iter().map(|w| w.data_type().clone()).collect();
                for w in &whens {
                    comparison_type(&base, w, text)?;
                }
                let t = get_coerce_type_for_case_when(&when_types, base.data_type()).ok_or_else(
                    || {
                        ExprError::type_error(
                            text,
                            format!(
                                "cannot compare the CASE operand ({}) with the WHEN values \
                                 ({when_types:?}); cast them to one type",
                                base.data_type()
                            ),
                        )
                    },
                )?;
                let base = cast_to(base, &t, text)?;
                whens
                    .into_iter()
                    .map(|w| {
                        let cond_text = format!("{} = {}", base.text, w.text);
                        let node = Node::Compare {
                            op: CompareOp::Eq,
                            left: base.clone(),
                            right: cast_to(w, &t, text)?,
                        };
                        Ok(fold(PhysicalExpr::new(node, DataType::Boolean, cond_text)))
                    })
                    .collect::<Result<Vec<_>>>()?
            }
            None => whens
                .into_iter()
                .map(|w| as_boolean(w, text))
                .collect::<Result<Vec<_>>>()?,
        };
        let otherwise = case
            .else_expr
            .as_ref()
            .map(|e| self.compile(e))
            .transpose()?;
        let then_types: Vec<DataType> = thens.iter().map(|t| t.data_type().clone()).collect();
        let t = get_coerce_type_for_case_expression(
            &then_types,
            otherwise.as_ref().map(|e| e.data_type()),
        )
        .ok_or_else(|| {
            ExprError::type_error(
                text,
                format!(
                    "the CASE results have types {then_types:?}{} that do not meet in one type; \
                     cast them",
                    otherwise
                        .as_ref()
                        .map(|e| format!(" and ELSE {}", e.data_type()))
                        .unwrap_or_default()
                ),
            )
        })?;
        let branches = conditions
            .into_iter()
            .zip(thens)
            .map(|(c, v)| Ok((c, cast_to(v, &t, text)?)))
            .collect::<Result<Vec<_>>>()?;
        let otherwise = otherwise.map(|e| cast_to(e, &t, text)).transpose()?;
        Ok(PhysicalExpr::new(
            Node::Case {
                branches,
                otherwise,
            },
            t,
            text,
        ))
    }

    fn in_list(&self, list: &InList, text: &str) -> Result<PhysicalExpr> {
        let input = self.compile(&list.expr)?;
        let items = list
            .list
            .iter()
            .map(|e| self.compile(e))
            .collect::<Result<Vec<_>>>()?;
        for item in &items {
            comparison_type(&input, item, text)?;
        }
        let types: Vec<DataType> = items.iter().map(|i| i.data_type().clone()).collect();
        let t = get_coerce_type_for_list(input.data_type(), &types).ok_or_else(|| {
            ExprError::type_error(
                text,
                format!(
                    "cannot compare {} with the IN list's types {types:?}; cast them to one type",
                    input.data_type()
                ),
            )
        })?;
        // Items the input's own type holds exactly: compared in it,
        // without a cast of the input (`comparison_operands`).
        let own = input.data_type().clone();
        let exact: Option<Vec<PhysicalExpr>> =
            items.iter().map(|i| exact_literal(i, &own, &t)).collect();
        let (input, items) = match exact {
            Some(items) => (input, items),
            None => (
                cast_to(input, &t, text)?,
                items
                    .into_iter()
                    .map(|i| cast_to(i, &t, text))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        let node = Node::InList {
            input,
            list: items,
            negated: list.negated,
        };
        Ok(PhysicalExpr::new(node, DataType::Boolean, text))
    }
}

/// A constant.
pub(crate) fn literal(value: &ScalarValue, text: String) -> Result<PhysicalExpr> {
    let v = Value::scalar(value).map_err(|e| ExprError::arrow(&text, e))?;
    Ok(PhysicalExpr::new(Node::Literal(v), value.data_type(), text))
}

/// `e` as a boolean operand: NULL becomes a boolean NULL, other types are
/// an error.
fn as_boolean(e: PhysicalExpr, text: &str) -> Result<PhysicalExpr> {
    match e.data_type() {
        DataType::Boolean => Ok(e),
        DataType::Null => cast_to(e, &DataType::Boolean, text),
        other => Err(ExprError::type_error(
            text,
            format!(
                "`{}` has type {other}, but a boolean is needed here; compare it with \
                 something",
                e.text
            ),
        )),
    }
}

/// A LIKE pattern with escape character `escape` rewritten for Arrow's
/// backslash escapes.
fn rewrite_escape(pattern: &str, escape: char) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == escape {
            match chars.next() {
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rewrite_escape;
    use crate::expr::QueryContext;
    use crate::expr::physical::{Node, PhysicalExpr};
    use arrow_schema::{DataType, Field, Schema};
    use datafusion_common::DFSchema;
    use datafusion_expr::{Expr, col, lit};

    fn compiled(e: Expr) -> PhysicalExpr {
        let schema = Schema::new(vec![
            Field::new("d", DataType::Decimal128(15, 2), true),
            Field::new("i", DataType::Int32, true),
        ]);
        let schema = DFSchema::try_from(schema).unwrap();
        PhysicalExpr::compile(&e, &schema, &QueryContext::new()).unwrap()
    }

    fn casts(e: &PhysicalExpr) -> usize {
        let own = usize::from(matches!(*e.node, Node::Cast { .. }));
        own + e.node.children().into_iter().map(casts).sum::<usize>()
    }

    #[test]
    fn a_column_compared_with_a_literal_its_type_holds_is_not_cast() {
        assert_eq!(casts(&compiled(col("d").lt(lit(24i64)))), 0);
        assert_eq!(casts(&compiled(lit(24i64).gt_eq(col("d")))), 0);
        assert_eq!(casts(&compiled(col("i").eq(lit(7i64)))), 0);
        assert_eq!(casts(&compiled(col("i").between(lit(1i64), lit(9i64)))), 0);
        // Literals it does not hold exactly: the column is cast.
        assert_eq!(casts(&compiled(col("i").lt(lit(3_000_000_000i64)))), 1);
        assert_eq!(casts(&compiled(col("d").lt(lit(i64::MAX)))), 1);
        assert_eq!(casts(&compiled(col("i").lt(lit(2.5f64)))), 1);
        // A float literal whose value in the decimal comparison type the
        // column's type holds (TPC-H Q6's bounds).
        let q6 = col("d").between(lit(0.06f64 - 0.01), lit(0.06f64 + 0.01));
        assert_eq!(casts(&compiled(q6)), 0);
        assert_eq!(casts(&compiled(col("d").lt(lit(0.075f64)))), 1);
        assert_eq!(
            casts(&compiled(
                col("i").in_list(vec![lit(1i64), lit(9i64)], false)
            )),
            0
        );
        let one_not = col("i").in_list(vec![lit(1i64), lit(3_000_000_000i64)], true);
        assert_eq!(casts(&compiled(one_not)), 1);
        let one_exact = col("i").between(lit(1i64), lit(3_000_000_000i64));
        assert_eq!(casts(&compiled(one_exact)), 1);
    }

    #[test]
    fn escape_rewrite_maps_custom_escape_to_backslash() {
        assert_eq!(rewrite_escape("10!%", '!'), "10\\%");
        assert_eq!(rewrite_escape("a!_b", '!'), "a\\_b");
        assert_eq!(rewrite_escape("a\\b", '!'), "a\\\\b");
        assert_eq!(rewrite_escape("!!", '!'), "\\!");
    }
}
