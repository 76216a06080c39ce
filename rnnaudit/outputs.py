"""Output directories: one writer at a time, and a report that is either whole or absent.

A leaf (standard library only), used by ``check``, ``audit``, ``train`` and sweeps.

- :class:`DirectoryLock`: an ``fcntl`` lock on ``.<name>.lock`` beside the output directory (or on
  ``.rnnaudit.lock`` inside a run directory, so that a read-only parent is no obstacle). A second
  writer is refused at once with the holder's PID and command; the operating system releases the lock
  when its holder dies, so a lock left by a killed process is recovered without any cleanup. The
  holder unlinks the lock file on release while still holding it, and whoever acquires a lock checks
  that the file it locked is still the one at the path (else it locked an unlinked file and retries),
  so no lock file is left after a clean exit and there is still never more than one writer.
- :func:`remove_own_files`: what ``overwrite`` deletes: only the files rnnaudit names, in a directory
  whose run.json carries :data:`RUN_MARKER`; anything else present is refused, and symlinks are never
  followed.
- :func:`replaced_directory`: a report is built in a staging directory beside its target and swapped
  in by two renames, so a killed run leaves the previous complete report or none, never a mix, and
  no file of an older run survives unlisted. Leftover staging directories of killed runs are removed
  by the next run (it holds the lock, so they cannot belong to a live writer).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import shutil
import sys
import time
from pathlib import Path

__all__ = ["check_output_location", "DirectoryLock", "LockedError", "replaced_directory", "REPORT_MARKER",
           "RUN_MARKER", "LOCK_NAME",
           "remove_own_files", "remove_stale_temporaries"]

#: The file that marks a directory as an rnnaudit report, so that only such a directory is replaced.
REPORT_MARKER = ".rnnaudit-report"
#: run.json's field and value that mark a run directory as rnnaudit's, so that only such a directory is overwritten.
RUN_MARKER = {"written_by": "rnnaudit"}
#: The lock file inside a run directory (``DirectoryLock(run_dir, inside=True)``).
LOCK_NAME = ".rnnaudit.lock"



def _probe_writable(directory: Path, name: str, where: str) -> None:
    """Create and remove a temporary file in ``directory``, as the output will: a read-only file system or /proc
    fails here, before any work, not at the end with the temporary file's name."""
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".probe")
    except OSError as err:
        raise ValueError(f"{where}: cannot write in {directory}: {err.strerror or err}") from None
    os.close(fd)
    os.unlink(probe)


