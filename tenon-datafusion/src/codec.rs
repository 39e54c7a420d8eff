//! [`TenonCodec`]: the `PhysicalExtensionCodec` that writes a
//! [`TenonJoinExec`] into a serialized DataFusion plan and reads it back,
//! for plans that travel (to the workers of a distributed engine). The
//! message is defined here with prost's derives, so no `protoc` runs at
//! build time; its expressions (keys, the residual filter) are
//! DataFusion's own protobuf messages. Compose it with another engine's
//! codec through DataFusion's `ComposedPhysicalExtensionCodec`.
//!
//! A node names the tenon version that wrote it: another version refuses
//! it, naming both (kernels of two versions may not mean the same by a
//! strategy).

use std::sync::Arc;

use arrow_schema::Schema;
use datafusion::common::{DataFusionError, JoinSide as DfJoinSide, JoinType as DfJoinType, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::utils::{ColumnIndex, JoinFilter as DfJoinFilter};
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;
use tenon_kernels::{JoinSide, Strategy};

use crate::exec::TenonJoinExec;

/// The version of tenon that writes and reads the nodes.
pub const TENON_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A [`TenonJoinExec`] as bytes (its two inputs travel as the extension
/// node's inputs).
#[derive(Clone, PartialEq, Message)]
struct TenonJoinNode {
    /// The tenon version that wrote it.
    #[prost(string, tag = "1")]
    version: String,
    /// `BROADCAST`, `SHUFFLE_HASH`, `SHUFFLE_MERGE` or `NEST_LOOP`.
    #[prost(string, tag = "2")]
    strategy: String,
    /// DataFusion's join type, as its `Display` writes it.
    #[prost(string, tag = "3")]
    join_type: String,
    /// `left`, `right`, or empty.
    #[prost(string, tag = "4")]
    build_side: String,
    #[prost(bool, tag = "5")]
    null_equal: bool,
    #[prost(message, repeated, tag = "6")]
    left_keys: Vec<protobuf::PhysicalExprNode>,
    #[prost(message, repeated, tag = "7")]
    right_keys: Vec<protobuf::PhysicalExprNode>,
    #[prost(message, optional, tag = "8")]
    filter: Option<protobuf::JoinFilter>,
    /// NOT IN's null-aware anti join.
    #[prost(bool, tag = "9")]
    null_aware: bool,
}

/// Reads and writes [`TenonJoinExec`] nodes (module docs).
#[derive(Debug, Default, Clone, Copy)]
pub struct TenonCodec;

const JOIN_TYPES: [DfJoinType; 10] = [
    DfJoinType::Inner,
    DfJoinType::Left,
    DfJoinType::Right,
    DfJoinType::Full,
    DfJoinType::LeftSemi,
    DfJoinType::LeftAnti,
    DfJoinType::RightSemi,
    DfJoinType::RightAnti,
    DfJoinType::LeftMark,
    DfJoinType::RightMark,
];

fn decode_err(m: String) -> DataFusionError {
    DataFusionError::Internal(format!("decoding a tenon join: {m}"))
}

impl PhysicalExtensionCodec for TenonCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = TenonJoinNode::decode(buf).map_err(|e| decode_err(e.to_string()))?;
        if node.version != TENON_VERSION {
            return Err(DataFusionError::Plan(format!(
                "this plan's tenon join was written by tenon {}, and this is tenon {TENON_VERSION}: \
                 run the same tenon version on the coordinator and every worker",
                node.version
            )));
        }
        let [left, right] = inputs else {
            return Err(decode_err(format!("{} inputs, not 2", inputs.len())));
        };
        let strategy = Strategy::from_name(&node.strategy)
            .ok_or_else(|| decode_err(format!("unknown strategy {:?}", node.strategy)))?;
        let join_type = JOIN_TYPES
            .iter()
            .find(|t| t.to_string() == node.join_type)
            .ok_or_else(|| decode_err(format!("unknown join type {:?}", node.join_type)))?;
        let build_side = match node.build_side.as_str() {
            "left" => Some(JoinSide::Left),
            "right" => Some(JoinSide::Right),
            "" => None,
            other => return Err(decode_err(format!("unknown build side {other:?}"))),
        };
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let expr = |e: &protobuf::PhysicalExprNode, schema: &Schema| {
            proto_converter.proto_to_physical_expr(e, schema, &decode_ctx)
        };
        let (ls, rs) = (left.schema(), right.schema());
        if node.left_keys.len() != node.right_keys.len() {
            return Err(decode_err("key lists of different lengths".into()));
        }
        let on = node
            .left_keys
            .iter()
            .zip(&node.right_keys)
            .map(|(l, r)| Ok((expr(l, &ls)?, expr(r, &rs)?)))
            .collect::<Result<Vec<_>>>()?;
        let filter = match &node.filter {
            None => None,
            Some(f) => {
                let schema: Schema = f
                    .schema
                    .as_ref()
                    .ok_or_else(|| decode_err("a filter without its schema".into()))?
                    .try_into()
                    .map_err(|e: datafusion_proto::protobuf::FromProtoError| {
                        decode_err(e.to_string())
                    })?;
                let expression = f
                    .expression
                    .as_ref()
                    .ok_or_else(|| decode_err("a filter without its expression".into()))?;
                let expression = expr(expression, &schema)?;
                let column_indices = f
                    .column_indices
                    .iter()
                    .map(|c| {
                        let (side, width) = match c.side {
                            0 => (DfJoinSide::Left, ls.fields().len()),
                            1 => (DfJoinSide::Right, rs.fields().len()),
                            other => {
                                return Err(decode_err(format!("a filter column of side {other}")));
                            }
                        };
                        let index = c.index as usize;
                        if index >= width {
                            return Err(decode_err(format!(
                                "a filter column {index} of an input of {width} columns"
                            )));
                        }
                        Ok(ColumnIndex { index, side })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Some(DfJoinFilter::new(
                    expression,
                    column_indices,
                    Arc::new(schema),
                ))
            }
        };
        if node.null_aware {
            return Ok(Arc::new(TenonJoinExec::try_new_not_in(
                Arc::clone(left),
                Arc::clone(right),
                on,
            )?));
        }
        Ok(Arc::new(TenonJoinExec::try_new(
            Arc::clone(left),
            Arc::clone(right),
            on,
            filter,
            join_type,
            node.null_equal,
            strategy,
            build_side,
        )?))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(join) = node.downcast_ref::<TenonJoinExec>() else {
            return Err(DataFusionError::NotImplemented(format!(
                "tenon's codec writes tenon joins, not {}",
                node.name()
            )));
        };
        let expr = |e| proto_converter.physical_expr_to_proto(e, self);
        let mut left_keys = Vec::new();
        let mut right_keys = Vec::new();
        for (l, r) in join.on() {
            left_keys.push(expr(l)?);
            right_keys.push(expr(r)?);
        }
        let filter = match join.filter() {
            None => None,
            Some(f) => Some(protobuf::JoinFilter {
                expression: Some(expr(f.expression())?),
                column_indices: f
                    .column_indices()
                    .iter()
                    .map(|c| protobuf::ColumnIndex {
                        index: c.index as u32,
                        side: i32::from(c.side != DfJoinSide::Left),
                    })
                    .collect(),
                schema: Some(f.schema().as_ref().try_into().map_err(
                    |e: datafusion_proto::protobuf::ToProtoError| {
                        DataFusionError::Internal(e.to_string())
                    },
                )?),
            }),
        };
        let message = TenonJoinNode {
            version: TENON_VERSION.to_string(),
            strategy: join.strategy().name().to_string(),
            join_type: join.join_type().to_string(),
            build_side: match join.build_side() {
                Some(JoinSide::Left) => "left".into(),
                Some(JoinSide::Right) => "right".into(),
                None => String::new(),
            },
            null_equal: join.null_equal(),
            null_aware: join.null_aware(),
            left_keys,
            right_keys,
            filter,
        };
        message
            .encode(buf)
            .map_err(|e| DataFusionError::Internal(format!("encoding a tenon join: {e}")))
    }
}
