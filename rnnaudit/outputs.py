"""Output directories: one writer at a time, and a report that is either whole or absent.

A leaf (standard library only), used by ``check``, ``audit``, ``train`` and sweeps.

- :class:`DirectoryLock`: an ``fcntl`` lock on ``.<name>.lock`` beside the output directory. A second
  writer is refused at once with the holder's PID and command; the operating system releases the lock
  when its holder dies, so a lock left by a killed process is recovered without any cleanup.
- :func:`replaced_directory`: a report is built in a staging directory beside its target and swapped
  in by two renames, so a killed run leaves the previous complete report or none, never a mix, and
  no file of an older run survives unlisted. Leftover staging directories of killed runs are removed
  by the next run (it holds the lock, so they cannot belong to a live writer).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import time
from pathlib import Path

__all__ = ["DirectoryLock", "LockedError", "replaced_directory", "REPORT_MARKER"]

#: The file that marks a directory as an rnnaudit report, so that only such a directory is replaced.
REPORT_MARKER = ".rnnaudit-report"


class LockedError(ValueError):
    """Another process is writing the same output directory."""


class DirectoryLock:
    """An exclusive lock on an output directory (the directory itself need not exist).

    Args:
        path: the output directory. The lock file is ``<parent>/.<name>.lock``.

    Raises:
        LockedError: on entry, when another live process holds the lock (names its PID and command).
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.lock_path = self.path.parent / f".{self.path.name}.lock"
        self._fh = None

    def __enter__(self) -> "DirectoryLock":
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.lock_path, "a+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = _holder(fh.read())
            fh.close()
            raise LockedError(f"{self.path} is being written by another rnnaudit process ({holder}); wait for it to "
                              "finish or choose another output") from None
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv), "since": time.time()}) + "\n")
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def _holder(text: str) -> str:
    try:
        info = json.loads(text)
        return f"PID {info['pid']}: {info['command']}"
    except (ValueError, KeyError, TypeError):
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