def check_output_location(out: str | os.PathLike, where: str) -> None:
    """Where an output (a figure, a report or run directory, a sweep's ``out``) may go: in an existing
    directory, or under the current directory, where missing directories are created (``runs/<name>``, the
    documented ``runs/lr-search``). Elsewhere nothing above the output is created: a mistyped absolute path
    (``/nonexistent/dir/h.png``) is one line, not a new tree of directories.

    Args:
        out: the output path. where: the flag or field that named it, for the message (``--out``, ...).

    Raises:
        ValueError: the path holds a control character (a newline, ...), the parent is not a directory, is missing
            outside the current directory, or (for an output to be created there) cannot be written (names
            ``where``).
    """
    bad = next((c for c in str(out) if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:  # a newline in a file name splits every message and listing that names it
        raise ValueError(f"{where} {str(out)[:200]!r}: a path with a control character ({bad!r}) is refused")
    target = Path(out)
    try:
        parent = target.parent
        if parent.is_dir():
            if not target.is_dir():  # created (or replaced, through a temporary file) in the parent: probe it
                _probe_writable(parent, target.name, f"{where} {str(out)[:200]}")
            return
        if parent.exists():
            raise ValueError(f"{where} {str(out)[:200]}: {parent} is not a directory")
        cwd = Path.cwd().resolve()
        inside = cwd in (cwd / target).resolve().parents
    except OSError as err:  # a name too long for the filesystem
        raise ValueError(f"{where} {str(out)[:200]}: cannot use this path: {err.strerror or err}") from None
    if not inside:
        raise ValueError(f"{where} {str(out)[:200]}: its directory {parent} does not exist; rnnaudit creates missing "
                         "directories only under the current directory")


class LockedError(ValueError):
    """Another process is writing the same output directory."""


class DirectoryLock:
    """An exclusive lock on an output directory (the directory itself need not exist).

    Args:
        path: the output directory. The lock file is ``<parent>/.<name>.lock``, or with ``inside``
            ``<path>/.rnnaudit.lock`` (the directory is created, with its parents).
        inside: keep the lock inside ``path`` (run directories: they are never swapped by rename).

    Raises:
        LockedError: on entry, when another live process holds the lock (names its PID and command).
        OSError: the lock file cannot be created (e.g. a read-only parent).
    """

    def __init__(self, path: str | os.PathLike, *, inside: bool = False):
        self.path = Path(path)
        self.lock_path = self.path / LOCK_NAME if inside else self.path.parent / f".{self.path.name}.lock"
        self._fh = None

    def __enter__(self) -> "DirectoryLock":
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fh = self._open()
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = _holder(fh.read())
                fh.close()
                raise LockedError(f"{self.path} is being written by another rnnaudit process ({holder}); wait for it "
                                  "to finish or choose another output") from None
            # the previous holder may have unlinked the file between our open and our flock: then we hold
            # a lock on a file no one else will ever open, and must lock the one now at the path instead
            try:
                same = os.path.samestat(os.fstat(fh.fileno()), os.lstat(self.lock_path))
            except FileNotFoundError:
                same = False
            if same:
                break
            fh.close()
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv), "since": time.time()}) + "\n")
        fh.flush()
        self._fh = fh
        return self

    def _open(self):
        """The lock file, opened for reading and writing without following a symbolic link: a link planted at the
        lock's path (in a downloaded run directory, say) would otherwise have us write the holder's record into
        whatever file it names.

        Raises:
            rnnaudit.untrusted.InputError: the lock's path is a symbolic link or not a regular file.
        """
        from rnnaudit.untrusted import InputError

        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise InputError(f"{self.lock_path} is a symbolic link; rnnaudit never writes through one (remove it "
                                 "if no rnnaudit process is running)") from None
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise InputError(f"{self.lock_path} is not a regular file; rnnaudit keeps its lock there (remove it if no "
                             "rnnaudit process is running)")
        return os.fdopen(fd, "r+", encoding="utf-8")

    def __exit__(self, *exc) -> None:
        if self._fh is not None:
            try:  # unlinked while held: a process waiting on this file re-checks and retries (see __enter__)
                self.lock_path.unlink(missing_ok=True)
            except OSError:
                pass  # a directory that became read-only: the file stays, and is reused by the next holder
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def remove_stale_temporaries(directory: str | os.PathLike) -> list[Path]:
    """Remove the temporary files :func:`rnnaudit.atomic.atomic_path` leaves when a process is killed
    mid-write (``.<name>.<random>.tmp``), in ``directory`` and its subdirectories. Call only while
    holding the directory's lock: then no live writer owns them. Symlinks are never followed.

    Returns:
        the paths removed.
    """
    removed = []
    root = Path(directory)
    if not root.is_dir() or root.is_symlink():
        return removed
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not follow symlinked directories
        for name in filenames:
            if _is_temporary(name):
                path = Path(dirpath) / name
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")


