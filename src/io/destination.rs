//! [`Destination`]: where output goes, and the one home of "write a file
//! completely or not at all".
//!
//! A path names one of three kinds of destination, and each is written its
//! own way:
//!
//! - **stdout**: `-`, or a path that names the process's standard output
//!   (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`): written to the
//!   process's own stdout handle, so a redirection (`> file`, `>> file`, a
//!   pipe) applies as the shell set it up;
//! - **written directly**: a character device (`/dev/null`, a terminal,
//!   `/dev/full`), a FIFO, or another open descriptor (`/dev/stderr`,
//!   `/dev/fd/N`): opened for writing (never created, truncated or
//!   replaced) and written as the bytes come;
//! - **replaced atomically**: a regular file, or a name that does not exist
//!   yet. A symbolic link is followed to the file it names (also when that
//!   file does not exist yet), and that file is replaced: the link stays a
//!   link. The bytes go to a hidden temporary file beside the target,
//!   `.{name}.tenon-tmp-{pid}-{n}`, which is synced and renamed over the
//!   target when complete ([`Destination::finish`]); on an error, or when
//!   the destination is dropped unfinished, it is removed.
//!
//! Anything else (a directory, a block device, a socket) is refused: tenon
//! never replaces what is not a regular file.
//!
//! Temporary files left by a process that could not clean up (killed with
//! SIGKILL, or a machine that lost power) are removed by the next atomic
//! write into the same directory, when the process that made them no longer
//! runs (Linux, where `/proc` tells; elsewhere they are left alone). A
//! process that handles SIGINT or SIGTERM calls
//! [`remove_unfinished_files`] before it exits.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::IoError;
use super::write::OutputFormat;

/// The part of a temporary file's name between the target's name and the
/// process id.
const TEMP_MARK: &str = ".tenon-tmp-";

/// Symbolic links followed before a path is taken for a loop.
const MAX_LINKS: usize = 40;

/// Distinguishes the temporary files of concurrent writes in one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The temporary files of this process's unfinished atomic writes. A file
/// leaves the list only under its lock, after it has been renamed into
/// place or removed, so that [`remove_unfinished_files`] never removes a
/// file that is being renamed.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary files of every unfinished atomic write of this
/// process (for a signal handler that is about to exit), and keeps any
/// other write from finishing or starting until the process exits.
/// Returns how many files it removed.
///
/// The lock is left held on purpose: after this call the process is
/// expected to exit, and no rename may complete in between.
pub fn remove_unfinished_files() -> usize {
    let mut list = unfinished();
    let mut removed = 0;
    for path in list.drain(..) {
        if fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    std::mem::forget(list);
    removed
}

/// Where output is written: see the [module docs](self).
pub struct Destination {
    kind: Kind,
    /// The path as given (`None` for stdout), for messages.
    path: Option<PathBuf>,
    /// The format being written, for messages.
    format: OutputFormat,
}

enum Kind {
    /// Not locked: `Stdout` takes its lock per write (each a buffer's
    /// worth), so no other thread that prints can be blocked for long.
    Stdout(BufWriter<std::io::Stdout>),
    Direct(BufWriter<File>),
    Atomic(AtomicFile),
}

/// A temporary file that becomes `target` when finished.
struct AtomicFile {
    file: BufWriter<File>,
    temp: PathBuf,
    target: PathBuf,
    /// Renamed into place: nothing to remove.
    done: bool,
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            let mut list = unfinished();
            let _ = fs::remove_file(&self.temp);
            list.retain(|p| p != &self.temp);
        }
    }
}

/// What a path names, once links are followed.
enum Resolved {
    Stdout,
    /// Written directly; `append` for an open descriptor (whose file may be
    /// a regular file the shell opened with `>>`).
    Direct {
        path: PathBuf,
        append: bool,
    },
    /// A regular file or a name to create, at this path (links followed).
    Replace(PathBuf),
}

impl Destination {
    /// The process's standard output.
    pub fn stdout(format: OutputFormat) -> Destination {
        Destination {
            kind: Kind::Stdout(BufWriter::new(std::io::stdout())),
            path: None,
            format,
        }
    }

    /// Opens `path` as the [module docs](self) describe: `-` and the paths
    /// of stdout are stdout, devices and FIFOs are opened for writing (a
    /// FIFO waits for a reader, as a shell's `>` does), and a regular file
    /// or a new name gets a temporary file beside it, renamed over it by
    /// [`Destination::finish`].
    ///
    /// # Errors
    ///
    /// [`IoError::Write`]: a path that names a directory or another kind of
    /// file tenon does not replace, a directory that does not exist or
    /// cannot be written to, a symbolic link loop.
    pub fn open(path: &Path, format: OutputFormat) -> Result<Destination, IoError> {
        let fail = |message: String, io_error: Option<std::io::Error>| IoError::Write {
            path: Some(path.to_path_buf()),
            format,
            message,
            io_error,
        };
        let kind = match resolve(path).map_err(|m| fail(m, None))? {
            Resolved::Stdout => return Ok(Destination::stdout(format)),
            Resolved::Direct { path: p, append } => {
                let file = OpenOptions::new()
                    .write(true)
                    .append(append)
                    .open(&p)
                    .map_err(|e| fail(format!("cannot open it for writing: {e}"), Some(e)))?;
                Kind::Direct(BufWriter::new(file))
            }
            Resolved::Replace(target) => {
                Kind::Atomic(create_temp(&target).map_err(|(m, e)| fail(m, e))?)
            }
        };
        Ok(Destination {
            kind,
            path: Some(path.to_path_buf()),
            format,
        })
    }

