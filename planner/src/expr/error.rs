//! The error type of expression compilation and evaluation.

use arrow_schema::ArrowError;

/// Everything compiling or evaluating an expression can fail with.
///
/// Every message names the expression (as SQL-like text) and says what to
/// change. None of these is a panic.
#[derive(Debug, thiserror::Error)]
pub enum ExprError {
    /// A column reference that the input schema does not have.
    #[error("unknown column `{column}` in `{expr}`: {detail}")]
    UnknownColumn {
        /// The column as written.
        column: String,
        /// The expression that names it.
        expr: String,
        /// What the schema offers instead.
        detail: String,
    },

    /// Operand types that do not fit the operator, or a cast that Arrow
    /// cannot perform.
    #[error("type error in `{expr}`: {message}")]
    Type {
        /// The expression.
        expr: String,
        /// What is wrong, with the types, and what to do.
        message: String,
    },

    /// An expression kind (or function) tenon does not evaluate.
    #[error("unsupported expression `{expr}`: {reason}")]
    Unsupported {
        /// The expression.
        expr: String,
        /// Why, and what to write instead where there is a way.
        reason: String,
    },

    /// Integer or decimal division (or modulo) by zero.
    #[error("division by zero in `{expr}`")]
    DivideByZero {
        /// The expression.
        expr: String,
    },

    /// An arithmetic result that does not fit its type.
    #[error("arithmetic overflow in `{expr}`: {detail}; cast the operands to a wider type")]
    Overflow {
        /// The expression.
        expr: String,
        /// Arrow's description of the overflow.
        detail: String,
    },

    /// Any other failure while evaluating (a cast of a bad value, a
    /// function error).
    #[error("cannot evaluate `{expr}`: {message}")]
    Eval {
        /// The expression.
        expr: String,
        /// The underlying error.
        message: String,
    },
}

/// Result type of the expression module.
pub type Result<T, E = ExprError> = std::result::Result<T, E>;

impl ExprError {
    /// Wraps an Arrow error raised while evaluating `expr`, telling division
    /// by zero and overflow apart from other failures.
    pub(crate) fn arrow(expr: &str, err: ArrowError) -> Self {
        match err {
            ArrowError::DivideByZero => ExprError::DivideByZero {
                expr: expr.to_string(),
            },
            ArrowError::ArithmeticOverflow(detail) => ExprError::Overflow {
                expr: expr.to_string(),
                detail,
            },
            other => ExprError::Eval {
                expr: expr.to_string(),
                message: crate::words::without_dependency_prefixes(&other.to_string()),
            },
        }
    }

    /// Wraps a DataFusion error raised for `expr`.
    pub(crate) fn datafusion(expr: &str, err: datafusion_common::DataFusionError) -> Self {
        match err {
            datafusion_common::DataFusionError::ArrowError(e, _) => ExprError::arrow(expr, *e),
            other => ExprError::Eval {
                expr: expr.to_string(),
                message: crate::words::without_dependency_prefixes(&crate::sql::planner_words(
                    &other.strip_backtrace(),
                )),
            },
        }
    }

    /// A type error for `expr`.
    pub(crate) fn type_error(expr: impl ToString, message: impl Into<String>) -> Self {
        ExprError::Type {
            expr: expr.to_string(),
            message: message.into(),
        }
    }

    /// An unsupported-expression error for `expr`.
    pub(crate) fn unsupported(expr: impl ToString, reason: impl Into<String>) -> Self {
        ExprError::Unsupported {
            expr: expr.to_string(),
            reason: reason.into(),
        }
    }
}
