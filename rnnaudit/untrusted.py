"""Reading files rnnaudit did not necessarily write: one clear error, naming the file, for anything wrong.

A leaf: it imports nothing else of rnnaudit but the leaf :mod:`rnnaudit.limits` (torch only inside
:func:`load_torch_file`), so every layer
and the command line may use it. Every reader raises :class:`InputError`, a ``ValueError`` whose
message names the file (and line or field) and says what was expected; the command line turns it
into one line on stderr and exit status 2.

Pickles are refused, never executed: :func:`load_torch_file` reads with
``torch.load(..., weights_only=True)``, and its refusal message does not suggest turning that off.
"""

from __future__ import annotations

import errno
import json
import math
import os
import pickle
import re
import unicodedata
import warnings
import zipfile
from pathlib import Path

__all__ = ["InputError", "load_torch_file", "read_json_file", "read_jsonl_records", "read_text_file",
           "require_file", "require_dir", "require_inside", "finite_number", "control_character", "MAX_TEXT_BYTES"]

#: Largest JSON/TOML/text file read whole (run.json, sweep specs, latest.txt): far above any file
#: rnnaudit writes, far below what would strain memory.
MAX_TEXT_BYTES = 64 * 2**20


class InputError(ValueError):
    """A file or argument that cannot be used, with a message that names it and says what was expected."""


#: Unicode categories of characters never printed as themselves: C0/C1 controls and DEL (Cc), the lone
#: surrogates of a name that is not valid UTF-8 (Cs), and the line and paragraph separators (Zl, Zp).
_UNPRINTED = frozenset({"Cc", "Cs", "Zl", "Zp"})


def control_character(text) -> str | None:
    """The first character of ``str(text)`` that is a control character (C0, DEL, C1: newline, CR, NUL, ESC,
    ...), a lone surrogate (a name that is not valid UTF-8) or a line or paragraph separator; None when there is
    none. Such a character in a value that reaches a line of a script, a report or a message splits that line."""
    return next((ch for ch in str(text) if unicodedata.category(ch) in _UNPRINTED), None)


def _path(path) -> Path:
    """A Path from a str, an os.PathLike or bytes (a file name that is not UTF-8, as ``os.listdir(b".")`` gives it:
    decoded with the filesystem's surrogate escapes, so the same bytes reach the system again)."""
    return Path(os.fsdecode(path) if isinstance(path, bytes) else path)


def _broken_link(p: Path) -> str:
    """Why the symbolic link ``p`` leads nowhere: a loop of links, or a missing target (named)."""
    try:
        p.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a loop so
        return "a symlink loop"
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "a symlink loop"
        return f"a symlink to {os.readlink(p)!r}, which does not exist"
    return "a symlink that does not resolve"


def require_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if it is an existing, readable regular file.

    Raises:
        InputError: missing, a directory, not a regular file (a device such as /dev/zero, a FIFO), unreadable,
            or a name the filesystem rejects.
    """
    p = _path(path)
    kind = what if what.endswith("file") else f"{what} file"
    try:
        if not p.exists():
            if p.is_symlink():  # exists() follows links: a dangling link or a loop is not "no such file"
                raise InputError(f"{p}: cannot resolve the {what}: {_broken_link(p)}")
            raise InputError(f"{p}: no such {what}")
        if p.is_dir():
            raise InputError(f"{p}: is a directory, expected a {kind}")
        if not p.is_file():  # /dev/zero never ends (its reader filled memory until killed), a FIFO blocks forever
            raise InputError(f"{p}: is not a regular file (a device, a pipe or a socket), expected a {kind}")
        if not os.access(p, os.R_OK):
            raise InputError(f"{p}: the {what} is not readable (permission denied)")
    except OSError as err:  # e.g. a name too long for the filesystem
        raise InputError(f"{p}: cannot use this path for a {what}: {err.strerror or err}") from None
    return p


def require_dir(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if it is an existing directory.

    Raises:
        InputError: missing or not a directory.
    """
    p = _path(path)
    try:
        if not p.is_dir():
            raise InputError(f"{p}: no such {what} directory" if not p.exists()
                             else f"{p}: is a file, expected a {what} directory")
    except OSError as err:
        raise InputError(f"{p}: cannot use this path for a {what}: {err.strerror or err}") from None
    return p


def require_inside(path: str | os.PathLike, root: str | os.PathLike, what: str) -> Path:
    """``path`` (a file named inside the directory ``root``) as a Path, unless a symlink takes it outside ``root``.

    A run directory is data from anywhere: a symlink inside it must not make rnnaudit read (or, on
    overwrite, touch) a file elsewhere, such as another user's run or a file in /etc.

    Raises:
        InputError: ``path`` resolves outside ``root`` (names both).
    """
    p = Path(path)
    try:
        resolved, top = p.resolve(), Path(root).resolve()
    except (OSError, RuntimeError) as err:  # a symlink loop
        raise InputError(f"{p}: cannot resolve the {what}: {err}") from None
    if resolved != top and top not in resolved.parents:
        raise InputError(f"{p}: the {what} is a symlink to {resolved}, outside the run directory {root}; refused")
    return p


