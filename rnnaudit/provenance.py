"""Where an output came from: versions, machine, command line, seed. Recorded in results.json,
audit.json, run.json and every checkpoint, and in every figure file's metadata, so a number in a report can be
traced and rerun. Imports nothing else of rnnaudit (a leaf: the figures use it)."""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import shlex
import subprocess
import sys
from contextvars import ContextVar
from importlib import metadata
from pathlib import Path

__all__ = ["command_text", "provenance", "rnnaudit_version", "git_commit", "figure_provenance", "recorded_seed"]

_SEED: ContextVar[int | None] = ContextVar("rnnaudit_seed", default=None)


def rnnaudit_version() -> str:
    """The installed rnnaudit version ("unknown" when run from a tree that is not installed)."""
    try:
        return metadata.version("rnnaudit")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the checkout rnnaudit runs from (with ``+dirty`` when it has uncommitted changes),
    or None when it is not run from a git checkout."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


@functools.lru_cache(maxsize=1)
def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def command_text(arg) -> str:
    """A command-line argument as valid Unicode text: a file name that is not UTF-8 reaches Python as lone
    surrogates (PEP 383), which no UTF-8 writer accepts (PNG text chunks, JSON written as UTF-8); its bytes
    are kept, the undecodable ones as ``\\xff`` escapes."""
    return os.fsencode(str(arg)).decode("utf-8", "backslashreplace") if isinstance(arg, (str, os.PathLike)) \
        else str(arg)


def provenance(*, seed: int | None = None, argv: list[str] | None = None) -> dict:
    """Versions (Python, torch, numpy, scipy, rnnaudit), the git commit when run from a checkout, the
    platform, CPU and GPU names, the full command line and the seed, as a JSON-able dict."""
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "rnnaudit": rnnaudit_version(), "git_commit": git_commit(), "python": platform.python_version(),
        "torch": str(torch.__version__), "numpy": _version("numpy"), "scipy": _version("scipy"),
        "platform": platform.platform(), "cpu": _cpu_name(), "cpu_threads": torch.get_num_threads(), "gpu": gpu,
        "command": [command_text(a) for a in (sys.argv if argv is None else argv)], "seed": seed,
    }


@contextlib.contextmanager
def recorded_seed(seed: int | None):
    """Within the block, :func:`figure_provenance` names ``seed`` (the CLI sets the running command's)."""
    token = _SEED.set(seed)
    try:
        yield
    finally:
        _SEED.reset(token)


def figure_provenance(*, seed: int | None = None, argv: list[str] | None = None) -> dict[str, str]:
    """The provenance a figure file carries in its metadata: ``rnnaudit`` (version), ``commit`` (git, or
    "none" outside a checkout), ``command`` (the command line, shell-quoted) and ``seed`` (default: the
    one :func:`recorded_seed` set, else "none"); every value a str."""
    seed = _SEED.get() if seed is None else seed
    return {"rnnaudit": rnnaudit_version(), "commit": git_commit() or "none",
            "command": shlex.join(command_text(a) for a in (sys.argv if argv is None else argv)),
            "seed": "none" if seed is None else str(seed)}
