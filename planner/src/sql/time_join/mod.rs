//! Joins that involve time: event-time temporal joins (`FOR SYSTEM_TIME AS
//! OF`), processing-time temporal joins, temporal table functions
//! (`LATERAL TABLE (Rates(t))`) and as-of joins (`ASOF JOIN ...
//! MATCH_CONDITION (...)`), carried through `SqlToRel` as ordinary joins.
//!
//! datafusion-sql plans none of these: it drops `FOR SYSTEM_TIME AS OF`
//! without a word (planning only the table name) and refuses `ASOF JOIN`.
//! So tenon rewrites them in the AST first ([`rewrite_time_joins`]), into
//! an INNER or LEFT join whose ON condition carries one more conjunct, a
//! call of the marker function `__tenon_time_join`:
//!
//! ```text
//! orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.t AS r ON o.c = r.c AND r.x > 1
//!   ──► orders o LEFT JOIN rates AS r
//!         ON (o.c = r.c AND r.x > 1)
//!         AND __tenon_time_join('temporal', '>=', 'FOR SYSTEM_TIME AS OF o.t', o.t, r.update_time, NULL)
//! trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts >= q.ts) ON t.s = q.s
//!   ──► trades t LEFT JOIN quotes q
//!         ON t.s = q.s AND __tenon_time_join('asof', '>=', 'MATCH_CONDITION (t.ts >= q.ts)', t.ts, q.ts, NULL)
//! ```
//!
//! The marker's arguments: the kind (`temporal`, `latest` for a
//! processing-time join, `asof`), the operator, the clause's text (for
//! EXPLAIN), the time of the left row (NULL for `latest`), the version time
//! of the right row (NULL for `latest` over a table without an event-time
//! attribute) and the tombstone column of a change log's versions (NULL for
//! a table that is not one).
//!
//! The marker is volatile, so no rewrite moves or folds it; the rewrites
//! that move conjuncts ([`push_down_filters`](super::push_down_filters),
//! the implicit joins) read [`is_time_join`] and keep a temporal join's
//! condition whole (its residual is evaluated after the version is chosen,
//! so nothing may be pushed into its versioned side). After key
//! extraction, [`check_time_joins`] checks what needs the final keys (the
//! primary key covered, the time types) and the chooser and the lowering
//! read the join back with [`TimeJoin::of`].

mod check;
mod lateral;
mod rewrite;

use arrow_schema::DataType;
use datafusion_common::{DFSchema, Result as DfResult, ScalarValue, internal_err};
use datafusion_expr::utils::{conjunction, split_conjunction};
use datafusion_expr::{
    ColumnarValue, Expr, Join, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use tenon_kernels::CmpOp;

pub use check::time_like;
pub(crate) use check::{check_time_joins, hide_tombstones, time_type};
pub(crate) use rewrite::{rewrite_time_joins, single_name, version_after_subquery};

/// Name of the marker function (see the module docs).
pub(crate) const TIME_JOIN_MARKER: &str = "__tenon_time_join";

/// The marker function: planned, never evaluated (the lowering takes it
/// out of the join condition).
#[derive(Debug, PartialEq, Eq, Hash)]
struct TimeJoinMarker {
    signature: Signature,
}

impl ScalarUDFImpl for TimeJoinMarker {
    fn name(&self) -> &str {
        TIME_JOIN_MARKER
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        internal_err!("{TIME_JOIN_MARKER} is taken out by the join lowering and never runs")
    }
}

/// The marker as a UDF, for the catalog's function registry.
pub(crate) fn time_join_marker_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(TimeJoinMarker {
        // volatile: nothing may fold or move it
        signature: Signature::variadic_any(Volatility::Volatile),
    })
}

