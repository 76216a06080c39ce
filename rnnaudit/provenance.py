"""Where an output came from: versions, machine, command line, seed. Recorded in results.json,
audit.json, run.json and every checkpoint, so a number in a report can be traced and rerun."""

from __future__ import annotations

import functools
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["provenance", "rnnaudit_version", "git_commit"]


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


def provenance(*, seed: int | None = None, argv: list[str] | None = None) -> dict:
    """Versions (Python, torch, numpy, scipy, rnnaudit), the git commit when run from a checkout, the
    platform, CPU and GPU names, the full command line and the seed, as a JSON-able dict."""
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "rnnaudit": rnnaudit_version(), "git_commit": git_commit(), "python": platform.python_version(),
        "torch": str(torch.__version__), "numpy": _version("numpy"), "scipy": _version("scipy"),
        "platform": platform.platform(), "cpu": _cpu_name(), "cpu_threads": torch.get_num_threads(), "gpu": gpu,
        "command": list(sys.argv if argv is None else argv), "seed": seed,
    }
