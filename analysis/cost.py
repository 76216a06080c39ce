"""Time estimates of the probes before they run: a count of identical work units (QR steps, Lanczos point-steps,
dense factorisations) times the seconds of one unit measured now, in this process, on this machine.

Why measured, not tabulated: the same unit costs 10× more on a loaded 2-core machine than on an idle one, and far
more again when a small LAPACK call wakes OpenMP threads that compete with other processes. The engines run their
small kernels single-threaded for that reason (:func:`single_threaded`), and the units are timed the same way.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass

import torch

__all__ = ["WorkEstimate", "best_seconds", "single_threaded"]


@dataclass(frozen=True)
class WorkEstimate:
    """A probe's predicted time: ``sum(count × seconds)`` over its kinds of work unit.

    Attributes:
        what: the job, for the user's line (e.g. ``"lyapunov spectrum, k = 64 of S = 64, T = 1000"``).
        parts: tuples (unit name, count, seconds of one unit measured now); counts are float (they may be 10¹⁵).

    The count of each unit is exact for the fixed-shape work (QR steps, decompositions) and a stated typical value
    where the work depends on the data (Lanczos steps per grid point): see the function that builds the estimate.
    """

    what: str
    parts: tuple

    @property
    def seconds(self) -> float:
        """Predicted wall time in seconds (on this machine, at its load when the units were timed)."""
        return float(sum(count * sec for _, count, sec in self.parts))

    def describe(self) -> str:
        """One line: the job, the predicted time and its largest part."""
        name, count, sec = max(self.parts, key=lambda p: p[1] * p[2])
        return (f"{self.what}: about {_duration(self.seconds)} on this machine now ({count:.3g} {name} at "
                f"{_duration(sec)} each{' and more' if len(self.parts) > 1 else ''})")


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return f"{seconds} s"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    if seconds < 600:
        return f"{seconds:.3g} s"
    if seconds < 3 * 86400:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 86400:.3g} days"


def best_seconds(fn, *, repeats: int = 3) -> float:
    """The fastest of ``repeats`` timed calls of ``fn()`` after one untimed call (first-call set-up and caches
    excluded), in seconds of wall time.

    Raises:
        ValueError: repeats not a positive int.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive int, got {repeats!r}")
    fn()
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@contextmanager
def single_threaded(on: bool = True):
    """torch's intra-op pool runs one thread inside the block (restored after) where ``on``.

    Small LAPACK calls lose to their own threads: a 64 × 64 float64 QR step took 18.6 ms on torch's 2 threads
    against 1.4 ms on one, and 116 ms against 4.9 ms at 128 × 128 (2 cores, load 10–16; 2-thread runs spin
    while the other processes hold the second core)."""
    old = torch.get_num_threads()
    if not on or old == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)