/// Which kind of time join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeJoinKind {
    /// Event-time temporal join (`FOR SYSTEM_TIME AS OF l.rowtime`): the
    /// version valid at the left row's time; the residual condition is
    /// evaluated on the chosen version.
    Temporal,
    /// Processing-time temporal join (`FOR SYSTEM_TIME AS OF l.proctime`):
    /// in batch every row is processed "now", so the latest version.
    Latest,
    /// As-of join (`ASOF JOIN ... MATCH_CONDITION`): the closest right row
    /// among those that pass the other ON conditions; every left row kept.
    Asof,
    /// Lookup join (`FOR SYSTEM_TIME AS OF l.proctime` against a lookup
    /// table): each probe row joins the rows the table's source returns
    /// for its key when it is processed; the rest of the ON condition
    /// filters them.
    Lookup,
}

impl TimeJoinKind {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "temporal" => TimeJoinKind::Temporal,
            "latest" => TimeJoinKind::Latest,
            "asof" => TimeJoinKind::Asof,
            "lookup" => TimeJoinKind::Lookup,
            _ => return None,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            TimeJoinKind::Temporal => "temporal",
            TimeJoinKind::Latest => "latest",
            TimeJoinKind::Asof => "asof",
            TimeJoinKind::Lookup => "lookup",
        }
    }

    /// Whether the residual condition is evaluated after the version is
    /// chosen (Flink's temporal joins) rather than before (as-of joins).
    pub fn filters_after_choice(self) -> bool {
        !matches!(self, TimeJoinKind::Asof)
    }
}

/// A time join read back from a join's condition.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeJoin {
    /// Which kind.
    pub kind: TimeJoinKind,
    /// `left_time <op> right_time` (for temporal joins `>=`).
    pub op: CmpOp,
    /// The clause as written (`FOR SYSTEM_TIME AS OF o.t`, `MATCH_CONDITION
    /// (t.ts >= q.ts)`), for EXPLAIN and messages.
    pub clause: String,
    /// A note for EXPLAIN (a watermark that has no effect in batch), or
    /// empty.
    pub note: String,
    /// The left row's time, over the left input (`None` for
    /// [`TimeJoinKind::Latest`]).
    pub left_time: Option<Expr>,
    /// The version time, over the right input (`None` for a latest join
    /// over a table without an event-time attribute: the last version in
    /// the table's order).
    pub right_time: Option<Expr>,
    /// The tombstone column of a change log's versions, over the right
    /// input.
    pub tombstone: Option<Expr>,
    /// The rest of the join's filter (the marker taken out).
    pub residual: Option<Expr>,
}

/// Whether `join` is a time join (its filter carries the marker).
pub fn is_time_join(join: &Join) -> bool {
    join.filter
        .as_ref()
        .is_some_and(|f| split_conjunction(f).into_iter().any(is_marker))
}

fn is_marker(e: &Expr) -> bool {
    matches!(e, Expr::ScalarFunction(f) if f.func.name() == TIME_JOIN_MARKER)
}

fn literal_text(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(s)), _) => Some(s),
        _ => None,
    }
}

fn non_null(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Literal(v, _) if v.is_null() => None,
        other => Some(other.clone()),
    }
}

/// Which input an expression reads: `Some(true)` the left only,
/// `Some(false)` the right only.
fn side(e: &Expr, left: &DFSchema, right: &DFSchema) -> Option<bool> {
    let columns = e.column_refs();
    if columns.is_empty() {
        return None;
    }
    if columns.iter().all(|c| left.has_column(c)) {
        Some(true)
    } else if columns.iter().all(|c| right.has_column(c)) {
        Some(false)
    } else {
        None
    }
}

fn parse_op(s: &str) -> Option<CmpOp> {
    Some(match s {
        ">=" => CmpOp::Ge,
        ">" => CmpOp::Gt,
        "<=" => CmpOp::Le,
        "<" => CmpOp::Lt,
        _ => return None,
    })
}

