//! tenon's SQL dialect: sqlparser's [`GenericDialect`] with SQL's operator
//! precedence for `IS [NOT] DISTINCT FROM` (docs/hints.md J06).
//!
//! sqlparser 0.62 reads the right operand of `IS [NOT] DISTINCT FROM` with
//! `parse_expr`, i.e. as a whole expression, so
//! `a IS NOT DISTINCT FROM b AND c = d` became
//! `a IS NOT DISTINCT FROM (b AND c = d)`. [`TenonDialect`] takes over the
//! infix parse of that one operator (through the dialect's `parse_infix`
//! hook) and reads the right operand at the precedence of `IS`, as
//! PostgreSQL does: operators that bind tighter than `IS` (`+`, `||`, `=`,
//! `<`, `LIKE`, ...) stay in the operand, `AND`, `OR` and `NOT` end it.
//!
//! Keywords that open an expression of their own (`NOT`, `CASE`, `CAST`,
//! `TRY_CAST`) are never read as names ([`Dialect::is_reserved_for_identifier`]):
//! sqlparser reads such a word first as its construct and, when that fails,
//! again as a name or function call (`not(...)`), so that `n` nested `NOT (`
//! would be parsed `2^n` times on the way to an error, and an error deep
//! inside (the nesting limit) would come out as a misleading one about a
//! function `not` or a column `case`. Reserved, each is parsed once and the
//! first error is the one reported.
//!
//! Every other behaviour is the generic dialect's: the wrapper reports
//! [`GenericDialect`]'s type id (so the parser's `dialect_of!` checks answer as
//! for the generic dialect) and forwards every method the generic dialect
//! overrides.

use std::any::TypeId;

use sqlparser::ast::{Expr, Map, MapEntry};
use sqlparser::dialect::{Dialect, GenericDialect, Precedence};
use sqlparser::keywords::{self, Keyword};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// How many levels of recursion the SQL parser may use for one statement
/// (sqlparser's default is 50): a nested parenthesis, subquery, `NOT` or
/// `CASE` takes one or two. Statements are parsed on a thread with a large
/// stack (the session's), so the limit is well above what generated SQL
/// needs; past it the statement is refused with [`SqlError::Limit`](super::SqlError::Limit).
pub const NESTING_LIMIT: usize = 500;

/// The one dialect value parsers borrow.
static DIALECT: TenonDialect = TenonDialect {
    inner: GenericDialect,
};

/// A parser of tenon's dialect with tenon's [`NESTING_LIMIT`].
pub(crate) fn parser() -> Parser<'static> {
    Parser::new(&DIALECT).with_recursion_limit(NESTING_LIMIT)
}

/// sqlparser's generic dialect with SQL's precedence for
/// `IS [NOT] DISTINCT FROM` (J06). See the module docs.
///
/// # Examples
/// ```
/// use sqlparser::parser::Parser;
/// use tenon_planner::sql::TenonDialect;
///
/// let expr = Parser::new(&TenonDialect::default())
///     .try_with_sql("a IS NOT DISTINCT FROM b AND c = d")
///     .unwrap()
///     .parse_expr()
///     .unwrap();
/// assert_eq!(expr.to_string(), "a IS NOT DISTINCT FROM b AND c = d");
/// assert!(matches!(expr, sqlparser::ast::Expr::BinaryOp { .. }));
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct TenonDialect {
    inner: GenericDialect,
}

/// Forwards `fn name(&self) -> bool` methods to the generic dialect.
macro_rules! forward_flags {
    ($($name:ident),* $(,)?) => {
        $(
            fn $name(&self) -> bool {
                self.inner.$name()
            }
        )*
    };
}

impl Dialect for TenonDialect {
    fn dialect(&self) -> TypeId {
        self.inner.dialect()
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.inner.is_delimited_identifier_start(ch)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.inner.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        self.inner.is_identifier_part(ch)
    }

    fn is_reserved_for_identifier(&self, kw: Keyword) -> bool {
        keywords::RESERVED_FOR_IDENTIFIER.contains(&kw)
            || matches!(
                kw,
                Keyword::NOT | Keyword::CASE | Keyword::CAST | Keyword::TRY_CAST
            )
    }

    /// `FOR SYSTEM_TIME AS OF` after a table name (temporal joins); the
    /// other table versions sqlparser then reads are refused by the
    /// time-join rewrite.
    fn supports_table_versioning(&self) -> bool {
        true
    }

