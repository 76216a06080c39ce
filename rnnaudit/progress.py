"""Progress bars for the commands that can run longer than a couple of seconds (``heatmap``, ``spectrum``,
``lyapunov``, ``audit``, ``reproduce``): tqdm on stderr with a rate and an ETA, drawn only where stderr is a
terminal, so a log file or a pipe never collects carriage-return clutter.

Note [progress without new arguments]: the audit reports its progress per claim through :func:`advance`,
which ticks the bar that :func:`reporting_to` made current in this context (a :class:`contextvars.ContextVar`),
so the library functions keep their signatures and cost nothing when no bar is current.

Imports nothing else of rnnaudit (a leaf of the application layer, like :mod:`rnnaudit.atomic`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["progress_bar", "shows_progress", "reporting_to", "advance"]

_CURRENT: ContextVar[Callable[[int], object] | None] = ContextVar("rnnaudit_progress", default=None)


def shows_progress(file=None) -> bool:
    """Whether a bar would be drawn on ``file`` (default ``sys.stderr``): only on a terminal.

    Args:
        file: a text stream; one without ``isatty`` counts as not a terminal.
    """
    file = sys.stderr if file is None else file
    isatty = getattr(file, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def progress_bar(total: float | None, desc: str, *, unit: str = "step", file=None, enabled: bool | None = None):
    """A tqdm bar on stderr with elapsed time, rate and ETA; use it as a context manager and pass
    ``bar.update`` wherever a probe takes a ``progress`` callback.

    Args:
        total: the units of work expected (float allowed, e.g. an estimated cost in seconds or flops);
            None for a bar that counts without an ETA.
        desc: what is being done, shown on the left (e.g. ``"heatmap"``).
        unit: the name of one unit (``"step"``, ``"claim"``, ``"point"``).
        file: where to draw (default ``sys.stderr``).
        enabled: force the bar on or off; default :func:`shows_progress` of ``file`` (on a TTY only).

    Returns:
        a ``tqdm.tqdm``; disabled, its ``update`` is a no-op, so callers need no branch.
    """
    from tqdm import tqdm

    file = sys.stderr if file is None else file
    on = shows_progress(file) if enabled is None else bool(enabled)
    return tqdm(total=total, desc=desc, unit=unit, file=file, dynamic_ncols=True, leave=False, disable=not on,
                bar_format=None if total is not None else "{desc}: {n_fmt} {unit} [{elapsed}, {rate_fmt}]")


@contextlib.contextmanager
def reporting_to(update: Callable[[int], object] | None) -> Iterator[None]:
    """Within the block, :func:`advance` calls ``update`` (e.g. a bar's ``update``); None silences it."""
    token = _CURRENT.set(update)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def advance(n: int = 1) -> None:
    """Report ``n`` units of work done to the current bar (:func:`reporting_to`); nothing when there is none."""
    update = _CURRENT.get()
    if update is not None:
        update(n)