    /// `path`, or stdout when `path` is `None`.
    ///
    /// # Errors
    ///
    /// As [`Destination::open`].
    pub fn open_or_stdout(path: Option<&Path>, format: OutputFormat) -> Result<Self, IoError> {
        match path {
            Some(p) => Destination::open(p, format),
            None => Ok(Destination::stdout(format)),
        }
    }

    /// The path given, `None` for stdout.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether the output is stdout.
    pub fn is_stdout(&self) -> bool {
        matches!(self.kind, Kind::Stdout(_))
    }

    /// Where the bytes go until [`Destination::finish`].
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.kind {
            Kind::Stdout(w) => w,
            Kind::Direct(w) => w,
            Kind::Atomic(a) => &mut a.file,
        }
    }

    /// Writes all of `bytes`, then [finishes](Destination::finish).
    ///
    /// # Errors
    ///
    /// As [`Destination::finish`], and a failed write (the file is then
    /// left as it was).
    pub fn write_all_and_finish(mut self, bytes: &[u8]) -> Result<(), IoError> {
        if let Err(e) = self.writer().write_all(bytes) {
            return Err(IoError::Write {
                path: self.path.clone(),
                format: self.format,
                message: e.to_string(),
                io_error: Some(e),
            });
        }
        self.finish()
    }

    /// Flushes the output; for a file replaced atomically, syncs the
    /// temporary file to disk and renames it over the target.
    ///
    /// # Errors
    ///
    /// [`IoError::Write`]: the flush, sync or rename failed (the temporary
    /// file is then removed and the target is as it was), or the target was
    /// replaced by something other than a regular file meanwhile.
    pub fn finish(mut self) -> Result<(), IoError> {
        let path = self.path.clone();
        let format = self.format;
        let fail = |message: String, io_error: Option<std::io::Error>| IoError::Write {
            path: path.clone(),
            format,
            message,
            io_error,
        };
        match &mut self.kind {
            Kind::Stdout(w) => w.flush().map_err(|e| fail(e.to_string(), Some(e))),
            Kind::Direct(w) => w.flush().map_err(|e| fail(e.to_string(), Some(e))),
            Kind::Atomic(a) => a.finish().map_err(|(m, e)| fail(m, e)),
        }
    }
}

impl AtomicFile {
    fn finish(&mut self) -> Result<(), (String, Option<std::io::Error>)> {
        let w = &mut self.file;
        w.flush().map_err(|e| (e.to_string(), Some(e)))?;
        w.get_ref()
            .sync_all()
            .map_err(|e| (e.to_string(), Some(e)))?;
        // Someone may have put something else at the target since it was
        // resolved: never rename over anything but a regular file.
        if let Ok(meta) = fs::symlink_metadata(&self.target)
            && !meta.is_file()
        {
            return Err((
                format!(
                    "{} is no longer a regular file (it was replaced while the output was \
                     written); nothing was written",
                    self.target.display()
                ),
                None,
            ));
        }
        let mut list = unfinished();
        let renamed = fs::rename(&self.temp, &self.target);
        if renamed.is_ok() {
            // The rename consumed the temporary file: nothing to remove.
            self.done = true;
            list.retain(|p| p != &self.temp);
        }
        drop(list);
        renamed.map_err(|e| {
            (
                format!("cannot move the finished file into place ({e})"),
                Some(e),
            )
        })?;
        // Make the rename itself durable where a directory can be synced.
        if let Ok(d) = File::open(parent_dir(&self.target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// The directory a file path is in (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Whether `path` names an open file descriptor: `/dev/fd/N`,
/// `/proc/self/fd/N`, `/proc/PID/fd/N`, `/dev/stdout`, `/dev/stderr`;
/// `Some(N)` then (`N` is 1 for `/dev/stdout`, 2 for `/dev/stderr`).
fn descriptor(path: &Path) -> Option<u32> {
    let parts: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    if !path.is_absolute() {
        return None;
    }
    match parts.as_slice() {
        ["dev", "stdout"] => Some(1),
        ["dev", "stderr"] => Some(2),
        ["dev", "fd", n] => n.parse().ok(),
        ["proc", pid, "fd", n]
            if *pid == "self" || pid.parse() == Ok(std::process::id()) || *pid == "thread-self" =>
        {
            n.parse().ok()
        }
        _ => None,
    }
}

/// Follows `path`'s symbolic links to what it names; a message on failure.
fn resolve(path: &Path) -> Result<Resolved, String> {
    if path.as_os_str() == "-" {
        return Ok(Resolved::Stdout);
    }
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = descriptor(&current) {
            if fd == 1 {
                return Ok(Resolved::Stdout);
            }
            return Ok(Resolved::Direct {
                path: current,
                append: true,
            });
        }
        let meta = match fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Resolved::Replace(current));
            }
            Err(e) => return Err(format!("cannot look at {}: {e}", current.display())),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = fs::read_link(&current)
                .map_err(|e| format!("cannot read the link {}: {e}", current.display()))?;
            current = if link.is_absolute() {
                link
            } else {
                parent_dir(&current).join(link)
            };
            continue;
        }
        if kind.is_file() {
            return Ok(Resolved::Replace(current));
        }
        if kind.is_dir() {
            return Err(format!(
                "{} is a directory: give the path of a file to write",
                current.display()
            ));
        }
        if is_device_or_fifo(&kind) {
            return Ok(Resolved::Direct {
                path: current,
                append: false,
            });
        }
        return Err(format!(
            "{} is neither a regular file, a character device nor a FIFO (tenon writes those, \
             and `-` for stdout, and never replaces anything else)",
            current.display()
        ));
    }
    Err(format!(
        "more than {MAX_LINKS} symbolic links from {}: is there a loop?",
        path.display()
    ))
}