impl TimeJoin {
    /// The time join of `join`, if its filter carries the marker.
    ///
    /// # Errors
    /// A marker that does not read as one (an internal error), or an
    /// as-of time condition whose two sides do not each read one input
    /// (`MATCH_CONDITION (t.ts >= t.ts2)`), said in the user's words.
    pub fn of(join: &Join) -> Result<Option<TimeJoin>, String> {
        let Some(filter) = &join.filter else {
            return Ok(None);
        };
        let conjuncts = split_conjunction(filter);
        let Some(marker) = conjuncts.iter().copied().find(|e| is_marker(e)) else {
            return Ok(None);
        };
        let Expr::ScalarFunction(f) = marker else {
            return Ok(None);
        };
        let bad = || format!("internal: malformed time join marker `{marker}`");
        let [kind, op, clause, note, a, b, tombstone] = f.args.as_slice() else {
            return Err(bad());
        };
        let kind = literal_text(kind)
            .and_then(TimeJoinKind::parse)
            .ok_or_else(bad)?;
        let op = literal_text(op).and_then(parse_op).ok_or_else(bad)?;
        let clause = literal_text(clause).ok_or_else(bad)?.to_string();
        let note = literal_text(note).ok_or_else(bad)?.to_string();
        let (a, b) = (non_null(a), non_null(b));
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let (left_time, op, right_time) = match (&a, &b) {
            (Some(a), Some(b)) => match (side(a, lschema, rschema), side(b, lschema, rschema)) {
                (Some(true), Some(false)) => (Some(a.clone()), op, Some(b.clone())),
                (Some(false), Some(true)) => (Some(b.clone()), op.flip(), Some(a.clone())),
                _ => {
                    return Err(format!(
                        "the time condition of `{clause}` must compare a column of the left \
                         input with a column of the right input (`left.t >= right.t`); `{a}` \
                         and `{b}` do not"
                    ));
                }
            },
            (None, b) => (None, op, b.clone()),
            (Some(_), None) => return Err(bad()),
        };
        let residual = conjunction(
            conjuncts
                .into_iter()
                .filter(|e| !is_marker(e))
                .cloned()
                .collect::<Vec<_>>(),
        );
        Ok(Some(TimeJoin {
            kind,
            op,
            clause,
            note,
            left_time,
            right_time,
            tombstone: non_null(tombstone),
            residual,
        }))
    }

    /// What EXPLAIN says about the join, e.g. `temporal join FOR
    /// SYSTEM_TIME AS OF o.t (the version valid at the left row's time;
    /// the rest of the ON condition is tested on that version)`.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            TimeJoinKind::Temporal => format!(
                "event-time temporal join {}: each row joins the version valid at its time; \
                 the rest of the ON condition is tested on that version",
                self.clause
            ),
            TimeJoinKind::Latest => format!(
                "processing-time temporal join {}: in batch every row is processed now, so \
                 each row joins the latest version of its key",
                self.clause
            ),
            TimeJoinKind::Asof => format!(
                "as-of join {}: each row joins the closest right row (op {}) among those that \
                 pass the other ON conditions; unmatched rows are kept",
                self.clause, self.op
            ),
            TimeJoinKind::Lookup => {
                return format!(
                    "lookup join {}: the distinct keys of each probe batch are fetched from {} \
                     in one request; the rest of the ON condition filters the fetched rows",
                    self.clause, self.note
                );
            }
        };
        if self.note.is_empty() {
            what
        } else {
            format!("{what}; {}", self.note)
        }
    }
}

/// The marker call for a time join, as SQL (for the AST rewrite).
pub(crate) fn marker_sql(
    kind: TimeJoinKind,
    op: &str,
    clause: &str,
    note: &str,
    left_time: Option<&str>,
    right_time: Option<&str>,
    tombstone: Option<&str>,
) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    format!(
        "{TIME_JOIN_MARKER}({}, {}, {}, {}, {}, {}, {})",
        quote(kind.as_str()),
        quote(op),
        quote(clause),
        quote(note),
        left_time.unwrap_or("NULL"),
        right_time.unwrap_or("NULL"),
        tombstone.unwrap_or("NULL"),
    )
}