    /// Flink's map constructor `MAP['k1', v1, 'k2', v2]`: key, value,
    /// key, value, ... as the map literal `MAP {'k1': v1, 'k2': v2}`.
    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let is_map = matches!(&parser.peek_token().token,
            Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("map"));
        if !is_map || parser.peek_nth_token(1).token != Token::LBracket {
            return None;
        }
        let start = parser.next_token().span.start;
        parser.next_token();
        let values = match parser.parse_comma_separated(Parser::parse_expr) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        if let Err(e) = parser.expect_token(&Token::RBracket) {
            return Some(Err(e));
        }
        if values.len() % 2 != 0 {
            return Some(Err(ParserError::ParserError(format!(
                "MAP[...] takes keys and values in turn (`MAP['a', 1, 'b', 2]`), an even number \
                 of them, not {} at Line: {}, Column: {}",
                values.len(),
                start.line,
                start.column
            ))));
        }
        let mut it = values.into_iter();
        let mut entries = Vec::new();
        while let (Some(key), Some(value)) = (it.next(), it.next()) {
            entries.push(MapEntry {
                key: Box::new(key),
                value: Box::new(value),
            });
        }
        Some(Ok(Expr::Map(Map { entries })))
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let negated = if parser.parse_keywords(&[
            Keyword::IS,
            Keyword::NOT,
            Keyword::DISTINCT,
            Keyword::FROM,
        ]) {
            true
        } else if parser.parse_keywords(&[Keyword::IS, Keyword::DISTINCT, Keyword::FROM]) {
            false
        } else {
            return None;
        };
        let right = match parser.parse_subexpr(self.prec_value(Precedence::Is)) {
            Ok(right) => right,
            Err(e) => return Some(Err(e)),
        };
        let (left, right) = (Box::new(expr.clone()), Box::new(right));
        Some(Ok(if negated {
            Expr::IsNotDistinctFrom(left, right)
        } else {
            Expr::IsDistinctFrom(left, right)
        }))
    }

    forward_flags!(
        supports_unicode_string_literal,
        supports_partition_by_after_order_by,
        supports_array_join_syntax,
        supports_group_by_expr,
        supports_group_by_with_modifier,
        supports_left_associative_joins_without_parens,
        supports_connect_by,
        supports_match_recognize,
        supports_pipe_operator,
        supports_start_transaction_modifier,
        supports_window_function_null_treatment_arg,
        supports_dictionary_syntax,
        supports_window_clause_named_window_reference,
        supports_parenthesized_set_variables,
        supports_select_wildcard_except,
        support_map_literal_syntax,
        allow_extract_custom,
        allow_extract_single_quotes,
        supports_extract_comma_syntax,
        supports_create_view_comment_syntax,
        supports_parens_around_table_factor,
        supports_values_as_table_factor,
        supports_create_index_with_clause,
        supports_explain_with_utility_options,
        supports_limit_comma,
        supports_update_order_by,
        supports_from_first_select,
        supports_projection_trailing_commas,
        supports_asc_desc_in_column_definition,
        supports_try_convert,
        supports_bitwise_shift_operators,
        supports_comment_on,
        supports_load_extension,
        supports_named_fn_args_with_assignment_operator,
        supports_struct_literal,
        supports_empty_projections,
        supports_nested_comments,
        supports_multiline_comment_hints,
        supports_user_host_grantee,
        supports_string_escape_constant,
        supports_array_typedef_with_brackets,
        supports_match_against,
        supports_set_names,
        supports_comma_separated_set_assignments,
        supports_filter_during_aggregation,
        supports_select_wildcard_exclude,
        supports_data_type_signed_suffix,
        supports_interval_options,
        supports_quote_delimited_string,
        supports_select_wildcard_replace,
        supports_select_wildcard_ilike,
        supports_select_wildcard_rename,
        supports_optimize_table,
        supports_install,
        supports_detach,
        supports_prewhere,
        supports_with_fill,
        supports_limit_by,
        supports_interpolate,
        supports_settings,
        supports_select_format,
        supports_comment_optimizer_hint,
        supports_constraint_keyword_without_name,
        supports_key_column_option,
        supports_comma_separated_trim,
        supports_cte_without_as,
        supports_select_item_multi_column_alias,
        supports_xml_expressions,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::BinaryOperator;

    fn parse(sql: &str) -> Expr {
        Parser::new(&TenonDialect::default())
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap()
    }

    #[test]
    fn j06_and_ends_the_distinct_operand() {
        let Expr::BinaryOp { left, op, right } = parse("a IS NOT DISTINCT FROM b AND c = d") else {
            panic!("expected AND at the top");
        };
        assert_eq!(op, BinaryOperator::And);
        assert!(matches!(*left, Expr::IsNotDistinctFrom(..)));
        assert!(matches!(
            *right,
            Expr::BinaryOp {
                op: BinaryOperator::Eq,
                ..
            }
        ));
    }

    #[test]
    fn tighter_operators_stay_in_the_operand() {
        let Expr::IsDistinctFrom(_, right) = parse("a IS DISTINCT FROM b + 1") else {
            panic!("expected IS DISTINCT FROM at the top");
        };
        assert!(matches!(
            *right,
            Expr::BinaryOp {
                op: BinaryOperator::Plus,
                ..
            }
        ));
        assert!(matches!(
            parse("a IS NOT DISTINCT FROM b OR c"),
            Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            }
        ));
        // other IS forms are untouched
        assert!(matches!(
            parse("a IS NULL AND b"),
            Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            }
        ));
    }
}