def remove_own_files(run_dir: str | os.PathLike, own: dict[str, object], *, what: str = "overwrite") -> None:
    """Delete a run directory's files that rnnaudit wrote, and nothing else.

    Args:
        run_dir: the run directory. Its run.json must hold :data:`RUN_MARKER`.
        own: name → ``True`` for a file rnnaudit writes directly in ``run_dir``, or a compiled pattern
            (``re.Pattern``) of the file names rnnaudit writes in the subdirectory of that name (e.g.
            ``"checkpoints": re.compile("step_[0-9]{8}[.]pt|latest[.]txt")``). Temporaries of
            :func:`rnnaudit.atomic.atomic_path` and the lock file are rnnaudit's everywhere.
        what: the operation, for the messages (``overwrite``, ``--overwrite``).

    Raises:
        ValueError: run.json missing or without the marker; any other file, directory or symlink
            present (the first named), in which case nothing is deleted.
    """
    import re

    run_dir = Path(run_dir)
    run_json = run_dir / "run.json"
    if run_json.is_symlink() or not run_json.is_file():
        raise ValueError(f"{what}: {run_dir} has no run.json, so it is not a run directory rnnaudit wrote; "
                         "refusing to delete anything in it")
    try:
        info = json.loads(run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        info = None
    if not isinstance(info, dict) or any(info.get(k) != v for k, v in RUN_MARKER.items()):
        raise ValueError(f"{what}: {run_json} does not carry rnnaudit's marker ({RUN_MARKER}), so {run_dir} is not "
                         "a run directory rnnaudit wrote; refusing to delete anything in it")
    doomed: list[Path] = []
    dirs: list[Path] = []

    def foreign(path: Path):
        kind = "symlink" if path.is_symlink() else "directory" if path.is_dir() else "file"
        raise ValueError(f"{what}: {run_dir} holds {path} (a {kind} rnnaudit did not write); move it away or "
                         "choose another directory; nothing was deleted")

    for entry in run_dir.iterdir():
        rule = own.get(entry.name)
        if entry.name == LOCK_NAME or (_is_temporary(entry.name) and not entry.is_symlink()
                                       and entry.is_file()):
            if entry.name != LOCK_NAME:
                doomed.append(entry)
            continue
        if entry.is_symlink() or rule is None:
            foreign(entry)
        if rule is True:
            if not entry.is_file():
                foreign(entry)
            doomed.append(entry)
        elif isinstance(rule, re.Pattern):
            if not entry.is_dir():
                foreign(entry)
            for sub in entry.iterdir():
                if sub.is_symlink() or not sub.is_file() or not (rule.fullmatch(sub.name) or _is_temporary(sub.name)):
                    foreign(sub)
                doomed.append(sub)
            dirs.append(entry)
        else:
            foreign(entry)
    doomed.sort(key=lambda p: p.name == "run.json")  # run.json last: a kill midway leaves a run still overwritable
    for path in doomed:
        path.unlink(missing_ok=True)
    for path in dirs:
        path.rmdir()


def _holder(text: str) -> str:
    try:
        info = json.loads(text)
        return f"PID {info['pid']}: {info['command']}"
    except (ValueError, KeyError, TypeError, RecursionError):
        return "PID unknown"


def _leftovers(out: Path) -> list[Path]:
    return [p for p in out.parent.glob(f".{out.name}.staging-*")] + [p for p in out.parent.glob(f".{out.name}.old-*")]


@contextlib.contextmanager
def replaced_directory(out: str | os.PathLike, kind: str):
    """Build a report directory in a staging directory and swap it in whole on success.

    Args:
        out: the report directory to (re)place; created if missing.
        kind: what the report is (``"check"``, ``"audit"``), recorded in its marker file.

    Yields:
        the staging directory to write into (files written there with relative paths stay valid).

    Raises:
        LockedError: another writer holds ``out``.
        ValueError: ``out`` is a file, or a non-empty directory that is not an rnnaudit report (it
            would be deleted by the swap, so it is refused).
    """
    out = Path(out)
    with DirectoryLock(out):
        if out.exists() and not out.is_dir():
            raise ValueError(f"{out} exists and is not a directory")
        if out.is_dir() and any(out.iterdir()) and not (out / REPORT_MARKER).exists():
            raise ValueError(f"{out} is a non-empty directory that rnnaudit did not write (no {REPORT_MARKER}); "
                             "it would be replaced, so choose an empty or new directory")
        for leftover in _leftovers(out):
            shutil.rmtree(leftover, ignore_errors=True)
        staging = out.parent / f".{out.name}.staging-{os.getpid()}"
        staging.mkdir(parents=True)
        try:
            yield staging
            (staging / REPORT_MARKER).write_text(json.dumps({"kind": kind, "written": time.time()}) + "\n")
            old = None
            if out.exists():
                old = out.parent / f".{out.name}.old-{os.getpid()}"
                os.rename(out, old)
            os.rename(staging, out)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
