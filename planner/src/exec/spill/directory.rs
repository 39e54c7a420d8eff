//! Spill directories on disk: each named `tenon-spill-{pid}-{n}-{nanos}`
//! under its parent, made private to the user (`0700`, its files `0600`:
//! the default parent is a shared `/tmp`), listed while they exist so that
//! a signal handler can remove them ([`remove_spill_directories`]), and
//! those of a process that no longer runs removed the next time a process
//! spills into the same parent or calls
//! [`remove_dead_spill_directories`] (a process killed by SIGKILL cannot
//! remove its own).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The prefix of a spill directory's name.
const PREFIX: &str = "tenon-spill-";

/// Spill directories made by this process so far (for unique names).
static MADE: AtomicU64 = AtomicU64::new(0);

/// The spill directories of this process that exist now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Parents this process has cleaned of dead processes' directories.
static CLEANED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether process `pid` runs, where `/proc` tells (`None` elsewhere).
pub fn process_runs(pid: u32) -> Option<bool> {
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new("/proc").join(pid.to_string()).exists())
}

/// Makes a new spill directory under `parent` (readable by its user
/// only), first removing, once per parent, the directories there of
/// processes that no longer run.
pub(super) fn make(parent: &Path) -> std::io::Result<PathBuf> {
    let first = {
        let mut cleaned = CLEANED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let first = !cleaned.iter().any(|p| p == parent);
        if first {
            cleaned.push(parent.to_path_buf());
        }
        first
    };
    if first {
        remove_dead_spill_directories(parent);
    }
    let n = MADE.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = parent.join(format!("{PREFIX}{}-{n}-{nanos:08x}", std::process::id()));
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    // listed before it exists: a signal between the two still removes it
    live().push(dir.clone());
    match builder.create(&dir) {
        Ok(()) => Ok(dir),
        Err(e) => {
            live().retain(|d| d != &dir);
            Err(e)
        }
    }
}

/// Removes `dir` (a directory [`make`] made) with its files.
pub(super) fn remove(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
    live().retain(|d| d != dir);
}

/// Creates spill file `path` (readable by its user only).
pub(super) fn create_file(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Removes every spill directory of this process, with its files: for a
/// handler of SIGINT or SIGTERM, just before the process exits (queries
/// still running then fail to write, which no one sees). Returns how many
/// it removed.
pub fn remove_spill_directories() -> usize {
    let dirs = std::mem::take(&mut *live());
    // a worker may still be making a file in one: try again then
    dirs.iter()
        .filter(|d| (0..5).any(|_| fs::remove_dir_all(d).is_ok() || !d.exists()))
        .count()
}

/// Removes the spill directories under `parent` of processes that no
/// longer run (killed while spilling); returns how many. Directories of
/// running processes, anything not named as a spill directory, and
/// everything where it cannot be told whether a process runs are left
/// alone.
pub fn remove_dead_spill_directories(parent: &Path) -> usize {
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    let own = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if pid == own || !is_dir || process_runs(pid) != Some(false) {
            continue;
        }
        if fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