def read_text_file(path: str | os.PathLike, what: str, *, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a small file.

    Raises:
        InputError: missing, unreadable, larger than ``max_bytes``, or not UTF-8.
    """
    p = require_file(path, what)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise InputError(f"{p}: the {what} is {size} bytes, more than the {max_bytes} a {what} may be")
        return p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{p}: the {what} is not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise InputError(f"{p}: cannot read the {what}: {err.strerror or err}") from None


def read_json_file(path: str | os.PathLike, what: str) -> dict:
    """A JSON object from a file (NaN and Infinity allowed, as Python writes them).

    Raises:
        InputError: unreadable, not JSON (with line and column), or not an object.
    """
    text = read_text_file(path, what)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: the {what} is not valid JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg})") from None
    except RecursionError:  # nesting deeper than Python's stack: no rnnaudit file nests more than a few levels
        raise InputError(f"{path}: the {what} nests its arrays or objects too deeply to be read") from None
    if not isinstance(value, dict):
        raise InputError(f"{path}: the {what} must be a JSON object, got {type(value).__name__}")
    return value


def read_jsonl_records(path: str | os.PathLike, what: str) -> list[dict]:
    """The records of an append-only JSON-lines file. A last line without its newline is the line a
    kill interrupted; everything before it was flushed whole, so it alone is dropped.

    Raises:
        InputError: unreadable, or a complete line that is not a JSON object (names the line number).
    """
    p = require_file(path, what)
    out = []
    try:
        with open(p, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.endswith("\n"):
                    break
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    raise InputError(f"{p}, line {number}: not a JSON object ({err.msg})") from None
                except RecursionError:
                    raise InputError(f"{p}, line {number}: nests its arrays or objects too deeply to be read") from None
                if not isinstance(record, dict):
                    raise InputError(f"{p}, line {number}: expected a JSON object, got {type(record).__name__}")
                out.append(record)
    except UnicodeDecodeError:
        raise InputError(f"{p}: the {what} is not UTF-8 text") from None
    except OSError as err:
        raise InputError(f"{p}: cannot read the {what}: {err.strerror or err}") from None
    return out


def _require_torch_format(p: Path, what: str) -> None:
    """A file torch.save wrote: a zip archive, or (the legacy format) a pickle of protocol 2 or higher, whose first
    byte is the PROTO opcode 0x80. Anything else (a JSON or text file given by mistake) is named for what it is,
    not described as holding Python objects.

    Raises:
        InputError: neither (names the file and shows its first bytes).
    """
    try:
        with open(p, "rb") as fh:
            head = fh.read(64)
    except OSError as err:
        raise InputError(f"{p}: cannot read the {what}: {err.strerror or err}") from None
    if head.startswith(b"PK") or head.startswith(b"\x80"):
        return
    text = head.lstrip()
    kind = ("JSON text" if text[:1] in (b"{", b"[") else "text" if text and all(32 <= b < 127 or b in b"\t\r\n"
                                                                                 for b in text) else "some other file")
    raise InputError(f"{p}: the {what} is not a torch file ({kind}, starting {head[:24]!r}); torch.save writes a "
                     "zip archive")


def load_torch_file(path: str | os.PathLike, what: str, *, map_location: str = "cpu", allow_large: bool = False):
    """``torch.load(path, weights_only=True)`` with one clear error for everything that can go wrong.

    Only tensors and plain containers and values are accepted: a file that holds other Python objects
    (a pickled class, a function, a payload) is refused, and its code is never run. The sizes its
    tensors describe are checked from their shapes before anything is allocated
    (:func:`rnnaudit.limits.check_tensor_sizes`: an expanded tensor of a few bytes may describe 10¹¹
    elements); ``allow_large`` lifts the limits.

    Raises:
        InputError: missing, unreadable, empty, truncated, not a torch file, or holding objects other
            than tensors and plain values.
        rnnaudit.limits.TooLargeError: tensors above the limits.
    """
    import torch

    from rnnaudit.limits import check_tensor_sizes

    p = require_file(path, what)
    if p.stat().st_size == 0:
        raise InputError(f"{p}: the {what} is empty")
    _require_torch_format(p, what)
    try:
        with warnings.catch_warnings():  # torch warns about old pickle protocols: noise for a refused or read file
            warnings.simplefilter("ignore")
            loaded = torch.load(p, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        if "Weights only load failed" in first or "weights_only" in str(err) or "Unsupported" in str(err):
            found = re.search(r"GLOBAL ([\w.]+)", str(err))
            names = f" (it refers to {found.group(1)})" if found else ""
            raise InputError(f"{p}: refused: the {what} holds Python objects other than tensors and plain values"
                             f"{names}, and rnnaudit never unpickles arbitrary objects from a file; save tensors "
                             "only, e.g. torch.save(model.state_dict(), path)") from None
        raise InputError(f"{p}: the {what} is not a readable torch file (corrupt pickle data)") from None
    except (EOFError, zipfile.BadZipFile) as err:
        raise InputError(f"{p}: the {what} is truncated or not a torch file ({type(err).__name__})") from None
    except (RuntimeError, ValueError, TypeError, AttributeError, KeyError, IndexError, UnicodeDecodeError,
            OverflowError, MemoryError) as err:
        text = str(err).strip().splitlines()[0][:200] if str(err).strip() else type(err).__name__
        raise InputError(f"{p}: the {what} is not a readable torch file ({text})") from None
    except OSError as err:
        raise InputError(f"{p}: cannot read the {what}: {err.strerror or err}") from None
    check_tensor_sizes(loaded, f"{p}", allow_large=allow_large)
    return loaded


def finite_number(value, name: str, *, low: float | None = None, high: float | None = None) -> float:
    """``value`` as a finite float within [low, high].

    Raises:
        InputError: not a number (booleans included), NaN/inf, or out of range (names ``name``).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (low is not None and x < low) or (high is not None and x > high):
        bounds = f" in [{low}, {high}]" if low is not None or high is not None else ""
        raise InputError(f"{name} must be a finite number{bounds}, got {value!r}")
    return x
