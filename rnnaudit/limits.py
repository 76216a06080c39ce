"""Bounds on the work a file or a flag can ask for, checked before anything is allocated.

A tiny file can describe an enormous job (a 2 KB counterexample with T = 10¹², a checkpoint whose
config says h = 10⁶). Every size read from a file or a flag passes :func:`check_sizes` first; the
command line's ``--allow-large`` lifts the limits for a user who means it. A leaf module.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "LIMITS", "check_sizes", "TooLargeError"]


class TooLargeError(ValueError):
    """A size above its limit (the message names it, the limit and how to lift it)."""


@dataclass(frozen=True)
class Limits:
    """The largest sizes accepted without ``--allow-large``.

    Attributes:
        T: sequence length (the papers go to 5,000; the Jacobian map at T = 10⁵ already needs 80 GB).
        hidden: state width (1,024 in the papers' largest runs; one h × h float64 matrix at 8,192 is 0.5 GB).
        batch: sequences per batch.
        steps: training steps.
        elements: T·h and any other product of sizes a job allocates at once (10⁸ float64 = 0.8 GB).
    """

    T: int = 100_000
    hidden: int = 8_192
    batch: int = 65_536
    steps: int = 10_000_000
    elements: int = 100_000_000


LIMITS = Limits()


def check_sizes(where: str, *, allow_large: bool = False, limits: Limits = LIMITS, **sizes) -> None:
    """Raise unless every given size is a positive integer within its limit.

    Args:
        where: what the sizes come from, for the message (a file, ``--T``, ...).
        allow_large: skip the upper limits (still reject non-integers and values < 1).
        **sizes: name → value, among ``T``, ``hidden``, ``batch``, ``steps``, ``elements``.

    Raises:
        TooLargeError: a size above its limit.
        ValueError: a size that is not a positive integer.
    """
    for name, value in sizes.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{where}: {name} must be a positive integer, got {value!r}")
        limit = getattr(limits, name)
        if not allow_large and value > limit:
            raise TooLargeError(f"{where}: {name} = {value} is above the limit {limit} (pass --allow-large to lift "
                                "the limits if you mean it)")
