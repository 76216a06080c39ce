"""TensorBoard event files beside a run's trajectory, for browsing runs where researchers already browse
them. ``trajectory.jsonl`` stays the record the audit and the figures read; the event files are a copy
of its numbers, written only where the ``tensorboard`` package is installed
(``pip install "rnnaudit[tensorboard]"``).

Every numeric field of a trajectory record becomes a scalar tagged with its key (``loss``,
``grad/W_hr/max``, ``spectral_radius/W_hh``, ...) at the record's ``step``, in ``RUN_DIR/tensorboard``.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["TENSORBOARD_DIR", "tensorboard_available", "event_writer", "write_scalars"]

#: the folder of a run directory that holds the event files
TENSORBOARD_DIR = "tensorboard"


def tensorboard_available() -> bool:
    """Whether ``torch.utils.tensorboard`` can be imported (the ``tensorboard`` package is installed)."""
    try:
        import torch.utils.tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def event_writer(run_dir: str | os.PathLike, enabled: bool | None = None, *, purge_step: int | None = None):
    """A ``torch.utils.tensorboard.SummaryWriter`` into ``run_dir/tensorboard``, or None.

    Args:
        run_dir: the run directory.
        enabled: True: required (ImportError without tensorboard); None: write where tensorboard is
            installed; False: never.
        purge_step: on a resumed run, the first step written again: TensorBoard hides the events of
            the killed run from that step on (the trajectory drops its records past the checkpoint too).

    Returns:
        the writer (call ``close()``), or None when disabled or not installed.

    Raises:
        ImportError: ``enabled=True`` and tensorboard is not installed. TypeError: enabled not a bool/None.
    """
    if enabled is not None and not isinstance(enabled, bool):
        raise TypeError(f"tensorboard must be True, False or None (when installed), got {enabled!r}")
    if enabled is False:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as err:
        if enabled:
            raise ImportError("tensorboard=True needs the tensorboard package: pip install \"rnnaudit[tensorboard]\"") \
                from err
        return None
    return SummaryWriter(log_dir=str(Path(run_dir) / TENSORBOARD_DIR), purge_step=purge_step)


def write_scalars(writer, record: dict) -> None:
    """Add each numeric field of a trajectory record (not ``step``; booleans as 0/1; NaN and ±inf as
    they are) to ``writer`` at ``record["step"]``; nothing when writer is None."""
    if writer is None:
        return
    step = int(record["step"])
    for key, value in record.items():
        if key == "step" or not isinstance(value, (int, float)):
            continue
        writer.add_scalar(key, float(value), step)