#[cfg(unix)]
fn is_device_or_fifo(kind: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

#[cfg(not(unix))]
fn is_device_or_fifo(_kind: &fs::FileType) -> bool {
    false
}

/// Creates the temporary file for `target` (after removing the leftovers
/// of dead processes in its directory) and lists it as unfinished.
fn create_temp(target: &Path) -> Result<AtomicFile, (String, Option<std::io::Error>)> {
    let Some(name) = target.file_name() else {
        return Err(("the path does not name a file".to_string(), None));
    };
    let dir = parent_dir(target);
    remove_dead_leftovers(dir);
    let temp = dir.join(format!(
        ".{}{TEMP_MARK}{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut list = unfinished();
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(|e| {
            (
                format!(
                    "cannot create a file in {} ({e}): check that the directory exists and is \
                     writable",
                    dir.display()
                ),
                Some(e),
            )
        })?;
    list.push(temp.clone());
    drop(list);
    // A replaced file keeps its permissions.
    if let Ok(meta) = fs::metadata(target) {
        let _ = file.set_permissions(meta.permissions());
    }
    Ok(AtomicFile {
        file: BufWriter::new(file),
        temp,
        target: target.to_path_buf(),
        done: false,
    })
}

/// The process id in a temporary file's name, if `name` is one:
/// `.{name}.tenon-tmp-{pid}-{n}`.
fn leftover_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(TEMP_MARK)?;
    let (pid, n) = tail.split_once('-')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

use tenon_planner::exec::spill::process_runs;

/// Removes the temporary files in `dir` of processes that no longer run
/// (killed while writing); returns how many. Regular files only; the files
/// of running processes, and everything where it cannot be told whether a
/// process runs, are left alone.
pub(crate) fn remove_dead_leftovers(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(leftover_pid) else {
            continue;
        };
        if pid == std::process::id() || process_runs(pid) != Some(false) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_file()) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_names_are_recognised_exactly() {
        assert_eq!(leftover_pid(".out.csv.tenon-tmp-123-0"), Some(123));
        assert_eq!(leftover_pid(".a.tenon-tmp-b.tenon-tmp-7-12"), Some(7));
        assert_eq!(leftover_pid("out.csv.tenon-tmp-123-0"), None);
        assert_eq!(leftover_pid(".out.csv.tenon-tmp-123-"), None);
        assert_eq!(leftover_pid(".out.csv.tenon-tmp-x-0"), None);
        assert_eq!(leftover_pid(".out.csv"), None);
    }

    #[test]
    fn descriptors_are_told_by_path() {
        assert_eq!(descriptor(Path::new("/dev/stdout")), Some(1));
        assert_eq!(descriptor(Path::new("/dev/stderr")), Some(2));
        assert_eq!(descriptor(Path::new("/dev/fd/1")), Some(1));
        assert_eq!(descriptor(Path::new("/proc/self/fd/1")), Some(1));
        let own = format!("/proc/{}/fd/3", std::process::id());
        assert_eq!(descriptor(Path::new(&own)), Some(3));
        assert_eq!(descriptor(Path::new("/proc/1/fd/1")), None);
        assert_eq!(descriptor(Path::new("dev/stdout")), None);
        assert_eq!(descriptor(Path::new("/dev/null")), None);
    }
}
