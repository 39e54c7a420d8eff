//! The core every join kernel builds on; it depends on no kernel.
//!
//! * [`JoinInput`] (`input`): a side's schema and batches; `concat`: a side
//!   as one batch, string views compacted.
//! * [`JoinOptions`] (`options`): batch size, threads, memory budget,
//!   projection and residual filter, shared by every kernel, and the
//!   output schema they decide.
//! * [`JoinKernel`] (`join_kernel`): the trait every kernel implements
//!   (its options, join type, strategy and `for_each`; `execute`,
//!   `collect`, `output_schema` and the builder methods are provided), with
//!   two optional capabilities: [`FedProbe`], taking the probe side batch
//!   by batch, and [`PairJoin`] (`pairs`), handing matched pairs to a
//!   [`PairSink`] instead of output batches (for an aggregate fused into
//!   the join). [`Join`] (`join`) holds any kernel; [`Strategy`] names the
//!   four strategies by their hint names.
//! * [`BatchSink`] and the emitter (`emit`): candidate pairs to join-type
//!   bookkeeping (filter, match bitmaps) to output batches, and the
//!   unmatched-rows pass; `output`: the output layout and the one gather.
//! * `validate`: the checks every kernel makes, in the same words;
//!   `dispatch`: the key-type dispatch; `stream`: [`JoinStream`] and the
//!   collecting sink.
//!
//! A new kernel is one module beside `hash`, `merge`, `nested` and `asof`
//! with one `impl JoinKernel` (plus `impl From<NewJoin> for Join`), built
//! from these pieces.

pub(crate) mod concat;
pub(crate) mod dispatch;
pub(crate) mod emit;
pub(crate) mod input;
pub(crate) mod join;
pub(crate) mod join_kernel;
pub(crate) mod options;
pub(crate) mod output;
pub(crate) mod pairs;
pub(crate) mod stream;
pub(crate) mod validate;

pub use concat::compact_views;
pub use emit::BatchSink;
pub use input::JoinInput;
pub use join::{Join, Strategy};
pub use join_kernel::{CloneKernel, FedProbe, JoinKernel, ProbeFeed};
pub use options::JoinOptions;
pub use output::join_schema;
pub use pairs::{PairChunk, PairJoin, PairSink, PairWorker};
pub use stream::JoinStream;
