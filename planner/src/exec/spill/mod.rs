//! Spilling to disk: what an operator that does not fit the query's
//! `memory_limit` writes out and reads back.
//!
//! * [`SpillSpace`] (module `file`) is a query's directory of spill files:
//!   made under `spill_dir` (default: the system's temporary directory)
//!   the first time anything spills, and removed with everything in it
//!   when the query's run ends, whether it succeeded, failed, panicked in
//!   a worker or was cancelled by a dropped result stream (its `Drop`).
//!   It counts the bytes on disk against `spill_limit`. Module `directory`
//!   makes the directories (`0700`, files `0600`), removes them all on a
//!   signal, and removes a dead process's.
//! * A [`SpillWriter`] writes batches as an Arrow IPC stream, with LZ4
//!   frames when a sample of its first batch compresses to half its size
//!   or less (random numbers save about a fifth, which costs more time
//!   than it saves); a finished [`SpillFile`] reads them back and deletes
//!   itself when dropped.
//! * Module `partition` splits batches by a hash of their join keys, the
//!   same hash on both sides and a different one at each recursion level.
//! * Module `hash_join` is the hybrid (grace) hash join: the build side
//!   collected whole while it fits, else partitioned, with the partitions
//!   that do not fit written out (and the probe rows that hash to them);
//!   each spilled partition joined on its own, split again when it still
//!   does not fit, and joined in blocks (module `block`) when it cannot be
//!   split (one key with more rows than the memory holds). Module
//!   `adaptive` builds its probe side instead when that side (an INNER
//!   join chosen by default) turns out smaller and fits.
//!
//! * Module `collected` runs the joins whose kernels take both inputs
//!   collected (sort-merge, nested loop): both sides split by key hash
//!   into pairs of partitions joined one at a time, or joined in blocks
//!   when there are no keys.
//! * Module `set_op` runs INTERSECT/EXCEPT ALL: both inputs split by
//!   value, each pair of partitions counted and taken on its own.
//! * Module `spool` collects an input in memory while it fits, else in a
//!   spill file (the inputs of the two modules above).
//! * Module `sort` is the external merge sort of ORDER BY: sorted runs
//!   written when the rows do not fit, merged a bounded number at a time.
//!
//! Errors of the disk (full, the spill limit, a directory that cannot be
//! made or written) are [`ExecError::Spill`](crate::exec::ExecError::Spill):
//! they name the directory and the bytes written so far, and advise by
//! what happened (free disk space for a full disk, another directory for
//! one that cannot be written, a higher `spill_limit` for the limit).

pub(super) mod adaptive;
mod block;
pub(super) mod collected;
mod directory;
mod file;
pub(super) mod hash_join;
mod partition;
pub(super) mod set_op;
pub(super) mod sort;
mod spool;

pub use directory::{process_runs, remove_dead_spill_directories, remove_spill_directories};
pub use file::SpillSettings;
pub(crate) use file::SpillSpace;
pub(in crate::exec) use file::{SpillFile, SpillWriter};
