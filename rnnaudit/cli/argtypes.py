"""argparse types of the ``rnnaudit`` command line, also used by the scripts in ``benchmarks/``: a bad value
ends in argparse's one-line error and exit status 2. Light: no torch (``rnnaudit --help`` stays fast)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rnnaudit import names

__all__ = ["count", "seed", "positive_float", "learning_rate", "rtol", "figure_file", "grid_points", "strict_level",
           "STRICT_LEVELS"]

#: ``--strict=LEVEL`` → the verdicts that make ``rnnaudit check`` exit 1 (docs/verdicts.md): ``false`` (the
#: default of a bare ``--strict``) fails on statements no fair reading saves; ``misprinted`` fails on misprints too.
STRICT_LEVELS = {"false": ("false",), "misprinted": ("false", "misprinted")}


def _integer(text: str, low: int, what: str) -> int:
    """An int in [low, 2⁶³) (what torch and numpy can hold); ``what`` names the range in the error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not low <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected {what} below 2^63, got {text}")
    return value


def count(text: str) -> int:
    """A positive integer below 2⁶³."""
    return _integer(text, 1, "a positive integer")


def grid_points(text: str) -> int:
    """Grid points per axis of a heatmap: an integer from 2 to 10⁵ (a figure has a few hundred pixels a side)."""
    value = _integer(text, 2, "an integer >= 2 (grid points per axis)")
    if value > 100_000:
        raise argparse.ArgumentTypeError(f"expected at most 100000 grid points per axis, got {text}")
    return value


def seed(text: str) -> int:
    """A seed: 0 ≤ seed < 2⁶³."""
    return _integer(text, 0, "a non-negative integer")


def strict_level(text: str) -> tuple[str, ...]:
    """``false`` or ``misprinted`` (:data:`STRICT_LEVELS`): the verdicts ``--strict`` fails on."""
    if text not in STRICT_LEVELS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(STRICT_LEVELS)}, got {text!r}")
    return STRICT_LEVELS[text]


def positive_float(text: str) -> float:
    """A finite positive float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite positive number, got {text}")
    return value


def learning_rate(text: str) -> float:
    """A learning rate in (0, 1000]."""
    value = positive_float(text)
    if value > 1e3:
        raise argparse.ArgumentTypeError(f"expected a learning rate in (0, 1000], got {text}")
    return value


#: The finest --rtol: 16·u with u = 2⁻⁵² the float64 unit roundoff. A spectral norm computed in float64 carries a
#: rounding error of a small multiple of u (an SVD's backward error is O(u)·‖A‖, and a product of two factors adds
#: about 2u), so a tolerance below it certifies nothing: 1e-300 was accepted and silently meant rounding.
RTOL_FLOOR = 16 * sys.float_info.epsilon


def rtol(text: str) -> float:
    """A relative tolerance in [:data:`RTOL_FLOOR`, 1)."""
    value = positive_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"expected a relative tolerance in (0, 1), got {text}")
    if value < RTOL_FLOOR:
        raise argparse.ArgumentTypeError(f"{text} is below {RTOL_FLOOR:.3g} (16 float64 roundoffs), the finest "
                                         "relative tolerance float64 norms can be certified to")
    return value


def figure_file(text: str) -> Path:
    """A path whose suffix is one of :data:`rnnaudit.names.FIGURE_SUFFIXES` (the file need not exist)."""
    path = Path(text)
    if path.suffix.lower() not in names.FIGURE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"expected a file ending in {', '.join(names.FIGURE_SUFFIXES)}, got {text!r}")
    return path
