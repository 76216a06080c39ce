"""Atomic file writes: write a temporary file in the target directory, fsync, then rename,
so an interrupted run never leaves a truncated result file behind.

A leaf (standard library only). The files get the permissions the user's umask gives a new file
(0644 for the usual 022), not the 0600 of the temporary file they are written through.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "write_text_atomic", "write_json_atomic", "new_file_mode"]


def new_file_mode() -> int:
    """0o666 masked by the process's umask: the mode ``open(path, "w")`` would give a new file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path``; on clean exit it replaces ``path`` atomically.

    On an exception the temporary file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    created = _make_parents(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except BaseException:
        _remove_empty(created)
        raise
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        _remove_empty(created)  # a refused or failed write leaves no directory it made behind
        raise


def _make_parents(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing parents; return the ones created, innermost first."""
    missing = []
    d = directory
    while not d.exists() and d != d.parent:
        missing.append(d)
        d = d.parent
    directory.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_empty(created: list[Path]) -> None:
    """Remove the directories :func:`_make_parents` created, innermost first, where they are still empty."""
    for d in created:
        try:
            d.rmdir()
        except OSError:  # not empty (another writer's file) or already gone: left as it is
            break


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path: str | os.PathLike, obj) -> None:
    """Serialise ``obj`` as indented JSON to ``path`` atomically (NaN/Inf rejected)."""
    write_text_atomic(path, json.dumps(obj, indent=2, allow_nan=False) + "\n")
